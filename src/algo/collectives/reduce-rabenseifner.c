/* SPDX-License-Identifier: MIT */
/*
 * reduce-rabenseifner — reduce for long messages: recursive halving reduce-scatter,
 * then a binomial gather of the reduced chunks to the root.
 *
 * Steps (Thakur-Rabenseifner-Gropp 2005, section 4.4, Rabenseifner's algorithm for
 * long messages). Relative numbers r = x XOR root. The b values are cut into p
 * chunks, chunk c being values [c*b/p, (c+1)*b/p) (empty chunks, when b < p, travel
 * as empty packets).
 *   1. recursive halving, slots 0..d-1: in slot d-1-k node r sends on port k the
 *      half of its chunks that r XOR 2^k keeps and combines the half it keeps; r ends
 *      with chunk r reduced over all nodes;
 *   2. binomial gather, slots d..2d-1: in slot d+k every node r whose lowest set bit
 *      is k sends chunks [r, r+2^k) to r - 2^k.
 *
 * Cost under unit slots: exactly 2*log2 p slots, p*log2 p + p - 1 packets (combining
 * when b > 1). A node sends and receives in one slot: all-port and one-port-full,
 * no conflict.
 *
 * Cost under Seidel's a*m + b (circuit routing to neighbours, Hockney's alpha +
 * beta*m; Thakur-Rabenseifner-Gropp 2005, section 4.4: 2 lg p * alpha + 2 (p-1)/p *
 * n * beta): halving steps of b/2, .., b/p values, then the gather's b/p, .., b/2:
 * exactly 2 * sum_{i<d} D(ceil(b*2^i/p)) slots, D(v) = ceil(8a*v + b)
 * (hma_prob_msg_slots), any block: when p does not divide b the chunks differ by one
 * value, a step of 2^i chunks carries at most ceil(b*2^i/p) values, and every node
 * waits for the end of the step before, its longest message (hma_prob_set_halving_steps),
 * so that messages of unequal length never meet at a receive port.
 *
 * Any p on the bus (doc/collectives.md, "Any p: the bus"; Thakur-Rabenseifner-Gropp
 * 2005, section 4.4, MPICH's non-power-of-two handling), on relative numbers
 * r = x - root mod p: k = floor(log2 p), q = 2^k, rem = p - q. In step 0 of the first
 * 2*rem each odd r sends its b values to r - 1 and drops out (MPICH's reduce: the root,
 * r = 0, always stays); even r = 2i takes new rank i, r >= 2*rem new rank r - rem
 * (hma_prob_fold_new); the q new ranks run the halving and the binomial gather to new
 * rank 0 on q chunks (steps 1..2k). Exactly 2*floor(log2 p) + 1 slots; under a*m + b
 * D(b) + 2*sum_{i<k} D(ceil(b*2^i/q)), any block.
 */
#include <stdlib.h>

#include "../common/problem.h"

static const hm_param_spec_t reduce_rab_specs[] = {
    HMA_PROB_PARAM_BLOCK,
    HMA_PROB_PARAM_ROOT,
    HMA_PROB_PARAM_OP,
    HMA_PROB_PARAM_END,
};

static int reduce_rab_setup(hm_setup_t *s)
{
    hma_prob_t *pb = hma_prob_setup(s, HM_PROBLEM_REDUCE);
    if (pb) { /* p not a power of two: the halving starts after the fold, one message */
        hma_prob_set_steps(pb, s->machine, 0);
        hma_prob_set_halving_steps(pb, s->machine); /* unequal chunks under a*m + b */
    }
    return hma_prob_ready(s, pb);
}

static void reduce_rab_node(hm_node_t *n, void *state)
{
    const hma_prob_t *pb = state;
    size_t b = (size_t)pb->block, count;
    int r = hma_prob_rel(pb, hm_id(n), hm_root(n)), nr = hma_prob_fold_new(pb, r, 0), rc;
    int64_t *buf = hma_prob_alloc(n, 2 * b);
    size_t *off = buf ? hma_prob_offsets(n, b, 1 << hma_prob_fold_k(pb)) : NULL;
    if (!off)
        goto done;
    const int64_t *in = hm_input(n, &count);
    for (size_t i = 0; i < b; i++)
        buf[i] = in[i];
    /* The bus, p not a power of two: the odd r < 2*rem fold into r - 1 and drop out. */
    if ((rc = hma_prob_fold_in(n, pb, r, 0, buf, buf + b, b)) != HM_OK || nr < 0)
        goto done;
    /* Both phases run in lock step: every node leaves the halving in the same slot. */
    if (hma_prob_halving_fold(n, pb, nr, 0, buf, buf + b, off) == HM_OK &&
        hma_prob_gather_fold(n, pb, nr, 0, buf, off) == HM_OK && r == 0)
        hma_prob_store(n, buf, b);
done:
    free(buf);
    free(off);
}

const hm_algorithm_t hm_algo_reduce_rabenseifner = {
    .name = "reduce-rabenseifner",
    .description = "reduce: recursive halving reduce-scatter + binomial gather to the root",
    .paper = "Thakur-Rabenseifner-Gropp 2005, section 4.4 (Rabenseifner)",
    .topologies = HM_BIT(HM_TOPO_HYPERCUBE) | HM_BIT(HM_TOPO_BUS),
    .ports = HM_BIT(HM_PORTS_ALL_PORT) | HM_BIT(HM_PORTS_ONE_PORT_FULL),
    .default_ports = HM_PORTS_ONE_PORT_FULL,
    .specs = reduce_rab_specs,
    .needs = {.clock_modes = HM_BIT(HM_CLOCK_SLOTTED),
              .clock_why = "its halving and gather steps take the next packet as that step's, "
                           "which only lock step guarantees",
              .min_dim = 1},
    .problem = HM_PROBLEM_REDUCE,
    .out_size = sizeof(hma_prob_count_t), /* the node's counters (hma_prob_send) */
    .setup = reduce_rab_setup,
    .node_main = reduce_rab_node,
    .verify = hma_prob_verify_halving_pair,
    .teardown = hma_prob_free,
    HMA_PROB_IO,
};
