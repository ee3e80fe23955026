/* SPDX-License-Identifier: MIT */
/* tests/check_lab.sh: a node program whose sends are refused (README "Refused calls"):
 * node 0 sends to a node that is not its neighbour, on a port that does not exist and
 * with a NULL packet, ignores the codes and waits, as every other node does. */
#include <hypemu.h>

static void node_main(hm_node_t *n, void *state)
{
    (void)state;
    hm_packet_t p = {.msg = 1, .value = 7};
    if (hm_id(n) == 0) {
        hm_send_to(n, hm_nodes(n) - 1, &p);
        hm_send(n, hm_degree(n) + 5, &p);
        hm_next_slot(n);
        hm_send(n, 0, NULL);
        hm_shout(n, 0, &p);
        hm_shout(n, 1u << 10, &p);
        hm_send_to(n, hm_nodes(n), &p);
    }
    hm_wait_packet(n, &p);
}

static const hm_algorithm_t algo = {.name = "lab-test-refuse",
                                    .description = "sends the model refuses, then waits",
                                    .topologies = HM_BIT(HM_TOPO_HYPERCUBE),
                                    .ports = HM_BIT(HM_PORTS_ONE_PORT_FULL),
                                    .default_ports = HM_PORTS_ONE_PORT_FULL,
                                    .node_main = node_main,
                                    .problem = HM_PROBLEM_BROADCAST};
HM_PLUGIN(&algo);
