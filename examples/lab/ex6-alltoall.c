/* SPDX-License-Identifier: MIT */
/*
 * Lab exercise 6 (doc/lab/README.md): alltoall on Q_d under the one-port model: node y's
 * block x (b values) must reach node x, for every pair, in d slots.
 *
 * This starter is right but slow: it does the dimension exchange (in step k a node sends
 * its partner x XOR 2^k the items whose destination differs from x in bit k) with one
 * item per packet, one packet per slot: p/2 slots a step, d p / 2 in all. A packet may
 * carry any number of values (hm_packet_t.data, .len): combine.
 *
 *     hypemu-lab check 6 ex6-alltoall.c
 */
#include <stdlib.h>
#include <string.h>

#include <hypemu.h>

/* One step, one item per packet and per slot: send the items leaving on port k and
 * take the partner's as many. */
static int exchange(hm_node_t *n, int k, int64_t *items, size_t p, size_t stride, int64_t *out)
{
    size_t kept = 0, sent = 0, half = p / 2;
    int bit = (hm_id(n) >> k) & 1;
    for (size_t i = 0; i < p; i++) {
        int64_t *it = items + i * stride;
        int64_t *to = (((it[1] >> k) & 1) == bit) ? items + kept++ * stride : out + sent++ * stride;
        if (to != it)
            memmove(to, it, stride * sizeof *it);
    }
    for (size_t i = 0; i < half; i++) {
        hm_packet_t pk = {
            .msg = k, .data = out + i * stride, .len = (uint32_t)(stride * sizeof *out)};
        if (hm_send(n, k, &pk) != HM_OK || hm_wait_packet(n, &pk) != HM_OK)
            return -1;
        memcpy(items + (half + i) * stride, pk.data, stride * sizeof *items);
    }
    return 0;
}

static int by_source(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static void alltoall_node(hm_node_t *n, void *state)
{
    (void)state;
    size_t count, p = (size_t)hm_nodes(n);
    const int64_t *in = hm_input(n, &count); /* p blocks of b values, block y for node y */
    size_t b = count / p, stride = 2 + b;
    int64_t *items = malloc(2 * p * stride * sizeof *items);
    if (!items) {
        hm_fail(n, "out of memory");
        return;
    }
    for (size_t y = 0; y < p; y++) {
        int64_t *it = items + y * stride;
        it[0] = hm_id(n);
        it[1] = (int64_t)y;
        memcpy(it + 2, in + y * b, b * sizeof *in);
    }
    for (int k = 0; k < hm_degree(n); k++)
        if (exchange(n, k, items, p, stride, items + p * stride) != 0)
            goto done;
    qsort(items, p, stride * sizeof *items, by_source); /* node y's block, y = 0..p-1 */
    for (size_t i = 0; i < p; i++)
        for (size_t j = 0; j < b; j++)
            hm_store(n, items[i * stride + 2 + j]);
done:
    free(items);
}

static const hm_algorithm_t lab6 = {
    .name = "lab6-alltoall",
    .description = "lab exercise 6: alltoall on Q_d, one-port, d slots",
    .topologies = HM_BIT(HM_TOPO_HYPERCUBE),
    .ports = HM_BIT(HM_PORTS_ONE_PORT_FULL),
    .needs = {.min_dim = 1},
    .problem = HM_PROBLEM_ALLTOALL,
    .node_main = alltoall_node,
};
HM_PLUGIN(&lab6);
