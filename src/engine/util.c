/* SPDX-License-Identifier: MIT */
/*
 * util.c — small helpers shared by the engine: growable arrays, formatted strings,
 * and per-node event logging (the lists' names: names.c).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hm_internal.h"

int hm__grow(void **v, size_t *cap, size_t need, size_t elem)
{
    if (*cap > 0 && *cap >= need)
        return 0; /* room enough: no realloc call on the hot path (hm__emit_copies) */
    /* From one element: a node's vectors (its outbox, log, stores) mostly hold a few,
     * and half a million nodes each with room for 8 events and 8 copies would hold
     * about 1 GiB they never use (README "Many nodes"). */
    size_t c = *cap ? *cap : 1;
    while (c < need)
        c *= 2;
    void *nv = realloc(*v, c * elem);
    if (!nv)
        return -1;
    *v = nv;
    *cap = c;
    return 0;
}

char *hm__vstrdup_printf(const char *fmt, va_list ap)
{
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0)
        s = NULL;
    return s;
}

char *hm__strdup_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = hm__vstrdup_printf(fmt, ap);
    va_end(ap);
    return s;
}

/* Append an event to node n's own log. Called by n's thread during its slot, or by
 * the clock while every node sleeps: never by two threads at once, so no lock. */
int64_t hm__now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

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
        .ns = n->m->opt.clock == HM_CLOCK_FREE ? hm__now_ns() : 0,
    };
    if (HM__PUSH(n->log, e) != 0) {
        free(text);
        n->failed = 1;
    }
}

void hm__event_payload(hm__event_t *e, const hm_packet_t *p)
{
    if (!p->data || p->len == 0)
        return;
    uint32_t words = (p->len + 7) / 8, keep = words < HM__PAY_WORDS ? words : HM__PAY_WORDS;
    size_t bytes = (size_t)keep * 8 < p->len ? (size_t)keep * 8 : p->len;
    e->pay = calloc(keep, sizeof *e->pay);
    if (!e->pay)
        return; /* a picture only: the page shows the packet without its payload */
    memcpy(e->pay, p->data, bytes);
    e->pay_n = keep;
    e->pay_words = words;
}

char *hm__fail_message(const hm_node_t *n)
{
    return hm__strdup_printf("node %d: %s", n->id,
                             n->fail_what[0] ? n->fail_what : "out of memory in its thread");
}

hm__blob_t *hm__blob_new(const hm_packet_t *p, int refs, int *fail)
{
    *fail = 0;
    if (p->len == 0)
        return NULL;
    hm__blob_t *b = malloc(sizeof *b + p->len);
    if (!b) {
        *fail = 1;
        return NULL;
    }
    atomic_init(&b->refs, refs);
    b->len = p->len;
    memcpy(b->bytes, p->data, p->len);
    return b;
}

void hm__blob_release(hm__blob_t *b)
{
    if (b && atomic_fetch_sub_explicit(&b->refs, 1, memory_order_acq_rel) == 1)
        free(b);
}

/* Append a line to a growing report; keeps the report as it was if out of memory. */
static char *append(char *s, size_t *len, const char *line)
{
    size_t l = strlen(line);
    char *t = realloc(s, *len + l + 1);
    if (!t)
        return s;
    memcpy(t + *len, line, l + 1);
    *len += l;
    return t;
}

char *hm__blocked_report(const char *head, const hm__machine_t *m,
                         int (*wait)(const hm__machine_t *m, int node, char *buf, size_t len))
{
    size_t len = 0;
    char *s = append(NULL, &len, head);
    if (!s)
        return NULL;
    int shown = 0, total = 0;
    for (int i = 0; i < m->info.nodes; i++) {
        char buf[512];
        if (!wait(m, i, buf, sizeof buf))
            continue;
        size_t used = strlen(buf);
        hm__refused_note(&m->nodes[i], buf + used, sizeof buf - used);
        if (total++ < 20) {
            shown++;
            s = append(s, &len, buf);
        }
    }
    if (total > shown) {
        char more[64];
        snprintf(more, sizeof more, "\n  ... and %d more blocked nodes", total - shown);
        s = append(s, &len, more);
    }
    return s;
}
