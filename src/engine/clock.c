/*
 * clock.c — the global barrier clock (SPEC section 3).
 *
 * The clock is a discrete-event barrier. Only the nodes that have something to do in
 * slot t run in it (the "active" list). Each active node ends its slot by saying what
 * it waits for: a later slot (a timer) or a packet. The last active node to end the
 * slot runs hm__commit on its own thread while every other node sleeps on its own
 * semaphore: commit judges the slot's transmissions against the port model, delivers
 * the packets, then computes the next slot that has work — the earliest timer, t + 1
 * if a packet woke a node or a delayed packet must be retried — and posts the
 * semaphores of the nodes active in it. A node that waits for a packet or for a far
 * slot is not woken in between, and slots in which nothing happens cost nothing.
 *
 * Memory ordering: a node writes its outbox and log during its slot, then decrements
 * active_left (acq_rel); the thread that brings it to zero therefore sees every
 * write of the slot. The posts of the semaphores publish commit's writes to the
 * nodes of the next slot.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hm_internal.h"

/* ---- timers: a binary min-heap on (slot, node) ---------------------------- */

static int timer_less(const hm__timer_t *a, const hm__timer_t *b)
{
    return a->slot < b->slot || (a->slot == b->slot && a->node < b->node);
}

static int timer_push(hm__machine_t *m, int64_t slot, hm_node_t *n)
{
    hm__timer_t t = {slot, n->id, n->wake_gen};
    if (HM__PUSH(m->timers, t) != 0)
        return -1;
    size_t i = m->timers.n - 1;
    hm__timer_t *h = m->timers.v;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!timer_less(&h[i], &h[p]))
            break;
        hm__timer_t tmp = h[i];
        h[i] = h[p];
        h[p] = tmp;
        i = p;
    }
    return 0;
}

static hm__timer_t timer_pop(hm__machine_t *m)
{
    hm__timer_t *h = m->timers.v;
    hm__timer_t top = h[0];
    h[0] = h[--m->timers.n];
    size_t i = 0, n = m->timers.n;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, s = i;
        if (l < n && timer_less(&h[l], &h[s]))
            s = l;
        if (r < n && timer_less(&h[r], &h[s]))
            s = r;
        if (s == i)
            break;
        hm__timer_t tmp = h[i];
        h[i] = h[s];
        h[s] = tmp;
        i = s;
    }
    return top;
}

/* Drop timers that no longer match their node's wait (a packet came first). */
static void timer_clean_top(hm__machine_t *m)
{
    while (m->timers.n > 0) {
        hm__timer_t *t = &m->timers.v[0];
        hm_node_t *n = &m->nodes[t->node];
        if (t->gen == n->wake_gen && n->wait != HM__WAIT_NONE && n->wait != HM__WAIT_DONE)
            return;
        (void)timer_pop(m);
    }
}

/* ---- stopping ------------------------------------------------------------- */

void hm__stop(hm__machine_t *m, int code, char *reason)
{
    if (atomic_load(&m->aborted)) {
        free(reason);
        return;
    }
    m->exit_code = code;
    m->stop_reason = reason;
    atomic_store(&m->aborted, 1);
}

/* Wake every node that is still sleeping so that it sees the abort and returns. */
static void wake_all_for_abort(hm__machine_t *m)
{
    for (int i = 0; i < m->info.nodes; i++) {
        hm_node_t *n = &m->nodes[i];
        if (n->wait != HM__WAIT_DONE && n->started)
            sem_post(&n->wake);
    }
}

/* ---- deadlock report ---------------------------------------------------- */

static char *deadlock_report(hm__machine_t *m)
{
    size_t cap = 256, len = 0;
    char *s = malloc(cap);
    if (!s)
        return NULL;
    len = (size_t)snprintf(s, cap,
                           "deadlock at slot %lld: every node is blocked and nothing is in "
                           "flight",
                           (long long)m->now);
    int shown = 0, total = 0;
    for (int i = 0; i < m->info.nodes; i++) {
        hm_node_t *n = &m->nodes[i];
        char line[160];
        line[0] = 0;
        if (n->stalled > 0) {
            /* Find which mailbox holds it back. */
            for (size_t k = 0; k < m->stalled.n; k++) {
                if (m->stalled.v[k].src == n->id) {
                    snprintf(line, sizeof line,
                             "\n  node %d waits on node %d (mailbox %d->%d full, capacity %d)",
                             n->id, m->stalled.v[k].dst, n->id, m->stalled.v[k].dst,
                             m->opt.mailbox_capacity);
                    break;
                }
            }
        } else if (n->wait == HM__WAIT_PACKET) {
            snprintf(line, sizeof line, "\n  node %d waits for a packet from any neighbour", n->id);
        }
        if (!line[0])
            continue;
        total++;
        if (shown >= 20)
            continue;
        shown++;
        size_t l = strlen(line);
        if (len + l + 1 > cap) {
            cap = (len + l + 1) * 2;
            char *t = realloc(s, cap);
            if (!t)
                return s;
            s = t;
        }
        memcpy(s + len, line, l + 1);
        len += l;
    }
    if (total > shown) {
        char more[64];
        snprintf(more, sizeof more, "\n  ... and %d more blocked nodes", total - shown);
        size_t l = strlen(more);
        char *t = realloc(s, len + l + 1);
        if (t) {
            s = t;
            memcpy(s + len, more, l + 1);
        }
    }
    return s;
}

/* ---- commit: the end of a slot ------------------------------------------ */

static int cmp_int32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

static int link_of(const hm__machine_t *m, const hm__copy_t *c)
{
    return c->src * m->maxdeg + c->sport;
}

/* A packet reached node dst in slot t, the last slot of its transmission: into its
 * inbox, logged there, and the node is woken in slot t + 1 if it was waiting for one.
 * Also called by ports/circuit.c when a message that lasted several slots arrives. */
int hm__deliver(hm__machine_t *m, hm__copy_t *c, int64_t t)
{
    hm_node_t *r = &m->nodes[c->dst];
    c->pkt.from = c->src;
    c->pkt.port = c->dport;
    c->pkt.sent_slot = c->sent_slot;
    c->pkt.recv_slot = t;
    if (HM__PUSH(r->inbox, *c) != 0)
        return -1;
    m->stats.transmissions++;
    if (t > m->stats.last_activity)
        m->stats.last_activity = t;
    if (m->opt.record_events)
        hm__log_event(r, HM__EV_RECV, t, c->dport, c->src, c->pkt.msg, c->pkt.value, c->dur,
                      c->flow, NULL);
    if (r->wait == HM__WAIT_PACKET && r->stalled == 0) {
        r->wait = HM__WAIT_NONE;
        r->woke_by_packet = 1;
        r->wake_gen++;
        if (HM__PUSH(m->woken, r->id) != 0)
            return -1;
    }
    return 0;
}

/* Register what node n asked for when it ended its slot. */
static int register_wait(hm__machine_t *m, hm_node_t *n, int64_t t)
{
    switch (n->wait) {
    case HM__WAIT_DONE:
        m->done_nodes++;
        return 0;
    case HM__WAIT_TIMER:
        return timer_push(m, n->wake_at, n);
    case HM__WAIT_PACKET:
        if (n->inbox.n > n->inbox_head) {
            n->wait = HM__WAIT_NONE;
            n->woke_by_packet = 1;
            n->wake_gen++;
            (void)t;
            return HM__PUSH(m->woken, n->id);
        }
        if (n->wake_at >= 0)
            return timer_push(m, n->wake_at, n);
        return 0;
    case HM__WAIT_NONE:
        break;
    }
    return 0;
}

/* A stalled copy left its node's backlog: once the backlog is empty the node's wait
 * counts again. */
static int unstall(hm__machine_t *m, hm_node_t *n, int64_t t)
{
    if (--n->stalled > 0)
        return 0;
    if (n->wait == HM__WAIT_TIMER && n->wake_at <= t)
        n->wake_at = t + 1;
    if (n->wait == HM__WAIT_PACKET && n->wake_at >= 0 && n->wake_at <= t)
        n->wake_at = t + 1;
    return register_wait(m, n, t);
}

static int admit_or_hold(hm__machine_t *m, size_t i, int64_t t, hm__copyvec_t *keep)
{
    hm__copy_t *c = &m->cand.v[i];
    char why[256];
    if (hm__port_admit(m, (int)i, why, sizeof why)) {
        /* Transmitted: it stays in the same mailbox, now received-unread, until the
         * receiver reads it. */
        return hm__deliver(m, c, t);
    }
    if (m->opt.contention == HM__CONTENTION_STRICT) {
        m->stats.conflicts++;
        char *msg = hm__strdup_printf("slot %lld: %s", (long long)t, why);
        if (m->opt.record_events) {
            hm__log_event(&m->nodes[c->src], HM__EV_CONFLICT, t, c->sport, c->dst, c->pkt.msg,
                          c->pkt.value, 1, 0, hm__strdup_printf("%s", why));
        }
        if (!atomic_load(&m->aborted))
            hm__stop(m, HM_EXIT_VERIFY, msg);
        else
            free(msg);
        hm__blob_release(c->blob);
        m->occ[link_of(m, c)]--;
        return 0;
    }
    /* Queue policy: the copy waits in its mailbox for a later slot. */
    if (!c->delayed) {
        c->delayed = 1;
        m->stats.delayed_packets++;
        m->stats.conflicts++;
        if (m->opt.record_events)
            hm__log_event(&m->nodes[c->src], HM__EV_DELAY, t, c->sport, c->dst, c->pkt.msg,
                          c->pkt.value, 1, 0, hm__strdup_printf("%s", why));
    }
    m->stats.delay_slots++;
    return HM__PUSH(*keep, *c);
}

static void fail_system(hm__machine_t *m, const char *what)
{
    hm__stop(m, HM_EXIT_SYSTEM, hm__strdup_printf("out of memory in %s", what));
}

void hm__commit(hm__machine_t *m)
{
    int64_t t = m->now;
    m->woken.n = 0;
    m->cand.n = 0;

    /* 1. Every active node said what it waits for. */
    for (size_t i = 0; i < m->active.n; i++) {
        hm_node_t *n = &m->nodes[m->active.v[i]];
        if (n->failed)
            return hm__stop(m, HM_EXIT_SYSTEM, hm__fail_message(n));
        if (n->stalled == 0 && register_wait(m, n, t) != 0)
            return fail_system(m, "the clock");
    }

    /* Circuit routing (ports/circuit.c) replaces steps 2 and 3: messages last several
     * slots and the receive ports, not mailboxes, hold them back. */
    if (m->circ) {
        if (hm__circuit_commit(m, t) != 0)
            return fail_system(m, "the circuits");
        goto next_slot;
    }

    /* 2. Candidates, oldest first: copies delayed earlier, then copies whose full
     *    mailbox has room again, then this slot's new copies in node order. */
    for (size_t i = 0; i < m->pending.n; i++)
        if (HM__PUSH(m->cand, m->pending.v[i]) != 0)
            return fail_system(m, "the mailboxes");
    m->pending.n = 0;

    size_t keep = 0;
    for (size_t i = 0; i < m->stalled.n; i++) {
        hm__copy_t *c = &m->stalled.v[i];
        int l = link_of(m, c);
        /* A copy behind another stalled copy on its link keeps its place. */
        if (m->occ[l] < m->opt.mailbox_capacity && m->stall_count[l] > 0) {
            m->stall_count[l]--;
            m->occ[l]++;
            if (m->occ[l] > m->stats.max_mailbox_depth)
                m->stats.max_mailbox_depth = m->occ[l];
            if (HM__PUSH(m->cand, *c) != 0 || unstall(m, &m->nodes[c->src], t) != 0)
                return fail_system(m, "the mailboxes");
        } else {
            m->stalled.v[keep++] = *c;
        }
    }
    m->stalled.n = keep;

    for (size_t i = 0; i < m->active.n; i++) {
        hm_node_t *n = &m->nodes[m->active.v[i]];
        for (size_t k = 0; k < n->outbox.n; k++) {
            hm__copy_t *c = &n->outbox.v[k];
            int l = link_of(m, c);
            if (m->occ[l] >= m->opt.mailbox_capacity || m->stall_count[l] > 0) {
                /* Backpressure: the mailbox is full, the sender waits for room. */
                m->stall_count[l]++;
                m->stats.stalls++;
                if (m->opt.record_events)
                    hm__log_event(n, HM__EV_STALL, t, c->sport, c->dst, c->pkt.msg, c->pkt.value, 1,
                                  0, NULL);
                if (n->stalled++ == 0 && n->wait != HM__WAIT_DONE) {
                    /* Its wait was registered in step 1: take it back. */
                    n->wake_gen++;
                    for (size_t w = 0; w < m->woken.n; w++)
                        if (m->woken.v[w] == n->id) {
                            m->woken.v[w] = m->woken.v[--m->woken.n];
                            n->wait = HM__WAIT_PACKET;
                            break;
                        }
                }
                if (HM__PUSH(m->stalled, *c) != 0)
                    return fail_system(m, "the mailboxes");
                continue;
            }
            m->occ[l]++;
            if (m->occ[l] > m->stats.max_mailbox_depth)
                m->stats.max_mailbox_depth = m->occ[l];
            if (HM__PUSH(m->cand, *c) != 0)
                return fail_system(m, "the mailboxes");
        }
        n->outbox.n = 0;
    }

    /* 3. The port model judges the candidates in order. */
    for (size_t i = 0; i < m->cand.n; i++)
        if (admit_or_hold(m, i, t, &m->pending) != 0)
            return fail_system(m, "the mailboxes");

next_slot:
    if (atomic_load(&m->aborted))
        return;

    /* 4. The next slot with work. */
    int64_t next;
again:
    next = INT64_MAX;
    if (m->woken.n > 0 || m->pending.n > 0)
        next = t + 1;
    timer_clean_top(m);
    if (m->timers.n > 0 && m->timers.v[0].slot < next)
        next = m->timers.v[0].slot;
    if (m->circ) {
        int64_t c = hm__circuit_next(m, t);
        if (c < next)
            next = c;
    }

    m->active.n = 0;
    if (next == INT64_MAX) {
        if (m->done_nodes == m->info.nodes && m->stalled.n == 0)
            return; /* finished */
        hm__stop(m, HM_EXIT_STUCK, deadlock_report(m));
        return;
    }
    if (next >= m->opt.max_slots) {
        hm__stop(m, HM_EXIT_STUCK,
                 hm__strdup_printf("clock.max_slots = %lld reached: the next slot with work "
                                   "is %lld, with %d of %d nodes still running",
                                   (long long)m->opt.max_slots, (long long)next,
                                   m->info.nodes - m->done_nodes, m->info.nodes));
        return;
    }

    /* 5. Open slot `next`: its active nodes, ascending. */
    if (next == t + 1)
        for (size_t i = 0; i < m->woken.n; i++)
            if (HM__PUSH(m->active, m->woken.v[i]) != 0)
                return fail_system(m, "the clock");
    while (m->timers.n > 0) {
        timer_clean_top(m);
        if (m->timers.n == 0 || m->timers.v[0].slot != next)
            break;
        hm__timer_t tm = timer_pop(m);
        hm_node_t *n = &m->nodes[tm.node];
        n->woke_by_packet = 0;
        n->wait = HM__WAIT_NONE;
        n->wake_gen++;
        if (HM__PUSH(m->active, tm.node) != 0)
            return fail_system(m, "the clock");
    }
    if (m->active.n == 0 && m->circ) {
        /* Only a message starts or arrives in slot `next`: no node runs in it, so
         * commit it here at once and look further. */
        t = m->now = next;
        m->woken.n = 0;
        m->stats.slots_run++;
        if (hm__circuit_commit(m, t) != 0)
            return fail_system(m, "the circuits");
        if (atomic_load(&m->aborted))
            return;
        goto again;
    }
    qsort(m->active.v, m->active.n, sizeof(int32_t), cmp_int32);
    m->now = next;
    m->stats.slots_run++;
}

/* ---- called by node threads ---------------------------------------------- */

/* End the calling node's slot. The thread whose decrement empties the slot commits
 * it and wakes the next slot's nodes. While it posts their semaphores it holds one
 * extra count in active_left, so that no other thread can commit the next slot (and
 * rewrite the active list) before the posting is over; if releasing that count
 * empties the slot, every node of it has already finished and it commits again. */
static void end_slot(hm_node_t *n)
{
    hm__machine_t *m = n->m;
    if (atomic_fetch_sub_explicit(&m->active_left, 1, memory_order_acq_rel) != 1)
        return;
    for (;;) {
        if (atomic_load(&m->aborted))
            return;
        hm__commit(m);
        if (atomic_load(&m->aborted)) {
            wake_all_for_abort(m);
            return;
        }
        if (m->active.n == 0)
            return; /* the run is over */
        atomic_store_explicit(&m->active_left, (int)m->active.n + 1, memory_order_release);
        for (size_t i = 0; i < m->active.n; i++)
            m->nodes[m->active.v[i]].active_index = i;
        sem_post(&m->nodes[m->active.v[0]].wake);
        if (atomic_fetch_sub_explicit(&m->active_left, 1, memory_order_acq_rel) != 1)
            return;
    }
}

/* Wake-up tree: the committer wakes the first active node; the node at index k of
 * the active list wakes those at 2k + 1 and 2k + 2 before it runs, so the wake-ups
 * (one futex call each) spread over the cores instead of queueing on the committer.
 * No commit can rewrite the list meanwhile: a node has not ended its slot while it
 * is still waking its children. */
void hm__wake_children(hm_node_t *n)
{
    hm__machine_t *m = n->m;
    size_t k = n->active_index, count = m->active.n;
    for (size_t c = 2 * k + 1; c <= 2 * k + 2 && c < count; c++)
        sem_post(&m->nodes[m->active.v[c]].wake);
}

int hm__yield(hm_node_t *n)
{
    hm__machine_t *m = n->m;
    if (atomic_load(&m->aborted))
        return HM_EABORT;
    end_slot(n);
    while (sem_wait(&n->wake) != 0 && errno == EINTR)
        ;
    if (atomic_load(&m->aborted))
        return HM_EABORT;
    hm__wake_children(n);
    n->now = m->now;
    return HM_OK;
}

void hm__finish(hm_node_t *n)
{
    n->wait = HM__WAIT_DONE;
    end_slot(n);
}
