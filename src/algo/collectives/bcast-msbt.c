/* SPDX-License-Identifier: MIT */
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
 *
 * Cost under Seidel's a*m + b (circuit routing to neighbours): a node transmits one
 * message and receives one at a time, so packet slot t of the schedule above becomes
 * d rounds of D(1) = ceil(8a + b) slots, round t*d + i carrying the packets of
 * dimension i. Each node sends at most one packet and receives at most one on each
 * dimension in a packet slot (the trees are edge-disjoint), so no port or link is
 * ever shared; a node forwards in packet slot s + h the value it got in slot s + h - 1
 * (s the value's index in its tree, h the node's depth in it), at the round of the
 * child's dimension. The last packet slot, ceil(b/d) + d - 1, carries only the leaf
 * edges of dimension j of the trees j <= (b-1) mod d that hold ceil(b/d) values, so
 * the run ends after round (ceil(b/d) + d - 1)*d + (b-1) mod d: exactly
 * (b + d^2) * D(1) slots for d >= 2, b * D(1) for d = 1; (p - 1)*b messages of one value.
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
    hma_prob_t *pb = hma_prob_setup(s, HM_PROBLEM_BROADCAST);
    if (pb && s->machine->circuit) /* the slots of one round: one message of one value */
        pb->aux = hma_prob_msg_slots(s->machine, 1);
    return hma_prob_ready(s, pb);
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

/* Depth of u in tree j: the root 0, popcount(u) with bit j set, popcount(u) + 2 (a
 * leaf under u | 2^j) without. */
static int msbt_depth(int j, int u)
{
    int c = __builtin_popcount((unsigned)u);
    return u == 0 ? 0 : (u >> j & 1) ? c : c + 2;
}

/* Under circuit routing: send value k (of v) to u's children in tree k mod d during
 * packet slot `slot`, the child of dimension i in round slot*d + i (D = pb->aux slots). */
static int round_send(hm_node_t *n, const hma_prob_t *pb, int u, int64_t slot, int dim, int k,
                      int64_t v)
{
    if (!(msbt_children(pb->d, k % pb->d, u) >> dim & 1))
        return HM_OK;
    int64_t at = (slot * pb->d + dim) * pb->aux;
    if (hm_now(n) < at && hm_wait_until(n, at) != HM_OK)
        return HM_EABORT;
    return hma_prob_send(n, pb, dim, k, &v, 1);
}

/* Take the values of one packet slot (the first already read: k, v) into buf and the
 * lists ks, vs: every packet pending now. Returns their number, or -1. */
static int take_slot(hm_node_t *n, const hma_prob_t *pb, int64_t *buf, int *ks, int64_t *vs, int k,
                     int64_t v)
{
    int m = 0;
    for (;;) {
        if (k < 0 || k >= pb->block || m == pb->d) {
            hm_fail(n, "bcast-msbt: a packet out of the schedule");
            return -1;
        }
        ks[m] = k;
        vs[m++] = buf[k] = v;
        if (hm_pending(n) == 0)
            return m;
        hm_packet_t pk;
        size_t count;
        if (hma_prob_recv(n, &v, 1, &count, &pk) != HM_OK)
            return -1;
        k = pk.msg;
    }
}

/* The circuit schedule: the root sends value k in packet slot k div d; another node
 * takes the values of one packet slot at the start of the next (they are all there,
 * and none of the next one yet) and forwards them dimension by dimension. */
static void msbt_circuit(hm_node_t *n, const hma_prob_t *pb, int r, const int64_t *in)
{
    int b = pb->block, d = pb->d, got = 0;
    if (r == 0) {
        for (int k = 0; k < b; k++)
            if (round_send(n, pb, 0, k / d, k % d, k, in[k]) != HM_OK)
                return;
        hma_prob_store(n, in, (size_t)b);
        return;
    }
    int64_t *buf = hma_prob_alloc(n, (size_t)b + (size_t)d);
    int *ks = malloc((size_t)d * sizeof *ks);
    while (buf && ks && got < b) {
        hm_packet_t pk;
        size_t count;
        int64_t v;
        if (hma_prob_recv(n, &v, 1, &count, &pk) != HM_OK || pk.msg < 0 || pk.msg >= b)
            break;
        /* The packet slot in which this node forwards it, and its companions. */
        int64_t slot = pk.msg / d + msbt_depth(pk.msg % d, r), at = slot * d * pb->aux;
        if (hm_now(n) < at && hm_wait_until(n, at) != HM_OK)
            break;
        int m = take_slot(n, pb, buf, ks, buf + b, pk.msg, v);
        if (m < 0)
            break;
        got += m;
        hm_show(n, buf, (size_t)b);
        for (int i = 0; i < d && got <= b; i++)
            for (int e = 0; e < m; e++)
                if (round_send(n, pb, r, slot, i, ks[e], buf[b + e]) != HM_OK)
                    got = b + 1;
    }
    if (got == b)
        hma_prob_store(n, buf, (size_t)b);
    else if (!ks)
        hm_fail(n, "bcast-msbt: out of memory");
    free(ks);
    free(buf);
}

static void bcast_msbt_node(hm_node_t *n, void *state)
{
    const hma_prob_t *pb = state;
    if (pb->aux) {
        size_t count;
        msbt_circuit(n, pb, hm_id(n) ^ hm_root(n), hm_input(n, &count));
        return;
    }
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
        hm_show(n, buf, (size_t)b); /* the values so far, by index */
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
    if (r->machine->circuit)
        hma_prob_verify(r, d == 1 ? "block*ceil(8a+b) (d = 1)" : "(block+log2(p)^2)*ceil(8a+b)",
                        (d == 1 ? b : b + d * d) * pb->aux, 0);
    else if (d == 1)
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
    .needs = {.clock_modes = HM_BIT(HM_CLOCK_SLOTTED),
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
