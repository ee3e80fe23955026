/* SPDX-License-Identifier: MIT */
/*
 * hypercube.c — the d-dimensional hypercube Q_d (doc/config.md): port i joins x
 * and x XOR 2^i, and the port back is i too. Circuits follow e-cube routing, lowest
 * dimension first.
 */
#include <stdio.h>

#include "topo/topo.h"

static int maxdeg(const hm_machine_info_t *info, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    return info->dim > 0 ? info->dim : 1;
}

static void build(const hm_machine_info_t *info, hm__links_t *l)
{
    int d = info->dim;
    for (int x = 0; x < info->nodes; x++) {
        l->deg[x] = d;
        for (int i = 0; i < d; i++) {
            l->nbr[x * l->maxdeg + i] = x ^ (1 << i);
            l->rport[x * l->maxdeg + i] = i;
        }
    }
}

static size_t route(const hm_machine_info_t *info, const hm__links_t *l, int s, int d,
                    int32_t *links)
{
    size_t k = 0;
    int x = s;
    for (int i = 0; i < info->dim; i++)
        if (((x ^ d) >> i) & 1) {
            links[k++] = x * l->maxdeg + i;
            x ^= 1 << i;
        }
    return k;
}

static size_t route_max(const hm_machine_info_t *info)
{
    return (size_t)info->dim + 1;
}

/* One link per dimension in which u and x differ; x's complement differs in all. */
static int distance(const hm_machine_info_t *info, int u, int x)
{
    (void)info;
    return __builtin_popcount((unsigned)(u ^ x));
}

static int farthest(const hm_machine_info_t *info, int x)
{
    return x ^ (info->nodes - 1);
}

const hm__topo_ops_t hm__topo_HYPERCUBE = {maxdeg, build, route, route_max, distance, farthest};
