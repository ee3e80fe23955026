/* SPDX-License-Identifier: MIT */
/*
 * coll_core.h — the schedules of the catalogue's collectives made generic over the element
 * (doc/collectives.md; doc/mpi-programs.md, "Collectives"): a buffer of elements of elem
 * bytes, a combine function, and a transport of function pointers. The catalogue's node
 * programs (src/algo/collectives/) pass one over hm ports and hma_prob_send, int64 values and
 * the problem's op; the MPI library (src/mpiprog/coll.c) passes one over its point-to-point
 * calls with its internal tags, MPI's datatypes and ops. One implementation per algorithm.
 *
 * Peers are numbered as the schedule numbers them: relative numbers (the binomial trees,
 * recursive doubling) or positions on the cycle (the ring); the transport maps them to ports
 * or ranks. Step numbers are the catalogue's message numbers. Every function returns 0, or
 * the first nonzero value a hook returned (the run stops).
 */
#ifndef HMA_COLL_CORE_H
#define HMA_COLL_CORE_H

#include <stddef.h>

typedef struct hma_coll_io_s {
    void *ctx;
    size_t elem;       /* bytes of one element */
    const size_t *off; /* optional: the p + 1 offsets of the parts, else hma_coll_off's */
    /* count elements to or from peer in step `step` */
    int (*send)(void *ctx, int peer, int step, const void *buf, size_t count);
    int (*recv)(void *ctx, int peer, int step, void *buf, size_t count);
    /* acc[i] = acc[i] op in[i], i < count */
    int (*combine)(void *ctx, void *acc, const void *in, size_t count);
    /* Optional (NULL: nothing). show: count elements of partial results; show_parts: parts
     * lo .. lo+parts-1 (mod p) of buf cut into p near-equal parts of total elements; have:
     * count elements of the broadcast at buf are here (the whole buffer; in the chain one at
     * a time); next: the next send goes in a new slot; wait: a
     * node that has nothing to do before step `step` waits for it. */
    void (*show)(void *ctx, const void *buf, size_t count);
    void (*show_parts)(void *ctx, const void *buf, size_t total, int lo, int parts);
    void (*have)(void *ctx, const void *buf, size_t count);
    int (*next)(void *ctx);
    int (*wait)(void *ctx, int step);
    /* Optional: send count elements to `to` and take count from `from` in one step (a routed
     * exchange); NULL: send, then receive. */
    int (*exchange)(void *ctx, int to, int from, int step, const void *v, void *out, size_t count);
} hma_coll_io_t;

/* ceil(log2 p). */
int hma_coll_lg(int p);
/* Offset of part c of total elements cut into p parts: total*c/p (the parts of every function
 * below that cuts a buffer into parts, unless io->off gives them). */
size_t hma_coll_off(size_t total, int c, int p);

/* bcast-binomial: relative number r (0 the root) of p; buf holds count elements (the root's
 * on entry). */
int hma_coll_bcast_binomial(const hma_coll_io_t *io, int r, int p, void *buf, size_t count);
/* reduce-binomial: r = 0 ends with op over all in acc; tmp holds count elements. */
int hma_coll_reduce_binomial(const hma_coll_io_t *io, int r, int p, void *acc, void *tmp,
                             size_t count);
/* scatter-binomial's schedule (hma_prob_scatter_tree): buf of total elements in p parts, part
 * c for relative number c; r = 0 holds them all, r ends with parts [r, r + 2^ctz(r)) (below
 * p); the children's parts go farthest first, one a slot (next), each after step waits for
 * its step when waits is set. */
int hma_coll_scatter_binomial(const hma_coll_io_t *io, int r, int p, void *buf, size_t total,
                              int waits);
/* gather-binomial's schedule (hma_prob_gather_tree), its reverse: r = 0 ends with every part
 * (a node that sends waits for its step when p is not a power of two). */
int hma_coll_gather_binomial(const hma_coll_io_t *io, int r, int p, void *buf, size_t total);
/* allreduce-recursive-doubling, node x of p (any p: the fold of the first q = 2^floor(log2 p)
 * nodes when p is not a power of two). */
int hma_coll_allreduce_rd(const hma_coll_io_t *io, int x, int p, void *acc, void *tmp,
                          size_t count);
/* allgather-recursive-doubling's schedule on a power of two p (hma_prob_allgather_rd): buf of
 * total elements in p parts, relative number r holding part r; in step i it exchanges parts
 * [r>>i<<i, +2^i) with r ^ 2^i, waiting first for step wait_at + i unless wait_at < 0. */
int hma_coll_allgather_rd(const hma_coll_io_t *io, int r, int p, void *buf, size_t total,
                          int wait_at);
/* The steps of Rabenseifner's algorithms on q = 2^d nodes (relative or new numbers r), buf of
 * total elements in q parts, messages numbered from step0, each step waiting first for step
 * wait_at + its index unless wait_at < 0. hma_coll_doubling: allgather-recursive-doubling's
 * (in step i parts [r>>i<<i, +2^i) for those of r ^ 2^i). hma_coll_halving: recursive
 * halving (in step d-1-i the parts r ^ 2^i keeps go to it, and those it sends are combined
 * into the half r keeps, through tmp: r ends with part r reduced over all). hma_coll_gather_parts:
 * the gather of the parts to r = 0 up the binomial tree (r receives from r + 2^i, i <
 * ctz(r), in step i, then sends its parts [r, r + 2^ctz(r)) to r - 2^ctz(r)). */
int hma_coll_doubling(const hma_coll_io_t *io, int r, int q, void *buf, size_t total, int step0,
                      int wait_at);
int hma_coll_halving(const hma_coll_io_t *io, int r, int q, void *buf, void *tmp, size_t total,
                     int step0, int wait_at);
int hma_coll_gather_parts(const hma_coll_io_t *io, int r, int q, void *buf, size_t total, int step0,
                          int wait_at);
/* allgather-ring's schedule at ring position pos: buf of total elements in p parts, position
 * pos holding part (pos + shift) mod p; peers are positions (pos + 1 and pos - 1). */
int hma_coll_allgather_ring(const hma_coll_io_t *io, int pos, int p, int shift, void *buf,
                            size_t total);
/* reduce-scatter-ring's schedule at ring position pos: buf of total elements in p parts;
 * in step s position pos sends its partial part (pos + shift - s) mod p to pos + 1 and
 * combines the part (pos + shift - s - 1) mod p that comes from pos - 1 into its own (tmp
 * holds a part); position pos ends with part (pos + shift + 1) mod p reduced over all. */
int hma_coll_reduce_scatter_ring(const hma_coll_io_t *io, int pos, int p, int shift, void *buf,
                                 void *tmp, size_t total);
/* alltoall-pairwise's schedule at node x of p: in step s = 1..p-1 it sends its block of
 * block elements for x XOR s (p a power of two; else x + s mod p) from in and takes that
 * node's (else x - s's) into buf, both by node (block y at y * block). */
int hma_coll_alltoall_pairwise(const hma_coll_io_t *io, int x, int p, const void *in, void *buf,
                               size_t block);
/* allreduce-ring: ring reduce-scatter, then allgather ring (shift 1); tmp holds
 * ceil(count / p) elements. */
int hma_coll_allreduce_ring(const hma_coll_io_t *io, int pos, int p, void *buf, void *tmp,
                            size_t count);

/* gather-linear's schedule at chain position pos (0 the root) of p: a node sends own (part
 * elements) to pos - 1, then passes on, through tmp (one part), the parts that come from
 * pos + 1, nearest first; the root receives part q into buf + q * part (by position, its
 * own at 0, which it puts there), showing the parts so far. */
int hma_coll_gather_linear(const hma_coll_io_t *io, int pos, int p, const void *own, void *buf,
                           void *tmp, size_t part);
/* scatter-linear's schedule, gather-linear's reversed: the root sends parts p-1 .. 1 of buf
 * (by position) to position 1, farthest first, one a slot (next); position pos receives
 * parts p-1 .. pos from pos - 1 into tmp, passing on all but its own, with which tmp ends. */
int hma_coll_scatter_linear(const hma_coll_io_t *io, int pos, int p, const void *buf, void *tmp,
                            size_t part);
/* bcast-chain's schedule at chain position pos (0 the root) of p: element k of buf goes
 * down the chain alone, pipelined: pos receives it from pos - 1 (the root has it, and sends
 * one a slot: next), shows the elements so far, has it, and sends it to pos + 1. */
int hma_coll_bcast_chain(const hma_coll_io_t *io, int pos, int p, void *buf, size_t count);
/* alltoall-bruck's schedule at cycle position pos of p: a holds the p blocks of block
 * elements rotated (a[j] for position pos + j mod p), v room for p blocks; in step k the
 * blocks a[j] with bit k of j set go to pos + 2^k in one message (exchange, else send and
 * receive) and those from pos - 2^k take their places: a[j] ends as the block from position
 * pos - j. */
int hma_coll_alltoall_bruck(const hma_coll_io_t *io, int pos, int p, void *a, void *v,
                            size_t block);
/* allgather-bruck's schedule at cycle position pos of p: buf holds p blocks of block
 * elements, its own first; in step k (2^k = dist) the first min(dist, p - dist) blocks go to
 * pos + dist in one message (exchange, else send and receive) and those of pos - dist land
 * at block dist: buf[j] ends as the block of position pos - j. */
int hma_coll_allgather_bruck(const hma_coll_io_t *io, int pos, int p, void *buf, size_t block);
/* reduce-scatter-pairwise's schedule at node x of p: in step s = 1..p-1 it sends its block
 * for x XOR s (xor set) or x + s mod p from in (block y at y * block) and combines the one
 * from x XOR s, or x - s mod p, through tmp into acc (its own block on entry). */
int hma_coll_reduce_scatter_pairwise(const hma_coll_io_t *io, int x, int p, int xor, const void *in,
                                     void *acc, void *tmp, size_t block);
/* alltoall-dimension-exchange's schedule at node x of p = 2^d: buf holds the p blocks by
 * destination, pack room for p/2; in step k the blocks whose index differs from x in bit k
 * go to x XOR 2^k in one message, and those received are filed at index j XOR 2^k: buf ends
 * with the blocks by source. */
int hma_coll_alltoall_dimex(const hma_coll_io_t *io, int x, int p, void *buf, void *pack,
                            size_t block);

#endif
