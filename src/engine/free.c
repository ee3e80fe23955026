/* SPDX-License-Identifier: MIT */
/*
 * free.c — the free-running clock (clock.mode "free", doc/clocks.md "Free-running mode"):
 * it drops the barrier to measure the host's real contention (wall_seconds) rather than
 * the model's slots.
 *
 * There is no barrier. Every node thread runs as fast as the host lets it, and the
 * contention it meets is the host's, not the model's:
 *
 *   - A send goes straight into the receiver's mailbox: the receiving node's inbox
 *     under its own mutex, bounded per directed link by mailbox.capacity (received
 *     and unread copies). A sender facing a full link really blocks, on its own
 *     condition variable, until the receiver reads from that link (backpressure).
 *   - A receive takes the oldest copy of the node's inbox under the same mutex.
 *   - Each node keeps a logical (Lamport) clock in n->now: hm_wait_until(s) sets it to
 *     s; reading a packet stamped with its send slot t sets it to max(now, t + 1), the
 *     packet counting as received in the slot before. Events are logged with these
 *     logical slots, so the merged timeline is causally consistent; but which packet
 *     overtakes which depends on the scheduling: free mode is not deterministic.
 *   - hm_wait_packet_until with a deadline and no packet jumps to the deadline at
 *     once (there is no global time to wait for); without a deadline it blocks.
 *   - Port models are not enforced: no slot is judged, conflicts stay 0.
 *
 * Deadlock detection: `running` counts the nodes that have not returned and are not
 * blocked, under the global lock `g`, which only the blocking path, the waking path
 * and the end of a node take. A node that blocks decrements it while holding the
 * mailbox lock it then waits with; a node that wakes another (a packet for a blocked
 * receiver, room for a blocked sender) increments it on the sleeper's behalf, under
 * the same mailbox lock, before signalling. So running == 0 means that every node
 * still there is asleep with nobody left to wake it: exit 3, with who waits on whom.
 * There is no window for a lost wake-up: a sleeper's flag (recv_blocked,
 * link_blocked) is set and read under the mailbox lock it waits with.
 *
 * Lock order: a mailbox lock, then g. A thread never holds two mailbox locks. The
 * abort path (deadlock, max_slots) runs with no lock held: it passes through every
 * mailbox lock once, so that every sleeper that missed the abort flag is inside its
 * wait, then broadcasts every condition variable.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "free.h"

static int res_create(hm__machine_t *m, hm__free_t *F);
static void res_destroy(hm__free_t *F);

static int create(hm__machine_t *m)
{
    int n = m->info.nodes;
    hm__free_t *F = calloc(1, sizeof *F);
    if (!F)
        return -1;
    m->tp_priv = F;
    size_t links = (size_t)n * (size_t)m->maxdeg;
    F->nodes = aligned_alloc(64, (size_t)n * sizeof *F->nodes);
    F->links = calloc(links ? links : 1, sizeof *F->links);
    F->link_blocked = calloc(links ? links : 1, 1);
    if (!F->nodes || !F->links || !F->link_blocked || pthread_mutex_init(&F->g, NULL) != 0) {
        free(F->nodes);
        free(F->links);
        free(F->link_blocked);
        free(F);
        m->tp_priv = NULL;
        return -1;
    }
    memset(F->nodes, 0, (size_t)n * sizeof *F->nodes);
    /* hm_wait_packet_ns's deadlines are CLOCK_MONOTONIC, as hm__now_ns. */
    pthread_condattr_t mono;
    pthread_condattr_init(&mono);
    pthread_condattr_setclock(&mono, CLOCK_MONOTONIC);
    for (int i = 0; i < n; i++) {
        fnode_t *f = &F->nodes[i];
        f->last_send = -1;
        if (pthread_mutex_init(&f->lock, NULL) != 0 || pthread_cond_init(&f->cv, &mono) != 0) {
            pthread_condattr_destroy(&mono);
            /* Leaves the created ones to the OS: the run does not start. */
            free(F->nodes);
            free(F->links);
            free(F->link_blocked);
            pthread_mutex_destroy(&F->g);
            free(F);
            m->tp_priv = NULL;
            return -1;
        }
    }
    pthread_condattr_destroy(&mono);
    F->running = n;
    return m->info.circuit ? res_create(m, F) : 0;
}

static void destroy(hm__machine_t *m)
{
    hm__free_t *F = m->tp_priv;
    if (!F)
        return;
    for (int i = 0; i < m->info.nodes; i++) {
        pthread_mutex_destroy(&F->nodes[i].lock);
        pthread_cond_destroy(&F->nodes[i].cv);
    }
    size_t links = (size_t)m->info.nodes * (size_t)m->maxdeg;
    for (size_t l = 0; l < links; l++)
        free(F->links[l].lat.v);
    free(F->all_lat.v);
    res_destroy(F);
    pthread_mutex_destroy(&F->g);
    free(F->nodes);
    free(F->links);
    free(F->link_blocked);
    free(F);
    m->tp_priv = NULL;
}

/* ---- helpers ---------------------------------------------------------------- */

/* Take a lock of kind `kind`, counting the times another thread held it, the time
 * waited for it and (unlock_in) the time it was held; returns the time waited (0: it
 * was free). Every lock the clock takes goes through here, but the abort path's
 * (wake_all, and a stop from the main thread). */
static int64_t lock_in(fnode_t *self, pthread_mutex_t *mx, int kind)
{
    lockfig_t *k = &self->locks[kind];
    int64_t w = 0;
    k->taken++;
    if (pthread_mutex_trylock(mx) != 0) {
        int64_t t0 = hm__now_ns();
        pthread_mutex_lock(mx);
        w = hm__now_ns() - t0;
        w = w > 0 ? w : 1;
        k->waits++;
        k->wait_ns += w;
        self->held_since[kind] = t0 + w;
        return w;
    }
    self->held_since[kind] = hm__now_ns();
    return 0;
}

/* Count the time held since lock_in (or since the last wake-up on a condition). */
static void held(fnode_t *self, int kind)
{
    lockfig_t *k = &self->locks[kind];
    int64_t h = hm__now_ns() - self->held_since[kind];
    k->hold_ns += h;
    if (h > k->hold_max)
        k->hold_max = h;
}

static void unlock_in(fnode_t *self, pthread_mutex_t *mx, int kind)
{
    held(self, kind);
    pthread_mutex_unlock(mx);
}

/* pthread_cond_wait on a lock of kind `kind`: the sleep is not a hold. */
static void cond_wait_in(fnode_t *self, pthread_cond_t *cv, pthread_mutex_t *mx, int kind)
{
    held(self, kind);
    pthread_cond_wait(cv, mx);
    self->held_since[kind] = hm__now_ns();
}

/* A mailbox lock (or a circuit's, kind FL_CIRCUIT), its waits also in the node's
 * lock_waits and lock_wait_ns. */
static int64_t lock_counted(fnode_t *self, pthread_mutex_t *mx)
{
    int64_t w = lock_in(self, mx, FL_MAILBOX);
    self->lock_waits += w > 0;
    self->lock_ns += w;
    return w;
}

static void unlock_counted(fnode_t *self, pthread_mutex_t *mx)
{
    unlock_in(self, mx, FL_MAILBOX);
}

static int aborted(const hm__machine_t *m)
{
    return hm__aborted(m);
}

static int blocked_wait(const hm__machine_t *m, int i, char *buf, size_t len)
{
    const fnode_t *f = &((const hm__free_t *)m->tp_priv)->nodes[i];
    if (f->state == FB_SEND)
        snprintf(buf, len,
                 "\n  node %d waits on node %d (mailbox %d->%d full, capacity %d), at slot %lld", i,
                 f->peer, i, f->peer, m->opt.mailbox_capacity, (long long)f->slot);
    else if (f->state == FB_PORT)
        snprintf(buf, len,
                 "\n  node %d waits on node %d (%s port busy: its packet to node %d is unread), "
                 "at slot %lld",
                 i, f->peer, hm_ports_name(m->info.ports), f->peer, (long long)f->slot);
    else if (f->state == FB_RECV)
        snprintf(buf, len, "\n  node %d waits for a packet from any neighbour, at slot %lld", i,
                 (long long)f->slot);
    else
        return 0;
    return 1;
}

/* Under g: who waits on whom. */
static char *deadlock_report(hm__machine_t *m)
{
    return hm__blocked_report("deadlock (free-running clock): every node that has not returned "
                              "is blocked",
                              m, blocked_wait);
}

/* With no lock held: make every sleeper see the abort. */
static void wake_all(hm__machine_t *m)
{
    hm__free_t *F = m->tp_priv;
    for (int i = 0; i < m->info.nodes; i++) {
        pthread_mutex_lock(&F->nodes[i].lock);
        pthread_mutex_unlock(&F->nodes[i].lock);
    }
    for (int i = 0; i < m->info.nodes; i++)
        pthread_cond_broadcast(&F->nodes[i].cv);
}

/* Node `id` is about to sleep (holding the mailbox lock it waits with). Returns 1 if
 * that makes every remaining node blocked: the run is stopped (the caller must not
 * sleep, and calls wake_all once it holds no lock). */
static int block(hm__machine_t *m, int id, int state, int peer, int64_t slot)
{
    hm__free_t *F = m->tp_priv;
    fnode_t *f = &F->nodes[id];
    hm__wd_sleep(&m->nodes[id]); /* asleep for the watchdog until its hm__wd_run */
    lock_in(f, &F->g, FL_GLOBAL);
    f->state = state;
    f->peer = peer;
    f->slot = slot;
    int dead = --F->running == 0 && !aborted(m);
    if (dead)
        hm__stop(m, HM__END_DEADLOCK, deadlock_report(m));
    unlock_in(f, &F->g, FL_GLOBAL);
    return dead;
}

/* Node `id` was woken by the caller `self` (holding the lock `id` waits with). */
static void unblock(hm__machine_t *m, fnode_t *self, int id)
{
    hm__free_t *F = m->tp_priv;
    lock_in(self, &F->g, FL_GLOBAL);
    F->nodes[id].state = FB_NONE;
    F->running++;
    unlock_in(self, &F->g, FL_GLOBAL);
}

/* With no lock held: stop the run (the first reason wins) and wake every sleeper. */
static int stop(hm__machine_t *m, hm__end_t end, char *reason)
{
    pthread_mutex_lock(&((hm__free_t *)m->tp_priv)->g);
    hm__stop(m, end, reason);
    pthread_mutex_unlock(&((hm__free_t *)m->tp_priv)->g);
    wake_all(m);
    return HM_EABORT;
}

static void abort_run(hm__machine_t *m, char *reason)
{
    stop(m, HM__END_SYSTEM, reason);
}

/* The interrupt flag was raised: the run stops at this node's next step. */
static int check_interrupt(hm_node_t *n)
{
    if (!hm__interrupted(n->m) || aborted(n->m))
        return HM_OK;
    return stop(n->m, HM__END_INTERRUPTED,
                hm__strdup_printf("interrupted at slot %lld of node %d (free-running clock)",
                                  (long long)n->now, n->id));
}

/* Set the calling node's logical clock; past clock.max_slots the run stops. */
static int advance(hm_node_t *n, int64_t slot)
{
    hm__machine_t *m = n->m;
    if (slot <= n->now)
        return HM_OK;
    if (slot >= m->opt.max_slots)
        return stop(m, HM__END_MAX_SLOTS,
                    hm__strdup_printf("clock.max_slots = %lld reached: the logical clock of "
                                      "node %d reached slot %lld (free-running clock)",
                                      (long long)m->opt.max_slots, n->id, (long long)slot));
    n->now = slot;
    return HM_OK;
}

/* ---- the port model, in wall-clock time ------------------------------------------ */

/* A packet is in flight from its send until its receiver reads it. Under the sender's
 * lock: may a copy of emission `em` leave on link lk now? all-port: link_capacity
 * packets in flight per link; shout: one emission in flight (its copies leave
 * together); one-port (full and half): one packet in flight. */
static int port_free(const hm__machine_t *m, const fnode_t *f, const flink_t *lk, uint32_t em)
{
    switch (m->info.ports) {
    case HM_PORTS_ALL_PORT:
        return lk->inflight < m->info.link_capacity;
    case HM_PORTS_SHOUT:
        return f->inflight == 0 || f->inflight_em == em;
    default:
        return f->inflight == 0;
    }
}

/* Under node id's lock: a receiver of one of its unread packets (on link l if that
 * one has some), for the deadlock report. */
static int busy_peer(const hm__machine_t *m, int id, size_t l)
{
    const hm__free_t *F = m->tp_priv;
    if (F->links[l].inflight > 0)
        return m->nbr[l];
    for (int p = 0; p < m->deg[id]; p++)
        if (F->links[(size_t)id * (size_t)m->maxdeg + (size_t)p].inflight > 0)
            return m->nbr[(size_t)id * (size_t)m->maxdeg + (size_t)p];
    return -1;
}

/* Sleep until the port lets copy c leave on link l, then count it in flight. */
static int acquire_port(hm_node_t *n, const hm__copy_t *c, size_t l)
{
    hm__machine_t *m = n->m;
    hm__free_t *F = m->tp_priv;
    fnode_t *me = &F->nodes[n->id];
    flink_t *lk = &F->links[l];
    int64_t w = lock_counted(me, &me->lock), t0 = 0;
    lk->lock_waits += w > 0;
    lk->lock_ns += w;
    int dead = 0;
    if (!port_free(m, me, lk, c->emission) && !aborted(m)) {
        me->port_waits++;
        lk->port_waits++;
        t0 = hm__now_ns();
        me->port_blocked = 1;
        me->wait_link = (int32_t)l;
        me->wait_em = c->emission;
        dead = block(m, n->id, FB_PORT, busy_peer(m, n->id, l), n->now);
        /* A receiver that reads one of our packets clears the flag (and counts us
         * running again) once the port lets this copy leave. */
        while (!dead && me->port_blocked && !aborted(m))
            cond_wait_in(me, &me->cv, &me->lock, FL_MAILBOX);
        hm__wd_run(n);
        int64_t d = hm__now_ns() - t0;
        me->port_ns += d;
        lk->port_ns += d;
    }
    if (dead || me->port_blocked || aborted(m)) {
        me->port_blocked = 0;
        unlock_counted(me, &me->lock);
        if (dead)
            wake_all(m);
        return HM_EABORT;
    }
    me->inflight++;
    me->inflight_em = c->emission;
    lk->inflight++;
    unlock_counted(me, &me->lock);
    return HM_OK;
}

/* The reader `self` has read copy c: its sender's port is free of it. */
static void release_port(hm__machine_t *m, fnode_t *self, const hm__copy_t *c, size_t l)
{
    hm__free_t *F = m->tp_priv;
    fnode_t *s = &F->nodes[c->src];
    lock_counted(self, &s->lock);
    s->inflight--;
    F->links[l].inflight--;
    if (s->port_blocked && port_free(m, s, &F->links[s->wait_link], s->wait_em)) {
        s->port_blocked = 0;
        unblock(m, self, c->src);
        pthread_cond_signal(&s->cv);
    }
    unlock_counted(self, &s->lock);
}

/* ---- sending ------------------------------------------------------------------ */

/* Under rf's lock, the link's mailbox full: sleep until its receiver reads from it.
 * Returns 0, or HM_EABORT with the lock released. */
static int wait_room(hm_node_t *n, hm__copy_t *c, size_t l)
{
    hm__machine_t *m = n->m;
    hm__free_t *F = m->tp_priv;
    fnode_t *me = &F->nodes[n->id], *rf = &F->nodes[c->dst];
    me->blocked_sends++;
    F->links[l].full_waits++;
    if (m->opt.record_events)
        hm__log_event(n, HM__EV_STALL, n->now, c->sport, c->dst, c->pkt.msg, c->pkt.value, 1, 0,
                      NULL);
    F->link_blocked[l] = 1;
    int dead = block(m, n->id, FB_SEND, c->dst, n->now);
    int64_t t0 = hm__now_ns();
    /* The receiver clears the flag (and counts us running again) when it reads
     * from this link: only this thread sends on it, so there is room then. */
    while (!dead && F->link_blocked[l] && !aborted(m))
        cond_wait_in(me, &me->cv, &rf->lock, FL_MAILBOX);
    hm__wd_run(n);
    int64_t d = hm__now_ns() - t0;
    me->full_ns += d;
    F->links[l].full_ns += d;
    if (dead || F->link_blocked[l]) {
        unlock_counted(me, &rf->lock);
        if (dead)
            wake_all(m);
        return HM_EABORT;
    }
    return HM_OK;
}

/* One copy into its receiver's mailbox, once the port lets it leave; sleeps while
 * the link's mailbox is full. Stamps the copy (and its send event, log[ev]) with the
 * wall clock of its entry into the mailbox. */
static int deliver(hm_node_t *n, hm__copy_t *c, size_t ev)
{
    hm__machine_t *m = n->m;
    hm__free_t *F = m->tp_priv;
    fnode_t *me = &F->nodes[n->id], *rf = &F->nodes[c->dst];
    hm_node_t *r = &m->nodes[c->dst];
    size_t l = (size_t)c->src * (size_t)m->maxdeg + (size_t)c->sport;
    flink_t *lk = &F->links[l];
    if (acquire_port(n, c, l) != HM_OK)
        return HM_EABORT;
    int64_t w = lock_counted(me, &rf->lock);
    lk->lock_waits += w > 0;
    lk->lock_ns += w;
    if (m->occ[l] >= m->opt.mailbox_capacity && !aborted(m) && wait_room(n, c, l) != HM_OK)
        return HM_EABORT;
    if (aborted(m)) {
        unlock_counted(me, &rf->lock);
        return HM_EABORT;
    }
    c->sent_ns = hm__now_ns();
    if (hm__inbox_push(&r->inbox, c) != 0) {
        unlock_counted(me, &rf->lock);
        n->failed = 1;
        return HM_ENOMEM;
    }
    if (++m->occ[l] > rf->max_depth)
        rf->max_depth = m->occ[l];
    if (rf->recv_blocked) {
        rf->recv_blocked = 0;
        unblock(m, me, c->dst);
        pthread_cond_signal(&rf->cv);
    } else if (rf->recv_timed) {
        rf->recv_timed = 0; /* hm_wait_packet_ns: not counted as blocked */
        pthread_cond_signal(&rf->cv);
    }
    unlock_counted(me, &rf->lock);
    if (ev < n->log.n && n->log.v[ev].flow == c->flow)
        n->log.v[ev].ns = c->sent_ns;
    me->sends++;
    me->bytes += c->pkt.len;
    lk->packets++;
    lk->bytes += c->pkt.len;
    if (c->sent_slot > me->last_send)
        me->last_send = c->sent_slot;
    return HM_OK;
}

/* Deliver n's outbox now (may block: port model, backpressure). Its send events are
 * log[first...] (SIZE_MAX: none). */
static int post(hm_node_t *n, size_t first)
{
    int rc = check_interrupt(n);
    size_t k = 0;
    for (; k < n->outbox.n && rc == HM_OK; k++) {
        rc = deliver(n, &n->outbox.v[k], first == SIZE_MAX ? SIZE_MAX : first + k);
        if (rc != HM_OK)
            hm__blob_release(n->outbox.v[k].blob);
    }
    for (; k < n->outbox.n; k++) /* not sent: the run stops */
        hm__blob_release(n->outbox.v[k].blob);
    n->outbox.n = 0;
    return rc;
}

/* ---- receiving ---------------------------------------------------------------- */

static int emit(hm_node_t *n, const hm__ports_t *ports, const hm_packet_t *p)
{
    size_t first = n->m->opt.record_events ? n->log.n : SIZE_MAX;
    int rc = hm__emit_copies(n, ports, p);
    return rc == HM_OK ? post(n, first) : rc;
}

static int pending(const hm_node_t *n)
{
    hm__free_t *F = n->m->tp_priv;
    fnode_t *f = &F->nodes[n->id];
    lock_counted(f, &f->lock);
    int k = (int)n->inbox.n;
    unlock_counted(f, &f->lock);
    return k;
}

/* The latency of a packet `f` reads: the wake-up, if it is the first packet after a
 * blocked receive, else the time it waited in the mailbox for the reader. */
static void split_latency(fnode_t *f, int64_t lat)
{
    if (f->woke) {
        f->woken++;
        f->woken_ns += lat;
        f->woke = 0;
    } else {
        f->queued++;
        f->queued_ns += lat;
    }
}

static int recv(hm_node_t *n, hm_packet_t *out)
{
    hm__machine_t *m = n->m;
    hm__free_t *F = m->tp_priv;
    fnode_t *f = &F->nodes[n->id];
    hm__blob_release(n->held);
    n->held = NULL;
    lock_counted(f, &f->lock);
    if (n->inbox.n == 0) {
        unlock_counted(f, &f->lock);
        return HM_ENOENT;
    }
    hm__copy_t c = hm__inbox_take(&n->inbox);
    int64_t t = hm__now_ns(); /* before the port is released: no overlap in the log */
    size_t l = (size_t)c.src * (size_t)m->maxdeg + (size_t)c.sport;
    int circuit = m->info.circuit; /* no mailbox bound, and the circuit was given back */
    if (!circuit)
        m->occ[l]--;
    if (!circuit && F->link_blocked[l]) {
        /* Its sender sleeps on this full link: there is room now. */
        F->link_blocked[l] = 0;
        unblock(m, f, c.src);
        pthread_cond_signal(&F->nodes[c.src].cv);
    }
    unlock_counted(f, &f->lock);
    if (!circuit)
        release_port(m, f, &c, l);
    flink_t *lk = &F->links[l];
    /* A circuit's first link carries messages to many receivers: its latencies are
     * kept under its sender's lock. */
    if (circuit)
        lock_counted(f, &F->nodes[c.src].lock);
    if (HM__PUSH(lk->lat, t - c.sent_ns) != 0)
        n->failed = 1;
    lk->lat_sum += t - c.sent_ns;
    if (circuit)
        unlock_counted(f, &F->nodes[c.src].lock);
    split_latency(f, t - c.sent_ns);

    /* Lamport: read from max(now, t + D), received in the slot before; D = 1 for a
     * packet, a circuit's uncontended a*m+b. */
    int64_t at = n->now > c.sent_slot + c.dur ? n->now : c.sent_slot + c.dur;
    c.pkt.from = c.src;
    c.pkt.port = c.dport;
    c.pkt.sent_slot = c.sent_slot;
    c.pkt.recv_slot = at - 1;
    if (m->opt.record_events) {
        hm__log_event(n, HM__EV_RECV, at - 1, c.dport, c.src, c.pkt.msg, c.pkt.value, c.dur, c.flow,
                      NULL);
        /* Its payload's first words for the player (out/html.c), as the slotted judge
         * records them. */
        if (n->log.n > 0 && n->log.v[n->log.n - 1].kind == HM__EV_RECV) {
            n->log.v[n->log.n - 1].ns = t;
            if (m->opt.record_page)
                hm__event_payload(&n->log.v[n->log.n - 1], &c.pkt);
        }
    }
    n->held = c.blob;
    if (out)
        *out = c.pkt;
    /* Past max_slots the run stops; the packet is still handed out, and the node's
     * next wait returns HM_EABORT. */
    (void)advance(n, at);
    return HM_OK;
}
static int wait_packet(hm_node_t *n, hm_packet_t *out, int64_t deadline)
{
    hm__machine_t *m = n->m;
    hm__free_t *F = m->tp_priv;
    fnode_t *f = &F->nodes[n->id];
    if (aborted(m) || check_interrupt(n) != HM_OK)
        return HM_EABORT;
    lock_counted(f, &f->lock);
    if (n->inbox.n > 0) {
        unlock_counted(f, &f->lock);
        return out ? recv(n, out) : HM_OK;
    }
    if (deadline >= 0) {
        /* No global time to wait for: jump to the deadline. */
        unlock_counted(f, &f->lock);
        if (deadline <= n->now)
            return HM_ENOENT;
        hm__blob_release(n->held);
        n->held = NULL;
        return advance(n, deadline) == HM_OK ? HM_ENOENT : HM_EABORT;
    }
    hm__blob_release(n->held);
    n->held = NULL;
    f->blocked_receives++;
    f->recv_blocked = 1;
    int dead = block(m, n->id, FB_RECV, -1, n->now);
    int64_t t0 = hm__now_ns();
    while (!dead && f->recv_blocked && !aborted(m))
        cond_wait_in(f, &f->cv, &f->lock, FL_MAILBOX);
    f->recv_ns += hm__now_ns() - t0;
    int woken = !f->recv_blocked;
    f->woke = woken;
    unlock_counted(f, &f->lock);
    if (dead)
        wake_all(m);
    if (dead || !woken || aborted(m))
        return HM_EABORT;
    return out ? recv(n, out) : HM_OK;
}

/* hm_wait_packet_ns: a packet, or none by the CLOCK_MONOTONIC time `deadline` (ns). The
 * node is not blocked for the deadlock count (its deadline wakes it): a sender that finds
 * recv_timed set only signals. */
static int wait_packet_ns(hm_node_t *n, hm_packet_t *out, int64_t deadline)
{
    hm__machine_t *m = n->m;
    hm__free_t *F = m->tp_priv;
    fnode_t *f = &F->nodes[n->id];
    if (aborted(m) || check_interrupt(n) != HM_OK)
        return HM_EABORT;
    hm__blob_release(n->held);
    n->held = NULL;
    struct timespec at = {.tv_sec = (time_t)(deadline / 1000000000),
                          .tv_nsec = (long)(deadline % 1000000000)};
    lock_counted(f, &f->lock);
    int64_t t0 = hm__now_ns();
    int slept = f->recv_timed = n->inbox.n == 0 && deadline > t0, timed_out = 0;
    while (f->recv_timed && !aborted(m))
        if (pthread_cond_timedwait(&f->cv, &f->lock, &at) == ETIMEDOUT)
            f->recv_timed = 0, timed_out = 1;
    f->recv_ns += hm__now_ns() - t0;
    int got = n->inbox.n > 0;
    if (slept && got && !timed_out) { /* a packet woke it: a blocked receive (latency_split) */
        f->blocked_receives++;
        f->woke = 1;
    }
    unlock_counted(f, &f->lock);
    if (aborted(m))
        return HM_EABORT;
    if (!got)
        return HM_ENOENT;
    return out ? recv(n, out) : HM_OK;
}

static int wait_until(hm_node_t *n, int64_t slot)
{
    if (aborted(n->m) || check_interrupt(n) != HM_OK)
        return HM_EABORT;
    hm__blob_release(n->held);
    n->held = NULL;
    return advance(n, slot);
}

static void finish(hm_node_t *n)
{
    hm__machine_t *m = n->m;
    hm__free_t *F = m->tp_priv;
    fnode_t *f = &F->nodes[n->id];
    hm__free_thread_figures(f);
    lock_in(f, &F->g, FL_GLOBAL);
    F->nodes[n->id].state = FB_DONE;
    F->done++;
    int dead = --F->running == 0 && F->done < m->info.nodes && !aborted(m);
    if (dead)
        hm__stop(m, HM__END_DEADLOCK, deadlock_report(m));
    unlock_in(f, &F->g, FL_GLOBAL);
    if (dead)
        wake_all(m);
}

/* ---- circuit routing ------------------------------------------------------------ */

/* Under circuit routing (Seidel's model, engine/circuit.c) a message goes to any node
 * and holds every link of its route and its receiver's receive port while it
 * travels: here, while its bytes are copied into the receiver's mailbox. Each
 * resource is a counting lock (link_capacity circuits a link, one a receive port);
 * a sender takes those of its route in one global order (its links by number, then
 * the receive port), so no two senders can wait on each other in a cycle, and it
 * holds none of them while it waits for anything else: the circuits never deadlock
 * among themselves. The transmit port is the sender's own thread: one message at a
 * time. */

static int res_create(hm__machine_t *m, hm__free_t *F)
{
    size_t links = (size_t)m->info.nodes * (size_t)m->maxdeg, n = links + (size_t)m->info.nodes;
    F->maxpath = hm__route_max(&m->info);
    F->res = aligned_alloc(64, n * sizeof *F->res);
    F->paths = malloc((size_t)m->info.nodes * (F->maxpath ? F->maxpath : 1) * sizeof *F->paths);
    if (!F->res || !F->paths)
        return -1;
    for (size_t i = 0; i < n; i++) {
        fres_t *r = &F->res[i];
        r->load = r->waiters = 0;
        r->cap = i < links ? m->info.link_capacity : 1;
        if (pthread_mutex_init(&r->mu, NULL) != 0 || pthread_cond_init(&r->cv, NULL) != 0)
            return -1; /* leaves the created ones to the OS: the run does not start */
        F->nres = i + 1;
    }
    return 0;
}

static void res_destroy(hm__free_t *F)
{
    for (size_t i = 0; i < F->nres; i++) {
        pthread_mutex_destroy(&F->res[i].mu);
        pthread_cond_destroy(&F->res[i].cv);
    }
    free(F->res);
    free(F->paths);
}

/* r's lock, its waits also in the node's lock_waits and lock_wait_ns. */
static void lock_res(fnode_t *me, fres_t *r)
{
    int64_t lw = lock_in(me, &r->mu, FL_CIRCUIT);
    me->lock_waits += lw > 0;
    me->lock_ns += lw;
}

/* One unit of r, waiting for it if none is free; returns the ns waited (0: none). */
static int64_t res_take(fnode_t *me, fres_t *r)
{
    int64_t w = 0;
    lock_res(me, r);
    if (r->load >= r->cap) {
        int64_t t0 = hm__now_ns();
        r->waiters++;
        while (r->load >= r->cap)
            cond_wait_in(me, &r->cv, &r->mu, FL_CIRCUIT);
        r->waiters--;
        w = hm__now_ns() - t0;
        w = w > 0 ? w : 1;
    }
    r->load++;
    unlock_in(me, &r->mu, FL_CIRCUIT);
    return w;
}

static void res_give(fnode_t *me, fres_t *r)
{
    lock_res(me, r);
    r->load--;
    if (r->waiters > 0)
        pthread_cond_signal(&r->cv);
    unlock_in(me, &r->mu, FL_CIRCUIT);
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* Holding its circuit: the message's bytes into dest's mailbox, its send event
 * stamped with the wall clock of that entry. Figures go to link l0, the first of its
 * route. */
static int circ_post(hm_node_t *n, int dest, const hm_packet_t *p, size_t l0)
{
    hm__machine_t *m = n->m;
    hm__free_t *F = m->tp_priv;
    fnode_t *me = &F->nodes[n->id], *rf = &F->nodes[dest];
    flink_t *lk = &F->links[l0];
    hm__copy_t c;
    if (hm__circuit_copy(n, dest, p, &c) != HM_OK)
        return HM_ENOMEM;
    c.sport = (int32_t)(l0 % (size_t)m->maxdeg); /* for the figures only */
    c.dur = hm__circuit_slots(&m->info, 1, p->len);
    size_t ev = m->opt.record_events ? n->log.n : SIZE_MAX;
    if (m->opt.record_events)
        hm__log_event(n, HM__EV_SEND, n->now, -1, dest, p->msg, p->value, c.dur, c.flow, NULL);
    int64_t w = lock_counted(me, &rf->lock);
    lk->lock_waits += w > 0;
    lk->lock_ns += w;
    c.sent_ns = hm__now_ns();
    if (hm__inbox_push(&m->nodes[dest].inbox, &c) != 0) {
        unlock_counted(me, &rf->lock);
        hm__blob_release(c.blob);
        n->failed = 1;
        return HM_ENOMEM;
    }
    if ((int64_t)m->nodes[dest].inbox.n > rf->max_depth)
        rf->max_depth = (int64_t)m->nodes[dest].inbox.n;
    if (rf->recv_blocked) {
        rf->recv_blocked = 0;
        unblock(m, me, dest);
        pthread_cond_signal(&rf->cv);
    } else if (rf->recv_timed) {
        rf->recv_timed = 0;
        pthread_cond_signal(&rf->cv);
    }
    unlock_counted(me, &rf->lock);
    if (ev < n->log.n && n->log.v[ev].flow == c.flow)
        n->log.v[ev].ns = c.sent_ns;
    me->sends++;
    me->bytes += p->len;
    lk->packets++;
    lk->bytes += p->len;
    if (c.sent_slot + c.dur - 1 > me->last_send)
        me->last_send = c.sent_slot + c.dur - 1; /* its last slot, received in */
    return HM_OK;
}

/* hm_send_to under circuit routing: take the circuit (the time waited for it is the
 * message's port wait), copy the message in, give the circuit back. */
static int circ_send_to(hm_node_t *n, int dest, const hm_packet_t *p)
{
    hm__machine_t *m = n->m;
    hm__free_t *F = m->tp_priv;
    fnode_t *me = &F->nodes[n->id];
    if (check_interrupt(n) != HM_OK)
        return HM_EABORT;
    int32_t *path = F->paths + (size_t)n->id * F->maxpath;
    hm__links_t links = {m->maxdeg, m->deg, m->nbr, m->rport};
    size_t len = hm__route(&m->info, &links, n->id, dest, path);
    size_t l0 = (size_t)path[0];
    if (len > 1)
        qsort(path, len, sizeof *path, cmp_i32);
    fres_t *rport = &F->res[(size_t)m->info.nodes * (size_t)m->maxdeg + (size_t)dest];
    int64_t waited = 0;
    for (size_t j = 0; j < len; j++)
        waited += res_take(me, &F->res[path[j]]);
    waited += res_take(me, rport);
    if (waited > 0) {
        me->port_waits++;
        me->port_ns += waited;
        F->links[l0].port_waits++;
        F->links[l0].port_ns += waited;
    }
    /* The transfer, in wall time: from the circuit taken to just before it is given
     * back (its send event's start_ns and end_ns, doc/events.md). */
    int64_t start = hm__now_ns();
    size_t ev = m->opt.record_events ? n->log.n : SIZE_MAX;
    int rc = aborted(m) ? HM_EABORT : circ_post(n, dest, p, l0);
    if (rc == HM_OK && ev < n->log.n) {
        n->log.v[ev].start_ns = start;
        n->log.v[ev].end_ns = hm__now_ns();
    }
    res_give(me, rport);
    for (size_t j = len; j-- > 0;)
        res_give(me, &F->res[path[j]]);
    return rc;
}

/* hm_send and hm_shout: one message per neighbour. */
static int circ_emit(hm_node_t *n, const hm__ports_t *ports, const hm_packet_t *p)
{
    for (int port = 0; port < hm_degree(n); port++)
        if (hm__port_in(ports, port) && hm_neighbor(n, port) >= 0) {
            int rc = circ_send_to(n, hm_neighbor(n, port), p);
            if (rc != HM_OK)
                return rc;
        }
    return HM_OK;
}

/* The rows of the two tables below. */
#define FREE_CLOCK                                                                                 \
    .name = "the free-running clock", .create = create, .destroy = destroy, .pending = pending,    \
    .recv = recv, .wait_packet = wait_packet, .wait_until = wait_until, .finish = finish,          \
    .wait_packet_ns = wait_packet_ns, .abort = abort_run, .collect = hm__free_collect,             \
    .summary = hm__free_summary, .summary_key = "free"

const hm__transport_t hm__transport_free = {
    FREE_CLOCK,
    .emit = emit,
    .send_to = hm__send_to_neighbour,
};

/* Under circuit routing: circuits instead of packets (above). */
const hm__transport_t hm__transport_free_circuit = {
    FREE_CLOCK,
    .emit = circ_emit,
    .send_to = circ_send_to,
};
