/* SPDX-License-Identifier: MIT */
/*
 * Lab exercise 4, a reference solution (doc/lab/README.md): gather on an r x c mesh,
 * all-port, along the row-first tree: a node off the root's column sends towards it
 * along its row, the root's column towards the root. A node waits until it holds the
 * blocks of its whole subtree and sends them in one packet: a node at height h (the
 * longest path down its subtree) sends in slot h, so the root holds every block after
 * its eccentricity max(ir, r-1-ir) + max(jr, c-1-jr) slots (all-port: it receives from
 * its three or four children in one slot), p - 1 packets.
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

static void gather_node(hm_node_t *n, void *state)
{
    (void)state;
    int p = hm_nodes(n), c = columns(n), r = p / c, x = hm_id(n), root = hm_root(n);
    size_t b;
    const int64_t *in = hm_input(n, &b);
    size_t stride = 1 + b; /* an item: the source, its b values */
    int want = subtree(x / c, x % c, root / c, root % c, r, c);
    int64_t *items = malloc((size_t)want * stride * sizeof *items);
    if (!items) {
        hm_fail(n, "out of memory");
        return;
    }
    items[0] = x;
    memcpy(items + 1, in, b * sizeof *in);
    int have = 1;
    hm_packet_t pk;
    while (have < want) { /* the children's subtrees, one packet each */
        if (hm_wait_packet(n, &pk) != HM_OK)
            goto done;
        size_t k = pk.len / (stride * sizeof *items);
        memcpy(items + (size_t)have * stride, pk.data, pk.len);
        have += (int)k;
    }
    int up = parent(x / c, x % c, root / c, root % c, c);
    if (up >= 0) {
        hm_packet_t out = {.msg = x,
                           .origin = x,
                           .data = items,
                           .len = (uint32_t)((size_t)want * stride * sizeof *items)};
        hm_send(n, hm_port_to(n, up), &out);
        goto done;
    }
    int64_t *byx = malloc((size_t)p * b * sizeof *byx); /* the root: store in node order */
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
