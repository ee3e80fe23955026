/*
 * allgather-recursive-doubling — the blocks gathered so far double across each
 * dimension in turn.
 *
 * Steps (Thakur-Rabenseifner-Gropp 2005, section 4.2, recursive doubling; Bertsekas-
 * Tsitsiklis section 1.3, multinode broadcast by dimension). In slot k = 0..d-1 node
 * x sends the 2^k blocks of the nodes [x>>k<<k, +2^k) on port k and receives those of
 * [(x^2^k)>>k<<k, +2^k).
 *
 * Cost under unit slots: exactly log2 p slots, p*log2 p packets, the last carrying
 * p/2 blocks (combining when p > 2 or b > 1). A node sends and receives in one slot:
 * all-port and one-port-full, no conflict.
 *
 * Cost under Seidel's a*m + b (circuit routing to neighbours, Hockney's alpha +
 * beta*m; Thakur-Rabenseifner-Gropp 2005, section 4.2: lg p * alpha + (p-1)/p * n *
 * beta): exchanges of 1, 2, .., p/2 blocks, every node in step with its partner:
 * exactly sum_{i<d} D(b*2^i) slots, D(v) = ceil(8a*v + b) (hma_prob_msg_slots), any
 * block.
 */
#include <stdlib.h>

#include "../common/problem.h"

static const hm_param_spec_t allgather_rd_specs[] = {
    HMA_PROB_PARAM_BLOCK,
    HMA_PROB_PARAM_END,
};

static int allgather_rd_setup(hm_setup_t *s)
{
    s->state = hma_prob_setup(s, HM_PROBLEM_ALLGATHER);
    return s->state ? 0 : -1;
}

static void allgather_rd_node(hm_node_t *n, void *state)
{
    const hma_prob_t *pb = state;
    size_t b = (size_t)pb->block, count, all = (size_t)pb->p * b;
    int x = hm_id(n);
    int64_t *buf = hma_prob_alloc(n, all);
    size_t *off = buf ? hma_prob_offsets(n, all, pb->p) : NULL;
    if (!off)
        goto done;
    const int64_t *in = hm_input(n, &count);
    for (size_t i = 0; i < b; i++)
        buf[off[x] + i] = in[i];
    if (hma_prob_allgather_rd(n, pb, x, buf, off) == HM_OK)
        hma_prob_store(n, buf, all);
done:
    free(buf);
    free(off);
}

static void allgather_rd_verify(hm_report_t *r)
{
    const hma_prob_t *pb = r->state;
    if (r->machine->circuit) /* exchanges of 1, 2, .. p/2 blocks */
        hma_prob_verify(r, "sum_i ceil(8a*block*2^i+b)",
                        hma_prob_doubling_slots(r->machine, (size_t)pb->block, pb->d),
                        pb->p > 2 || pb->block > 1);
    else
        hma_prob_verify(r, "log2(p)", pb->d, pb->p > 2 || pb->block > 1);
}

const hm_algorithm_t hm_algo_allgather_recursive_doubling = {
    .name = "allgather-recursive-doubling",
    .description = "allgather: the blocks gathered so far double across each dimension",
    .paper = "Thakur-Rabenseifner-Gropp 2005, section 4.2; Bertsekas-Tsitsiklis section 1.3",
    .topologies = HM_BIT(HM_TOPO_HYPERCUBE),
    .ports = HM_BIT(HM_PORTS_ALL_PORT) | HM_BIT(HM_PORTS_ONE_PORT_FULL),
    .default_ports = HM_PORTS_ONE_PORT_FULL,
    .specs = allgather_rd_specs,
    .needs = {.clock_modes = HM_BIT(HM_CLOCK_SLOTTED),
              .clock_why = "each step takes the next packet as that step's partner's, which only "
                           "lock step guarantees",
              .min_dim = 1,
              .pow2_nodes = 1},
    .problem = HM_PROBLEM_ALLGATHER,
    .out_size = sizeof(hma_prob_count_t), /* the node's counters (hma_prob_send) */
    .setup = allgather_rd_setup,
    .node_main = allgather_rd_node,
    .verify = allgather_rd_verify,
    .teardown = hma_prob_free,
    HMA_PROB_IO,
};
