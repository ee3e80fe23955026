/*
 * reduce-scatter-recursive-halving — the blocks still to be reduced halve across each
 * dimension in turn, from the highest.
 *
 * Steps (Thakur-Rabenseifner-Gropp 2005, section 4.6, recursive halving). Node x
 * starts with its p blocks (block y for node y). In slot d-1-k node x sends on
 * port k the blocks [(x^2^k)>>k<<k, +2^k) that the other half of the current
 * subcube keeps, and combines the copies of blocks [x>>k<<k, +2^k) it receives; it
 * ends with block x reduced over all nodes.
 *
 * Cost under unit slots: exactly log2 p slots, p*log2 p packets, the first carrying
 * p/2 blocks (combining when p > 2 or b > 1). A node sends and receives in one slot:
 * all-port and one-port-full, no conflict.
 *
 * Cost under Seidel's a*m + b (circuit routing to neighbours, Hockney's alpha +
 * beta*m; Thakur-Rabenseifner-Gropp 2005, section 4.6: lg p * alpha + (p-1)/p * n *
 * beta + the combining, free here): exchanges of p/2, p/4, .., 1 blocks: exactly
 * sum_{i<d} D(b*2^i) slots, D(v) = ceil(8a*v + b) (hma_prob_msg_slots), any block
 * (b values per destination, so the halves are always equal).
 */
#include <stdlib.h>

#include "../common/problem.h"

static const hm_param_spec_t rs_rh_specs[] = {
    HMA_PROB_PARAM_BLOCK,
    HMA_PROB_PARAM_OP,
    HMA_PROB_PARAM_END,
};

static int rs_rh_setup(hm_setup_t *s)
{
    s->state = hma_prob_setup(s, HM_PROBLEM_REDUCE_SCATTER);
    return s->state ? 0 : -1;
}

static void rs_rh_node(hm_node_t *n, void *state)
{
    const hma_prob_t *pb = state;
    size_t b = (size_t)pb->block, count, all = (size_t)pb->p * b;
    int x = hm_id(n);
    int64_t *buf = hma_prob_alloc(n, 2 * all);
    size_t *off = buf ? hma_prob_offsets(n, all, pb->p) : NULL;
    if (!off)
        goto done;
    const int64_t *in = hm_input(n, &count);
    for (size_t i = 0; i < all; i++)
        buf[i] = in[i];
    if (hma_prob_reduce_scatter_rh(n, pb, x, buf, buf + all, off) == HM_OK)
        hma_prob_store(n, buf + off[x], b);
done:
    free(buf);
    free(off);
}

static void rs_rh_verify(hm_report_t *r)
{
    const hma_prob_t *pb = r->state;
    if (r->machine->circuit) /* exchanges of p/2, p/4, .. 1 blocks */
        hma_prob_verify(r, "sum_i ceil(8a*block*2^i+b)",
                        hma_prob_doubling_slots(r->machine, (size_t)pb->block, pb->d),
                        pb->p > 2 || pb->block > 1);
    else
        hma_prob_verify(r, "log2(p)", pb->d, pb->p > 2 || pb->block > 1);
}

const hm_algorithm_t hm_algo_reduce_scatter_recursive_halving = {
    .name = "reduce-scatter-recursive-halving",
    .description = "reduce-scatter: the blocks to reduce halve across each dimension",
    .paper = "Thakur-Rabenseifner-Gropp 2005, section 4.6",
    .topologies = HM_BIT(HM_TOPO_HYPERCUBE),
    .ports = HM_BIT(HM_PORTS_ALL_PORT) | HM_BIT(HM_PORTS_ONE_PORT_FULL),
    .default_ports = HM_PORTS_ONE_PORT_FULL,
    .specs = rs_rh_specs,
    .needs = {.clock_modes = HM_BIT(HM_CLOCK_SLOTTED),
              .clock_why = "each step takes the next packet as that step's partner's, which only "
                           "lock step guarantees",
              .min_dim = 1,
              .pow2_nodes = 1},
    .problem = HM_PROBLEM_REDUCE_SCATTER,
    .out_size = sizeof(hma_prob_count_t), /* the node's counters (hma_prob_send) */
    .setup = rs_rh_setup,
    .node_main = rs_rh_node,
    .verify = rs_rh_verify,
    .teardown = hma_prob_free,
    HMA_PROB_IO,
};
