/*
 * packet.c — the slotted transport with packet routing (README "Slot semantics",
 * "Port models", "Mailboxes"), driven by the barrier clock (clock.c).
 *
 * A node's sends of slot t wait in its outbox until the clock commits the slot. The
 * commit hook then builds the slot's candidates, oldest first — copies delayed
 * earlier, copies whose full mailbox has room again, then the slot's new copies in
 * node order — and lets the port model (ports/ports.c, a pure admission rule) judge
 * them one by one: an admitted copy is delivered in slot t; a refused one stops the
 * run under "strict" contention or waits for slot t + 1 under "queue".
 *
 * Mailboxes: every directed link holds at most mailbox.capacity copies (delayed and
 * received-unread). A new copy facing a full mailbox is stalled: the sender's wait
 * does not count until its backlog has left (backpressure), in FIFO order per link.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hm_internal.h"

typedef struct packet_s {
    int32_t *stall_count;  /* copies stalled per link, to keep FIFO order */
    hm__copyvec_t pending; /* sent, not yet transmitted (queue policy) */
    hm__copyvec_t stalled; /* waiting for room in a mailbox */
    hm__copyvec_t cand;    /* scratch: this slot's candidates */
    hm__use_t use;
} packet_t;

static int create(hm__machine_t *m)
{
    packet_t *P = calloc(1, sizeof *P);
    if (!P)
        return -1;
    m->tp_priv = P;
    size_t n = (size_t)m->info.nodes, links = n * (size_t)m->maxdeg;
    P->stall_count = calloc(links ? links : 1, sizeof *P->stall_count);
    if (!P->stall_count || hm__use_init(&P->use, n, links) != 0)
        return -1;
    return 0;
}

static void free_copies(hm__copyvec_t *v)
{
    for (size_t i = 0; i < v->n; i++)
        hm__blob_release(v->v[i].blob);
    free(v->v);
}

static void destroy(hm__machine_t *m)
{
    packet_t *P = m->tp_priv;
    if (!P)
        return;
    free_copies(&P->pending);
    free_copies(&P->stalled);
    free(P->cand.v);
    free(P->stall_count);
    hm__use_free(&P->use);
    free(P);
    m->tp_priv = NULL;
}

static int link_of(const hm__machine_t *m, const hm__copy_t *c)
{
    return c->src * m->maxdeg + c->sport;
}

/* A copy takes its place in its link's mailbox. */
static void occupy(hm__machine_t *m, int l)
{
    if (++m->occ[l] > m->stats.max_mailbox_depth)
        m->stats.max_mailbox_depth = m->occ[l];
}

/* A stalled copy left its node's backlog: once the backlog is empty the node's wait
 * counts again. */
static int unstall(hm__machine_t *m, hm_node_t *n, int64_t t)
{
    if (--n->stalled > 0 || !hm__local(m, n->id))
        return 0;
    if (n->wait == HM__WAIT_TIMER && n->wake_at <= t)
        n->wake_at = t + 1;
    if (n->wait == HM__WAIT_PACKET && n->wake_at >= 0 && n->wake_at <= t)
        n->wake_at = t + 1;
    return hm__register_wait(m, n);
}

/* Candidates 2: stalled copies whose mailbox has room again. A copy behind another
 * stalled copy on its link keeps its place. */
static int take_unstalled(hm__machine_t *m, packet_t *P, int64_t t)
{
    size_t keep = 0;
    int rc = 0;
    for (size_t i = 0; i < P->stalled.n; i++) {
        hm__copy_t *c = &P->stalled.v[i];
        int l = link_of(m, c);
        if (rc == 0 && m->occ[l] < m->opt.mailbox_capacity && P->stall_count[l] > 0) {
            P->stall_count[l]--;
            occupy(m, l);
            if (HM__PUSH(P->cand, *c) != 0) {
                hm__blob_release(c->blob);
                rc = -1;
            }
            if (unstall(m, &m->nodes[c->src], t) != 0)
                rc = -1;
        } else {
            P->stalled.v[keep++] = *c; /* after a failure too: the list stays whole */
        }
    }
    P->stalled.n = keep;
    return rc;
}

/* Backpressure: c's mailbox is full, its sender waits for room. */
static int stall(hm__machine_t *m, packet_t *P, hm_node_t *n, const hm__copy_t *c, int64_t t)
{
    P->stall_count[link_of(m, c)]++;
    m->stats.stalls++;
    int local = hm__local(m, n->id);
    if (m->opt.record_events && local)
        hm__log_event(n, HM__EV_STALL, t, c->sport, c->dst, c->pkt.msg, c->pkt.value, 1, 0, NULL);
    if (n->stalled++ == 0 && local && n->wait != HM__WAIT_DONE) {
        /* Its wait was registered by the clock: take it back. */
        n->wake_gen++;
        for (size_t w = 0; w < m->woken.n; w++)
            if (m->woken.v[w] == n->id) {
                m->woken.v[w] = m->woken.v[--m->woken.n];
                n->wait = HM__WAIT_PACKET;
                break;
            }
    }
    return HM__PUSH(P->stalled, *c);
}

/* Candidates 3: the slot's new copies, in node order. */
static int take_new(hm__machine_t *m, packet_t *P, int64_t t, const int32_t *senders, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        hm_node_t *n = &m->nodes[senders[i]];
        for (size_t k = 0; k < n->outbox.n; k++) {
            hm__copy_t *c = &n->outbox.v[k];
            int l = link_of(m, c);
            int rc = m->occ[l] >= m->opt.mailbox_capacity || P->stall_count[l] > 0
                         ? stall(m, P, n, c, t)
                         : (occupy(m, l), HM__PUSH(P->cand, *c));
            if (rc != 0) {
                /* Out of memory: the copies taken so far belong elsewhere now. */
                memmove(n->outbox.v, n->outbox.v + k, (n->outbox.n - k) * sizeof *c);
                n->outbox.n -= k;
                return -1;
            }
        }
        n->outbox.n = 0;
    }
    return 0;
}

/* The port model refused candidate c: stop (strict) or keep it for slot t + 1. */
static int hold(hm__machine_t *m, packet_t *P, hm__copy_t *c, int64_t t, const char *why)
{
    if (m->opt.contention == HM__CONTENTION_STRICT) {
        m->stats.conflicts++;
        if (m->opt.record_events && hm__local(m, c->src))
            hm__log_event(&m->nodes[c->src], HM__EV_CONFLICT, t, c->sport, c->dst, c->pkt.msg,
                          c->pkt.value, 1, 0, hm__strdup_printf("%s", why));
        hm__stop(m, HM__END_CONFLICT, hm__strdup_printf("slot %lld: %s", (long long)t, why));
        hm__blob_release(c->blob);
        m->occ[link_of(m, c)]--;
        return 0;
    }
    /* Queue policy: the copy waits in its mailbox for a later slot. */
    if (!c->delayed) {
        c->delayed = 1;
        m->stats.delayed_packets++;
        m->stats.conflicts++;
        if (m->opt.record_events && hm__local(m, c->src))
            hm__log_event(&m->nodes[c->src], HM__EV_DELAY, t, c->sport, c->dst, c->pkt.msg,
                          c->pkt.value, 1, 0, hm__strdup_printf("%s", why));
    }
    m->stats.delay_slots++;
    return HM__PUSH(P->pending, *c);
}

int hm__packet_commit(hm__machine_t *m, int64_t t, const int32_t *senders, size_t count)
{
    packet_t *P = m->tp_priv;
    P->cand.n = 0;
    /* Candidates 1: copies delayed earlier, oldest first. */
    for (size_t i = 0; i < P->pending.n; i++)
        if (HM__PUSH(P->cand, P->pending.v[i]) != 0)
            return -1;
    P->pending.n = 0;
    if (take_unstalled(m, P, t) != 0 || take_new(m, P, t, senders, count) != 0)
        return -1;
    /* The port model judges the candidates in order: transmitted copies stay in the
     * same mailbox, now received-unread, until the receiver reads them. */
    for (size_t i = 0; i < P->cand.n; i++) {
        hm__copy_t *c = &P->cand.v[i];
        char why[256];
        int ok =
            hm__port_admit(&P->use, &m->info, P->cand.v, (int)i, link_of(m, c), t, why, sizeof why);
        if ((ok ? hm__deliver(m, c, t) : hold(m, P, c, t, why)) != 0)
            return -1;
    }
    return 0;
}

static int commit(hm__machine_t *m, int64_t t)
{
    return hm__packet_commit(m, t, m->active.v, m->active.n);
}

static int64_t next(hm__machine_t *m, int64_t t)
{
    const packet_t *P = m->tp_priv;
    return P->pending.n > 0 ? t + 1 : INT64_MAX;
}

/* The receiver whose full mailbox holds node back (its oldest stalled copy). */
static int stalled_on(const hm__machine_t *m, int node)
{
    const packet_t *P = m->tp_priv;
    for (size_t k = 0; k < P->stalled.n; k++)
        if (P->stalled.v[k].src == node)
            return P->stalled.v[k].dst;
    return -1;
}

const hm__transport_t hm__transport_packet = {
    .name = "the mailboxes",
    .create = create,
    .destroy = destroy,
    .emit = hm__emit_copies,
    .send_to = hm__send_to_neighbour,
    .pending = hm__slot_pending,
    .recv = hm__slot_recv,
    .wait_packet = hm__slot_wait_packet,
    .wait_until = hm__slot_wait_until,
    .finish = hm__slot_finish,
    .abort = hm__slot_abort,
    .commit = commit,
    .next = next,
    .stalled_on = stalled_on,
    .progress = hm__clock_progress,
};
