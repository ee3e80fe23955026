/*
 * bcast-chain — pipelined broadcast along a chain: the root's b values travel one per
 * packet down the Gray-code ring, the ring's last edge unused.
 *
 * Steps (Thakur-Rabenseifner-Gropp 2005, section 4.1, pipelined chain; Bertsekas-
 * Tsitsiklis section 1.3). The chain is the binary reflected Gray code from the root:
 * position i is node root XOR gray(i); consecutive positions differ in one bit, so
 * they are neighbours in the hypercube. The root sends value k in slot k; position i
 * receives value k in slot k+i-1 and forwards it in slot k+i.
 *
 * Cost under unit slots: exactly (p - 1) + (b - 1) slots, (p - 1)*b packets of one
 * value each (no combining). A node sends one packet and receives one in the same
 * slot: all-port and one-port-full, no conflict.
 */
#include "../common/problem.h"
#include "../common/trees.h"

static const hm_param_spec_t bcast_chain_specs[] = {
    HM_PROB_PARAM_BLOCK,
    HM_PROB_PARAM_ROOT,
    HM_PROB_PARAM_END,
};

static int bcast_chain_setup(hm_setup_t *s)
{
    s->state = hm_prob_setup(s, HM_PROBLEM_BROADCAST);
    return s->state ? 0 : -1;
}

static void bcast_chain_node(hm_node_t *n, void *state)
{
    const hm_prob_t *pb = state;
    int pos = hm_prob_gray_pos((uint32_t)(hm_id(n) ^ hm_prob_root(n, pb)));
    int next = hm_prob_ring_next_port(pos, pb->d), last = pos == pb->p - 1;
    size_t count;
    const int64_t *in = hm_prob_input(n, pb, &count);
    for (int k = 0; k < pb->block; k++) {
        int64_t v;
        if (pos == 0) {
            v = in[k];
            if (k > 0 && hm_next_slot(n) != HM_OK)
                return;
        } else if (hm_prob_recv(n, &v, 1, &count, NULL) != HM_OK) {
            return;
        }
        hm_store(n, v);
        if (!last && hm_prob_send(n, pb, next, k, &v, 1) != HM_OK)
            return;
    }
}

static void bcast_chain_verify(hm_report_t *r)
{
    const hm_prob_t *pb = r->state;
    hm_prob_verify(r, "(p-1)+(block-1)", pb->p - 1 + pb->block - 1, 0);
}

const hm_algorithm_t hm_algo_bcast_chain = {
    .name = "bcast-chain",
    .description = "broadcast: pipelined chain along the Gray-code ring, one value a packet",
    .paper = "Thakur-Rabenseifner-Gropp 2005, section 4.1; Bertsekas-Tsitsiklis section 1.3",
    .topologies = HM_BIT(HM_TOPO_HYPERCUBE),
    .ports = HM_BIT(HM_PORTS_ALL_PORT) | HM_BIT(HM_PORTS_ONE_PORT_FULL),
    .default_ports = HM_PORTS_ONE_PORT_FULL,
    .specs = bcast_chain_specs,
    .needs = {.routing = HM_BIT(HM_ROUTING_PACKET), .min_dim = 1, .pow2_nodes = 1},
    .problem = HM_PROBLEM_BROADCAST,
    .out_size = sizeof(hm_prob_count_t), /* the node's counters (hm_prob_send) */
    .setup = bcast_chain_setup,
    .node_main = bcast_chain_node,
    .verify = bcast_chain_verify,
    .teardown = hm_prob_free,
};
