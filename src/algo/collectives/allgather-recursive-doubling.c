/* SPDX-License-Identifier: MIT */
/*
 * allgather-recursive-doubling — the blocks gathered so far double across each
 * dimension in turn.
 *
 * Steps (Thakur-Rabenseifner-Gropp 2005, section 4.2, recursive doubling; Bertsekas-
 * Tsitsiklis section 1.3, multinode broadcast by dimension). In slot k = 0..d-1 node
 * x sends the 2^k blocks of the nodes [x>>k<<k, +2^k) on port k and receives those of
 * [(x^2^k)>>k<<k, +2^k).
 *
 * Cost under unit slots: exactly log2 p slots, p*log2 p packets, the last carrying
 * p/2 blocks (combining when p > 2 or b > 1). A node sends and receives in one slot:
 * all-port and one-port-full, no conflict.
 *
 * Cost under Seidel's a*m + b (circuit routing to neighbours, Hockney's alpha +
 * beta*m; Thakur-Rabenseifner-Gropp 2005, section 4.2: lg p * alpha + (p-1)/p * n *
 * beta): exchanges of 1, 2, .., p/2 blocks, every node in step with its partner:
 * exactly sum_{i<d} D(b*2^i) slots, D(v) = ceil(8a*v + b) (hma_prob_msg_slots), any
 * block.
 *
 * Any p on the bus (doc/collectives.md, "Any p: the bus"): x >= q = 2^floor(log2 p) sends
 * its block to x - q, the first q double with their groups' blocks (folded ones
 * included), x - q sends x all p*b values: floor(log2 p) + 2 slots; under a*m + b every
 * step starts after the step's longest message, D(b) + sum_k D(b(2^k + min(2^k, p - q)))
 * + D(p b).
 */
#include <stdlib.h>

#include "../common/problem.h"

static const hm_param_spec_t allgather_rd_specs[] = {
    HMA_PROB_PARAM_BLOCK,
    HMA_PROB_PARAM_END,
};

static int allgather_rd_setup(hm_setup_t *s)
{
    hma_prob_t *pb = hma_prob_setup(s, HM_PROBLEM_ALLGATHER);
    if (pb && !hma_prob_pow2(pb)) {
        /* Step starts: the fold (one block), then exchange k of 2^k + min(2^k, rem) blocks
         * at most (the group of node 0 holds the most folded blocks). */
        const hm_machine_info_t *mi = s->machine;
        int q = 1 << (pb->lg - 1), rem = pb->p - q;
        size_t b = (size_t)pb->block;
        pb->step_at[1] = mi->circuit ? hma_prob_msg_slots(mi, b) : 1;
        for (int k = 0; k + 1 < pb->lg; k++)
            pb->step_at[k + 2] =
                pb->step_at[k + 1] +
                (mi->circuit ? hma_prob_msg_slots(
                                   mi, b * (size_t)((1 << k) + (rem < (1 << k) ? rem : 1 << k)))
                             : 1);
    }
    return hma_prob_ready(s, pb);
}

/* The blocks a group [lo, lo + 2^k) of the first q nodes holds after the fold: its own
 * and those folded into it, nodes lo + q .. (below rem + q): copied into (to 1) or out
 * of (to 0) the packet pk; returns their number of values. */
static size_t group_copy(const hma_prob_t *pb, int lo, int k, int64_t *buf, const size_t *off,
                         int64_t *pk, int to)
{
    int q = 1 << (pb->lg - 1), rem = pb->p - q, hi = lo + (1 << k), ehi = hi < rem ? hi : rem;
    size_t n1 = off[hi] - off[lo], n2 = lo < rem ? off[ehi + q] - off[lo + q] : 0;
    for (size_t i = 0; i < n1; i++)
        to ? (pk[i] = buf[off[lo] + i]) : (buf[off[lo] + i] = pk[i]);
    for (size_t i = 0; i < n2; i++)
        to ? (pk[n1 + i] = buf[off[lo + q] + i]) : (buf[off[lo + q] + i] = pk[n1 + i]);
    return n1 + n2;
}

/* p not a power of two (the bus), q = 2^floor(log2 p): node x >= q sends its block to
 * x - q (step 0); the first q nodes double with their groups' blocks, folded ones
 * included (steps 1 .. lg-1); x - q sends x all p blocks (step lg). */
static int allgather_fold(hm_node_t *n, const hma_prob_t *pb, int64_t *buf, const size_t *off,
                          int64_t *pk)
{
    int x = hm_id(n), q = 1 << (pb->lg - 1), rem = pb->p - q;
    size_t b = (size_t)pb->block, all = (size_t)pb->p * b, count;
    if (x >= q)
        return hma_prob_send(n, pb, hm_port_to(n, x - q), 0, buf + off[x], b) == HM_OK &&
                       hma_prob_recv(n, buf, all, &count, NULL) == HM_OK
                   ? HM_OK
                   : HM_EABORT;
    if (x < rem && hma_prob_recv(n, buf + off[x + q], b, &count, NULL) != HM_OK)
        return HM_EABORT;
    for (int k = 0; k + 1 < pb->lg; k++) {
        int mine = x >> k << k, theirs = (x ^ (1 << k)) >> k << k;
        size_t len = group_copy(pb, mine, k, buf, off, pk, 1);
        if (hma_prob_wait(n, pb->step_at[k + 1]) != HM_OK ||
            hma_prob_send(n, pb, hm_port_to(n, x ^ (1 << k)), k + 1, pk, len) != HM_OK ||
            hma_prob_recv(n, pk, all, &count, NULL) != HM_OK)
            return HM_EABORT;
        group_copy(pb, theirs, k, buf, off, pk, 0);
    }
    if (x < rem && (hma_prob_wait(n, pb->step_at[pb->lg]) != HM_OK ||
                    hma_prob_send(n, pb, hm_port_to(n, x + q), pb->lg, buf, all) != HM_OK))
        return HM_EABORT;
    return HM_OK;
}

static void allgather_rd_node(hm_node_t *n, void *state)
{
    const hma_prob_t *pb = state;
    size_t b = (size_t)pb->block, count, all = (size_t)pb->p * b;
    int x = hm_id(n);
    int64_t *buf = hma_prob_alloc(n, 2 * all);
    size_t *off = buf ? hma_prob_offsets(n, all, pb->p) : NULL;
    if (!off)
        goto done;
    const int64_t *in = hm_input(n, &count);
    for (size_t i = 0; i < b; i++)
        buf[off[x] + i] = in[i];
    if (!hma_prob_pow2(pb)) {
        if (allgather_fold(n, pb, buf, off, buf + all) == HM_OK)
            hma_prob_store(n, buf, all);
    } else if (hma_prob_allgather_rd(n, pb, x, buf, off) == HM_OK)
        hma_prob_store(n, buf, all);
done:
    free(buf);
    free(off);
}

static void allgather_rd_verify(hm_report_t *r)
{
    const hma_prob_t *pb = r->state;
    int comb = pb->p > 2 || pb->block > 1;
    if (!hma_prob_pow2(pb) && r->machine->circuit) /* the last step: all p blocks */
        hma_prob_verify(r,
                        "ceil(8a*block+b)+sum_{k<floor(log2(p))} "
                        "ceil(8a*block*(2^k+min(2^k,p-2^floor(log2(p))))+b)+ceil(8a*p*block+b)",
                        pb->step_at[pb->lg] +
                            hma_prob_msg_slots(r->machine, (size_t)pb->p * (size_t)pb->block),
                        comb);
    else if (!hma_prob_pow2(pb))
        hma_prob_verify(r, "floor(log2(p))+2", pb->lg + 1, comb);
    else if (r->machine->circuit) /* exchanges of 1, 2, .. p/2 blocks */
        hma_prob_verify(r, "sum_i ceil(8a*block*2^i+b)",
                        hma_prob_doubling_slots(r->machine, (size_t)pb->block, pb->lg), comb);
    else
        hma_prob_verify(r, pb->full ? "ceil(log2(p))" : "log2(p)", pb->lg, comb);
}

const hm_algorithm_t hm_algo_allgather_recursive_doubling = {
    .name = "allgather-recursive-doubling",
    .description = "allgather: the blocks gathered so far double across each dimension",
    .paper = "Thakur-Rabenseifner-Gropp 2005, section 4.2; Bertsekas-Tsitsiklis section 1.3",
    .topologies = HM_BIT(HM_TOPO_HYPERCUBE) | HM_BIT(HM_TOPO_BUS),
    .ports = HM_BIT(HM_PORTS_ALL_PORT) | HM_BIT(HM_PORTS_ONE_PORT_FULL),
    .default_ports = HM_PORTS_ONE_PORT_FULL,
    .specs = allgather_rd_specs,
    .needs = {.clock_modes = HM_BIT(HM_CLOCK_SLOTTED),
              .clock_why = "each step takes the next packet as that step's partner's, which only "
                           "lock step guarantees",
              .min_dim = 1},
    .problem = HM_PROBLEM_ALLGATHER,
    .out_size = sizeof(hma_prob_count_t), /* the node's counters (hma_prob_send) */
    .setup = allgather_rd_setup,
    .node_main = allgather_rd_node,
    .verify = allgather_rd_verify,
    .teardown = hma_prob_free,
    HMA_PROB_IO,
};
