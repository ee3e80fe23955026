/* SPDX-License-Identifier: MIT */
/*
 * problem_steps.c — the step schedules and patterns the collectives share: a message's
 * slots under circuit routing (D(v)), the halving, doubling and tree schedules, the verify
 * formulas built on them, the folds for p not a power of two, and the scatter and gather
 * trees, recursive doubling, the ring, the relay and the xor route (doc/collectives.md,
 * "Algorithms", "Any p: the bus (fully connected)" and "Message length: Seidel's a·m + b").
 */
#include "problem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int64_t hma_prob_msg_slots(const hm_machine_info_t *mi, size_t k)
{
    double v = mi->cost_a * 8.0 * (double)k + mi->cost_b;
    int64_t dur = (int64_t)ceil(v - 1e-9);
    return dur < 1 ? 1 : dur;
}

/* The slots of the longest 2^i of the 2^k chunks [b*c/2^k, ..): D(ceil(b*2^i/2^k)). */
static int64_t longest_part(const hm_machine_info_t *mi, size_t b, int i, int k)
{
    return hma_prob_msg_slots(mi, ((b << i) + ((size_t)1 << k) - 1) >> k);
}

int64_t hma_prob_halving_slots(const hm_machine_info_t *mi, size_t b, int k)
{
    int64_t t = 0;
    for (int i = 0; i < k; i++)
        t += longest_part(mi, b, i, k);
    return t;
}

void hma_prob_set_halving_steps(hma_prob_t *pb, const hm_machine_info_t *mi)
{
    int k = hma_prob_fold_k(pb), first = !hma_prob_pow2(pb);
    size_t b = (size_t)pb->block;
    if (!mi->circuit || pb->block % (1 << k) == 0 || first + 2 * k + 1 >= 40)
        return;
    pb->step_waits = 1;
    pb->step_at[0] = 0;
    pb->step_at[first] = first ? hma_prob_msg_slots(mi, b) : 0;
    for (int s = 0; s < 2 * k; s++) /* halving (bit k-1-s), then doubling or gather (bit s-k) */
        pb->step_at[first + s + 1] =
            pb->step_at[first + s] + longest_part(mi, b, s < k ? k - 1 - s : s - k, k);
}

int64_t hma_prob_doubling_slots(const hm_machine_info_t *mi, size_t k, int d)
{
    int64_t t = 0;
    for (int i = 0; i < d; i++)
        t += hma_prob_msg_slots(mi, k << i);
    return t;
}

void hma_prob_verify_steps(hm_report_t *r)
{
    const hma_prob_t *pb = r->state;
    if (r->machine->circuit) /* p - 1 steps of one block */
        hma_prob_verify(r, "(p-1)*ceil(8a*block+b)",
                        ((int64_t)pb->p - 1) * hma_prob_msg_slots(r->machine, (size_t)pb->block),
                        pb->block > 1);
    else
        hma_prob_verify(r, "p-1", (int64_t)pb->p - 1, pb->block > 1);
}

/* The pairwise exchanges' verify (alltoall-pairwise, reduce-scatter-pairwise): p - 1
 * direct messages of one block on the bus and under route direct, (p/2) log2 p e-cube
 * hops on the hypercube. */
void hma_prob_verify_pairwise(hm_report_t *r)
{
    const hma_prob_t *pb = r->state;
    if (pb->full || pb->direct) /* p - 1 direct messages of one block */
        hma_prob_verify_steps(r);
    else if (r->machine->circuit) /* (p/2) log2 p hops of one block */
        hma_prob_verify(r, "(p/2)*log2(p)*ceil(8a*block+b)",
                        (int64_t)pb->p / 2 * pb->d *
                            hma_prob_msg_slots(r->machine, (size_t)pb->block),
                        pb->block > 1);
    else
        hma_prob_verify(r, "(p/2)*log2(p)", (int64_t)pb->p / 2 * pb->d, pb->block > 1);
}

/* p not a power of two (the bus): the reductions fold first (one message of b values)
 * and allreduce unfolds last (another), around the halving pair of the first q. */
static void verify_halving_fold(hm_report_t *r)
{
    const hma_prob_t *pb = r->state;
    int k = hma_prob_fold_k(pb), ends = pb->kind == HM_PROBLEM_ALLREDUCE ? 2 : 1;
    int even = pb->block % (1 << k) == 0; /* equal chunks: the expression without ceil */
    if (r->machine->circuit)
        hma_prob_verify(r,
                        ends == 2 ? (even ? "2*ceil(8a*block+b)+2*sum_{i<floor(log2(p))} "
                                            "ceil(8a*block*2^i/2^floor(log2(p))+b)"
                                          : "2*ceil(8a*block+b)+2*sum_{i<floor(log2(p))} "
                                            "ceil(8a*ceil(block*2^i/2^floor(log2(p)))+b)")
                        : even    ? "ceil(8a*block+b)+2*sum_{i<floor(log2(p))} "
                                    "ceil(8a*block*2^i/2^floor(log2(p))+b)"
                                  : "ceil(8a*block+b)+2*sum_{i<floor(log2(p))} "
                                    "ceil(8a*ceil(block*2^i/2^floor(log2(p)))+b)",
                        ends * hma_prob_msg_slots(r->machine, (size_t)pb->block) +
                            2 * hma_prob_halving_slots(r->machine, (size_t)pb->block, k),
                        pb->block > 1);
    else
        hma_prob_verify(r, ends == 2 ? "2*floor(log2(p))+2" : "2*floor(log2(p))+1",
                        2 * (int64_t)k + ends, pb->block > 1);
}

void hma_prob_verify_halving_pair(hm_report_t *r)
{
    const hma_prob_t *pb = r->state;
    int k = hma_prob_fold_k(pb);
    if (!hma_prob_pow2(pb))
        verify_halving_fold(r);
    else if (r->machine->circuit)
        hma_prob_verify(r,
                        pb->block % pb->p == 0 ? "2*sum_i ceil(8a*block*2^i/p+b)"
                                               : "2*sum_i ceil(8a*ceil(block*2^i/p)+b)",
                        2 * hma_prob_halving_slots(r->machine, (size_t)pb->block, k),
                        pb->block > 1);
    else
        hma_prob_verify(r, "2*log2(p)", 2 * (int64_t)k, pb->block > 1);
}

int hma_prob_fold_k(const hma_prob_t *pb)
{
    return hma_prob_pow2(pb) ? pb->lg : pb->lg - 1;
}

int hma_prob_fold_new(const hma_prob_t *pb, int r, int keep_odd)
{
    int rem = pb->p - (1 << hma_prob_fold_k(pb));
    if (r >= 2 * rem)
        return r - rem;
    return r % 2 == keep_odd ? r / 2 : -1;
}

int hma_prob_fold_old(const hma_prob_t *pb, int nr, int keep_odd)
{
    int rem = pb->p - (1 << hma_prob_fold_k(pb));
    return nr < rem ? 2 * nr + keep_odd : nr + rem;
}

/* The port to new rank nr: the dimension on the hypercube, else the link to its node. */
static int fold_port(hm_node_t *n, const hma_prob_t *pb, int nr, int keep_odd, int dim)
{
    return pb->full ? hma_prob_port_rel(n, pb, hma_prob_fold_old(pb, nr, keep_odd)) : dim;
}

int hma_prob_fold_in(hm_node_t *n, const hma_prob_t *pb, int r, int keep_odd, int64_t *buf,
                     int64_t *tmp, size_t b)
{
    size_t k;
    int rem = pb->p - (1 << hma_prob_fold_k(pb));
    if (hma_prob_pow2(pb))
        return HM_OK;
    if (r < 2 * rem && r % 2 != keep_odd) /* drops out: its values to its pair */
        return hma_prob_send(n, pb, hma_prob_port_rel(n, pb, r + (keep_odd ? 1 : -1)), 0, buf, b);
    if (r < 2 * rem) {
        int rc = hma_prob_recv(n, tmp, b, &k, NULL);
        if (rc != HM_OK)
            return rc;
        hma_prob_combine(pb, buf, tmp, k);
        hm_show(n, buf, b); /* the partial sums */
    }
    return hma_prob_wait(n, pb->step_at[1]);
}

int hma_prob_halving_fold(hm_node_t *n, const hma_prob_t *pb, int nr, int keep_odd, int64_t *buf,
                          int64_t *tmp, const size_t *off)
{
    size_t k;
    int d = hma_prob_fold_k(pb), first = !hma_prob_pow2(pb);
    for (int i = d - 1; i >= 0; i--) {
        int mine = nr >> i << i, theirs = (nr ^ (1 << i)) >> i << i;
        size_t mlo = off[mine], mn = off[mine + (1 << i)] - mlo;
        /* Parts of unequal length: every node waits for the longest of the step before. */
        if (pb->step_waits && hma_prob_wait(n, pb->step_at[first + d - 1 - i]) != HM_OK)
            return HM_EABORT;
        int rc =
            hma_prob_send(n, pb, fold_port(n, pb, nr ^ (1 << i), keep_odd, i), first + d - 1 - i,
                          buf + off[theirs], off[theirs + (1 << i)] - off[theirs]);
        if (rc == HM_OK)
            rc = hma_prob_recv(n, tmp, mn, &k, NULL);
        if (rc != HM_OK)
            return rc;
        hma_prob_combine(pb, buf + mlo, tmp, k);
        hm_show(n, buf + mlo, mn); /* the half it keeps, partly summed */
    }
    return HM_OK;
}

/* Recursive doubling's step i at node r: its 2^i parts (r's block) for its partner's,
 * on port `port`, once the step's slot `wait_at` has come (parts of unequal length),
 * sent as step `step`. */
static int doubling_step(hm_node_t *n, const hma_prob_t *pb, int port, int r, int i, int wait_at,
                         int step, int64_t *buf, const size_t *off)
{
    size_t k;
    int mine = r >> i << i, theirs = (r ^ (1 << i)) >> i << i;
    if (pb->step_waits && hma_prob_wait(n, pb->step_at[wait_at]) != HM_OK)
        return HM_EABORT;
    int rc = hma_prob_send(n, pb, port, step, buf + off[mine], off[mine + (1 << i)] - off[mine]);
    if (rc == HM_OK)
        rc = hma_prob_recv(n, buf + off[theirs], off[theirs + (1 << i)] - off[theirs], &k, NULL);
    int lo = r >> (i + 1) << (i + 1); /* the 2^(i+1) parts now held, side by side */
    if (rc == HM_OK)
        hm_show(n, buf + off[lo], off[lo + (2 << i)] - off[lo]);
    return rc;
}

int hma_prob_doubling_fold(hm_node_t *n, const hma_prob_t *pb, int nr, int keep_odd, int64_t *buf,
                           const size_t *off)
{
    int d = hma_prob_fold_k(pb), first = hma_prob_pow2(pb) ? 0 : d + 1;
    for (int i = 0; i < d; i++) {
        int rc = doubling_step(n, pb, fold_port(n, pb, nr ^ (1 << i), keep_odd, i), nr, i,
                               first ? first + i : d + i, first + i, buf, off);
        if (rc != HM_OK)
            return rc;
    }
    return HM_OK;
}

int hma_prob_gather_fold(hm_node_t *n, const hma_prob_t *pb, int nr, int keep_odd, int64_t *buf,
                         const size_t *off)
{
    size_t k;
    int d = hma_prob_fold_k(pb), j = nr ? __builtin_ctz((unsigned)nr) : d;
    int first = hma_prob_pow2(pb) ? 0 : d + 1;
    for (int i = 0; i < j; i++) { /* children nr + 2^i send in step i */
        int c = nr + (1 << i);
        int rc = hma_prob_recv(n, buf + off[c], off[c + (1 << i)] - off[c], &k, NULL);
        if (rc != HM_OK)
            return rc;
    }
    if (!nr)
        return HM_OK;
    if (pb->step_waits && hma_prob_wait(n, pb->step_at[first ? first + j : d + j]) != HM_OK)
        return HM_EABORT;
    return hma_prob_send(n, pb, fold_port(n, pb, nr - (1 << j), keep_odd, j), first + j,
                         buf + off[nr], off[nr + (1 << j)] - off[nr]);
}

int64_t hma_prob_tree_slots(const hm_machine_info_t *mi, const hma_prob_t *pb)
{
    size_t b = (size_t)pb->block, top = (size_t)1 << (pb->lg - 1);
    return hma_prob_msg_slots(mi, b * ((size_t)pb->p - top)) +
           hma_prob_doubling_slots(mi, b, pb->lg - 1);
}

void hma_prob_set_steps(hma_prob_t *pb, const hm_machine_info_t *mi, int doubling)
{
    pb->step_at[0] = 0;
    for (int j = 0; j < pb->lg && j + 1 < 40; j++)
        pb->step_at[j + 1] =
            pb->step_at[j] + (!mi->circuit ? 1
                              : doubling   ? hma_prob_msg_slots(mi, (size_t)pb->block << j)
                                           : hma_prob_msg_slots(mi, (size_t)pb->block));
}

size_t *hma_prob_offsets(hm_node_t *n, size_t total, int p)
{
    size_t *off = malloc(((size_t)p + 1) * sizeof *off);
    if (!off) {
        hm_fail(n, "collective: out of memory for the node's offsets");
        return NULL;
    }
    for (int c = 0; c <= p; c++)
        off[c] = total * (size_t)c / (size_t)p;
    return off;
}

/* The scatter and gather trees are the shared schedules (coll_core.c), which the MPI library's
 * MPI_Scatter and MPI_Gather run too; the scatter's steps wait for pb->step_at (unequal chunks:
 * the step's longest message), the gather's for p not a power of two (a parent takes one child a
 * step). */
int hma_prob_scatter_tree(hm_node_t *n, const hma_prob_t *pb, int r, int64_t *buf,
                          const size_t *off)
{
    hma_coll_prob_t c;
    const hma_coll_io_t *io = hma_coll_prob(&c, n, pb, r, 0);
    c.io.off = off; /* MPICH's chunks of ceil(b/p) too (bcast-scatter-allgather) */
    return hma_coll_scatter_binomial(io, r, pb->p, buf, off[pb->p], pb->step_waits);
}

int hma_prob_gather_tree(hm_node_t *n, const hma_prob_t *pb, int r, int64_t *buf, const size_t *off)
{
    hma_coll_prob_t c;
    const hma_coll_io_t *io = hma_coll_prob(&c, n, pb, r, 0);
    c.io.off = off;
    return hma_coll_gather_binomial(io, r, pb->p, buf, off[pb->p]);
}

/* The schedule is the shared one (coll_core.c), which the MPI library's MPI_Allgather runs on a
 * hypercube; it waits after the scatter tree's lg steps (hma_prob_set_halving_steps). */
int hma_prob_allgather_rd(hm_node_t *n, const hma_prob_t *pb, int r, int64_t *buf,
                          const size_t *off)
{
    hma_coll_prob_t c;
    const hma_coll_io_t *io = hma_coll_prob(&c, n, pb, r, 0);
    c.io.off = off;
    return hma_coll_allgather_rd(io, r, pb->p, buf, off[pb->p], pb->step_waits ? pb->lg : -1);
}

void hma_prob_show_parts(hm_node_t *n, const hma_prob_t *pb, const int64_t *buf, const size_t *off,
                         int lo, int count)
{
    int p = pb->p;
    lo = (lo % p + p) % p;
    if (lo + count <= p) {
        hm_show(n, buf + off[lo], off[lo + count] - off[lo]);
        return;
    }
    size_t head = off[p] - off[lo], tail = off[lo + count - p];
    int64_t *v = malloc((head + tail + 1) * sizeof *v);
    if (!v)
        return; /* a picture only: the run goes on without it */
    memcpy(v, buf + off[lo], head * sizeof *v);
    memcpy(v + head, buf, tail * sizeof *v);
    hm_show(n, v, head + tail);
    free(v);
}

int hma_prob_allgather_ring(hm_node_t *n, const hma_prob_t *pb, int pos, int shift, int64_t *buf,
                            const size_t *off)
{
    hma_coll_prob_t c;
    const hma_coll_io_t *io = hma_coll_prob(&c, n, pb, pos, 1);
    c.off = c.io.off = off;
    return hma_coll_allgather_ring(io, pos, pb->p, shift, buf, off[pb->p]);
}

int hma_prob_relay(hm_node_t *n, const hma_prob_t *pb, int pos, int hops, int msg, const int64_t *v,
                   int64_t *out, size_t k)
{
    int next = hma_prob_next(pb, pos, -1);
    size_t got;
    for (int h = 0; h < hops; h++) {
        /* The send copies v before out is overwritten (v may be out). */
        int rc = hma_prob_send(n, pb, next, msg, h ? out : v, k);
        if (rc == HM_OK)
            rc = hma_prob_recv(n, out, k, &got, NULL);
        if (rc != HM_OK)
            return rc;
    }
    return HM_OK;
}

int hma_prob_xor_route(hm_node_t *n, const hma_prob_t *pb, int s, const int64_t *v, int64_t *out,
                       size_t k)
{
    size_t got;
    const int64_t *cur = v;
    for (int i = 0; i < pb->d; i++) {
        if (!(s >> i & 1))
            continue;
        int rc = hma_prob_send(n, pb, i, s, cur, k);
        if (rc == HM_OK)
            rc = hma_prob_recv(n, out, k, &got, NULL);
        if (rc != HM_OK)
            return rc;
        cur = out;
    }
    return HM_OK;
}
