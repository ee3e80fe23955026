/* SPDX-License-Identifier: MIT */
/*
 * allreduce-ring — the bandwidth-optimal allreduce: a ring reduce-scatter followed
 * by a ring allgather, on the Gray-code ring of the hypercube (consecutive nodes of
 * the binary reflected Gray code, and the last and the first, are neighbours).
 *
 * Steps (Chan et al. 2007, section 5, reduce-scatter + allgather; Thakur-
 * Rabenseifner-Gropp 2005, section 4.5). The b values are cut into p chunks, chunk c
 * being values [c*b/p, (c+1)*b/p) (empty chunks, when b < p, travel as empty
 * packets). Node x is at ring position i = gray^-1(x).
 *   1. reduce-scatter, slots 0..p-2: in slot s position i sends its partial chunk
 *      (i - s) mod p to position i + 1 and combines the chunk (i - s - 1) mod p it
 *      receives into its own; position i ends with chunk (i + 1) mod p reduced;
 *   2. allgather, slots p-1..2p-3: the chunks go round once more.
 *
 * Cost under unit slots: exactly 2(p - 1) slots, 2p(p-1) packets of a chunk
 * (combining when b > p). A node sends and receives in one slot: all-port and
 * one-port-full, no conflict.
 */
#include <stdlib.h>

#include "../common/coll_core.h"
#include "../common/problem.h"

static const hm_param_spec_t allreduce_ring_specs[] = {
    HMA_PROB_PARAM_BLOCK,
    HMA_PROB_PARAM_OP,
    HMA_PROB_PARAM_END,
};

static int allreduce_ring_setup(hm_setup_t *s)
{
    return hma_prob_ready(s, hma_prob_setup(s, HM_PROBLEM_ALLREDUCE));
}

/* The schedule is the shared one (coll_core.c, hma_coll_allreduce_ring), which the MPI
 * library's MPI_Allreduce runs too (doc/mpi-programs.md, "Collectives"). */
static void allreduce_ring_node(hm_node_t *n, void *state)
{
    const hma_prob_t *pb = state;
    size_t b = (size_t)pb->block, count;
    int pos = hma_prob_pos(pb, hm_id(n), -1);
    int64_t *buf = hma_prob_alloc(n, 2 * b);
    size_t *off = buf ? hma_prob_offsets(n, b, pb->p) : NULL;
    if (!off)
        goto done;
    const int64_t *in = hm_input(n, &count);
    for (size_t i = 0; i < b; i++)
        buf[i] = in[i];
    hma_coll_prob_t c;
    const hma_coll_io_t *io = hma_coll_prob(&c, n, pb, pos, 1);
    c.off = off;
    if (hma_coll_allreduce_ring(io, pos, pb->p, buf, buf + b, b) == HM_OK)
        hma_prob_store(n, buf, b);
done:
    free(buf);
    free(off);
}

static void allreduce_ring_verify(hm_report_t *r)
{
    const hma_prob_t *pb = r->state;
    if (r->machine->circuit) /* 2(p-1) steps of one chunk, ceil(b/p) values at most */
        hma_prob_verify(r, "2(p-1)*ceil(8a*ceil(block/p)+b)",
                        2 * ((int64_t)pb->p - 1) *
                            hma_prob_msg_slots(r->machine, (size_t)(pb->block + pb->p - 1) / pb->p),
                        pb->block > pb->p);
    else
        hma_prob_verify(r, "2(p-1)", 2 * ((int64_t)pb->p - 1), pb->block > pb->p);
}

const hm_algorithm_t hm_algo_allreduce_ring = {
    .name = "allreduce-ring",
    .description = "allreduce: ring reduce-scatter + ring allgather on the Gray-code ring",
    .paper = "Chan et al. 2007, section 5; Thakur-Rabenseifner-Gropp 2005, section 4.5",
    .topologies = HM_BIT(HM_TOPO_HYPERCUBE) | HM_BIT(HM_TOPO_RING) | HM_BIT(HM_TOPO_TORUS),
    .ports = HM_BIT(HM_PORTS_ALL_PORT) | HM_BIT(HM_PORTS_ONE_PORT_FULL),
    .default_ports = HM_PORTS_ONE_PORT_FULL,
    .specs = allreduce_ring_specs,
    .needs = {.min_dim = 1},
    .problem = HM_PROBLEM_ALLREDUCE,
    .out_size = sizeof(hma_prob_count_t), /* the node's counters (hma_prob_send) */
    .setup = allreduce_ring_setup,
    .node_main = allreduce_ring_node,
    .verify = allreduce_ring_verify,
    .teardown = hma_prob_free,
    HMA_PROB_IO,
};
