/* SPDX-License-Identifier: MIT */
/*
 * reduce-scatter-recursive-halving — the blocks still to be reduced halve across each
 * dimension in turn, from the highest.
 *
 * Steps (Thakur-Rabenseifner-Gropp 2005, section 4.6, recursive halving). Node x
 * starts with its p blocks (block y for node y). In slot d-1-k node x sends on
 * port k the blocks [(x^2^k)>>k<<k, +2^k) that the other half of the current
 * subcube keeps, and combines the copies of blocks [x>>k<<k, +2^k) it receives; it
 * ends with block x reduced over all nodes (hma_prob_halving_fold).
 *
 * Cost under unit slots: exactly log2 p slots, p*log2 p packets, the first carrying
 * p/2 blocks (combining when p > 2 or b > 1). A node sends and receives in one slot:
 * all-port and one-port-full, no conflict.
 *
 * Cost under Seidel's a*m + b (circuit routing to neighbours, Hockney's alpha +
 * beta*m; Thakur-Rabenseifner-Gropp 2005, section 4.6: lg p * alpha + (p-1)/p * n *
 * beta + the combining, free here): exchanges of p/2, p/4, .., 1 blocks: exactly
 * sum_{i<d} D(b*2^i) slots, D(v) = ceil(8a*v + b) (hma_prob_msg_slots), any block
 * (b values per destination, so the halves are always equal).
 *
 * Any p on the bus (doc/collectives.md, "Any p: the bus"; Thakur-Rabenseifner-Gropp
 * 2005, section 4.6, and MPICH's reduce_scatter recursive halving for a p not a power
 * of two): k = floor(log2 p), q = 2^k, rem = p - q.
 *   0. of the first 2*rem nodes each even one sends its p*b values to the odd one above
 *      it and drops out; the odd node 2i takes new rank i (and holds blocks 2i and
 *      2i + 1, 2b values), node x >= 2*rem new rank x - rem (block x; hma_prob_fold_new);
 *   1..k. recursive halving over the q new ranks, new rank j's part being the blocks of
 *      its nodes, [2j, 2j + 2) or [j + rem, j + rem + 1): the step of bit i carries
 *      2^i parts, b*(2^i + min(2^i, rem)) values at most (the group of new rank 0
 *      holds the most double parts);
 *   k+1. each odd node x < 2*rem sends block x - 1 (b values) to x - 1.
 * Exactly floor(log2 p) + 2 slots. Under a*m + b every node waits for the end of the
 * step before, the longest message of that step (pb->step_waits), so messages of
 * unequal length never meet at a port: exactly
 * D(p*b) + sum_{i<k} D(b*(2^i + min(2^i, rem))) + D(b) slots.
 */
#include <stdlib.h>

#include "../common/problem.h"

static const hm_param_spec_t rs_rh_specs[] = {
    HMA_PROB_PARAM_BLOCK,
    HMA_PROB_PARAM_OP,
    HMA_PROB_PARAM_END,
};

/* The slots of halving step i (bit i) on the bus: its longest message. */
static int64_t rs_rh_step(const hm_machine_info_t *mi, const hma_prob_t *pb, int i)
{
    int rem = pb->p - (1 << hma_prob_fold_k(pb)), two = 1 << i;
    if (!mi->circuit)
        return 1;
    return hma_prob_msg_slots(mi, (size_t)pb->block * (size_t)(two + (two < rem ? two : rem)));
}

static int rs_rh_setup(hm_setup_t *s)
{
    hma_prob_t *pb = hma_prob_setup(s, HM_PROBLEM_REDUCE_SCATTER);
    int k = pb ? hma_prob_fold_k(pb) : 0;
    if (pb && !hma_prob_pow2(pb)) { /* step 0 the fold (p*b values), then the halving */
        pb->step_waits = 1;
        pb->step_at[0] = 0;
        pb->step_at[1] = s->machine->circuit
                             ? hma_prob_msg_slots(s->machine, (size_t)pb->p * (size_t)pb->block)
                             : 1;
        for (int j = 1; j <= k && j + 1 < 40; j++) /* step j: bit k - j */
            pb->step_at[j + 1] = pb->step_at[j] + rs_rh_step(s->machine, pb, k - j);
    }
    return hma_prob_ready(s, pb);
}

/* New rank nr's part: the blocks of the nodes it stands for (block y = [y*b, y*b + b)). */
static size_t *rs_rh_offsets(hm_node_t *n, const hma_prob_t *pb)
{
    int q = 1 << hma_prob_fold_k(pb), rem = pb->p - q;
    size_t *off = hma_prob_offsets(n, (size_t)q, q);
    for (int j = 0; off && j <= q; j++)
        off[j] = (size_t)pb->block * (size_t)(j < rem ? 2 * j : j + rem);
    return off;
}

static void rs_rh_node(hm_node_t *n, void *state)
{
    const hma_prob_t *pb = state;
    size_t b = (size_t)pb->block, count, all = (size_t)pb->p * b;
    int x = hm_id(n), nr = hma_prob_fold_new(pb, x, 1), k = hma_prob_fold_k(pb);
    int rem = pb->p - (1 << k), rc;
    int64_t *buf = hma_prob_alloc(n, 2 * all);
    size_t *off = buf ? rs_rh_offsets(n, pb) : NULL;
    if (!off)
        goto done;
    const int64_t *in = hm_input(n, &count);
    for (size_t i = 0; i < all; i++)
        buf[i] = in[i];
    /* The bus, p not a power of two: the even x < 2*rem fold into x + 1 and drop out;
     * their block comes back in the last step. */
    rc = hma_prob_fold_in(n, pb, x, 1, buf, buf + all, all);
    if (rc == HM_OK && nr < 0) {
        if (hma_prob_recv(n, buf + all, b, &count, NULL) == HM_OK)
            hma_prob_store(n, buf + all, count);
        goto done;
    }
    if (rc == HM_OK)
        rc = hma_prob_halving_fold(n, pb, nr, 1, buf, buf + all, off);
    if (rc == HM_OK && x < 2 * rem && hma_prob_wait(n, pb->step_at[k + 1]) == HM_OK)
        rc = hma_prob_send(n, pb, hm_port_to(n, x - 1), k + 1, buf + (size_t)(x - 1) * b, b);
    if (rc == HM_OK)
        hma_prob_store(n, buf + (size_t)x * b, b);
done:
    free(buf);
    free(off);
}

static void rs_rh_verify(hm_report_t *r)
{
    const hma_prob_t *pb = r->state;
    const hm_machine_info_t *mi = r->machine;
    int k = hma_prob_fold_k(pb);
    if (hma_prob_pow2(pb) && mi->circuit) /* exchanges of p/2, p/4, .. 1 blocks */
        hma_prob_verify(r, "sum_i ceil(8a*block*2^i+b)",
                        hma_prob_doubling_slots(mi, (size_t)pb->block, k),
                        pb->p > 2 || pb->block > 1);
    else if (hma_prob_pow2(pb))
        hma_prob_verify(r, "log2(p)", k, pb->p > 2 || pb->block > 1);
    else if (mi->circuit) /* fold and halving on q (step_at[k + 1], setup), unfold */
        hma_prob_verify(r,
                        "ceil(8a*p*block+b)+sum_{i<floor(log2(p))} "
                        "ceil(8a*block*(2^i+min(2^i,p-2^floor(log2(p))))+b)+ceil(8a*block+b)",
                        pb->step_at[k + 1] + hma_prob_msg_slots(mi, (size_t)pb->block), 1);
    else
        hma_prob_verify(r, "floor(log2(p))+2", k + 2, 1);
}

const hm_algorithm_t hm_algo_reduce_scatter_recursive_halving = {
    .name = "reduce-scatter-recursive-halving",
    .description = "reduce-scatter: the blocks to reduce halve across each dimension",
    .paper = "Thakur-Rabenseifner-Gropp 2005, section 4.6",
    .topologies = HM_BIT(HM_TOPO_HYPERCUBE) | HM_BIT(HM_TOPO_BUS),
    .ports = HM_BIT(HM_PORTS_ALL_PORT) | HM_BIT(HM_PORTS_ONE_PORT_FULL),
    .default_ports = HM_PORTS_ONE_PORT_FULL,
    .specs = rs_rh_specs,
    .needs = {.clock_modes = HM_BIT(HM_CLOCK_SLOTTED),
              .clock_why = "each step takes the next packet as that step's partner's, which only "
                           "lock step guarantees",
              .min_dim = 1},
    .problem = HM_PROBLEM_REDUCE_SCATTER,
    .out_size = sizeof(hma_prob_count_t), /* the node's counters (hma_prob_send) */
    .setup = rs_rh_setup,
    .node_main = rs_rh_node,
    .verify = rs_rh_verify,
    .teardown = hma_prob_free,
    HMA_PROB_IO,
};
