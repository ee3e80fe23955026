/*
 * topology.c — builds the neighbour tables of SPEC section 2 for the clock and the
 * node API: for every node, its ports in order, the neighbour behind each port and
 * the neighbour's port back.
 *
 * Bus (Dechter-Kleinrock): nodes 0..k-1 are the processors and node k the output
 * processor, all on one shared channel. Every node has a port to every other node,
 * in increasing node order (port p of x leads to p if p < x, else to p + 1), so that
 * a broadcast on the channel is one hm_shout over all ports: one emission, heard by
 * every other node. The port model `bus` (ports/ports.c) lets one emission use the
 * channel per slot. Port sets are 64-bit masks, hence at most 65 nodes on a bus
 * (cli/config.c enforces it).
 */
#include <stdio.h>
#include <stdlib.h>

#include "hm_internal.h"

/* Hypercube Q_d: port i joins x and x XOR 2^i, and the port back is i too. */
static void build_hypercube(hm__machine_t *m)
{
    int d = m->info.dim;
    for (int x = 0; x < m->info.nodes; x++) {
        m->deg[x] = d;
        for (int i = 0; i < d; i++) {
            m->nbr[x * m->maxdeg + i] = x ^ (1 << i);
            m->rport[x * m->maxdeg + i] = i;
        }
    }
}

/* Bus: a port to every other node, in node order; x is port x of every y > x and
 * port x - 1 of every y < x. */
static void build_bus(hm__machine_t *m)
{
    int n = m->info.nodes;
    for (int x = 0; x < n; x++) {
        m->deg[x] = n - 1;
        for (int p = 0; p < n - 1; p++) {
            int y = p < x ? p : p + 1;
            m->nbr[x * m->maxdeg + p] = y;
            m->rport[x * m->maxdeg + p] = x < y ? x : x - 1;
        }
    }
}

/* Linear array (one row) and r x c mesh, no wrap-around; node (i, j) is i*c + j. Every
 * node has the same four (linear: two) port numbers, whether or not a neighbour is
 * behind them: port 0 west (x - 1), 1 east (x + 1), 2 north (x - c), 3 south (x + c);
 * hm_neighbor says -1 where the array ends. Fixed numbers let circuit routing
 * (ports/circuit.c) name every directed link as node * maxdeg + port. */
static void build_grid(hm__machine_t *m)
{
    int r = m->info.rows, c = m->info.cols;
    static const int back[4] = {1, 0, 3, 2};
    for (int x = 0; x < m->info.nodes; x++) {
        int i = x / c, j = x % c;
        int nb[4] = {j > 0 ? x - 1 : -1, j < c - 1 ? x + 1 : -1, i > 0 ? x - c : -1,
                     i < r - 1 ? x + c : -1};
        m->deg[x] = m->maxdeg;
        for (int p = 0; p < m->maxdeg; p++) {
            m->nbr[x * m->maxdeg + p] = nb[p];
            m->rport[x * m->maxdeg + p] = nb[p] >= 0 ? back[p] : -1;
        }
    }
}

int hm__topology_build(hm__machine_t *m, char *err, size_t errlen)
{
    switch (m->info.topology) {
    case HM_TOPO_HYPERCUBE:
        m->maxdeg = m->info.dim > 0 ? m->info.dim : 1;
        break;
    case HM_TOPO_BUS:
        if (m->info.nodes < 2 || m->info.nodes > 65) {
            snprintf(err, errlen, "topology bus: found %d nodes; allowed: 2 to 65", m->info.nodes);
            return -1;
        }
        m->maxdeg = m->info.nodes - 1;
        break;
    case HM_TOPO_LINEAR:
        m->maxdeg = 2;
        break;
    case HM_TOPO_MESH:
        m->maxdeg = 4;
        break;
    default:
        snprintf(err, errlen, "topology %s is not implemented yet",
                 hm_topology_name(m->info.topology));
        return -1;
    }
    size_t slots = (size_t)m->info.nodes * (size_t)m->maxdeg;
    m->deg = calloc((size_t)m->info.nodes, sizeof *m->deg);
    m->nbr = malloc(slots * sizeof *m->nbr);
    m->rport = malloc(slots * sizeof *m->rport);
    if (!m->deg || !m->nbr || !m->rport) {
        snprintf(err, errlen, "out of memory building the topology");
        return -1;
    }
    for (size_t i = 0; i < slots; i++)
        m->nbr[i] = m->rport[i] = -1;
    switch (m->info.topology) {
    case HM_TOPO_HYPERCUBE:
        build_hypercube(m);
        break;
    case HM_TOPO_BUS:
        build_bus(m);
        break;
    case HM_TOPO_LINEAR:
    case HM_TOPO_MESH:
        build_grid(m);
        break;
    default:
        break;
    }
    return 0;
}
