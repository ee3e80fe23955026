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

static void scatter_linear_node(hm_node_t *n, void *state)
{
    const hma_prob_t *pb = state;
    size_t b = (size_t)pb->block, count;
    int root = hm_root(n);
    int pos = hma_prob_pos(pb, hm_id(n), root), next = hma_prob_next(pb, pos, root);
    const int64_t *in = hm_input(n, &count);
    if (pos == 0) {
        for (int j = pb->p - 1; j >= 1; j--) {
            size_t x = (size_t)hma_prob_node(pb, j, root);
            if (hma_prob_send(n, pb, next, j, in + x * b, b) != HM_OK)
                return;
            if (j > 1 && hm_next_slot(n) != HM_OK)
                return;
        }
        hma_prob_store(n, in + (size_t)root * b, b);
        return;
    }
    int64_t *buf = hma_prob_alloc(n, b);
    if (!buf)
        return;
    for (int j = pb->p - 1; j >= pos; j--) {
        if (hma_prob_recv(n, buf, b, &count, NULL) != HM_OK)
            goto done;
        hm_show(n, buf, b); /* the block on its way down, its own last */
        if (j > pos && hma_prob_send(n, pb, next, j, buf, b) != HM_OK)
            goto done;
    }
    hma_prob_store(n, buf, b);
done:
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
