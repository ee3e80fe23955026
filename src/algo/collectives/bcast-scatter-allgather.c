/* SPDX-License-Identifier: MIT */
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
 *
 * Any p on the bus (doc/collectives.md, "Any p: the bus"; Thakur-Rabenseifner-Gropp
 * 2005, section 4.1, MPICH's long-message broadcast for any p): relative numbers
 * r = x - root mod p, chunks of s = ceil(b/p) values (chunk c = [c*s, min((c+1)*s, b))),
 * MPICH's binomial scatter (hma_prob_scatter_tree, L = ceil(log2 p) slots), then a ring
 * allgather: in step t node r sends chunk r - t to r + 1 and receives chunk r - t - 1
 * from r - 1 (mod p). Every node starts the ring when the scatter is over everywhere
 * (slot L; under a*m + b the scatter tree's time with chunks of b/p values,
 * hma_prob_tree_slots). Exactly ceil(log2 p) + p - 1 slots; under a*m + b
 * D(s(p - 2^(L-1))) + sum_{i<L-1} D(s*2^i) + (p-1)*D(s), s = ceil(b/p). On a power of
 * two the hypercube's schedule and formulas.
 *
 * Under a*m + b with a block p does not divide, the chunks differ in length and would
 * drift out of step until two messages meet at one receive port: every step waits for
 * the longest message of the step before (doc/collectives.md, "Unequal chunks under
 * a·m + b"). On the hypercube the scatter's step i and the doubling's step i carry at
 * most ceil(b*2^(d-1-i)/p) and ceil(b*2^i/p) values, the steps of Rabenseifner's halving
 * pair (hma_prob_set_halving_steps), so the completion is 2*sum_i D(ceil(b*2^i/p)); on
 * the bus ring step t starts at the scatter's end + t*D(ceil(b/p)).
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
    if (pb && hma_prob_pow2(pb)) /* unequal chunks under a*m + b: steps wait (header) */
        hma_prob_set_halving_steps(pb, s->machine);
    if (pb && !hma_prob_pow2(pb)) { /* the bus: the slot the ring allgather starts in */
        int b = pb->block;
        pb->block = (b + pb->p - 1) / pb->p; /* the scatter tree's time with chunks of s */
        pb->aux = s->machine->circuit ? hma_prob_tree_slots(s->machine, pb) : pb->lg;
        if (s->machine->circuit && b % pb->p)
            pb->ring_step = hma_prob_msg_slots(s->machine, (size_t)pb->block);
        pb->block = b;
    }
    return hma_prob_ready(s, pb);
}

/* The ring allgather on the bus (p not a power of two): p - 1 steps from slot aux. */
static int bcast_sag_ring(hm_node_t *n, const hma_prob_t *pb, int r, int64_t *buf,
                          const size_t *off)
{
    int p = pb->p, next = hma_prob_port_rel(n, pb, (r + 1) % p);
    size_t k;
    if (hma_prob_wait(n, pb->aux) != HM_OK)
        return HM_EABORT;
    for (int t = 0; t < p - 1; t++) {
        int out = (r - t + p) % p, in = (r - t - 1 + 2 * p) % p;
        if (pb->ring_step && hma_prob_wait(n, pb->aux + t * pb->ring_step) != HM_OK)
            return HM_EABORT;
        int rc = hma_prob_send(n, pb, next, pb->lg + t, buf + off[out], off[out + 1] - off[out]);
        if (rc == HM_OK)
            rc = hma_prob_recv(n, buf + off[in], off[in + 1] - off[in], &k, NULL);
        if (rc != HM_OK)
            return rc;
    }
    return HM_OK;
}

static void bcast_sag_node(hm_node_t *n, void *state)
{
    const hma_prob_t *pb = state;
    size_t b = (size_t)pb->block, count, s = (b + (size_t)pb->p - 1) / (size_t)pb->p;
    int r = hma_prob_rel(pb, hm_id(n), hm_root(n)), pow2 = hma_prob_pow2(pb);
    int64_t *buf = hma_prob_alloc(n, b);
    size_t *off = buf ? hma_prob_offsets(n, b, pb->p) : NULL;
    if (!off)
        goto done;
    for (int c = 0; !pow2 && c <= pb->p; c++) /* MPICH's chunks of ceil(b/p) */
        off[c] = (size_t)c * s < b ? (size_t)c * s : b;
    if (r == 0) {
        const int64_t *in = hm_input(n, &count);
        for (size_t i = 0; i < b; i++)
            buf[i] = in[i];
    }
    if (hma_prob_scatter_tree(n, pb, r, buf, off) != HM_OK)
        goto done;
    if (!pow2) {
        if (bcast_sag_ring(n, pb, r, buf, off) == HM_OK)
            hma_prob_store(n, buf, b);
        goto done;
    }
    if (hm_now(n) < pb->lg && hm_wait_until(n, pb->lg) != HM_OK)
        goto done;
    if (hma_prob_allgather_rd(n, pb, r, buf, off) != HM_OK)
        goto done;
    hma_prob_store(n, buf, b);
done:
    free(buf);
    free(off);
}

static void bcast_sag_verify(hm_report_t *r)
{
    const hma_prob_t *pb = r->state;
    if (hma_prob_pow2(pb))
        hma_prob_verify_halving_pair(r);
    else if (r->machine->circuit && pb->block % pb->p == 0)
        hma_prob_verify(r,
                        "ceil(8a*(block/p)*(p-2^(ceil(log2(p))-1))+b)+sum_{i<ceil(log2(p))-1} "
                        "ceil(8a*(block/p)*2^i+b)+(p-1)*ceil(8a*block/p+b)",
                        pb->aux + (pb->p - 1) *
                                      hma_prob_msg_slots(r->machine, (size_t)(pb->block / pb->p)),
                        pb->block > 1);
    else if (r->machine->circuit) /* chunks of s = ceil(block/p) */
        hma_prob_verify(r,
                        "ceil(8a*s*(p-2^(ceil(log2(p))-1))+b)+sum_{i<ceil(log2(p))-1} "
                        "ceil(8a*s*2^i+b)+(p-1)*ceil(8a*s+b), s=ceil(block/p)",
                        pb->aux + (pb->p - 1) * pb->ring_step, pb->block > 1);
    else
        hma_prob_verify(r, "ceil(log2(p))+p-1", pb->aux + pb->p - 1, pb->block > 1);
}

const hm_algorithm_t hm_algo_bcast_scatter_allgather = {
    .name = "bcast-scatter-allgather",
    .description = "broadcast: binomial scatter of p chunks, then recursive doubling allgather",
    .paper = "Thakur-Rabenseifner-Gropp 2005, section 4.1 (van de Geijn); Chan et al. 2007",
    .topologies = HM_BIT(HM_TOPO_HYPERCUBE) | HM_BIT(HM_TOPO_BUS),
    .ports = HM_BIT(HM_PORTS_ALL_PORT) | HM_BIT(HM_PORTS_ONE_PORT_FULL),
    .default_ports = HM_PORTS_ONE_PORT_FULL,
    .specs = bcast_sag_specs,
    .needs = {.clock_modes = HM_BIT(HM_CLOCK_SLOTTED),
              .clock_why = "its scatter and allgather steps take the next packet as that step's, "
                           "which only lock step guarantees",
              .min_dim = 1},
    .problem = HM_PROBLEM_BROADCAST,
    .out_size = sizeof(hma_prob_count_t), /* the node's counters (hma_prob_send) */
    .setup = bcast_sag_setup,
    .node_main = bcast_sag_node,
    .verify = bcast_sag_verify,
    .teardown = hma_prob_free,
    HMA_PROB_IO,
};
