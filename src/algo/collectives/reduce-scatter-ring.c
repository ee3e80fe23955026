/* SPDX-License-Identifier: MIT */
/*
 * reduce-scatter-ring — the ring reduce-scatter: each block travels once round the
 * ring, every node adding its own copy, and ends at its owner.
 *
 * Steps (Chan et al. 2007, section 5; Thakur-Rabenseifner-Gropp 2005, section 4.6):
 * the ring is the ring topology itself or the hypercube's Gray-code ring (problem.h,
 * hma_prob_pos). Chunk q is the block of the node at position q. In slot s = 0..p-2
 * position i sends its partial chunk (i - s - 1) mod p to position i + 1 and combines
 * the chunk (i - s - 2) mod p it receives into its own; the chunk it receives last,
 * in slot p - 2, is its own, now reduced over all p nodes.
 *
 * Cost under unit slots: exactly p - 1 slots, any p >= 2; p(p - 1) packets of b
 * values (combining when b > 1). A node sends and receives in one slot: all-port and
 * one-port-full, no conflict.
 *
 * Cost under Seidel's a*m + b (circuit routing to neighbours, Hockney's alpha +
 * beta*m; Thakur-Rabenseifner-Gropp 2005, section 4.6: (p-1) * alpha + (p-1)/p * n *
 * beta): p - 1 steps of one block each: exactly (p - 1) * D(b) slots, D(v) =
 * ceil(8a*v + b) (hma_prob_msg_slots), any block, on the hypercube's Gray ring, a
 * ring or a torus.
 */
#include <stdlib.h>

#include "../common/coll_core.h"
#include "../common/problem.h"

static const hm_param_spec_t rs_ring_specs[] = {
    HMA_PROB_PARAM_BLOCK,
    HMA_PROB_PARAM_OP,
    HMA_PROB_PARAM_END,
};

static int rs_ring_setup(hm_setup_t *s)
{
    return hma_prob_ready(s, hma_prob_setup(s, HM_PROBLEM_REDUCE_SCATTER));
}

/* The schedule is the shared one (coll_core.c, hma_coll_reduce_scatter_ring), which the MPI
 * library's MPI_Reduce_scatter_block runs too (doc/mpi-programs.md, "Collectives"). */
static void rs_ring_node(hm_node_t *n, void *state)
{
    const hma_prob_t *pb = state;
    size_t b = (size_t)pb->block, count;
    int p = pb->p, pos = hma_prob_pos(pb, hm_id(n), -1);
    int64_t *buf = hma_prob_alloc(n, ((size_t)p + 1) * b);
    if (!buf)
        return;
    int64_t *tmp = buf + (size_t)p * b;
    const int64_t *in = hm_input(n, &count);
    /* By position: chunk q is the block of the node at position q. */
    for (int q = 0; q < p; q++)
        for (size_t i = 0; i < b; i++)
            buf[(size_t)q * b + i] = in[(size_t)hma_prob_node(pb, q, -1) * b + i];
    hma_coll_prob_t c;
    if (hma_coll_reduce_scatter_ring(hma_coll_prob(&c, n, pb, pos, 1), pos, p, -1, buf, tmp,
                                     (size_t)p * b) == HM_OK)
        hma_prob_store(n, buf + (size_t)pos * b, b);
    free(buf);
}

const hm_algorithm_t hm_algo_reduce_scatter_ring = {
    .name = "reduce-scatter-ring",
    .description = "reduce-scatter: every block once round the ring, p-1 slots, any p",
    .paper = "Chan et al. 2007, section 5; Thakur-Rabenseifner-Gropp 2005, section 4.6",
    .topologies = HM_BIT(HM_TOPO_HYPERCUBE) | HM_BIT(HM_TOPO_RING) | HM_BIT(HM_TOPO_TORUS),
    .ports = HM_BIT(HM_PORTS_ALL_PORT) | HM_BIT(HM_PORTS_ONE_PORT_FULL),
    .default_ports = HM_PORTS_ONE_PORT_FULL,
    .specs = rs_ring_specs,
    .needs = {.min_dim = 1},
    .problem = HM_PROBLEM_REDUCE_SCATTER,
    .setup = rs_ring_setup,
    .node_main = rs_ring_node,
    .verify = hma_prob_verify_steps, /* p - 1 steps of one block */
    .teardown = hma_prob_free,
    HMA_PROB_IO,
    .out_size = sizeof(hma_prob_count_t), /* the node's counters (hma_prob_send) */
};
