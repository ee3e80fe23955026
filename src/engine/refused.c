/* SPDX-License-Identifier: MIT */
/*
 * refused.c — refused calls (README "Refused calls"): a send the model does not allow (a
 * port that does not exist or leads nowhere, a node that is not a neighbour under packet
 * routing, a bad argument), or hm_wait_until for a slot that is not ahead, returns
 * HM_EINVAL and the run goes on. A node program that
 * ignores the code would otherwise deadlock or store nothing with no word about why, so
 * each refusal is counted per node, the first few kept in full (also without events),
 * logged as a "refused" event when events are recorded, named in the deadlock report's
 * line of the node, counted in the summary and reported on stderr after the run.
 *
 * Called from the node's own thread only, at the call; nothing here is shared.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hm_internal.h"

/* Record "CALL: REASON" for node n. Returns HM_EINVAL, what the call returns. */
static int refuse(hm_node_t *n, int port, int peer, const char *call, const char *reason)
{
    char text[sizeof n->refusals->text];
    snprintf(text, sizeof text, "%s: %s", call, reason);
    if (n->refused < HM__REFUSED_KEEP) {
        if (!n->refusals)
            n->refusals = calloc(HM__REFUSED_KEEP, sizeof *n->refusals);
        if (n->refusals) {
            hm__refusal_t *r = &n->refusals[n->refused];
            r->slot = n->now;
            r->node = n->id;
            memcpy(r->text, text, sizeof text);
        }
    }
    n->refused++;
    if (n->m->opt.record_events) {
        char *owned = strdup(text);
        if (!owned)
            n->failed = 1;
        else
            hm__log_event(n, HM__EV_REFUSED, n->now, port, peer, 0, 0, 0, 0, owned);
    }
    return HM_EINVAL;
}

static const char *packet_arg(const hm_packet_t *p)
{
    return p ? "p" : "NULL";
}

/* Why a packet cannot be sent, or NULL when it can. */
static const char *bad_packet(const hm_packet_t *p, char *buf, size_t len)
{
    if (!p)
        return "no packet (p is NULL)";
    if (p->len > 0 && !p->data) {
        snprintf(buf, len, "p->len is %u but p->data is NULL", (unsigned)p->len);
        return buf;
    }
    return NULL;
}

static void ports_of(const hm_node_t *n, char *buf, size_t len)
{
    int deg = n->m->deg[n->id];
    if (deg == 0)
        snprintf(buf, len, "node %d has no port", n->id);
    else
        snprintf(buf, len, "node %d has ports 0..%d", n->id, deg - 1);
}

int hm__refuse_send(hm_node_t *n, int port, const hm_packet_t *p)
{
    char call[64], reason[200], have[64];
    snprintf(call, sizeof call, "hm_send(n, %d, %s)", port, packet_arg(p));
    const char *why = bad_packet(p, reason, sizeof reason);
    ports_of(n, have, sizeof have);
    if (port < 0 || port >= n->m->deg[n->id]) {
        snprintf(reason, sizeof reason, "port %d does not exist (%s)", port, have);
        return refuse(n, -1, -1, call, reason);
    }
    if (!why) {
        snprintf(reason, sizeof reason, "port %d of node %d leads to no node (a border)", port,
                 n->id);
        why = reason;
    }
    return refuse(n, port, -1, call, why);
}

/* The first port of the set that does not exist or leads nowhere, -1 if none. */
static int bad_port(const hm_node_t *n, uint64_t mask, int *missing)
{
    const hm__machine_t *m = n->m;
    int deg = m->deg[n->id];
    for (int port = 0; port < 64; port++) {
        if (!(mask >> port & 1))
            continue;
        *missing = port >= deg;
        if (*missing || m->nbr[n->id * m->maxdeg + port] < 0)
            return port;
    }
    return -1;
}

/* Why an emission to a set of ports (hm_shout, hm_shout_all) is refused. */
static const char *emit_reason(const hm_node_t *n, const hm__ports_t *ports, int port, int missing,
                               char *buf, size_t len)
{
    char have[64];
    ports_of(n, have, sizeof have);
    if (ports->all) /* a node without ports: the only way hm_shout_all is refused */
        snprintf(buf, len, "%s", have);
    else if (ports->mask == 0)
        snprintf(buf, len, "an empty set of ports");
    else if (port >= 0 && missing)
        snprintf(buf, len, "port %d in the set does not exist (%s)", port, have);
    else
        snprintf(buf, len, "port %d of node %d leads to no node (a border)", port, n->id);
    return buf;
}

int hm__refuse_emit(hm_node_t *n, const hm__ports_t *ports, const hm_packet_t *p)
{
    if (ports->one)
        return hm__refuse_send(n, ports->one - 1, p);
    char call[80], reason[200];
    if (ports->all)
        snprintf(call, sizeof call, "hm_shout_all(n, %s)", packet_arg(p));
    else
        snprintf(call, sizeof call, "hm_shout(n, 0x%llx, %s)", (unsigned long long)ports->mask,
                 packet_arg(p));
    int missing = 0, port = ports->all ? -1 : bad_port(n, ports->mask, &missing);
    const char *why = bad_packet(p, reason, sizeof reason);
    if (!why)
        why = emit_reason(n, ports, port, missing, reason, sizeof reason);
    return refuse(n, missing ? -1 : port, -1, call, why);
}

/* A send to node dest refused: the call's name, and why when dest exists, is another
 * node and the packet is fine (`far`, which names dest and the sender). */
static int refuse_dest(hm_node_t *n, const char *name, int dest, const hm_packet_t *p,
                       const char *far)
{
    const hm__machine_t *m = n->m;
    char call[64], reason[200];
    snprintf(call, sizeof call, "%s(n, %d, %s)", name, dest, packet_arg(p));
    int other = dest >= 0 && dest < m->info.nodes && dest != n->id;
    const char *why = bad_packet(p, reason, sizeof reason);
    if (why)
        ;
    else if (dest < 0 || dest >= m->info.nodes)
        snprintf(reason, sizeof reason, "node %d does not exist (nodes 0..%d)", dest,
                 m->info.nodes - 1);
    else if (dest == n->id)
        snprintf(reason, sizeof reason, "node %d is the sender itself", dest);
    else
        snprintf(reason, sizeof reason, "node %d is not a neighbour of node %d: %s", dest, n->id,
                 far);
    return refuse(n, -1, other ? dest : -1, call, why ? why : reason);
}

int hm__refuse_send_to(hm_node_t *n, int dest, const hm_packet_t *p)
{
    return refuse_dest(n, "hm_send_to", dest, p,
                       "under packet routing hm_send_to reaches neighbours only "
                       "(ports.routing \"circuit\" routes to any node)");
}

int hm__refuse_send_routed(hm_node_t *n, int dest, const hm_packet_t *p)
{
    return refuse_dest(n, "hm_send_routed", dest, p,
                       "under packet routing only the slotted clock routes packets "
                       "(clock.mode \"slotted\")");
}

int hm__refuse_wait_until(hm_node_t *n, int64_t slot)
{
    char call[64], reason[96];
    snprintf(call, sizeof call, "hm_wait_until(n, %lld)", (long long)slot);
    snprintf(reason, sizeof reason, "slot %lld is not after the current slot %lld", (long long)slot,
             (long long)n->now);
    return refuse(n, -1, -1, call, reason);
}

int hm__refuse_wait_ns(hm_node_t *n, int64_t deadline_ns)
{
    char call[64];
    snprintf(call, sizeof call, "hm_wait_packet_ns(n, p, %lld)", (long long)deadline_ns);
    return refuse(n, -1, -1, call,
                  "only under the free-running clock (clock.mode \"free\"); a slotted or local "
                  "run has no wall time to wait for: hm_wait_packet_until");
}

void hm__refused_note(const hm_node_t *n, char *buf, size_t len)
{
    buf[0] = 0;
    if (n->refused == 0)
        return;
    if (!n->refusals) {
        snprintf(buf, len, " (made %lld refused calls)", (long long)n->refused);
        return;
    }
    snprintf(buf, len, " (made %lld refused call%s; first: slot %lld %s)", (long long)n->refused,
             n->refused == 1 ? "" : "s", (long long)n->refusals[0].slot, n->refusals[0].text);
}

/* (slot, node) order; a node's own refusals keep their order (the insertion is stable). */
static int before(const hm__refusal_t *a, const hm__refusal_t *b)
{
    return a->slot < b->slot || (a->slot == b->slot && a->node < b->node);
}

int hm__refused_first(const hm__machine_t *m, hm__refusal_t *out)
{
    int k = 0;
    for (int i = 0; i < m->info.nodes; i++) {
        const hm_node_t *n = &m->nodes[i];
        int kept =
            n->refusals ? (int)(n->refused < HM__REFUSED_KEEP ? n->refused : HM__REFUSED_KEEP) : 0;
        for (int j = 0; j < kept; j++) {
            const hm__refusal_t *r = &n->refusals[j];
            int at = k;
            while (at > 0 && before(r, &out[at - 1]))
                at--;
            if (at >= HM__REFUSED_KEEP)
                continue;
            int last = k < HM__REFUSED_KEEP ? k : HM__REFUSED_KEEP - 1;
            memmove(&out[at + 1], &out[at], (size_t)(last - at) * sizeof *out);
            out[at] = *r;
            if (k < HM__REFUSED_KEEP)
                k++;
        }
    }
    return k;
}
