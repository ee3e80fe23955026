/* SPDX-License-Identifier: MIT */
/*
 * allgather-bruck — Bruck's allgather: ceil(log2 p) steps of doubling distance, any p,
 * on the ring (and the torus's snake, the hypercube's Gray ring), each step's message
 * relayed hop by hop.
 *
 * Steps (Bruck, Ho, Kipnis, Upfal, Weathersby 1997, as in Thakur-Rabenseifner-Gropp
 * 2005, section 4.2, mirrored to run forward). Positions i on the cycle (problem.h,
 * hma_prob_pos); buf[j] is the block of position i - j mod p, buf[0] the node's own.
 * In step k = 0..K-1, K = ceil(log2 p), position i sends buf[0 .. c) with
 * c = min(2^k, p - 2^k) to position i + 2^k and puts what position i - 2^k sent at
 * buf[2^k .. 2^k + c): its blocks of positions i - 2^k - j. Position i + 2^k is not
 * a neighbour: the message is relayed 2^k hops forward, every node relaying at once
 * (hma_prob_relay), so step k takes 2^k slots. At the end buf[j] holds position i - j's
 * block; the node stores them in node order.
 *
 * Cost under unit slots: exactly 2^K - 1 slots (p - 1 when p is a power of two),
 * any p >= 2; packets carry c blocks (combining when p > 2 or b > 1). A node sends
 * and receives in every slot: all-port and one-port-full, no conflict. (Under the
 * fully connected alpha-beta model of the paper the steps cost log2 p latencies; on a
 * ring the relaying makes it as slow as the ring algorithm, the point of the
 * comparison.)
 *
 * Cost under Seidel's a*m + b (circuit routing to neighbours, Hockney's alpha +
 * beta*m; every relay hop one message): step k is 2^k hops of c = min(2^k, p - 2^k)
 * blocks, every node in step: exactly sum_{k<K} 2^k * D(b*c) slots, D(v) =
 * ceil(8a*v + b) (hma_prob_msg_slots), any block and any p.
 *
 * On the bus (doc/collectives.md, "Any p: the bus"; fully connected, as Bruck et al. and
 * Thakur-Rabenseifner-Gropp assume) position i is node i and step k is one message to
 * i + 2^k mod p, a permutation: exactly K slots; under a*m + b exactly sum_{k<K}
 * D(b*c), Thakur-Rabenseifner-Gropp's lg p * alpha + (p-1)/p * n * beta.
 *
 * Route direct (parameter "route", circuit routing; doc/collectives.md): step k is one
 * circuit to position i + 2^k. On the hypercube position i is node i, so step k is the
 * shift x -> x + 2^k mod p: the e-cube path flips bits k, k+1, .. (the carry) lowest
 * first, and the hop of bit k + j leaves x with bits k..k+j-1 cleared, from which x
 * comes back (they were all 1): no two circuits share a directed link, sum_{k<K}
 * D(b*c) slots, no conflict under strict. On the ring the circuit takes the shorter
 * arc, min(2^k, p - 2^k) links, and every link of that direction carries that many
 * circuits: link contention (strict stops the run when it exceeds link_capacity); under
 * "queue" each message lasts ceil(min(2^k, p - 2^k) / link_capacity) * a*m + b
 * (doc/config.md, ports.cost): sum_{k<K} D(that factor * b*c) slots.
 */
#include <stdlib.h>

#include "../common/problem.h"

static const hm_param_spec_t ag_bruck_specs[] = {
    HMA_PROB_PARAM_BLOCK,
    HMA_PROB_PARAM_ROUTE,
    HMA_PROB_PARAM_END,
};

static int ag_bruck_setup(hm_setup_t *s)
{
    return hma_prob_ready(s, hma_prob_setup_routed(s, HM_PROBLEM_ALLGATHER));
}

/* hma_coll_allgather_bruck's schedule (coll_core.c), each step relayed
 * (hma_coll_prob_bruck). */
static void ag_bruck_node(hm_node_t *n, void *state)
{
    const hma_prob_t *pb = state;
    size_t b = (size_t)pb->block, count, all = (size_t)pb->p * b;
    int pos = hma_prob_bruck_pos(pb, hm_id(n));
    int64_t *buf = hma_prob_alloc(n, all);
    if (!buf)
        return;
    const int64_t *in = hm_input(n, &count);
    for (size_t i = 0; i < b; i++)
        buf[i] = in[i];
    hma_coll_prob_t c;
    hma_coll_prob(&c, n, pb, pos, 1);
    c.io.exchange = hma_coll_prob_bruck;
    if (hma_coll_allgather_bruck(&c.io, pos, pb->p, buf, b) == HM_OK)
        hma_prob_bruck_store(n, pb, pos, buf);
    free(buf);
}

/* min(2^k, p - 2^k) blocks in step k. */
static int64_t ag_blocks(int64_t p, int64_t h)
{
    return h < p - h ? h : p - h;
}

static void ag_bruck_verify(hm_report_t *r)
{
    const hma_prob_t *pb = r->state;
    int direct = pb->full || pb->direct, comb = pb->p > 2 || pb->block > 1;
    if (r->machine->circuit) /* step k: one message (direct) or 2^k hops, min(2^k, p-2^k) blocks */
        hma_prob_verify(
            r,
            !direct    ? "sum_k 2^k*ceil(8a*block*min(2^k,p-2^k)+b)"
            : pb->ring ? "sum_k ceil(ceil(min(2^k,p-2^k)/link_capacity)*8a*block*min(2^k,p-2^k)+b)"
                       : "sum_k ceil(8a*block*min(2^k,p-2^k)+b)",
            hma_prob_bruck_slots(pb, r->machine, ag_blocks), comb);
    else if (direct) /* the bus: one message a step */
        hma_prob_verify(r, "ceil(log2(p))", pb->lg, comb);
    else
        hma_prob_verify(r, "2^ceil(log2(p))-1", ((int64_t)1 << pb->lg) - 1, comb);
}

const hm_algorithm_t hm_algo_allgather_bruck = {
    .name = "allgather-bruck",
    .description = "allgather: Bruck, ceil(log2 p) steps of distance 2^k relayed along the ring, "
                   "2^ceil(log2 p)-1 slots, any p (the bus, route=direct: one message a step, "
                   "sum_k D(block*min(2^k,p-2^k)))",
    .paper = "Bruck et al. 1997; Thakur-Rabenseifner-Gropp 2005, section 4.2",
    .topologies = HM_BIT(HM_TOPO_HYPERCUBE) | HM_BIT(HM_TOPO_RING) | HM_BIT(HM_TOPO_TORUS) |
                  HM_BIT(HM_TOPO_BUS),
    .ports = HM_BIT(HM_PORTS_ALL_PORT) | HM_BIT(HM_PORTS_ONE_PORT_FULL),
    .default_ports = HM_PORTS_ONE_PORT_FULL,
    .specs = ag_bruck_specs,
    .needs = {.clock_modes = HM_BIT(HM_CLOCK_SLOTTED),
              .clock_why = "its relays tell packets apart by the slot they arrive in",
              .min_dim = 1},
    .problem = HM_PROBLEM_ALLGATHER,
    .setup = ag_bruck_setup,
    .node_main = ag_bruck_node,
    .verify = ag_bruck_verify,
    .teardown = hma_prob_free,
    HMA_PROB_IO,
    .out_size = sizeof(hma_prob_count_t), /* the node's counters (hma_prob_send) */
};
