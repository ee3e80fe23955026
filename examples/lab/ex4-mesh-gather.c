/* SPDX-License-Identifier: MIT */
/*
 * Lab exercise 4 (doc/lab/README.md): gather on an r x c mesh under the all-port model:
 * the root must store every node's block, in node order, after as many slots as its
 * eccentricity, max(ir, r-1-ir) + max(jr, c-1-jr) for the root (ir, jr).
 *
 * This starter is right but slow: the blocks go up the row-first tree (along the rows
 * to the root's column, then along that column) one block a packet, each node
 * forwarding one packet a slot to its parent, so the links next to the root carry as
 * many packets as there are nodes behind them. A packet may carry any number of values
 * (hm_packet_t.data, .len): combine.
 *
 *     hypemu-lab check 4 ex4-mesh-gather.c
 */
#include <stdlib.h>
#include <string.h>

#include <hypemu.h>

/* The mesh's number of columns: the farthest neighbour is one row away (r >= 2). A port
 * on the mesh's border leads nowhere (-1). */
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

static void gather_node(hm_node_t *n, void *state)
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
    if (up < 0) { /* the root: store in node order */
        int64_t *byx = malloc((size_t)p * b * sizeof *byx);
        if (!byx) {
            hm_fail(n, "out of memory");
            goto done;
        }
        for (int i = 0; i < p; i++)
            memcpy(byx + items[(size_t)i * stride] * (int64_t)b, items + (size_t)i * stride + 1,
                   b * sizeof *byx);
        for (size_t i = 0; i < (size_t)p * b; i++)
            hm_store(n, byx[i]);
        free(byx);
    }
done:
    free(items);
}

static const hm_algorithm_t lab4 = {
    .name = "lab4-mesh-gather",
    .description = "lab exercise 4: gather on an r x c mesh, all-port, in the root's eccentricity",
    .topologies = HM_BIT(HM_TOPO_MESH),
    .ports = HM_BIT(HM_PORTS_ALL_PORT),
    .needs = {.routing = HM_BIT(HM_ROUTING_PACKET)},
    .problem = HM_PROBLEM_GATHER,
    .node_main = gather_node,
};
HM_PLUGIN(&lab4);
