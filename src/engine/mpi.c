/* SPDX-License-Identifier: MIT */
/*
 * mpi.c — the packet transport across MPI processes (doc/mpi.md). Built into
 * hypemu-mpi only; the plain hypemu links no MPI.
 *
 * Each process (rank) runs the threads of one block of nodes (hypercube: by the high
 * address bits; grids: whole rows) on the barrier clock of engine/clock.c. The commit
 * of a slot is replicated: every rank holds the whole state of the packet transport
 * (mailbox occupancy, delayed and stalled copies, the port model's use of the slot)
 * and runs the same commit (engine/packet.c, hm__packet_commit) on the same
 * candidates, so every rank takes the same decisions; each then delivers, wakes and
 * logs only for its own nodes. What one rank must learn from the others, once per
 * slot in which it takes part (MPI_Alltoallv):
 *   - the copies sent by their nodes in the slot, in node order: every copy's head
 *     (what the port models judge), and the rest and the bytes of the copies to its
 *     own nodes only,
 *   - the links whose packets their nodes read (a read frees a place in a mailbox).
 * After the commit, agree() (MPI_Allgather) settles the next slot with work (the
 * earliest of every rank's), the number of nodes done, an interrupt and a stop: a
 * run stops on every rank with the same end cause and report. The run's logs,
 * stores and output areas are gathered on rank 0 (collect()), whose machine then
 * looks exactly like that of a single process.
 *
 * MPI is called by one thread at a time (MPI_THREAD_SERIALIZED): the main thread
 * before and after the node threads, and in between the node thread that commits a
 * slot, which the clock serialises.
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hm_internal.h"
#include "mpi_transport.h"

typedef HM__VEC(unsigned char) bytes_t;
typedef HM__VEC(int32_t) int32vec_t;

typedef struct dist_s {
    int rank, size;
    int *first;             /* first[r]: the first node of rank r; first[size] = nodes */
    int32vec_t *reads;      /* per own node: links of the packets it read in its slot */
    int32vec_t senders;     /* scratch: the slot's senders, ascending */
    bytes_t out, in;        /* scratch: what this rank sends, what every rank sent */
    int *counts, *displs;   /* what each rank sent to this one, where it is in `in` */
    int *scounts, *sdispls; /* what this rank sends to each, where it is in `out` */
    /* HM_MPI_STATS=1 (doc/mpi.md): the cost of crossing ranks, printed by rank 0. */
    int64_t exchanges, foreign; /* slot exchanges; copies received from other ranks */
    int64_t delivered;          /* of them, whole (their receiver runs here) */
    int64_t received;           /* bytes received in the slot exchanges */
    double mpi_seconds;         /* in the slot exchanges and agreements */
} dist_t;

static double seconds_now(void)
{
    return MPI_Wtime();
}

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
static _Noreturn void abort_all(const char *what)
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

/* ---- packing ---------------------------------------------------------------------- */

static void put(bytes_t *b, const void *p, size_t len)
{
    if (hm__grow((void **)&b->v, &b->cap, b->n + len, 1) != 0)
        abort_all("out of memory packing a slot's packets");
    memcpy(b->v + b->n, p, len);
    b->n += len;
}

static void get(const unsigned char **p, void *to, size_t len)
{
    memcpy(to, *p, len);
    *p += len;
}

/* A copy on the wire. Every rank replicates the commit, so every rank learns every
 * copy's head: what the port models judge (sender, receiver, link, emission) and
 * what their refusals name (msg). The rest and the payload go only to the rank that
 * runs the receiver, which delivers and logs the copy. */
typedef struct wire_head_s {
    int32_t src, dst, sport, msg;
    uint32_t emission;
} wire_head_t;

typedef struct wire_rest_s {
    int32_t dport, origin, tag, aux;
    uint32_t len;
} wire_rest_t;

typedef struct wire_wide_s {
    int64_t value, sent_slot, dur;
    uint64_t flow;
} wire_wide_t;

/* No padding goes on the wire: 20 + 20 + 32 bytes, as doc/mpi.md says. */
_Static_assert(sizeof(wire_head_t) == 20 && sizeof(wire_rest_t) == 20 && sizeof(wire_wide_t) == 32,
               "wire formats without padding");

/* Copy c for a rank that runs its receiver (whole) or not (its head only). */
static void pack_copy(bytes_t *b, const hm__copy_t *c, int whole)
{
    wire_head_t h = {c->src, c->dst, c->sport, c->pkt.msg, c->emission};
    put(b, &h, sizeof h);
    if (!whole)
        return;
    wire_rest_t w = {c->dport, c->pkt.origin, c->pkt.tag, c->pkt.aux, c->pkt.len};
    wire_wide_t x = {c->pkt.value, c->sent_slot, c->dur, c->flow};
    put(b, &w, sizeof w);
    put(b, &x, sizeof x);
    if (w.len)
        put(b, c->pkt.data, w.len);
}

/* A copy from another rank into its sender's outbox (the sender runs elsewhere: its
 * outbox here holds what the commit judges). Its rest and bytes follow its head when
 * its receiver runs here. Returns its sender. */
static int32_t unpack_copy(hm__machine_t *m, dist_t *D, const unsigned char **p)
{
    wire_head_t h;
    get(p, &h, sizeof h);
    hm__copy_t c = {.pkt = {.msg = h.msg},
                    .src = h.src,
                    .dst = h.dst,
                    .sport = h.sport,
                    .emission = h.emission};
    if (hm__local(m, h.dst)) {
        wire_rest_t w;
        wire_wide_t x;
        get(p, &w, sizeof w);
        get(p, &x, sizeof x);
        hm_packet_t pkt = {.msg = h.msg,
                           .origin = w.origin,
                           .value = x.value,
                           .tag = w.tag,
                           .aux = w.aux,
                           .data = *p,
                           .len = w.len};
        *p += w.len;
        int fail = 0;
        c.blob = hm__blob_new(&pkt, 1, &fail);
        if (fail)
            abort_all("out of memory receiving a slot's packets");
        pkt.data = c.blob ? c.blob->bytes : NULL;
        c.pkt = pkt;
        c.dport = w.dport;
        c.sent_slot = x.sent_slot;
        c.flow = x.flow;
        c.dur = x.dur;
        D->delivered++;
    }
    if (HM__PUSH(m->nodes[h.src].outbox, c) != 0)
        abort_all("out of memory receiving a slot's packets");
    D->foreign++;
    return h.src;
}

/* Lay out `in` for what every rank sends to this one (D->counts[r] bytes from rank r):
 * the displacements, and room for the whole. */
static void layout_in(dist_t *D)
{
    size_t total = 0;
    for (int r = 0; r < D->size; r++) {
        D->displs[r] = (int)total;
        total += (size_t)D->counts[r];
    }
    if (hm__grow((void **)&D->in.v, &D->in.cap, total ? total : 1, 1) != 0)
        abort_all("out of memory exchanging a slot's packets");
    D->in.n = total;
}

/* Every rank's buffer `out` into `in`, rank by rank; displs[r] says where. */
static void allgather_bytes(dist_t *D)
{
    int mine = (int)D->out.n;
    MPI_Allgather(&mine, 1, MPI_INT, D->counts, 1, MPI_INT, MPI_COMM_WORLD);
    layout_in(D);
    MPI_Allgatherv(D->out.v, mine, MPI_BYTE, D->in.v, D->counts, D->displs, MPI_BYTE,
                   MPI_COMM_WORLD);
}

/* `out`, whose part for rank r is scounts[r] bytes at sdispls[r], to every rank: what
 * rank r sent to this one lands in `in`, counts[r] bytes at displs[r]. */
static void alltoall_bytes(dist_t *D)
{
    MPI_Alltoall(D->scounts, 1, MPI_INT, D->counts, 1, MPI_INT, MPI_COMM_WORLD);
    layout_in(D);
    MPI_Alltoallv(D->out.v, D->scounts, D->sdispls, MPI_BYTE, D->in.v, D->counts, D->displs,
                  MPI_BYTE, MPI_COMM_WORLD);
}

/* ---- the slot's exchange and commit ------------------------------------------------ */

/* This rank's part for rank r: the reads and the new copies of its nodes active in
 * the slot, in node order; a copy whole when r runs its receiver, else its head. */
static void pack_for(hm__machine_t *m, dist_t *D, int r, const int64_t *head)
{
    put(&D->out, head, 2 * sizeof *head);
    for (size_t i = 0; i < m->active.n; i++) {
        const int32vec_t *rd = &D->reads[m->active.v[i] - m->lo];
        if (rd->n)
            put(&D->out, rd->v, rd->n * sizeof *rd->v);
    }
    for (size_t i = 0; i < m->active.n; i++) {
        const hm_node_t *n = &m->nodes[m->active.v[i]];
        for (size_t k = 0; k < n->outbox.n; k++) {
            const hm__copy_t *c = &n->outbox.v[k];
            pack_copy(&D->out, c, c->dst >= D->first[r] && c->dst < D->first[r + 1]);
        }
    }
}

static void pack_slot(hm__machine_t *m, dist_t *D)
{
    int64_t head[2] = {0, 0}; /* reads, copies */
    for (size_t i = 0; i < m->active.n; i++) {
        int node = m->active.v[i];
        head[0] += (int64_t)D->reads[node - m->lo].n;
        head[1] += (int64_t)m->nodes[node].outbox.n;
    }
    D->out.n = 0;
    for (int r = 0; r < D->size; r++) {
        D->sdispls[r] = (int)D->out.n;
        if (r != D->rank)
            pack_for(m, D, r, head);
        D->scounts[r] = (int)D->out.n - D->sdispls[r];
    }
    for (size_t i = 0; i < m->active.n; i++)
        D->reads[m->active.v[i] - m->lo].n = 0;
}

static void add_sender(dist_t *D, int32_t node)
{
    if ((D->senders.n == 0 || D->senders.v[D->senders.n - 1] != node) &&
        HM__PUSH(D->senders, node) != 0)
        abort_all("out of memory exchanging a slot's packets");
}

/* The other ranks' part: their reads free places in mailboxes, their copies join the
 * slot's candidates; the senders of the whole machine, in node order. */
static void unpack_slot(hm__machine_t *m, dist_t *D)
{
    D->senders.n = 0;
    for (int r = 0; r < D->size; r++) {
        if (r == D->rank) {
            for (size_t i = 0; i < m->active.n; i++)
                if (m->nodes[m->active.v[i]].outbox.n > 0)
                    add_sender(D, m->active.v[i]);
            continue;
        }
        const unsigned char *p = D->in.v + D->displs[r];
        int64_t nreads, ncopies;
        get(&p, &nreads, sizeof nreads);
        get(&p, &ncopies, sizeof ncopies);
        for (int64_t k = 0; k < nreads; k++) {
            int32_t l;
            get(&p, &l, sizeof l);
            m->occ[l]--;
        }
        for (int64_t k = 0; k < ncopies; k++)
            add_sender(D, unpack_copy(m, D, &p));
    }
}

static int commit(hm__machine_t *m, int64_t t)
{
    dist_t *D = m->dist;
    pack_slot(m, D);
    double t0 = seconds_now();
    alltoall_bytes(D);
    D->mpi_seconds += seconds_now() - t0;
    D->exchanges++;
    D->received += (int64_t)D->in.n;
    unpack_slot(m, D);
    if (hm__packet_commit(m, t, D->senders.v, D->senders.n) != 0)
        abort_all("out of memory in the mailboxes");
    return 0;
}

/* ---- agreeing on the next slot and on a stop ------------------------------------- */

enum { A_NEXT, A_DONE, A_INTERRUPTED, A_ABORTED, A_END, A_COUNT };

/* The run stops on every rank as on the lowest rank that stopped it: its end cause
 * and its report. (A strict conflict is found by every rank at once, with the same
 * report: the commit is replicated.) */
static void adopt_stop(hm__machine_t *m, const int64_t *all)
{
    int from = 0;
    while (!all[from * A_COUNT + A_ABORTED])
        from++;
    int len = 0;
    if (world_rank == from)
        len = m->stop_reason ? (int)strlen(m->stop_reason) + 1 : 0;
    MPI_Bcast(&len, 1, MPI_INT, from, MPI_COMM_WORLD);
    char *reason = len ? malloc((size_t)len) : NULL;
    if (len && !reason)
        abort_all("out of memory stopping the run");
    if (world_rank == from && len)
        memcpy(reason, m->stop_reason, (size_t)len);
    if (len)
        MPI_Bcast(reason, len, MPI_CHAR, from, MPI_COMM_WORLD);
    if (world_rank == from) {
        free(reason);
        return;
    }
    free(m->stop_reason);
    m->stop_reason = reason;
    m->end = (hm__end_t)all[from * A_COUNT + A_END];
    atomic_store(&m->aborted, 1);
}

/* Before a deadlock report: what every node waits for, from the rank that runs it. */
static void share_waits(hm__machine_t *m, dist_t *D)
{
    D->out.n = 0;
    for (int i = m->lo; i < m->hi; i++) {
        unsigned char w = (unsigned char)m->nodes[i].wait;
        put(&D->out, &w, 1);
    }
    allgather_bytes(D);
    for (int r = 0; r < D->size; r++)
        if (r != D->rank)
            for (int i = D->first[r]; i < D->first[r + 1]; i++)
                m->nodes[i].wait = (hm__wait_t)D->in.v[D->displs[r] + (i - D->first[r])];
}

static int64_t agree(hm__machine_t *m, int64_t next, int *done, int *interrupted)
{
    dist_t *D = m->dist;
    int64_t mine[A_COUNT] = {next, *done, *interrupted, hm__aborted(m), m->end};
    int64_t *all = malloc((size_t)D->size * sizeof mine);
    if (!all)
        abort_all("out of memory agreeing on the next slot");
    double t0 = seconds_now();
    MPI_Allgather(mine, A_COUNT, MPI_INT64_T, all, A_COUNT, MPI_INT64_T, MPI_COMM_WORLD);
    D->mpi_seconds += seconds_now() - t0;
    int aborted = 0;
    *done = 0;
    for (int r = 0; r < D->size; r++) {
        const int64_t *a = &all[r * A_COUNT];
        next = a[A_NEXT] < next ? a[A_NEXT] : next;
        *done += (int)a[A_DONE];
        *interrupted |= (int)a[A_INTERRUPTED];
        aborted |= (int)a[A_ABORTED];
    }
    if (aborted)
        adopt_stop(m, all);
    else if (!*interrupted && next == INT64_MAX && *done < m->info.nodes)
        share_waits(m, D); /* the clock reports a deadlock */
    free(all);
    return next;
}

/* ---- the node side: reads are noted for the other ranks ------------------------ */

static void note_read(hm_node_t *n)
{
    hm__machine_t *m = n->m;
    if (n->inbox.n == 0)
        return;
    const hm__copy_t *c = &n->inbox.v[n->inbox.head];
    if (c->sport >= 0 &&
        HM__PUSH(((dist_t *)m->dist)->reads[n->id - m->lo], c->src * m->maxdeg + c->sport) != 0)
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

/* ---- gathering the run on rank 0 ----------------------------------------------------- */

/* What a node heard (engine/causal.c): the counts, then the reads and the words. */
static void pack_heard(bytes_t *b, const hm__heard_t *h)
{
    int64_t k[2] = {h ? (int64_t)h->reads.n : 0, h ? (int64_t)h->words.n : 0};
    put(b, k, sizeof k);
    if (k[0])
        put(b, h->reads.v, (size_t)k[0] * sizeof *h->reads.v);
    if (k[1])
        put(b, h->words.v, (size_t)k[1] * sizeof *h->words.v);
}

static void unpack_heard(const unsigned char **p, hm_node_t *n)
{
    int64_t k[2];
    get(p, k, sizeof k);
    if (!n->heard && !(n->heard = calloc(1, sizeof *n->heard)))
        abort_all("out of memory gathering what the nodes read");
    hm__heard_t *h = n->heard;
    h->reads.n = h->words.n = 0;
    if (hm__grow((void **)&h->reads.v, &h->reads.cap, (size_t)k[0] + 1, sizeof *h->reads.v) ||
        hm__grow((void **)&h->words.v, &h->words.cap, (size_t)k[1] + 1, sizeof *h->words.v))
        abort_all("out of memory gathering what the nodes read");
    get(p, h->reads.v, (size_t)k[0] * sizeof *h->reads.v);
    get(p, h->words.v, (size_t)k[1] * sizeof *h->words.v);
    h->reads.n = (size_t)k[0];
    h->words.n = (size_t)k[1];
}

static void pack_node(bytes_t *b, const hm__machine_t *m, const hm_node_t *n, size_t out_size)
{
    int64_t head[5] = {n->busy_last, n->failed + 2 * (int64_t)n->aborted, (int64_t)n->stores.n,
                       (int64_t)n->log.n, n->inbox.words};
    put(b, head, sizeof head);
    put(b, n->fail_what, sizeof n->fail_what);
    int64_t kept[2] = {n->refused, n->refusals ? n->refused : 0};
    if (kept[1] > HM__REFUSED_KEEP)
        kept[1] = HM__REFUSED_KEEP;
    put(b, kept, sizeof kept);
    if (kept[1])
        put(b, n->refusals, (size_t)kept[1] * sizeof *n->refusals);
    if (n->stores.n) {
        put(b, n->stores.v, n->stores.n * sizeof *n->stores.v);
        put(b, n->store_slots.v, n->stores.n * sizeof *n->store_slots.v);
    }
    if (out_size)
        put(b, m->out + (size_t)n->id * out_size, out_size);
    if (m->opt.record_reads)
        pack_heard(b, n->heard);
    for (size_t k = 0; k < n->log.n; k++) {
        hm__event_t e = n->log.v[k];
        uint32_t len = e.text ? (uint32_t)strlen(e.text) : UINT32_MAX;
        e.text = NULL;
        e.pay = NULL;
        put(b, &e, sizeof e);
        put(b, &len, sizeof len);
        if (len != UINT32_MAX)
            put(b, n->log.v[k].text, len);
        if (e.pay_n) /* a recv's payload, for the player (out/html.c) */
            put(b, n->log.v[k].pay, e.pay_n * sizeof *e.pay);
    }
    /* What it showed (hm_show), for the player. */
    int64_t shows = (int64_t)n->shows.n;
    put(b, &shows, sizeof shows);
    if (shows)
        put(b, n->shows.v, n->shows.n * sizeof *n->shows.v);
}

/* One event as pack_node put it: the record, its text, its payload's first words. */
static void get_event(const unsigned char **p, hm_node_t *n)
{
    hm__event_t e;
    uint32_t len;
    get(p, &e, sizeof e);
    get(p, &len, sizeof len);
    if (len != UINT32_MAX) {
        e.text = malloc((size_t)len + 1);
        if (!e.text)
            abort_all("out of memory gathering the logs");
        get(p, e.text, len);
        e.text[len] = 0;
    }
    if (e.pay_n) {
        e.pay = malloc(e.pay_n * sizeof *e.pay);
        if (!e.pay)
            abort_all("out of memory gathering the logs");
        get(p, e.pay, e.pay_n * sizeof *e.pay);
    }
    if (HM__PUSH(n->log, e) != 0)
        abort_all("out of memory gathering the logs");
}

static void get_shows(const unsigned char **p, hm_node_t *n)
{
    int64_t shows;
    get(p, &shows, sizeof shows);
    n->shows.n = 0;
    for (int64_t k = 0; k < shows; k++) {
        int64_t v;
        get(p, &v, sizeof v);
        if (HM__PUSH(n->shows, v) != 0)
            abort_all("out of memory gathering the logs");
    }
}

/* Its refused calls (README "Refused calls"): the count, the first in full. */
static void get_refusals(const unsigned char **p, hm_node_t *n)
{
    int64_t kept[2];
    get(p, kept, sizeof kept);
    n->refused = kept[0];
    if (kept[1] > 0 && !n->refusals &&
        !(n->refusals = calloc(HM__REFUSED_KEEP, sizeof *n->refusals)))
        abort_all("out of memory gathering the refused calls");
    if (kept[1] > 0)
        get(p, n->refusals, (size_t)kept[1] * sizeof *n->refusals);
}

static void unpack_node(const unsigned char **p, hm__machine_t *m, hm_node_t *n, size_t out_size)
{
    int64_t head[5];
    get(p, head, sizeof head);
    n->busy_last = head[0];
    n->failed = (int)(head[1] & 1);
    n->aborted = (int)(head[1] >> 1);
    n->inbox.words = head[4];
    get(p, n->fail_what, sizeof n->fail_what);
    get_refusals(p, n);
    n->stores.n = n->store_slots.n = 0;
    for (int64_t k = 0; k < head[2]; k++) {
        int64_t v;
        get(p, &v, sizeof v);
        if (HM__PUSH(n->stores, v) != 0)
            abort_all("out of memory gathering the stores");
    }
    for (int64_t k = 0; k < head[2]; k++) {
        int64_t v;
        get(p, &v, sizeof v);
        if (HM__PUSH(n->store_slots, v) != 0)
            abort_all("out of memory gathering the stores");
    }
    if (out_size)
        get(p, m->out + (size_t)n->id * out_size, out_size);
    if (m->opt.record_reads)
        unpack_heard(p, n);
    for (int64_t k = 0; k < head[3]; k++)
        get_event(p, n);
    get_shows(p, n);
}

/* HM_MPI_STATS=1: the slot exchanges, the time in MPI (slowest rank), the copies that
 * crossed ranks (every copy's head reaches every other rank) and the bytes received,
 * on rank 0's stderr. */
static void print_stats(const dist_t *D)
{
    const char *env = getenv("HM_MPI_STATS");
    if (!env || strcmp(env, "1") != 0)
        return;
    double slowest = 0;
    int64_t mine[3] = {D->foreign, D->delivered, D->received}, sum[3] = {0, 0, 0};
    MPI_Reduce(&D->mpi_seconds, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(mine, sum, 3, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    if (D->rank == 0)
        say("%d ranks, %lld slot exchanges, %.3f s in MPI (slowest rank: %.1f us per slot), "
            "%lld copies received from other ranks (%lld whole, to their receiver's rank; "
            "the others as a %zu-byte head), %lld bytes received",
            D->size, (long long)D->exchanges, slowest,
            D->exchanges ? 1e6 * slowest / (double)D->exchanges : 0.0, (long long)sum[0],
            (long long)sum[1], sizeof(wire_head_t), (long long)sum[2]);
}

/* Every rank's nodes (logs, stores, output areas, figures) into rank 0's machine. */
static void collect(hm__machine_t *m)
{
    dist_t *D = m->dist;
    print_stats(D);
    size_t out_size = hm__out_size(&m->opt, m->algo);
    D->out.n = 0;
    for (int i = m->lo; i < m->hi; i++)
        pack_node(&D->out, m, &m->nodes[i], out_size);
    int mine = (int)D->out.n;
    MPI_Gather(&mine, 1, MPI_INT, D->counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    size_t total = 0;
    if (D->rank == 0)
        for (int r = 0; r < D->size; r++) {
            D->displs[r] = (int)total;
            total += (size_t)D->counts[r];
        }
    if (hm__grow((void **)&D->in.v, &D->in.cap, total ? total : 1, 1) != 0)
        abort_all("out of memory gathering the run");
    MPI_Gatherv(D->out.v, mine, MPI_BYTE, D->in.v, D->counts, D->displs, MPI_BYTE, 0,
                MPI_COMM_WORLD);
    if (D->rank != 0)
        return;
    for (int r = 1; r < D->size; r++) {
        const unsigned char *p = D->in.v + D->displs[r];
        for (int i = D->first[r]; i < D->first[r + 1]; i++)
            unpack_node(&p, m, &m->nodes[i], out_size);
    }
}

/* ---- create, destroy --------------------------------------------------------------- */

static void destroy(hm__machine_t *m)
{
    dist_t *D = m->dist;
    if (D) {
        if (D->reads)
            for (int i = 0; i < m->hi - m->lo; i++)
                free(D->reads[i].v);
        free(D->reads);
        free(D->first);
        free(D->senders.v);
        free(D->out.v);
        free(D->in.v);
        free(D->counts);
        free(D->displs);
        free(D->scounts);
        free(D->sdispls);
        free(D);
        m->dist = NULL;
    }
    hm__transport_packet.destroy(m);
}

static int create(hm__machine_t *m)
{
    if (hm__transport_packet.create(m) != 0)
        return -1;
    dist_t *D = calloc(1, sizeof *D);
    m->dist = D;
    if (!D)
        return -1;
    D->rank = world_rank;
    D->size = world_size;
    D->first = calloc((size_t)world_size + 1, sizeof *D->first);
    D->counts = calloc((size_t)world_size, sizeof *D->counts);
    D->displs = calloc((size_t)world_size, sizeof *D->displs);
    D->scounts = calloc((size_t)world_size, sizeof *D->scounts);
    D->sdispls = calloc((size_t)world_size, sizeof *D->sdispls);
    if (!D->first || !D->counts || !D->displs || !D->scounts || !D->sdispls)
        return -1;
    split(&m->info, world_size, D->first);
    m->lo = D->first[world_rank];
    m->hi = D->first[world_rank + 1];
    D->reads = calloc((size_t)(m->hi - m->lo) + 1, sizeof *D->reads);
    return D->reads ? 0 : -1;
}

/* ---- the command line's side ----------------------------------------------------- */

static hm__transport_t transport_mpi;

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
    transport_mpi.collect = collect;
    transport_mpi.agree = agree;
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

const hm__transport_t *hm__mpi_transport(void)
{
    return &transport_mpi;
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
        abort_all("out of memory comparing the ranks' configs");
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
            abort_all("out of memory comparing the ranks' configs");
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
