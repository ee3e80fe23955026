/* SPDX-License-Identifier: MIT */
/*
 * Lab exercise 5 (doc/lab/README.md): allreduce (sum, or the max or min that hm_op
 * gives) of b values on Q_d under circuit routing, where a message of v values to a
 * neighbour lasts D(v) = ceil(8a v + B) slots (Seidel's a m + b). For a long block, beat
 * recursive doubling's d D(b): the bound is the ring's 2(p - 1) D(ceil(b/p)).
 *
 * This starter is right but slow for long blocks: recursive doubling. In step k every
 * node sends its b partial sums to x XOR 2^k and adds the b it receives: d messages of
 * the whole block. Cut the block into p chunks instead, so that each message carries
 * b/p values (a reduce-scatter, then an allgather).
 *
 *     hypemu-lab check 5 ex5-allreduce-long.c
 */
#include <stdlib.h>
#include <string.h>

#include <hypemu.h>

/* a op b, for the run's reduction (hm_op: the config's algorithm.op, sum by default). */
static int64_t combine(hm_op_t op, int64_t a, int64_t b)
{
    return op == HM_OP_MAX ? (a > b ? a : b) : op == HM_OP_MIN ? (a < b ? a : b) : a + b;
}

static void allreduce_node(hm_node_t *n, void *state)
{
    (void)state;
    size_t b;
    const int64_t *in = hm_input(n, &b); /* this node's b values */
    int64_t *acc = malloc((b ? b : 1) * sizeof *acc);
    if (!acc) {
        hm_fail(n, "out of memory");
        return;
    }
    memcpy(acc, in, b * sizeof *acc);
    for (int k = 0; k < hm_degree(n); k++) {
        hm_packet_t pk = {.msg = k, .data = acc, .len = (uint32_t)(b * sizeof *acc)};
        if (hm_send(n, k, &pk) != HM_OK || hm_wait_packet(n, &pk) != HM_OK)
            goto done;
        const int64_t *v = pk.data; /* valid until the next receive */
        for (size_t i = 0; i < b; i++)
            acc[i] = combine(hm_op(n), acc[i], v[i]);
    }
    for (size_t i = 0; i < b; i++)
        hm_store(n, acc[i]); /* every node stores the b sums */
done:
    free(acc);
}

static const hm_algorithm_t lab5 = {
    .name = "lab5-allreduce-long",
    .description = "lab exercise 5: allreduce of a long block under circuit routing",
    .topologies = HM_BIT(HM_TOPO_HYPERCUBE),
    .ports = HM_BIT(HM_PORTS_ONE_PORT_FULL),
    .needs = {.min_dim = 1},
    .problem = HM_PROBLEM_ALLREDUCE,
    .node_main = allreduce_node,
};
HM_PLUGIN(&lab5);
