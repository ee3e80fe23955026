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

/* The shared schedules' transport over new ranks (coll_prob.c): parts at off. */
static const hma_coll_io_t *fold_io(hma_coll_prob_t *c, hm_node_t *n, const hma_prob_t *pb, int nr,
                                    int keep_odd, const size_t *off)
{
    const hma_coll_io_t *io = hma_coll_prob(c, n, pb, nr, 0);
    c->fold = keep_odd + 1;
    c->io.off = off;
    return io;
}

int hma_prob_halving_fold(hm_node_t *n, const hma_prob_t *pb, int nr, int keep_odd, int64_t *buf,
                          int64_t *tmp, const size_t *off)
{
    hma_coll_prob_t c;
    int q = 1 << hma_prob_fold_k(pb), first = !hma_prob_pow2(pb);
    return hma_coll_halving(fold_io(&c, n, pb, nr, keep_odd, off), nr, q, buf, tmp, off[q], first,
                            pb->step_waits ? first : -1);
}

int hma_prob_doubling_fold(hm_node_t *n, const hma_prob_t *pb, int nr, int keep_odd, int64_t *buf,
                           const size_t *off)
{
    hma_coll_prob_t c;
    int d = hma_prob_fold_k(pb), q = 1 << d, first = hma_prob_pow2(pb) ? 0 : d + 1;
    return hma_coll_doubling(fold_io(&c, n, pb, nr, keep_odd, off), nr, q, buf, off[q], first,
                             pb->step_waits ? (first ? first : d) : -1);
}

int hma_prob_gather_fold(hm_node_t *n, const hma_prob_t *pb, int nr, int keep_odd, int64_t *buf,
                         const size_t *off)
{
    hma_coll_prob_t c;
    int d = hma_prob_fold_k(pb), q = 1 << d, first = hma_prob_pow2(pb) ? 0 : d + 1;
    return hma_coll_gather_parts(fold_io(&c, n, pb, nr, keep_odd, off), nr, q, buf, off[q], first,
                                 pb->step_waits ? (first ? first : d) : -1);
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
