/*
 * free.c — the free-running clock (clock.mode "free", README "Slot semantics": "wall-clock
 * measurements belong in the summary's wall_seconds and in the free-running mode").
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
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hm_internal.h"

typedef struct hm__free_s hm__free_t;
typedef struct fres_s fres_t;
static int res_create(hm__machine_t *m, hm__free_t *F);
static void res_destroy(hm__free_t *F);

enum { FB_NONE, FB_RECV, FB_SEND, FB_PORT, FB_DONE };

/* One directed link (src * maxdeg + sport). */
typedef struct flink_s {
    /* The sender's thread: */
    int64_t packets, bytes;
    int64_t port_waits, port_ns; /* asleep until the port was free for this link */
    int64_t full_waits, full_ns; /* asleep on this link's full mailbox */
    int64_t lock_waits, lock_ns; /* the receiver's mailbox lock found taken */
    /* Under the sender's lock: its packets on this link not yet read. */
    int32_t inflight;
    /* The receiver's thread: send -> receive latency of every packet read, in ns. */
    hm__int64vec_t lat;
    int64_t lat_sum;
} flink_t;

typedef struct fnode_s {
    pthread_mutex_t lock; /* this node's mailbox: its inbox, the occupancy of its in-links,
                             and its own port (packets in flight) */
    pthread_cond_t cv;    /* only this node's thread waits on it */
    int recv_blocked;     /* under lock: the node sleeps until a packet comes */
    int port_blocked;     /* under lock: the node sleeps until its port is free */
    int32_t inflight;     /* under lock: its packets sent and not yet read */
    uint32_t inflight_em; /* under lock: the emission the last of them belongs to */
    int32_t wait_link;    /* under lock, port_blocked: the link it waits to send on */
    uint32_t wait_em;     /* and the emission */
    int64_t max_depth;    /* under lock: most unread copies on one in-link */
    /* The owner thread's own figures. */
    int64_t lock_waits, lock_ns; /* mailbox locks found taken (trylock failed), time waited */
    int64_t blocked_sends, blocked_receives, port_waits;
    int64_t full_ns, recv_ns, port_ns; /* wall time asleep, by cause */
    int64_t sends, bytes;              /* copies delivered to a mailbox, their bytes */
    int64_t last_send;                 /* largest logical slot of a send (a circuit: its
                                          last slot), -1 */
    /* Under g: what the node waits for, for the deadlock report. */
    int state, peer;
    int64_t slot;
} __attribute__((aligned(64))) fnode_t;

struct hm__free_s {
    fnode_t *nodes;
    flink_t *links;
    unsigned char *link_blocked; /* per link src*maxdeg+sport, under the receiver's lock */
    pthread_mutex_t g;
    int running, done; /* under g */
    /* After the run (collect): every latency, sorted. */
    hm__int64vec_t all_lat;
    /* Circuit routing (below): a counting lock per directed link, then one per node
     * (its receive port); each node's route. */
    fres_t *res;
    size_t nres, maxpath;
    int32_t *paths;
};

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
    for (int i = 0; i < n; i++) {
        fnode_t *f = &F->nodes[i];
        f->last_send = -1;
        if (pthread_mutex_init(&f->lock, NULL) != 0 || pthread_cond_init(&f->cv, NULL) != 0) {
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

/* Take a mailbox lock, counting the times another thread held it and the time waited
 * for it; returns that time (0: it was free). */
static int64_t lock_counted(fnode_t *self, pthread_mutex_t *mx)
{
    if (pthread_mutex_trylock(mx) == 0)
        return 0;
    int64_t t0 = hm__now_ns();
    pthread_mutex_lock(mx);
    int64_t w = hm__now_ns() - t0;
    self->lock_waits++;
    self->lock_ns += w;
    return w > 0 ? w : 1;
}

static int aborted(const hm__machine_t *m)
{
    return hm__aborted(m);
}

static int blocked_wait(const void *ctx, int i, char *buf, size_t len)
{
    const hm__machine_t *m = ctx;
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

/* Who waits on whom, and the node's refused calls (README "Refused calls"). */
static int blocked_line(const void *ctx, int i, char *buf, size_t len)
{
    const hm__machine_t *m = ctx;
    if (!blocked_wait(ctx, i, buf, len))
        return 0;
    size_t used = strlen(buf);
    hm__refused_note(&m->nodes[i], buf + used, len - used);
    return 1;
}
/* Under g: who waits on whom. */
static char *deadlock_report(hm__machine_t *m)
{
    return hm__blocked_report("deadlock (free-running clock): every node that has not returned "
                              "is blocked",
                              m->info.nodes, blocked_line, m);
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
    pthread_mutex_lock(&F->g);
    f->state = state;
    f->peer = peer;
    f->slot = slot;
    int dead = --F->running == 0 && !aborted(m);
    if (dead)
        hm__stop(m, HM__END_DEADLOCK, deadlock_report(m));
    pthread_mutex_unlock(&F->g);
    return dead;
}

/* Node `id` was woken by the caller (holding the lock `id` waits with). */
static void unblock(hm__machine_t *m, int id)
{
    hm__free_t *F = m->tp_priv;
    pthread_mutex_lock(&F->g);
    F->nodes[id].state = FB_NONE;
    F->running++;
    pthread_mutex_unlock(&F->g);
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
            pthread_cond_wait(&me->cv, &me->lock);
        hm__wd_run(n);
        int64_t d = hm__now_ns() - t0;
        me->port_ns += d;
        lk->port_ns += d;
    }
    if (dead || me->port_blocked || aborted(m)) {
        me->port_blocked = 0;
        pthread_mutex_unlock(&me->lock);
        if (dead)
            wake_all(m);
        return HM_EABORT;
    }
    me->inflight++;
    me->inflight_em = c->emission;
    lk->inflight++;
    pthread_mutex_unlock(&me->lock);
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
        unblock(m, c->src);
        pthread_cond_signal(&s->cv);
    }
    pthread_mutex_unlock(&s->lock);
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
        pthread_cond_wait(&me->cv, &rf->lock);
    hm__wd_run(n);
    int64_t d = hm__now_ns() - t0;
    me->full_ns += d;
    F->links[l].full_ns += d;
    if (dead || F->link_blocked[l]) {
        pthread_mutex_unlock(&rf->lock);
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
        pthread_mutex_unlock(&rf->lock);
        return HM_EABORT;
    }
    c->sent_ns = hm__now_ns();
    if (hm__inbox_push(&r->inbox, c) != 0) {
        pthread_mutex_unlock(&rf->lock);
        n->failed = 1;
        return HM_ENOMEM;
    }
    if (++m->occ[l] > rf->max_depth)
        rf->max_depth = m->occ[l];
    if (rf->recv_blocked) {
        rf->recv_blocked = 0;
        unblock(m, c->dst);
        pthread_cond_signal(&rf->cv);
    }
    pthread_mutex_unlock(&rf->lock);
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
    pthread_mutex_unlock(&f->lock);
    return k;
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
        pthread_mutex_unlock(&f->lock);
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
        unblock(m, c.src);
        pthread_cond_signal(&F->nodes[c.src].cv);
    }
    pthread_mutex_unlock(&f->lock);
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
        pthread_mutex_unlock(&F->nodes[c.src].lock);

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
        if (n->log.n > 0)
            n->log.v[n->log.n - 1].ns = t;
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
        pthread_mutex_unlock(&f->lock);
        return out ? recv(n, out) : HM_OK;
    }
    if (deadline >= 0) {
        /* No global time to wait for: jump to the deadline. */
        pthread_mutex_unlock(&f->lock);
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
        pthread_cond_wait(&f->cv, &f->lock);
    f->recv_ns += hm__now_ns() - t0;
    int woken = !f->recv_blocked;
    pthread_mutex_unlock(&f->lock);
    if (dead)
        wake_all(m);
    if (dead || !woken || aborted(m))
        return HM_EABORT;
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
    pthread_mutex_lock(&F->g);
    F->nodes[n->id].state = FB_DONE;
    F->done++;
    int dead = --F->running == 0 && F->done < m->info.nodes && !aborted(m);
    if (dead)
        hm__stop(m, HM__END_DEADLOCK, deadlock_report(m));
    pthread_mutex_unlock(&F->g);
    if (dead)
        wake_all(m);
}

/* ---- circuit routing ------------------------------------------------------------ */

/* Under circuit routing (Seidel's model, ports/circuit.c) a message goes to any node
 * and holds every link of its route and its receiver's receive port while it
 * travels: here, while its bytes are copied into the receiver's mailbox. Each
 * resource is a counting lock (link_capacity circuits a link, one a receive port);
 * a sender takes those of its route in one global order (its links by number, then
 * the receive port), so no two senders can wait on each other in a cycle, and it
 * holds none of them while it waits for anything else: the circuits never deadlock
 * among themselves. The transmit port is the sender's own thread: one message at a
 * time. */
struct fres_s {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int32_t load, cap, waiters; /* under mu */
} __attribute__((aligned(64)));

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

/* One unit of r, waiting for it if none is free; returns the ns waited (0: none). */
static int64_t res_take(fnode_t *me, fres_t *r)
{
    lock_counted(me, &r->mu);
    int64_t w = 0;
    if (r->load >= r->cap) {
        int64_t t0 = hm__now_ns();
        r->waiters++;
        while (r->load >= r->cap)
            pthread_cond_wait(&r->cv, &r->mu);
        r->waiters--;
        w = hm__now_ns() - t0;
        w = w > 0 ? w : 1;
    }
    r->load++;
    pthread_mutex_unlock(&r->mu);
    return w;
}

static void res_give(fres_t *r)
{
    pthread_mutex_lock(&r->mu);
    r->load--;
    if (r->waiters > 0)
        pthread_cond_signal(&r->cv);
    pthread_mutex_unlock(&r->mu);
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
        pthread_mutex_unlock(&rf->lock);
        hm__blob_release(c.blob);
        n->failed = 1;
        return HM_ENOMEM;
    }
    if ((int64_t)m->nodes[dest].inbox.n > rf->max_depth)
        rf->max_depth = (int64_t)m->nodes[dest].inbox.n;
    if (rf->recv_blocked) {
        rf->recv_blocked = 0;
        unblock(m, dest);
        pthread_cond_signal(&rf->cv);
    }
    pthread_mutex_unlock(&rf->lock);
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
    res_give(rport);
    for (size_t j = len; j-- > 0;)
        res_give(&F->res[path[j]]);
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

/* ---- after the run -------------------------------------------------------------- */

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Nearest rank: the smallest sample with at least q percent of the samples at or
 * below it. */
static int64_t rank(const int64_t *v, size_t n, int q)
{
    size_t k = ((size_t)q * n + 99) / 100;
    return v[k ? k - 1 : 0];
}

/* {min, p50, p99, max} of n sorted samples, or null. */
static json_t *latency_json(const int64_t *v, size_t n)
{
    if (n == 0)
        return json_null();
    return json_pack("{s:I, s:I, s:I, s:I}", "min", (json_int_t)v[0], "p50",
                     (json_int_t)rank(v, n, 50), "p99", (json_int_t)rank(v, n, 99), "max",
                     (json_int_t)v[n - 1]);
}

static void collect(hm__machine_t *m)
{
    hm__free_t *F = m->tp_priv;
    hm__stats_t *st = &m->stats;
    int64_t top = -1;
    size_t links = (size_t)m->info.nodes * (size_t)m->maxdeg, all = 0;
    for (size_t l = 0; l < links; l++) {
        flink_t *lk = &F->links[l];
        if (lk->lat.n) /* qsort's base may not be NULL, even for 0 elements */
            qsort(lk->lat.v, lk->lat.n, sizeof *lk->lat.v, cmp_i64);
        all += lk->lat.n;
    }
    F->all_lat.v = malloc((all ? all : 1) * sizeof *F->all_lat.v);
    if (F->all_lat.v) {
        for (size_t l = 0; l < links; l++)
            for (size_t k = 0; k < F->links[l].lat.n; k++)
                F->all_lat.v[F->all_lat.n++] = F->links[l].lat.v[k];
        qsort(F->all_lat.v, F->all_lat.n, sizeof *F->all_lat.v, cmp_i64);
    }
    for (int i = 0; i < m->info.nodes; i++) {
        fnode_t *f = &F->nodes[i];
        st->transmissions += f->sends;
        if (f->last_send > st->last_activity)
            st->last_activity = f->last_send;
        if (f->max_depth > st->max_mailbox_depth)
            st->max_mailbox_depth = f->max_depth;
        if (m->nodes[i].now > top)
            top = m->nodes[i].now;
        st->stalls += f->blocked_sends;
    }
    st->slots_run = top + 1; /* the highest logical slot a node reached, + 1 */
}

/* The figures one node or link has, added into t (a node's own fields, or a link's:
 * lock waits for links count the receiver's mailbox lock only). */
typedef struct figs_s {
    int64_t packets, bytes, port_waits, port_ns, full_waits, full_ns, lock_waits, lock_ns;
    int64_t recv_waits, recv_ns;
} figs_t;

static json_t *figs_json(const figs_t *g, json_t *lat)
{
    return json_pack("{s:I, s:I, s:o, s:I, s:I, s:I, s:I, s:I, s:I}", "packets",
                     (json_int_t)g->packets, "bytes", (json_int_t)g->bytes, "latency_ns", lat,
                     "port_waits", (json_int_t)g->port_waits, "port_wait_ns",
                     (json_int_t)g->port_ns, "mailbox_full_waits", (json_int_t)g->full_waits,
                     "mailbox_full_ns", (json_int_t)g->full_ns, "lock_waits",
                     (json_int_t)g->lock_waits, "lock_wait_ns", (json_int_t)g->lock_ns);
}

static figs_t link_figs(const flink_t *lk)
{
    return (figs_t){.packets = lk->packets,
                    .bytes = lk->bytes,
                    .port_waits = lk->port_waits,
                    .port_ns = lk->port_ns,
                    .full_waits = lk->full_waits,
                    .full_ns = lk->full_ns,
                    .lock_waits = lk->lock_waits,
                    .lock_ns = lk->lock_ns};
}

static figs_t node_figs(const fnode_t *f)
{
    return (figs_t){f->sends,   f->bytes,      f->port_waits, f->port_ns,          f->blocked_sends,
                    f->full_ns, f->lock_waits, f->lock_ns,    f->blocked_receives, f->recv_ns};
}

/* One node: its figures, and the latency of the packets it sent. */
static json_t *node_json(const hm__machine_t *m, int i, figs_t *tot)
{
    const hm__free_t *F = m->tp_priv;
    figs_t g = node_figs(&F->nodes[i]);
    size_t n = 0, base = (size_t)i * (size_t)m->maxdeg;
    for (int p = 0; p < m->maxdeg; p++)
        n += F->links[base + (size_t)p].lat.n;
    int64_t *v = malloc((n ? n : 1) * sizeof *v);
    if (!v)
        return NULL;
    n = 0;
    for (int p = 0; p < m->maxdeg; p++)
        for (size_t k = 0; k < F->links[base + (size_t)p].lat.n; k++)
            v[n++] = F->links[base + (size_t)p].lat.v[k];
    if (n > 1)
        qsort(v, n, sizeof *v, cmp_i64);
    json_t *o = figs_json(&g, latency_json(v, n));
    free(v);
    if (o && json_object_set_new(o, "node", json_integer(i)) == 0 &&
        json_object_set_new(o, "blocked_receives", json_integer(g.recv_waits)) == 0 &&
        json_object_set_new(o, "blocked_receive_ns", json_integer(g.recv_ns)) == 0) {
        figs_t *t = tot;
        t->packets += g.packets, t->bytes += g.bytes, t->port_waits += g.port_waits;
        t->port_ns += g.port_ns, t->full_waits += g.full_waits, t->full_ns += g.full_ns;
        t->lock_waits += g.lock_waits, t->lock_ns += g.lock_ns, t->recv_waits += g.recv_waits;
        t->recv_ns += g.recv_ns;
        return o;
    }
    json_decref(o);
    return NULL;
}

/* A link's contention: the time senders waited to put packets on it (port, full
 * mailbox, the receiver's lock) and the time its packets waited to be read. */
static int64_t contention_ns(const flink_t *lk)
{
    return lk->port_ns + lk->full_ns + lk->lock_ns + lk->lat_sum;
}

static json_t *link_json(const hm__machine_t *m, size_t l)
{
    const flink_t *lk = &((const hm__free_t *)m->tp_priv)->links[l];
    figs_t g = link_figs(lk);
    json_t *o = figs_json(&g, latency_json(lk->lat.v, lk->lat.n));
    json_t *head = json_pack("{s:i, s:i, s:i, s:I}", "from", (int)(l / (size_t)m->maxdeg), "port",
                             (int)(l % (size_t)m->maxdeg), "to", (int)m->nbr[l], "contention_ns",
                             (json_int_t)contention_ns(lk));
    if (!o || !head || json_object_update(head, o) != 0) {
        json_decref(o);
        json_decref(head);
        return NULL;
    }
    json_decref(o);
    return head;
}

/* The 5 links of most contention (ties: the lower link number), as an array. */
static json_t *hottest(const hm__machine_t *m)
{
    const hm__free_t *F = m->tp_priv;
    size_t links = (size_t)m->info.nodes * (size_t)m->maxdeg, top[5];
    int k = 0;
    for (size_t l = 0; l < links; l++) {
        if (m->nbr[l] < 0 || (F->links[l].packets == 0 && contention_ns(&F->links[l]) == 0))
            continue;
        int j = k < 5 ? k++ : 5;
        while (j > 0 && contention_ns(&F->links[top[j - 1]]) < contention_ns(&F->links[l])) {
            if (j < 5)
                top[j] = top[j - 1];
            j--;
        }
        if (j < 5)
            top[j] = l;
    }
    json_t *a = json_array();
    for (int j = 0; a && j < k; j++)
        if (json_array_append_new(a, link_json(m, top[j])) != 0) {
            json_decref(a);
            return NULL;
        }
    return a;
}

/* Every link that carried a packet or made a sender wait, and every node. */
static int per_link_node(const hm__machine_t *m, json_t *links, json_t *nodes, figs_t *tot)
{
    const hm__free_t *F = m->tp_priv;
    size_t nl = (size_t)m->info.nodes * (size_t)m->maxdeg;
    for (size_t l = 0; l < nl; l++) {
        const flink_t *lk = &F->links[l];
        if (m->nbr[l] >= 0 && (lk->packets || contention_ns(lk)) &&
            json_array_append_new(links, link_json(m, l)) != 0)
            return -1;
    }
    for (int i = 0; i < m->info.nodes; i++)
        if (json_array_append_new(nodes, node_json(m, i, tot)) != 0)
            return -1;
    return 0;
}

static json_t *summary(const hm__machine_t *m)
{
    const hm__free_t *F = m->tp_priv;
    json_t *links = json_array(), *nodes = json_array();
    figs_t t = {0};
    if (!links || !nodes || per_link_node(m, links, nodes, &t) != 0) {
        json_decref(links);
        json_decref(nodes);
        return NULL;
    }
    json_t *tot = figs_json(&t, latency_json(F->all_lat.v, F->all_lat.n));
    if (tot) {
        json_object_set_new(tot, "blocked_receives", json_integer(t.recv_waits));
        json_object_set_new(tot, "blocked_receive_ns", json_integer(t.recv_ns));
    }
    int64_t max_blocked = 0;
    for (int i = 0; i < m->info.nodes; i++) {
        const fnode_t *f = &F->nodes[i];
        if (f->full_ns + f->recv_ns + f->port_ns > max_blocked)
            max_blocked = f->full_ns + f->recv_ns + f->port_ns;
    }
    return json_pack("{s:b, s:b, s:I, s:I, s:I, s:f, s:f, s:o, s:o, s:o, s:o, s:o}",
                     "port_model_enforced", 1, "deterministic", 0, "lock_waits",
                     (json_int_t)t.lock_waits, "blocked_sends", (json_int_t)t.full_waits,
                     "blocked_receives", (json_int_t)t.recv_waits, "blocked_seconds",
                     (double)(t.full_ns + t.recv_ns + t.port_ns) * 1e-9, "max_node_blocked_seconds",
                     (double)max_blocked * 1e-9, "host", hm__host_json(m), "totals", tot,
                     "hottest_links", hottest(m), "links", links, "nodes", nodes);
}

const hm__transport_t hm__transport_free = {
    .name = "the free-running clock",
    .create = create,
    .destroy = destroy,
    .emit = emit,
    .send_to = hm__send_to_neighbour,
    .pending = pending,
    .recv = recv,
    .wait_packet = wait_packet,
    .wait_until = wait_until,
    .finish = finish,
    .abort = abort_run,
    .collect = collect,
    .summary = summary,
    .summary_key = "free",
};

/* Under circuit routing: circuits instead of packets (above). */
const hm__transport_t hm__transport_free_circuit = {
    .name = "the free-running clock",
    .create = create,
    .destroy = destroy,
    .emit = circ_emit,
    .send_to = circ_send_to,
    .pending = pending,
    .recv = recv,
    .wait_packet = wait_packet,
    .wait_until = wait_until,
    .finish = finish,
    .abort = abort_run,
    .collect = collect,
    .summary = summary,
    .summary_key = "free",
};
