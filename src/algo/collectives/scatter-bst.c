/* SPDX-License-Identifier: MIT */
/*
 * scatter-bst — scatter down a balanced spanning tree under all-port: the root sends
 * on its d links at once, each subtree's blocks farthest first, and reaches the lower
 * bound ceil((p-1)/d) of the lecture notes.
 *
 * Lower bound (lecture notes on hypercube spanning trees, "Communication Routing on
 * the Hypercube", Scatter): the root sends p - 1 different messages over its d links,
 * so no scatter takes fewer than ceil((p-1)/d) slots. Johnsson-Ho 1989 (section 4)
 * reach it with a balanced spanning tree (BST): a spanning tree whose d root subtrees
 * have at most ceil((p-1)/d) nodes each.
 *
 * The tree (trees.h, hma_balanced_tree; relative numbers r = x XOR root): nodes taken
 * level by level (popcount), each attached to the neighbour one level up whose root
 * subtree is smallest so far. That greedy tree is balanced for every d = 1..16
 * (tests/check_collectives.c asserts it); it is a shortest-path tree, depth popcount r.
 *
 * Steps. One packet per block, the destination (relative) as the message number. In
 * slot t the root sends on every port j the t-th block of root subtree j, the
 * subtree's blocks in order of decreasing depth (farthest first); a node forwards
 * each packet that is not its own, in the slot after it came, to the child whose
 * subtree holds the destination.
 *
 * Cost under unit slots: exactly ceil((p-1)/d) slots. The t-th block of a subtree of
 * s nodes, for a node at depth h, crosses the edge at depth k in slot t + k - 1: two
 * blocks never share an edge in a slot (they left the root in different slots), and
 * it arrives at the end of slot t + h - 1 < s, since the t blocks before it go to
 * nodes at depth >= h and its h - 1 ancestors are other nodes of the subtree:
 * t + 1 + h - 1 <= s. The last block leaves in slot s - 1, so the subtree is done
 * in exactly s slots, and the largest subtree has ceil((p-1)/d). p - 1 root sends,
 * sum of depths packets in all; b values each (combining when b > 1). All-port only
 * (the root sends d packets a slot), no conflict.
 *
 * Cost under Seidel's a*m + b (circuit routing to neighbours): a node transmits one
 * message and receives one at a time, so the root's p - 1 messages go one after the
 * other whatever the tree, and the balanced tree's advantage is gone. The root sends
 * them all in slot 0, farthest first over the whole tree (depth d, d - 1, .., 1; each
 * subtree's order as above), the transmit port starting each when the one before
 * ends; a node forwards a block when it has it. Every message lasts D(b) =
 * ceil(8a*b + b) slots and a node hears only its father, who sends one at a time, so
 * no port or link is ever shared and everything moves in rounds of D(b): the R-th
 * block, to depth h_R, arrives at the end of round R + h_R - 1, and with depths
 * non-increasing R + h_R <= p - 1 (the blocks deeper than h number sum_{k>h} C(d,k)
 * <= p - 1 - h), with equality for the last one (depth 1): exactly (p - 1) * D(b)
 * slots, the flat scatter's (scatter-linear), and the bound of any scatter that sends
 * the p - 1 blocks as p - 1 messages from one transmit port.
 */
#include <stdio.h>
#include <stdlib.h>

#include "../common/problem.h"
#include "../common/trees.h"

static const hm_param_spec_t scatter_bst_specs[] = {
    HMA_PROB_PARAM_BLOCK,
    HMA_PROB_PARAM_ROOT,
    HMA_PROB_PARAM_END,
};

/* The tree on relative numbers, in one allocation (pb->alg): par, root subtree, the
 * nodes under each node (itself included), and the root's schedule: subtree j's nodes
 * farthest first at sched[start[j] .. start[j+1]). */
typedef struct {
    int most;
    int32_t *par, *sub, *size, *sched, *start, *count;
} bst_t;

static bst_t *bst_build(int d)
{
    size_t p = (size_t)1 << d;
    bst_t *t = malloc(sizeof *t + (4 * p + 2 * (size_t)d + 1) * sizeof(int32_t));
    if (!t)
        return NULL;
    t->par = (int32_t *)(t + 1);
    t->sub = t->par + p;
    t->size = t->sub + p;
    t->sched = t->size + p;
    t->start = t->sched + p;
    t->count = t->start + d + 1;
    t->most = hma_balanced_tree(d, t->par, t->sub, t->count);
    t->start[0] = 0;
    for (int j = 0; j < d; j++)
        t->start[j + 1] = t->start[j] + t->count[j];
    int32_t fill[32];
    for (int j = 0; j < d; j++)
        fill[j] = t->start[j];
    for (size_t x = 0; x < p; x++)
        t->size[x] = 1;
    /* Deepest level first: sizes add up to the fathers, the schedule is farthest first. */
    for (int level = d; level >= 1; level--)
        for (uint32_t x = 1; x < p; x++)
            if (__builtin_popcount(x) == level) {
                t->size[t->par[x]] += t->size[x];
                t->sched[fill[t->sub[x]]++] = (int32_t)x;
            }
    return t;
}

static int scatter_bst_setup(hm_setup_t *s)
{
    hma_prob_t *pb = hma_prob_setup(s, HM_PROBLEM_SCATTER);
    if (pb && s->machine->circuit)
        pb->aux = 1; /* the circuit schedule (root_circuit) */
    if (pb && !(pb->alg = bst_build(pb->d))) {
        hma_prob_free(pb);
        pb = NULL;
        snprintf(s->error, sizeof s->error, "scatter-bst: out of memory for the tree");
    }
    return hma_prob_ready(s, pb);
}

/* The root under circuit routing: every block in slot 0, farthest first (depth d ..
 * 1, each subtree's blocks in the schedule's order); the transmit port serialises them. */
static void root_circuit(hm_node_t *n, const hma_prob_t *pb, const bst_t *t, const int64_t *in)
{
    size_t b = (size_t)pb->block;
    for (int level = pb->d; level >= 1; level--)
        for (int k = 0; k < t->most; k++)
            for (int j = 0; j < pb->d; j++) {
                int dest = k < t->count[j] ? t->sched[t->start[j] + k] : 0;
                if (dest && __builtin_popcount((unsigned)dest) == level &&
                    hma_prob_send(n, pb, j, dest, in + (size_t)(dest ^ pb->root) * b, b) != HM_OK)
                    return;
            }
}

/* The root: slot t, port j, the t-th block of subtree j. */
static void root_main(hm_node_t *n, const hma_prob_t *pb, const bst_t *t)
{
    size_t b = (size_t)pb->block, count;
    const int64_t *in = hm_input(n, &count);
    hma_prob_store(n, in + (size_t)pb->root * b, b);
    if (pb->aux) {
        root_circuit(n, pb, t, in);
        return;
    }
    for (int k = 0; k < t->most; k++) {
        for (int j = 0; j < pb->d; j++) {
            if (k >= t->count[j])
                continue;
            int dest = t->sched[t->start[j] + k];
            if (hma_prob_send(n, pb, j, dest, in + (size_t)(dest ^ pb->root) * b, b) != HM_OK)
                return;
        }
        if (k + 1 < t->most && hm_next_slot(n) != HM_OK)
            return;
    }
}

static void scatter_bst_node(hm_node_t *n, void *state)
{
    const hma_prob_t *pb = state;
    const bst_t *t = pb->alg;
    int r = hm_id(n) ^ hm_root(n);
    if (r == 0) {
        root_main(n, pb, t);
        return;
    }
    int64_t *buf = hma_prob_alloc(n, (size_t)pb->block);
    for (int k = 0; buf && k < t->size[r]; k++) {
        hm_packet_t pk;
        size_t got;
        if (hma_prob_recv(n, buf, (size_t)pb->block, &got, &pk) != HM_OK)
            break;
        hm_show(n, buf, got); /* the block on its way through */
        if (pk.msg == r) {
            hma_prob_store(n, buf, got);
            continue;
        }
        int w = pk.msg; /* the child of r on the way: the ancestor of dest under r */
        while (t->par[w] != r)
            w = t->par[w];
        if (hma_prob_send(n, pb, __builtin_ctz((unsigned)(w ^ r)), pk.msg, buf, got) != HM_OK)
            break;
    }
    free(buf);
}

static void scatter_bst_verify(hm_report_t *r)
{
    const hma_prob_t *pb = r->state;
    if (r->machine->circuit) /* p - 1 messages of one block from one transmit port */
        hma_prob_verify(r, "(p-1)*ceil(8a*block+b)",
                        (pb->p - 1) * hma_prob_msg_slots(r->machine, (size_t)pb->block),
                        pb->block > 1);
    else
        hma_prob_verify(r, "ceil((p-1)/log2(p))", (pb->p - 1 + pb->d - 1) / pb->d, pb->block > 1);
}

const hm_algorithm_t hm_algo_scatter_bst = {
    .name = "scatter-bst",
    .description = "scatter: balanced spanning tree, the root's d links at once, farthest block "
                   "first, ceil((p-1)/d) slots (all-port)",
    .paper = "lecture notes on hypercube spanning trees, Scatter (lower bound); Johnsson-Ho 1989, "
             "section 4 (balanced spanning tree)",
    .topologies = HM_BIT(HM_TOPO_HYPERCUBE),
    .ports = HM_BIT(HM_PORTS_ALL_PORT),
    .default_ports = HM_PORTS_ALL_PORT,
    .specs = scatter_bst_specs,
    .needs = {.min_dim = 1, .pow2_nodes = 1},
    .problem = HM_PROBLEM_SCATTER,
    .setup = scatter_bst_setup,
    .node_main = scatter_bst_node,
    .verify = scatter_bst_verify,
    .teardown = hma_prob_free,
    HMA_PROB_IO,
    .out_size = sizeof(hma_prob_count_t), /* the node's counters (hma_prob_send) */
};
