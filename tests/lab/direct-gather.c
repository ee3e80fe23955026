/* SPDX-License-Identifier: MIT */
/* tests/check_lab.sh: gather under circuit routing, every block sent straight to the root
 * with hm_send_to when the root asks for it (an empty message: one receive port, so one
 * sender at a time, no port contention): p - 1 times D(0) + D(b) slots. With
 * -DWRONG_ORDER the root stores the blocks in reverse node order. */
#include <stdlib.h>
#include <string.h>

#include <hypemu.h>

static void node_main(hm_node_t *n, void *state)
{
    (void)state;
    size_t b;
    const int64_t *in = hm_input(n, &b);
    int p = hm_nodes(n), x = hm_id(n), root = hm_root(n);
    hm_packet_t pk = {.msg = x, .origin = x};
    if (x != root) {
        if (hm_wait_packet(n, &pk) != HM_OK) /* the root's request */
            return;
        pk = (hm_packet_t){.msg = x, .origin = x, .data = in, .len = (uint32_t)(b * sizeof *in)};
        hm_send_to(n, root, &pk);
        return;
    }
    int64_t *all = malloc((size_t)p * (b ? b : 1) * sizeof *all);
    if (!all) {
        hm_fail(n, "out of memory");
        return;
    }
    memcpy(all + (size_t)x * b, in, b * sizeof *in);
    for (int y = 0; y < p; y++) {
        if (y == x)
            continue;
        if (hm_send_to(n, y, &pk) != HM_OK || hm_wait_packet(n, &pk) != HM_OK)
            goto done;
#ifdef WRONG_ORDER
        int at = p - 1 - pk.origin;
#else
        int at = pk.origin;
#endif
        memcpy(all + (size_t)at * b, pk.data, b * sizeof *all);
    }
    for (size_t i = 0; i < (size_t)p * b; i++)
        hm_store(n, all[i]);
done:
    free(all);
}

static const hm_algorithm_t algo = {.name = "lab-test-direct-gather",
                                    .description = "gather: every block straight to the root",
                                    .topologies = HM_BIT(HM_TOPO_MESH),
                                    .ports = HM_BIT(HM_PORTS_ALL_PORT),
                                    .node_main = node_main,
                                    .problem = HM_PROBLEM_GATHER};
HM_PLUGIN(&algo);
