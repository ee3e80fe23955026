/*
 * topology.c — builds the neighbour tables of SPEC section 2 for the clock and the
 * node API: for every node, its ports in order, the neighbour behind each port and
 * the neighbour's port back.
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

int hm__topology_build(hm__machine_t *m, char *err, size_t errlen)
{
    switch (m->info.topology) {
    case HM_TOPO_HYPERCUBE:
        m->maxdeg = m->info.dim > 0 ? m->info.dim : 1;
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
    default:
        break;
    }
    return 0;
}
