/* SPDX-License-Identifier: MIT */
/* Plugins that get their results right through the shared address space instead of the
 * network (README "What verified means"): each declares its problem, whose check then
 * stands in, and none may verify (tests/check_sdk.sh).
 *
 *   sdk-cheat-global   a broadcast through a C global: every node stores the root's
 *                      block in slot 1, faster than light beyond one link;
 *   sdk-cheat-pointer  an allgather whose nodes send one pointer each, wait for the
 *                      cone (d slots) and read every block through it: more values than
 *                      the words delivered. */
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>

#include <hypemu.h>

static _Atomic(const int64_t *) root_block;
static atomic_size_t root_count;

static void global(hm_node_t *n, void *state)
{
    (void)state;
    size_t k;
    const int64_t *in = hm_input(n, &k);
    if (hm_id(n) == hm_root(n)) {
        atomic_store(&root_count, k);
        atomic_store(&root_block, in);
    } else if (hm_next_slot(n) != HM_OK) {
        return;
    }
    const int64_t *v;
    while (!(v = atomic_load(&root_block)))
        sched_yield();
    for (size_t i = 0; i < atomic_load(&root_count); i++)
        hm_store(n, v[i]);
}

static _Atomic(const int64_t *) table[1 << 10];

static void pointer(hm_node_t *n, void *state)
{
    (void)state;
    size_t k;
    atomic_store(&table[hm_id(n)], hm_input(n, &k));
    hm_packet_t pk = {.msg = 1, .value = (int64_t)(intptr_t)table};
    int d = hm_degree(n);
    if (hm_shout(n, (UINT64_C(1) << d) - 1, &pk) != HM_OK || hm_wait_until(n, d) != HM_OK ||
        hm_recv(n, &pk) != HM_OK)
        return;
    _Atomic(const int64_t *) *t = (_Atomic(const int64_t *) *)(intptr_t)pk.value;
    for (int y = 0; y < hm_nodes(n); y++) {
        const int64_t *in;
        while (!(in = atomic_load(&t[y])))
            sched_yield();
        for (size_t i = 0; i < k; i++)
            hm_store(n, in[i]);
    }
}

static const hm_algorithm_t cheat_global = {.name = "sdk-cheat-global",
                                            .topologies = HM_BIT(HM_TOPO_HYPERCUBE),
                                            .ports = HM_BIT(HM_PORTS_ALL_PORT),
                                            .problem = HM_PROBLEM_BROADCAST,
                                            .node_main = global};
static const hm_algorithm_t cheat_pointer = {.name = "sdk-cheat-pointer",
                                             .topologies = HM_BIT(HM_TOPO_HYPERCUBE),
                                             .ports = HM_BIT(HM_PORTS_ALL_PORT),
                                             .problem = HM_PROBLEM_ALLGATHER,
                                             .node_main = pointer};
HM_PLUGIN(&cheat_global, &cheat_pointer);
