/* SPDX-License-Identifier: MIT */
/* Plugins whose descriptors hypemu must refuse (tests/check_sdk.sh): built with
 * -DBAD_RANGE, a port model beyond HM_PORTS_COUNT; otherwise a NULL setup with a problem
 * (max) whose setup cannot stand in. */
#include <hypemu.h>

static void node(hm_node_t *n, void *state)
{
    (void)n;
    (void)state;
}

#ifdef BAD_RANGE
static const hm_algorithm_t algo = {.name = "sdk-test-range",
                                    .topologies = HM_BIT(HM_TOPO_HYPERCUBE),
                                    .ports = HM_BIT(HM_PORTS_COUNT),
                                    .problem = HM_PROBLEM_BROADCAST,
                                    .node_main = node};
#else
static const hm_algorithm_t algo = {.name = "sdk-test-nosetup",
                                    .topologies = HM_BIT(HM_TOPO_BUS),
                                    .ports = HM_BIT(HM_PORTS_BUS),
                                    .problem = HM_PROBLEM_MAX,
                                    .node_main = node};
#endif
HM_PLUGIN(&algo);
