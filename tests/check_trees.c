/* SPDX-License-Identifier: MIT */
/*
 * check_trees.c — the hypercube helpers: spanning binomial trees, rotations, Gray
 * codes, and alpha(d), the most leaves of a spanning tree of Q_d, used by the
 * successive broadcasts' lower bound (Desprez-Fraigniaud-Tourancheau, Proposition 2),
 * and the per-port output queues (portq.h).
 */
#include <stdlib.h>

#include "algo/common/trees.h"
#include "algo/hypercube/portq.h"
#include "helpers.h"

START_TEST(test_sbt_is_spanning_tree)
{
    /* Every rotation of every root: each node but the root has exactly one father,
     * the father lists it as a child, and the depth of u is |u xor root|. */
    for (int d = 1; d <= 6; d++) {
        uint32_t p = 1u << d;
        for (uint32_t root = 0; root < p; root++)
            for (int rot = 0; rot < d; rot++) {
                int leaves = 0;
                for (uint32_t u = 0; u < p; u++) {
                    uint64_t ch = hma_sbt_children(d, root, rot, u);
                    leaves += ch == 0;
                    int fp = hma_sbt_parent_port(d, root, rot, u);
                    if (u == root) {
                        ck_assert_int_eq(fp, -1);
                        ck_assert_uint_eq(ch, (UINT64_C(1) << d) - 1);
                        continue;
                    }
                    uint32_t f = u ^ (1u << fp);
                    ck_assert(hma_sbt_children(d, root, rot, f) >> fp & 1);
                    ck_assert_int_eq(__builtin_popcount(f ^ root) + 1,
                                     __builtin_popcount(u ^ root));
                }
                ck_assert_int_eq(leaves, (int)p / 2);
            }
    }
}
END_TEST

START_TEST(test_rotation_leaf_property)
{
    /* Section 3: u has no child in R^j(SBT(x)) iff u_j != x_j. */
    for (int d = 1; d <= 6; d++)
        for (uint32_t x = 0; x < (1u << d); x++)
            for (int j = 0; j < d; j++)
                for (uint32_t u = 0; u < (1u << d); u++) {
                    int leaf = hma_sbt_children(d, x, j, u) == 0;
                    ck_assert_int_eq(leaf, ((u ^ x) >> j & 1) == 1);
                }
}
END_TEST

START_TEST(test_gray_code)
{
    /* BRGC(3) = 000 001 011 010 110 111 101 100 (section 3). */
    static const uint32_t brgc3[] = {0, 1, 3, 2, 6, 7, 5, 4};
    for (uint32_t i = 0; i < 8; i++)
        ck_assert_uint_eq(hma_gray(i), brgc3[i]);
    for (int d = 1; d <= 10; d++)
        for (uint32_t i = 0; i < (1u << d); i++) {
            uint32_t next = hma_gray((i + 1) & ((1u << d) - 1));
            ck_assert_uint_eq(hma_gray(i) ^ next, 1u << hma_gray_step_dim(i, d));
        }
}
END_TEST

START_TEST(test_rotl)
{
    ck_assert_uint_eq(hma_rotl(0x1, 1, 3), 0x2);
    ck_assert_uint_eq(hma_rotl(0x4, 1, 3), 0x1);
    ck_assert_uint_eq(hma_rotr(0x1, 1, 3), 0x4);
    ck_assert_uint_eq(hma_rotl(0x5, 0, 3), 0x5);
}
END_TEST

/* alpha(d) by exhaustive search: a spanning tree with L leaves exists iff Q_d has a
 * connected dominating set of p - L vertices (for p >= 3). */
static int connected(uint32_t set, int d)
{
    uint32_t seen = set & -set, grow = seen;
    while (grow) {
        uint32_t next = 0;
        for (int u = 0; u < (1 << d); u++)
            if (grow >> u & 1)
                for (int i = 0; i < d; i++)
                    next |= 1u << (u ^ (1 << i));
        next &= set & ~seen;
        seen |= next;
        grow = next;
    }
    return seen == set;
}

static int dominating(uint32_t set, int d)
{
    uint32_t cov = set;
    for (int u = 0; u < (1 << d); u++)
        if (set >> u & 1)
            for (int i = 0; i < d; i++)
                cov |= 1u << (u ^ (1 << i));
    return cov == (uint32_t)((1ull << (1 << d)) - 1);
}

static int alpha(int d)
{
    int p = 1 << d;
    if (p <= 2)
        return p;
    for (int size = 1; size <= p; size++)
        for (uint32_t set = 0; set < (1ull << p); set++)
            if (__builtin_popcount(set) == size && connected(set, d) && dominating(set, d))
                return p - size;
    return 0;
}

START_TEST(test_alpha_values)
{
    /* The values successive-broadcast uses for Proposition 2's lower bound. */
    ck_assert_int_eq(alpha(1), 2);
    ck_assert_int_eq(alpha(2), 2);
    ck_assert_int_eq(alpha(3), 4);
    ck_assert_int_eq(alpha(4), 10);
}
END_TEST

/* The i-th queued item of a port, as hma_portq_send reads them (portq.h: a ring of
 * n items from v[head], wrapping at cap); take drops the head as send does. */
static int queued_msg(const hma_portq_t *q, int port, size_t i)
{
    const hma_portq_one_t *o = &q->q[port];
    return o->v[(o->head + i) & (o->cap - 1)].pkt.msg;
}

static void take(hma_portq_t *q, int port)
{
    hma_portq_one_t *o = &q->q[port];
    o->head = (o->head + 1) & (o->cap - 1);
    o->n--;
    q->total--;
}

START_TEST(test_portq_ring_order)
{
    /* Keys order the queue, arrival breaks ties, across the ring's wrap and its
     * doubling while wrapped: 6 pushed and 5 taken leave the head at 5 of 8; 10 more
     * (keys 1, 0, 1, 0...) wrap and then double the ring. */
    hma_portq_t q;
    ck_assert_int_eq(hma_portq_init(&q, 2), HM_OK);
    for (int m = 0; m < 6; m++)
        ck_assert_int_eq(hma_portq_push(&q, 1, &(hm_packet_t){.msg = m, .len = 3}, 0), HM_OK);
    for (int m = 0; m < 5; m++)
        take(&q, 1);
    ck_assert_uint_eq(q.q[1].head, 5);
    for (int m = 10; m < 20; m++)
        ck_assert_int_eq(hma_portq_push(&q, 1, &(hm_packet_t){.msg = m}, m % 2 ? 1 : 0), HM_OK);
    ck_assert_uint_eq(q.q[1].cap, 16);
    ck_assert_uint_eq(hma_portq_size(&q), 11);
    static const int want[] = {5, 10, 12, 14, 16, 18, 11, 13, 15, 17, 19};
    for (size_t i = 0; i < 11; i++)
        ck_assert_int_eq(queued_msg(&q, 1, i), want[i]);
    ck_assert_uint_eq(q.q[1].v[q.q[1].head].pkt.len, 0); /* no payload is kept */
    ck_assert_int_eq(hma_portq_push(&q, 2, &(hm_packet_t){0}, 0), HM_EINVAL);
    ck_assert_uint_eq(q.q[0].n, 0);
    hma_portq_free(&q);
}
END_TEST

Suite *hm_suite_trees(void)
{
    Suite *s = suite_create("trees");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_sbt_is_spanning_tree);
    tcase_add_test(tc, test_rotation_leaf_property);
    tcase_add_test(tc, test_gray_code);
    tcase_add_test(tc, test_rotl);
    tcase_add_test(tc, test_alpha_values);
    tcase_add_test(tc, test_portq_ring_order);
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);
    return s;
}
