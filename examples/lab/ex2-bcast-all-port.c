/* SPDX-License-Identifier: MIT */
/*
 * Lab exercise 2 (doc/lab/README.md): broadcast the root's block of b values to every
 * node of Q_d under the all-port model, one value per packet (hm_packet_t.value, no
 * payload), in b + d - 1 slots.
 *
 * This starter is right but slow: it sends the values down the binomial tree of
 * exercise 1 (all-port: a node sends to all its children in one slot) one after the
 * other, each value d slots after the previous one, so the run takes b * d slots.
 * Pipeline them.
 *
 *     hypemu-lab check 2 ex2-bcast-all-port.c
 */
#include <hypemu.h>

static void bcast_node(hm_node_t *n, void *state)
{
    (void)state;
    size_t b;
    const int64_t *in = hm_input(n, &b); /* the root's b values; others: nothing */
    int r = hm_id(n) ^ hm_root(n), d = hm_degree(n);
    int first = r ? 32 - __builtin_clz((unsigned)r) : 0;       /* children: ports first..d-1 */
    hm_packet_t p = {.origin = hm_root(n), .aux = (int32_t)b}; /* aux: b, for the others */
    if (r == 0) {
        for (size_t i = 0; i < b; i++) {
            if (i > 0 && hm_wait_until(n, hm_now(n) + d) != HM_OK) /* wait for the tree */
                return;
            p.msg = (int32_t)i;
            p.value = in[i];
            hm_store(n, p.value);
            for (int k = 0; k < d; k++) /* all-port: every child in this slot */
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
    .description = "lab exercise 2: broadcast of b values on Q_d, all-port, b + d - 1 slots",
    .topologies = HM_BIT(HM_TOPO_HYPERCUBE),
    .ports = HM_BIT(HM_PORTS_ALL_PORT),
    .problem = HM_PROBLEM_BROADCAST,
    .node_main = bcast_node,
};
HM_PLUGIN(&lab2);
