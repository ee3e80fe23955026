/* SPDX-License-Identifier: MIT */
/* tests/check_lab.sh: a cheat. The root leaves its value in a global in slot 0 and every
 * other node reads it in slot 1: the stores are right, but no packet carried the value,
 * so the run ends in 1 slot (its last store's), below the broadcast's lower bound d. */
#include <stdatomic.h>

#include <hypemu.h>

static _Atomic int64_t shared;

static void node_main(hm_node_t *n, void *state)
{
    (void)state;
    size_t count;
    const int64_t *in = hm_input(n, &count);
    if (hm_id(n) == hm_root(n))
        atomic_store(&shared, in[0]);
    if (hm_next_slot(n) != HM_OK) /* the clock's barrier orders the write and the reads */
        return;
    hm_store(n, atomic_load(&shared));
}

static const hm_algorithm_t algo = {.name = "lab-test-shared",
                                    .description = "a broadcast through a C global",
                                    .topologies = HM_BIT(HM_TOPO_HYPERCUBE),
                                    .ports = HM_BIT(HM_PORTS_ONE_PORT_FULL),
                                    .default_ports = HM_PORTS_ONE_PORT_FULL,
                                    .node_main = node_main,
                                    .problem = HM_PROBLEM_BROADCAST};
HM_PLUGIN(&algo);
