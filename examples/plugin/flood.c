/* SPDX-License-Identifier: MIT */
/*
 * flood.c — a node program outside the tree (README "Writing node programs outside the
 * tree"): the root's block travels down a binomial tree of the hypercube, log2 p slots.
 * It uses include/hypemu.h alone; the broadcast problem makes the inputs, checks what
 * every node stored and gives the lower bound, so setup, verify and teardown are NULL.
 *
 *     cc -shared -fPIC -o flood.so flood.c $(pkg-config --cflags --libs hypemu)
 *     hypemu --plugin ./flood.so flood.json      (or "plugins": ["flood.so"] in the config)
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <hypemu.h>

static void flood_node(hm_node_t *n, void *state)
{
    (void)state;
    size_t b;
    const int64_t *in = hm_input(n, &b); /* the root's: its block; the others': nothing */
    int r = hm_id(n) ^ hm_root(n), first = 0;
    hm_packet_t p = {.msg = 1, .origin = hm_root(n), .data = in, .len = 0};
    if (r != 0) {
        if (hm_wait_packet(n, &p) != HM_OK)
            return;
        first = 32 - __builtin_clz((unsigned)r); /* r's highest bit, plus one */
        b = p.len / sizeof *in;
    }
    /* A received payload is valid until this node's next wait: keep a copy. */
    int64_t *buf = malloc(b * sizeof *buf + 1);
    if (!buf) {
        hm_fail(n, "out of memory");
        return;
    }
    memcpy(buf, r ? p.data : (const void *)in, b * sizeof *buf);
    for (size_t i = 0; i < b; i++)
        hm_store(n, buf[i]);
    p.data = buf;
    p.len = (uint32_t)(b * sizeof *buf);
    for (int k = first; k < hm_degree(n); k++) /* one port per slot: one-port legal */
        if ((k > first && hm_next_slot(n) != HM_OK) || hm_send(n, k, &p) != HM_OK)
            break;
    free(buf);
}

static const hm_algorithm_t flood = {
    .name = "example-flood",
    .description = "broadcast along a binomial tree, log2 p slots (a plugin)",
    .paper = "README, Writing node programs outside the tree",
    .topologies = HM_BIT(HM_TOPO_HYPERCUBE),
    .ports = HM_BIT(HM_PORTS_ONE_PORT_FULL) | HM_BIT(HM_PORTS_ALL_PORT),
    .default_ports = HM_PORTS_ONE_PORT_FULL,
    .needs = {.min_dim = 1},
    .problem = HM_PROBLEM_BROADCAST,
    .node_main = flood_node,
};

HM_PLUGIN(&flood);
