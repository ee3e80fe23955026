/*
 * node.c — the node API of include/hypemu.h, called from inside node threads.
 *
 * Everything here touches only the calling node's own structures (its outbox, inbox,
 * log and stores) and reads the machine's immutable topology. Sends, receives and
 * waits go to the machine's transport (hm__transport_t in hm_internal.h), chosen once
 * when the machine was created: this file knows no mode.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hm_internal.h"

int hm_id(const hm_node_t *n)
{
    return n->id;
}

int hm_nodes(const hm_node_t *n)
{
    return n->m->info.nodes;
}

int hm_degree(const hm_node_t *n)
{
    return n->m->deg[n->id];
}

int hm_neighbor(const hm_node_t *n, int port)
{
    if (port < 0 || port >= n->m->deg[n->id])
        return -1;
    return n->m->nbr[n->id * n->m->maxdeg + port];
}

int hm_port_to(const hm_node_t *n, int node)
{
    const hm__machine_t *m = n->m;
    for (int p = 0; p < m->deg[n->id]; p++)
        if (m->nbr[n->id * m->maxdeg + p] == node)
            return p;
    return -1;
}

int64_t hm_now(const hm_node_t *n)
{
    return n->now;
}

void *hm_state(const hm_node_t *n)
{
    return n->m->state;
}

int hm_root(const hm_node_t *n)
{
    const hm_algorithm_t *a = n->m->algo;
    return a->root ? a->root(n->m->state) : -1;
}

const int64_t *hm_input(const hm_node_t *n, size_t *count)
{
    const hm_algorithm_t *a = n->m->algo;
    *count = 0;
    return a->input ? a->input(n->m->state, n->id, count) : NULL;
}

/* One emission: a copy per port in `ports`, sharing one payload, into n's outbox. */
int hm__emit_copies(hm_node_t *n, const hm__ports_t *ports, const hm_packet_t *p)
{
    hm__machine_t *m = n->m;
    int deg = m->deg[n->id];
    const int32_t *nbr = &m->nbr[n->id * m->maxdeg], *rport = &m->rport[n->id * m->maxdeg];
    int copies = ports->one ? 1 : __builtin_popcountll(ports->mask), fail;
    if (ports->all)
        for (int port = copies = 0; port < deg; port++)
            copies += nbr[port] >= 0;
    if (hm__grow((void **)&n->outbox.v, &n->outbox.cap, n->outbox.n + (size_t)copies,
                 sizeof *n->outbox.v) != 0) {
        n->failed = 1;
        return HM_ENOMEM;
    }
    hm__blob_t *blob = hm__blob_new(p, copies, &fail);
    if (fail) {
        n->failed = 1;
        return HM_ENOMEM;
    }
    uint32_t em = ++n->emissions;
    /* One port (hm_send): look at that port only. */
    int lo = ports->one ? ports->one - 1 : 0, hi = ports->one ? ports->one : deg;
    for (int port = lo; port < hi; port++) {
        if (!hm__port_in(ports, port) || nbr[port] < 0)
            continue;
        hm__copy_t *c = &n->outbox.v[n->outbox.n++]; /* room was made above */
        *c = (hm__copy_t){.pkt = *p,
                          .blob = blob,
                          .src = n->id,
                          .dst = nbr[port],
                          .sport = port,
                          .dport = rport[port],
                          .emission = em,
                          .sent_slot = n->now,
                          .flow = hm__flow_id(n->id, em, port),
                          .dur = 1};
        c->pkt.data = blob ? blob->bytes : NULL;
        if (m->opt.record_events)
            hm__log_event(n, HM__EV_SEND, n->now, port, c->dst, p->msg, p->value, 1, c->flow, NULL);
    }
    return HM_OK;
}

/* The checks every transport relies on: ports name neighbours, bytes are given. */
static int emit(hm_node_t *n, const hm__ports_t *ports, const hm_packet_t *p)
{
    hm__machine_t *m = n->m;
    int deg = m->deg[n->id];
    if (!p || (!ports->all && !ports->one && ports->mask == 0) ||
        (deg < 64 && (ports->mask >> deg) != 0) || (p->len > 0 && !p->data) ||
        (ports->all && deg == 0))
        return hm__refuse_emit(n, ports, p);
    int lo = ports->one ? ports->one - 1 : 0, hi = ports->one ? ports->one : deg;
    for (int port = lo; port < hi && !ports->all; port++)
        if (hm__port_in(ports, port) && m->nbr[n->id * m->maxdeg + port] < 0)
            return hm__refuse_emit(n, ports, p);
    if (hm__aborted(m))
        return HM_EABORT;
    return m->tp->emit(n, ports, p);
}

int hm_send(hm_node_t *n, int port, const hm_packet_t *p)
{
    if (port < 0 || port >= n->m->deg[n->id])
        return hm__refuse_send(n, port, p);
    return emit(n, &(hm__ports_t){.one = port + 1}, p);
}

int hm_shout(hm_node_t *n, uint64_t ports, const hm_packet_t *p)
{
    return emit(n, &(hm__ports_t){.mask = ports}, p);
}

int hm_shout_all(hm_node_t *n, const hm_packet_t *p)
{
    return emit(n, &(hm__ports_t){.all = 1}, p);
}

int hm_send_to(hm_node_t *n, int dest, const hm_packet_t *p)
{
    hm__machine_t *m = n->m;
    if (!p || dest < 0 || dest >= m->info.nodes || dest == n->id || (p->len > 0 && !p->data))
        return hm__refuse_send_to(n, dest, p);
    if (hm__aborted(m))
        return HM_EABORT;
    return m->tp->send_to(n, dest, p);
}

int hm__send_to_neighbour(hm_node_t *n, int dest, const hm_packet_t *p)
{
    int port = hm_port_to(n, dest);
    if (port < 0)
        return hm__refuse_send_to(n, dest, p);
    return hm_send(n, port, p);
}

int hm_pending(const hm_node_t *n)
{
    return n->m->tp->pending(n);
}

int hm_recv(hm_node_t *n, hm_packet_t *out)
{
    return n->m->tp->recv(n, out);
}

int hm__inbox_push(hm__inbox_t *q, const hm__copy_t *c)
{
    if (q->n == q->cap) {
        size_t cap = q->cap ? 2 * q->cap : 8;
        hm__copy_t *v = malloc(cap * sizeof *v);
        if (!v)
            return -1;
        /* Unroll the ring into the new array, oldest first. */
        for (size_t i = 0; i < q->n; i++)
            v[i] = q->v[(q->head + i) & (q->cap - 1)];
        free(q->v);
        q->v = v;
        q->cap = cap;
        q->head = 0;
    }
    q->v[(q->head + q->n) & (q->cap - 1)] = *c; /* cap is a power of two */
    q->n++;
    return 0;
}

hm__copy_t hm__inbox_take(hm__inbox_t *q)
{
    hm__copy_t c = q->v[q->head];
    q->head = (q->head + 1) & (q->cap - 1);
    q->n--;
    return c;
}

void hm__inbox_free(hm__inbox_t *q)
{
    while (q->n > 0)
        hm__blob_release(hm__inbox_take(q).blob);
    free(q->v);
    *q = (hm__inbox_t){0};
}

int hm_wait_packet_until(hm_node_t *n, hm_packet_t *out, int64_t deadline)
{
    return n->m->tp->wait_packet(n, out, deadline);
}

int hm_wait_packet(hm_node_t *n, hm_packet_t *out)
{
    return hm_wait_packet_until(n, out, -1);
}

int hm_wait_until(hm_node_t *n, int64_t slot)
{
    if (slot <= n->now)
        return HM_EINVAL;
    return n->m->tp->wait_until(n, slot);
}

int hm_next_slot(hm_node_t *n)
{
    return hm_wait_until(n, n->now + 1);
}

int hm_busy(hm_node_t *n, int64_t slots)
{
    if (slots <= 0)
        return HM_OK;
    hm__machine_t *m = n->m;
    if (m->opt.record_events)
        hm__log_event(n, HM__EV_BUSY, n->now, -1, -1, 0, 0, slots, 0, NULL);
    /* The clock reads last_activity only while every node sleeps; each node keeps
     * its own high-water mark and the machine folds them in after the run. */
    if (n->now + slots - 1 > n->busy_last)
        n->busy_last = n->now + slots - 1;
    return hm_wait_until(n, n->now + slots);
}

void *hm_out(hm_node_t *n)
{
    return n->out;
}

void hm_fail(hm_node_t *n, const char *what)
{
    n->failed = 1;
    snprintf(n->fail_what, sizeof n->fail_what, "%s", what ? what : "hm_fail");
}

void hm_store(hm_node_t *n, int64_t value)
{
    if (HM__PUSH(n->stores, value) != 0) {
        n->failed = 1; /* reported by the machine after the run */
        return;
    }
    if (n->m->opt.record_events)
        hm__log_event(n, HM__EV_STORE, n->now, -1, -1, 0, value, 0, 0, NULL);
}

void hm_log(hm_node_t *n, const char *fmt, ...)
{
    if (!n->m->opt.record_events)
        return;
    va_list ap;
    va_start(ap, fmt);
    char *text = NULL;
    if (vasprintf(&text, fmt, ap) < 0) {
        text = NULL;
        n->failed = 1;
    }
    va_end(ap);
    hm__log_event(n, HM__EV_LOG, n->now, -1, -1, 0, 0, 0, 0, text);
}
