/* SPDX-License-Identifier: MIT */
/*
 * bcast-binomial — broadcast of the root's block along a binomial tree.
 *
 * Steps (Thakur-Rabenseifner-Gropp 2005, section 4.1 "Broadcast", short messages;
 * Bertsekas-Tsitsiklis section 1.3, the hypercube table: single node broadcast in
 * log2 p steps). Relative number r = x XOR root. In slot k = 0..d-1 every node with
 * r < 2^k sends the whole block on port k to r + 2^k. Node r != 0 receives in slot
 * h(r), its highest bit, and sends in slots h(r)+1 .. d-1.
 *
 * Cost under unit slots (packet routing on Q_d): exactly d = log2 p slots, p - 1
 * packets, each carrying the b values of the block (combining when b > 1). Every
 * node sends or receives one packet per slot: legal under all-port, one-port-full,
 * one-port-half and shout, with no conflict.
 *
 * Any p on the bus (fully connected; doc/collectives.md, "Any p: the bus"): r = x - root
 * mod p, and a sender stops at the first r + 2^k beyond p (MPICH's binomial tree):
 * exactly ceil(log2 p) slots, ceil(log2 p) * D(b) under a*m + b.
 */
#include <stdlib.h>

#include "../common/coll_core.h"
#include "../common/problem.h"

static const hm_param_spec_t bcast_binomial_specs[] = {
    HMA_PROB_PARAM_BLOCK,
    HMA_PROB_PARAM_ROOT,
    HMA_PROB_PARAM_END,
};

static int bcast_binomial_setup(hm_setup_t *s)
{
    return hma_prob_ready(s, hma_prob_setup(s, HM_PROBLEM_BROADCAST));
}

/* The block is complete (the root's, or received): store it before forwarding it. */
static void bcast_binomial_have(void *ctx, const void *buf, size_t count)
{
    const hma_coll_prob_t *c = ctx;
    hma_prob_store(c->n, buf, count);
}

/* The schedule is the shared one (coll_core.c, hma_coll_bcast_binomial), which the MPI
 * library's MPI_Bcast runs too (doc/mpi-programs.md, "Collectives"). */
static void bcast_binomial_node(hm_node_t *n, void *state)
{
    const hma_prob_t *pb = state;
    size_t b = (size_t)pb->block, k;
    int r = hma_prob_rel(pb, hm_id(n), hm_root(n));
    int64_t *buf = hma_prob_alloc(n, b);
    if (!buf)
        return;
    if (r == 0) {
        const int64_t *in = hm_input(n, &k);
        for (size_t i = 0; i < b; i++)
            buf[i] = in[i];
    }
    hma_coll_prob_t c;
    hma_coll_prob(&c, n, pb, r, 0);
    c.io.have = bcast_binomial_have;
    hma_coll_bcast_binomial(&c.io, r, pb->p, buf, b);
    free(buf);
}

const hm_algorithm_t hm_algo_bcast_binomial = {
    .name = "bcast-binomial",
    .description = "broadcast: binomial tree, the whole block in every packet, log2 p slots",
    .paper = "Thakur-Rabenseifner-Gropp 2005, section 4.1; Bertsekas-Tsitsiklis section 1.3",
    .topologies = HM_BIT(HM_TOPO_HYPERCUBE) | HM_BIT(HM_TOPO_BUS),
    .ports = HM_BIT(HM_PORTS_ALL_PORT) | HM_BIT(HM_PORTS_ONE_PORT_FULL) |
             HM_BIT(HM_PORTS_ONE_PORT_HALF) | HM_BIT(HM_PORTS_SHOUT),
    .default_ports = HM_PORTS_ONE_PORT_FULL,
    .specs = bcast_binomial_specs,
    .needs = {.min_dim = 1},
    .problem = HM_PROBLEM_BROADCAST,
    .out_size = sizeof(hma_prob_count_t), /* the node's counters (hma_prob_send) */
    .setup = bcast_binomial_setup,
    .node_main = bcast_binomial_node,
    .verify = hma_prob_verify_tree,
    .teardown = hma_prob_free,
    HMA_PROB_IO,
};
