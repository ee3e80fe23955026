/* SPDX-License-Identifier: MIT */
/*
 * bus.c — the bus of Dechter and Kleinrock (doc/config.md): nodes 0..k-1 are
 * the processors and node k the output processor, all on one shared channel. Every
 * node has a port to every other node, in increasing node order (port p of x leads to
 * p if p < x, else to p + 1), so that a broadcast on the channel is one hm_shout over
 * all ports: one emission, heard by every other node. The port model `bus`
 * (ports/ports.c) lets one emission use the channel per slot. A bus of more than 65
 * nodes has more ports than a 64-bit mask holds: its broadcast is hm_shout_all. The
 * directed links grow as nodes^2, hence at most 1025 nodes (cli/config.c enforces it).
 */
#include <stdio.h>

#include "topo/topo.h"

static int maxdeg(const hm_machine_info_t *info, char *err, size_t errlen)
{
    if (info->nodes < 2 || info->nodes > 1025) {
        snprintf(err, errlen, "topology bus: found %d nodes; allowed: 2 to 1025", info->nodes);
        return -1;
    }
    return info->nodes - 1;
}

/* x is port x of every y > x and port x - 1 of every y < x. */
static int port_to(int x, int y)
{
    return y < x ? y : y - 1;
}

static void build(const hm_machine_info_t *info, hm__links_t *l)
{
    int n = info->nodes;
    for (int x = 0; x < n; x++) {
        l->deg[x] = n - 1;
        for (int p = 0; p < n - 1; p++) {
            int y = p < x ? p : p + 1;
            l->nbr[x * l->maxdeg + p] = y;
            l->rport[x * l->maxdeg + p] = port_to(y, x);
        }
    }
}

/* The channel joins every pair: a circuit is one link. */
static size_t route(const hm_machine_info_t *info, const hm__links_t *l, int s, int d,
                    int32_t *links)
{
    (void)info;
    links[0] = s * l->maxdeg + port_to(s, d);
    return 1;
}

static size_t route_max(const hm_machine_info_t *info)
{
    (void)info;
    return 1;
}

/* The channel joins every pair: every other node is one link away. */
static int distance(const hm_machine_info_t *info, int u, int x)
{
    (void)info;
    return u != x;
}

static int farthest(const hm_machine_info_t *info, int x)
{
    return (x + 1) % info->nodes;
}

const hm__topo_ops_t hm__topo_BUS = {maxdeg, build, route, route_max, distance, farthest};
