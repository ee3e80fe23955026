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
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hm_internal.h"

typedef struct hm__free_s hm__free_t;

enum { FB_NONE, FB_RECV, FB_SEND, FB_DONE };

typedef struct fnode_s {
    pthread_mutex_t lock; /* this node's mailbox: its inbox, the occupancy of its in-links */
    pthread_cond_t cv;    /* only this node's thread waits on it */
    int recv_blocked;     /* under lock: the node sleeps until a packet comes */
    int64_t max_depth;    /* under lock: most unread copies on one in-link */
    /* The owner thread's own figures. */
    int64_t lock_waits; /* mailbox locks found taken (trylock failed) */
    int64_t blocked_sends, blocked_receives;
    int64_t blocked_ns; /* wall time asleep in a blocked send or receive */
    int64_t sends;      /* copies delivered to a mailbox */
    int64_t last_send;  /* largest logical slot of a send, -1 */
    /* Under g: what the node waits for, for the deadlock report. */
    int state, peer;
    int64_t slot;
} __attribute__((aligned(64))) fnode_t;

struct hm__free_s {
    fnode_t *nodes;
    unsigned char *link_blocked; /* per link src*maxdeg+sport, under the receiver's lock */
    pthread_mutex_t g;
    int running, done; /* under g */
    /* After the run (collect). */
    int64_t lock_waits, blocked_sends, blocked_receives, blocked_ns, max_node_blocked_ns;
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
    F->link_blocked = calloc(links ? links : 1, 1);
    if (!F->nodes || !F->link_blocked || pthread_mutex_init(&F->g, NULL) != 0) {
        free(F->nodes);
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
            free(F->link_blocked);
            pthread_mutex_destroy(&F->g);
            free(F);
            m->tp_priv = NULL;
            return -1;
        }
    }
    F->running = n;
    return 0;
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
    pthread_mutex_destroy(&F->g);
    free(F->nodes);
    free(F->link_blocked);
    free(F);
    m->tp_priv = NULL;
}

/* ---- helpers ---------------------------------------------------------------- */

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Take a mailbox lock, counting the times another thread held it. */
static void lock_counted(fnode_t *self, pthread_mutex_t *mx)
{
    if (pthread_mutex_trylock(mx) != 0) {
        self->lock_waits++;
        pthread_mutex_lock(mx);
    }
}

static int aborted(const hm__machine_t *m)
{
    return hm__aborted(m);
}

static int blocked_line(const void *ctx, int i, char *buf, size_t len)
{
    const hm__machine_t *m = ctx;
    const fnode_t *f = &((const hm__free_t *)m->tp_priv)->nodes[i];
    if (f->state == FB_SEND)
        snprintf(buf, len,
                 "\n  node %d waits on node %d (mailbox %d->%d full, capacity %d), at slot %lld", i,
                 f->peer, i, f->peer, m->opt.mailbox_capacity, (long long)f->slot);
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

/* ---- sending ------------------------------------------------------------------ */

/* One copy into its receiver's mailbox; sleeps while the link's mailbox is full. */
static int deliver(hm_node_t *n, hm__copy_t *c)
{
    hm__machine_t *m = n->m;
    hm__free_t *F = m->tp_priv;
    fnode_t *me = &F->nodes[n->id], *rf = &F->nodes[c->dst];
    hm_node_t *r = &m->nodes[c->dst];
    size_t l = (size_t)c->src * (size_t)m->maxdeg + (size_t)c->sport;
    lock_counted(me, &rf->lock);
    if (m->occ[l] >= m->opt.mailbox_capacity && !aborted(m)) {
        me->blocked_sends++;
        if (m->opt.record_events)
            hm__log_event(n, HM__EV_STALL, n->now, c->sport, c->dst, c->pkt.msg, c->pkt.value, 1, 0,
                          NULL);
        F->link_blocked[l] = 1;
        int dead = block(m, n->id, FB_SEND, c->dst, n->now);
        int64_t t0 = now_ns();
        /* The receiver clears the flag (and counts us running again) when it reads
         * from this link: only this thread sends on it, so there is room then. */
        while (!dead && F->link_blocked[l] && !aborted(m))
            pthread_cond_wait(&me->cv, &rf->lock);
        me->blocked_ns += now_ns() - t0;
        if (dead || F->link_blocked[l]) {
            pthread_mutex_unlock(&rf->lock);
            if (dead)
                wake_all(m);
            return HM_EABORT;
        }
    }
    if (aborted(m)) {
        pthread_mutex_unlock(&rf->lock);
        return HM_EABORT;
    }
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
    me->sends++;
    if (c->sent_slot > me->last_send)
        me->last_send = c->sent_slot;
    return HM_OK;
}

/* Deliver n's outbox now (may block: backpressure). */
static int post(hm_node_t *n)
{
    int rc = check_interrupt(n);
    size_t k = 0;
    for (; k < n->outbox.n && rc == HM_OK; k++) {
        rc = deliver(n, &n->outbox.v[k]);
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
    int rc = hm__emit_copies(n, ports, p);
    return rc == HM_OK ? post(n) : rc;
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
    size_t l = (size_t)c.src * (size_t)m->maxdeg + (size_t)c.sport;
    m->occ[l]--;
    if (F->link_blocked[l]) {
        /* Its sender sleeps on this full link: there is room now. */
        F->link_blocked[l] = 0;
        unblock(m, c.src);
        pthread_cond_signal(&F->nodes[c.src].cv);
    }
    pthread_mutex_unlock(&f->lock);

    /* Lamport: read from max(now, t + 1), received in the slot before. */
    int64_t at = n->now > c.sent_slot + 1 ? n->now : c.sent_slot + 1;
    c.pkt.from = c.src;
    c.pkt.port = c.dport;
    c.pkt.sent_slot = c.sent_slot;
    c.pkt.recv_slot = at - 1;
    if (m->opt.record_events)
        hm__log_event(n, HM__EV_RECV, at - 1, c.dport, c.src, c.pkt.msg, c.pkt.value, 1, c.flow,
                      NULL);
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
    int64_t t0 = now_ns();
    while (!dead && f->recv_blocked && !aborted(m))
        pthread_cond_wait(&f->cv, &f->lock);
    f->blocked_ns += now_ns() - t0;
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

/* ---- after the run -------------------------------------------------------------- */

static void collect(hm__machine_t *m)
{
    hm__free_t *F = m->tp_priv;
    hm__stats_t *st = &m->stats;
    int64_t top = -1;
    for (int i = 0; i < m->info.nodes; i++) {
        fnode_t *f = &F->nodes[i];
        st->transmissions += f->sends;
        if (f->last_send > st->last_activity)
            st->last_activity = f->last_send;
        if (f->max_depth > st->max_mailbox_depth)
            st->max_mailbox_depth = f->max_depth;
        if (m->nodes[i].now > top)
            top = m->nodes[i].now;
        F->lock_waits += f->lock_waits;
        F->blocked_sends += f->blocked_sends;
        F->blocked_receives += f->blocked_receives;
        F->blocked_ns += f->blocked_ns;
        if (f->blocked_ns > F->max_node_blocked_ns)
            F->max_node_blocked_ns = f->blocked_ns;
    }
    st->stalls = F->blocked_sends;
    st->slots_run = top + 1; /* the highest logical slot a node reached, + 1 */
}

static json_t *summary(const hm__machine_t *m)
{
    const hm__free_t *F = m->tp_priv;
    return json_pack("{s:b, s:b, s:I, s:I, s:I, s:f, s:f}", "port_model_enforced", 0,
                     "deterministic", 0, "lock_waits", (json_int_t)F->lock_waits, "blocked_sends",
                     (json_int_t)F->blocked_sends, "blocked_receives",
                     (json_int_t)F->blocked_receives, "blocked_seconds",
                     (double)F->blocked_ns * 1e-9, "max_node_blocked_seconds",
                     (double)F->max_node_blocked_ns * 1e-9);
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
