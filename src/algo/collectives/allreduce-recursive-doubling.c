/* SPDX-License-Identifier: MIT */
/*
 * allreduce-recursive-doubling — every node exchanges its partial result with its
 * neighbour across each dimension in turn and combines.
 *
 * Steps (Thakur-Rabenseifner-Gropp 2005, section 4.5, short messages; Bertsekas-
 * Tsitsiklis section 1.3, multinode accumulation by dimension). In slot k = 0..d-1
 * node x sends its b partial values on port k to x XOR 2^k and combines the b it
 * receives. After slot k it holds op over the 2^(k+1) nodes that agree with it above
 * bit k; after d slots, op over all.
 *
 * Cost under unit slots: exactly log2 p slots, p*log2 p packets of b values
 * (combining when b > 1). A node sends and receives in one slot: all-port and
 * one-port-full, no conflict.
 *
 * Any p on the bus (doc/collectives.md, "Any p: the bus"; Thakur-Rabenseifner-Gropp 2005,
 * section 4, the extra nodes folded into the first q = 2^floor(log2 p)): x >= q sends its
 * values to x - q, the first q double, x - q sends x the result: floor(log2 p) + 2
 * slots, (floor(log2 p) + 2) * D(b) under a*m + b.
 */
#include <stdlib.h>

#include "../common/coll_core.h"
#include "../common/problem.h"

static const hm_param_spec_t allreduce_rd_specs[] = {
    HMA_PROB_PARAM_BLOCK,
    HMA_PROB_PARAM_OP,
    HMA_PROB_PARAM_END,
};

static int allreduce_rd_setup(hm_setup_t *s)
{
    hma_prob_t *pb = hma_prob_setup(s, HM_PROBLEM_ALLREDUCE);
    if (pb) /* p not a power of two: the doubling starts after the fold, one message */
        hma_prob_set_steps(pb, s->machine, 0);
    return hma_prob_ready(s, pb);
}

/* The schedule, the fold for any p on the bus included, is the shared one (coll_core.c,
 * hma_coll_allreduce_rd), which the MPI library's MPI_Allreduce runs too (doc/mpi-programs.md,
 * "Collectives"): node x >= q folds its values into x - q (step 0), the first q nodes double
 * (steps 1 .. lg-1, after the fold's step even where none came), and x - q sends x the result
 * (step lg). */
static void allreduce_rd_node(hm_node_t *n, void *state)
{
    const hma_prob_t *pb = state;
    size_t b = (size_t)pb->block, count;
    int64_t *acc = hma_prob_alloc(n, 2 * b);
    if (!acc)
        return;
    const int64_t *in = hm_input(n, &count);
    for (size_t i = 0; i < b; i++)
        acc[i] = in[i];
    hma_coll_prob_t c;
    if (hma_coll_allreduce_rd(hma_coll_prob(&c, n, pb, hm_id(n), 0), hm_id(n), pb->p, acc, acc + b,
                              b) == HM_OK)
        hma_prob_store(n, acc, b);
    free(acc);
}

static void allreduce_rd_verify(hm_report_t *r)
{
    const hma_prob_t *pb = r->state;
    int pow2 = hma_prob_pow2(pb);
    int64_t steps = pow2 ? pb->lg : pb->lg + 1; /* fold, floor(log2 p) exchanges, unfold */
    if (r->machine->circuit)                    /* exchanges of b values */
        hma_prob_verify(r,
                        pow2 ? "log2(p)*ceil(8a*block+b)" : "(floor(log2(p))+2)*ceil(8a*block+b)",
                        steps * hma_prob_msg_slots(r->machine, (size_t)pb->block), pb->block > 1);
    else
        hma_prob_verify(r, pow2 ? "log2(p)" : "floor(log2(p))+2", steps, pb->block > 1);
}

const hm_algorithm_t hm_algo_allreduce_recursive_doubling = {
    .name = "allreduce-recursive-doubling",
    .description = "allreduce: exchange and combine across each dimension, log2 p slots",
    .paper = "Thakur-Rabenseifner-Gropp 2005, section 4.5; Bertsekas-Tsitsiklis section 1.3",
    .topologies = HM_BIT(HM_TOPO_HYPERCUBE) | HM_BIT(HM_TOPO_BUS),
    .ports = HM_BIT(HM_PORTS_ALL_PORT) | HM_BIT(HM_PORTS_ONE_PORT_FULL),
    .default_ports = HM_PORTS_ONE_PORT_FULL,
    .specs = allreduce_rd_specs,
    .needs = {.clock_modes = HM_BIT(HM_CLOCK_SLOTTED),
              .clock_why = "each step takes the next packet as that step's partner's, which only "
                           "lock step guarantees",
              .min_dim = 1},
    .problem = HM_PROBLEM_ALLREDUCE,
    .out_size = sizeof(hma_prob_count_t), /* the node's counters (hma_prob_send) */
    .setup = allreduce_rd_setup,
    .node_main = allreduce_rd_node,
    .verify = allreduce_rd_verify,
    .teardown = hma_prob_free,
    HMA_PROB_IO,
};
