/* SPDX-License-Identifier: MIT */
/*
 * Lab exercise 1, a reference solution (doc/lab/README.md): the binomial tree, highest
 * dimension last. Relative number r = id XOR root; node r != 0 receives in slot h(r),
 * the position of its highest set bit, on port h(r), then sends on ports h(r)+1 .. d-1,
 * one per slot. In slot k exactly the nodes r < 2^k send, on port k: d slots, p - 1
 * packets, one-port legal, no conflict.
 */
#include <hypemu.h>

static void bcast_node(hm_node_t *n, void *state)
{
    (void)state;
    size_t count;
    const int64_t *in = hm_input(n, &count);
    int r = hm_id(n) ^ hm_root(n), first = 0;
    hm_packet_t p = {.msg = 1, .origin = hm_root(n)};
    if (r == 0) {
        p.value = in[0];
    } else {
        if (hm_wait_packet(n, &p) != HM_OK)
            return;
        first = p.port + 1;
    }
    hm_store(n, p.value);
    for (int k = first; k < hm_degree(n); k++) {
        if (k > first && hm_next_slot(n) != HM_OK)
            return;
        if (hm_send(n, k, &p) != HM_OK)
            return;
    }
}

static const hm_algorithm_t lab1 = {
    .name = "lab1-bcast-one-port",
    .description = "lab exercise 1: broadcast on Q_d, one-port, d slots (binomial tree)",
    .topologies = HM_BIT(HM_TOPO_HYPERCUBE),
    .ports = HM_BIT(HM_PORTS_ONE_PORT_FULL),
    .problem = HM_PROBLEM_BROADCAST,
    .node_main = bcast_node,
};
HM_PLUGIN(&lab1);
