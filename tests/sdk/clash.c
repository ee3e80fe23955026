/* SPDX-License-Identifier: MIT */
/* A plugin whose algorithm takes a built-in name: hypemu must refuse it
 * (tests/check_sdk.sh). */
#include <hypemu.h>

static void node(hm_node_t *n, void *state)
{
    (void)n;
    (void)state;
}

static const hm_algorithm_t algo = {.name = "sbt-broadcast",
                                    .topologies = HM_BIT(HM_TOPO_HYPERCUBE),
                                    .ports = HM_BIT(HM_PORTS_ONE_PORT_FULL),
                                    .problem = HM_PROBLEM_BROADCAST,
                                    .node_main = node};
HM_PLUGIN(&algo);
