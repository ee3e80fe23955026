/* SPDX-License-Identifier: MIT */
/*
 * torus.c — the r x c torus, wrap-around in rows and columns (doc/config.md);
 * node (i, j) is i*c + j. Ports as the mesh's (grid.c): 0 west (j - 1 mod c), 1 east
 * (j + 1 mod c), 2 north (i - 1 mod r), 3 south (i + 1 mod r); the port back is the
 * opposite one. A dimension of size 1 has no links, one of size 2 two links to the
 * same neighbour. Circuits go along the row to the destination's column the shortest
 * way round (east on a tie), then along that column (south on a tie).
 */
#include <stdio.h>

#include "topo/topo.h"

enum { WEST, EAST, NORTH, SOUTH };

static int maxdeg(const hm_machine_info_t *info, char *err, size_t errlen)
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
        int nb[4] = {[WEST] = c > 1 ? i * c + (j + c - 1) % c : -1,
                     [EAST] = c > 1 ? i * c + (j + 1) % c : -1,
                     [NORTH] = r > 1 ? (i + r - 1) % r * c + j : -1,
                     [SOUTH] = r > 1 ? (i + 1) % r * c + j : -1};
        l->deg[x] = 4;
        for (int p = 0; p < 4; p++) {
            l->nbr[x * 4 + p] = nb[p];
            l->rport[x * 4 + p] = nb[p] >= 0 ? back[p] : -1;
        }
    }
}

/* Steps from a to b on a cycle of n, the shortest way (forward on a tie): *fwd says
 * which way. */
static int way(int a, int b, int n, int *fwd)
{
    int ahead = ((b - a) % n + n) % n;
    *fwd = ahead <= n - ahead;
    return *fwd ? ahead : n - ahead;
}

static size_t route(const hm_machine_info_t *info, const hm__links_t *l, int s, int d,
                    int32_t *links)
{
    (void)l;
    int r = info->rows, c = info->cols, fwd;
    int i = s / c, j = s % c;
    size_t k = 0;
    for (int n = way(j, d % c, c, &fwd); n > 0; n--) {
        links[k++] = (i * c + j) * 4 + (fwd ? EAST : WEST);
        j = fwd ? (j + 1) % c : (j + c - 1) % c;
    }
    for (int n = way(i, d / c, r, &fwd); n > 0; n--) {
        links[k++] = (i * c + j) * 4 + (fwd ? SOUTH : NORTH);
        i = fwd ? (i + 1) % r : (i + r - 1) % r;
    }
    return k;
}

static size_t route_max(const hm_machine_info_t *info)
{
    return (size_t)info->rows / 2 + (size_t)info->cols / 2 + 2;
}

/* The shorter way round in the row plus the shorter way round in the column; the
 * farthest node is half way round in both. */
static int distance(const hm_machine_info_t *info, int u, int x)
{
    int fwd, c = info->cols;
    return way(u % c, x % c, c, &fwd) + way(u / c, x / c, info->rows, &fwd);
}

static int farthest(const hm_machine_info_t *info, int x)
{
    int r = info->rows, c = info->cols;
    return (x / c + r / 2) % r * c + (x % c + c / 2) % c;
}

const hm__topo_ops_t hm__topo_TORUS = {maxdeg, build, route, route_max, distance, farthest};
