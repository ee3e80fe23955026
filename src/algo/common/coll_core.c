/* SPDX-License-Identifier: MIT */
/*
 * coll_core.c — the catalogue's collective schedules, generic over the element
 * (coll_core.h). Each function is the schedule that its algorithm's file describes
 * (src/algo/collectives/bcast-binomial.c, reduce-binomial.c, allreduce-recursive-doubling.c,
 * allgather-recursive-doubling.c, allgather-ring.c, scatter-binomial.c, gather-binomial.c,
 * reduce-scatter-ring.c, alltoall-pairwise.c, gather-linear.c, scatter-linear.c, bcast-chain.c,
 * alltoall-bruck.c, allreduce-ring.c: steps, costs, papers); the catalogue's node programs and the
 * MPI library's collectives both run it.
 */
#include "coll_core.h"

#include <string.h>

#define AT(buf, i) ((char *)(buf) + (size_t)(i)*io->elem)

int hma_coll_lg(int p)
{
    int lg = 0;
    while ((1 << lg) < p)
        lg++;
    return lg;
}

size_t hma_coll_off(size_t total, int c, int p)
{
    return total * (size_t)c / (size_t)p;
}

/* Offset of part c: io->off's, or hma_coll_off's. */
static size_t part(const hma_coll_io_t *io, size_t total, int c, int p)
{
    return io->off ? io->off[c] : hma_coll_off(total, c, p);
}

static int mod(int a, int p)
{
    return (a % p + p) % p;
}

static void show(const hma_coll_io_t *io, const void *buf, size_t count)
{
    if (io->show)
        io->show(io->ctx, buf, count);
}

/* Receive count elements from peer into tmp and combine them into acc. */
static int recv_combine(const hma_coll_io_t *io, int peer, int step, void *acc, void *tmp,
                        size_t count)
{
    int rc = io->recv(io->ctx, peer, step, tmp, count);
    return rc ? rc : io->combine(io->ctx, acc, tmp, count);
}

int hma_coll_bcast_binomial(const hma_coll_io_t *io, int r, int p, void *buf, size_t count)
{
    int first = 0, lg = hma_coll_lg(p), rc;
    if (r) {
        first = 32 - __builtin_clz((unsigned)r); /* h(r) + 1 */
        if ((rc = io->recv(io->ctx, r - (1 << (first - 1)), first - 1, buf, count)) != 0)
            return rc;
        show(io, buf, count);
    }
    if (io->have)
        io->have(io->ctx, buf, count);
    for (int j = first; j < lg && r + (1 << j) < p; j++) {
        if (j > first && io->next && (rc = io->next(io->ctx)) != 0)
            return rc;
        if ((rc = io->send(io->ctx, r + (1 << j), j, buf, count)) != 0)
            return rc;
    }
    return 0;
}

int hma_coll_reduce_binomial(const hma_coll_io_t *io, int r, int p, void *acc, void *tmp,
                             size_t count)
{
    int lg = hma_coll_lg(p), j = r ? __builtin_ctz((unsigned)r) : lg, rc;
    for (int i = 0; i < j && r + (1 << i) < p; i++) {
        if ((rc = recv_combine(io, r + (1 << i), i, acc, tmp, count)) != 0)
            return rc;
        show(io, acc, count);
    }
    if (!r)
        return 0;
    if ((p & (p - 1)) != 0 && io->wait && (rc = io->wait(io->ctx, j)) != 0)
        return rc;
    return io->send(io->ctx, r - (1 << j), j, acc, count);
}

static int min(int a, int b)
{
    return a < b ? a : b;
}

/* Elements of parts [a, e) of total cut into p parts. */
static size_t span(const hma_coll_io_t *io, size_t total, int a, int e, int p)
{
    return part(io, total, e, p) - part(io, total, a, p);
}

int hma_coll_scatter_binomial(const hma_coll_io_t *io, int r, int p, void *buf, size_t total,
                              int waits)
{
    int d = hma_coll_lg(p), j = r ? __builtin_ctz((unsigned)r) : d, sent = 0, rc;
    if (r) {
        int e = min(r + (1 << j), p);
        void *mine = AT(buf, part(io, total, r, p));
        if ((rc = io->recv(io->ctx, r - (1 << j), d - 1 - j, mine, span(io, total, r, e, p))) != 0)
            return rc;
        show(io, mine, span(io, total, r, e, p)); /* its subtree's parts */
    }
    /* Children r + 2^i, i = j-1 .. 0, one a slot (those below p). */
    for (int i = j - 1; i >= 0; i--) {
        int c = r + (1 << i), e = min(c + (1 << i), p);
        if (c >= p)
            continue;
        if (sent++ && io->next && (rc = io->next(io->ctx)) != 0)
            return rc;
        if (waits && io->wait && (rc = io->wait(io->ctx, d - 1 - i)) != 0)
            return rc;
        if ((rc = io->send(io->ctx, c, d - 1 - i, AT(buf, part(io, total, c, p)),
                           span(io, total, c, e, p))) != 0)
            return rc;
        /* what is left once c has its parts */
        show(io, AT(buf, part(io, total, r, p)), span(io, total, r, c, p));
    }
    return 0;
}

int hma_coll_gather_binomial(const hma_coll_io_t *io, int r, int p, void *buf, size_t total)
{
    int j = r ? __builtin_ctz((unsigned)r) : hma_coll_lg(p), rc;
    for (int i = 0; i < j && r + (1 << i) < p; i++) {
        int c = r + (1 << i), e = min(c + (1 << i), p);
        if ((rc = io->recv(io->ctx, c, i, AT(buf, part(io, total, c, p)),
                           span(io, total, c, e, p))) != 0)
            return rc;
        /* its parts and its children's so far */
        show(io, AT(buf, part(io, total, r, p)), span(io, total, r, e, p));
    }
    if (!r)
        return 0;
    if ((p & (p - 1)) != 0 && io->wait && (rc = io->wait(io->ctx, j)) != 0)
        return rc;
    return io->send(io->ctx, r - (1 << j), j, AT(buf, part(io, total, r, p)),
                    span(io, total, r, min(r + (1 << j), p), p));
}

/* The first q = 2^floor(log2 p) nodes double, steps first .. first+k-1. */
static int doubling(const hma_coll_io_t *io, int x, int k, int first, void *acc, void *tmp,
                    size_t count)
{
    for (int i = 0; i < k; i++) {
        int rc = io->send(io->ctx, x ^ (1 << i), first + i, acc, count);
        if (rc || (rc = recv_combine(io, x ^ (1 << i), first + i, acc, tmp, count)) != 0)
            return rc;
        show(io, acc, count);
    }
    return 0;
}

/* p not a power of two: node x >= q folds its values into x - q (step 0), the first q
 * nodes double (steps 1 .. lg-1, after the fold's step even where none came), and x - q
 * sends x the result (step lg). */
static int fold(const hma_coll_io_t *io, int x, int p, void *acc, void *tmp, size_t count)
{
    int lg = hma_coll_lg(p), q = 1 << (lg - 1), rem = p - q, rc;
    if (x >= q) {
        rc = io->send(io->ctx, x - q, 0, acc, count);
        return rc ? rc : io->recv(io->ctx, x - q, lg, acc, count);
    }
    if (x < rem) {
        if ((rc = recv_combine(io, x + q, 0, acc, tmp, count)) != 0)
            return rc;
        show(io, acc, count);
    }
    if (io->wait && (rc = io->wait(io->ctx, 1)) != 0)
        return rc;
    if ((rc = doubling(io, x, lg - 1, 1, acc, tmp, count)) != 0)
        return rc;
    return x < rem ? io->send(io->ctx, x + q, lg, acc, count) : 0;
}

int hma_coll_allreduce_rd(const hma_coll_io_t *io, int x, int p, void *acc, void *tmp, size_t count)
{
    if ((p & (p - 1)) != 0)
        return fold(io, x, p, acc, tmp, count);
    return doubling(io, x, hma_coll_lg(p), 0, acc, tmp, count);
}

int hma_coll_doubling(const hma_coll_io_t *io, int r, int q, void *buf, size_t total, int step0,
                      int wait_at)
{
    for (int i = 0; (1 << i) < q; i++) {
        int mine = r >> i << i, theirs = (r ^ (1 << i)) >> i << i, rc;
        int lo = r >> (i + 1) << (i + 1); /* the 2^(i+1) parts now held, side by side */
        size_t om = part(io, total, mine, q), ot = part(io, total, theirs, q);
        size_t ol = part(io, total, lo, q);
        if (wait_at >= 0 && io->wait && (rc = io->wait(io->ctx, wait_at + i)) != 0)
            return rc;
        if ((rc = io->send(io->ctx, r ^ (1 << i), step0 + i, AT(buf, om),
                           part(io, total, mine + (1 << i), q) - om)) != 0 ||
            (rc = io->recv(io->ctx, r ^ (1 << i), step0 + i, AT(buf, ot),
                           part(io, total, theirs + (1 << i), q) - ot)) != 0)
            return rc;
        show(io, AT(buf, ol), part(io, total, lo + (2 << i), q) - ol);
    }
    return 0;
}

int hma_coll_allgather_rd(const hma_coll_io_t *io, int r, int p, void *buf, size_t total,
                          int wait_at)
{
    return hma_coll_doubling(io, r, p, buf, total, 0, wait_at);
}

int hma_coll_halving(const hma_coll_io_t *io, int r, int q, void *buf, void *tmp, size_t total,
                     int step0, int wait_at)
{
    int d = hma_coll_lg(q), rc;
    for (int i = d - 1; i >= 0; i--) {
        int mine = r >> i << i, theirs = (r ^ (1 << i)) >> i << i, step = step0 + d - 1 - i;
        size_t mlo = part(io, total, mine, q), mn = part(io, total, mine + (1 << i), q) - mlo;
        size_t tlo = part(io, total, theirs, q), tn = part(io, total, theirs + (1 << i), q) - tlo;
        /* Parts of unequal length: every node waits for the longest of the step before. */
        if (wait_at >= 0 && io->wait && (rc = io->wait(io->ctx, wait_at + d - 1 - i)) != 0)
            return rc;
        if ((rc = io->send(io->ctx, r ^ (1 << i), step, AT(buf, tlo), tn)) != 0 ||
            (rc = recv_combine(io, r ^ (1 << i), step, AT(buf, mlo), tmp, mn)) != 0)
            return rc;
        show(io, AT(buf, mlo), mn); /* the half it keeps, partly summed */
    }
    return 0;
}

int hma_coll_gather_parts(const hma_coll_io_t *io, int r, int q, void *buf, size_t total, int step0,
                          int wait_at)
{
    int d = hma_coll_lg(q), j = r ? __builtin_ctz((unsigned)r) : d, rc;
    for (int i = 0; i < j; i++) { /* children r + 2^i send in step i */
        int c = r + (1 << i);
        size_t lo = part(io, total, c, q);
        if ((rc = io->recv(io->ctx, c, step0 + i, AT(buf, lo),
                           part(io, total, c + (1 << i), q) - lo)) != 0)
            return rc;
    }
    if (!r)
        return 0;
    if (wait_at >= 0 && io->wait && (rc = io->wait(io->ctx, wait_at + j)) != 0)
        return rc;
    size_t lo = part(io, total, r, q);
    return io->send(io->ctx, r - (1 << j), step0 + j, AT(buf, lo),
                    part(io, total, r + (1 << j), q) - lo);
}

static void show_parts(const hma_coll_io_t *io, const void *buf, size_t total, int lo, int parts,
                       int p)
{
    if (io->show_parts)
        io->show_parts(io->ctx, buf, total, lo, parts);
    else if (io->show && lo + parts <= p)
        io->show(io->ctx, AT(buf, part(io, total, lo, p)),
                 part(io, total, lo + parts, p) - part(io, total, lo, p));
}

int hma_coll_allgather_ring(const hma_coll_io_t *io, int pos, int p, int shift, void *buf,
                            size_t total)
{
    int next = mod(pos + 1, p), prev = mod(pos - 1, p);
    for (int s = 0; s < p - 1; s++) {
        int out = mod(pos + shift - s, p), in = mod(pos + shift - s - 1, p);
        size_t oo = part(io, total, out, p), io_ = part(io, total, in, p);
        int rc = io->send(io->ctx, next, s, AT(buf, oo), part(io, total, out + 1, p) - oo);
        if (rc ||
            (rc = io->recv(io->ctx, prev, s, AT(buf, io_), part(io, total, in + 1, p) - io_)) != 0)
            return rc;
        /* An allgather holds the parts in..pos so far; an allreduce its whole vector. */
        show_parts(io, buf, total, shift ? 0 : in, shift ? p : s + 2, p);
    }
    return 0;
}

int hma_coll_reduce_scatter_ring(const hma_coll_io_t *io, int pos, int p, int shift, void *buf,
                                 void *tmp, size_t total)
{
    int next = mod(pos + 1, p), prev = mod(pos - 1, p);
    for (int s = 0; s < p - 1; s++) {
        int out = mod(pos + shift - s, p), c = mod(pos + shift - s - 1, p);
        size_t oo = part(io, total, out, p), oc = part(io, total, c, p);
        int rc = io->send(io->ctx, next, s, AT(buf, oo), span(io, total, out, out + 1, p));
        if (rc ||
            (rc = recv_combine(io, prev, s, AT(buf, oc), tmp, span(io, total, c, c + 1, p))) != 0)
            return rc;
        show(io, buf, total); /* the partial sums */
    }
    return 0;
}

int hma_coll_allreduce_ring(const hma_coll_io_t *io, int pos, int p, void *buf, void *tmp,
                            size_t count)
{
    int rc = hma_coll_reduce_scatter_ring(io, pos, p, 0, buf, tmp, count);
    return rc ? rc : hma_coll_allgather_ring(io, pos, p, 1, buf, count);
}

int hma_coll_alltoall_pairwise(const hma_coll_io_t *io, int x, int p, const void *in, void *buf,
                               size_t block)
{
    int pow2 = (p & (p - 1)) == 0;
    for (int s = 1; s < p; s++) {
        int to = pow2 ? x ^ s : (x + s) % p, from = pow2 ? x ^ s : mod(x - s, p), rc;
        const void *v = AT(in, (size_t)to * block);
        void *out = AT(buf, (size_t)from * block);
        if (io->exchange)
            rc = io->exchange(io->ctx, to, from, s, v, out, block);
        else if ((rc = io->send(io->ctx, to, s, v, block)) == 0)
            rc = io->recv(io->ctx, from, s, out, block);
        if (rc)
            return rc;
        show(io, buf, (size_t)p * block); /* the blocks received so far, by sender */
    }
    return 0;
}

int hma_coll_gather_linear(const hma_coll_io_t *io, int pos, int p, const void *own, void *buf,
                           void *tmp, size_t part)
{
    int rc;
    for (int q = 1; pos == 0 && q < p; q++) {
        if ((rc = io->recv(io->ctx, 1, q - 1, AT(buf, (size_t)q * part), part)) != 0)
            return rc;
        show(io, buf, (size_t)(q + 1) * part);
    }
    if (pos == 0 || (rc = io->send(io->ctx, pos - 1, pos, own, part)) != 0)
        return pos == 0 ? 0 : rc;
    for (int t = 1; pos + t < p; t++) {
        if ((rc = io->recv(io->ctx, pos + 1, pos + t, tmp, part)) != 0)
            return rc;
        show(io, tmp, part); /* the part it passes on */
        if ((rc = io->send(io->ctx, pos - 1, pos + t, tmp, part)) != 0)
            return rc;
    }
    return 0;
}

int hma_coll_scatter_linear(const hma_coll_io_t *io, int pos, int p, const void *buf, void *tmp,
                            size_t part)
{
    int rc;
    for (int j = p - 1; pos == 0 && j >= 1; j--) {
        if ((rc = io->send(io->ctx, 1, j, AT(buf, (size_t)j * part), part)) != 0)
            return rc;
        if (j > 1 && io->next && (rc = io->next(io->ctx)) != 0)
            return rc;
    }
    for (int j = p - 1; pos > 0 && j >= pos; j--) {
        if ((rc = io->recv(io->ctx, pos - 1, j, tmp, part)) != 0)
            return rc;
        show(io, tmp, part); /* the part on its way down, its own last */
        if (j > pos && (rc = io->send(io->ctx, pos + 1, j, tmp, part)) != 0)
            return rc;
    }
    return 0;
}

int hma_coll_bcast_chain(const hma_coll_io_t *io, int pos, int p, void *buf, size_t count)
{
    int rc;
    for (size_t k = 0; k < count; k++) {
        if (pos == 0 && k > 0 && io->next && (rc = io->next(io->ctx)) != 0)
            return rc;
        if (pos > 0) {
            if ((rc = io->recv(io->ctx, pos - 1, (int)k, AT(buf, k), 1)) != 0)
                return rc;
            show(io, buf, k + 1); /* the elements so far */
        }
        if (io->have)
            io->have(io->ctx, AT(buf, k), 1);
        if (pos < p - 1 && (rc = io->send(io->ctx, pos + 1, (int)k, AT(buf, k), 1)) != 0)
            return rc;
    }
    return 0;
}

/* Copy the blocks a[j] with bit k of j set into v (to_v) or back from v; their elements. */
static size_t bruck_pack(const hma_coll_io_t *io, void *a, void *v, int p, int k, size_t block,
                         int to_v)
{
    size_t c = 0, bytes = block * io->elem;
    for (int j = 0; j < p; j++)
        if (j >> k & 1) {
            void *aj = AT(a, (size_t)j * block), *vc = AT(v, c);
            if (bytes)
                memcpy(to_v ? vc : aj, to_v ? aj : vc, bytes);
            c += block;
        }
    return c;
}

int hma_coll_alltoall_bruck(const hma_coll_io_t *io, int pos, int p, void *a, void *v, size_t block)
{
    int rc;
    for (int k = 0, dist = 1; dist < p; k++, dist *= 2) {
        size_t c = bruck_pack(io, a, v, p, k, block, 1);
        int to = (pos + dist) % p, from = (pos - dist + p) % p;
        if (io->exchange)
            rc = io->exchange(io->ctx, to, from, k, v, v, c);
        else if ((rc = io->send(io->ctx, to, k, v, c)) == 0)
            rc = io->recv(io->ctx, from, k, v, c);
        if (rc != 0)
            return rc;
        bruck_pack(io, a, v, p, k, block, 0);
        show(io, a, (size_t)p * block); /* the blocks, rotated, after step k */
    }
    return 0;
}

int hma_coll_allgather_bruck(const hma_coll_io_t *io, int pos, int p, void *buf, size_t block)
{
    int rc;
    for (int k = 0, dist = 1; dist < p; k++, dist *= 2) {
        size_t c = (size_t)(dist < p - dist ? dist : p - dist) * block;
        void *at = AT(buf, (size_t)dist * block);
        int to = (pos + dist) % p, from = (pos - dist + p) % p;
        if (io->exchange)
            rc = io->exchange(io->ctx, to, from, k, buf, at, c);
        else if ((rc = io->send(io->ctx, to, k, buf, c)) == 0)
            rc = io->recv(io->ctx, from, k, at, c);
        if (rc != 0)
            return rc;
        show(io, buf, (size_t)(2 * dist < p ? 2 * dist : p) * block); /* the blocks so far */
    }
    return 0;
}

int hma_coll_reduce_scatter_pairwise(const hma_coll_io_t *io, int x, int p, int xor, const void *in,
                                     void *acc, void *tmp, size_t block)
{
    for (int s = 1; s < p; s++) {
        int to = xor? x ^ s : (x + s) % p, from = xor? x ^ s : mod(x - s, p), rc;
        const void *v = AT(in, (size_t)to * block);
        if (io->exchange)
            rc = io->exchange(io->ctx, to, from, s, v, tmp, block);
        else if ((rc = io->send(io->ctx, to, s, v, block)) == 0)
            rc = io->recv(io->ctx, from, s, tmp, block);
        if (rc || (rc = io->combine(io->ctx, acc, tmp, block)) != 0)
            return rc;
        show(io, acc, block); /* its block's partial result */
    }
    return 0;
}

/* The blocks of buf whose index differs from x in bit k (differ) or not, to pack in
 * increasing index (to_pack) or from it to index j XOR 2^k. */
static void dimex_pack(const hma_coll_io_t *io, int x, int p, int k, void *buf, void *pack,
                       size_t block, int to_pack)
{
    size_t m = 0, bytes = block * io->elem;
    for (int j = 0; j < p; j++) {
        if (((j ^ x) >> k & 1) != to_pack)
            continue;
        void *at = AT(buf, (size_t)(to_pack ? j : j ^ (1 << k)) * block), *pm = AT(pack, m);
        if (bytes)
            memcpy(to_pack ? pm : at, to_pack ? at : pm, bytes);
        m += block;
    }
}

int hma_coll_alltoall_dimex(const hma_coll_io_t *io, int x, int p, void *buf, void *pack,
                            size_t block)
{
    size_t half = (size_t)p / 2 * block;
    for (int k = 0; (1 << k) < p; k++) {
        int rc;
        dimex_pack(io, x, p, k, buf, pack, block, 1);
        if ((rc = io->send(io->ctx, x ^ (1 << k), k, pack, half)) != 0 ||
            (rc = io->recv(io->ctx, x ^ (1 << k), k, pack, half)) != 0)
            return rc;
        dimex_pack(io, x, p, k, buf, pack, block, 0);
        show(io, buf, (size_t)p * block); /* the blocks after dimension k */
    }
    return 0;
}
