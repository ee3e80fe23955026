/*
 * bcast-scatter-allgather — van de Geijn's long-message broadcast: scatter the root's
 * block in p chunks, then allgather the chunks.
 *
 * Steps (Thakur-Rabenseifner-Gropp 2005, section 4.1, long messages; Chan et al.
 * 2007, section 5). The b values are cut into p chunks, chunk c being values
 * [c*b/p, (c+1)*b/p) (empty chunks when b < p still travel, as empty packets, so the
 * schedule does not depend on b). Relative numbers r = x XOR root.
 *   1. binomial scatter, highest dimension first: slots 0..d-1, node r ends with
 *      chunk r;
 *   2. recursive doubling allgather: in slot d+k node r exchanges chunks
 *      [r>>k<<k, +2^k) with r XOR 2^k on port k.
 *
 * Cost under unit slots: exactly 2*log2 p slots; (p-1) + p*log2 p packets, several
 * values in one packet when b > 1 (combining). Scatter and exchange send and receive
 * in one slot: all-port and one-port-full, no conflict.
 */
#include <stdlib.h>

#include "../common/problem.h"

static const hm_param_spec_t bcast_sag_specs[] = {
    HMA_PROB_PARAM_BLOCK,
    HMA_PROB_PARAM_ROOT,
    HMA_PROB_PARAM_END,
};

static int bcast_sag_setup(hm_setup_t *s)
{
    hma_prob_t *pb = hma_prob_setup(s, HM_PROBLEM_BROADCAST);
    /* Under circuit routing chunks of unequal length would drift out of step and meet
     * at a busy receive port: the chunks must be equal. */
    if (pb && hma_prob_circuit_chunks(s, pb)) {
        hma_prob_free(pb);
        pb = NULL;
    }
    s->state = pb;
    return pb ? 0 : -1;
}

static void bcast_sag_node(hm_node_t *n, void *state)
{
    const hma_prob_t *pb = state;
    size_t b = (size_t)pb->block, count;
    int r = hm_id(n) ^ hm_root(n);
    int64_t *buf = hma_prob_alloc(n, b);
    size_t *off = buf ? hma_prob_offsets(n, b, pb->p) : NULL;
    if (!off)
        goto done;
    if (r == 0) {
        const int64_t *in = hm_input(n, &count);
        for (size_t i = 0; i < b; i++)
            buf[i] = in[i];
    }
    if (hma_prob_scatter_tree(n, pb, r, buf, off) != HM_OK)
        goto done;
    if (hm_now(n) < pb->d && hm_wait_until(n, pb->d) != HM_OK)
        goto done;
    if (hma_prob_allgather_rd(n, pb, r, buf, off) != HM_OK)
        goto done;
    hma_prob_store(n, buf, b);
done:
    free(buf);
    free(off);
}

const hm_algorithm_t hm_algo_bcast_scatter_allgather = {
    .name = "bcast-scatter-allgather",
    .description = "broadcast: binomial scatter of p chunks, then recursive doubling allgather",
    .paper = "Thakur-Rabenseifner-Gropp 2005, section 4.1 (van de Geijn); Chan et al. 2007",
    .topologies = HM_BIT(HM_TOPO_HYPERCUBE),
    .ports = HM_BIT(HM_PORTS_ALL_PORT) | HM_BIT(HM_PORTS_ONE_PORT_FULL),
    .default_ports = HM_PORTS_ONE_PORT_FULL,
    .specs = bcast_sag_specs,
    .needs = {.clock_modes = HM_BIT(HM_CLOCK_SLOTTED),
              .clock_why = "its scatter and allgather steps take the next packet as that step's, "
                           "which only lock step guarantees",
              .min_dim = 1,
              .pow2_nodes = 1},
    .problem = HM_PROBLEM_BROADCAST,
    .out_size = sizeof(hma_prob_count_t), /* the node's counters (hma_prob_send) */
    .setup = bcast_sag_setup,
    .node_main = bcast_sag_node,
    .verify = hma_prob_verify_halving_pair,
    .teardown = hma_prob_free,
    HMA_PROB_IO,
};
