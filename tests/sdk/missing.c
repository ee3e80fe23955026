/* SPDX-License-Identifier: MIT */
/* A plugin that calls a function no library defines: dlopen fails, hypemu must say which
 * symbol (tests/check_sdk.sh). */
#include <hypemu.h>

void hm_sdk_test_nowhere(hm_node_t *n);

static void node(hm_node_t *n, void *state)
{
    (void)state;
    hm_sdk_test_nowhere(n);
}

static const hm_algorithm_t algo = {.name = "sdk-test-missing",
                                    .topologies = HM_BIT(HM_TOPO_HYPERCUBE),
                                    .ports = HM_BIT(HM_PORTS_ONE_PORT_FULL),
                                    .problem = HM_PROBLEM_BROADCAST,
                                    .node_main = node};
HM_PLUGIN(&algo);
