/* SPDX-License-Identifier: MIT */
/*
 * allreduce-rabenseifner — recursive halving reduce-scatter, then recursive doubling
 * allgather.
 *
 * Steps (Thakur-Rabenseifner-Gropp 2005, section 4.5, Rabenseifner's algorithm for
 * long messages). The b values are cut into p chunks, chunk c being values
 * [c*b/p, (c+1)*b/p) (empty chunks, when b < p, travel as empty packets).
 *   1. recursive halving, slots 0..d-1: in slot d-1-k node x sends on port k the
 *      half of its chunks that x XOR 2^k keeps (chunks [(x^2^k)>>k<<k, +2^k)) and
 *      combines the half it keeps; x ends with chunk x reduced;
 *   2. recursive doubling, slots d..2d-1: in slot d+k node x exchanges chunks
 *      [x>>k<<k, +2^k) with x XOR 2^k.
 *
 * Cost under unit slots: exactly 2*log2 p slots, 2p*log2 p packets (combining when
 * b > 1). A node sends and receives in one slot: all-port and one-port-full, no
 * conflict.
 *
 * Cost under Seidel's a*m + b (circuit routing to neighbours, Hockney's alpha +
 * beta*m; Thakur-Rabenseifner-Gropp 2005, section 4.5: 2 lg p * alpha + 2 (p-1)/p *
 * n * beta): halving steps of b/2, .., b/p values, then doubling steps of b/p, ..,
 * b/2: exactly 2 * sum_{i<d} D(b*2^i/p) slots, D(v) = ceil(8a*v + b)
 * (hma_prob_msg_slots), with ceil(b*2^i/p) for b*2^i/p when p does not divide b: the
 * chunks differ by one value, and every node waits for the end of the step before,
 * its longest message (hma_prob_set_halving_steps), so that messages of unequal length
 * never meet at a receive port.
 *
 * Any p on the bus (doc/collectives.md, "Any p: the bus"; Thakur-Rabenseifner-Gropp
 * 2005, section 4.4, MPICH's non-power-of-two handling): k = floor(log2 p), q = 2^k,
 * rem = p - q. In step 0 of the first 2*rem nodes each even one sends its b values to
 * the odd one above it and drops out; the odd node 2i takes new rank i, node x >= 2*rem
 * new rank x - rem (hma_prob_fold_new); the q new ranks run the halving and the
 * doubling on q chunks (steps 1..2k); in step 2k+1 each odd node sends the result back
 * to the even one below it. Exactly 2*floor(log2 p) + 2 slots; under a*m + b
 * 2*D(b) + 2*sum_{i<k} D(ceil(b*2^i/q)), any block.
 */
#include <stdlib.h>

#include "../common/problem.h"

static const hm_param_spec_t allreduce_rab_specs[] = {
    HMA_PROB_PARAM_BLOCK,
    HMA_PROB_PARAM_OP,
    HMA_PROB_PARAM_END,
};

static int allreduce_rab_setup(hm_setup_t *s)
{
    hma_prob_t *pb = hma_prob_setup(s, HM_PROBLEM_ALLREDUCE);
    if (pb) { /* p not a power of two: the halving starts after the fold, one message */
        hma_prob_set_steps(pb, s->machine, 0);
        hma_prob_set_halving_steps(pb, s->machine); /* unequal chunks under a*m + b */
    }
    return hma_prob_ready(s, pb);
}

/* The bus (any p): fold, halving and doubling over the first q, unfold
 * (hma_prob_fold_in; keep_odd = 1, the even nodes drop out). */
static int allreduce_rab_fold(hm_node_t *n, const hma_prob_t *pb, int64_t *buf, int64_t *tmp,
                              const size_t *off)
{
    int x = hm_id(n), nr = hma_prob_fold_new(pb, x, 1), k = hma_prob_fold_k(pb);
    size_t b = (size_t)pb->block, count;
    int rem = pb->p - (1 << k), rc = hma_prob_fold_in(n, pb, x, 1, buf, tmp, b);
    if (rc == HM_OK && nr < 0) /* dropped out: the result comes back in the last step */
        return hma_prob_recv(n, buf, b, &count, NULL);
    if (rc == HM_OK)
        rc = hma_prob_halving_fold(n, pb, nr, 1, buf, tmp, off);
    if (rc == HM_OK)
        rc = hma_prob_doubling_fold(n, pb, nr, 1, buf, off);
    if (rc == HM_OK && x < 2 * rem && pb->step_waits)
        rc = hma_prob_wait(n, pb->step_at[2 * k + 1]);
    if (rc == HM_OK && x < 2 * rem)
        rc = hma_prob_send(n, pb, hm_port_to(n, x - 1), 2 * k + 1, buf, b);
    return rc;
}

static void allreduce_rab_node(hm_node_t *n, void *state)
{
    const hma_prob_t *pb = state;
    size_t b = (size_t)pb->block, count;
    int x = hm_id(n), rc;
    int64_t *buf = hma_prob_alloc(n, 2 * b);
    size_t *off = buf ? hma_prob_offsets(n, b, 1 << hma_prob_fold_k(pb)) : NULL;
    if (!off)
        goto done;
    const int64_t *in = hm_input(n, &count);
    for (size_t i = 0; i < b; i++)
        buf[i] = in[i];
    if (pb->full)
        rc = allreduce_rab_fold(n, pb, buf, buf + b, off);
    else if ((rc = hma_prob_halving_fold(n, pb, x, 0, buf, buf + b, off)) == HM_OK)
        rc = hma_prob_doubling_fold(n, pb, x, 0, buf, off);
    if (rc == HM_OK)
        hma_prob_store(n, buf, b);
done:
    free(buf);
    free(off);
}

const hm_algorithm_t hm_algo_allreduce_rabenseifner = {
    .name = "allreduce-rabenseifner",
    .description = "allreduce: recursive halving reduce-scatter + recursive doubling allgather",
    .paper = "Thakur-Rabenseifner-Gropp 2005, section 4.5 (Rabenseifner)",
    .topologies = HM_BIT(HM_TOPO_HYPERCUBE) | HM_BIT(HM_TOPO_BUS),
    .ports = HM_BIT(HM_PORTS_ALL_PORT) | HM_BIT(HM_PORTS_ONE_PORT_FULL),
    .default_ports = HM_PORTS_ONE_PORT_FULL,
    .specs = allreduce_rab_specs,
    .needs = {.clock_modes = HM_BIT(HM_CLOCK_SLOTTED),
              .clock_why = "its halving and doubling steps take the next packet as that step's, "
                           "which only lock step guarantees",
              .min_dim = 1},
    .problem = HM_PROBLEM_ALLREDUCE,
    .out_size = sizeof(hma_prob_count_t), /* the node's counters (hma_prob_send) */
    .setup = allreduce_rab_setup,
    .node_main = allreduce_rab_node,
    .verify = hma_prob_verify_halving_pair,
    .teardown = hma_prob_free,
    HMA_PROB_IO,
};
