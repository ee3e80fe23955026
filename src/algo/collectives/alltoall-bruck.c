/* SPDX-License-Identifier: MIT */
/*
 * alltoall-bruck — Bruck's alltoall: ceil(log2 p) steps, in step k every block whose
 * distance has bit k set moves 2^k positions on, any p; on the ring (and the torus's
 * snake, the hypercube's Gray ring), each step's message relayed hop by hop.
 *
 * Steps (Bruck et al. 1997; Thakur-Rabenseifner-Gropp 2005, section 4.7). Positions i
 * on the cycle (problem.h, hma_prob_pos). Local rotation: a[j] = this node's block for
 * the node at position i + j. In step k = 0..K-1, K = ceil(log2 p), position i sends
 * the blocks a[j] with bit k of j set, in one packet, to position i + 2^k (relayed 2^k
 * hops, hma_prob_relay: 2^k slots) and replaces them with those position i - 2^k sent.
 * A block from position s to t sits at index j = t - s mod p throughout and moves by
 * the bits of j: at the end a[j] at position i came from position i - j; the node
 * stores them in node order.
 *
 * Cost under unit slots: exactly 2^K - 1 slots (p - 1 when p is a power of two), any
 * p >= 2; a packet of step k carries b times the number of j < p with bit k set
 * (combining when p > 2 or b > 1). All-port and one-port-full, no conflict.
 *
 * Cost under Seidel's a*m + b (circuit routing to neighbours, Hockney's alpha +
 * beta*m; every relay hop one message): step k is 2^k hops of n_k blocks, n_k the
 * number of j < p with bit k set, every node in step: exactly sum_{k<K} 2^k *
 * D(b*n_k) slots, D(v) = ceil(8a*v + b) (hma_prob_msg_slots), any block and any p.
 *
 * On the bus (doc/collectives.md, "Any p: the bus"; fully connected, as Bruck et al.
 * assume) position i is node i and step k is one direct message to i + 2^k mod p, a
 * permutation: exactly K = ceil(log2 p) slots; under a*m + b exactly sum_{k<K}
 * D(b*n_k), any block and any p.
 *
 * Route direct (parameter "route", circuit routing): step k is one circuit to position
 * i + 2^k, as in allgather-bruck.c: on the hypercube (position i = node i, the shift
 * x -> x + 2^k shares no e-cube link) sum_{k<K} D(b*n_k) slots, no conflict; on the ring
 * the shorter arc, every link of it carrying min(2^k, p - 2^k) circuits, so under
 * "queue" sum_{k<K} D(ceil(min(2^k, p - 2^k) / link_capacity) * b*n_k).
 */
#include <stdlib.h>

#include "../common/problem.h"

static const hm_param_spec_t a2a_bruck_specs[] = {
    HMA_PROB_PARAM_BLOCK,
    HMA_PROB_PARAM_ROUTE,
    HMA_PROB_PARAM_END,
};

static int a2a_bruck_setup(hm_setup_t *s)
{
    return hma_prob_ready(s, hma_prob_setup_routed(s, HM_PROBLEM_ALLTOALL));
}

/* hma_coll_alltoall_bruck's schedule (coll_core.c), each step relayed (bruck_exchange). */
static void a2a_bruck_node(hm_node_t *n, void *state)
{
    const hma_prob_t *pb = state;
    size_t b = (size_t)pb->block, count, all = (size_t)pb->p * b;
    int p = pb->p, pos = hma_prob_bruck_pos(pb, hm_id(n));
    int64_t *a = hma_prob_alloc(n, 2 * all);
    if (!a)
        return;
    const int64_t *in = hm_input(n, &count);
    for (int j = 0; j < p; j++)
        for (size_t i = 0; i < b; i++)
            a[(size_t)j * b + i] = in[(size_t)hma_prob_bruck_node(pb, (pos + j) % p) * b + i];
    hma_coll_prob_t c;
    hma_coll_prob(&c, n, pb, pos, 1);
    c.io.exchange = hma_coll_prob_bruck;
    if (hma_coll_alltoall_bruck(&c.io, pos, p, a, a + all, b) == HM_OK)
        hma_prob_bruck_store(n, pb, pos, a);
    free(a);
}

/* n_k = #{j < p : bit k of j set} blocks in step k (h = 2^k). */
static int64_t a2a_blocks(int64_t p, int64_t h)
{
    return p / (2 * h) * h + (p % (2 * h) > h ? p % (2 * h) - h : 0);
}

static void a2a_bruck_verify(hm_report_t *r)
{
    const hma_prob_t *pb = r->state;
    int direct = pb->full || pb->direct, comb = pb->p > 2 || pb->block > 1;
    if (r->machine->circuit) /* step k: one message (direct) or 2^k hops, n_k blocks */
        hma_prob_verify(r,
                        !direct    ? "sum_k 2^k*ceil(8a*block*n_k+b)"
                        : pb->ring ? "sum_k ceil(ceil(min(2^k,p-2^k)/link_capacity)*8a*block*n_k+b)"
                                   : "sum_k ceil(8a*block*n_k+b)",
                        hma_prob_bruck_slots(pb, r->machine, a2a_blocks), comb);
    else if (direct) /* the bus: one message a step */
        hma_prob_verify(r, "ceil(log2(p))", pb->lg, comb);
    else
        hma_prob_verify(r, "2^ceil(log2(p))-1", ((int64_t)1 << pb->lg) - 1, comb);
}

const hm_algorithm_t hm_algo_alltoall_bruck = {
    .name = "alltoall-bruck",
    .description = "alltoall: Bruck, ceil(log2 p) steps moving the blocks whose distance has bit "
                   "k set, relayed along the ring, 2^ceil(log2 p)-1 slots, any p (the bus, "
                   "route=direct: one message a step, sum_k D(block*n_k))",
    .paper = "Bruck et al. 1997; Thakur-Rabenseifner-Gropp 2005, section 4.7",
    .topologies = HM_BIT(HM_TOPO_HYPERCUBE) | HM_BIT(HM_TOPO_RING) | HM_BIT(HM_TOPO_TORUS) |
                  HM_BIT(HM_TOPO_BUS),
    .ports = HM_BIT(HM_PORTS_ALL_PORT) | HM_BIT(HM_PORTS_ONE_PORT_FULL),
    .default_ports = HM_PORTS_ONE_PORT_FULL,
    .specs = a2a_bruck_specs,
    .needs = {.clock_modes = HM_BIT(HM_CLOCK_SLOTTED),
              .clock_why = "its relays tell packets apart by the slot they arrive in",
              .min_dim = 1},
    .problem = HM_PROBLEM_ALLTOALL,
    .setup = a2a_bruck_setup,
    .node_main = a2a_bruck_node,
    .verify = a2a_bruck_verify,
    .teardown = hma_prob_free,
    HMA_PROB_IO,
    .out_size = sizeof(hma_prob_count_t), /* the node's counters (hma_prob_send) */
};
