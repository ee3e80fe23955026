/* SPDX-License-Identifier: MIT */
/*
 * coll.c — the MPI library's collectives and reductions (doc/mpi-programs.md,
 * "Collectives"), over its own point-to-point calls with internal tags below 0. Each runs the
 * catalogue's own schedule (src/algo/common/coll_core.c, generic over the element; the
 * catalogue's node programs run the same code over int64 values and hm ports): MPI_Bcast
 * bcast-binomial; MPI_Reduce reduce-binomial; MPI_Allreduce allreduce-recursive-doubling (the
 * fold when p is not a power of two) while the vector fits a packet, beyond allreduce-ring on a
 * ring, else reduce-binomial and bcast-binomial; MPI_Allgather allgather-recursive-doubling on a
 * hypercube, else allgather-ring; MPI_Gather gather-binomial; MPI_Scatter scatter-binomial;
 * MPI_Alltoall alltoall-pairwise; MPI_Barrier an empty reduce-binomial and bcast-binomial;
 * MPI_Reduce_scatter_block reduce-binomial to rank 0, then MPI_Scatter, on a hypercube, else
 * reduce-scatter-ring. Relative numbers are rank XOR root on a hypercube, rank - root mod p
 * elsewhere (the catalogue's on the hypercube and on the bus); ring positions and the pairwise
 * exchange's partners are ranks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll_core.h"
#include "mpiprog.h"

#define HM_MPI_OP_ARITH(ctype)                                                                     \
    do {                                                                                           \
        ctype *a = inout;                                                                          \
        const ctype *b = in;                                                                       \
        for (int i = 0; i < count; i++)                                                            \
            switch (op) {                                                                          \
            case MPI_SUM:                                                                          \
                a[i] = (ctype)(a[i] + b[i]);                                                       \
                break;                                                                             \
            case MPI_PROD:                                                                         \
                a[i] = (ctype)(a[i] * b[i]);                                                       \
                break;                                                                             \
            case MPI_MAX:                                                                          \
                a[i] = a[i] > b[i] ? a[i] : b[i];                                                  \
                break;                                                                             \
            case MPI_MIN:                                                                          \
                a[i] = a[i] < b[i] ? a[i] : b[i];                                                  \
                break;                                                                             \
            case MPI_LAND:                                                                         \
                a[i] = (ctype)(a[i] && b[i]);                                                      \
                break;                                                                             \
            case MPI_LOR:                                                                          \
                a[i] = (ctype)(a[i] || b[i]);                                                      \
                break;                                                                             \
            default:                                                                               \
                return -1;                                                                         \
            }                                                                                      \
        return 0;                                                                                  \
    } while (0)

#define HM_MPI_OP_INT(ctype)                                                                       \
    do {                                                                                           \
        if (op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR) {                                   \
            ctype *a = inout;                                                                      \
            const ctype *b = in;                                                                   \
            for (int i = 0; i < count; i++)                                                        \
                a[i] = (ctype)(op == MPI_BAND  ? a[i] & b[i]                                       \
                               : op == MPI_BOR ? a[i] | b[i]                                       \
                                               : a[i] ^ b[i]);                                     \
            return 0;                                                                              \
        }                                                                                          \
        HM_MPI_OP_ARITH(ctype);                                                                    \
    } while (0)

static int apply_small(void *inout, const void *in, int count, MPI_Datatype t, MPI_Op op)
{
    switch (t) {
    case MPI_CHAR:
        HM_MPI_OP_INT(char);
    case MPI_SIGNED_CHAR:
        HM_MPI_OP_INT(signed char);
    case MPI_UNSIGNED_CHAR:
    case MPI_BYTE:
        HM_MPI_OP_INT(unsigned char);
    case MPI_SHORT:
        HM_MPI_OP_INT(short);
    case MPI_UNSIGNED_SHORT:
        HM_MPI_OP_INT(unsigned short);
    default:
        return -1;
    }
}

int hm_mpi__apply(void *inout, const void *in, int count, MPI_Datatype t, MPI_Op op)
{
    switch (t) {
    case MPI_INT:
    case MPI_INT32_T:
        HM_MPI_OP_INT(int);
    case MPI_UNSIGNED:
        HM_MPI_OP_INT(unsigned);
    case MPI_LONG:
        HM_MPI_OP_INT(long);
    case MPI_UNSIGNED_LONG:
        HM_MPI_OP_INT(unsigned long);
    case MPI_LONG_LONG:
    case MPI_INT64_T:
        HM_MPI_OP_INT(long long);
    case MPI_UNSIGNED_LONG_LONG:
        HM_MPI_OP_INT(unsigned long long);
    case MPI_FLOAT:
        HM_MPI_OP_ARITH(float);
    case MPI_DOUBLE:
        HM_MPI_OP_ARITH(double);
    default:
        return apply_small(inout, in, count, t, op);
    }
}

static int fail(const char *call, const char *what)
{
    hm_mpi_rank_t *r = hm_mpi__self();
    char buf[160];
    snprintf(buf, sizeof buf, "rank %d: %s: %s", r->rank, call, what);
    hm_fail(r->n, buf);
    hm_mpi__recv(NULL, 0, r->rank, HM_MPI_TAG_BARRIER - 100, NULL, call); /* never: the run stops */
    return MPI_ERR_OTHER;
}

/* The transport of the shared schedules (coll_core.h) over the library's point-to-point
 * calls: peers are relative numbers (rank XOR root on a hypercube, rank - root mod p
 * elsewhere, as the catalogue's on the hypercube and on the bus) or ring positions (rank);
 * one internal tag per collective keeps each pair's messages in order. */
typedef struct coll_io_s {
    hm_mpi_rank_t *r;
    int root, xor, ring, tag;
    MPI_Datatype type;
    MPI_Op op;
    const char *call;
    hma_coll_io_t io;
} coll_io_t;

/* Whether the machine is a hypercube (no grid: hm_grid, hypemu(3)), the same for every rank. */
static int on_hypercube(const hm_mpi_rank_t *r)
{
    return hm_grid(r->n, NULL, NULL, NULL, NULL) != 0;
}

/* Whether it is a ring of 3 nodes or more (one row whose port 0 leads to x + 1 mod p: on a
 * linear array and a one-row mesh or torus port 0 leads west), the same for every rank. */
static int on_ring(const hm_mpi_rank_t *r)
{
    int rows = 0;
    return r->size >= 3 && hm_grid(r->n, &rows, NULL, NULL, NULL) == 0 && rows == 1 &&
           hm_neighbor(r->n, 0) == (r->rank + 1) % r->size;
}

/* Peers and this rank's number: relative numbers (MAP_REL), ranks (MAP_RANK), positions on
 * the cycle (MAP_CYCLE: the catalogue's Gray-code cycle on a hypercube, rank gray(position);
 * ranks elsewhere) or on the chain from the root (MAP_CHAIN: root XOR gray(position) on a
 * hypercube, root + position mod p elsewhere). */
enum { MAP_REL, MAP_RANK, MAP_CHAIN, MAP_CYCLE };

static int rank_of(const coll_io_t *c, int peer)
{
    if (c->ring == MAP_RANK || (c->ring == MAP_CYCLE && !c->xor))
        return peer;
    if (c->ring == MAP_CHAIN || c->ring == MAP_CYCLE)
        return c->xor ? (peer ^ (peer >> 1)) ^ c->root : (peer + c->root) % c->r->size;
    return c->xor ? peer ^ c->root : (peer + c->root) % c->r->size;
}

/* The inverse of rank_of: this rank's number. */
static int number_of(const coll_io_t *c)
{
    int rank = c->r->rank, pos = 0;
    if (c->ring == MAP_RANK || (c->ring == MAP_CYCLE && !c->xor))
        return rank;
    if (c->xor &&c->ring != MAP_REL)
        for (unsigned g = (unsigned)(rank ^ c->root); g; g >>= 1)
            pos ^= (int)g; /* the inverse of the Gray code */
    else
        pos = c->xor ? rank ^ c->root : (rank - c->root + c->r->size) % c->r->size;
    return pos;
}

static int io_send(void *ctx, int peer, int step, const void *buf, size_t count)
{
    (void)step;
    coll_io_t *c = ctx;
    return hm_mpi__send(buf, count * c->io.elem, c->io.elem, c->r->etype, rank_of(c, peer), c->tag);
}

static int io_recv(void *ctx, int peer, int step, void *buf, size_t count)
{
    (void)step;
    coll_io_t *c = ctx;
    return hm_mpi__recv(buf, count * c->io.elem, rank_of(c, peer), c->tag, NULL, c->call);
}

static int io_combine(void *ctx, void *acc, const void *in, size_t count)
{
    coll_io_t *c = ctx;
    if (hm_mpi__apply(acc, in, (int)count, c->type, c->op) != 0)
        return fail(c->call, "unknown datatype or op");
    return MPI_SUCCESS;
}

/* The transport of a collective rooted at root (0 for the others), peers numbered as ring
 * (MAP_REL, MAP_RANK, MAP_CHAIN, MAP_CYCLE) says. Returns this rank's number. */
static int coll_io(coll_io_t *c, int root, int ring, int tag, size_t elem, const char *call)
{
    hm_mpi_rank_t *r = hm_mpi__self();
    if (root < 0 || root >= r->size)
        fail(call, "root out of range"); /* the others would wait for it for ever */
    *c = (coll_io_t){
        .r = r, .root = root, .xor = on_hypercube(r), .ring = ring, .tag = tag, .call = call};
    c->io = (hma_coll_io_t){
        .ctx = c, .elem = elem, .send = io_send, .recv = io_recv, .combine = io_combine};
    return number_of(c);
}

/* bcast-binomial's schedule (coll_core.c), the catalogue's. */
static void bcast_bytes(void *buf, size_t bytes, size_t elsize, int root, int tag, const char *call)
{
    coll_io_t c;
    int rel = coll_io(&c, root, 0, tag, elsize, call);
    hma_coll_bcast_binomial(&c.io, rel, c.r->size, buf, elsize ? bytes / elsize : 0);
}

/* reduce-binomial's schedule (coll_core.c), the catalogue's, or with rab set
 * reduce-rabenseifner's (recursive halving, then the parts gathered up the binomial tree;
 * p a power of two): root ends with op over all. */
static int reduce_as(void *acc, int count, MPI_Datatype t, MPI_Op op, int root, const char *call,
                     int rab)
{
    coll_io_t c;
    size_t size = hm_mpi__size(t);
    int rel = coll_io(&c, root, 0, HM_MPI_TAG_REDUCE, size, call), p = c.r->size, rc;
    c.type = t;
    c.op = op;
    void *tmp = hm_mpi__scratch((size_t)count * size, call);
    if (!rab)
        rc = hma_coll_reduce_binomial(&c.io, rel, p, acc, tmp, (size_t)count);
    else if ((rc = hma_coll_halving(&c.io, rel, p, acc, tmp, (size_t)count, 0, -1)) == 0)
        rc = hma_coll_gather_parts(&c.io, rel, p, acc, (size_t)count, hma_coll_lg(p), -1);
    hm_mpi__unscratch(tmp);
    return rc;
}

static int reduce_to(void *acc, int count, MPI_Datatype t, MPI_Op op, int root, const char *call)
{
    return reduce_as(acc, count, t, op, root, call, 0);
}

static size_t check_type(int count, MPI_Datatype t, const char *call)
{
    size_t size = hm_mpi__size(t);
    if (!size || count < 0)
        fail(call, size ? "negative count" : "unknown datatype");
    hm_mpi__self()->etype = t; /* its elements widened as its kind says (p2p.c) */
    return size;
}

/* bcast-chain's schedule (one element a message down the chain), or bcast-scatter-allgather's
 * (scatter-binomial of p parts, then allgather-recursive-doubling; p a power of two), both
 * the catalogue's (coll_core.c). */
static int bcast_as(void *buf, int count, size_t size, int root, const char *call, int chain)
{
    coll_io_t c;
    int me = coll_io(&c, root, chain ? MAP_CHAIN : MAP_REL, HM_MPI_TAG_BCAST, size, call), rc;
    if (chain)
        return hma_coll_bcast_chain(&c.io, me, c.r->size, buf, (size_t)count);
    rc = hma_coll_scatter_binomial(&c.io, me, c.r->size, buf, (size_t)count, 0);
    return rc ? rc : hma_coll_allgather_rd(&c.io, me, c.r->size, buf, (size_t)count, -1);
}

/* MPI_Bcast: bcast-binomial's schedule by default, bcast-chain's or bcast-scatter-allgather's
 * when chosen (bcast_as). */
int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    (void)comm;
    char call[48];
    snprintf(call, sizeof call, "MPI_Bcast(root %d)", root);
    size_t size = check_type(count, type, call);
    const char *algo = hm_mpi__algo(HM_MPI_BCAST);
    if (strcmp(algo, "bcast-chain") == 0 || strcmp(algo, "bcast-scatter-allgather") == 0)
        return bcast_as(buf, count, size, root, call, strcmp(algo, "bcast-chain") == 0);
    bcast_bytes(buf, (size_t)count * size, size, root, HM_MPI_TAG_BCAST, call);
    return MPI_SUCCESS;
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
               int root, MPI_Comm comm)
{
    (void)comm;
    hm_mpi_rank_t *r = hm_mpi__self();
    char call[48];
    snprintf(call, sizeof call, "MPI_Reduce(root %d)", root);
    size_t bytes = (size_t)count * check_type(count, type, call);
    void *acc = hm_mpi__scratch(bytes, call);
    hm_mpi__copy(acc, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, bytes);
    int rc = reduce_as(acc, count, type, op, root, call,
                       hm_mpi__algo_is(HM_MPI_REDUCE, "reduce-rabenseifner"));
    if (r->rank == root)
        hm_mpi__copy(recvbuf, acc, bytes);
    hm_mpi__unscratch(acc);
    return rc;
}

/* MPI_Allreduce's algorithm, the same at every rank: the config's choice (choice.c), or by
 * default recursive doubling while the vector (count elements padded to 8 bytes) fits one
 * packet (log2 p exchanges of it); beyond, the ring on a ring (2(p-1) steps of a p-th of it
 * between neighbours), elsewhere a reduce and a broadcast (an exchange of more packets than
 * the receiver's mailbox holds would deadlock: every rank sends first). */
enum { BY_DOUBLING, BY_RING, BY_TREES, BY_RABENSEIFNER };
static int allreduce_by(const hm_mpi_rank_t *r, int count, size_t size)
{
    size_t wide = size < 8 ? 8 : size;
    if (hm_mpi__algo_is(HM_MPI_ALLREDUCE, "allreduce-recursive-doubling"))
        return BY_DOUBLING;
    if (hm_mpi__algo_is(HM_MPI_ALLREDUCE, "allreduce-ring"))
        return BY_RING;
    if (hm_mpi__algo_is(HM_MPI_ALLREDUCE, "allreduce-rabenseifner"))
        return BY_RABENSEIFNER;
    if ((size_t)count * wide <= HM_MPI_PACKET)
        return BY_DOUBLING;
    return on_ring(r) ? BY_RING : BY_TREES;
}

/* MPI_Allreduce: allreduce-recursive-doubling's schedule (the fold when p is not a power of
 * two), allreduce-ring's, or reduce-binomial's and bcast-binomial's (allreduce_by), all the
 * catalogue's (coll_core.c). */
int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm)
{
    (void)comm;
    size_t size = check_type(count, type, "MPI_Allreduce");
    if (sendbuf != MPI_IN_PLACE)
        hm_mpi__copy(recvbuf, sendbuf, (size_t)count * size);
    int by = allreduce_by(hm_mpi__self(), count, size), rc;
    if (by == BY_TREES) {
        rc = reduce_to(recvbuf, count, type, op, 0, "MPI_Allreduce");
        bcast_bytes(recvbuf, (size_t)count * size, size, 0, HM_MPI_TAG_BCAST, "MPI_Allreduce");
        return rc;
    }
    coll_io_t c;
    int me = coll_io(&c, 0, by == BY_RING ? MAP_CYCLE : MAP_REL, HM_MPI_TAG_ALLREDUCE, size,
                     "MPI_Allreduce");
    c.type = type;
    c.op = op;
    void *tmp = hm_mpi__scratch((size_t)count * size, "MPI_Allreduce");
    size_t n = (size_t)count;
    int p = c.r->size;
    if (by == BY_RABENSEIFNER) { /* recursive halving, then doubling (p a power of two) */
        if ((rc = hma_coll_halving(&c.io, me, p, recvbuf, tmp, n, 0, -1)) == 0)
            rc = hma_coll_doubling(&c.io, me, p, recvbuf, n, hma_coll_lg(p), -1);
    } else {
        rc = by == BY_RING ? hma_coll_allreduce_ring(&c.io, me, p, recvbuf, tmp, n)
                           : hma_coll_allreduce_rd(&c.io, me, p, recvbuf, tmp, n);
    }
    hm_mpi__unscratch(tmp);
    return rc;
}

/* MPI_Gather: gather-binomial's schedule by default, gather-linear's when chosen, into a
 * buffer of the p blocks by relative number or chain position (coll_core.c, the
 * catalogue's), which the root puts in rank order. */
int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    (void)comm;
    hm_mpi_rank_t *r = hm_mpi__self();
    char call[48];
    snprintf(call, sizeof call, "MPI_Gather(root %d)", root);
    int in_place = r->rank == root && sendbuf == MPI_IN_PLACE;
    int count = in_place ? recvcount : sendcount;
    size_t size = check_type(count, in_place ? recvtype : sendtype, call);
    size_t block = (size_t)count * size, total = (size_t)r->size * (size_t)count;
    int linear = hm_mpi__algo_is(HM_MPI_GATHER, "gather-linear");
    coll_io_t c;
    int rel = coll_io(&c, root, linear ? MAP_CHAIN : MAP_REL, HM_MPI_TAG_GATHER, size, call);
    char *all = hm_mpi__scratch(total * size + block, call), *mine = all + (size_t)rel * block;
    hm_mpi__copy(mine, in_place ? (const char *)recvbuf + (size_t)root * block : sendbuf, block);
    int rc = linear ? hma_coll_gather_linear(&c.io, rel, r->size, mine, all, all + total * size,
                                             (size_t)count)
                    : hma_coll_gather_binomial(&c.io, rel, r->size, all, total);
    for (int x = 0; rc == MPI_SUCCESS && rel == 0 && x < r->size; x++)
        hm_mpi__copy((char *)recvbuf + (size_t)rank_of(&c, x) * block, all + (size_t)x * block,
                     block);
    hm_mpi__unscratch(all);
    return rc;
}

/* A scatter from root of count elements of type to each rank: scatter-binomial's schedule, or
 * scatter-linear's (coll_core.c, the catalogue's), from a buffer of the p blocks by relative
 * number or chain position, which the root fills from rank order. */
static int scatter_as(const void *sendbuf, int count, MPI_Datatype type, void *recvbuf, int root,
                      int linear)
{
    hm_mpi_rank_t *r = hm_mpi__self();
    char call[48];
    snprintf(call, sizeof call, "MPI_Scatter(root %d)", root);
    size_t size = check_type(count, type, call);
    size_t block = (size_t)count * size, total = (size_t)r->size * (size_t)count;
    coll_io_t c;
    int rel = coll_io(&c, root, linear ? MAP_CHAIN : MAP_REL, HM_MPI_TAG_SCATTER, size, call);
    char *all = hm_mpi__scratch(total * size + block, call), *tmp = all + total * size;
    for (int x = 0; rel == 0 && x < r->size; x++)
        hm_mpi__copy(all + (size_t)x * block,
                     (const char *)sendbuf + (size_t)rank_of(&c, x) * block, block);
    int rc = linear ? hma_coll_scatter_linear(&c.io, rel, r->size, all, tmp, (size_t)count)
                    : hma_coll_scatter_binomial(&c.io, rel, r->size, all, total, 0);
    if (rc == MPI_SUCCESS && recvbuf != MPI_IN_PLACE)
        hm_mpi__copy(recvbuf, linear && rel ? tmp : all + (size_t)rel * block, block);
    hm_mpi__unscratch(all);
    return rc;
}

/* MPI_Scatter: scatter-binomial by default, scatter-linear when chosen (scatter_as). */
int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    (void)comm;
    int at_root = hm_mpi__self()->rank == root;
    return scatter_as(sendbuf, at_root ? sendcount : recvcount, at_root ? sendtype : recvtype,
                      recvbuf, root, hm_mpi__algo_is(HM_MPI_SCATTER, "scatter-linear"));
}

/* Whether p is a power of two, else a failure of call naming the algorithm that needs it. */
static int needs_pow2(int p, const char *algo, const char *call)
{
    if ((p & (p - 1)) == 0)
        return 1;
    char what[120];
    snprintf(what, sizeof what, "%s needs a power of two of ranks, not %d", algo, p);
    fail(call, what);
    return 0;
}

/* allgather-ring's schedule along the cycle (MAP_CYCLE): recvbuf's blocks by rank through a
 * buffer of them by position. */
static int allgather_ring(void *recvbuf, size_t count, size_t size)
{
    coll_io_t c;
    int me = coll_io(&c, 0, MAP_CYCLE, HM_MPI_TAG_ALLGATHER, size, "MPI_Allgather"), p = c.r->size;
    size_t block = count * size;
    char *all = hm_mpi__scratch((size_t)p * block, "MPI_Allgather");
    hm_mpi__copy(all + (size_t)me * block, (char *)recvbuf + (size_t)c.r->rank * block, block);
    int rc = hma_coll_allgather_ring(&c.io, me, p, 0, all, (size_t)p * count);
    for (int q = 0; rc == MPI_SUCCESS && q < p; q++)
        hm_mpi__copy((char *)recvbuf + (size_t)rank_of(&c, q) * block, all + (size_t)q * block,
                     block);
    hm_mpi__unscratch(all);
    return rc;
}

/* allgather-bruck's schedule along the cycle (MAP_CYCLE, coll_core.c): block j of the buffer
 * ends as that of position pos - j, put back in rank order. */
static int allgather_bruck(void *recvbuf, size_t count, size_t size)
{
    coll_io_t c;
    int pos = coll_io(&c, 0, MAP_CYCLE, HM_MPI_TAG_ALLGATHER, size, "MPI_Allgather"), p = c.r->size;
    size_t block = count * size;
    char *all = hm_mpi__scratch((size_t)p * block, "MPI_Allgather");
    hm_mpi__copy(all, (char *)recvbuf + (size_t)c.r->rank * block, block);
    int rc = hma_coll_allgather_bruck(&c.io, pos, p, all, count);
    for (int j = 0; rc == MPI_SUCCESS && j < p; j++)
        hm_mpi__copy((char *)recvbuf + (size_t)rank_of(&c, (pos - j + p) % p) * block,
                     all + (size_t)j * block, block);
    hm_mpi__unscratch(all);
    return rc;
}

/* MPI_Allgather: allgather-recursive-doubling's schedule (by default on a hypercube, ranks
 * XOR 2^i), allgather-ring's (by default elsewhere) or allgather-bruck's along the cycle
 * (coll_core.c, all the catalogue's). */
int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    (void)comm, (void)sendcount, (void)sendtype;
    hm_mpi_rank_t *r = hm_mpi__self();
    size_t rsize = check_type(recvcount, recvtype, "MPI_Allgather");
    size_t block = (size_t)recvcount * rsize, total = (size_t)r->size * (size_t)recvcount;
    if (sendbuf != MPI_IN_PLACE)
        hm_mpi__copy((char *)recvbuf + (size_t)r->rank * block, sendbuf, block);
    const char *algo = hm_mpi__algo(HM_MPI_ALLGATHER);
    if (strcmp(algo, "allgather-bruck") == 0)
        return allgather_bruck(recvbuf, (size_t)recvcount, rsize);
    int rd =
        strcmp(algo, "auto") ? strcmp(algo, "allgather-recursive-doubling") == 0 : on_hypercube(r);
    if (!rd)
        return allgather_ring(recvbuf, (size_t)recvcount, rsize);
    if (!needs_pow2(r->size, "allgather-recursive-doubling", "MPI_Allgather"))
        return MPI_ERR_OTHER;
    coll_io_t c;
    int me = coll_io(&c, 0, MAP_RANK, HM_MPI_TAG_ALLGATHER, rsize, "MPI_Allgather");
    return hma_coll_allgather_rd(&c.io, me, r->size, recvbuf, total, -1);
}

/* alltoall-bruck's schedule along the cycle (MAP_CYCLE, coll_core.c): the blocks rotated by
 * position, then put back in rank order. */
static int alltoall_bruck(const char *sendbuf, char *recvbuf, size_t count, size_t size)
{
    coll_io_t c;
    int pos = coll_io(&c, 0, MAP_CYCLE, HM_MPI_TAG_ALLTOALL, size, "MPI_Alltoall"), p = c.r->size;
    size_t block = count * size;
    char *a = hm_mpi__scratch(2 * (size_t)p * block, "MPI_Alltoall");
    for (int j = 0; j < p; j++)
        hm_mpi__copy(a + (size_t)j * block, sendbuf + (size_t)rank_of(&c, (pos + j) % p) * block,
                     block);
    int rc = hma_coll_alltoall_bruck(&c.io, pos, p, a, a + (size_t)p * block, count);
    for (int j = 0; rc == MPI_SUCCESS && j < p; j++)
        hm_mpi__copy(recvbuf + (size_t)rank_of(&c, (pos - j + p) % p) * block,
                     a + (size_t)j * block, block);
    hm_mpi__unscratch(a);
    return rc;
}

/* alltoall-dimension-exchange's schedule (coll_core.c; p a power of two), partners rank XOR
 * 2^k: the blocks by destination in, by source out. */
static int alltoall_dimex(const char *sendbuf, char *recvbuf, size_t count, size_t size)
{
    coll_io_t c;
    int x = coll_io(&c, 0, MAP_RANK, HM_MPI_TAG_ALLTOALL, size, "MPI_Alltoall"), p = c.r->size;
    size_t bytes = (size_t)p * count * size;
    char *pack = hm_mpi__scratch(bytes / 2, "MPI_Alltoall");
    hm_mpi__copy(recvbuf, sendbuf, bytes);
    int rc = hma_coll_alltoall_dimex(&c.io, x, p, recvbuf, pack, count);
    hm_mpi__unscratch(pack);
    return rc;
}

/* MPI_Alltoall with its blocks from sendbuf, sendcount elements of size bytes each. */
static int alltoall_from(const char *sendbuf, char *recvbuf, int sendcount, size_t size)
{
    hm_mpi_rank_t *r = hm_mpi__self();
    size_t block = (size_t)sendcount * size;
    if (hm_mpi__algo_is(HM_MPI_ALLTOALL, "alltoall-bruck"))
        return alltoall_bruck(sendbuf, recvbuf, (size_t)sendcount, size);
    if (hm_mpi__algo_is(HM_MPI_ALLTOALL, "alltoall-dimension-exchange"))
        return alltoall_dimex(sendbuf, recvbuf, (size_t)sendcount, size);
    hm_mpi__copy(recvbuf + (size_t)r->rank * block, sendbuf + (size_t)r->rank * block, block);
    coll_io_t c;
    int x = coll_io(&c, 0, MAP_RANK, HM_MPI_TAG_ALLTOALL, size, "MPI_Alltoall");
    return hma_coll_alltoall_pairwise(&c.io, x, r->size, sendbuf, recvbuf, (size_t)sendcount);
}

/* MPI_Alltoall: alltoall-pairwise's schedule by default (partners x XOR s on a power of two of
 * ranks, else x + s and x - s mod p), alltoall-bruck's or alltoall-dimension-exchange's when
 * chosen (coll_core.c, all the catalogue's). With MPI_IN_PLACE the blocks sent are recvbuf's
 * (recvcount elements of recvtype each; sendcount and sendtype are ignored), copied first. */
int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    (void)comm;
    if (sendbuf != MPI_IN_PLACE)
        return alltoall_from(sendbuf, recvbuf, sendcount,
                             check_type(sendcount, sendtype, "MPI_Alltoall"));
    size_t size = check_type(recvcount, recvtype, "MPI_Alltoall");
    size_t bytes = (size_t)hm_mpi__self()->size * (size_t)recvcount * size;
    char *copy = hm_mpi__scratch(bytes, "MPI_Alltoall");
    hm_mpi__copy(copy, recvbuf, bytes);
    int rc = alltoall_from(copy, recvbuf, recvcount, size);
    hm_mpi__unscratch(copy);
    return rc;
}

/* reduce-scatter-pairwise's schedule (coll_core.c): partners rank XOR s on a power of two of
 * ranks, else rank + s and rank - s mod p. */
static int reduce_scatter_pairwise(const char *in, void *recvbuf, int count, MPI_Datatype type,
                                   MPI_Op op)
{
    coll_io_t c;
    size_t size = hm_mpi__size(type), block = (size_t)count * size;
    int x = coll_io(&c, 0, MAP_RANK, HM_MPI_TAG_REDUCE, size, "MPI_Reduce_scatter_block");
    int p = c.r->size;
    c.type = type;
    c.op = op;
    char *acc = hm_mpi__scratch(2 * block, "MPI_Reduce_scatter_block");
    hm_mpi__copy(acc, in + (size_t)x * block, block);
    int rc = hma_coll_reduce_scatter_pairwise(&c.io, x, p, (p & (p - 1)) == 0, in, acc, acc + block,
                                              (size_t)count);
    hm_mpi__copy(recvbuf, acc, block);
    hm_mpi__unscratch(acc);
    return rc;
}

/* MPI_Reduce_scatter_block: by default reduce-binomial to rank 0 and scatter-binomial on a
 * hypercube (2 log2 p steps), reduce-scatter-ring's schedule elsewhere or when chosen (p - 1 steps
 * of one block along the ranks), all the catalogue's (coll_core.c). */
int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype type,
                             MPI_Op op, MPI_Comm comm)
{
    (void)comm;
    hm_mpi_rank_t *r = hm_mpi__self();
    const char *call = "MPI_Reduce_scatter_block";
    size_t size = check_type(recvcount, type, call);
    size_t block = (size_t)recvcount * size, total = (size_t)r->size * (size_t)recvcount;
    const char *in = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    char *all = hm_mpi__scratch(2 * total * size + block, call); /* room for the halving */
    int rc, trees = hm_mpi__algo_is(HM_MPI_REDUCE_SCATTER, "auto") && on_hypercube(r);
    if (trees) {
        hm_mpi__copy(all, in, total * size);
        rc = reduce_to(all, (int)total, type, op, 0, call);
        scatter_as(all, recvcount, type, recvbuf, 0, 0);
    } else if (hm_mpi__algo_is(HM_MPI_REDUCE_SCATTER, "reduce-scatter-pairwise")) {
        rc = reduce_scatter_pairwise(in, recvbuf, recvcount, type, op);
    } else if (hm_mpi__algo_is(HM_MPI_REDUCE_SCATTER, "reduce-scatter-recursive-halving")) {
        coll_io_t c; /* ranks XOR 2^i (p a power of two) */
        int me = coll_io(&c, 0, MAP_RANK, HM_MPI_TAG_REDUCE, size, call);
        c.type = type;
        c.op = op;
        hm_mpi__copy(all, in, total * size);
        rc = hma_coll_halving(&c.io, me, r->size, all, all + total * size, total, 0, -1);
        hm_mpi__copy(recvbuf, all + (size_t)me * block, block);
    } else { /* the blocks by position on the cycle */
        coll_io_t c;
        int pos = coll_io(&c, 0, MAP_CYCLE, HM_MPI_TAG_REDUCE, size, call);
        c.type = type;
        c.op = op;
        for (int q = 0; q < r->size; q++)
            hm_mpi__copy(all + (size_t)q * block, in + (size_t)rank_of(&c, q) * block, block);
        rc = hma_coll_reduce_scatter_ring(&c.io, pos, r->size, -1, all, all + total * size, total);
        hm_mpi__copy(recvbuf, all + (size_t)pos * block, block);
    }
    hm_mpi__unscratch(all);
    return rc;
}

int MPI_Barrier(MPI_Comm comm)
{
    (void)comm;
    char none = 0;
    reduce_to(&none, 0, MPI_BYTE, MPI_BOR, 0, "MPI_Barrier");
    bcast_bytes(&none, 0, 1, 0, HM_MPI_TAG_BARRIER, "MPI_Barrier");
    return MPI_SUCCESS;
}
