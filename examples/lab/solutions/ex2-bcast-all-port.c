/* SPDX-License-Identifier: MIT */
/*
 * Lab exercise 2, a reference solution (doc/lab/README.md): the pipelined binomial tree.
 * The root sends value i on all d ports in slot i; every other node forwards each value
 * to its children in the slot after it received it. Node r at depth popcount(r)
 * receives value i in slot i + popcount(r) - 1, so the deepest node (r = p - 1, depth d)
 * has the last value in slot b + d - 2, read in slot b + d - 1: b + d - 1 slots,
 * b (p - 1) packets, all-port legal (a node receives from its parent only).
 */
#include <hypemu.h>

static void bcast_node(hm_node_t *n, void *state)
{
    (void)state;
    size_t b;
    const int64_t *in = hm_input(n, &b);
    int r = hm_id(n) ^ hm_root(n), d = hm_degree(n);
    int first = r ? 32 - __builtin_clz((unsigned)r) : 0;
    hm_packet_t p = {.origin = hm_root(n), .aux = (int32_t)b}; /* aux: b, for the others */
    if (r == 0) {
        for (size_t i = 0; i < b; i++) {
            if (i > 0 && hm_next_slot(n) != HM_OK)
                return;
            p.msg = (int32_t)i;
            p.value = in[i];
            hm_store(n, p.value);
            for (int k = 0; k < d; k++)
                if (hm_send(n, k, &p) != HM_OK)
                    return;
        }
        return;
    }
    /* The others learn b from the first packet's aux. */
    for (int32_t i = 0; i == 0 || i < p.aux; i++) {
        if (hm_wait_packet(n, &p) != HM_OK)
            return;
        hm_store(n, p.value);
        for (int k = first; k < d; k++)
            if (hm_send(n, k, &p) != HM_OK)
                return;
    }
}

static const hm_algorithm_t lab2 = {
    .name = "lab2-bcast-all-port",
    .description = "lab exercise 2: broadcast of b values on Q_d, all-port, pipelined",
    .topologies = HM_BIT(HM_TOPO_HYPERCUBE),
    .ports = HM_BIT(HM_PORTS_ALL_PORT),
    .problem = HM_PROBLEM_BROADCAST,
    .node_main = bcast_node,
};
HM_PLUGIN(&lab2);
