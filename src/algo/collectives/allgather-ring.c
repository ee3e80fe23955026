/* SPDX-License-Identifier: MIT */
/*
 * allgather-ring — every block goes once round the Gray-code ring of the hypercube
 * (consecutive nodes of the binary reflected Gray code, and the last and the first,
 * are neighbours).
 *
 * Steps (Thakur-Rabenseifner-Gropp 2005, section 4.2, ring algorithm; Chan et al.
 * 2007, section 5). Node x is at ring position i = gray^-1(x); part q of its buffer
 * is the block of position q. In slot s = 0..p-2 position i sends block (i - s) mod p
 * to position i + 1 and receives block (i - s - 1) mod p from position i - 1.
 *
 * Cost under unit slots: exactly p - 1 slots, p(p-1) packets of one block (combining
 * when b > 1). A node sends and receives in one slot: all-port and one-port-full, no
 * conflict.
 *
 * Cost under Seidel's a*m + b (circuit routing to neighbours, Hockney's alpha +
 * beta*m; Thakur-Rabenseifner-Gropp 2005, section 4.2: (p-1) * alpha + (p-1)/p * n *
 * beta): p - 1 steps of one block each: exactly (p - 1) * D(b) slots, D(v) =
 * ceil(8a*v + b) (hma_prob_msg_slots), any block, on the hypercube's Gray ring, a
 * ring or a torus.
 */
#include <stdlib.h>

#include "../common/problem.h"
#include "../common/trees.h"

static const hm_param_spec_t allgather_ring_specs[] = {
    HMA_PROB_PARAM_BLOCK,
    HMA_PROB_PARAM_END,
};

static int allgather_ring_setup(hm_setup_t *s)
{
    return hma_prob_ready(s, hma_prob_setup(s, HM_PROBLEM_ALLGATHER));
}

static void allgather_ring_node(hm_node_t *n, void *state)
{
    const hma_prob_t *pb = state;
    size_t b = (size_t)pb->block, count, all = (size_t)pb->p * b;
    int pos = hma_prob_pos(pb, hm_id(n), -1);
    int64_t *buf = hma_prob_alloc(n, all);
    size_t *off = buf ? hma_prob_offsets(n, all, pb->p) : NULL;
    if (!off)
        goto done;
    const int64_t *in = hm_input(n, &count);
    for (size_t i = 0; i < b; i++)
        buf[off[pos] + i] = in[i];
    if (hma_prob_allgather_ring(n, pb, pos, 0, buf, off) != HM_OK)
        goto done;
    /* Ring order to node order: node y is at position gray^-1(y). */
    for (int y = 0; y < pb->p; y++)
        hma_prob_store(n, buf + off[hma_prob_pos(pb, y, -1)], b);
done:
    free(buf);
    free(off);
}

const hm_algorithm_t hm_algo_allgather_ring = {
    .name = "allgather-ring",
    .description = "allgather: every block goes once round the Gray-code ring, p-1 slots",
    .paper = "Thakur-Rabenseifner-Gropp 2005, section 4.2; Chan et al. 2007, section 5",
    .topologies = HM_BIT(HM_TOPO_HYPERCUBE) | HM_BIT(HM_TOPO_RING) | HM_BIT(HM_TOPO_TORUS),
    .ports = HM_BIT(HM_PORTS_ALL_PORT) | HM_BIT(HM_PORTS_ONE_PORT_FULL),
    .default_ports = HM_PORTS_ONE_PORT_FULL,
    .specs = allgather_ring_specs,
    .needs = {.min_dim = 1},
    .problem = HM_PROBLEM_ALLGATHER,
    .out_size = sizeof(hma_prob_count_t), /* the node's counters (hma_prob_send) */
    .setup = allgather_ring_setup,
    .node_main = allgather_ring_node,
    .verify = hma_prob_verify_steps, /* p - 1 steps of one block */
    .teardown = hma_prob_free,
    HMA_PROB_IO,
};
