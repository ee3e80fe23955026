/* SPDX-License-Identifier: MIT */
/* A plugin built for another plugin ABI: hypemu must refuse it (tests/check_sdk.sh). */
#include <hypemu.h>

static void node(hm_node_t *n, void *state)
{
    (void)n;
    (void)state;
}

static const hm_algorithm_t algo = {.name = "sdk-test-abi",
                                    .topologies = HM_BIT(HM_TOPO_HYPERCUBE),
                                    .ports = HM_BIT(HM_PORTS_ONE_PORT_FULL),
                                    .problem = HM_PROBLEM_BROADCAST,
                                    .node_main = node};
static const hm_algorithm_t *const list[] = {&algo, NULL};

__attribute__((visibility("default"))) const hm_plugin_t hm_plugin = {
    HM_ABI_VERSION + 98, (unsigned)sizeof(hm_algorithm_t), HM_VERSION, list};
