/* SPDX-License-Identifier: MIT */
/*
 * plugin.c — the descriptor of an MPI program (doc/mpi-programs.md): hypemu-mpicc compiles
 * it into each program with HM_MPI_NAME, the output file's stem, as the algorithm's name.
 * Its node program runs the program's main as the node's rank (the MPI library's
 * hm_mpi__node); the symbol hm_mpi_program tells hypemu that algorithm.problem may name the
 * problem the program solves.
 */
#include <hypemu.h>

#ifndef HM_MPI_NAME
#error "HM_MPI_NAME: hypemu-mpicc defines it as the program's name"
#endif

void hm_mpi__node(hm_node_t *n, void *state);
int hm_mpi__setup(hm_setup_t *s);
extern const hm_param_spec_t hm_mpi__specs[]; /* each collective's algorithm */

HM__PLUGIN_LINKAGE const int hm_mpi_program = 1;

static const hm_algorithm_t hm_mpi_descriptor = {
    .name = HM_MPI_NAME,
    .description = "an MPI program (hypemu-mpicc)",
    .paper = "doc/mpi-programs.md",
    .topologies = HM_BIT(HM_TOPO_HYPERCUBE) | HM_BIT(HM_TOPO_LINEAR) | HM_BIT(HM_TOPO_MESH) |
                  HM_BIT(HM_TOPO_RING) | HM_BIT(HM_TOPO_TORUS),
    .ports = HM_BIT(HM_PORTS_ALL_PORT) | HM_BIT(HM_PORTS_ONE_PORT_FULL) |
             HM_BIT(HM_PORTS_ONE_PORT_HALF) | HM_BIT(HM_PORTS_SHOUT),
    .default_ports = HM_PORTS_ALL_PORT,
    .setup = hm_mpi__setup,
    .node_main = hm_mpi__node,
    .specs = hm_mpi__specs,
    .needs = {.clock_modes = HM_BIT(HM_CLOCK_SLOTTED),
              .clock_why = "packets to nodes that are not neighbours are routed by the slotted "
                           "clock"},
};
HM_PLUGIN(&hm_mpi_descriptor);
