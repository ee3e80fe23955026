/* SPDX-License-Identifier: MIT */
/*
 * scatter-binomial — the root sends each node its block along a binomial tree,
 * halving the data at every level.
 *
 * Steps (Thakur-Rabenseifner-Gropp 2005, section 4.3; Bertsekas-Tsitsiklis section
 * 1.3, single node scatter). Relative numbers r = x XOR root; part c of the root's
 * buffer is the block of relative node c. In slot k = 0..d-1, with i = d-1-k, every
 * node r with r mod 2^(i+1) = 0 sends parts [r+2^i, r+2^(i+1)) on port i.
 *
 * Cost under unit slots: exactly log2 p slots and p - 1 packets; the first carries
 * p/2 blocks (combining when p > 2 or b > 1). A node sends or receives one packet a
 * slot: all-port, one-port-full, one-port-half and shout, no conflict.
 *
 * Cost under Seidel's a*m + b (circuit routing to neighbours, Hockney's alpha +
 * beta*m; Thakur-Rabenseifner-Gropp 2005, section 4.3: lg p * alpha + (p-1)/p * n *
 * beta): the root sends p/2, p/4, .., 1 blocks one after the other, and each subtree
 * below does the same after its message arrived, so the last node gets its block
 * after exactly sum_{i<d} D(b*2^i) slots, D(v) = ceil(8a*v + b) (one message of v
 * values, hma_prob_msg_slots), any block.
 *
 * Any p on the bus (doc/collectives.md, "Any p: the bus"): r = x - root mod p, children
 * r + 2^i below p with the blocks [c, min(c + 2^i, p)): ceil(log2 p) slots; under
 * a*m + b D(b(p - 2^(L-1))) + sum_{i<L-1} D(b 2^i), L = ceil(log2 p) (the root's chain).
 */
#include <stdlib.h>

#include "../common/problem.h"

static const hm_param_spec_t scatter_binomial_specs[] = {
    HMA_PROB_PARAM_BLOCK,
    HMA_PROB_PARAM_ROOT,
    HMA_PROB_PARAM_END,
};

static int scatter_binomial_setup(hm_setup_t *s)
{
    return hma_prob_ready(s, hma_prob_setup(s, HM_PROBLEM_SCATTER));
}

static void scatter_binomial_node(hm_node_t *n, void *state)
{
    const hma_prob_t *pb = state;
    size_t b = (size_t)pb->block, count;
    int root = hm_root(n), r = hma_prob_rel(pb, hm_id(n), root);
    int64_t *buf = hma_prob_alloc(n, (size_t)pb->p * b);
    size_t *off = buf ? hma_prob_offsets(n, (size_t)pb->p * b, pb->p) : NULL;
    if (!off)
        goto done;
    if (r == 0) {
        /* Relative order: part c is the block of node c XOR root. */
        const int64_t *in = hm_input(n, &count);
        for (int c = 0; c < pb->p; c++)
            for (size_t i = 0; i < b; i++)
                buf[off[c] + i] = in[(size_t)hma_prob_abs(pb, c, root) * b + i];
    }
    if (hma_prob_scatter_tree(n, pb, r, buf, off) == HM_OK)
        hma_prob_store(n, buf + off[r], b);
done:
    free(buf);
    free(off);
}

const hm_algorithm_t hm_algo_scatter_binomial = {
    .name = "scatter-binomial",
    .description = "scatter: binomial tree, half the remaining blocks at each level, log2 p slots",
    .paper = "Thakur-Rabenseifner-Gropp 2005, section 4.3; Bertsekas-Tsitsiklis section 1.3",
    .topologies = HM_BIT(HM_TOPO_HYPERCUBE) | HM_BIT(HM_TOPO_BUS),
    .ports = HM_BIT(HM_PORTS_ALL_PORT) | HM_BIT(HM_PORTS_ONE_PORT_FULL) |
             HM_BIT(HM_PORTS_ONE_PORT_HALF) | HM_BIT(HM_PORTS_SHOUT),
    .default_ports = HM_PORTS_ONE_PORT_FULL,
    .specs = scatter_binomial_specs,
    .needs = {.min_dim = 1},
    .problem = HM_PROBLEM_SCATTER,
    .out_size = sizeof(hma_prob_count_t), /* the node's counters (hma_prob_send) */
    .setup = scatter_binomial_setup,
    .node_main = scatter_binomial_node,
    .verify = hma_prob_verify_halving,
    .teardown = hma_prob_free,
    HMA_PROB_IO,
};
