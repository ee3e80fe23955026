/* SPDX-License-Identifier: MIT */
/*
 * reduce-binomial — the gather tree, combining instead of concatenating: every
 * packet carries one partial result of b values.
 *
 * Steps (Thakur-Rabenseifner-Gropp 2005, section 4.4, short messages; Bertsekas-
 * Tsitsiklis section 1.3, single node accumulation). Relative numbers r = x XOR root.
 * Node r whose lowest set bit is j receives in slots 0..j-1 the partial results of
 * its children r + 2^i, combining each into its own, and sends its partial result in
 * slot j on port j to r - 2^j; the root (j = d) ends with op over all nodes.
 *
 * Cost under unit slots: exactly log2 p slots, p - 1 packets of b values (combining
 * when b > 1). A node sends or receives one packet a slot: all-port, one-port-full,
 * one-port-half and shout, no conflict.
 *
 * Cost under Seidel's a*m + b (circuit routing to neighbours, Hockney's alpha +
 * beta*m; Thakur-Rabenseifner-Gropp 2005, section 4.4: lg p * (alpha + n*beta)): a
 * node combines what it received before it sends, so the d messages of b values
 * follow one another: exactly log2(p) * D(b) slots, D(v) = ceil(8a*v + b) being one
 * message of v values (hma_prob_msg_slots), any block.
 *
 * Any p on the bus (doc/collectives.md, "Any p: the bus"): r = x - root mod p, children
 * r + 2^i below p; a node with fewer children waits for its step j (slot j, or j*D(b))
 * so that its parent takes one child a step: ceil(log2 p) slots, ceil(log2 p) * D(b).
 */
#include <stdlib.h>

#include "../common/coll_core.h"
#include "../common/problem.h"

static const hm_param_spec_t reduce_binomial_specs[] = {
    HMA_PROB_PARAM_BLOCK,
    HMA_PROB_PARAM_ROOT,
    HMA_PROB_PARAM_OP,
    HMA_PROB_PARAM_END,
};

static int reduce_binomial_setup(hm_setup_t *s)
{
    hma_prob_t *pb = hma_prob_setup(s, HM_PROBLEM_REDUCE);
    if (pb) /* p not a power of two: node r sends in step ctz(r), j*D(b) */
        hma_prob_set_steps(pb, s->machine, 0);
    return hma_prob_ready(s, pb);
}

/* The schedule is the shared one (coll_core.c, hma_coll_reduce_binomial), which the MPI
 * library's MPI_Reduce runs too (doc/mpi-programs.md, "Collectives"). */
static void reduce_binomial_node(hm_node_t *n, void *state)
{
    const hma_prob_t *pb = state;
    size_t b = (size_t)pb->block, count;
    int r = hma_prob_rel(pb, hm_id(n), hm_root(n));
    int64_t *acc = hma_prob_alloc(n, 2 * b);
    if (!acc)
        return;
    const int64_t *in = hm_input(n, &count);
    for (size_t i = 0; i < b; i++)
        acc[i] = in[i];
    hma_coll_prob_t c;
    if (hma_coll_reduce_binomial(hma_coll_prob(&c, n, pb, r, 0), r, pb->p, acc, acc + b, b) ==
            HM_OK &&
        !r)
        hma_prob_store(n, acc, b);
    free(acc);
}

const hm_algorithm_t hm_algo_reduce_binomial = {
    .name = "reduce-binomial",
    .description = "reduce: binomial tree, partial results of b values, log2 p slots",
    .paper = "Thakur-Rabenseifner-Gropp 2005, section 4.4; Bertsekas-Tsitsiklis section 1.3",
    .topologies = HM_BIT(HM_TOPO_HYPERCUBE) | HM_BIT(HM_TOPO_BUS),
    .ports = HM_BIT(HM_PORTS_ALL_PORT) | HM_BIT(HM_PORTS_ONE_PORT_FULL) |
             HM_BIT(HM_PORTS_ONE_PORT_HALF) | HM_BIT(HM_PORTS_SHOUT),
    .default_ports = HM_PORTS_ONE_PORT_FULL,
    .specs = reduce_binomial_specs,
    .needs = {.min_dim = 1},
    .problem = HM_PROBLEM_REDUCE,
    .out_size = sizeof(hma_prob_count_t), /* the node's counters (hma_prob_send) */
    .setup = reduce_binomial_setup,
    .node_main = reduce_binomial_node,
    .verify = hma_prob_verify_tree,
    .teardown = hma_prob_free,
    HMA_PROB_IO,
};
