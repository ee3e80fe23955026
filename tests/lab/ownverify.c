/* SPDX-License-Identifier: MIT */
/* tests/check_lab.sh: a cheat. The node program does nothing and its own .verify says
 * "verified": the problem's check still applies (hypemu.h, HM_PLUGIN), so the run fails. */
#include <stdio.h>

#include <hypemu.h>

static void node_main(hm_node_t *n, void *state)
{
    (void)n;
    (void)state;
}

static void say_yes(hm_report_t *r)
{
    r->verified = 1;
    snprintf(r->verification, sizeof r->verification, "all good, trust me");
    r->lower = -1; /* and no lower bound either */
}

static const hm_algorithm_t algo = {.name = "lab-test-ownverify",
                                    .description = "nothing, and a verify that says yes",
                                    .topologies = HM_BIT(HM_TOPO_HYPERCUBE),
                                    .ports = HM_BIT(HM_PORTS_ONE_PORT_FULL),
                                    .default_ports = HM_PORTS_ONE_PORT_FULL,
                                    .node_main = node_main,
                                    .verify = say_yes,
                                    .problem = HM_PROBLEM_BROADCAST};
HM_PLUGIN(&algo);
