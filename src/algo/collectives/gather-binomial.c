/* SPDX-License-Identifier: MIT */
/*
 * gather-binomial — every node's block reaches the root along a binomial tree, the
 * blocks of a subtree travelling together.
 *
 * Steps (Thakur-Rabenseifner-Gropp 2005, section 4.3; Bertsekas-Tsitsiklis section
 * 1.3, single node gather). Relative numbers r = x XOR root. In slot k = 0..d-1
 * every node r whose lowest set bit is k sends the parts [r, r+2^k) it holds (its
 * own block and its subtree's) on port k to r - 2^k. The root reorders the parts by
 * absolute node number before storing.
 *
 * Cost under unit slots: exactly log2 p slots and p - 1 packets, the last carrying
 * p/2 blocks (combining when p > 2 or b > 1). A node sends or receives one packet a
 * slot: all-port, one-port-full, one-port-half and shout, no conflict.
 *
 * Cost under Seidel's a*m + b (circuit routing to neighbours, Hockney's alpha +
 * beta*m; Thakur-Rabenseifner-Gropp 2005, section 4.3: lg p * alpha + (p-1)/p * n *
 * beta): the reverse of the binomial scatter; the root receives 1, 2, .., p/2 blocks
 * one after the other, each subtree's message leaving when the subtree has gathered:
 * exactly sum_{i<d} D(b*2^i) slots, D(v) = ceil(8a*v + b) (hma_prob_msg_slots), any
 * block.
 *
 * Any p on the bus (doc/collectives.md, "Any p: the bus"): the scatter's tree reversed;
 * a node sends at the start of its step (slot j, or sum_{i<j} D(b 2^i)) so that its
 * parent's receptions never overlap: the scatter's slots.
 */
#include <stdlib.h>

#include "../common/problem.h"

static const hm_param_spec_t gather_binomial_specs[] = {
    HMA_PROB_PARAM_BLOCK,
    HMA_PROB_PARAM_ROOT,
    HMA_PROB_PARAM_END,
};

static int gather_binomial_setup(hm_setup_t *s)
{
    hma_prob_t *pb = hma_prob_setup(s, HM_PROBLEM_GATHER);
    if (pb) /* p not a power of two: node r sends in step ctz(r), after b, 2b, .. values */
        hma_prob_set_steps(pb, s->machine, 1);
    return hma_prob_ready(s, pb);
}

static void gather_binomial_node(hm_node_t *n, void *state)
{
    const hma_prob_t *pb = state;
    size_t b = (size_t)pb->block, count;
    int root = hm_root(n), r = hma_prob_rel(pb, hm_id(n), root);
    int64_t *buf = hma_prob_alloc(n, (size_t)pb->p * b);
    size_t *off = buf ? hma_prob_offsets(n, (size_t)pb->p * b, pb->p) : NULL;
    if (!off)
        goto done;
    const int64_t *in = hm_input(n, &count);
    for (size_t i = 0; i < b; i++)
        buf[off[r] + i] = in[i];
    if (hma_prob_gather_tree(n, pb, r, buf, off) != HM_OK || r != 0)
        goto done;
    for (int y = 0; y < pb->p; y++)
        hma_prob_store(n, buf + off[hma_prob_rel(pb, y, root)], b);
done:
    free(buf);
    free(off);
}

const hm_algorithm_t hm_algo_gather_binomial = {
    .name = "gather-binomial",
    .description = "gather: binomial tree, subtrees' blocks travel together, log2 p slots",
    .paper = "Thakur-Rabenseifner-Gropp 2005, section 4.3; Bertsekas-Tsitsiklis section 1.3",
    .topologies = HM_BIT(HM_TOPO_HYPERCUBE) | HM_BIT(HM_TOPO_BUS),
    .ports = HM_BIT(HM_PORTS_ALL_PORT) | HM_BIT(HM_PORTS_ONE_PORT_FULL) |
             HM_BIT(HM_PORTS_ONE_PORT_HALF) | HM_BIT(HM_PORTS_SHOUT),
    .default_ports = HM_PORTS_ONE_PORT_FULL,
    .specs = gather_binomial_specs,
    .needs = {.clock_modes = HM_BIT(HM_CLOCK_SLOTTED),
              .clock_why = "a node takes its children's blocks in slot order; free clocks deliver "
                           "them in any order",
              .min_dim = 1},
    .problem = HM_PROBLEM_GATHER,
    .out_size = sizeof(hma_prob_count_t), /* the node's counters (hma_prob_send) */
    .setup = gather_binomial_setup,
    .node_main = gather_binomial_node,
    .verify = hma_prob_verify_halving,
    .teardown = hma_prob_free,
    HMA_PROB_IO,
};
