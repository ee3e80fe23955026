/* SPDX-License-Identifier: MIT */
/*
 * packet.c — the slotted transport with packet routing (README "Slot semantics",
 * "Port models"), driven by the barrier clock (clock.c).
 *
 * A node's sends of slot t wait in its outbox until the clock commits the slot. The
 * commit hook hands the whole machine's candidates to the slot judge
 * (engine/slot_judge.c: candidate order, mailboxes, port model, hold, delivery); this
 * file holds what the barrier clock keeps between slots — the copies delayed under
 * "queue" and those stalled on a full mailbox, one list each for the machine — and
 * how a wait is registered or taken back here (the clock's woken list and timers).
 */
#include <stdlib.h>

#include "hm_internal.h"

typedef struct packet_s {
    hm__machine_t *m;
    hm__copyvec_t pending; /* refused under "queue", or routed copies in transit
                              (hm_send_routed): they compete again in t + 1 */
    hm__copyvec_t stalled; /* waiting for room in a mailbox, oldest first */
    hm__judge_t judge;
} packet_t;

static hm__copyvec_t *held(void *ctx, int src)
{
    (void)src;
    return &((packet_t *)ctx)->pending;
}

static hm__copyvec_t *stalled(void *ctx, int src)
{
    (void)src;
    return &((packet_t *)ctx)->stalled;
}

int hm__slot_woke(hm__machine_t *m, hm_node_t *r)
{
    r->wake_gen++;
    return HM__PUSH(m->woken, r->id);
}

/* Its wait was registered by the clock: take it back. */
void hm__slot_take_back(hm__machine_t *m, hm_node_t *n)
{
    n->wake_gen++;
    for (size_t w = 0; w < m->woken.n; w++)
        if (m->woken.v[w] == n->id) {
            m->woken.v[w] = m->woken.v[--m->woken.n];
            n->wait = HM__WAIT_PACKET;
            break;
        }
}

static int woke(void *ctx, hm_node_t *r, int64_t t)
{
    (void)t;
    return hm__slot_woke(((packet_t *)ctx)->m, r);
}

static void take_back(void *ctx, hm_node_t *n, int64_t t)
{
    (void)t;
    hm__slot_take_back(((packet_t *)ctx)->m, n);
}

static int wait_again(void *ctx, hm_node_t *n, int64_t t)
{
    (void)t;
    return hm__register_wait(((packet_t *)ctx)->m, n);
}

static void conflict(void *ctx, const hm__copy_t *c, int64_t t, char *reason)
{
    (void)c;
    (void)t;
    hm__stop(((packet_t *)ctx)->m, HM__END_CONFLICT, reason);
}

/* In the order of hm__judge_ops_t. */
static const hm__judge_ops_t barrier_ops = {held, stalled, woke, take_back, wait_again, conflict};

static int create(hm__machine_t *m)
{
    packet_t *P = calloc(1, sizeof *P);
    if (!P)
        return -1;
    m->tp_priv = P;
    P->m = m;
    return hm__judge_init(&P->judge, m, &barrier_ops, P);
}

static void destroy(hm__machine_t *m)
{
    packet_t *P = m->tp_priv;
    if (!P)
        return;
    hm__copies_free(&P->pending);
    hm__copies_free(&P->stalled);
    hm__judge_free(&P->judge);
    free(P);
    m->tp_priv = NULL;
}

int hm__packet_commit(hm__machine_t *m, int64_t t, const int32_t *senders, size_t count)
{
    packet_t *P = m->tp_priv;
    hm__judge_t *J = &P->judge;
    hm__judge_begin(J, &m->stats);
    if (hm__judge_take_held(J, &P->pending) != 0 ||
        hm__judge_take_unstalled(J, m, &P->stalled, t) != 0)
        return -1;
    for (size_t i = 0; i < count; i++)
        if (hm__judge_take_new(J, m, &m->nodes[senders[i]], t) != 0)
            return -1;
    return hm__judge_decide(J, m, t);
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
    HM__SLOT_NODE_SIDE,
    .commit = commit,
    .next = next,
    .stalled_on = stalled_on,
    .progress = hm__clock_progress,
    .routes = 1,
};
