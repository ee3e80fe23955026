/* tests/check_lab.sh: the binomial-tree broadcast of hypemu.h's example under one-port:
 * a node shouts to all its children in one slot, where one-port allows one send, so
 * copies are delayed (conflicts under "contention": "queue"). */
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

static const hm_algorithm_t algo = {.name = "lab-test-conflict",
                                    .description = "binomial tree, all children at once",
                                    .topologies = HM_BIT(HM_TOPO_HYPERCUBE),
                                    .ports = HM_BIT(HM_PORTS_ONE_PORT_FULL),
                                    .default_ports = HM_PORTS_ONE_PORT_FULL,
                                    .node_main = node_main,
                                    .problem = HM_PROBLEM_BROADCAST};
HM_PLUGIN(&algo);
