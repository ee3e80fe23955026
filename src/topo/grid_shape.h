/* SPDX-License-Identifier: MIT */
/*
 * grid_shape.h — a node's place in the grid of a mesh, a torus, a linear array or a ring
 * (one row of p nodes): hm_grid (hypemu.h), answered the same in threads
 * (engine/node.c) and in a node process (sandbox/runner.c). Node (i, j) is i*c + j
 * (doc/config.md).
 */
#ifndef HM_TOPO_GRID_SHAPE_H
#define HM_TOPO_GRID_SHAPE_H

#include "hypemu.h"

static inline int hm__grid_shape(const hm_machine_info_t *in, int id, int *rows, int *cols,
                                 int *row, int *col)
{
    hm_topology_kind_t k = in->topology;
    if (k != HM_TOPO_MESH && k != HM_TOPO_TORUS && k != HM_TOPO_LINEAR && k != HM_TOPO_RING)
        return HM_ENOENT;
    int r = in->rows > 0 ? in->rows : 1, c = in->cols > 0 ? in->cols : in->nodes;
    if (rows)
        *rows = r;
    if (cols)
        *cols = c;
    if (row)
        *row = id / c;
    if (col)
        *col = id % c;
    return HM_OK;
}

#endif
