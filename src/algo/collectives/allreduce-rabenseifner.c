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
 * (hma_prob_msg_slots). The block must be a multiple of p there: chunks of unequal
 * length drift out of step and meet at a busy receive port, so other blocks are
 * refused in setup (hma_prob_circuit_chunks).
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
    /* Under circuit routing the p chunks must be equal (hma_prob_circuit_chunks). */
    if (pb && hma_prob_circuit_chunks(s, pb)) {
        hma_prob_free(pb);
        pb = NULL;
    }
    s->state = pb;
    return pb ? 0 : -1;
}

static void allreduce_rab_node(hm_node_t *n, void *state)
{
    const hma_prob_t *pb = state;
    size_t b = (size_t)pb->block, count;
    int x = hm_id(n);
    int64_t *buf = hma_prob_alloc(n, 2 * b);
    size_t *off = buf ? hma_prob_offsets(n, b, pb->p) : NULL;
    if (!off)
        goto done;
    const int64_t *in = hm_input(n, &count);
    for (size_t i = 0; i < b; i++)
        buf[i] = in[i];
    if (hma_prob_reduce_scatter_rh(n, pb, x, buf, buf + b, off) == HM_OK &&
        hma_prob_allgather_rd(n, pb, x, buf, off) == HM_OK)
        hma_prob_store(n, buf, b);
done:
    free(buf);
    free(off);
}

const hm_algorithm_t hm_algo_allreduce_rabenseifner = {
    .name = "allreduce-rabenseifner",
    .description = "allreduce: recursive halving reduce-scatter + recursive doubling allgather",
    .paper = "Thakur-Rabenseifner-Gropp 2005, section 4.5 (Rabenseifner)",
    .topologies = HM_BIT(HM_TOPO_HYPERCUBE),
    .ports = HM_BIT(HM_PORTS_ALL_PORT) | HM_BIT(HM_PORTS_ONE_PORT_FULL),
    .default_ports = HM_PORTS_ONE_PORT_FULL,
    .specs = allreduce_rab_specs,
    .needs = {.clock_modes = HM_BIT(HM_CLOCK_SLOTTED),
              .clock_why = "its halving and doubling steps take the next packet as that step's, "
                           "which only lock step guarantees",
              .min_dim = 1,
              .pow2_nodes = 1},
    .problem = HM_PROBLEM_ALLREDUCE,
    .out_size = sizeof(hma_prob_count_t), /* the node's counters (hma_prob_send) */
    .setup = allreduce_rab_setup,
    .node_main = allreduce_rab_node,
    .verify = hma_prob_verify_halving_pair,
    .teardown = hma_prob_free,
    HMA_PROB_IO,
};
