/*
 * util.c — small helpers shared by the engine: growable arrays, formatted strings,
 * the names of the registries, and per-node event logging.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "hm_internal.h"

int hm__grow(void **v, size_t *cap, size_t need, size_t elem)
{
    size_t c = *cap ? *cap : 8;
    while (c < need)
        c *= 2;
    void *nv = realloc(*v, c * elem);
    if (!nv)
        return -1;
    *v = nv;
    *cap = c;
    return 0;
}

char *hm__strdup_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0)
        s = NULL;
    va_end(ap);
    return s;
}

const char *hm__event_name(hm__event_kind_t k)
{
    static const char *const names[] = {
#define XX(id, name) name,
        HM__EVENT_MAP(XX)
#undef XX
    };
    return k < HM__EV_COUNT ? names[k] : "?";
}

const char *hm_topology_name(hm_topology_kind_t k)
{
    static const char *const names[] = {
#define XX(id, name, desc) name,
        HM_TOPOLOGY_MAP(XX)
#undef XX
    };
    return k < HM_TOPO_COUNT ? names[k] : "?";
}

const char *hm_ports_name(hm_ports_kind_t k)
{
    static const char *const names[] = {
#define XX(id, name, desc) name,
        HM_PORTS_MAP(XX)
#undef XX
    };
    return k < HM_PORTS_COUNT ? names[k] : "?";
}

/* Append an event to node n's own log. Called by n's thread during its slot, or by
 * the clock while every node sleeps: never by two threads at once, so no lock. */
void hm__log_event(hm_node_t *n, hm__event_kind_t kind, int64_t slot, int port, int peer, int msg,
                   int64_t value, int64_t dur, uint64_t flow, char *text)
{
    hm__event_t e = {
        .slot = slot,
        .node = n->id,
        .seq = n->seq++,
        .kind = (uint8_t)kind,
        .port = port,
        .peer = peer,
        .msg = msg,
        .value = value,
        .dur = dur,
        .flow = flow,
        .text = text,
    };
    if (HM__PUSH(n->log, e) != 0) {
        free(text);
        n->failed = 1;
    }
}

char *hm__fail_message(const hm_node_t *n)
{
    return hm__strdup_printf("node %d: %s", n->id,
                             n->fail_what ? n->fail_what : "out of memory in its thread");
}
