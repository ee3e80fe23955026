/* SPDX-License-Identifier: MIT */
/*
 * mpi.c — the packet transport across MPI processes (doc/mpi.md). Built into
 * hypemu-mpi only; the plain hypemu links no MPI.
 *
 * Each process (rank) runs the threads of one block of nodes (hypercube: by the high
 * address bits; grids: whole rows) on the barrier clock of engine/clock.c, and judges
 * the links that touch its nodes (doc/mpi.md, "How the ranks share a slot"): their
 * mailboxes' occupancy, their delayed and stalled copies, and the ports of its own nodes.
 * The two ranks at the ends of a link both hold its state and take the same decisions on
 * it. Once per slot, each rank sends each rank whose nodes share a link with its own (its
 * peers) the copies its nodes sent to theirs (whole) and the links of the packets its
 * nodes read from theirs (a read frees a place in a mailbox); engine/mpi_judge.c then
 * decides the slot's candidates, trading the verdicts of a port model's rules with the
 * rank at the other end of a link where the model judges ports (not under all-port). A
 * routed copy that crosses into another rank's node goes on from that rank. Under the
 * bus port model (one channel) every rank is every rank's peer and judges every copy.
 *
 * After the commit, agree() settles with one reduction (MPI_Allreduce) the next slot with
 * work (the earliest of every rank's), the number of nodes done, an interrupt and a stop:
 * the run stops on every rank with the same end cause and report, that of the first
 * strict conflict in candidate order, else of the lowest rank that stopped. The run's
 * logs, stores, output areas and figures are gathered on rank 0 (engine/mpi_collect.c),
 * whose machine then looks exactly like that of a single process.
 *
 * MPI is called by one thread at a time (MPI_THREAD_SERIALIZED): the main thread
 * before and after the node threads, and in between the node thread that commits a
 * slot, which the clock serialises.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpi_dist.h"
#include "mpi_transport.h"

enum { TAG_SLOT = 1 };

static int world_rank, world_size = 1, err_fd = 2;
static FILE *early; /* ranks other than 0: their standard error until they agree */

/* A message for the user from any rank (ranks other than 0 write to /dev/null). */
static void say(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    dprintf(err_fd, "hypemu-mpi: rank %d: ", world_rank);
    vdprintf(err_fd, fmt, ap);
    dprintf(err_fd, "\n");
    va_end(ap);
}

/* What cannot be recovered on one rank alone (out of memory in a commit, a thread
 * that cannot be created) ends every rank at once. */
_Noreturn void hm__dist_abort_all(const char *what)
{
    say("%s: stopping every rank", what);
    MPI_Abort(MPI_COMM_WORLD, HM_EXIT_SYSTEM);
    exit(HM_EXIT_SYSTEM);
}

/* ---- the split into blocks ------------------------------------------------------ */

/* Rank r runs nodes [first[r], first[r+1]): equal blocks of whole rows on grids (of
 * single nodes elsewhere; on a hypercube of 2^k ranks, the high k address bits).
 * Every rank gets at least one node (there are at most as many ranks as nodes). */
static void split(const hm_machine_info_t *info, int size, int *first)
{
    int unit = info->topology == HM_TOPO_MESH || info->topology == HM_TOPO_LINEAR ? info->cols : 1;
    if (unit <= 0 || info->nodes / unit < size)
        unit = 1; /* fewer rows than ranks: blocks of nodes (every rank gets one) */
    int64_t units = info->nodes / unit;
    for (int r = 0; r <= size; r++)
        first[r] = (int)(unit * (units * r / size));
    first[size] = info->nodes;
}

int hm__dist_rank_of(const hm__dist_t *D, int node)
{
    int lo = 0, hi = D->size - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (D->first[mid] <= node)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* ---- packing ---------------------------------------------------------------------- */

void hm__dist_put(hm__bytes_t *b, const void *p, size_t len)
{
    if (hm__grow((void **)&b->v, &b->cap, b->n + len, 1) != 0)
        hm__dist_abort_all("out of memory packing a slot's packets");
    memcpy(b->v + b->n, p, len);
    b->n += len;
}

void hm__dist_get(const unsigned char **p, void *to, size_t len)
{
    memcpy(to, *p, len);
    *p += len;
}

/* Integers on the wire of a slot: LEB128 (7 bits a byte, low first; the high bit says
 * another byte follows), signed ones zigzagged (0, -1, 1, -2 ... as 0, 1, 2, 3 ...), so
 * that the small numbers a slot is made of take a byte or two. */
void hm__dist_put_u(hm__bytes_t *b, uint64_t v)
{
    unsigned char buf[10];
    size_t n = 0;
    do {
        buf[n] = (unsigned char)(v & 0x7f);
        v >>= 7;
        buf[n++] |= v ? 0x80 : 0;
    } while (v);
    hm__dist_put(b, buf, n);
}

void hm__dist_put_i(hm__bytes_t *b, int64_t v)
{
    hm__dist_put_u(b, ((uint64_t)v << 1) ^ (v < 0 ? UINT64_MAX : 0));
}

uint64_t hm__dist_get_u(const unsigned char **p)
{
    uint64_t v = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        unsigned char c = *(*p)++;
        v |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80))
            break;
    }
    return v;
}

int64_t hm__dist_get_i(const unsigned char **p)
{
    uint64_t u = hm__dist_get_u(p);
    return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

void hm__dist_put_tail(hm__bytes_t *b, const hm__copy_t *c, int whole)
{
    hm__dist_put_i(b, (int64_t)c->pkt.origin - c->src);
    hm__dist_put_i(b, c->pkt.tag);
    hm__dist_put_i(b, c->pkt.aux);
    hm__dist_put_u(b, c->pkt.len);
    if (whole && c->pkt.len)
        hm__dist_put(b, c->pkt.data, c->pkt.len);
}

/* A copy on the wire, in slot t (doc/mpi.md, "What crossing ranks costs"): what the port
 * models judge (sender, receiver, link, emission) and what their refusals name (msg); its
 * place in the candidate order (cls 1 for a new copy, idx its place in its sender's outbox;
 * cls 0 for a routed copy that crossed into node src in the last slot); then the rest, and
 * the payload for the rank that runs its receiver (whole), not for the others (the bus).
 * Slots go as distances back from t, nodes as distances from the sender, the flow as its
 * difference from the one a copy sent by src gets (engine/node.c). */
static void pack_copy(const hm__machine_t *m, hm__bytes_t *b, const hm__copy_t *c, int64_t t,
                      int64_t cslot, uint32_t idx, int cls, int whole)
{
    /* The sender's port, and whether the receiver and its port are those of that link
     * (always but under circuit routing): then they are not on the wire. */
    int32_t l = c->sport >= 0 ? c->src * m->maxdeg + c->sport : -1;
    int link = l >= 0 && m->nbr[l] == c->dst && m->rport[l] == c->dport;
    hm__dist_put_u(b, (uint64_t)c->src);
    hm__dist_put_u(b, (uint64_t)(c->sport + 1) << 1 | (uint64_t)link);
    if (!link) {
        hm__dist_put_i(b, (int64_t)c->dst - c->src);
        hm__dist_put_i(b, c->dport);
    }
    hm__dist_put_i(b, c->pkt.msg);
    hm__dist_put_u(b, c->emission);
    hm__dist_put_i(b, t - cslot);
    hm__dist_put_u(b, idx);
    hm__dist_put_u(b, (uint64_t)cls);
    hm__dist_put_u(b, (uint32_t)c->far);
    hm__dist_put_i(b, (int64_t)c->first - c->src);
    hm__dist_put_i(b, c->pkt.value);
    hm__dist_put_i(b, t - c->sent_slot);
    hm__dist_put_i(b, c->dur);
    hm__dist_put_u(b, c->flow ^ hm__flow_id(c->src, c->emission, c->sport)); /* 0 unless routed */
    hm__dist_put_tail(b, c, whole);
}

/* A copy from another rank: a new one into its sender's outbox (in this process, the
 * sender's outbox holds the copies the commit judges here), one that crossed into its
 * sender into the held copies. Returns its sender, or -1 for a held one. */
static int32_t unpack_copy(hm__machine_t *m, hm__dist_t *D, const unsigned char **p, int64_t t)
{
    hm__copy_t c = {.src = (int32_t)hm__dist_get_u(p)};
    uint64_t port = hm__dist_get_u(p);
    int32_t dport;
    c.sport = (int32_t)(port >> 1) - 1;
    if (port & 1) {
        c.dst = m->nbr[c.src * m->maxdeg + c.sport];
        dport = m->rport[c.src * m->maxdeg + c.sport];
    } else {
        c.dst = (int32_t)(c.src + hm__dist_get_i(p));
        dport = (int32_t)hm__dist_get_i(p);
    }
    c.pkt.msg = (int32_t)hm__dist_get_i(p);
    c.emission = (uint32_t)hm__dist_get_u(p);
    c.cslot = t - hm__dist_get_i(p);
    c.idx = (uint32_t)hm__dist_get_u(p);
    c.cls = (int16_t)hm__dist_get_u(p);
    c.far = (int32_t)hm__dist_get_u(p);
    c.first = (int32_t)(c.src + hm__dist_get_i(p));
    c.pkt.value = hm__dist_get_i(p);
    c.sent_slot = t - hm__dist_get_i(p);
    c.dur = hm__dist_get_i(p);
    c.flow = hm__dist_get_u(p) ^ hm__flow_id(c.src, c.emission, c.sport);
    int32_t origin = (int32_t)(c.src + hm__dist_get_i(p));
    int32_t tag = (int32_t)hm__dist_get_i(p), aux = (int32_t)hm__dist_get_i(p);
    c.pkt.len = (uint32_t)hm__dist_get_u(p);
    if (hm__local(m, c.dst)) {
        hm_packet_t pkt = {.msg = c.pkt.msg,
                           .origin = origin,
                           .value = c.pkt.value,
                           .tag = tag,
                           .aux = aux,
                           .data = *p,
                           .len = c.pkt.len};
        *p += pkt.len;
        int fail = 0;
        c.blob = hm__blob_new(&pkt, 1, &fail);
        if (fail)
            hm__dist_abort_all("out of memory receiving a slot's packets");
        pkt.data = c.blob ? c.blob->bytes : NULL;
        c.pkt = pkt;
        c.dport = dport;
        D->delivered++;
    }
    D->foreign++;
    /* A routed copy took its place in its next link's buffer when it crossed into its
     * sender (engine/slot_judge.c, forward), on the sender's rank: here too. */
    if (!c.cls)
        m->occ[c.src * m->maxdeg + c.sport]++;
    hm__copyvec_t *into = c.cls ? &m->nodes[c.src].outbox : &D->pending;
    int32_t src = c.cls ? c.src : -1;
    if (HM__PUSH(*into, c) != 0)
        hm__dist_abort_all("out of memory receiving a slot's packets");
    return src;
}

/* ---- the slot's exchange ------------------------------------------------------------ */

void hm__dist_exchange(hm__dist_t *D, int all, int tag)
{
    double t0 = MPI_Wtime();
    MPI_Request req[D->npeers > 0 ? D->npeers : 1];
    int sent = 0;
    for (int k = 0; k < D->npeers; k++) {
        hm__peer_t *p = &D->peers[k];
        if (!all && !p->undecided)
            continue;
        if (p->out.n > INT_MAX)
            hm__dist_abort_all("a slot's packets for one rank over 2 GiB");
        MPI_Isend(p->out.v, (int)p->out.n, MPI_BYTE, p->rank, tag, MPI_COMM_WORLD, &req[sent++]);
        D->msgs_sent++;
        D->bytes_sent += (int64_t)p->out.n;
    }
    for (int k = 0; k < D->npeers; k++) {
        hm__peer_t *p = &D->peers[k];
        if (!all && !p->undecided)
            continue;
        MPI_Status st;
        int count = 0;
        MPI_Probe(p->rank, tag, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_BYTE, &count);
        if (hm__grow((void **)&p->in.v, &p->in.cap, (size_t)count + 1, 1) != 0)
            hm__dist_abort_all("out of memory exchanging a slot's packets");
        MPI_Recv(p->in.v, count, MPI_BYTE, p->rank, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        p->in.n = (size_t)count;
        D->msgs_recv++;
        D->bytes_recv += count;
    }
    MPI_Waitall(sent, req, MPI_STATUSES_IGNORE);
    D->mpi_seconds += MPI_Wtime() - t0;
}

/* The peers that judge the links between node x and this rank's nodes, [*from, *to): every
 * peer under the bus port model, else the one that runs x (none when x runs here). */
static void peers_of(const hm__machine_t *m, const hm__dist_t *D, int x, int *from, int *to)
{
    *from = 0;
    *to = D->all ? D->npeers : 0;
    if (!D->all && !hm__local(m, x)) {
        *from = D->peer_of[hm__dist_rank_of(D, x)];
        *to = *from + 1;
    }
}

/* Copy c to the peers that judge its link, whole to the one that runs its receiver. */
static void pack_to_peers(hm__machine_t *m, hm__dist_t *D, const hm__copy_t *c, int64_t t,
                          int64_t cslot, uint32_t idx, int cls)
{
    int from, to, at = hm__dist_rank_of(D, c->dst);
    peers_of(m, D, c->dst, &from, &to);
    for (int k = from; k < to; k++) {
        pack_copy(m, &D->peers[k].out, c, t, cslot, idx, cls, D->peers[k].rank == at);
        D->peers[k].ncopies++;
    }
}

/* Each peer's part of the slot: the number of reads, the reads of this rank's nodes on
 * links from the peer's nodes, then (to the end of the message) the new copies to the
 * peer's nodes (node by node, in send order) and the routed copies that crossed into this
 * rank's nodes in the last slot and go on to the peer's nodes. A peer with none of them
 * gets an empty message. */
static void pack_slot(hm__machine_t *m, hm__dist_t *D, int64_t t)
{
    for (int k = 0; k < D->npeers; k++) {
        D->peers[k].out.n = 0;
        D->peers[k].nreads = D->peers[k].ncopies = 0;
    }
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1)
            for (int k = 0; k < D->npeers; k++)
                hm__dist_put_u(&D->peers[k].out, (uint64_t)D->peers[k].nreads);
        for (size_t i = 0; i < m->active.n; i++) {
            const hm__i32vec_t *rd = &D->reads[m->active.v[i] - m->lo];
            for (size_t j = 0; j < rd->n; j++) {
                int from, to;
                peers_of(m, D, rd->v[j] / m->maxdeg, &from, &to);
                for (int k = from; k < to; k++)
                    if (pass == 0)
                        D->peers[k].nreads++;
                    else
                        hm__dist_put_u(&D->peers[k].out, (uint32_t)rd->v[j]);
            }
        }
    }
    for (size_t i = 0; i < m->active.n; i++) {
        const hm_node_t *n = &m->nodes[m->active.v[i]];
        for (size_t j = 0; j < n->outbox.n; j++)
            pack_to_peers(m, D, &n->outbox.v[j], t, t, (uint32_t)j, 1);
    }
    for (size_t j = 0; j < D->pending.n; j++) {
        const hm__copy_t *c = &D->pending.v[j];
        if (c->cslot == t && c->cls == 0 && hm__local(m, c->src))
            pack_to_peers(m, D, c, t, c->cslot, c->idx, 0);
    }
    for (int k = 0; k < D->npeers; k++)
        if (D->peers[k].nreads == 0 && D->peers[k].ncopies == 0)
            D->peers[k].out.n = 0;
}

static void add_sender(hm__dist_t *D, int32_t node)
{
    if ((D->senders.n == 0 || D->senders.v[D->senders.n - 1] != node) &&
        HM__PUSH(D->senders, node) != 0)
        hm__dist_abort_all("out of memory exchanging a slot's packets");
}

static void add_own_senders(hm__machine_t *m, hm__dist_t *D)
{
    for (size_t i = 0; i < m->active.n; i++)
        if (m->nodes[m->active.v[i]].outbox.n > 0)
            add_sender(D, m->active.v[i]);
}

/* What the peers sent: their reads free places in mailboxes, their copies join the
 * slot's candidates; the senders of the slot, in node order. */
static void unpack_slot(hm__machine_t *m, hm__dist_t *D, int64_t t)
{
    D->senders.n = 0;
    int own = 0;
    for (int k = 0; k < D->npeers; k++) {
        const hm__peer_t *p = &D->peers[k];
        if (!own && p->rank > D->rank) {
            add_own_senders(m, D);
            own = 1;
        }
        const unsigned char *q = p->in.v, *end = p->in.v + p->in.n;
        if (q == end)
            continue;
        for (uint64_t i = hm__dist_get_u(&q); i > 0; i--)
            m->occ[hm__dist_get_u(&q)]--;
        while (q < end) {
            int32_t src = unpack_copy(m, D, &q, t);
            if (src >= 0)
                add_sender(D, src);
        }
    }
    if (!own)
        add_own_senders(m, D);
}

static int commit(hm__machine_t *m, int64_t t)
{
    hm__dist_t *D = m->dist;
    pack_slot(m, D, t);
    for (size_t i = 0; i < m->active.n; i++)
        D->reads[m->active.v[i] - m->lo].n = 0;
    hm__dist_exchange(D, 1, TAG_SLOT);
    D->exchanges++;
    unpack_slot(m, D, t);
    hm__judge_t *J = &D->judge;
    hm__judge_begin(J, &m->stats);
    if (hm__judge_take_held(J, &D->pending) != 0 ||
        hm__judge_take_unstalled(J, m, &D->stalled, t) != 0)
        hm__dist_abort_all("out of memory in the mailboxes");
    for (size_t i = 0; i < D->senders.n; i++)
        if (hm__judge_take_new(J, m, &m->nodes[D->senders.v[i]], t) != 0)
            hm__dist_abort_all("out of memory in the mailboxes");
    if (hm__dist_decide(m, D, t) != 0)
        hm__dist_abort_all("out of memory in the mailboxes");
    return 0;
}

/* Circuit routing: engine/mpi_circuit.c decides each message where its state lives. */
static int commit_circuits(hm__machine_t *m, int64_t t)
{
    return hm__dcirc_commit(m, t);
}

static int64_t next_circuits(hm__machine_t *m, int64_t t)
{
    return hm__dcirc_next(m, t);
}

static json_t *summary_circuits(const hm__machine_t *m)
{
    return hm__circuits_summary(m, ((const hm__dist_t *)m->dist)->cs);
}

/* ---- the judge's lists (as engine/packet.c's) ---------------------------------------- */

static hm__copyvec_t *held(void *ctx, int src)
{
    (void)src;
    return &((hm__dist_t *)ctx)->pending;
}

static hm__copyvec_t *stalled(void *ctx, int src)
{
    (void)src;
    return &((hm__dist_t *)ctx)->stalled;
}

static hm__machine_t *machine_of(void *ctx);

static int woke(void *ctx, hm_node_t *r, int64_t t)
{
    (void)t;
    return hm__slot_woke(machine_of(ctx), r);
}

static void take_back(void *ctx, hm_node_t *n, int64_t t)
{
    (void)t;
    hm__slot_take_back(machine_of(ctx), n);
}

static int wait_again(void *ctx, hm_node_t *n, int64_t t)
{
    (void)t;
    return hm__register_wait(machine_of(ctx), n);
}

/* A strict conflict: the first in candidate order stops the run (both ends of its link
 * find it; agree() picks the first of every rank's). */
static void conflict(void *ctx, const hm__copy_t *c, int64_t t, char *reason)
{
    (void)t;
    hm__dist_t *D = ctx;
    if (D->conflict && hm__cand_cmp(c, &D->conflict_at) >= 0) {
        free(reason);
        return;
    }
    free(D->conflict);
    D->conflict = reason;
    D->conflict_at = *c;
    D->conflict_at.blob = NULL;
}

static const hm__judge_ops_t dist_ops = {held, stalled, woke, take_back, wait_again, conflict};

static int64_t next(hm__machine_t *m, int64_t t)
{
    const hm__dist_t *D = m->dist;
    return D->pending.n > 0 ? t + 1 : INT64_MAX;
}

/* The receiver whose full mailbox holds node back (its oldest stalled copy); for another
 * rank's node, what that rank said before the deadlock report. */
static int stalled_on(const hm__machine_t *m, int node)
{
    const hm__dist_t *D = m->dist;
    if (!hm__local(m, node))
        return D->stalled_to ? D->stalled_to[node] : -1;
    for (size_t k = 0; k < D->stalled.n; k++)
        if (D->stalled.v[k].src == node)
            return D->stalled.v[k].dst;
    return -1;
}

/* ---- agreeing on the next slot and on a stop ------------------------------------- */

/* One reduction: the earliest next slot, the nodes done, an interrupt, and the stop that
 * wins: a stop that is not a strict conflict (phase 0) before a conflict (phase 1), the
 * first conflict in candidate order, then the lowest rank. */
enum { A_NEXT, A_DONE, A_INTERRUPTED, A_PHASE, A_KEY, A_RANK = A_KEY + 6, A_END, A_COUNT };

static int stop_before(const int64_t *a, const int64_t *b)
{
    for (int k = A_PHASE; k <= A_RANK; k++)
        if (a[k] != b[k]) {
            if (k == A_KEY + 5) /* the flow, unsigned */
                return (uint64_t)a[k] < (uint64_t)b[k];
            return a[k] < b[k];
        }
    return 0;
}

static void agree_op(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    for (int o = 0; o + A_COUNT <= *len; o += A_COUNT) {
        const int64_t *a = (const int64_t *)in + o;
        int64_t *b = (int64_t *)inout + o;
        b[A_NEXT] = a[A_NEXT] < b[A_NEXT] ? a[A_NEXT] : b[A_NEXT];
        b[A_DONE] += a[A_DONE];
        b[A_INTERRUPTED] |= a[A_INTERRUPTED];
        if (stop_before(a, b))
            memcpy(b + A_PHASE, a + A_PHASE, (A_COUNT - A_PHASE) * sizeof *a);
    }
}

static MPI_Op agree_mpi_op = MPI_OP_NULL;

/* This rank's stop: phase 0 (it stopped the run), 1 (a strict conflict at key), none. */
static void my_stop(hm__machine_t *m, const hm__dist_t *D, int64_t *v)
{
    v[A_PHASE] = INT64_MAX;
    for (int k = 0; k < 6; k++)
        v[A_KEY + k] = 0;
    v[A_RANK] = D->rank;
    v[A_END] = m->end;
    if (hm__aborted(m)) {
        v[A_PHASE] = 0;
    } else if (D->conflict) {
        const hm__copy_t *c = &D->conflict_at;
        int64_t key[6] = {c->cslot, c->cls, c->sent_slot, c->src, c->idx, (int64_t)c->flow};
        v[A_PHASE] = 1;
        memcpy(v + A_KEY, key, sizeof key);
        v[A_END] = HM__END_CONFLICT;
    }
}

/* The run stops on every rank as on the rank whose stop won: its end cause and report. */
static void adopt_stop(hm__machine_t *m, hm__dist_t *D, const int64_t *all)
{
    int from = (int)all[A_RANK];
    if (D->rank == from && !hm__aborted(m)) {
        hm__stop(m, HM__END_CONFLICT, D->conflict);
        D->conflict = NULL;
    }
    int len = 0;
    if (D->rank == from)
        len = m->stop_reason ? (int)strlen(m->stop_reason) + 1 : 0;
    MPI_Bcast(&len, 1, MPI_INT, from, MPI_COMM_WORLD);
    char *reason = len ? malloc((size_t)len) : NULL;
    if (len && !reason)
        hm__dist_abort_all("out of memory stopping the run");
    if (D->rank == from && len)
        memcpy(reason, m->stop_reason, (size_t)len);
    if (len)
        MPI_Bcast(reason, len, MPI_CHAR, from, MPI_COMM_WORLD);
    if (D->rank == from) {
        free(reason);
        return;
    }
    free(m->stop_reason);
    m->stop_reason = reason;
    m->end = (hm__end_t)all[A_END];
    atomic_store(&m->aborted, 1);
}

/* The rest of the collectives' scratch: every rank's `out` into `in`, rank by rank. */
static void allgather_bytes(hm__dist_t *D)
{
    int mine = (int)D->out.n;
    MPI_Allgather(&mine, 1, MPI_INT, D->counts, 1, MPI_INT, MPI_COMM_WORLD);
    size_t total = 0;
    for (int r = 0; r < D->size; r++) {
        D->displs[r] = (int)total;
        total += (size_t)D->counts[r];
    }
    if (hm__grow((void **)&D->in.v, &D->in.cap, total ? total : 1, 1) != 0)
        hm__dist_abort_all("out of memory sharing what the nodes wait for");
    D->in.n = total;
    MPI_Allgatherv(D->out.v, mine, MPI_BYTE, D->in.v, D->counts, D->displs, MPI_BYTE,
                   MPI_COMM_WORLD);
}

/* What a deadlock report says of a node: what it waits for and in what (hm_wait_note),
 * whom its full mailbox holds it back on, its refused calls. */
typedef struct wire_wait_s {
    int32_t wait, stalled_to;
    int64_t refused;
    char note[160];
} wire_wait_t;

static void unpack_wait(hm__machine_t *m, hm__dist_t *D, int i, const unsigned char **q)
{
    wire_wait_t w;
    hm_node_t *n = &m->nodes[i];
    hm__dist_get(q, &w, sizeof w);
    n->wait = (hm__wait_t)w.wait;
    n->stalled = w.stalled_to >= 0;
    D->stalled_to[i] = w.stalled_to;
    memcpy(n->wait_note, w.note, sizeof n->wait_note);
    n->refused = w.refused;
    if (w.refused > 0 && !n->refusals &&
        !(n->refusals = calloc(HM__REFUSED_KEEP, sizeof *n->refusals)))
        hm__dist_abort_all("out of memory sharing what the nodes wait for");
    if (w.refused > 0)
        hm__dist_get(q, n->refusals, sizeof *n->refusals);
}

/* Before a deadlock report: what every node waits for, from the rank that runs it. */
static void share_waits(hm__machine_t *m, hm__dist_t *D)
{
    D->out.n = 0;
    for (int i = m->lo; i < m->hi; i++) {
        const hm_node_t *n = &m->nodes[i];
        wire_wait_t w = {(int32_t)n->wait, n->stalled > 0 ? stalled_on(m, i) : -1, n->refused, {0}};
        memcpy(w.note, n->wait_note, sizeof w.note);
        hm__dist_put(&D->out, &w, sizeof w);
        if (n->refused > 0) {
            hm__refusal_t first = {0};
            if (n->refusals)
                first = n->refusals[0];
            hm__dist_put(&D->out, &first, sizeof first);
        }
    }
    allgather_bytes(D);
    if (!D->stalled_to && !(D->stalled_to = calloc((size_t)m->info.nodes, sizeof *D->stalled_to)))
        hm__dist_abort_all("out of memory sharing what the nodes wait for");
    for (int r = 0; r < D->size; r++) {
        const unsigned char *q = D->in.v + D->displs[r];
        if (r != D->rank)
            for (int i = D->first[r]; i < D->first[r + 1]; i++)
                unpack_wait(m, D, i, &q);
    }
}

static int64_t agree(hm__machine_t *m, int64_t next_slot, int *done, int *interrupted)
{
    hm__dist_t *D = m->dist;
    int64_t mine[A_COUNT] = {next_slot, *done, *interrupted}, all[A_COUNT];
    my_stop(m, D, mine);
    double t0 = MPI_Wtime();
    MPI_Allreduce(mine, all, A_COUNT, MPI_INT64_T, agree_mpi_op, MPI_COMM_WORLD);
    D->mpi_seconds += MPI_Wtime() - t0;
    *done = (int)all[A_DONE];
    *interrupted = (int)all[A_INTERRUPTED];
    if (all[A_PHASE] != INT64_MAX)
        adopt_stop(m, D, all);
    else if (!*interrupted && all[A_NEXT] == INT64_MAX && *done < m->info.nodes)
        share_waits(m, D); /* the clock reports a deadlock */
    free(D->conflict);
    D->conflict = NULL;
    return all[A_NEXT];
}

/* ---- the node side: reads are noted for the other ranks ------------------------ */

static void note_read(hm_node_t *n)
{
    hm__machine_t *m = n->m;
    if (n->inbox.n == 0)
        return;
    const hm__copy_t *c = &n->inbox.v[n->inbox.head];
    if (c->sport >= 0 &&
        HM__PUSH(((hm__dist_t *)m->dist)->reads[n->id - m->lo], c->src * m->maxdeg + c->sport) != 0)
        n->failed = 1;
}

static int recv(hm_node_t *n, hm_packet_t *out)
{
    note_read(n);
    return hm__slot_recv(n, out);
}

static int wait_packet(hm_node_t *n, hm_packet_t *out, int64_t deadline)
{
    int rc = hm__slot_wait_packet(n, NULL, deadline);
    return rc != HM_OK || !out ? rc : recv(n, out);
}

/* What one rank cannot get past ends every rank: a thread that cannot be created (the
 * other ranks cannot close slot 0; exit 4), or, after the run was stopped, a node that
 * holds its slot open (engine/watchdog.c: clock.slot_timeout, an interrupt held up, a
 * node that left its thread), for which the other ranks would wait forever: the
 * stop's reason and exit code. */
static void abort_run(hm__machine_t *m, char *reason)
{
    int stopped = hm__aborted(m), code = stopped ? hm__exit_code_of(m->end) : HM_EXIT_SYSTEM;
    if (code == HM_EXIT_OK)
        code = HM_EXIT_SYSTEM;
    say("%s: stopping every rank", reason    ? reason
                                   : stopped ? hm__end_name(m->end)
                                             : "cannot start the node threads");
    MPI_Abort(MPI_COMM_WORLD, code);
    exit(code);
}

/* ---- create, destroy --------------------------------------------------------------- */

static void destroy(hm__machine_t *m)
{
    hm__dist_t *D = m->dist;
    if (!D)
        return;
    if (D->reads)
        for (int i = 0; i < m->hi - m->lo; i++)
            free(D->reads[i].v);
    for (int k = 0; k < D->npeers; k++) {
        free(D->peers[k].out.v);
        free(D->peers[k].in.v);
        free(D->peers[k].shared.v);
    }
    hm__copies_free(&D->pending);
    hm__copies_free(&D->stalled);
    hm__judge_free(&D->judge);
    hm__circuits_free(D->cs);
    hm__dcirc_free(D->dc, D->size);
    free(D->reads);
    free(D->first);
    free(D->remote);
    free(D->peers);
    free(D->peer_of);
    free(D->senders.v);
    free(D->out.v);
    free(D->in.v);
    free(D->counts);
    free(D->displs);
    free(D->done);
    free(D->mine);
    free(D->theirs);
    free(D->ord);
    free(D->blocked);
    free(D->conflict);
    free(D->stalled_to);
    free(D);
    m->dist = NULL;
}

static hm__machine_t *machine_of(void *ctx)
{
    return ((hm__dist_t *)ctx)->m;
}

/* The peers: the ranks whose nodes share a link with this rank's (every rank under the
 * bus port model, whose one channel every rank judges), in rank order. */
static int find_peers(hm__machine_t *m, hm__dist_t *D)
{
    D->all = m->info.ports == HM_PORTS_BUS;
    for (int r = 0; r < D->size; r++)
        D->peer_of[r] = D->all && r != D->rank ? 0 : -1;
    for (int i = m->lo; i < m->hi; i++)
        for (int p = 0; p < m->maxdeg; p++) {
            int x = m->nbr[(size_t)i * (size_t)m->maxdeg + (size_t)p];
            if (x >= 0 && !hm__local(m, x))
                D->peer_of[hm__dist_rank_of(D, x)] = 0;
        }
    D->peers = calloc((size_t)D->size, sizeof *D->peers);
    if (!D->peers)
        return -1;
    for (int r = 0; r < D->size; r++)
        if (D->peer_of[r] == 0) {
            D->peer_of[r] = D->npeers;
            D->peers[D->npeers++].rank = r;
        }
    return 0;
}

static int create(hm__machine_t *m)
{
    hm__dist_t *D = calloc(1, sizeof *D);
    m->dist = D;
    if (!D)
        return -1;
    D->m = m;
    D->rank = world_rank;
    D->size = world_size;
    D->first = calloc((size_t)world_size + 1, sizeof *D->first);
    D->counts = calloc((size_t)world_size, sizeof *D->counts);
    D->displs = calloc((size_t)world_size, sizeof *D->displs);
    D->peer_of = calloc((size_t)world_size, sizeof *D->peer_of);
    size_t nodes = (size_t)m->info.nodes;
    D->remote = calloc(nodes, 1);
    D->blocked = calloc(nodes, sizeof *D->blocked);
    if (!D->first || !D->counts || !D->displs || !D->peer_of || !D->remote || !D->blocked)
        return -1;
    split(&m->info, world_size, D->first);
    m->lo = D->first[world_rank];
    m->hi = D->first[world_rank + 1];
    for (size_t i = 0; i < nodes; i++)
        D->remote[i] = !hm__local(m, (int)i);
    D->reads = calloc((size_t)(m->hi - m->lo) + 1, sizeof *D->reads);
    if (!D->reads || find_peers(m, D) != 0 || hm__judge_init(&D->judge, m, &dist_ops, D) != 0)
        return -1;
    if (m->info.circuit && (!(D->cs = hm__circuits_new(m)) || !(D->dc = hm__dcirc_new(m, D))))
        return -1;
    if (!D->all)
        D->judge.use.remote = D->remote;
    if (agree_mpi_op == MPI_OP_NULL)
        MPI_Op_create(agree_op, 1, &agree_mpi_op);
    return 0;
}

/* ---- the command line's side ----------------------------------------------------- */

static hm__transport_t transport_mpi, transport_mpi_circuit;

static void finalize(void)
{
    int done = 0;
    MPI_Finalized(&done);
    if (!done)
        MPI_Finalize();
}

int hm__mpi_start(int *argc, char ***argv)
{
    int provided = 0;
    if (MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS)
        return -1;
    atexit(finalize);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    if (provided < MPI_THREAD_SERIALIZED) {
        say("this MPI gives thread level %d, MPI_THREAD_SERIALIZED (%d) is needed", provided,
            MPI_THREAD_SERIALIZED);
        return -1;
    }
    /* Rank 0 speaks for the run; the others' messages would repeat its own. Until
     * the ranks agree (hm__mpi_agree), their standard error goes to a file: the first
     * line of a rank that stops before the run says why, and rank 0 repeats it. */
    if (world_rank != 0) {
        err_fd = dup(2);
        early = tmpfile();
        if (err_fd < 0 || !freopen("/dev/null", "w", stdout) ||
            (early ? dup2(fileno(early), 2) < 0 : !freopen("/dev/null", "w", stderr)))
            return -1;
    }
    transport_mpi = hm__transport_packet;
    transport_mpi.name = "the mailboxes across MPI ranks";
    transport_mpi.create = create;
    transport_mpi.destroy = destroy;
    transport_mpi.recv = recv;
    transport_mpi.wait_packet = wait_packet;
    transport_mpi.abort = abort_run;
    transport_mpi.commit = commit;
    transport_mpi.next = next;
    transport_mpi.stalled_on = stalled_on;
    transport_mpi.collect = hm__dist_collect;
    transport_mpi.agree = agree;
    transport_mpi_circuit = transport_mpi;
    transport_mpi_circuit.name = "the circuits across MPI ranks";
    transport_mpi_circuit.emit = hm__transport_circuit.emit;
    transport_mpi_circuit.send_to = hm__transport_circuit.send_to;
    transport_mpi_circuit.commit = commit_circuits;
    transport_mpi_circuit.next = next_circuits;
    transport_mpi_circuit.stalled_on = NULL;
    transport_mpi_circuit.summary = summary_circuits;
    transport_mpi_circuit.summary_key = hm__transport_circuit.summary_key;
    return 0;
}

int hm__mpi_rank(void)
{
    return world_rank;
}

int hm__mpi_size(void)
{
    return world_size;
}

const hm__transport_t *hm__mpi_transport(int circuit)
{
    return circuit ? &transport_mpi_circuit : &transport_mpi;
}

void hm__mpi_early_message(char *buf, size_t len)
{
    buf[0] = 0;
    if (!early)
        return;
    fflush(stderr);
    ssize_t n = pread(fileno(early), buf, len - 1, 0);
    buf[n > 0 ? n : 0] = 0;
    buf[strcspn(buf, "\n")] = 0;
    int null = open("/dev/null", O_WRONLY);
    if (null >= 0) {
        dup2(null, 2);
        close(null);
    }
    fclose(early);
    early = NULL;
}

int hm__mpi_agree(const char *text, uint64_t digest, int stop, char **theirs, int *rank, int *stop0)
{
    /* Every rank's digest and stop code (-1: it goes on); out of memory counts as a
     * difference (a digest no text has). */
    int64_t mine[2] = {text ? (int64_t)digest : -1, stop};
    int64_t *all = malloc((size_t)world_size * sizeof mine);
    if (!all)
        hm__dist_abort_all("out of memory comparing the ranks' configs");
    MPI_Allgather(mine, 2, MPI_INT64_T, all, 2, MPI_INT64_T, MPI_COMM_WORLD);
    int r = 1, stops = 0;
    for (int k = 0; k < world_size; k++)
        stops += all[2 * k + 1] >= 0;
    while (r < world_size && all[2 * r] == all[0])
        r++;
    *stop0 = (int)all[1];
    free(all);
    *theirs = NULL;
    *rank = r;
    if (stops == world_size)
        return HM__AGREE_STOP;
    if (r == world_size)
        return HM__AGREE_SAME;
    /* Rank r's description, to rank 0, which names the first difference. */
    int len = 0;
    if (world_rank == r) {
        len = text ? (int)strlen(text) + 1 : 0;
        MPI_Send(&len, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        if (len)
            MPI_Send(text, len, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
    } else if (world_rank == 0) {
        MPI_Recv(&len, 1, MPI_INT, r, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        *theirs = len ? malloc((size_t)len) : NULL;
        if (len && !*theirs)
            hm__dist_abort_all("out of memory comparing the ranks' configs");
        if (len)
            MPI_Recv(*theirs, len, MPI_CHAR, r, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    return HM__AGREE_DIFFER;
}

int hm__mpi_agree_exit(int code)
{
    MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return code;
}
