/* SPDX-License-Identifier: MIT */
/*
 * mpi_circuit.c — circuit routing across MPI ranks (doc/mpi.md, "Circuits across ranks"):
 * the decisions of engine/circuit.c (README "Port models", circuit routing; Seidel 1993,
 * section 2), each taken where its state lives, with the same outcome as one process.
 *
 * A message from s to d concerns the rank of s (its transmit port and its queue of
 * messages, oldest first), the rank of d (its receive port, the payload, the delivery)
 * and the ranks that own the links of its path (a directed link belongs to the rank of
 * the node it leaves; they hold its load). Only these ranks hear of it. In slot t:
 *
 *   R1  the rank of s sends each new message to those ranks (whole to d's), and, for
 *       each of its senders whose transmit port is free, "ready" for its oldest message
 *       to the rank of its receiver;
 *   R2  the rank of d takes the ready messages in the order of sending (slot, sender,
 *       place in its outbox): the first to a free receiver starts, any other is port
 *       contention (queue: counted here, logged at the sender's rank); the starts go to
 *       the path's owners;
 *   R3  each owner adds the starts' loads to its links and sends, for each start, the
 *       largest load on its part of the path (and where) to the rank of d, which finds k
 *       and the duration;
 *   R4  the rank of d tells the others the start (the rank of s logs it and keeps its
 *       port busy, the owners release the loads when it arrives) and, to the ranks of
 *       the senders of messages still waiting for d, how long d is busy (their next
 *       slot). Then what arrives is delivered.
 *
 * Under "strict" one MPI_Allreduce after R3 finds the first contention in the order of
 * sending, as one process stops at it: a port contention starts nothing in the slot, a
 * link contention starts every message picked but delivers nothing. Each round is a
 * sparse exchange (MPI_Issend to the ranks concerned, MPI_Ibarrier once this rank's sends
 * are matched): a rank hears only from ranks that share a message with it.
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_dist.h"

enum { TAG_ROUND = 3 };                               /* and TAG_ROUND + 1: rounds alternate */
enum { ROLE_SEND = 1, ROLE_RECV = 2, ROLE_PATH = 4 }; /* what a rank is to a message */
enum { ST_PENDING, ST_FLIGHT, ST_DONE };
enum { REC_NEW, REC_READY, REC_PICK, REC_DELAY, REC_MAX, REC_START, REC_BUSY };

typedef struct dmsg_s {
    hm__copy_t c;       /* payload at the receiver's rank only; c.idx: place in the outbox */
    int64_t kslot;      /* the slot it was sent in: with c.src and c.idx, its order */
    int64_t end;        /* last slot of its transmission, once started */
    int64_t blocked;    /* receiver's rank: first slot it met a busy receiver, -1 */
    int64_t recv_known; /* sender's rank: how long its receiver is busy, as last told */
    int roles, state, kmax, hot; /* kmax, hot: the busiest link of its path (R3) */
} dmsg_t;

struct hm__dcirc_s {
    HM__VEC(dmsg_t) msgs; /* every message this rank is concerned with, in order */
    HM__VEC(dmsg_t) fresh;
    HM__VEC(int64_t) keys; /* scratch: keys of ready messages (3 each) */
    HM__VEC(size_t) ready, picks, starts;
    int64_t *send_busy, *recv_busy, *sstamp, *rstamp; /* per node, as engine/circuit.c's */
    int32_t *load, *path;
    uint32_t *seen, mark; /* per rank: the mark of the last message that named it */
    int size;
    size_t maxpath;
    hm__bytes_t *out;      /* per rank */
    HM__VEC(int32_t) from; /* scratch: a round's messages, source, offset and length */
    hm__bytes_t in;
    unsigned round; /* rounds so far: their parity picks the tag */
    int64_t started, link_contention, port_contention;
    int64_t max_k, max_slot, max_src, max_idx, hot_from, hot_to;
};
typedef hm__dcirc_t dcirc_t;

/* ---- the messages, in order ------------------------------------------------------ */

static int key_cmp3(int64_t s1, int64_t a1, int64_t b1, int64_t s2, int64_t a2, int64_t b2)
{
    if (s1 != s2)
        return s1 < s2 ? -1 : 1;
    if (a1 != a2)
        return a1 < a2 ? -1 : 1;
    return b1 == b2 ? 0 : b1 < b2 ? -1 : 1;
}

static int fresh_cmp(const void *a, const void *b)
{
    const dmsg_t *x = a, *y = b;
    return key_cmp3(x->kslot, x->c.src, x->c.idx, y->kslot, y->c.src, y->c.idx);
}

/* The message of key (slot, src, idx), or NULL. */
static dmsg_t *find(dcirc_t *C, int64_t slot, int64_t src, int64_t idx)
{
    size_t lo = 0, hi = C->msgs.n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const dmsg_t *x = &C->msgs.v[mid];
        int c = key_cmp3(x->kslot, x->c.src, x->c.idx, slot, src, idx);
        if (c == 0)
            return &C->msgs.v[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static void oom(void)
{
    hm__dist_abort_all("out of memory in the circuits");
}

static void put_key(hm__bytes_t *b, const dmsg_t *x, int64_t t, int rec)
{
    hm__dist_put_u(b, (uint64_t)rec);
    hm__dist_put_u(b, (uint64_t)(t - x->kslot));
    hm__dist_put_u(b, (uint64_t)x->c.src);
    hm__dist_put_u(b, x->c.idx);
}

static dmsg_t *get_key(dcirc_t *C, const unsigned char **q, int64_t t)
{
    int64_t slot = t - (int64_t)hm__dist_get_u(q), src = (int64_t)hm__dist_get_u(q);
    int64_t idx = (int64_t)hm__dist_get_u(q);
    dmsg_t *x = find(C, slot, src, idx);
    if (!x)
        hm__dist_abort_all("a circuit's notice for no message of this rank");
    return x;
}

/* The path of x into C->path; its length. */
static size_t path_of(const hm__machine_t *m, const dcirc_t *C, const dmsg_t *x)
{
    hm__links_t l = {m->maxdeg, m->deg, m->nbr, m->rport};
    return hm__route(&m->info, &l, x->c.src, x->c.dst, C->path);
}

static int owner(const hm__machine_t *m, const hm__dist_t *D, int32_t link)
{
    return hm__dist_rank_of(D, link / m->maxdeg);
}

/* A mark not in C->seen (all cleared when the count wraps). */
static uint32_t new_mark(dcirc_t *C)
{
    if (++C->mark == 0) {
        memset(C->seen, 0, (size_t)C->size * sizeof *C->seen);
        C->mark = 1;
    }
    return C->mark;
}

/* What this rank is to x, and the other ranks concerned in C->seen (stamped with mark). */
static int roles_of(const hm__machine_t *m, const hm__dist_t *D, dcirc_t *C, const dmsg_t *x,
                    uint32_t mark, int *others, int *n)
{
    int roles = 0;
    *n = 0;
    size_t len = path_of(m, C, x);
    int ranks[3 + len];
    int k = 0;
    ranks[k++] = hm__dist_rank_of(D, x->c.src);
    ranks[k++] = hm__dist_rank_of(D, x->c.dst);
    for (size_t j = 0; j < len; j++)
        ranks[k++] = owner(m, D, C->path[j]);
    for (int j = 0; j < k; j++) {
        if (ranks[j] == D->rank)
            roles |= j == 0 ? ROLE_SEND : j == 1 ? ROLE_RECV : ROLE_PATH;
        else if (C->seen[ranks[j]] != mark) {
            C->seen[ranks[j]] = mark;
            others[(*n)++] = ranks[j];
        }
    }
    return roles;
}

/* ---- a round: a sparse exchange ------------------------------------------------------ */

/* Each non-empty C->out[r] to rank r; every message sent to this rank in the round into
 * C->in, in rank order (C->from: source, offset, length). */
static void round_trip(hm__dist_t *D, dcirc_t *C)
{
    double t0 = MPI_Wtime();
    int tag = TAG_ROUND + (int)(C->round++ & 1u), nreq = 0, barrier = 0, done = 0;
    MPI_Request req[D->size], bar = MPI_REQUEST_NULL;
    for (int r = 0; r < D->size; r++)
        if (r != D->rank && C->out[r].n > 0) {
            MPI_Issend(C->out[r].v, (int)C->out[r].n, MPI_BYTE, r, tag, MPI_COMM_WORLD,
                       &req[nreq++]);
            D->msgs_sent++;
            D->bytes_sent += (int64_t)C->out[r].n;
        }
    C->in.n = 0;
    C->from.n = 0;
    while (!done) {
        int flag = 0;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &flag, &st);
        if (flag) {
            int count = 0;
            MPI_Get_count(&st, MPI_BYTE, &count);
            if (hm__grow((void **)&C->in.v, &C->in.cap, C->in.n + (size_t)count + 1, 1) != 0 ||
                HM__PUSH(C->from, st.MPI_SOURCE) != 0 || HM__PUSH(C->from, (int32_t)C->in.n) != 0 ||
                HM__PUSH(C->from, count) != 0)
                oom();
            MPI_Recv(C->in.v + C->in.n, count, MPI_BYTE, st.MPI_SOURCE, tag, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            C->in.n += (size_t)count;
            D->msgs_recv++;
            D->bytes_recv += count;
        } else if (!barrier) {
            int all = 0;
            MPI_Testall(nreq, req, &all, MPI_STATUSES_IGNORE);
            if (all) {
                MPI_Ibarrier(MPI_COMM_WORLD, &bar);
                barrier = 1;
            }
        } else {
            MPI_Test(&bar, &done, MPI_STATUS_IGNORE);
        }
        if (!flag && !done)
            sched_yield();
    }
    for (int r = 0; r < D->size; r++)
        C->out[r].n = 0;
    D->rounds++;
    D->mpi_seconds += MPI_Wtime() - t0;
}

/* The i-th message received in the round: its bytes [*q, *end). */
static int received(const dcirc_t *C, size_t i, const unsigned char **q, const unsigned char **end)
{
    if (3 * i >= C->from.n)
        return 0;
    *q = C->in.v + C->from.v[3 * i + 1];
    *end = *q + C->from.v[3 * i + 2];
    return 1;
}

/* ---- R1: new messages and ready ones ------------------------------------------------ */

static void pack_new(hm__bytes_t *b, const dmsg_t *x, int64_t t, int whole)
{
    const hm__copy_t *c = &x->c;
    put_key(b, x, t, REC_NEW);
    hm__dist_put_i(b, (int64_t)c->dst - c->src);
    hm__dist_put_i(b, c->pkt.msg);
    hm__dist_put_u(b, c->emission);
    hm__dist_put_i(b, c->pkt.value);
    hm__dist_put_i(b, t - c->sent_slot);
    hm__dist_put_u(b, c->flow ^ hm__flow_id(c->src, c->emission, 0xff));
    hm__dist_put_tail(b, c, whole);
}

static void unpack_new(hm__machine_t *m, hm__dist_t *D, dcirc_t *C, const unsigned char **q,
                       int64_t t)
{
    dmsg_t x = {.kslot = t - (int64_t)hm__dist_get_u(q), .blocked = -1, .recv_known = -1};
    hm__copy_t *c = &x.c;
    c->src = (int32_t)hm__dist_get_u(q);
    c->idx = (uint32_t)hm__dist_get_u(q);
    c->dst = (int32_t)(c->src + hm__dist_get_i(q));
    c->sport = c->dport = -1;
    c->dur = 1;
    c->pkt.msg = (int32_t)hm__dist_get_i(q);
    c->emission = (uint32_t)hm__dist_get_u(q);
    c->pkt.value = hm__dist_get_i(q);
    c->sent_slot = t - hm__dist_get_i(q);
    c->flow = hm__dist_get_u(q) ^ hm__flow_id(c->src, c->emission, 0xff);
    c->pkt.origin = (int32_t)(c->src + hm__dist_get_i(q));
    c->pkt.tag = (int32_t)hm__dist_get_i(q);
    c->pkt.aux = (int32_t)hm__dist_get_i(q);
    c->pkt.len = (uint32_t)hm__dist_get_u(q);
    D->foreign++;
    if (hm__local(m, c->dst)) {
        hm_packet_t pkt = c->pkt;
        pkt.data = *q;
        *q += pkt.len;
        int fail = 0;
        c->blob = hm__blob_new(&pkt, 1, &fail);
        if (fail)
            oom();
        c->pkt.data = c->blob ? c->blob->bytes : NULL;
        D->delivered++;
    }
    int n, others[D->size];
    x.roles = roles_of(m, D, C, &x, new_mark(C), others, &n);
    if (HM__PUSH(C->fresh, x) != 0)
        oom();
}

/* The new messages of this rank's senders (in node order, then send order) to the ranks
 * they concern. */
static void take_new(hm__machine_t *m, hm__dist_t *D, dcirc_t *C, int64_t t)
{
    for (size_t i = 0; i < m->active.n; i++) {
        hm_node_t *n = &m->nodes[m->active.v[i]];
        for (size_t j = 0; j < n->outbox.n; j++) {
            dmsg_t x = {.c = n->outbox.v[j], .kslot = t, .blocked = -1, .recv_known = -1};
            x.c.idx = (uint32_t)j;
            int others[D->size], k;
            x.roles = roles_of(m, D, C, &x, new_mark(C), others, &k);
            int at = hm__dist_rank_of(D, x.c.dst);
            for (int r = 0; r < k; r++)
                pack_new(&C->out[others[r]], &x, t, others[r] == at);
            if (!(x.roles & ROLE_RECV)) {
                hm__blob_release(x.c.blob);
                x.c.blob = NULL;
                x.c.pkt.data = NULL;
            }
            if (HM__PUSH(C->fresh, x) != 0)
                oom();
        }
        n->outbox.n = 0;
    }
}

/* For each sender of this rank whose transmit port is free, its oldest message is ready:
 * noted here, or sent to the rank of its receiver. */
static void take_ready(hm__dist_t *D, dcirc_t *C, int64_t t)
{
    C->keys.n = 0;
    for (int pass = 0; pass < 2; pass++) {
        const dmsg_t *v = pass ? C->fresh.v : C->msgs.v;
        size_t n = pass ? C->fresh.n : C->msgs.n;
        for (size_t i = 0; i < n; i++) {
            const dmsg_t *x = &v[i];
            int s = x->c.src;
            if (!(x->roles & ROLE_SEND) || x->state != ST_PENDING || C->sstamp[s] == t + 1)
                continue;
            C->sstamp[s] = t + 1; /* older messages of s come first */
            if (C->send_busy[s] >= t)
                continue;
            int at = hm__dist_rank_of(D, x->c.dst);
            if (at != D->rank) {
                put_key(&C->out[at], x, t, REC_READY);
            } else if (HM__PUSH(C->keys, x->kslot) != 0 || HM__PUSH(C->keys, s) != 0 ||
                       HM__PUSH(C->keys, (int64_t)x->c.idx) != 0) {
                oom();
            }
        }
    }
}

/* What R1 brought: new messages (into C->fresh) and ready ones (into C->keys). */
static void unpack_r1(hm__machine_t *m, hm__dist_t *D, dcirc_t *C, int64_t t)
{
    const unsigned char *q, *end;
    for (size_t i = 0; received(C, i, &q, &end); i++)
        while (q < end) {
            uint64_t rec = hm__dist_get_u(&q);
            if (rec == REC_NEW) {
                unpack_new(m, D, C, &q, t);
                continue;
            }
            int64_t slot = t - (int64_t)hm__dist_get_u(&q), src = (int64_t)hm__dist_get_u(&q);
            int64_t idx = (int64_t)hm__dist_get_u(&q);
            if (rec != REC_READY || HM__PUSH(C->keys, slot) != 0 || HM__PUSH(C->keys, src) != 0 ||
                HM__PUSH(C->keys, idx) != 0)
                hm__dist_abort_all("a circuit's notice out of place");
        }
}

static int idx_cmp(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

/* The slot's new messages after the older ones (they sort after them), and the ready
 * ones by their place. */
static void merge(dcirc_t *C)
{
    if (C->fresh.n > 1) /* qsort's pointer is never NULL */
        qsort(C->fresh.v, C->fresh.n, sizeof *C->fresh.v, fresh_cmp);
    for (size_t i = 0; i < C->fresh.n; i++)
        if (HM__PUSH(C->msgs, C->fresh.v[i]) != 0)
            oom();
    C->fresh.n = 0;
    C->ready.n = 0;
    for (size_t k = 0; k + 2 < C->keys.n; k += 3) {
        dmsg_t *x = find(C, C->keys.v[k], C->keys.v[k + 1], C->keys.v[k + 2]);
        if (!x)
            hm__dist_abort_all("a ready circuit unknown to its receiver's rank");
        if (HM__PUSH(C->ready, (size_t)(x - C->msgs.v)) != 0)
            oom();
    }
    if (C->ready.n > 1)
        qsort(C->ready.v, C->ready.n, sizeof *C->ready.v, idx_cmp);
}

/* ---- R2: the receivers decide ------------------------------------------------------- */

static void log_at_sender(hm__machine_t *m, const dmsg_t *x, int kind, int64_t t, int64_t dur,
                          const char *why)
{
    if (m->opt.record_events)
        hm__log_event(&m->nodes[x->c.src], kind, t, -1, x->c.dst, x->c.pkt.msg, x->c.pkt.value, dur,
                      0, hm__strdup_printf("%s", why));
}

static void log_port(hm__machine_t *m, const dmsg_t *x, int kind, int64_t t, int64_t until)
{
    char why[256];
    hm__circuit_port_why(why, sizeof why, &x->c, until);
    log_at_sender(m, x, kind, t, 1, why);
}

/* Send a record of x (its key) to every other rank that owns a link of its path. */
static void to_owners(const hm__machine_t *m, hm__dist_t *D, dcirc_t *C, const dmsg_t *x, int64_t t,
                      int rec)
{
    size_t len = path_of(m, C, x);
    uint32_t mark = new_mark(C);
    for (size_t j = 0; j < len; j++) {
        int o = owner(m, D, C->path[j]);
        if (o != D->rank && C->seen[o] != mark) {
            C->seen[o] = mark;
            put_key(&C->out[o], x, t, rec);
        }
    }
}

/* The ready messages in order: the first to a free receiver starts; the others meet
 * port contention: under strict the first of them is this rank's candidate stop
 * (first[0..3]: its key and how long the receiver is busy), else it waits, counted
 * here and logged at its sender's rank the first time. */
static void decide(hm__machine_t *m, hm__dist_t *D, dcirc_t *C, int64_t t, int strict,
                   int64_t *first)
{
    C->picks.n = 0;
    for (size_t k = 0; k < C->ready.n; k++) {
        dmsg_t *x = &C->msgs.v[C->ready.v[k]];
        int d = x->c.dst;
        x->kmax = 0;
        x->hot = -1;
        if (C->recv_busy[d] < t && C->rstamp[d] != t + 1) {
            C->rstamp[d] = t + 1;
            if (HM__PUSH(C->picks, C->ready.v[k]) != 0)
                oom();
            to_owners(m, D, C, x, t, REC_PICK);
            continue;
        }
        int64_t until = C->recv_busy[d] >= t ? C->recv_busy[d] : t;
        if (strict) {
            if (first[0] == INT64_MAX) {
                int64_t f[4] = {x->kslot, x->c.src, x->c.idx, until};
                memcpy(first, f, sizeof f);
            }
            continue;
        }
        if (x->blocked >= 0)
            continue;
        x->blocked = t;
        m->stats.conflicts++;
        m->stats.delayed_packets++;
        C->port_contention++;
        int at = hm__dist_rank_of(D, x->c.src);
        if (at == D->rank) {
            log_port(m, x, HM__EV_DELAY, t, until);
        } else {
            put_key(&C->out[at], x, t, REC_DELAY);
            hm__dist_put_u(&C->out[at], (uint64_t)until);
        }
    }
}

/* ---- R3: the loads on the path ------------------------------------------------------- */

/* The messages starting now on links of this rank (C->starts): this rank's own picks
 * with a link here, and those R2 brought. */
static void take_picks(hm__machine_t *m, dcirc_t *C, int64_t t)
{
    C->starts.n = 0;
    for (size_t k = 0; k < C->picks.n; k++)
        if ((C->msgs.v[C->picks.v[k]].roles & ROLE_PATH) && HM__PUSH(C->starts, C->picks.v[k]) != 0)
            oom();
    const unsigned char *q, *end;
    for (size_t i = 0; received(C, i, &q, &end); i++)
        while (q < end) {
            uint64_t rec = hm__dist_get_u(&q);
            dmsg_t *x = get_key(C, &q, t);
            if (rec == REC_DELAY) {
                log_port(m, x, HM__EV_DELAY, t, (int64_t)hm__dist_get_u(&q));
            } else if (rec == REC_PICK) {
                if (HM__PUSH(C->starts, (size_t)(x - C->msgs.v)) != 0)
                    oom();
            } else {
                hm__dist_abort_all("a circuit's notice out of place");
            }
        }
}

/* Each start's loads on this rank's links, then its busiest one here (the first in path
 * order) to the rank of its receiver. */
static void loads(hm__machine_t *m, hm__dist_t *D, dcirc_t *C, int64_t t)
{
    for (size_t k = 0; k < C->starts.n; k++) {
        size_t len = path_of(m, C, &C->msgs.v[C->starts.v[k]]);
        for (size_t j = 0; j < len; j++)
            if (owner(m, D, C->path[j]) == D->rank)
                C->load[C->path[j]]++;
    }
    for (size_t k = 0; k < C->starts.n; k++) {
        dmsg_t *x = &C->msgs.v[C->starts.v[k]];
        size_t len = path_of(m, C, x);
        int kmax = 0, hot = -1;
        for (size_t j = 0; j < len; j++)
            if (owner(m, D, C->path[j]) == D->rank && C->load[C->path[j]] > kmax) {
                kmax = C->load[C->path[j]];
                hot = (int)j;
            }
        int at = hm__dist_rank_of(D, x->c.dst);
        if (at == D->rank) {
            if (kmax > x->kmax || (kmax == x->kmax && hot >= 0 && hot < x->hot)) {
                x->kmax = kmax;
                x->hot = hot;
            }
            continue;
        }
        put_key(&C->out[at], x, t, REC_MAX);
        hm__dist_put_u(&C->out[at], (uint64_t)kmax);
        hm__dist_put_i(&C->out[at], hot);
    }
}

/* The other owners' busiest links, for this rank's starts: the largest load, the first
 * in path order among equals. */
static void take_max(dcirc_t *C, int64_t t)
{
    const unsigned char *q, *end;
    for (size_t i = 0; received(C, i, &q, &end); i++)
        while (q < end) {
            uint64_t rec = hm__dist_get_u(&q);
            dmsg_t *x = get_key(C, &q, t);
            int kmax = (int)hm__dist_get_u(&q), hot = (int)hm__dist_get_i(&q);
            if (rec != REC_MAX)
                hm__dist_abort_all("a circuit's notice out of place");
            if (kmax > x->kmax || (kmax == x->kmax && hot >= 0 && hot < x->hot)) {
                x->kmax = kmax;
                x->hot = hot;
            }
        }
}

/* ---- under strict: the first contention of the whole machine ------------------------- */

static int before3(const int64_t *a, const int64_t *b)
{
    return key_cmp3(a[0], a[1], a[2], b[0], b[1], b[2]) < 0;
}

/* {port key (3), until, link key (3)}: the earliest of each. */
static void strict_op(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    for (int o = 0; o + 7 <= *len; o += 7) {
        const int64_t *a = (const int64_t *)in + o;
        int64_t *b = (int64_t *)inout + o;
        if (before3(a, b))
            memcpy(b, a, 4 * sizeof *a);
        if (before3(a + 4, b + 4))
            memcpy(b + 4, a + 4, 3 * sizeof *a);
    }
}

static MPI_Op strict_mpi_op = MPI_OP_NULL;

static void first_contention(hm__dist_t *D, int64_t *v)
{
    int64_t all[7];
    double t0 = MPI_Wtime();
    MPI_Allreduce(v, all, 7, MPI_INT64_T, strict_mpi_op, MPI_COMM_WORLD);
    D->mpi_seconds += MPI_Wtime() - t0;
    memcpy(v, all, sizeof all);
}

/* ---- R4: the starts ---------------------------------------------------------------- */

static void link_ends(const hm__machine_t *m, dcirc_t *C, const dmsg_t *x, int *from, int *to)
{
    *from = *to = -1;
    if (x->hot < 0 || (size_t)x->hot >= path_of(m, C, x))
        return;
    int32_t l = C->path[x->hot];
    *from = l / m->maxdeg;
    *to = m->nbr[l];
}

/* The sender's side of a start: its port busy, its events (engine/circuit.c, start_one). */
static void sender_start(hm__machine_t *m, dcirc_t *C, dmsg_t *x, int64_t t)
{
    C->send_busy[x->c.src] = x->end;
    if (!m->opt.record_events)
        return;
    hm__log_event(&m->nodes[x->c.src], HM__EV_SEND, t, -1, x->c.dst, x->c.pkt.msg, x->c.pkt.value,
                  x->c.dur, x->c.flow, NULL);
    if (x->kmax > m->info.link_capacity) {
        int from, to;
        char why[256];
        link_ends(m, C, x, &from, &to);
        hm__circuit_link_why(why, sizeof why, m->info.link_capacity, &x->c, from, to, x->kmax,
                             (x->kmax + m->info.link_capacity - 1) / m->info.link_capacity);
        log_at_sender(m, x,
                      m->opt.contention == HM__CONTENTION_STRICT ? HM__EV_CONFLICT : HM__EV_DELAY,
                      t, x->c.dur, why);
    }
}

/* The receiver's side of a start; stop_at: the machine's first strict link contention. */
static void receiver_start(hm__machine_t *m, hm__dist_t *D, dcirc_t *C, dmsg_t *x, int64_t t,
                           const int64_t *stop_at)
{
    const hm_machine_info_t *in = &m->info;
    x->c.dur = hm__circuit_slots(in, x->kmax, x->c.pkt.len);
    x->end = t + x->c.dur - 1;
    x->state = ST_FLIGHT;
    C->recv_busy[x->c.dst] = x->end;
    C->started++;
    if (x->kmax > C->max_k) { /* the first of the largest k (engine/circuit.c) */
        int from, to;
        link_ends(m, C, x, &from, &to);
        C->max_k = x->kmax;
        C->max_slot = t;
        C->max_src = x->c.src;
        C->max_idx = x->c.idx;
        C->hot_from = from;
        C->hot_to = to;
    }
    if (x->blocked >= 0)
        m->stats.delay_slots += t - x->blocked;
    if (x->kmax > in->link_capacity) {
        m->stats.conflicts++;
        C->link_contention++;
        int64_t key[3] = {x->kslot, x->c.src, x->c.idx};
        if (m->opt.contention == HM__CONTENTION_STRICT && !memcmp(key, stop_at, sizeof key)) {
            int from, to;
            char why[256];
            link_ends(m, C, x, &from, &to);
            hm__circuit_link_why(why, sizeof why, in->link_capacity, &x->c, from, to, x->kmax,
                                 (x->kmax + in->link_capacity - 1) / in->link_capacity);
            hm__stop(m, HM__END_CONFLICT, hm__strdup_printf("slot %lld: %s", (long long)t, why));
        }
    }
    int others[D->size], n;
    roles_of(m, D, C, x, new_mark(C), others, &n);
    for (int r = 0; r < n; r++) {
        put_key(&C->out[others[r]], x, t, REC_START);
        hm__dist_put_u(&C->out[others[r]], (uint64_t)x->c.dur);
        hm__dist_put_u(&C->out[others[r]], (uint64_t)x->kmax);
        hm__dist_put_i(&C->out[others[r]], x->hot);
    }
    if (x->roles & ROLE_SEND)
        sender_start(m, C, x, t);
}

/* How long each receiver here is busy, to the senders' ranks of the messages waiting for
 * it that are new or whose receiver started another one now (their next slot). */
static void tell_busy(hm__dist_t *D, dcirc_t *C, int64_t t)
{
    for (size_t i = 0; i < C->msgs.n; i++) {
        dmsg_t *x = &C->msgs.v[i];
        int d = x->c.dst;
        if (!(x->roles & ROLE_RECV) || x->state != ST_PENDING ||
            (x->kslot != t && C->rstamp[d] != t + 1))
            continue;
        int at = hm__dist_rank_of(D, x->c.src);
        if (at == D->rank) {
            x->recv_known = C->recv_busy[d];
            continue;
        }
        put_key(&C->out[at], x, t, REC_BUSY);
        hm__dist_put_i(&C->out[at], C->recv_busy[d]);
    }
}

static void take_starts(hm__machine_t *m, dcirc_t *C, int64_t t)
{
    const unsigned char *q, *end;
    for (size_t i = 0; received(C, i, &q, &end); i++)
        while (q < end) {
            uint64_t rec = hm__dist_get_u(&q);
            dmsg_t *x = get_key(C, &q, t);
            if (rec == REC_BUSY) {
                x->recv_known = hm__dist_get_i(&q);
                continue;
            }
            if (rec != REC_START)
                hm__dist_abort_all("a circuit's notice out of place");
            x->c.dur = (int64_t)hm__dist_get_u(&q);
            x->kmax = (int)hm__dist_get_u(&q);
            x->hot = (int)hm__dist_get_i(&q);
            x->end = t + x->c.dur - 1;
            x->state = ST_FLIGHT;
            if (x->roles & ROLE_SEND)
                sender_start(m, C, x, t);
        }
}

/* ---- arrivals ------------------------------------------------------------------------ */

static int arrive(hm__machine_t *m, hm__dist_t *D, dcirc_t *C, int64_t t)
{
    int rc = 0;
    size_t keep = 0;
    for (size_t i = 0; i < C->msgs.n; i++) {
        dmsg_t *x = &C->msgs.v[i];
        if (x->state == ST_FLIGHT && x->end == t) {
            size_t len = path_of(m, C, x);
            for (size_t j = 0; j < len; j++)
                if (owner(m, D, C->path[j]) == D->rank)
                    C->load[C->path[j]]--;
            if ((x->roles & ROLE_RECV) && hm__deliver(m, &x->c, t) != 0)
                rc = -1; /* the run stops */
            x->c.blob = NULL;
            x->state = ST_DONE;
        }
        if (x->state != ST_DONE)
            C->msgs.v[keep++] = *x;
    }
    C->msgs.n = keep;
    return rc;
}

/* ---- the transport's hooks ------------------------------------------------------------ */

int hm__dcirc_commit(hm__machine_t *m, int64_t t)
{
    hm__dist_t *D = m->dist;
    dcirc_t *C = D->dc;
    int strict = m->opt.contention == HM__CONTENTION_STRICT;
    D->exchanges++;
    take_new(m, D, C, t);
    take_ready(D, C, t);
    round_trip(D, C); /* R1 */
    unpack_r1(m, D, C, t);
    merge(C);
    int64_t first[7] = {INT64_MAX, 0, 0, 0, INT64_MAX, 0, 0};
    decide(m, D, C, t, strict, first);
    round_trip(D, C); /* R2 */
    take_picks(m, C, t);
    loads(m, D, C, t);
    round_trip(D, C); /* R3 */
    take_max(C, t);
    if (strict) {
        for (size_t k = 0; k < C->picks.n; k++) {
            const dmsg_t *x = &C->msgs.v[C->picks.v[k]];
            int64_t key[3] = {x->kslot, x->c.src, x->c.idx};
            if (x->kmax > m->info.link_capacity && before3(key, first + 4))
                memcpy(first + 4, key, sizeof key);
        }
        first_contention(D, first);
        if (first[0] != INT64_MAX) {
            dmsg_t *x = find(C, first[0], first[1], first[2]);
            if (x && (x->roles & ROLE_RECV)) {
                m->stats.conflicts++;
                C->port_contention++;
            }
            if (x && (x->roles & ROLE_SEND)) {
                char why[256];
                hm__circuit_port_why(why, sizeof why, &x->c, first[3]);
                log_at_sender(m, x, HM__EV_CONFLICT, t, 1, why);
                hm__stop(m, HM__END_CONFLICT,
                         hm__strdup_printf("slot %lld: %s", (long long)t, why));
            }
            return 0;
        }
    }
    for (size_t k = 0; k < C->picks.n; k++)
        receiver_start(m, D, C, &C->msgs.v[C->picks.v[k]], t, first + 4);
    tell_busy(D, C, t);
    round_trip(D, C); /* R4 */
    take_starts(m, C, t);
    if (strict && first[4] != INT64_MAX)
        return 0; /* a strict link contention: nothing arrives */
    return arrive(m, D, C, t) != 0 ? -1 : 0;
}

int64_t hm__dcirc_next(hm__machine_t *m, int64_t t)
{
    dcirc_t *C = ((hm__dist_t *)m->dist)->dc;
    int64_t next = INT64_MAX;
    for (size_t i = 0; i < C->msgs.n; i++) {
        const dmsg_t *x = &C->msgs.v[i];
        if (x->state == ST_FLIGHT && (x->roles & ROLE_RECV) && x->end < next)
            next = x->end;
        int s = x->c.src;
        if (x->state != ST_PENDING || !(x->roles & ROLE_SEND) || C->sstamp[s] == -(t + 1))
            continue;
        C->sstamp[s] = -(t + 1); /* its oldest message */
        int64_t at = t + 1;
        if (C->send_busy[s] + 1 > at)
            at = C->send_busy[s] + 1;
        if (x->recv_known + 1 > at)
            at = x->recv_known + 1;
        if (at < next)
            next = at;
    }
    return next;
}

/* The summary's figures on rank 0: the sums, and the largest k first met (slot, order). */
void hm__dcirc_collect(hm__machine_t *m)
{
    hm__dist_t *D = m->dist;
    dcirc_t *C = D->dc;
    int64_t mine[9] = {C->started, C->link_contention, C->port_contention, C->max_k, C->max_slot,
                       C->max_src, C->max_idx,         C->hot_from,        C->hot_to};
    int64_t *all = D->rank == 0 ? malloc((size_t)D->size * sizeof mine) : NULL;
    if (D->rank == 0 && !all)
        oom();
    MPI_Gather(mine, 9, MPI_INT64_T, all, 9, MPI_INT64_T, 0, MPI_COMM_WORLD);
    if (D->rank != 0)
        return;
    int64_t f[6] = {0, 0, 0, 0, -1, -1}, *best = NULL;
    for (int r = 0; r < D->size; r++) {
        int64_t *a = all + 9 * r;
        for (int k = 0; k < 3; k++)
            f[k] += a[k];
        if (a[3] > 0 && (!best || a[3] > best[3] || (a[3] == best[3] && before3(a + 4, best + 4))))
            best = a;
    }
    if (best) {
        f[3] = best[3];
        f[4] = best[7];
        f[5] = best[8];
    }
    hm__circuits_set_figures(D->cs, f);
    free(all);
}

dcirc_t *hm__dcirc_new(hm__machine_t *m, hm__dist_t *D)
{
    dcirc_t *C = calloc(1, sizeof *C);
    if (!C)
        return NULL;
    size_t n = (size_t)m->info.nodes, links = n * (size_t)m->maxdeg;
    C->maxpath = hm__route_max(&m->info);
    C->send_busy = malloc(n * sizeof *C->send_busy);
    C->recv_busy = malloc(n * sizeof *C->recv_busy);
    C->sstamp = calloc(n, sizeof *C->sstamp);
    C->rstamp = calloc(n, sizeof *C->rstamp);
    C->load = calloc(links ? links : 1, sizeof *C->load);
    C->path = malloc((C->maxpath ? C->maxpath : 1) * sizeof *C->path);
    C->seen = calloc((size_t)D->size, sizeof *C->seen);
    C->out = calloc((size_t)D->size, sizeof *C->out);
    C->size = D->size;
    C->hot_from = C->hot_to = -1;
    if (!C->send_busy || !C->recv_busy || !C->sstamp || !C->rstamp || !C->load || !C->path ||
        !C->seen || !C->out) {
        hm__dcirc_free(C, D->size);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        C->send_busy[i] = C->recv_busy[i] = -1;
    if (strict_mpi_op == MPI_OP_NULL)
        MPI_Op_create(strict_op, 1, &strict_mpi_op);
    return C;
}

void hm__dcirc_free(dcirc_t *C, int size)
{
    if (!C)
        return;
    for (size_t i = 0; i < C->msgs.n; i++)
        hm__blob_release(C->msgs.v[i].c.blob);
    for (size_t i = 0; i < C->fresh.n; i++)
        hm__blob_release(C->fresh.v[i].c.blob);
    if (C->out)
        for (int r = 0; r < size; r++)
            free(C->out[r].v);
    free(C->msgs.v);
    free(C->fresh.v);
    free(C->keys.v);
    free(C->ready.v);
    free(C->picks.v);
    free(C->starts.v);
    free(C->send_busy);
    free(C->recv_busy);
    free(C->sstamp);
    free(C->rstamp);
    free(C->load);
    free(C->path);
    free(C->seen);
    free(C->out);
    free(C->from.v);
    free(C->in.v);
    free(C);
}
