/* SPDX-License-Identifier: MIT */
/*
 * topo.h — one row of operations per topology of HM_TOPOLOGY_MAP (include/hypemu.h),
 * one file per topology under src/topo/ (hypercube.c, grid.c, ring.c, torus.c, bus.c).
 * Adding a topology is one row in the X-macro and one new file defining hm__topo_<ID>.
 */
#ifndef HM_TOPO_H
#define HM_TOPO_H

#include "hm_internal.h"

typedef struct hm__topo_ops_s {
    /* Ports per node for info, or -1 after writing why info cannot be built. */
    int (*maxdeg)(const hm_machine_info_t *info, char *err, size_t errlen);
    /* Fill deg, nbr and rport (nbr and rport come filled with -1). */
    void (*build)(const hm_machine_info_t *info, hm__links_t *l);
    /* Circuit routing: the directed links from s to d, in order; returns how many. */
    size_t (*route)(const hm_machine_info_t *info, const hm__links_t *l, int s, int d,
                    int32_t *links);
    size_t (*route_max)(const hm_machine_info_t *info); /* the longest route */
    /* The number of links between u and x (the graph distance), and a node farthest
     * from x: the light cone of README "What verified means" (engine/causal.c). */
    int (*distance)(const hm_machine_info_t *info, int u, int x);
    int (*farthest)(const hm_machine_info_t *info, int x);
} hm__topo_ops_t;

#define XX(id, name, desc) extern const hm__topo_ops_t hm__topo_##id;
HM_TOPOLOGY_MAP(XX)
#undef XX

#endif
