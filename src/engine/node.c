/*
 * node.c — the node API of include/hypemu.h, called from inside node threads.
 *
 * Everything here touches only the calling node's own structures (its outbox, inbox,
 * log and stores) and reads the machine's immutable topology. The clock (clock.c)
 * moves packets between nodes while every node sleeps. Under the free-running clock
 * (m->free) sends, receives and waits go to engine/free.c instead, where the inboxes
 * are shared and locked.
 */
#include <stdarg.h>
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

void hm__blob_release(hm__blob_t *b)
{
    if (b && atomic_fetch_sub_explicit(&b->refs, 1, memory_order_acq_rel) == 1)
        free(b);
}

/* One emission: a copy per port in `ports`, sharing one payload. */
static int emit(hm_node_t *n, uint64_t ports, const hm_packet_t *p)
{
    hm__machine_t *m = n->m;
    int deg = m->deg[n->id];
    if (!p || ports == 0 || (deg < 64 && (ports >> deg) != 0) || (p->len > 0 && !p->data))
        return HM_EINVAL;
    for (int port = 0; port < deg; port++)
        if ((ports >> port & 1) && m->nbr[n->id * m->maxdeg + port] < 0)
            return HM_EINVAL;
    if (atomic_load(&m->aborted))
        return HM_EABORT;
    if (m->info.circuit) {
        /* Circuit routing: one message per neighbour (ports/circuit.c). */
        for (int port = 0; port < deg; port++)
            if (ports >> port & 1) {
                int to = m->nbr[n->id * m->maxdeg + port];
                int rc = to < 0 ? HM_EINVAL : hm__circuit_send(n, to, p);
                if (rc != HM_OK)
                    return rc;
            }
        return HM_OK;
    }
    int copies = __builtin_popcountll(ports);
    if (hm__grow((void **)&n->outbox.v, &n->outbox.cap, n->outbox.n + (size_t)copies,
                 sizeof *n->outbox.v) != 0) {
        n->failed = 1;
        return HM_ENOMEM;
    }
    hm__blob_t *blob = NULL;
    if (p->len > 0) {
        blob = malloc(sizeof *blob + p->len);
        if (!blob) {
            n->failed = 1;
            return HM_ENOMEM;
        }
        atomic_init(&blob->refs, copies);
        blob->len = p->len;
        memcpy(blob->bytes, p->data, p->len);
    }
    uint32_t em = ++n->emissions;
    for (int port = 0; port < deg; port++) {
        if (!(ports >> port & 1))
            continue;
        hm__copy_t c = {0};
        c.pkt = *p;
        c.pkt.data = blob ? blob->bytes : NULL;
        c.blob = blob;
        c.src = n->id;
        c.dst = m->nbr[n->id * m->maxdeg + port];
        c.sport = port;
        c.dport = m->rport[n->id * m->maxdeg + port];
        c.emission = em;
        c.sent_slot = n->now;
        c.flow = ((uint64_t)(uint32_t)n->id << 40) ^ ((uint64_t)em << 8) ^ (uint64_t)port;
        c.dur = 1;
        n->outbox.v[n->outbox.n++] = c; /* room was made above */
        if (m->opt.record_events)
            hm__log_event(n, HM__EV_SEND, n->now, port, c.dst, p->msg, p->value, 1, c.flow, NULL);
    }
    if (m->free)
        return hm__free_post(n); /* free-running clock: into the mailboxes now */
    return HM_OK;
}

int hm_send(hm_node_t *n, int port, const hm_packet_t *p)
{
    if (port < 0 || port >= n->m->deg[n->id] || port >= 64)
        return HM_EINVAL;
    return emit(n, UINT64_C(1) << port, p);
}

int hm_shout(hm_node_t *n, uint64_t ports, const hm_packet_t *p)
{
    return emit(n, ports, p);
}

int hm_pending(const hm_node_t *n)
{
    if (n->m->free)
        return hm__free_pending(n);
    return (int)(n->inbox.n - n->inbox_head);
}

int hm_recv(hm_node_t *n, hm_packet_t *out)
{
    hm__machine_t *m = n->m;
    if (m->free)
        return hm__free_recv(n, out);
    hm__blob_release(n->held);
    n->held = NULL;
    if (n->inbox_head >= n->inbox.n)
        return HM_ENOENT;
    hm__copy_t *c = &n->inbox.v[n->inbox_head++];
    /* Reading frees its place in the link's mailbox (routed messages have none). */
    if (c->sport >= 0)
        m->occ[c->src * m->maxdeg + c->sport]--;
    if (out)
        *out = c->pkt;
    n->held = c->blob;
    /* Reuse the read part of the inbox once it is half of it. */
    if (n->inbox_head == n->inbox.n) {
        n->inbox.n = n->inbox_head = 0;
    } else if (n->inbox_head >= 64 && 2 * n->inbox_head >= n->inbox.n) {
        memmove(n->inbox.v, n->inbox.v + n->inbox_head,
                (n->inbox.n - n->inbox_head) * sizeof *n->inbox.v);
        n->inbox.n -= n->inbox_head;
        n->inbox_head = 0;
    }
    return HM_OK;
}

int hm_wait_packet_until(hm_node_t *n, hm_packet_t *out, int64_t deadline)
{
    if (n->m->free)
        return hm__free_wait_packet(n, out, deadline);
    if (hm_pending(n) > 0)
        return out ? hm_recv(n, out) : HM_OK;
    if (deadline >= 0 && deadline <= n->now)
        return HM_ENOENT;
    hm__blob_release(n->held);
    n->held = NULL;
    n->wait = HM__WAIT_PACKET;
    n->wake_at = deadline;
    int rc = hm__yield(n);
    if (rc != HM_OK)
        return rc;
    if (!n->woke_by_packet && hm_pending(n) == 0)
        return HM_ENOENT;
    return out ? hm_recv(n, out) : HM_OK;
}

int hm_wait_packet(hm_node_t *n, hm_packet_t *out)
{
    return hm_wait_packet_until(n, out, -1);
}

int hm_wait_until(hm_node_t *n, int64_t slot)
{
    if (slot <= n->now)
        return HM_EINVAL;
    if (n->m->free)
        return hm__free_wait_until(n, slot);
    hm__blob_release(n->held);
    n->held = NULL;
    n->wait = HM__WAIT_TIMER;
    n->wake_at = slot;
    return hm__yield(n);
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

void hm_fail(hm_node_t *n, const char *what)
{
    n->failed = 1;
    n->fail_what = what;
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
