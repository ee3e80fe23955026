/* SPDX-License-Identifier: MIT */
/* A plugin that loads and whose node programs do nothing: hypemu-mpi compares its
 * bytes across ranks before the run (tests/check_mpi.sh, doc/mpi.md). It calls
 * nothing of the engine, so it loads into any hypemu. */
#include <hypemu.h>

static void node(hm_node_t *n, void *state)
{
    (void)n;
    (void)state;
}

static const hm_algorithm_t algo = {.name = "sdk-test-idle",
                                    .topologies = HM_BIT(HM_TOPO_HYPERCUBE),
                                    .ports = HM_BIT(HM_PORTS_ONE_PORT_FULL),
                                    .problem = HM_PROBLEM_BROADCAST,
                                    .node_main = node};

HM_PLUGIN(&algo);
