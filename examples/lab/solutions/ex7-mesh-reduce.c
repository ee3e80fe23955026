/* SPDX-License-Identifier: MIT */
/*
 * Lab exercise 7, a reference solution (doc/lab/README.md): reduce (sum, max or min:
 * hm_op) on an r x c mesh, all-port, along exercise 4's row-first tree: a node waits
 * until it holds the partial results of its children's subtrees, combines its own block
 * and sends the b results in one packet, which says in .aux how many nodes it covers. A
 * node at height h sends in slot h, so the root holds the results after its
 * eccentricity max(ir, r-1-ir) + max(jr, c-1-jr) slots, p - 1 packets of b values.
 */
#include <stdlib.h>
#include <string.h>

#include <hypemu.h>

/* a op b, for the run's reduction (hm_op: the config's algorithm.op, sum by default). */
static int64_t combine(hm_op_t op, int64_t a, int64_t b)
{
    return op == HM_OP_MAX ? (a > b ? a : b) : op == HM_OP_MIN ? (a < b ? a : b) : a + b;
}

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

static void reduce_node(hm_node_t *n, void *state)
{
    (void)state;
    int p = hm_nodes(n), c = columns(n), r = p / c, x = hm_id(n), root = hm_root(n);
    size_t b;
    const int64_t *in = hm_input(n, &b);
    int want = subtree(x / c, x % c, root / c, root % c, r, c), have = 1;
    int64_t *sum = malloc((b ? b : 1) * sizeof *sum);
    if (!sum) {
        hm_fail(n, "out of memory");
        return;
    }
    memcpy(sum, in, b * sizeof *sum);
    hm_packet_t pk;
    while (have < want) { /* the children's partial sums, one packet each */
        if (hm_wait_packet(n, &pk) != HM_OK)
            goto done;
        const int64_t *v = pk.data;
        for (size_t i = 0; i < b; i++)
            sum[i] = combine(hm_op(n), sum[i], v[i]);
        have += pk.aux;
    }
    int up = parent(x / c, x % c, root / c, root % c, c);
    if (up >= 0) {
        hm_packet_t out = {
            .msg = x, .origin = x, .aux = want, .data = sum, .len = (uint32_t)(b * sizeof *sum)};
        hm_send(n, hm_port_to(n, up), &out);
    } else
        for (size_t i = 0; i < b; i++)
            hm_store(n, sum[i]);
done:
    free(sum);
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
