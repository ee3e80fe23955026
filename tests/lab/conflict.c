/* SPDX-License-Identifier: MIT */
/* tests/check_lab.sh: the binomial-tree broadcast of hypemu.h's example under one-port:
 * a node shouts to all its children in one slot, where one-port allows one send, so
 * copies are delayed (conflicts under "contention": "queue"). Its own .verify adds a
 * failure when the run took more than d slots: it runs after the problem's check, which
 * passes, and the run fails with its words (hypemu.h, HM_PLUGIN). */
#include <stdio.h>

#include <hypemu.h>

static void node_main(hm_node_t *n, void *state)
{
    (void)state;
    size_t count;
    const int64_t *in = hm_input(n, &count);
    int root = hm_root(n), lowest = hm_degree(n);
    hm_packet_t p = {.msg = 1, .value = in ? in[0] : 0};
    if (hm_id(n) != root) {
        if (hm_wait_packet(n, &p) < 0)
            return;
        lowest = p.port;
    }
    hm_store(n, p.value);
    uint64_t children = (UINT64_C(1) << lowest) - 1;
    if (children)
        hm_shout(n, children, &p);
}

static void own_verify(hm_report_t *r)
{
    if (r->completion_slots > r->machine->dim) {
        r->verified = 0;
        snprintf(r->verification, sizeof r->verification, "own check: %lld slots > d = %d",
                 (long long)r->completion_slots, r->machine->dim);
    }
}

static const hm_algorithm_t algo = {.name = "lab-test-conflict",
                                    .description = "binomial tree, all children at once",
                                    .topologies = HM_BIT(HM_TOPO_HYPERCUBE),
                                    .ports =
                                        HM_BIT(HM_PORTS_ONE_PORT_FULL) | HM_BIT(HM_PORTS_ALL_PORT),
                                    .default_ports = HM_PORTS_ONE_PORT_FULL,
                                    .node_main = node_main,
                                    .verify = own_verify,
                                    .problem = HM_PROBLEM_BROADCAST};
HM_PLUGIN(&algo);
