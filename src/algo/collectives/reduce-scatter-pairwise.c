/* SPDX-License-Identifier: MIT */
/*
 * reduce-scatter-pairwise — in step s = 1..p-1 node x sends its block for x XOR s to
 * that node and combines the block it receives from it.
 *
 * Steps (Thakur-Rabenseifner-Gropp 2005, section 4.6, pairwise exchange, with the
 * XOR partner order of a power of two). Under packet routing to neighbours only, the
 * block for x XOR s travels along the dimensions of s, lowest first (e-cube routing,
 * Bertsekas-Tsitsiklis section 1.3): every node sends in the same dimension in the
 * same slot, so each hop is a conflict-free exchange. Steps follow one another.
 *
 * Cost under unit slots: exactly sum over s = 1..p-1 of popcount(s) = (p/2)*log2 p
 * slots, as many packets a node, each of one block (combining when b > 1). A node
 * sends and receives in one slot: all-port and one-port-full, no conflict.
 *
 * Cost under Seidel's a*m + b (circuit routing to neighbours, Hockney's alpha +
 * beta*m; Thakur-Rabenseifner-Gropp 2005, section 4.6, pairwise exchange (p-1) *
 * alpha + (p-1)/p * n * beta, here every e-cube hop one message): (p/2) log2 p hops
 * of one block each, every node in step: exactly (p/2) * log2(p) * D(b) slots, D(v)
 * = ceil(8a*v + b) (hma_prob_msg_slots), any block.
 *
 * Route direct (parameter "route", circuit routing; doc/collectives.md): step s is one
 * circuit from x to x XOR s along the e-cube path, which in an XOR permutation shares no
 * directed link (alltoall-pairwise.c): exactly (p - 1) * D(b) slots, Thakur-Rabenseifner-
 * Gropp's (p - 1)(alpha + n/p*beta), no conflict under strict.
 *
 * Any p on the bus (doc/collectives.md, "Any p: the bus"; MPICH's order, Thakur-
 * Rabenseifner-Gropp 2005, section 4.6): every node is a neighbour, so step s is one
 * direct message: node x sends its block for x + s mod p to that node and combines
 * the block for x that x - s mod p sends. Each step is a permutation (every node
 * sends one packet and takes one): exactly p - 1 slots, one block a packet, all-port
 * and one-port-full, no conflict; under a*m + b exactly (p - 1) * D(b), any block.
 */
#include <stdlib.h>

#include "../common/problem.h"

static const hm_param_spec_t rs_pw_specs[] = {
    HMA_PROB_PARAM_BLOCK,
    HMA_PROB_PARAM_ROUTE,
    HMA_PROB_PARAM_OP,
    HMA_PROB_PARAM_END,
};

static int rs_pw_setup(hm_setup_t *s)
{
    return hma_prob_ready(s, hma_prob_setup_routed(s, HM_PROBLEM_REDUCE_SCATTER));
}

/* hma_coll_reduce_scatter_pairwise's schedule (coll_core.c), each step one direct message
 * or routed along the dimensions (hma_coll_prob_pairwise): partners x + s on the bus. */
static void rs_pw_node(hm_node_t *n, void *state)
{
    const hma_prob_t *pb = state;
    size_t b = (size_t)pb->block, count;
    int x = hm_id(n);
    int64_t *acc = hma_prob_alloc(n, 2 * b);
    if (!acc)
        return;
    const int64_t *in = hm_input(n, &count);
    for (size_t i = 0; i < b; i++)
        acc[i] = in[(size_t)x * b + i];
    hma_coll_prob_t c;
    hma_coll_prob(&c, n, pb, x, 0);
    c.io.exchange = hma_coll_prob_pairwise;
    if (hma_coll_reduce_scatter_pairwise(&c.io, x, pb->p, !pb->full, in, acc, acc + b, b) == HM_OK)
        hma_prob_store(n, acc, b);
    free(acc);
}

const hm_algorithm_t hm_algo_reduce_scatter_pairwise = {
    .name = "reduce-scatter-pairwise",
    .description = "reduce-scatter: pairwise exchange in XOR order, e-cube routed hop by hop, "
                   "(p/2) log2 p slots; route=direct: one circuit a step, (p-1)*D(block) (the "
                   "bus: any p, x+s / x-s order)",
    .paper = "Thakur-Rabenseifner-Gropp 2005, section 4.6; Bertsekas-Tsitsiklis section 1.3",
    .topologies = HM_BIT(HM_TOPO_HYPERCUBE) | HM_BIT(HM_TOPO_BUS),
    .ports = HM_BIT(HM_PORTS_ALL_PORT) | HM_BIT(HM_PORTS_ONE_PORT_FULL),
    .default_ports = HM_PORTS_ONE_PORT_FULL,
    .specs = rs_pw_specs,
    .needs = {.clock_modes = HM_BIT(HM_CLOCK_SLOTTED),
              .clock_why = "its routed exchanges tell packets apart by the slot they arrive in",
              .min_dim = 1},
    .problem = HM_PROBLEM_REDUCE_SCATTER,
    .out_size = sizeof(hma_prob_count_t), /* the node's counters (hma_prob_send) */
    .setup = rs_pw_setup,
    .node_main = rs_pw_node,
    .verify = hma_prob_verify_pairwise,
    .teardown = hma_prob_free,
    HMA_PROB_IO,
};
