/* SPDX-License-Identifier: MIT */
/* bench/bench_sandbox.sh's plugin: the spanning binomial tree broadcast on a hypercube
 * (doc/collectives.md), after HM_BENCH_CALLS calls of hm_pending per node (0 when
 * unset): the node API's round trip, in threads and under --sandbox. */
#include <stdlib.h>

#include <hypemu.h>

static void node(hm_node_t *n, void *state)
{
    (void)state;
    const char *env = getenv("HM_BENCH_CALLS");
    long calls = env ? atol(env) : 0;
    for (long i = 0; i < calls; i++)
        hm_pending(n);
    size_t count = 0;
    const int64_t *in = hm_input(n, &count);
    int64_t v = count ? in[0] : 0;
    int start = 0;
    if (hm_id(n) != hm_root(n)) {
        hm_packet_t p;
        if (hm_wait_packet(n, &p) != HM_OK)
            return;
        v = p.value;
        start = p.port + 1;
    }
    for (int k = start; k < hm_degree(n); k++) {
        hm_packet_t p = {.value = v};
        if (hm_send(n, k, &p) != HM_OK || hm_next_slot(n) != HM_OK)
            return;
    }
    hm_store(n, v);
}

static const hm_algorithm_t calls = {.name = "bench-calls",
                                     .description = "hm_pending calls, then the binomial tree",
                                     .topologies = HM_BIT(HM_TOPO_HYPERCUBE),
                                     .ports = HM_BIT(HM_PORTS_ALL_PORT),
                                     .problem = HM_PROBLEM_BROADCAST,
                                     .node_main = node};
HM_PLUGIN(&calls);
