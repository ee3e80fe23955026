/* SPDX-License-Identifier: MIT */
/*
 * gather-linear — the flat gather on a hypercube: the root receives the p - 1 blocks
 * one after the other, nearest first, up the Gray-code chain.
 *
 * Steps (Thakur-Rabenseifner-Gropp 2005, section 4.3, the linear algorithm, in the
 * chain form of scatter-linear run backwards). Position i of the chain is node
 * root XOR gray(i). In slot t, position m >= 1 sends the block of position m + t
 * (its own in slot 0, then those it received from m + 1 in slot t - 1) towards the
 * root; the root receives the block of position t + 1 in slot t.
 *
 * Cost under unit slots: exactly p - 1 slots, p(p-1)/2 packets of one block each
 * (combining when b > 1). A node sends and receives in one slot: all-port and
 * one-port-full, no conflict.
 *
 * Cost under Seidel's a*m + b (circuit routing to neighbours, Hockney's alpha +
 * beta*m; Thakur-Rabenseifner-Gropp 2005, section 4.3, the linear gather's (p-1) *
 * (alpha + n/p * beta) at the root): p - 1 steps of one block each along the
 * chain, every node in step: exactly (p - 1) * D(b) slots, D(v) = ceil(8a*v + b)
 * (hma_prob_msg_slots), any block, on the hypercube, a ring or a torus.
 */
#include <stdlib.h>

#include "../common/problem.h"
#include "../common/trees.h"

static const hm_param_spec_t gather_linear_specs[] = {
    HMA_PROB_PARAM_BLOCK,
    HMA_PROB_PARAM_ROOT,
    HMA_PROB_PARAM_END,
};

static int gather_linear_setup(hm_setup_t *s)
{
    return hma_prob_ready(s, hma_prob_setup(s, HM_PROBLEM_GATHER));
}

/* The root: the blocks by position as they arrive (shown as they come, its own first),
 * then stored by absolute node number; position q is node root XOR gray(q). */
static void gather_root(const hma_coll_io_t *io, hm_node_t *n, const hma_prob_t *pb,
                        const int64_t *in, int64_t *buf)
{
    size_t b = (size_t)pb->block, all = (size_t)pb->p * b;
    int64_t *arr = buf + all;
    for (size_t i = 0; i < b; i++)
        arr[i] = in[i];
    if (hma_coll_gather_linear(io, 0, pb->p, in, arr, NULL, b) != HM_OK)
        return;
    for (int q = 0; q < pb->p; q++)
        for (size_t i = 0; i < b; i++)
            buf[(size_t)hma_prob_node(pb, q, hm_root(n)) * b + i] = arr[(size_t)q * b + i];
    hma_prob_store(n, buf, all);
}

/* hma_coll_gather_linear's schedule (coll_core.c) over the chain's ports. */
static void gather_linear_node(hm_node_t *n, void *state)
{
    const hma_prob_t *pb = state;
    size_t b = (size_t)pb->block, count;
    int root = hm_root(n), p = pb->p, pos = hma_prob_pos(pb, hm_id(n), root);
    const int64_t *in = hm_input(n, &count);
    int64_t *buf = hma_prob_alloc(n, pos == 0 ? 2 * (size_t)p * b : b);
    if (!buf)
        return;
    hma_coll_prob_t c;
    const hma_coll_io_t *io = hma_coll_prob(&c, n, pb, pos, 2);
    c.root = root;
    if (pos == 0)
        gather_root(io, n, pb, in, buf);
    else
        hma_coll_gather_linear(io, pos, p, in, NULL, buf, b);
    free(buf);
}

const hm_algorithm_t hm_algo_gather_linear = {
    .name = "gather-linear",
    .description = "gather: the root receives p-1 blocks, nearest first, up the Gray-code chain",
    .paper = "Thakur-Rabenseifner-Gropp 2005, section 4.3; Bertsekas-Tsitsiklis section 1.3",
    .topologies = HM_BIT(HM_TOPO_HYPERCUBE) | HM_BIT(HM_TOPO_RING) | HM_BIT(HM_TOPO_TORUS),
    .ports = HM_BIT(HM_PORTS_ALL_PORT) | HM_BIT(HM_PORTS_ONE_PORT_FULL),
    .default_ports = HM_PORTS_ONE_PORT_FULL,
    .specs = gather_linear_specs,
    .needs = {.min_dim = 1},
    .problem = HM_PROBLEM_GATHER,
    .out_size = sizeof(hma_prob_count_t), /* the node's counters (hma_prob_send) */
    .setup = gather_linear_setup,
    .node_main = gather_linear_node,
    .verify = hma_prob_verify_steps, /* p - 1 steps of one block */
    .teardown = hma_prob_free,
    HMA_PROB_IO,
};
