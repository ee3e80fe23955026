/* SPDX-License-Identifier: MIT */
/*
 * alltoall-pairwise — in step s = 1..p-1 node x sends its block for x XOR s to that
 * node and receives that node's block for x.
 *
 * Steps (Thakur-Rabenseifner-Gropp 2005, section 4.7, pairwise exchange with the XOR
 * partner order of a power of two). Under packet routing to neighbours only, the
 * block travels along the dimensions of s, lowest first (e-cube routing,
 * Bertsekas-Tsitsiklis section 1.3): every node sends in the same dimension in the
 * same slot, so each hop is a conflict-free exchange. Steps follow one another.
 *
 * Cost under unit slots: exactly sum over s = 1..p-1 of popcount(s) = (p/2)*log2 p
 * slots, as many packets a node, each of one block (combining when b > 1). A node
 * sends and receives in one slot: all-port and one-port-full, no conflict.
 *
 * Cost under Seidel's a*m + b (circuit routing to neighbours, Hockney's alpha +
 * beta*m; Thakur-Rabenseifner-Gropp 2005, section 4.7, pairwise exchange (p-1) *
 * alpha + n*beta, here every e-cube hop one message): (p/2) log2 p hops of one block
 * each, every node in step: exactly (p/2) * log2(p) * D(b) slots, D(v) = ceil(8a*v +
 * b) (hma_prob_msg_slots), any block.
 *
 * Route direct (parameter "route", circuit routing; doc/collectives.md): step s is one
 * circuit from x to x XOR s along the e-cube path (doc/config.md, ports.routing: the hypercube's
 * circuits fix the differing dimensions lowest first). An XOR permutation shares no
 * directed link: the hop of dimension i leaves x with the bits of s below i flipped, which
 * gives x back. So every step lasts D(b), Thakur-Rabenseifner-Gropp's (p - 1)(alpha +
 * n/p*beta): exactly (p - 1) * D(b) slots, no conflict under strict.
 *
 * Any p on the bus (doc/collectives.md, "Any p: the bus"; MPICH's order, Thakur-
 * Rabenseifner-Gropp 2005, section 4.7): every node is a neighbour, so step s is one
 * direct message; on a power of two the partner is x XOR s, otherwise node x sends to
 * x + s mod p and receives from x - s mod p. Each step is a permutation (every node
 * sends one packet and takes one): exactly p - 1 slots, one block a packet, all-port
 * and one-port-full, no conflict; under a*m + b exactly (p - 1) * D(b), any block.
 */
#include <stdlib.h>

#include "../common/coll_core.h"
#include "../common/problem.h"

static const hm_param_spec_t a2a_pw_specs[] = {
    HMA_PROB_PARAM_BLOCK,
    HMA_PROB_PARAM_ROUTE,
    HMA_PROB_PARAM_END,
};

static int a2a_pw_setup(hm_setup_t *s)
{
    return hma_prob_ready(s, hma_prob_setup_routed(s, HM_PROBLEM_ALLTOALL));
}

/* The schedule is the shared one (coll_core.c, hma_coll_alltoall_pairwise), which the MPI
 * library's MPI_Alltoall runs too (doc/mpi-programs.md, "Collectives"). */
static void a2a_pw_node(hm_node_t *n, void *state)
{
    const hma_prob_t *pb = state;
    size_t b = (size_t)pb->block, count;
    int x = hm_id(n);
    int64_t *buf = hma_prob_alloc(n, (size_t)pb->p * b);
    if (!buf)
        return;
    const int64_t *in = hm_input(n, &count);
    for (size_t i = 0; i < b; i++)
        buf[(size_t)x * b + i] = in[(size_t)x * b + i];
    hma_coll_prob_t c;
    hma_coll_prob(&c, n, pb, x, 0);
    c.io.exchange = hma_coll_prob_pairwise;
    if (hma_coll_alltoall_pairwise(&c.io, x, pb->p, in, buf, b) == HM_OK)
        hma_prob_store(n, buf, (size_t)pb->p * b);
    free(buf);
}

const hm_algorithm_t hm_algo_alltoall_pairwise = {
    .name = "alltoall-pairwise",
    .description = "alltoall: pairwise exchange in XOR order, e-cube routed hop by hop, (p/2) "
                   "log2 p slots; route=direct: one circuit a step, (p-1)*D(block) (the bus: "
                   "any p, x+s / x-s order when p is not a power of two)",
    .paper = "Thakur-Rabenseifner-Gropp 2005, section 4.7; Bertsekas-Tsitsiklis section 1.3",
    .topologies = HM_BIT(HM_TOPO_HYPERCUBE) | HM_BIT(HM_TOPO_BUS),
    .ports = HM_BIT(HM_PORTS_ALL_PORT) | HM_BIT(HM_PORTS_ONE_PORT_FULL),
    .default_ports = HM_PORTS_ONE_PORT_FULL,
    .specs = a2a_pw_specs,
    .needs = {.clock_modes = HM_BIT(HM_CLOCK_SLOTTED),
              .clock_why = "its routed exchanges tell packets apart by the slot they arrive in",
              .min_dim = 1},
    .problem = HM_PROBLEM_ALLTOALL,
    .out_size = sizeof(hma_prob_count_t), /* the node's counters (hma_prob_send) */
    .setup = a2a_pw_setup,
    .node_main = a2a_pw_node,
    .verify = hma_prob_verify_pairwise,
    .teardown = hma_prob_free,
    HMA_PROB_IO,
};
