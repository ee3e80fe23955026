/* SPDX-License-Identifier: MIT */
/*
 * coll.c — the MPI library's collectives and reductions (doc/mpi-programs.md,
 * "Collectives"), over its own point-to-point calls with internal tags below 0: a binomial
 * tree for MPI_Bcast and MPI_Reduce (rank r's partners r ^ 2^k relative to the root: on a
 * hypercube from root 0 neighbours, elsewhere routed), MPI_Allreduce and MPI_Allgather by
 * recursive doubling on a power of two of ranks (else a reduce to rank 0 and a broadcast, a
 * gather and a broadcast), MPI_Gather and MPI_Scatter linear from the root, MPI_Alltoall as every
 * pair's message, MPI_Reduce_scatter_block as a reduce and a scatter, MPI_Barrier as an empty
 * reduce and broadcast. These are not yet the catalogue's algorithms made generic over the element
 * (doc/mpi-programs.md says so).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* The binomial tree of root over p ranks: rank's parent and its children, relative ranks. */
static void bcast_bytes(void *buf, size_t bytes, size_t elsize, int root, int tag, const char *call)
{
    hm_mpi_rank_t *r = hm_mpi__self();
    int p = r->size, vr = (r->rank - root + p) % p, mask = 1;
    for (; mask < p; mask <<= 1)
        if (vr & mask) {
            hm_mpi__recv(buf, bytes, (vr - mask + root) % p, tag, NULL, call);
            break;
        }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (vr + mask < p)
            hm_mpi__send(buf, bytes, elsize, (vr + mask + root) % p, tag);
}

static int reduce_to(void *acc, int count, MPI_Datatype t, MPI_Op op, int root, const char *call)
{
    hm_mpi_rank_t *r = hm_mpi__self();
    size_t size = hm_mpi__size(t), bytes = (size_t)count * size;
    int p = r->size, vr = (r->rank - root + p) % p;
    void *tmp = hm_mpi__scratch(bytes, call);
    for (int mask = 1; mask < p; mask <<= 1) {
        if (vr & mask) {
            hm_mpi__send(acc, bytes, size, ((vr & ~mask) + root) % p, HM_MPI_TAG_REDUCE);
            break;
        }
        if ((vr | mask) < p) {
            hm_mpi__recv(tmp, bytes, ((vr | mask) + root) % p, HM_MPI_TAG_REDUCE, NULL, call);
            if (hm_mpi__apply(acc, tmp, count, t, op) != 0) {
                hm_mpi__unscratch(tmp);
                return fail(call, "unknown datatype or op");
            }
        }
    }
    hm_mpi__unscratch(tmp);
    return MPI_SUCCESS;
}

static size_t check_type(int count, MPI_Datatype t, const char *call)
{
    size_t size = hm_mpi__size(t);
    if (!size || count < 0)
        fail(call, size ? "negative count" : "unknown datatype");
    return size;
}

int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    (void)comm;
    char call[48];
    snprintf(call, sizeof call, "MPI_Bcast(root %d)", root);
    size_t size = check_type(count, type, call);
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
    int rc = reduce_to(acc, count, type, op, root, call);
    if (r->rank == root)
        hm_mpi__copy(recvbuf, acc, bytes);
    hm_mpi__unscratch(acc);
    return rc;
}

/* Recursive doubling over a power of two of ranks: in step k every rank exchanges its
 * partial result with rank ^ 2^k (a neighbour on a hypercube) and combines the two. */
static int allreduce_doubling(void *acc, int count, MPI_Datatype t, MPI_Op op)
{
    hm_mpi_rank_t *r = hm_mpi__self();
    size_t size = hm_mpi__size(t), bytes = (size_t)count * size;
    void *tmp = hm_mpi__scratch(bytes, "MPI_Allreduce");
    int rc = MPI_SUCCESS;
    for (int mask = 1; mask < r->size && rc == MPI_SUCCESS; mask <<= 1) {
        hm_mpi__send(acc, bytes, size, r->rank ^ mask, HM_MPI_TAG_ALLREDUCE);
        hm_mpi__recv(tmp, bytes, r->rank ^ mask, HM_MPI_TAG_ALLREDUCE, NULL, "MPI_Allreduce");
        if (hm_mpi__apply(acc, tmp, count, t, op) != 0)
            rc = fail("MPI_Allreduce", "unknown datatype or op");
    }
    hm_mpi__unscratch(tmp);
    return rc;
}

static int power_of_two(int p)
{
    return p > 0 && (p & (p - 1)) == 0;
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm)
{
    (void)comm;
    hm_mpi_rank_t *r = hm_mpi__self();
    size_t size = check_type(count, type, "MPI_Allreduce");
    if (sendbuf != MPI_IN_PLACE)
        hm_mpi__copy(recvbuf, sendbuf, (size_t)count * size);
    if (power_of_two(r->size))
        return allreduce_doubling(recvbuf, count, type, op);
    int rc = reduce_to(recvbuf, count, type, op, 0, "MPI_Allreduce");
    bcast_bytes(recvbuf, (size_t)count * size, size, 0, HM_MPI_TAG_BCAST, "MPI_Allreduce");
    return rc;
}

int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    (void)comm;
    hm_mpi_rank_t *r = hm_mpi__self();
    char call[48];
    snprintf(call, sizeof call, "MPI_Gather(root %d)", root);
    size_t ssize = check_type(sendcount, sendtype, call);
    if (r->rank != root) {
        hm_mpi__send(sendbuf, (size_t)sendcount * ssize, ssize, root, HM_MPI_TAG_GATHER);
        return MPI_SUCCESS;
    }
    size_t block = (size_t)recvcount * check_type(recvcount, recvtype, call);
    if (sendbuf != MPI_IN_PLACE)
        hm_mpi__copy((char *)recvbuf + (size_t)root * block, sendbuf, block);
    for (int x = 0; x < r->size; x++)
        if (x != root)
            hm_mpi__recv((char *)recvbuf + (size_t)x * block, block, x, HM_MPI_TAG_GATHER, NULL,
                         call);
    return MPI_SUCCESS;
}

int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    (void)comm;
    hm_mpi_rank_t *r = hm_mpi__self();
    char call[48];
    snprintf(call, sizeof call, "MPI_Scatter(root %d)", root);
    size_t rsize = check_type(recvcount, recvtype, call), rbytes = (size_t)recvcount * rsize;
    if (r->rank != root)
        return hm_mpi__recv(recvbuf, rbytes, root, HM_MPI_TAG_SCATTER, NULL, call);
    size_t ssize = check_type(sendcount, sendtype, call), block = (size_t)sendcount * ssize;
    for (int x = 0; x < r->size; x++)
        if (x != root)
            hm_mpi__send((const char *)sendbuf + (size_t)x * block, block, ssize, x,
                         HM_MPI_TAG_SCATTER);
    if (recvbuf != MPI_IN_PLACE)
        hm_mpi__copy(recvbuf, (const char *)sendbuf + (size_t)root * block, block);
    return MPI_SUCCESS;
}

/* Recursive doubling over a power of two of ranks: in step k every rank exchanges the 2^k
 * blocks it holds (those of the ranks that agree with it above bit k) with rank ^ 2^k. */
static void allgather_doubling(void *recvbuf, size_t block, size_t elsize)
{
    hm_mpi_rank_t *r = hm_mpi__self();
    for (int mask = 1; mask < r->size; mask <<= 1) {
        int mine = r->rank & ~(mask - 1), theirs = (r->rank ^ mask) & ~(mask - 1);
        hm_mpi__send((char *)recvbuf + (size_t)mine * block, (size_t)mask * block, elsize,
                     r->rank ^ mask, HM_MPI_TAG_ALLGATHER);
        hm_mpi__recv((char *)recvbuf + (size_t)theirs * block, (size_t)mask * block, r->rank ^ mask,
                     HM_MPI_TAG_ALLGATHER, NULL, "MPI_Allgather");
    }
}

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    hm_mpi_rank_t *r = hm_mpi__self();
    size_t rsize = check_type(recvcount, recvtype, "MPI_Allgather");
    size_t block = (size_t)recvcount * rsize;
    if (power_of_two(r->size)) {
        if (sendbuf != MPI_IN_PLACE)
            hm_mpi__copy((char *)recvbuf + (size_t)r->rank * block, sendbuf, block);
        allgather_doubling(recvbuf, block, rsize);
        return MPI_SUCCESS;
    }
    const void *mine = sendbuf;
    if (sendbuf == MPI_IN_PLACE) {
        mine = (char *)recvbuf + (size_t)r->rank * (size_t)recvcount * rsize;
        sendcount = recvcount;
        sendtype = recvtype;
    }
    if (r->rank == 0 || sendbuf != MPI_IN_PLACE)
        MPI_Gather(r->rank == 0 && sendbuf == MPI_IN_PLACE ? MPI_IN_PLACE : mine, sendcount,
                   sendtype, recvbuf, recvcount, recvtype, 0, comm);
    else
        hm_mpi__send(mine, (size_t)recvcount * rsize, rsize, 0, HM_MPI_TAG_GATHER);
    bcast_bytes(recvbuf, (size_t)r->size * (size_t)recvcount * rsize, rsize, 0, HM_MPI_TAG_BCAST,
                "MPI_Allgather");
    return MPI_SUCCESS;
}

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    (void)comm;
    hm_mpi_rank_t *r = hm_mpi__self();
    size_t ssize = check_type(sendcount, sendtype, "MPI_Alltoall");
    size_t sblock = (size_t)sendcount * ssize;
    size_t rblock = (size_t)recvcount * check_type(recvcount, recvtype, "MPI_Alltoall");
    for (int k = 1; k < r->size; k++) { /* rank + k: each rank's first message to another */
        int x = (r->rank + k) % r->size;
        hm_mpi__send((const char *)sendbuf + (size_t)x * sblock, sblock, ssize, x,
                     HM_MPI_TAG_ALLTOALL);
    }
    hm_mpi__copy((char *)recvbuf + (size_t)r->rank * rblock,
                 (const char *)sendbuf + (size_t)r->rank * sblock, rblock);
    for (int x = 0; x < r->size; x++)
        if (x != r->rank)
            hm_mpi__recv((char *)recvbuf + (size_t)x * rblock, rblock, x, HM_MPI_TAG_ALLTOALL, NULL,
                         "MPI_Alltoall");
    return MPI_SUCCESS;
}

int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype type,
                             MPI_Op op, MPI_Comm comm)
{
    hm_mpi_rank_t *r = hm_mpi__self();
    size_t size = check_type(recvcount, type, "MPI_Reduce_scatter_block");
    int count = recvcount * r->size;
    void *all = hm_mpi__scratch((size_t)count * size, "MPI_Reduce_scatter_block");
    hm_mpi__copy(all, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, (size_t)count * size);
    int rc = reduce_to(all, count, type, op, 0, "MPI_Reduce_scatter_block");
    MPI_Scatter(all, recvcount, type, recvbuf, recvcount, type, 0, comm);
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
