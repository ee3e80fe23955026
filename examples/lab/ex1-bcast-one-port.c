/* SPDX-License-Identifier: MIT */
/*
 * Lab exercise 1 (doc/lab/README.md): broadcast the root's value to every node of Q_d
 * under the one-port model, in d slots.
 *
 * This starter compiles and runs but fails the check: the root sends its value to its
 * d neighbours, one per slot, and nobody forwards it, so the nodes at distance 2 or
 * more never receive anything. Make every node that received the value pass it on.
 *
 *     hypemu-lab check 1 ex1-bcast-one-port.c
 */
#include <hypemu.h>

static void bcast_node(hm_node_t *n, void *state)
{
    (void)state;
    size_t count;
    const int64_t *in = hm_input(n, &count); /* the root's value; others: nothing */
    hm_packet_t p = {.msg = 1, .origin = hm_root(n)};
    if (hm_id(n) == hm_root(n)) {
        p.value = in[0];
        hm_store(n, p.value);
        for (int k = 0; k < hm_degree(n); k++) { /* one port per slot: one-port */
            if (k > 0 && hm_next_slot(n) != HM_OK)
                return;
            if (hm_send(n, k, &p) != HM_OK)
                return;
        }
        return;
    }
    /* Wait until slot d at most: a node the value never reaches gives up. */
    if (hm_wait_packet_until(n, &p, hm_degree(n)) == HM_OK)
        hm_store(n, p.value);
}

static const hm_algorithm_t lab1 = {
    .name = "lab1-bcast-one-port",
    .description = "lab exercise 1: broadcast on Q_d, one-port, d slots",
    .topologies = HM_BIT(HM_TOPO_HYPERCUBE),
    .ports = HM_BIT(HM_PORTS_ONE_PORT_FULL),
    .problem = HM_PROBLEM_BROADCAST,
    .node_main = bcast_node,
};
HM_PLUGIN(&lab1);
