/* SPDX-License-Identifier: MIT */
/* A plugin whose node 3 dereferences a null pointer in slot 2: hypemu must name the node,
 * the algorithm, the plugin, the slot and the signal (tests/check_sdk.sh). */
#include <stddef.h>

#include <hypemu.h>

static void node(hm_node_t *n, void *state)
{
    (void)state;
    if (hm_wait_until(n, 2) != HM_OK)
        return;
    if (hm_id(n) == 3) {
        volatile int *volatile nowhere = NULL;
        *nowhere = 1;
    }
}

static const hm_algorithm_t algo = {.name = "sdk-test-crash",
                                    .topologies = HM_BIT(HM_TOPO_HYPERCUBE),
                                    .ports = HM_BIT(HM_PORTS_ONE_PORT_FULL),
                                    .problem = HM_PROBLEM_BROADCAST,
                                    .node_main = node};
HM_PLUGIN(&algo);
