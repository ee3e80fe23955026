/* SPDX-License-Identifier: MIT */
/* tests/check_lab.sh: a plugin that declares a problem and brings its own setup, to make
 * its own inputs: hypemu refuses it (the problem's setup and check always apply). */
#include <hypemu.h>

static int setup(hm_setup_t *s)
{
    s->state = NULL;
    return 0;
}

static void node_main(hm_node_t *n, void *state)
{
    (void)state;
    hm_store(n, 0);
}

static const hm_algorithm_t algo = {.name = "lab-test-ownsetup",
                                    .description = "its own setup, a declared problem",
                                    .topologies = HM_BIT(HM_TOPO_HYPERCUBE),
                                    .ports = HM_BIT(HM_PORTS_ONE_PORT_FULL),
                                    .default_ports = HM_PORTS_ONE_PORT_FULL,
                                    .setup = setup,
                                    .node_main = node_main,
                                    .problem = HM_PROBLEM_BROADCAST};
HM_PLUGIN(&algo);
