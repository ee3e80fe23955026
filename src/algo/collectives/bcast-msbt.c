/*
 * bcast-msbt — Johnsson and Ho's multiple spanning binomial trees: the root's b values
 * are dealt to d edge-disjoint spanning trees, one value per packet, and pipelined
 * down all of them at once under all-port.
 *
 * Steps (Johnsson-Ho 1989, section 3, the MSBT). Relative numbers r = x XOR root;
 * value k goes down tree j = k mod d, as the (k div d)-th of that tree, leaving the
 * root in slot k div d. Tree j:
 *   - the root's only child is 2^j;
 *   - a node u with bit j set has, besides, the children u | 2^i for the dimensions i
 *     above u's last set bit in the cyclic order j+1, j+2, ..., j-1 (mod d): a
 *     spanning binomial tree of the subcube "bit j = 1" rooted at 2^j, its dimensions
 *     rotated by j;
 *   - and the child u XOR 2^j (u != 2^j), a leaf.
 * A node forwards a value to its children in the slot after it received it. The
 * trees are edge-disjoint (an edge of dimension i != j in tree j leaves a node with
 * bit j set and adds bit i, so two trees cannot share it; dimension-j edges of tree j
 * clear bit j), so every link carries at most one packet a slot. Tree j has height
 * d + 1 (d = 1: 1).
 *
 * Cost under unit slots: exactly ceil(b/d) + d slots for d >= 2 (the last of a tree's
 * ceil(b/d) values leaves the root in slot ceil(b/d) - 1 and descends d + 1 levels),
 * b slots for d = 1: Johnsson-Ho's ceil(M/(dB)) + d; (p - 1)*b packets of one value
 * (no combining). All-port only, no conflict; one slot above the problem's lower
 * bound ceil(b/d) + d - 1.
 */
#include <stdlib.h>

#include "../common/problem.h"

static const hm_param_spec_t bcast_msbt_specs[] = {
    HMA_PROB_PARAM_BLOCK,
    HMA_PROB_PARAM_ROOT,
    HMA_PROB_PARAM_END,
};

static int bcast_msbt_setup(hm_setup_t *s)
{
    s->state = hma_prob_setup(s, HM_PROBLEM_BROADCAST);
    return s->state ? 0 : -1;
}

/* Ports of u's children in tree j (u = 0 is the root). */
static uint64_t msbt_children(int d, int j, int u)
{
    if (u == 0)
        return UINT64_C(1) << j;
    if (!(u >> j & 1))
        return 0;
    uint64_t ch = u != 1 << j ? UINT64_C(1) << j : 0;
    int last = 0; /* cyclic offset of u's last set bit after j, 0 if none */
    for (int o = 1; o < d; o++)
        if (u >> ((j + o) % d) & 1)
            last = o;
    for (int o = last + 1; o < d; o++)
        ch |= UINT64_C(1) << ((j + o) % d);
    return ch;
}

static int forward(hm_node_t *n, const hma_prob_t *pb, int r, int k, int64_t v)
{
    uint64_t ch = msbt_children(pb->d, k % pb->d, r);
    for (int i = 0; i < pb->d; i++)
        if (ch >> i & 1) {
            int rc = hma_prob_send(n, pb, i, k, &v, 1);
            if (rc != HM_OK)
                return rc;
        }
    return HM_OK;
}

static void bcast_msbt_node(hm_node_t *n, void *state)
{
    const hma_prob_t *pb = state;
    int b = pb->block, d = pb->d, r = hm_id(n) ^ hm_root(n);
    size_t count;
    const int64_t *in = hm_input(n, &count);
    if (r == 0) {
        /* Slot t: the t-th value of every tree. */
        for (int t = 0; t * d < b; t++) {
            if (t > 0 && hm_next_slot(n) != HM_OK)
                return;
            for (int k = t * d; k < b && k < (t + 1) * d; k++)
                if (forward(n, pb, r, k, in[k]) != HM_OK)
                    return;
        }
        hma_prob_store(n, in, (size_t)b);
        return;
    }
    int64_t *buf = hma_prob_alloc(n, (size_t)b);
    if (!buf)
        return;
    for (int got = 0; got < b; got++) {
        hm_packet_t pk;
        int64_t v;
        if (hma_prob_recv(n, &v, 1, &count, &pk) != HM_OK || pk.msg < 0 || pk.msg >= b)
            goto done;
        buf[pk.msg] = v;
        if (forward(n, pb, r, pk.msg, v) != HM_OK)
            goto done;
    }
    hma_prob_store(n, buf, (size_t)b);
done:
    free(buf);
}

static void bcast_msbt_verify(hm_report_t *r)
{
    const hma_prob_t *pb = r->state;
    int64_t b = pb->block, d = pb->d;
    if (d == 1)
        hma_prob_verify(r, "block (d = 1)", b, 0);
    else
        hma_prob_verify(r, "ceil(block/log2(p))+log2(p)", (b + d - 1) / d + d, 0);
}

const hm_algorithm_t hm_algo_bcast_msbt = {
    .name = "bcast-msbt",
    .description = "broadcast: Johnsson-Ho multiple spanning binomial trees, d pipelines",
    .paper = "Johnsson-Ho 1989, section 3 (MSBT)",
    .topologies = HM_BIT(HM_TOPO_HYPERCUBE),
    .ports = HM_BIT(HM_PORTS_ALL_PORT),
    .default_ports = HM_PORTS_ALL_PORT,
    .specs = bcast_msbt_specs,
    .needs = {.routing = HM_BIT(HM_ROUTING_PACKET),
              .clock_modes = HM_BIT(HM_CLOCK_SLOTTED),
              .clock_why =
                  "its d trees pipeline packets by the global slot; free clocks reorder them",
              .min_dim = 1,
              .pow2_nodes = 1},
    .problem = HM_PROBLEM_BROADCAST,
    .out_size = sizeof(hma_prob_count_t), /* the node's counters (hma_prob_send) */
    .setup = bcast_msbt_setup,
    .node_main = bcast_msbt_node,
    .verify = bcast_msbt_verify,
    .teardown = hma_prob_free,
    HMA_PROB_IO,
};
