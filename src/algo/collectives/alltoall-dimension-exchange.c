/* SPDX-License-Identifier: MIT */
/*
 * alltoall-dimension-exchange — Johnsson and Ho's standard exchange: in slot k node x
 * sends across dimension k, in one packet, every block it holds whose destination
 * differs from x in bit k.
 *
 * Steps (Johnsson-Ho 1989, section 5, one-port personalized communication by
 * dimension; Bertsekas-Tsitsiklis section 1.3, total exchange). Before slot k node x
 * holds p blocks (src, dst) with src agreeing with x on bits >= k and dst agreeing
 * with x on bits < k, kept at index j = (src's bits < k) | (dst's bits >= k). In
 * slot k it sends the p/2 blocks whose dst bit k differs from x's, in increasing j,
 * and files the p/2 it receives at j XOR 2^k. After d slots index j holds (j, x).
 *
 * Cost under unit slots: exactly log2 p slots, p*log2 p packets of (p/2)*b values
 * (combining when p > 2 or b > 1). A node sends and receives in one slot: all-port
 * and one-port-full, no conflict.
 *
 * Cost under Seidel's a*m + b (circuit routing to neighbours, Hockney's alpha +
 * beta*m; Johnsson-Ho 1989, section 5; the form of Bruck's lg p * alpha + n/2 *
 * lg p * beta, n = p*b, in Thakur-Rabenseifner-Gropp 2005, section 4.7): log2 p
 * exchanges of p/2 blocks: exactly log2(p) * D(b*p/2) slots, D(v) = ceil(8a*v + b)
 * (hma_prob_msg_slots), any block.
 */
#include <stdlib.h>

#include "../common/problem.h"

static const hm_param_spec_t a2a_dx_specs[] = {
    HMA_PROB_PARAM_BLOCK,
    HMA_PROB_PARAM_END,
};

static int a2a_dx_setup(hm_setup_t *s)
{
    return hma_prob_ready(s, hma_prob_setup(s, HM_PROBLEM_ALLTOALL));
}

/* hma_coll_alltoall_dimex's schedule (coll_core.c), port k in step k. */
static void a2a_dx_node(hm_node_t *n, void *state)
{
    const hma_prob_t *pb = state;
    size_t b = (size_t)pb->block, count, all = (size_t)pb->p * b;
    int64_t *buf = hma_prob_alloc(n, 2 * all);
    if (!buf)
        return;
    const int64_t *in = hm_input(n, &count);
    for (size_t i = 0; i < all; i++)
        buf[i] = in[i]; /* index j = dst before slot 0 */
    hma_coll_prob_t c;
    hma_coll_prob(&c, n, pb, hm_id(n), 0);
    if (hma_coll_alltoall_dimex(&c.io, hm_id(n), pb->p, buf, buf + all, b) == HM_OK)
        hma_prob_store(n, buf, all);
    free(buf);
}

static void a2a_dx_verify(hm_report_t *r)
{
    const hma_prob_t *pb = r->state;
    if (r->machine->circuit) /* d exchanges of p/2 blocks */
        hma_prob_verify(r, "log2(p)*ceil(8a*block*p/2+b)",
                        pb->d *
                            hma_prob_msg_slots(r->machine, (size_t)pb->block * (size_t)pb->p / 2),
                        pb->p > 2 || pb->block > 1);
    else
        hma_prob_verify(r, "log2(p)", pb->d, pb->p > 2 || pb->block > 1);
}

const hm_algorithm_t hm_algo_alltoall_dimension_exchange = {
    .name = "alltoall-dimension-exchange",
    .description = "alltoall: Johnsson-Ho standard exchange, p/2 blocks across each dimension",
    .paper = "Johnsson-Ho 1989, section 5; Bertsekas-Tsitsiklis section 1.3",
    .topologies = HM_BIT(HM_TOPO_HYPERCUBE),
    .ports = HM_BIT(HM_PORTS_ALL_PORT) | HM_BIT(HM_PORTS_ONE_PORT_FULL),
    .default_ports = HM_PORTS_ONE_PORT_FULL,
    .specs = a2a_dx_specs,
    .needs =
        {.clock_modes = HM_BIT(HM_CLOCK_SLOTTED),
         .clock_why =
             "each step takes the next packet as that dimension's, which only lock step guarantees",
         .min_dim = 1,
         .pow2_nodes = 1},
    .problem = HM_PROBLEM_ALLTOALL,
    .out_size = sizeof(hma_prob_count_t), /* the node's counters (hma_prob_send) */
    .setup = a2a_dx_setup,
    .node_main = a2a_dx_node,
    .verify = a2a_dx_verify,
    .teardown = hma_prob_free,
    HMA_PROB_IO,
};
