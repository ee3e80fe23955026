/* SPDX-License-Identifier: MIT */
/*
 * routed.c — hm_send_routed under packet routing (doc/mpi-programs.md, "Routing"): node 0
 * sends one packet in slot 0 to the last node (on a ring of more than four nodes to node p/2,
 * the farthest). The receiver stores the value, the sender, the port and the
 * slot it was received in.
 */
#include <hypemu.h>

static int routed_setup(hm_setup_t *s)
{
    (void)s;
    return 0;
}

static void routed_node(hm_node_t *n, void *state)
{
    (void)state;
    int me = hm_id(n), nodes = hm_nodes(n);
    int last = hm_degree(n) == 2 && nodes > 4 ? nodes / 2 : nodes - 1; /* a ring's farthest node */
    if (me == 0) {
        hm_packet_t p = {.msg = 1, .value = 42};
        hm_send_routed(n, last, &p);
        return;
    }
    if (me != last)
        return;
    hm_packet_t p;
    if (hm_wait_packet(n, &p) < 0)
        return;
    hm_store(n, p.value);
    hm_store(n, p.from);
    hm_store(n, p.port);
    hm_store(n, p.recv_slot);
}

static void routed_verify(hm_report_t *r)
{
    size_t count;
    int p = r->machine->nodes;
    int last = r->machine->topology == HM_TOPO_RING && p > 4 ? p / 2 : p - 1;
    const int64_t *v = hm_report_stores(r, last, &count);
    r->verified = count == 4 && v[0] == 42 && v[1] == 0 && v[2] == -1;
    if (count == 4)
        json_object_set_new(r->extra, "received_in_slot", json_integer(v[3]));
}

static const hm_algorithm_t routed = {
    .name = "routed",
    .description = "one packet routed from node 0 to the farthest node",
    .topologies = HM_BIT(HM_TOPO_HYPERCUBE) | HM_BIT(HM_TOPO_RING) | HM_BIT(HM_TOPO_MESH),
    .ports = HM_BIT(HM_PORTS_ALL_PORT) | HM_BIT(HM_PORTS_ONE_PORT_FULL),
    .setup = routed_setup,
    .node_main = routed_node,
    .verify = routed_verify,
};
HM_PLUGIN(&routed);
