/* SPDX-License-Identifier: MIT */
/*
 * scatter-linear — the flat scatter on a hypercube: the root sends the p - 1 blocks
 * one after the other, farthest first, down the Gray-code chain, and every node
 * passes on the blocks that are not its own.
 *
 * Steps (Thakur-Rabenseifner-Gropp 2005, section 4.3, the linear algorithm; with
 * packet routing to neighbours only, the root's p - 1 sends become a pipeline along
 * the chain of Bertsekas-Tsitsiklis section 1.3). Position i of the chain is node
 * root XOR gray(i) (consecutive positions are neighbours). The root sends the block
 * of position j in slot p-1-j (j = p-1 .. 1); position i receives block j in slot
 * p-2-j+i and forwards it in the next slot unless j = i. Every block arrives in
 * slot p - 2.
 *
 * Cost under unit slots: exactly p - 1 slots, p(p-1)/2 packets of one block each
 * (combining when b > 1). A node sends and receives in one slot: all-port and
 * one-port-full, no conflict.
 *
 * Cost under Seidel's a*m + b (circuit routing to neighbours, Hockney's alpha +
 * beta*m; Thakur-Rabenseifner-Gropp 2005, section 4.3, the linear scatter's (p-1) *
 * (alpha + n/p * beta) at the root): p - 1 steps of one block each along the
 * chain, every node in step: exactly (p - 1) * D(b) slots, D(v) = ceil(8a*v + b)
 * (hma_prob_msg_slots), any block, on the hypercube, a ring or a torus.
 */
#include <stdlib.h>

#include "../common/problem.h"
#include "../common/trees.h"

static const hm_param_spec_t scatter_linear_specs[] = {
    HMA_PROB_PARAM_BLOCK,
    HMA_PROB_PARAM_ROOT,
    HMA_PROB_PARAM_END,
};

static int scatter_linear_setup(hm_setup_t *s)
{
    return hma_prob_ready(s, hma_prob_setup(s, HM_PROBLEM_SCATTER));
}

/* hma_coll_scatter_linear's schedule (coll_core.c) over the chain's ports: the root's
 * blocks by position (position j is node root XOR gray(j)). */
static void scatter_linear_node(hm_node_t *n, void *state)
{
    const hma_prob_t *pb = state;
    size_t b = (size_t)pb->block, count;
    int root = hm_root(n), pos = hma_prob_pos(pb, hm_id(n), root);
    const int64_t *in = hm_input(n, &count);
    int64_t *buf = hma_prob_alloc(n, pos == 0 ? (size_t)pb->p * b : b);
    if (!buf)
        return;
    for (int j = 0; pos == 0 && j < pb->p; j++)
        for (size_t i = 0; i < b; i++)
            buf[(size_t)j * b + i] = in[(size_t)hma_prob_node(pb, j, root) * b + i];
    hma_coll_prob_t c;
    const hma_coll_io_t *io = hma_coll_prob(&c, n, pb, pos, 2);
    c.root = root;
    if (hma_coll_scatter_linear(io, pos, pb->p, buf, buf, b) == HM_OK)
        hma_prob_store(n, pos == 0 ? in + (size_t)root * b : buf, b);
    free(buf);
}

const hm_algorithm_t hm_algo_scatter_linear = {
    .name = "scatter-linear",
    .description = "scatter: the root sends p-1 blocks, farthest first, down the Gray-code chain",
    .paper = "Thakur-Rabenseifner-Gropp 2005, section 4.3; Bertsekas-Tsitsiklis section 1.3",
    .topologies = HM_BIT(HM_TOPO_HYPERCUBE) | HM_BIT(HM_TOPO_RING) | HM_BIT(HM_TOPO_TORUS),
    .ports = HM_BIT(HM_PORTS_ALL_PORT) | HM_BIT(HM_PORTS_ONE_PORT_FULL),
    .default_ports = HM_PORTS_ONE_PORT_FULL,
    .specs = scatter_linear_specs,
    .needs = {.min_dim = 1},
    .problem = HM_PROBLEM_SCATTER,
    .out_size = sizeof(hma_prob_count_t), /* the node's counters (hma_prob_send) */
    .setup = scatter_linear_setup,
    .node_main = scatter_linear_node,
    .verify = hma_prob_verify_steps, /* p - 1 steps of one block */
    .teardown = hma_prob_free,
    HMA_PROB_IO,
};
