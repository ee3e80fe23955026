/* SPDX-License-Identifier: MIT */
/*
 * clock.c — the global barrier clock (README "Slot semantics") of the slotted
 * transports: packet routing (engine/packet.c) and circuit routing (engine/circuit.c).
 *
 * The clock is a discrete-event barrier. Only the nodes that have something to do in
 * slot t run in it (the "active" list). Each active node ends its slot by saying what
 * it waits for: a later slot (a timer) or a packet. The last active node to end the
 * slot runs hm__clock_commit on its own thread while every other node sleeps on its
 * own semaphore: commit registers what each node waits for, lets the transport judge
 * and deliver the slot's transmissions (its commit hook), then computes the next slot
 * that has work — the earliest timer, t + 1 if a packet woke a node, or the
 * transport's next event (a delayed packet, a message that starts or arrives) — and
 * wakes the nodes active in it (see "waking a slot's nodes" below). A node that waits
 * for a packet or for a far slot is not woken in between, and slots in which nothing
 * happens cost nothing.
 *
 * Memory ordering: a node writes its outbox and log during its slot, then decrements
 * active_left (acq_rel); the thread that brings it to zero therefore sees every
 * write of the slot. The wake-ups (a semaphore post, or the release store of `go`)
 * publish commit's writes to the nodes of the next slot.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hm_internal.h"

#ifdef __linux__
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

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

/* ---- waking a slot's nodes ---------------------------------------------------
 *
 * Between its slots a node sleeps in one of two places. As a rule it sleeps on its own
 * semaphore, which the clock posts only when the node is active: a node waiting for a
 * packet or for a far slot costs nothing. But a node sure to run in the next slot
 * (it waits for slot now + 1, as hm_next_slot does, with no copy held back) sleeps on
 * the machine's shared wake-up word instead, and one futex call wakes all of those,
 * as the last thread of a barrier does: a slot in which every node is active then costs
 * one system call to wake, not one per node (doc/performance.md). A node woken from
 * the word in a slot in which it is not active (one whose copies a full mailbox held
 * back since it chose) finds `go` unset and sleeps again.
 *
 * Who writes what: the node sets sleep_shared before it ends its slot (the acq_rel
 * decrement of active_left), so the committer reads it; the committer reads an
 * active node's sleep_shared before it wakes that node (once woken, a node may end its
 * slot and rewrite it). It stores `go` = 1 (release) for each sleeper on the word, and
 * after them increments the word (release) and wakes its waiters. A sleeper
 * reads the word (acquire), then `go` (acquire) and `aborted`, and only if neither is
 * set waits while the word still holds the value it read: had the increment come
 * before its read of the word, the go (or abort) written before the increment would be
 * visible to it; if it came after, the futex call returns at once or is woken by the
 * call that follows the increment. No wake-up is lost, and reading `go` set gives the
 * node every write of the commit. Elsewhere than Linux every node sleeps on its
 * semaphore. */

#ifdef __linux__
static int shared_word_usable(void)
{
    return 1;
}

static void word_wait(atomic_uint *w, unsigned seen)
{
    syscall(SYS_futex, (unsigned *)w, FUTEX_WAIT_PRIVATE, seen, NULL, NULL, 0);
}

static void word_wake_all(atomic_uint *w)
{
    syscall(SYS_futex, (unsigned *)w, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}
#else
static int shared_word_usable(void)
{
    return 0;
}

static void word_wait(atomic_uint *w, unsigned seen)
{
    (void)w;
    (void)seen;
}

static void word_wake_all(atomic_uint *w)
{
    (void)w;
}
#endif

/* Wake every sleeper on the word: after `go` or `aborted` was stored. */
static void word_release(hm__machine_t *m)
{
    atomic_fetch_add_explicit(&m->wake_word, 1, memory_order_release);
    word_wake_all(&m->wake_word);
}

/* Wake the nodes of the slot just opened (m->active, which stays in node order: the
 * commit reads it). The semaphore sleepers go into m->posted, which the wake-up tree
 * walks (wake_children) from its root, posted last. A node's sleep_shared is read
 * before that node is woken, and m->posted is complete before any of its nodes is.
 * Returns -1, having woken nobody, when m->posted cannot grow. */
static int wake_slot(hm__machine_t *m)
{
    if (hm__grow((void **)&m->posted.v, &m->posted.cap, m->active.n, sizeof *m->posted.v) != 0)
        return -1;
    size_t shared = 0;
    m->posted.n = 0;
    for (size_t i = 0; i < m->active.n; i++) {
        hm_node_t *n = &m->nodes[m->active.v[i]];
        if (n->sleep_shared) {
            atomic_store_explicit(&n->go, 1, memory_order_release);
            shared++;
        } else {
            n->active_index = m->posted.n;
            m->posted.v[m->posted.n++] = n->id; /* room was made above */
        }
    }
    if (m->posted.n > 0)
        sem_post(&m->nodes[m->posted.v[0]].wake);
    if (shared > 0)
        word_release(m);
    return 0;
}

/* ---- stopping ------------------------------------------------------------- */

/* Any thread may stop the run (a node's, the one that waits for the run, a thread a
 * node program created: engine/rules.c): the exchange on `stopping` lets one of them
 * write the end cause and the reason, and `aborted`, stored after them, publishes
 * both. */
void hm__stop(hm__machine_t *m, hm__end_t end, char *reason)
{
    if (atomic_load(&m->aborted) || atomic_exchange(&m->stopping, 1)) {
        free(reason);
        return;
    }
    m->end = end;
    m->stop_reason = reason;
    atomic_store(&m->aborted, 1);
}

/* Wake every node that may sleep so that it sees the abort and returns: every node
 * started, reading only what the thread that created them wrote before (a node woken
 * by the wake-up tree after the stop may be ending meanwhile, yield); a post to one that
 * has ended is never read. */
static void wake_all_for_abort(hm__machine_t *m)
{
    for (int i = 0; i < m->info.nodes; i++)
        if (m->nodes[i].started)
            sem_post(&m->nodes[i].wake);
    word_release(m);
}

static void fail_system(hm__machine_t *m, const char *what)
{
    hm__stop(m, HM__END_SYSTEM, hm__strdup_printf("out of memory in %s", what));
}

/* ---- deadlock report ---------------------------------------------------- */

/* What node i of a run stopped by deadlock waits for (the barrier and local clocks):
 * the receiver of its full mailbox (the transport's stalled_on), else a packet. */
int hm__slot_blocked_wait(const hm__machine_t *m, int i, char *buf, size_t len)
{
    const hm_node_t *n = &m->nodes[i];
    if (n->stalled > 0) {
        int to = m->tp->stalled_on ? m->tp->stalled_on(m, i) : -1;
        if (to < 0)
            return 0;
        snprintf(buf, len, "\n  node %d waits on node %d (mailbox %d->%d full, capacity %d)", i, to,
                 i, to, m->opt.mailbox_capacity);
        return 1;
    }
    if (n->wait != HM__WAIT_PACKET)
        return 0;
    if (n->wait_note[0]) /* hm_wait_note: the program's own words (an MPI call) */
        snprintf(buf, len, "\n  %s", n->wait_note);
    else
        snprintf(buf, len, "\n  node %d waits for a packet from any neighbour", i);
    return 1;
}

static char *deadlock_report(hm__machine_t *m)
{
    char head[128];
    snprintf(head, sizeof head,
             "deadlock at slot %lld: every node is blocked and nothing is in flight",
             (long long)m->now);
    return hm__blocked_report(head, m, hm__slot_blocked_wait);
}

/* ---- commit: the end of a slot ------------------------------------------ */

/* Sift v[i] down the max-heap v[0..n). */
static void sift_down(int32_t *v, size_t i, size_t n)
{
    int32_t x = v[i];
    for (size_t c; (c = 2 * i + 1) < n; i = c) {
        if (c + 1 < n && v[c + 1] > v[c])
            c++;
        if (v[c] <= x)
            break;
        v[i] = v[c];
    }
    v[i] = x;
}

/* Heapsort in place: a slot's active nodes in node order with no allocation and no
 * comparison callback (qsort's merge sort allocates above 1 KiB, once per slot). */
static void sort_nodes(int32_t *v, size_t n)
{
    for (size_t i = n / 2; i-- > 0;)
        sift_down(v, i, n);
    for (size_t end = n; end-- > 1;) {
        int32_t top = v[0];
        v[0] = v[end];
        v[end] = top;
        sift_down(v, 0, end);
    }
}

static int ascending(const int32_t *v, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (v[i - 1] > v[i])
            return 0;
    return 1;
}

/* A packet reached node dst in slot t, the last slot of its transmission
 * (engine/slot_judge.c's hm__deliver_copy), and the node is woken in slot t + 1 if it
 * was waiting for one. Called by the transports' commit hooks. */
int hm__deliver(hm__machine_t *m, hm__copy_t *c, int64_t t)
{
    int rc = hm__deliver_copy(m, c, t, &m->stats);
    if (rc <= 0)
        return rc;
    m->nodes[c->dst].wake_gen++;
    return HM__PUSH(m->woken, c->dst);
}

int hm__register_wait(hm__machine_t *m, hm_node_t *n)
{
    switch (n->wait) {
    case HM__WAIT_DONE:
        m->done_nodes++;
        return 0;
    case HM__WAIT_TIMER:
        return timer_push(m, n->wake_at, n);
    case HM__WAIT_PACKET:
        if (n->inbox.n > 0) {
            n->wait = HM__WAIT_NONE;
            n->woke_by_packet = 1;
            n->wake_gen++;
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

/* Step 1: every active node said what it waits for. */
static int register_waits(hm__machine_t *m)
{
    for (size_t i = 0; i < m->active.n; i++) {
        hm_node_t *n = &m->nodes[m->active.v[i]];
        if (n->failed || n->aborted) {
            hm__stop(m, n->failed ? HM__END_SYSTEM : HM__END_ABORTED, hm__fail_message(n));
            return -1;
        }
        if (n->stalled == 0 && hm__register_wait(m, n) != 0) {
            fail_system(m, "the clock");
            return -1;
        }
    }
    return 0;
}

/* The next slot after t with work: a woken node, a timer, the transport's next event. */
static int64_t next_slot(hm__machine_t *m, int64_t t)
{
    int64_t next = m->woken.n > 0 ? t + 1 : INT64_MAX;
    timer_clean_top(m);
    if (m->timers.n > 0 && m->timers.v[0].slot < next)
        next = m->timers.v[0].slot;
    int64_t tp = m->tp->next(m, t);
    return tp < next ? tp : next;
}

/* No next slot, or one past clock.max_slots: the run ends (`done` nodes have
 * returned). Returns 1 if it ended. */
static int run_ends(hm__machine_t *m, int64_t next, int done)
{
    if (next == INT64_MAX) {
        if (done < m->info.nodes)
            hm__stop(m, HM__END_DEADLOCK, deadlock_report(m));
        return 1;
    }
    if (next >= m->opt.max_slots) {
        hm__stop(m, HM__END_MAX_SLOTS,
                 hm__strdup_printf("clock.max_slots = %lld reached: the next slot with work "
                                   "is %lld, with %d of %d nodes still running",
                                   (long long)m->opt.max_slots, (long long)next,
                                   m->info.nodes - done, m->info.nodes));
        return 1;
    }
    return 0;
}

/* The nodes active in slot `next` (t + 1 takes the woken ones), ascending. */
static int open_slot(hm__machine_t *m, int64_t t, int64_t next)
{
    if (next == t + 1)
        for (size_t i = 0; i < m->woken.n; i++)
            if (HM__PUSH(m->active, m->woken.v[i]) != 0)
                return -1;
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
            return -1;
    }
    if (!ascending(m->active.v, m->active.n)) /* timers alone come out in node order */
        sort_nodes(m->active.v, m->active.n);
    m->now = next;
    m->stats.slots_run++;
    return 0;
}

/* Close slot m->now and open the next one with a node in it (m->active empty when the
 * run ends). A slot in which only the transport has work (a delayed packet, a
 * message that starts or arrives) runs no node: it is committed here at once. */
void hm__clock_commit(hm__machine_t *m)
{
    int64_t t = m->now;
    m->woken.n = 0;
    /* A distributed transport commits and agrees with the other processes even when
     * this one stops the run: they learn it from the agreement. */
    if (register_waits(m) != 0 && !m->tp->agree)
        return;
    for (;;) {
        if (m->tp->commit(m, t) != 0)
            return fail_system(m, m->tp->name);
        atomic_store_explicit(&m->progress_slot, t, memory_order_relaxed);
        atomic_store_explicit(&m->progress_packets, m->stats.transmissions, memory_order_relaxed);
        m->active.n = 0;
        int done = m->done_nodes, interrupted = hm__interrupted(m);
        int64_t next = next_slot(m, t);
        if (m->tp->agree)
            next = m->tp->agree(m, next, &done, &interrupted);
        if (atomic_load(&m->aborted))
            return;
        if (interrupted)
            return hm__stop(m, HM__END_INTERRUPTED,
                            hm__strdup_printf("interrupted at the end of slot %lld, with %d of "
                                              "%d nodes still running",
                                              (long long)t, m->info.nodes - done, m->info.nodes));
        if (run_ends(m, next, done))
            return;
        if (open_slot(m, t, next) != 0)
            return fail_system(m, "the clock");
        if (m->active.n > 0)
            return;
        t = next;
        m->woken.n = 0;
    }
}

/* ---- called by node threads ---------------------------------------------- */

/* End the calling node's slot. The thread whose decrement empties the slot commits
 * it and wakes the next slot's nodes. While it posts their semaphores it holds one
 * extra count in active_left, so that no other thread can commit the next slot (and
 * rewrite the active list) before the posting is over; if releasing that count
 * empties the slot, every node of it has already finished and it commits again. A
 * slot that empties after the run was stopped by another thread (engine/rules.c: a
 * thread that is not a node's) wakes every node to see the stop. */
static void end_slot(hm_node_t *n)
{
    hm__machine_t *m = n->m;
    if (atomic_fetch_sub_explicit(&m->active_left, 1, memory_order_acq_rel) != 1)
        return;
    for (;;) {
        if (atomic_load(&m->aborted)) {
            /* Nodes woken by an abort may still run and rewrite their wait: post them
             * all, reading only what the thread that created them wrote before. */
            if (!m->tp->agree)
                hm__slot_abort(m, NULL);
            return;
        }
        hm__clock_commit(m);
        if (atomic_load(&m->aborted)) {
            wake_all_for_abort(m);
            return;
        }
        if (m->active.n == 0)
            return; /* the run is over */
        atomic_store_explicit(&m->active_left, (int)m->active.n + 1, memory_order_release);
        if (wake_slot(m) != 0) {
            fail_system(m, "the clock");
            wake_all_for_abort(m);
            return;
        }
        if (atomic_fetch_sub_explicit(&m->active_left, 1, memory_order_acq_rel) != 1)
            return;
    }
}

/* Wake-up tree: the committer wakes the first node of m->posted; the node at index k
 * wakes those at 2k + 1 and 2k + 2 before it runs, so the wake-ups (one futex call
 * each) spread over the cores instead of queueing on the committer. No commit can
 * rewrite the list meanwhile: a node has not ended its slot while it is still waking
 * its children. */
static void wake_children(hm_node_t *n)
{
    hm__machine_t *m = n->m;
    size_t k = n->active_index, count = m->posted.n;
    for (size_t c = 2 * k + 1; c <= 2 * k + 2 && c < count; c++)
        sem_post(&m->nodes[m->posted.v[c]].wake);
}

/* Sleep on the shared word until the clock sets `go` or the run aborts. */
static void sleep_on_word(hm_node_t *n)
{
    hm__machine_t *m = n->m;
    for (;;) {
        unsigned seen = atomic_load_explicit(&m->wake_word, memory_order_acquire);
        if (atomic_load_explicit(&n->go, memory_order_acquire) || atomic_load(&m->aborted))
            break;
        word_wait(&m->wake_word, seen);
    }
    atomic_store_explicit(&n->go, 0, memory_order_relaxed);
}

static int clock_yield(hm_node_t *n)
{
    hm__machine_t *m = n->m;
    if (atomic_load(&m->aborted))
        return HM_EABORT;
    /* Sure to run in slot now + 1 (see "waking a slot's nodes"). */
    n->sleep_shared = shared_word_usable() && n->stalled == 0 && n->wake_at == n->now + 1 &&
                      (n->wait == HM__WAIT_TIMER || n->wait == HM__WAIT_PACKET);
    end_slot(n);
    if (n->sleep_shared) {
        sleep_on_word(n);
    } else {
        while (sem_wait(&n->wake) != 0 && errno == EINTR)
            ;
    }
    /* Its children first, even when the run was stopped meanwhile (a stop from a thread
     * that is not in this slot: a sandboxed node process that crashed, engine/rules.c): a
     * node that returned without waking them would leave them asleep for ever, and the
     * run would never end. */
    if (!n->sleep_shared)
        wake_children(n);
    if (atomic_load(&m->aborted))
        return HM_EABORT;
    n->now = m->now;
    return HM_OK;
}

void hm__slot_finish(hm_node_t *n)
{
    n->wait = HM__WAIT_DONE;
    end_slot(n);
}

/* No commit can run: slot 0 is still open (some node never existed to end it). A
 * node checks the abort before it sleeps and after it wakes, so one post each is
 * enough for those that sleep already or are about to. */
void hm__slot_abort(hm__machine_t *m, char *reason)
{
    hm__stop(m, HM__END_SYSTEM, reason);
    for (int i = 0; i < m->info.nodes; i++)
        if (m->nodes[i].started)
            sem_post(&m->nodes[i].wake);
    word_release(m);
}

/* ---- the node side of the slotted transports --------------------------------- */

int hm__slot_pending(const hm_node_t *n)
{
    return (int)n->inbox.n;
}

int hm__slot_recv(hm_node_t *n, hm_packet_t *out)
{
    hm__machine_t *m = n->m;
    hm__blob_release(n->held);
    n->held = NULL;
    if (n->inbox.n == 0)
        return HM_ENOENT;
    hm__copy_t c = hm__inbox_take(&n->inbox);
    /* Reading frees its place in the link's mailbox (routed messages have none). */
    if (c.sport >= 0)
        m->occ[c.src * m->maxdeg + c.sport]--;
    if (out)
        *out = c.pkt;
    n->held = c.blob;
    return HM_OK;
}

/* The one wait of the slotted clocks, the barrier's and the local one (engine/local.c):
 * a packet already there is read at once; else the node ends its slot through the
 * clock's yield and sleeps until a packet or slot `deadline` (< 0: none). */
int hm__slot_wait(hm_node_t *n, hm_packet_t *out, int64_t deadline, hm__yield_fn yield)
{
    if (hm__slot_pending(n) > 0)
        return out ? hm__slot_recv(n, out) : HM_OK;
    if (deadline >= 0 && deadline <= n->now)
        return HM_ENOENT;
    if (hm__aborted(n->m))
        return HM_EABORT;
    hm__blob_release(n->held);
    n->held = NULL;
    n->wait = HM__WAIT_PACKET;
    n->wake_at = deadline;
    int rc = yield(n);
    if (rc != HM_OK)
        return rc;
    if (!n->woke_by_packet && hm__slot_pending(n) == 0)
        return HM_ENOENT;
    return out ? hm__slot_recv(n, out) : HM_OK;
}

int hm__slot_sleep(hm_node_t *n, int64_t slot, hm__yield_fn yield)
{
    if (hm__aborted(n->m))
        return HM_EABORT;
    hm__blob_release(n->held);
    n->held = NULL;
    n->wait = HM__WAIT_TIMER;
    n->wake_at = slot;
    return yield(n);
}

int hm__slot_wait_packet(hm_node_t *n, hm_packet_t *out, int64_t deadline)
{
    return hm__slot_wait(n, out, deadline, clock_yield);
}

int hm__slot_wait_until(hm_node_t *n, int64_t slot)
{
    return hm__slot_sleep(n, slot, clock_yield);
}

void hm__clock_progress(hm__machine_t *m, int64_t *slot, int64_t *packets)
{
    *slot = atomic_load_explicit(&m->progress_slot, memory_order_relaxed);
    *packets = atomic_load_explicit(&m->progress_packets, memory_order_relaxed);
}
