/* SPDX-License-Identifier: MIT */
/*
 * Lab exercise 5, reference solution (doc/lab/README.md): allreduce (sum, max or min:
 * hm_op) of a long block under circuit routing by recursive halving, then recursive
 * doubling (Rabenseifner; Thakur-Rabenseifner-Gropp 2005, section 4.5).
 *
 * Reduce-scatter: in step k = d-1 .. 0 node x keeps the half of its range on x's side
 * of dimension k, sends the other half to x XOR 2^k and adds the half it receives; its
 * range halves every step and ends with about b/p fully reduced values. Allgather: the
 * same steps backwards, each node sending its range and receiving its partner's, the
 * range doubling every step. Messages of b/2, b/4, ..., b/p values each way: about
 * 2 (d B + 8a b (p - 1)/p) slots against the ring's 2 (p - 1) (8a b/p + B) and
 * recursive doubling's d (8a b + B). When p does not divide b the two halves of a range
 * differ by one value: partners would finish a step one slot apart, the early one
 * would start its next message while its next partner still receives, and that
 * message would wait at a busy receive port (a conflict). So every message of a step
 * is padded to the longest one, ceil(b / 2^i) values in the i-th step.
 */
#include <stdlib.h>
#include <string.h>

#include <hypemu.h>

/* a op b, for the run's reduction (hm_op: the config's algorithm.op, sum by default). */
static int64_t combine(hm_op_t op, int64_t a, int64_t b)
{
    return op == HM_OP_MAX ? (a > b ? a : b) : op == HM_OP_MIN ? (a < b ? a : b) : a + b;
}

/* Send values [lo, hi) on port k in a message of pad values (pad >= hi - lo: every
 * node's message of the step has the same length, so that all finish together), and
 * take the partner's first cnt values into acc + at (add, or copy). HM_OK or an error. */
static int swap(hm_node_t *n, int k, int64_t *acc, size_t lo, size_t at, size_t cnt, size_t pad,
                int add)
{
    hm_packet_t pk = {.msg = k, .data = acc + lo, .len = (uint32_t)(pad * sizeof *acc)};
    int rc = hm_send(n, k, &pk);
    if (rc == HM_OK)
        rc = hm_wait_packet(n, &pk);
    if (rc != HM_OK)
        return rc;
    const int64_t *v = pk.data;
    for (size_t i = 0; i < cnt; i++)
        acc[at + i] = add ? combine(hm_op(n), acc[at + i], v[i]) : v[i];
    return HM_OK;
}

static void allreduce_node(hm_node_t *n, void *state)
{
    (void)state;
    size_t b;
    const int64_t *in = hm_input(n, &b);
    int d = hm_degree(n), x = hm_id(n);
    int64_t *acc = calloc(b + 1, sizeof *acc); /* + 1: a padded message reads one more */
    size_t lo[32], hi[32];                     /* the range before step k */
    if (!acc || d > 31) {
        hm_fail(n, "out of memory");
        free(acc);
        return;
    }
    memcpy(acc, in, b * sizeof *acc);
    size_t l = 0, h = b;
    for (int k = d - 1; k >= 0; k--) { /* reduce-scatter by halving */
        /* The ranges before this step hold floor or ceil of b / 2^(d-1-k) values, their
         * halves at most ceil(b / 2^(d-k)): pad every message to that. */
        size_t mid = l + (h - l) / 2, pad = (b + ((size_t)1 << (d - k)) - 1) >> (d - k);
        int up = (x >> k) & 1; /* keep [mid, h) if set, else [l, mid) */
        lo[k] = l, hi[k] = h;
        if (swap(n, k, acc, up ? l : mid, up ? mid : l, up ? h - mid : mid - l, pad, 1) != HM_OK)
            goto done;
        l = up ? mid : l, h = up ? h : mid;
    }
    for (int k = 0; k < d; k++) { /* allgather by doubling: the same messages backwards */
        size_t pad = (b + ((size_t)1 << (d - k)) - 1) >> (d - k);
        size_t other = (x >> k) & 1 ? lo[k] : h, cnt = hi[k] - lo[k] - (h - l);
        if (swap(n, k, acc, l, other, cnt, pad, 0) != HM_OK)
            goto done;
        l = lo[k], h = hi[k];
    }
    for (size_t i = 0; i < b; i++)
        hm_store(n, acc[i]);
done:
    free(acc);
}

static const hm_algorithm_t lab5 = {
    .name = "lab5-allreduce-long",
    .description = "lab exercise 5: allreduce by recursive halving and doubling",
    .topologies = HM_BIT(HM_TOPO_HYPERCUBE),
    .ports = HM_BIT(HM_PORTS_ONE_PORT_FULL),
    .needs = {.min_dim = 1},
    .problem = HM_PROBLEM_ALLREDUCE,
    .node_main = allreduce_node,
};
HM_PLUGIN(&lab5);
