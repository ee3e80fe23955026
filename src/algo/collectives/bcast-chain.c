/* SPDX-License-Identifier: MIT */
/*
 * bcast-chain — pipelined broadcast along a chain: the root's b values travel one per
 * packet down the Gray-code ring, the ring's last edge unused.
 *
 * Steps (Thakur-Rabenseifner-Gropp 2005, section 4.1, pipelined chain; Bertsekas-
 * Tsitsiklis section 1.3). The chain is the binary reflected Gray code from the root:
 * position i is node root XOR gray(i); consecutive positions differ in one bit, so
 * they are neighbours in the hypercube. The root sends value k in slot k; position i
 * receives value k in slot k+i-1 and forwards it in slot k+i.
 *
 * Cost under unit slots: exactly (p - 1) + (b - 1) slots, (p - 1)*b packets of one
 * value each (no combining). A node sends one packet and receives one in the same
 * slot: all-port and one-port-full, no conflict.
 *
 * Cost under Seidel's a*m + b (circuit routing to neighbours, Hockney's alpha +
 * beta*m; the pipelined chain's (p - 1 + k - 1) * (alpha + n/k * beta), k chunks):
 * here k = b chunks of one value, so exactly ((p - 1) + (b - 1)) * D(1) slots, D(v) =
 * ceil(8a*v + b) (hma_prob_msg_slots), any block, on the hypercube's Gray chain, a
 * ring or a torus.
 */
#include <stdlib.h>

#include "../common/problem.h"
#include "../common/trees.h"

static const hm_param_spec_t bcast_chain_specs[] = {
    HMA_PROB_PARAM_BLOCK,
    HMA_PROB_PARAM_ROOT,
    HMA_PROB_PARAM_END,
};

static int bcast_chain_setup(hm_setup_t *s)
{
    return hma_prob_ready(s, hma_prob_setup(s, HM_PROBLEM_BROADCAST));
}

/* Each value stored as it comes (the schedule's have). */
static void chain_have(void *ctx, const void *buf, size_t count)
{
    const hma_coll_prob_t *c = ctx;
    hma_prob_store(c->n, buf, count);
}

/* hma_coll_bcast_chain's schedule (coll_core.c) over the chain's ports. */
static void bcast_chain_node(hm_node_t *n, void *state)
{
    const hma_prob_t *pb = state;
    int pos = hma_prob_pos(pb, hm_id(n), hm_root(n));
    size_t count;
    const int64_t *in = hm_input(n, &count);
    int64_t *buf = hma_prob_alloc(n, (size_t)pb->block);
    if (!buf)
        return;
    for (size_t k = 0; pos == 0 && k < (size_t)pb->block; k++)
        buf[k] = in[k];
    hma_coll_prob_t c;
    hma_coll_prob(&c, n, pb, pos, 2);
    c.root = hm_root(n);
    c.io.have = chain_have;
    hma_coll_bcast_chain(&c.io, pos, pb->p, buf, (size_t)pb->block);
    free(buf);
}

static void bcast_chain_verify(hm_report_t *r)
{
    const hma_prob_t *pb = r->state;
    if (r->machine->circuit) /* (p-1)+(b-1) steps of one value */
        hma_prob_verify(r, "((p-1)+(block-1))*ceil(8a+b)",
                        (pb->p - 1 + pb->block - 1) * hma_prob_msg_slots(r->machine, 1), 0);
    else
        hma_prob_verify(r, "(p-1)+(block-1)", pb->p - 1 + pb->block - 1, 0);
}

const hm_algorithm_t hm_algo_bcast_chain = {
    .name = "bcast-chain",
    .description = "broadcast: pipelined chain along the Gray-code ring, one value a packet",
    .paper = "Thakur-Rabenseifner-Gropp 2005, section 4.1; Bertsekas-Tsitsiklis section 1.3",
    .topologies = HM_BIT(HM_TOPO_HYPERCUBE) | HM_BIT(HM_TOPO_RING) | HM_BIT(HM_TOPO_TORUS),
    .ports = HM_BIT(HM_PORTS_ALL_PORT) | HM_BIT(HM_PORTS_ONE_PORT_FULL),
    .default_ports = HM_PORTS_ONE_PORT_FULL,
    .specs = bcast_chain_specs,
    .needs = {.min_dim = 1},
    .problem = HM_PROBLEM_BROADCAST,
    .out_size = sizeof(hma_prob_count_t), /* the node's counters (hma_prob_send) */
    .setup = bcast_chain_setup,
    .node_main = bcast_chain_node,
    .verify = bcast_chain_verify,
    .teardown = hma_prob_free,
    HMA_PROB_IO,
};
