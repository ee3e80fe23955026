/* SPDX-License-Identifier: MIT */
/*
 * grid.c — the linear array (one row) and the r x c mesh, no wrap-around
 * (doc/config.md); node (i, j) is i*c + j. Every node has the same four (linear: two)
 * port numbers, whether or not a neighbour is behind them, so that circuit routing
 * can name every directed link as node * maxdeg + port; hm_neighbor says -1 where the
 * array ends. The port numbering lives here only.
 */
#include <stdio.h>

#include "topo/topo.h"

enum { WEST, EAST, NORTH, SOUTH }; /* x - 1, x + 1, x - c, x + c */

static int maxdeg_linear(const hm_machine_info_t *info, char *err, size_t errlen)
{
    (void)info;
    (void)err;
    (void)errlen;
    return 2;
}

static int maxdeg_mesh(const hm_machine_info_t *info, char *err, size_t errlen)
{
    (void)info;
    (void)err;
    (void)errlen;
    return 4;
}

static void build(const hm_machine_info_t *info, hm__links_t *l)
{
    int r = info->rows, c = info->cols;
    static const int back[4] = {[WEST] = EAST, [EAST] = WEST, [NORTH] = SOUTH, [SOUTH] = NORTH};
    for (int x = 0; x < info->nodes; x++) {
        int i = x / c, j = x % c;
        int nb[4] = {[WEST] = j > 0 ? x - 1 : -1,
                     [EAST] = j < c - 1 ? x + 1 : -1,
                     [NORTH] = i > 0 ? x - c : -1,
                     [SOUTH] = i < r - 1 ? x + c : -1};
        l->deg[x] = l->maxdeg;
        for (int p = 0; p < l->maxdeg; p++) {
            l->nbr[x * l->maxdeg + p] = nb[p];
            l->rport[x * l->maxdeg + p] = nb[p] >= 0 ? back[p] : -1;
        }
    }
}

/* Along the row to the destination's column, then along that column. */
static size_t route(const hm_machine_info_t *info, const hm__links_t *l, int s, int d,
                    int32_t *links)
{
    size_t k = 0;
    int c = info->cols;
    int r0 = s / c, c0 = s % c, r1 = d / c, c1 = d % c;
    int x = s;
    for (int j = c0; j != c1; j += c1 > c0 ? 1 : -1) {
        links[k++] = x * l->maxdeg + (c1 > c0 ? EAST : WEST);
        x += c1 > c0 ? 1 : -1;
    }
    for (int i = r0; i != r1; i += r1 > r0 ? 1 : -1) {
        links[k++] = x * l->maxdeg + (r1 > r0 ? SOUTH : NORTH);
        x += r1 > r0 ? c : -c;
    }
    return k;
}

static size_t route_max(const hm_machine_info_t *info)
{
    return (size_t)info->rows + (size_t)info->cols + 2;
}

/* Rows plus columns apart (a linear array is one row); the farthest node is a corner. */
static int distance(const hm_machine_info_t *info, int u, int x)
{
    int c = info->cols, dr = u / c - x / c, dc = u % c - x % c;
    return (dr < 0 ? -dr : dr) + (dc < 0 ? -dc : dc);
}

static int farthest(const hm_machine_info_t *info, int x)
{
    int c = info->cols, i = x / c, j = x % c;
    int fi = 2 * i < info->rows ? info->rows - 1 : 0, fj = 2 * j < c ? c - 1 : 0;
    return fi * c + fj;
}

const hm__topo_ops_t hm__topo_LINEAR = {maxdeg_linear, build, route, route_max, distance, farthest};
const hm__topo_ops_t hm__topo_MESH = {maxdeg_mesh, build, route, route_max, distance, farthest};
