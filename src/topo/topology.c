/* SPDX-License-Identifier: MIT */
/*
 * topology.c — the neighbour tables of doc/config.md for the clock and the node
 * API: for every node, its ports in order, the neighbour behind each port and the
 * neighbour's port back; and the route of a circuit. Each topology is one row of
 * operations (topo.h) in its own file; this file only dispatches on the X-macro.
 */
#include <stdio.h>
#include <stdlib.h>

#include "topo/topo.h"

static const hm__topo_ops_t *ops_of(hm_topology_kind_t k)
{
    static const hm__topo_ops_t *const ops[] = {
#define XX(id, name, desc) &hm__topo_##id,
        HM_TOPOLOGY_MAP(XX)
#undef XX
    };
    return k < HM_TOPO_COUNT ? ops[k] : NULL;
}

int hm__topology_build(const hm_machine_info_t *info, hm__links_t *l, char *err, size_t errlen)
{
    const hm__topo_ops_t *ops = ops_of(info->topology);
    *l = (hm__links_t){0};
    if (!ops) {
        snprintf(err, errlen, "topology %s is not implemented yet",
                 hm_topology_name(info->topology));
        return -1;
    }
    l->maxdeg = ops->maxdeg(info, err, errlen);
    if (l->maxdeg < 0)
        return -1;
    size_t slots = (size_t)info->nodes * (size_t)l->maxdeg;
    l->deg = calloc((size_t)info->nodes, sizeof *l->deg);
    l->nbr = malloc((slots ? slots : 1) * sizeof *l->nbr);
    l->rport = malloc((slots ? slots : 1) * sizeof *l->rport);
    if (!l->deg || !l->nbr || !l->rport) {
        snprintf(err, errlen, "out of memory building the topology");
        return -1;
    }
    for (size_t i = 0; i < slots; i++)
        l->nbr[i] = l->rport[i] = -1;
    ops->build(info, l);
    return 0;
}

void hm__links_free(hm__links_t *l)
{
    free(l->deg);
    free(l->nbr);
    free(l->rport);
    *l = (hm__links_t){0};
}

size_t hm__route(const hm_machine_info_t *info, const hm__links_t *l, int s, int d, int32_t *links)
{
    return ops_of(info->topology)->route(info, l, s, d, links);
}

size_t hm__route_max(const hm_machine_info_t *info)
{
    return ops_of(info->topology)->route_max(info);
}

int hm__distance(const hm_machine_info_t *info, int u, int x)
{
    return ops_of(info->topology)->distance(info, u, x);
}

int hm__farthest(const hm_machine_info_t *info, int x)
{
    return ops_of(info->topology)->farthest(info, x);
}
