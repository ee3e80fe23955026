/* SPDX-License-Identifier: MIT */
/*
 * Lab exercise 7 (doc/lab/README.md): reduce (sum, or the max or min that hm_op gives)
 * on an r x c mesh under the all-port model, exercise 4's reduce: the root must store
 * the b results, value i being the reduction of every node's value i, after as many
 * slots as its eccentricity, max(ir, r-1-ir) + max(jr, c-1-jr) for the root (ir, jr),
 * with p - 1 packets.
 *
 * This starter is right but slow: it is exercise 4's starter. The blocks go up the
 * row-first tree one block a packet, each node forwarding one packet a slot to its
 * parent, and the root adds them all at the end. Every node can add what it holds
 * before it sends: combine.
 *
 *     hypemu-lab check 7 ex7-mesh-reduce.c
 */
#include <stdlib.h>
#include <string.h>

#include <hypemu.h>

/* The mesh's number of columns: the farthest neighbour is one row away (r >= 2). A port
 * on the mesh's border leads nowhere (-1). */
/* a op b, for the run's reduction (hm_op: the config's algorithm.op, sum by default). */
static int64_t combine(hm_op_t op, int64_t a, int64_t b)
{
    return op == HM_OP_MAX ? (a > b ? a : b) : op == HM_OP_MIN ? (a < b ? a : b) : a + b;
}

static int columns(const hm_node_t *n)
{
    int c = 1;
    for (int k = 0; k < hm_degree(n); k++) {
        int nb = hm_neighbor(n, k), dist = abs(nb - hm_id(n));
        if (nb >= 0 && dist > c)
            c = dist;
    }
    return c;
}

static int sgn(int v)
{
    return (v > 0) - (v < 0);
}

/* The parent of (i, j) in the row-first tree of the root (ir, jr), -1 for the root, and
 * the number of nodes of its subtree. */
static int parent(int i, int j, int ir, int jr, int c)
{
    if (j != jr)
        return i * c + j + sgn(jr - j);
    return i != ir ? (i + sgn(ir - i)) * c + j : -1;
}

static int subtree(int i, int j, int ir, int jr, int r, int c)
{
    if (j != jr)
        return j < jr ? j + 1 : c - j;
    if (i != ir)
        return (i < ir ? i + 1 : r - i) * c;
    return r * c;
}

/* Send item i (the source, its b values) to the parent. */
static int send_item(hm_node_t *n, int up, const int64_t *item, size_t stride)
{
    hm_packet_t out = {.msg = (int32_t)item[0],
                       .origin = (int32_t)item[0],
                       .data = item,
                       .len = (uint32_t)(stride * sizeof *item)};
    return hm_send(n, hm_port_to(n, up), &out);
}

static void reduce_node(hm_node_t *n, void *state)
{
    (void)state;
    int p = hm_nodes(n), c = columns(n), r = p / c, x = hm_id(n), root = hm_root(n);
    size_t b;
    const int64_t *in = hm_input(n, &b);
    size_t stride = 1 + b; /* an item: the source, its b values */
    int want = subtree(x / c, x % c, root / c, root % c, r, c);
    int up = parent(x / c, x % c, root / c, root % c, c);
    int64_t *items = malloc((size_t)want * stride * sizeof *items);
    if (!items) {
        hm_fail(n, "out of memory");
        return;
    }
    items[0] = x;
    memcpy(items + 1, in, b * sizeof *in);
    int have = 1, sent = 0;
    hm_packet_t pk;
    for (;;) {
        while (have < want && hm_recv(n, &pk) == HM_OK)
            memcpy(items + (size_t)have++ * stride, pk.data, pk.len);
        if (up >= 0 && sent < have && send_item(n, up, items + (size_t)sent++ * stride, stride))
            goto done;
        if (up >= 0 ? sent == want : have == want)
            break;
        if ((sent < have ? hm_next_slot(n) : hm_wait_packet(n, NULL)) != HM_OK)
            goto done;
    }
    if (up < 0) /* the root: combine the p blocks and store the b results */
        for (size_t v = 0; v < b; v++) {
            int64_t sum = items[1 + v];
            for (int i = 1; i < p; i++)
                sum = combine(hm_op(n), sum, items[(size_t)i * stride + 1 + v]);
            hm_store(n, sum);
        }
done:
    free(items);
}

static const hm_algorithm_t lab7 = {
    .name = "lab7-mesh-reduce",
    .description = "lab exercise 7: reduce on an r x c mesh, all-port, in the root's eccentricity",
    .topologies = HM_BIT(HM_TOPO_MESH),
    .ports = HM_BIT(HM_PORTS_ALL_PORT),
    .needs = {.routing = HM_BIT(HM_ROUTING_PACKET)},
    .problem = HM_PROBLEM_REDUCE,
    .node_main = reduce_node,
};
HM_PLUGIN(&lab7);
