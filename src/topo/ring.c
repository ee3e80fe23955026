/* SPDX-License-Identifier: MIT */
/*
 * ring.c — the ring of n nodes, wrap-around (doc/config.md): port 0 leads to
 * x + 1 mod n, port 1 to x - 1 mod n, and the port back is the other one (on n = 2
 * the two ports are two links to the same neighbour; n = 1 has none). Circuits go
 * the shortest way round, forward on a tie.
 */
#include <stdio.h>

#include "topo/topo.h"

enum { NEXT, PREV };

static int maxdeg(const hm_machine_info_t *info, char *err, size_t errlen)
{
    (void)info;
    (void)err;
    (void)errlen;
    return 2;
}

static void build(const hm_machine_info_t *info, hm__links_t *l)
{
    int n = info->nodes;
    for (int x = 0; x < n; x++) {
        l->deg[x] = 2;
        if (n < 2)
            continue;
        l->nbr[x * 2 + NEXT] = (x + 1) % n;
        l->nbr[x * 2 + PREV] = (x + n - 1) % n;
        l->rport[x * 2 + NEXT] = PREV;
        l->rport[x * 2 + PREV] = NEXT;
    }
}

static size_t route(const hm_machine_info_t *info, const hm__links_t *l, int s, int d,
                    int32_t *links)
{
    (void)l;
    int n = info->nodes, ahead = ((d - s) % n + n) % n;
    int fwd = ahead <= n - ahead, steps = fwd ? ahead : n - ahead;
    for (int k = 0, x = s; k < steps; k++) {
        links[k] = x * 2 + (fwd ? NEXT : PREV);
        x = fwd ? (x + 1) % n : (x + n - 1) % n;
    }
    return (size_t)steps;
}

static size_t route_max(const hm_machine_info_t *info)
{
    return (size_t)info->nodes / 2 + 1;
}

/* The shorter way round; the farthest node is half way round. */
static int distance(const hm_machine_info_t *info, int u, int x)
{
    int n = info->nodes, ahead = ((x - u) % n + n) % n;
    return ahead <= n - ahead ? ahead : n - ahead;
}

static int farthest(const hm_machine_info_t *info, int x)
{
    return (x + info->nodes / 2) % info->nodes;
}

const hm__topo_ops_t hm__topo_RING = {maxdeg, build, route, route_max, distance, farthest};
