/* SPDX-License-Identifier: MIT */
/*
 * local.c — the locally synchronised slot clock, clock.mode "local" (doc/clocks.md "Local
 * clock"): the slot semantics, port models and contention rules of the slotted
 * packet transport (engine/packet.c), without its global barrier.
 *
 * Conservative synchronisation in the Chandy-Misra-Bryant sense. Each node v keeps
 * its own clock: C[v], the last slot whose transmissions touching v are all decided,
 * and F(v), the last slot in which v can no longer send (it runs a slot after it, or
 * sleeps until one). A node runs slot t once C[v] = t - 1. The transmissions of a
 * slot t are decided one group at a time: a group is a connected component of the
 * graph whose edges are the slot's candidate copies (new, delayed, or waiting for
 * room in a mailbox), and it is decided once every node of it and every neighbour
 * of those (the nodes that could still add a copy to it) has F >= t. A group's slot
 * is decided by the slot judge that decides the whole machine's under the barrier
 * (engine/slot_judge.c): the same candidate order (a key each copy carries), the
 * same port-model rules, mailboxes, holds and deliveries, so every port model and
 * contention policy gives the same decisions and events; groups that share no node
 * do not interact. On the
 * bus every node is a neighbour: a slot's group is the whole machine.
 *
 * A node waiting for a packet cannot run before the slot after its next delivery,
 * which gives a lookahead of one slot (F = C + 1): its clock steps forward slot by
 * slot while its neighbours work. When no node runs and no group can be decided, the
 * smallest slot in which anything can still happen (a node's next slot, a delayed
 * copy's next try) is taken over every node at once: every node's clock moves to just
 * before it, so idle slots cost nothing. If there is no such slot, the run is in a
 * deadlock; if it is clock.max_slots or later, the run stops there, as under the
 * barrier clock.
 *
 * A strict conflict found in slot H stops the run at the end of slot H, as under the
 * barrier: slots up to H are still run and decided everywhere, no node starts a slot
 * after H, and what nodes far away already did after H (events, stores, figures) is
 * dropped when the run is collected.
 *
 * Every decision is taken under one mutex; node programs run outside it. A node is
 * in a group only when it is not running, so the group's mailboxes, inboxes and logs
 * are not touched by their owners meanwhile; the mutex orders the hand-over.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hm_internal.h"

#define INF INT64_MAX
/* How far past the latest slot a node has started the clocks of waiting nodes step
 * on their own; beyond it they wait for a node to start, or for the jump to the next
 * slot with work (a run in which nothing moves steps no further). */
#define LOOKAHEAD 32

typedef struct lnode_s {
    int64_t C;        /* transmissions touching it decided up to this slot */
    int64_t last_run; /* the slot it runs or ran last */
    int64_t run_at;   /* the next slot it runs, INF if not known */
    int64_t woken_at; /* the slot whose decisions woke it */
    int64_t mark;     /* group search stamp */
    int running, queued, capped, fin;
    /* Its copies refused under "queue" in slot C (they compete again in C + 1), and
     * those waiting for room in a full mailbox, oldest first. */
    hm__copyvec_t pending;
    hm__copyvec_t stalled;
    /* What its stores and hm_busy mark were after each slot that changed them (the
     * slot in cp_slot), to cut a run that stopped: checked when it starts a slot. */
    HM__VEC(int64_t) cp_slot;
    HM__VEC(size_t) cp_stores;
    HM__VEC(int64_t) cp_busy;
    size_t last_stores;
    int64_t last_busy;
} lnode_t;

/* Figures of one group's decisions, kept by slot so that a run that stops can drop
 * those after its end. */
typedef struct lstat_s {
    int64_t slot;
    hm__stats_t s;
} lstat_t;

typedef struct local_s {
    pthread_mutex_t mu;
    lnode_t *ln;
    hm__judge_t judge; /* one group's decisions (engine/slot_judge.c) */
    HM__VEC(int32_t) work;
    HM__VEC(int32_t) capped;
    HM__VEC(int32_t) group;
    HM__VEC(int32_t) to_wake; /* nodes started, posted once the mutex is released */
    /* The slots opened (a node started, or copies competed): a set, open addressing
     * on slot + 1 (0: empty), at most half full. */
    int64_t *opened;
    size_t opened_cap, opened_n;
    HM__VEC(lstat_t) stats;
    hm__stats_t cur; /* the group being decided */
    int running;     /* nodes started and not yet at the end of their slot */
    int done_nodes;
    int64_t lmax;    /* the latest slot a node started (or the clocks jumped to) */
    int64_t stop_at; /* a strict conflict's slot, INF */
    int64_t stop_key[6];
    char *stop_reason;
    int over; /* the run's end is decided */
    int oom;
    int64_t search; /* group search stamp */
    /* Circuit routing (engine/circuit.c): the circuits, the nodes that ran the slot
     * being decided, and the circuits' next event after the last slot opened. */
    hm__circuits_t *circ;
    HM__VEC(int32_t) ran;
    int64_t circ_next;
    int64_t delivered; /* copies delivered in the slots decided so far (progress) */
} local_t;

static const hm__judge_ops_t local_ops;

static size_t slot_hash(int64_t t, size_t cap)
{
    return (size_t)((uint64_t)t * UINT64_C(0x9E3779B97F4A7C15) >> 17) & (cap - 1);
}

static void opened_put(int64_t *set, size_t cap, int64_t key)
{
    size_t i = slot_hash(key, cap);
    while (set[i] != 0 && set[i] != key)
        i = (i + 1) & (cap - 1);
    set[i] = key;
}

/* Slot t was opened: into the set (0 or -1 when out of memory). */
static int open_slot(local_t *L, int64_t t)
{
    size_t i = L->opened_cap ? slot_hash(t + 1, L->opened_cap) : 0;
    while (L->opened_cap && L->opened[i] != 0) {
        if (L->opened[i] == t + 1)
            return 0;
        i = (i + 1) & (L->opened_cap - 1);
    }
    if (2 * (L->opened_n + 1) > L->opened_cap) {
        size_t cap = L->opened_cap ? 2 * L->opened_cap : 1024;
        int64_t *set = calloc(cap, sizeof *set);
        if (!set)
            return -1;
        for (size_t k = 0; k < L->opened_cap; k++)
            if (L->opened[k] != 0)
                opened_put(set, cap, L->opened[k]);
        free(L->opened);
        L->opened = set;
        L->opened_cap = cap;
    }
    opened_put(L->opened, L->opened_cap, t + 1);
    L->opened_n++;
    return 0;
}

static int create(hm__machine_t *m)
{
    local_t *L = calloc(1, sizeof *L);
    if (!L)
        return -1;
    m->tp_priv = L;
    size_t n = (size_t)m->info.nodes;
    if (pthread_mutex_init(&L->mu, NULL) != 0) {
        free(L);
        m->tp_priv = NULL;
        return -1;
    }
    L->ln = calloc(n, sizeof *L->ln);
    if (!L->ln || hm__judge_init(&L->judge, m, &local_ops, L) != 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        L->ln[i].C = -1;
        L->ln[i].run_at = INF;
        L->ln[i].woken_at = -1;
        L->ln[i].running = 1; /* slot 0 */
    }
    L->running = (int)n;
    L->stop_at = INF;
    for (size_t i = 0; i < n; i++)
        L->ln[i].last_busy = -1;
    L->circ_next = INF;
    if (m->info.circuit && !(L->circ = hm__circuits_new(m)))
        return -1;
    return open_slot(L, 0);
}

static void destroy(hm__machine_t *m)
{
    local_t *L = m->tp_priv;
    if (!L)
        return;
    if (L->ln)
        for (int i = 0; i < m->info.nodes; i++) {
            hm__copies_free(&L->ln[i].pending);
            hm__copies_free(&L->ln[i].stalled);
            free(L->ln[i].cp_slot.v);
            free(L->ln[i].cp_stores.v);
            free(L->ln[i].cp_busy.v);
        }
    free(L->ln);
    hm__judge_free(&L->judge);
    free(L->work.v);
    free(L->capped.v);
    free(L->group.v);
    free(L->to_wake.v);
    free(L->opened);
    free(L->stats.v);
    free(L->stop_reason);
    hm__circuits_free(L->circ);
    free(L->ran.v);
    pthread_mutex_destroy(&L->mu);
    free(L);
    m->tp_priv = NULL;
}

/* ---- clocks ------------------------------------------------------------------- */

/* The last slot in which node v can no longer send a new copy. */
static int64_t sent_up_to(const hm__machine_t *m, const local_t *L, int v)
{
    const lnode_t *x = &L->ln[v];
    const hm_node_t *n = &m->nodes[v];
    if (x->running)
        return x->last_run - 1;
    if (x->last_run > x->C)
        return x->last_run; /* its slot is not decided yet */
    int64_t f = x->run_at == INF ? INF : x->run_at - 1;
    int blocked = n->wait == HM__WAIT_PACKET || (n->stalled > 0 && n->wait != HM__WAIT_DONE);
    if (blocked && x->C + 1 < f)
        f = x->C + 1; /* a packet in slot C + 1 wakes it in C + 2 */
    return f;
}

static void push_work(local_t *L, int v)
{
    if (L->ln[v].queued)
        return;
    if (HM__PUSH(L->work, v) != 0) {
        L->oom = 1;
        return;
    }
    L->ln[v].queued = 1;
}

static void push_around(hm__machine_t *m, local_t *L, int v)
{
    push_work(L, v);
    for (int p = 0; p < m->deg[v]; p++) {
        int w = m->nbr[v * m->maxdeg + p];
        if (w >= 0)
            push_work(L, w);
    }
}

/* Is a slot's group the whole machine? On the bus every node is a neighbour; under
 * circuit routing a message may go to any node over any link. */
static int whole(const hm__machine_t *m)
{
    return m->info.ports == HM_PORTS_BUS || m->info.circuit;
}

/* ---- stopping ----------------------------------------------------------------- */

/* A strict conflict at the candidate with key k: the first in slot order, then in
 * candidate order, is the one the barrier clock reports. */
static void conflict_stop(local_t *L, const int64_t k[6], char *reason)
{
    int earlier = 0;
    for (int i = 0; i < 6; i++)
        if (k[i] != L->stop_key[i]) {
            earlier = k[i] < L->stop_key[i];
            break;
        }
    if (L->stop_reason && !earlier) {
        free(reason);
        return;
    }
    free(L->stop_reason);
    L->stop_reason = reason;
    memcpy(L->stop_key, k, sizeof L->stop_key);
    L->stop_at = k[0];
}

/* A node that has not started, or runs, finds its post when it next sleeps. */
static void wake_all(hm__machine_t *m, const local_t *L)
{
    for (int i = 0; i < m->info.nodes; i++)
        if (!L->ln[i].fin)
            sem_post(&m->nodes[i].wake);
}

/* The run ends now (every node sleeps, or it is an abort): wake them to leave. */
static void end_run(hm__machine_t *m, local_t *L, hm__end_t end, char *reason)
{
    L->over = 1;
    hm__stop(m, end, reason);
    wake_all(m, L);
}

/* ---- one group's decisions (engine/slot_judge.c, for the group) ----------------- */

/* clock.c's hm__register_wait, with the node's next slot instead of the heap. */
static void register_wait(local_t *L, hm_node_t *n, int64_t t)
{
    lnode_t *x = &L->ln[n->id];
    x->run_at = INF;
    switch (n->wait) {
    case HM__WAIT_DONE:
        L->done_nodes++;
        return;
    case HM__WAIT_TIMER:
        x->run_at = n->wake_at;
        n->woke_by_packet = 0;
        return;
    case HM__WAIT_PACKET:
        if (n->inbox.n > 0) {
            n->wait = HM__WAIT_NONE;
            n->woke_by_packet = 1;
            x->run_at = t + 1;
            x->woken_at = t;
        } else if (n->wake_at >= 0) {
            x->run_at = n->wake_at;
            n->woke_by_packet = 0;
        }
        return;
    case HM__WAIT_NONE:
        return;
    }
}

/* The slot judge's side of the local clock: a node's own lists, and its next slot
 * instead of the barrier clock's woken list and timers. */
static hm__copyvec_t *held(void *ctx, int src)
{
    return &((local_t *)ctx)->ln[src].pending;
}

static hm__copyvec_t *stalled(void *ctx, int src)
{
    return &((local_t *)ctx)->ln[src].stalled;
}

static int woke(void *ctx, hm_node_t *r, int64_t t)
{
    lnode_t *x = &((local_t *)ctx)->ln[r->id];
    x->run_at = t + 1;
    x->woken_at = t;
    return 0;
}

static void take_back(void *ctx, hm_node_t *n, int64_t t)
{
    lnode_t *x = &((local_t *)ctx)->ln[n->id];
    x->run_at = INF;
    if (x->woken_at == t && n->wait == HM__WAIT_NONE)
        n->wait = HM__WAIT_PACKET;
}

static int wait_again(void *ctx, hm_node_t *n, int64_t t)
{
    register_wait(ctx, n, t);
    return 0;
}

/* The key of the copy in the slot's order, for the first conflict. */
static void conflict(void *ctx, const hm__copy_t *c, int64_t t, char *reason)
{
    int64_t k[6] = {t, c->cslot, c->cls, c->sent_slot, c->src, c->idx};
    conflict_stop(ctx, k, reason);
}

/* In the order of hm__judge_ops_t. */
static const hm__judge_ops_t local_ops = {held, stalled, woke, take_back, wait_again, conflict};

static int cmp_int32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* Slot t for the group (L->group, ascending): packet.c's commit, phase by phase. */
static int decide_packets(hm__machine_t *m, local_t *L, int64_t t)
{
    const int32_t *g = L->group.v;
    size_t gn = L->group.n;
    hm__judge_t *J = &L->judge;
    hm__judge_begin(J, &L->cur);
    int rc = 0;
    for (size_t i = 0; i < gn && rc == 0; i++)
        rc = hm__judge_take_held(J, &L->ln[g[i]].pending) |
             hm__judge_take_unstalled(J, m, &L->ln[g[i]].stalled, t);
    for (size_t i = 0; i < gn && rc == 0; i++)
        if (L->ln[g[i]].last_run == t)
            rc = hm__judge_take_new(J, m, &m->nodes[g[i]], t);
    if (rc != 0 || (J->cand.n > 0 && open_slot(L, t) != 0) || hm__judge_decide(J, m, t) != 0)
        return -1;
    L->delivered += L->cur.transmissions;
    return HM__PUSH(L->stats, ((lstat_t){t, L->cur}));
}

/* Slot t under circuit routing, for the whole machine (L->group: every node):
 * engine/circuit.c's commit, called in the slots the barrier clock opens (a node
 * runs in it, or it is the circuits' next event) and in no other, so that every
 * decision, event and figure is the barrier clock's. A message that arrives wakes
 * its receiver in t + 1. A strict conflict stops the run at once: no node has run a
 * slot after t (each waits for the whole machine to decide its slot). */
static int decide_circuits(hm__machine_t *m, local_t *L, int64_t t)
{
    L->ran.n = 0;
    for (size_t i = 0; i < L->group.n; i++)
        if (L->ln[L->group.v[i]].last_run == t && HM__PUSH(L->ran, L->group.v[i]) != 0)
            return -1;
    if (L->ran.n == 0 && t != L->circ_next)
        return 0;
    m->woken.n = 0;
    if (open_slot(L, t) != 0 || hm__circuits_commit(m, L->circ, L->ran.v, L->ran.n, t) != 0)
        return -1;
    for (size_t i = 0; i < m->woken.n; i++) {
        L->ln[m->woken.v[i]].run_at = t + 1;
        L->ln[m->woken.v[i]].woken_at = t;
    }
    if (hm__aborted(m))
        end_run(m, L, m->end, NULL);
    L->circ_next = hm__circuits_next(m, L->circ, t);
    return 0;
}

/* Decide slot t for the group (L->group): its copies or circuits. */
static int decide(hm__machine_t *m, local_t *L, int64_t t)
{
    int32_t *g = L->group.v;
    size_t gn = L->group.n;
    if (gn > 1)
        qsort(g, gn, sizeof *g, cmp_int32);
    L->cur = (hm__stats_t){.last_activity = -1};
    for (size_t i = 0; i < gn; i++) {
        hm_node_t *n = &m->nodes[g[i]];
        if (n->failed || n->aborted) {
            end_run(m, L, n->failed ? HM__END_SYSTEM : HM__END_ABORTED, hm__fail_message(n));
            return 0;
        }
        if (L->ln[g[i]].last_run == t && n->stalled == 0)
            register_wait(L, n, t);
    }
    if ((L->circ ? decide_circuits(m, L, t) : decide_packets(m, L, t)) != 0)
        return -1;
    for (size_t i = 0; i < gn; i++) {
        L->ln[g[i]].C = t;
        push_around(m, L, g[i]);
    }
    return 0;
}

/* ---- finding a group ---------------------------------------------------------- */

static int group_add(local_t *L, int v)
{
    if (L->ln[v].mark == L->search)
        return 0;
    L->ln[v].mark = L->search;
    return HM__PUSH(L->group, v);
}

/* Are node v's held copies edges of slot t? (They compete in C + 1.) */
static int held_at(const local_t *L, int v, int64_t t)
{
    return L->ln[v].C + 1 == t;
}

/* The nodes at the other end of node v's copies of slot t, and of its neighbours'
 * copies to v, into the group. */
static int group_edges(hm__machine_t *m, local_t *L, int v, int64_t t)
{
    lnode_t *x = &L->ln[v];
    int rc = 0;
    for (size_t i = 0; i < x->pending.n && held_at(L, v, t); i++)
        rc |= group_add(L, x->pending.v[i].dst);
    for (size_t i = 0; i < x->stalled.n; i++)
        rc |= group_add(L, x->stalled.v[i].dst);
    hm_node_t *n = &m->nodes[v];
    if (!x->running && x->last_run == t && x->C < t)
        for (size_t i = 0; i < n->outbox.n; i++)
            rc |= group_add(L, n->outbox.v[i].dst);
    for (int p = 0; p < m->deg[v]; p++) {
        int w = m->nbr[v * m->maxdeg + p];
        if (w < 0 || L->ln[w].mark == L->search)
            continue;
        lnode_t *y = &L->ln[w];
        int edge = 0;
        for (size_t i = 0; i < y->pending.n && !edge && held_at(L, w, t); i++)
            edge = y->pending.v[i].dst == v;
        for (size_t i = 0; i < y->stalled.n && !edge; i++)
            edge = y->stalled.v[i].dst == v;
        if (!y->running && y->last_run == t && y->C < t)
            for (size_t i = 0; i < m->nodes[w].outbox.n && !edge; i++)
                edge = m->nodes[w].outbox.v[i].dst == v;
        if (edge)
            rc |= group_add(L, w);
    }
    return rc;
}

/* Can node v, and every neighbour of it, no longer add a copy to slot t? */
static int node_ready(const hm__machine_t *m, const local_t *L, int v, int64_t t)
{
    if (L->ln[v].C != t - 1 || sent_up_to(m, L, v) < t)
        return 0;
    for (int p = 0; p < m->deg[v]; p++) {
        int w = m->nbr[v * m->maxdeg + p];
        if (w >= 0 && sent_up_to(m, L, w) < t)
            return 0;
    }
    return 1;
}

/* Decide slot C[v] + 1 for v's group if it is ready. Returns 1 if it was. The
 * search stops at the first node that is not ready: it will push its neighbours
 * when it is, and the search starts again. */
static int try_decide(hm__machine_t *m, local_t *L, int v)
{
    int64_t t = L->ln[v].C + 1;
    L->search++;
    L->group.n = 0;
    int rc = 0;
    if (whole(m)) {
        for (int i = 0; i < m->info.nodes && rc == 0; i++) {
            if (!node_ready(m, L, i, t))
                return 0;
            rc = group_add(L, i);
        }
    } else {
        rc = group_add(L, v);
        for (size_t i = 0; i < L->group.n && rc == 0; i++) {
            if (!node_ready(m, L, L->group.v[i], t))
                return 0;
            rc = group_edges(m, L, L->group.v[i], t);
        }
    }
    if (rc != 0) {
        L->oom = 1;
        return 0;
    }
    if (decide(m, L, t) != 0)
        L->oom = 1;
    return !L->oom && !L->over;
}

/* ---- starting nodes and moving clocks ------------------------------------------ */

/* The last slot that may be decided or run now. */
static int64_t limit(const hm__machine_t *m, const local_t *L)
{
    int64_t lim = m->opt.max_slots - 1;
    return L->stop_at < lim ? L->stop_at : lim;
}

static void start(hm__machine_t *m, local_t *L, int v)
{
    lnode_t *x = &L->ln[v];
    hm_node_t *n = &m->nodes[v];
    int64_t t = x->run_at;
    if (n->stores.n != x->last_stores || n->busy_last != x->last_busy) {
        /* Its last slot (x->last_run) stored or worked. */
        x->last_stores = n->stores.n;
        x->last_busy = n->busy_last;
        if (HM__PUSH(x->cp_slot, x->last_run) != 0 || HM__PUSH(x->cp_stores, n->stores.n) != 0 ||
            HM__PUSH(x->cp_busy, n->busy_last) != 0)
            L->oom = 1;
    }
    if (open_slot(L, t) != 0) {
        L->oom = 1;
        return;
    }
    x->running = 1;
    x->last_run = t;
    x->run_at = INF;
    L->running++;
    n->wait = HM__WAIT_NONE;
    n->wake_gen++;
    n->now = t;
    if (t > L->lmax) {
        L->lmax = t;
        for (size_t i = 0; i < L->capped.n; i++) {
            L->ln[L->capped.v[i]].capped = 0;
            push_work(L, L->capped.v[i]);
        }
        L->capped.n = 0;
    }
    if (HM__PUSH(L->to_wake, v) != 0)
        L->oom = 1;
}

/* Move node v on: start it, or decide its next slots, as far as it can go. */
static void step(hm__machine_t *m, local_t *L, int v)
{
    lnode_t *x = &L->ln[v];
    while (!L->oom && !L->over && !x->running) {
        int64_t t = x->C + 1;
        if (x->run_at == t && x->last_run <= x->C) {
            if (t <= limit(m, L))
                start(m, L, v);
            return;
        }
        if (t > limit(m, L))
            return;
        if (t > L->lmax + LOOKAHEAD) {
            if (!x->capped && HM__PUSH(L->capped, v) == 0)
                x->capped = 1;
            return;
        }
        if (!try_decide(m, L, v))
            return;
    }
}

/* ---- nothing moves: the next slot with work, or the end ----------------------- */

/* The receiver whose full mailbox node `node` waits on, or -1 (the deadlock report,
 * hm__slot_blocked_wait, shared with the barrier clock). */
static int stalled_on(const hm__machine_t *m, int node)
{
    const local_t *L = m->tp_priv;
    return L->ln[node].stalled.n ? L->ln[node].stalled.v[0].dst : -1;
}

static int64_t last_opened(const local_t *L)
{
    int64_t t = 0;
    for (size_t i = 0; i < L->opened_cap; i++)
        if (L->opened[i] - 1 > t && L->opened[i] - 1 <= L->stop_at)
            t = L->opened[i] - 1;
    return t;
}

/* The earliest slot in which something can still happen. */
static int64_t next_work(const hm__machine_t *m, const local_t *L)
{
    int64_t next = INF;
    for (int i = 0; i < m->info.nodes; i++) {
        const lnode_t *x = &L->ln[i];
        int64_t s = x->last_run > x->C ? x->last_run : x->run_at;
        if (x->pending.n > 0 && x->C + 1 < s)
            s = x->C + 1; /* its held copies compete again */
        if (s < next)
            next = s;
    }
    return L->circ_next < next ? L->circ_next : next;
}

/* Every node sleeps and no group is ready: jump every clock to just before the next
 * slot with work, or end the run (clock.c's run_ends). */
static void stuck(hm__machine_t *m, local_t *L)
{
    int64_t next = next_work(m, L);
    int n = m->info.nodes;
    if (L->stop_at != INF && next > L->stop_at) {
        char *reason = L->stop_reason;
        L->stop_reason = NULL;
        return end_run(m, L, HM__END_CONFLICT, reason);
    }
    if (next == INF) {
        char head[128];
        snprintf(head, sizeof head,
                 "deadlock at slot %lld: every node is blocked and nothing is in flight",
                 (long long)last_opened(L));
        L->over = 1;
        if (L->done_nodes < n)
            hm__stop(m, HM__END_DEADLOCK, hm__blocked_report(head, m, hm__slot_blocked_wait));
        return wake_all(m, L);
    }
    if (next >= m->opt.max_slots)
        return end_run(m, L, HM__END_MAX_SLOTS,
                       hm__strdup_printf("clock.max_slots = %lld reached: the next slot with "
                                         "work is %lld, with %d of %d nodes still running",
                                         (long long)m->opt.max_slots, (long long)next,
                                         n - L->done_nodes, n));
    if (next - 1 > L->lmax)
        L->lmax = next - 1;
    for (int i = 0; i < n; i++) {
        if (L->ln[i].C < next - 1)
            L->ln[i].C = next - 1;
        L->ln[i].capped = 0;
        push_work(L, i);
    }
    L->capped.n = 0;
}

/* Under the mutex: move every clock that can move. */
static void pump(hm__machine_t *m, local_t *L)
{
    for (;;) {
        if (!L->over && hm__interrupted(m))
            return end_run(m, L, HM__END_INTERRUPTED,
                           hm__strdup_printf("interrupted at the end of slot %lld, with %d of "
                                             "%d nodes still running",
                                             (long long)last_opened(L),
                                             m->info.nodes - L->done_nodes, m->info.nodes));
        while (L->work.n > 0 && !L->oom && !L->over) {
            int v = L->work.v[--L->work.n];
            L->ln[v].queued = 0;
            step(m, L, v);
        }
        if (L->oom && !L->over)
            return end_run(m, L, HM__END_SYSTEM,
                           hm__strdup_printf("out of memory in the local clock"));
        if (L->over || L->running > 0)
            return;
        stuck(m, L);
        if (L->over)
            return;
    }
}

/* ---- the node side ------------------------------------------------------------- */

/* End the calling node's slot; sleep until it runs again. */
static int yield(hm_node_t *n, int sleep)
{
    hm__machine_t *m = n->m;
    local_t *L = m->tp_priv;
    pthread_mutex_lock(&L->mu);
    L->ln[n->id].running = 0;
    L->ln[n->id].fin = !sleep;
    L->running--;
    if (!L->over) {
        push_around(m, L, n->id);
        pump(m, L);
    }
    /* The nodes this call started are woken once the mutex is free, so that they do
     * not wait on it when they end their slot at once. */
    int32_t *wake = L->to_wake.v;
    size_t nwake = L->to_wake.n;
    L->to_wake.v = NULL;
    L->to_wake.n = L->to_wake.cap = 0;
    pthread_mutex_unlock(&L->mu);
    for (size_t i = 0; i < nwake; i++)
        sem_post(&m->nodes[wake[i]].wake);
    free(wake);
    if (!sleep)
        return HM_OK;
    while (sem_wait(&n->wake) != 0 && errno == EINTR)
        ;
    if (atomic_load(&m->aborted))
        return HM_EABORT;
    return HM_OK;
}

static int yield_sleep(hm_node_t *n)
{
    return yield(n, 1);
}

/* The barrier clock's wait (engine/clock.c), with this clock's yield. */
static int wait_packet(hm_node_t *n, hm_packet_t *out, int64_t deadline)
{
    return hm__slot_wait(n, out, deadline, yield_sleep);
}

static int wait_until(hm_node_t *n, int64_t slot)
{
    return hm__slot_sleep(n, slot, yield_sleep);
}

static void finish(hm_node_t *n)
{
    n->wait = HM__WAIT_DONE;
    yield(n, 0);
}

static void abort_run(hm__machine_t *m, char *reason)
{
    local_t *L = m->tp_priv;
    pthread_mutex_lock(&L->mu);
    end_run(m, L, HM__END_SYSTEM, reason);
    pthread_mutex_unlock(&L->mu);
}

/* ---- after the run ---------------------------------------------------------------- */

/* Drop what nodes did after slot h (a run stopped there). */
static void cut_node(hm_node_t *n, lnode_t *x, int64_t h)
{
    if (x->last_run > h) {
        /* What it had after its last slot up to h that changed it, or nothing. */
        n->stores.n = 0;
        n->busy_last = -1;
        for (size_t k = 0; k < x->cp_slot.n && x->cp_slot.v[k] <= h; k++) {
            n->stores.n = x->cp_stores.v[k];
            n->busy_last = x->cp_busy.v[k];
        }
        n->store_slots.n = n->stores.n; /* each store with its slot (engine/causal.c) */
    }
    size_t keep = 0;
    for (size_t k = 0; k < n->log.n; k++) {
        if (n->log.v[k].slot > h)
            free(n->log.v[k].text), free(n->log.v[k].pay);
        else
            n->log.v[keep++] = n->log.v[k];
    }
    n->log.n = keep;
}

static void collect(hm__machine_t *m)
{
    local_t *L = m->tp_priv;
    int64_t h = m->end == HM__END_CONFLICT ? L->stop_at : INF;
    hm__stats_t *s = &m->stats;
    for (size_t i = 0; i < L->stats.n; i++) {
        const lstat_t *r = &L->stats.v[i];
        if (r->slot > h)
            continue;
        s->transmissions += r->s.transmissions;
        s->conflicts += r->s.conflicts;
        s->delayed_packets += r->s.delayed_packets;
        s->delay_slots += r->s.delay_slots;
        s->stalls += r->s.stalls;
        if (r->s.max_mailbox_depth > s->max_mailbox_depth)
            s->max_mailbox_depth = r->s.max_mailbox_depth;
        if (r->s.last_activity > s->last_activity)
            s->last_activity = r->s.last_activity;
    }
    s->slots_run = 0;
    for (size_t i = 0; i < L->opened_cap; i++)
        if (L->opened[i] != 0 && L->opened[i] - 1 <= h)
            s->slots_run++;
    if (h != INF)
        for (int i = 0; i < m->info.nodes; i++)
            cut_node(&m->nodes[i], &L->ln[i], h);
}

/* Progress (README "Progress"): the slot every node still running has completed (its
 * clock C), and the copies delivered in the slots decided so far; read once a second
 * by the progress thread, under the mutex. */
static void progress(hm__machine_t *m, int64_t *slot, int64_t *packets)
{
    local_t *L = m->tp_priv;
    pthread_mutex_lock(&L->mu);
    int64_t low = INF;
    for (int v = m->lo; v < m->hi; v++)
        if (!L->ln[v].fin && L->ln[v].C < low)
            low = L->ln[v].C;
    *slot = low == INF ? L->lmax : low;
    *packets = L->delivered;
    pthread_mutex_unlock(&L->mu);
}

/* The rows of the two tables below. */
#define LOCAL_CLOCK                                                                                \
    .name = "the local clock", .create = create, .destroy = destroy, .pending = hm__slot_pending,  \
    .recv = hm__slot_recv, .wait_packet = wait_packet, .wait_until = wait_until, .finish = finish, \
    .abort = abort_run, .collect = collect, .progress = progress, .stalled_on = stalled_on

const hm__transport_t hm__transport_local = {
    LOCAL_CLOCK,
    .emit = hm__emit_copies,
    .send_to = hm__send_to_neighbour,
};

static json_t *circuit_summary(const hm__machine_t *m)
{
    return hm__circuits_summary(m, ((const local_t *)m->tp_priv)->circ);
}

/* Under circuit routing: the circuits' node side and summary. */
const hm__transport_t hm__transport_local_circuit = {
    LOCAL_CLOCK,
    .emit = hm__circuit_emit,
    .send_to = hm__circuit_send_to,
    .summary = circuit_summary,
    .summary_key = "circuits",
};
