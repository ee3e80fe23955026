/* SPDX-License-Identifier: MIT */
/*
 * check_seidel.c — circuit routing (doc/seidel.md, "The engine") and Seidel's ST, BST and RH
 * broadcasts against the paper's formulas: equations (1), (2), (7), (8), the RH sums
 * and Table I, from every kind of root, on every size through companions and virtual
 * nodes (sections 4 and 5.3).
 *
 * Costs are in slots with integer a = 2^nu * abar, b and rho and message lengths
 * divisible by 8 * 2^d, so every formula is an integer and must hold exactly.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo/seidel/circuit_plan.h"
#include "helpers.h"

#define ABAR 3
#define B 50
#define RHO 2

static hm_trun_t run_linear(const char *alg, int n, int nu, int64_t m, int root, const char *sizing,
                            const char *contention, const char *extra)
{
    char cfg[1024];
    snprintf(cfg, sizeof cfg,
             "{\"topology\":{\"kind\":\"linear\",\"nodes\":%d},\"contention\":\"%s\","
             "\"ports\":{\"model\":\"one-port-full\",\"routing\":\"circuit\","
             "\"link_capacity\":%d,\"cost\":{\"abar\":%d,\"b\":%d,\"rho\":%d}},"
             "\"algorithm\":{\"name\":\"%s\",\"message_bytes\":%lld,\"root\":%d,"
             "\"sizing\":\"%s\"}%s}",
             n, contention, 1 << nu, ABAR, B, RHO, alg, (long long)m, root, sizing,
             extra ? extra : "");
    return hm_t_run(cfg, NULL);
}

static int lg_floor(int n)
{
    int d = 0;
    while ((2 << d) <= n)
        d++;
    return d;
}

static int lg_ceil(int n)
{
    int d = lg_floor(n);
    return (1 << d) < n ? d + 1 : d;
}

/* m' = m padded to a multiple of the pieces: the m of the formulas (doc/seidel.md). */
static int64_t pad(int64_t m, int64_t pieces)
{
    return (m + pieces - 1) / pieces * pieces;
}

/* Table I, linear rows, nu < d (the algorithms use nu = min(log2 capacity, d - 1));
 * a = capacity * abar. Exact in integers because m is a multiple of 8*2^d. */
static int64_t A = ABAR;

static int64_t linear_st(int d, int nu, int64_t m)
{
    int64_t a = A;
    return 2 * m * a + (d - nu - 2) * m * a / (1 << nu) + (d + nu) * B;
}

static int64_t linear_bst(int d, int nu, int64_t m)
{
    int64_t a = A;
    return 2 * m * a + (d - nu - 3) * m * a / (2 << nu) + (d + nu + 1) * B;
}

static int64_t linear_rh(int d, int nu, int64_t m)
{
    int64_t a = A;
    return 2 * m * a + (d - nu - 2) * m * a / (2 << nu) - m * a / (1 << d) + 2 * d * B + m * RHO;
}

/* The RH sums of section 3.5: the distribution, then
 * sum_{i=0}^{d-1} [m/2^(i+1) max(a, 2^i abar) + b], then the permutation. */
static int64_t linear_rh_sum(int d, int nu, int64_t m)
{
    (void)nu;
    int64_t a = A, t = m * a - m * a / (1 << d) + d * B;
    for (int i = 0; i < d; i++) {
        int64_t r = (int64_t)ABAR << i;
        t += m / (2 << i) * (a > r ? a : r) + B;
    }
    return t + m * RHO;
}

static const int roots_of[] = {0, 1, 5, 13, 47, 63};

/* ---- the circuit engine itself, with small node programs ------------------------ */

typedef struct circ_case_s {
    int sends[4][2]; /* per node: up to two destinations, -1 none */
    int len;
} circ_case_t;

static void circ_node(hm_node_t *n, void *state)
{
    const circ_case_t *c = state;
    static const char bytes[64] = "0123456789abcdef0123456789abcdef0123456789abcdef012345678";
    for (int k = 0; k < 2; k++)
        if (c->sends[hm_id(n)][k] >= 0) {
            hm_packet_t p = {.msg = 10 * hm_id(n) + k, .data = bytes, .len = (uint32_t)c->len};
            ck_assert_int_eq(hm_send_to(n, c->sends[hm_id(n)][k], &p), 0);
        }
    /* Read everything addressed to this node: its count is known from the case. */
    int want = 0;
    for (int x = 0; x < 4; x++)
        for (int k = 0; k < 2; k++)
            want += c->sends[x][k] == hm_id(n);
    for (int i = 0; i < want; i++) {
        hm_packet_t p;
        if (hm_wait_packet(n, &p) != HM_OK)
            return;
        ck_assert_int_eq(p.len, c->len);
        ck_assert(memcmp(p.data, bytes, (size_t)c->len) == 0);
        hm_store(n, p.recv_slot);
    }
}

static const hm_algorithm_t circ_algo = {
    .name = "circuit-test",
    .node_main = circ_node,
};

/* Runs the case on a linear array of 4 nodes with a = cap * abar, abar = 1, b = 5. */
static int circ_run(circ_case_t *c, int cap, hm__contention_t pol, hm__stats_t *st,
                    int64_t *recv_slots)
{
    hm__options_t o = {0};
    o.info.topology = HM_TOPO_LINEAR;
    o.info.nodes = 4;
    o.info.rows = 1;
    o.info.cols = 4;
    o.info.ports = HM_PORTS_ONE_PORT_FULL;
    o.info.link_capacity = cap;
    o.info.circuit = 1;
    o.info.cost_abar = 1;
    o.info.cost_a = cap;
    o.info.cost_b = 5;
    o.mailbox_capacity = 4;
    o.contention = pol;
    o.max_slots = 100000;
    hm__machine_t *m;
    char err[128];
    ck_assert_int_eq(hm__machine_create(&m, &o, &circ_algo, c, err, sizeof err), 0);
    int rc = hm__machine_run(m);
    *st = m->stats;
    for (int x = 0; x < 4; x++)
        for (size_t k = 0; k < 2; k++)
            recv_slots[2 * x + (int)k] = k < m->nodes[x].stores.n ? m->nodes[x].stores.v[k] : -1;
    hm__machine_destroy(m);
    return rc;
}

/* Port contention: nodes 0 and 2 both send 10 bytes to node 1 in slot 0. Each lasts
 * a*m + b = 15 slots; under "queue" node 2's waits for the receive port (slots
 * 15..29), under "strict" the run stops. */
START_TEST(test_circuit_port_contention)
{
    circ_case_t c = {.sends = {{1, -1}, {-1, -1}, {1, -1}, {-1, -1}}, .len = 10};
    hm__stats_t st;
    int64_t rs[8];
    ck_assert_int_eq(circ_run(&c, 1, HM__CONTENTION_QUEUE, &st, rs), 0);
    ck_assert_int_eq(rs[2], 14);
    ck_assert_int_eq(rs[3], 29);
    ck_assert_int_eq(st.last_activity + 1, 30);
    ck_assert_int_eq(st.conflicts, 1);
    ck_assert_int_eq(st.delayed_packets, 1);
    ck_assert_int_eq(st.delay_slots, 15);
    ck_assert_int_eq(circ_run(&c, 1, HM__CONTENTION_STRICT, &st, rs), 1);
}
END_TEST

/* Link contention: 0 -> 2 and 1 -> 3 share link 1->2. With capacity 1 both last
 * 2*a*m + b = 25 slots (and count as conflicts); with capacity 2 (a = 2 abar) they
 * fit: a*m + b = 25 slots too, no conflict; two messages of one sender go one after
 * the other (no conflict). */
START_TEST(test_circuit_link_sharing)
{
    circ_case_t c = {.sends = {{2, 3}, {3, -1}, {-1, -1}, {-1, -1}}, .len = 10};
    hm__stats_t st;
    int64_t rs[8];
    ck_assert_int_eq(circ_run(&c, 1, HM__CONTENTION_QUEUE, &st, rs), 0);
    /* Slot 0: 0->2 and 1->3 start, k = 2: 25 slots. 0->3 waits for node 0's port and
     * for node 3's: starts in slot 25 alone, 15 slots. */
    ck_assert_int_eq(rs[4], 24);
    ck_assert_int_eq(rs[6], 24);
    ck_assert_int_eq(rs[7], 39);
    ck_assert_int_eq(st.conflicts, 2);
    ck_assert_int_eq(st.delayed_packets, 0);
    ck_assert_int_eq(circ_run(&c, 2, HM__CONTENTION_STRICT, &st, rs), 0);
    ck_assert_int_eq(rs[4], 24); /* a = 2: 2*10 + 5 */
    ck_assert_int_eq(st.conflicts, 0);
    ck_assert_int_eq(circ_run(&c, 1, HM__CONTENTION_STRICT, &st, rs), 1);
}
END_TEST

/* Linear arrays, d = 1..6, nu = 0..2 (nu capped at d - 1), every algorithm, a dozen
 * roots: completion = Table I = bound, every node holds the message, ST and BST run
 * under "strict" without a single conflict (sections 4.1-4.3). */
START_TEST(test_linear_table1)
{
    int d = 1 + _i / 3, nu_cfg = _i % 3, n = 1 << d;
    int nu = nu_cfg < d - 1 ? nu_cfg : d - 1;
    int64_t m = 8 * n * 3;
    A = (int64_t)ABAR << nu_cfg;
    for (size_t k = 0; k < sizeof roots_of / sizeof *roots_of; k++) {
        int root = roots_of[k];
        if (root >= n)
            continue;
        hm_trun_t r = run_linear("st-broadcast", n, nu_cfg, m, root, "companions", "strict", NULL);
        ck_assert_msg(r.rc == 0, "st d=%d nu=%d root %d: rc %d %s", d, nu, root, r.rc,
                      r.message ? r.message : "");
        ck_assert_int_eq(hm_t_int(&r, "completion_slots"), linear_st(d, nu, m));
        ck_assert_int_eq(hm_t_bound(&r, "bound"), linear_st(d, nu, m));
        ck_assert_int_eq(hm_t_int(&r, "conflicts"), 0);
        ck_assert_int_eq(hm_t_int(&r, "verified"), 1);
        ck_assert_int_eq(hm_t_int(&r, "nu"), nu);
        hm_t_free(&r);

        r = run_linear("bst-broadcast", n, nu_cfg, m, root, "companions", "strict", NULL);
        ck_assert_msg(r.rc == 0, "bst d=%d nu=%d root %d: rc %d %s", d, nu, root, r.rc,
                      r.message ? r.message : "");
        ck_assert_int_eq(hm_t_int(&r, "completion_slots"), linear_bst(d, nu, m));
        ck_assert_int_eq(hm_t_bound(&r, "bound"), linear_bst(d, nu, m));
        ck_assert_int_eq(hm_t_int(&r, "conflicts"), 0);
        hm_t_free(&r);

        r = run_linear("rh-broadcast", n, nu_cfg, m, root, "companions", "queue", NULL);
        ck_assert_msg(r.rc == 0, "rh d=%d nu=%d root %d: rc %d %s", d, nu, root, r.rc,
                      r.message ? r.message : "");
        ck_assert_int_eq(hm_t_int(&r, "completion_slots"), linear_rh(d, nu, m));
        ck_assert_int_eq(hm_t_int(&r, "completion_slots"), linear_rh_sum(d, nu, m));
        ck_assert_int_eq(hm_t_bound(&r, "bound"), linear_rh(d, nu, m));
        /* Exchange step i puts 2^(d-i) circuits on a link: over capacity for
         * i < d - nu, and then for every one of the 2^d messages of the step. */
        ck_assert_int_eq(hm_t_int(&r, "conflicts"), (int64_t)(d - nu - 1) * n);
        ck_assert_int_eq(hm_t_int(&r, "delayed_packets"), 0);
        hm_t_free(&r);
    }
}
END_TEST

/* Equations (1) and (7), nu = 0: d(ma + b) and (d + 1)(ma/2 + b). */
START_TEST(test_linear_eq1_eq7)
{
    int d = _i, n = 1 << d;
    int64_t m = 8 * n, a = ABAR;
    hm_trun_t r = run_linear("st-broadcast", n, 0, m, 0, "companions", "strict", NULL);
    ck_assert_int_eq(hm_t_int(&r, "completion_slots"), d * (m * a + B));
    ck_assert_int_eq(hm_t_int(&r, "transmissions"), n - 1);
    hm_t_free(&r);
    r = run_linear("bst-broadcast", n, 0, m, 0, "companions", "strict", NULL);
    ck_assert_int_eq(hm_t_int(&r, "completion_slots"), (d + 1) * (m * a / 2 + B));
    hm_t_free(&r);
}
END_TEST

/* Section 3.5: in the first exchange step 2^(d-1) circuits share the middle link
 * 2^(d-1)-1 -> 2^(d-1); the summary names it, "strict" stops there, the timeline
 * shows it. */
START_TEST(test_rh_middle_link)
{
    int d = _i, n = 1 << d;
    int64_t m = 8 * n;
    hm_trun_t r = run_linear("rh-broadcast", n, 0, m, 0, "companions", "queue", NULL);
    json_t *c = json_object_get(r.summary, "circuits");
    ck_assert_ptr_nonnull(c);
    ck_assert_int_eq(json_integer_value(json_object_get(c, "max_link_sharing")), n / 2);
    char link[32];
    snprintf(link, sizeof link, "%d->%d", n / 2 - 1, n / 2);
    ck_assert_str_eq(json_string_value(json_object_get(c, "busiest_link")), link);
    ck_assert_int_eq(json_integer_value(json_object_get(c, "link_contention")), (d - 1) * n);
    ck_assert_int_eq(json_integer_value(json_object_get(c, "port_contention")), 0);
    hm_t_free(&r);

    r = run_linear("rh-broadcast", n, 0, m, 0, "companions", "strict", NULL);
    ck_assert_int_eq(r.rc, 1);
    char want[128];
    snprintf(want, sizeof want, "link contention: link %d->%d carries %d circuits", n / 2 - 1,
             n / 2, n / 2);
    ck_assert_msg(strstr(r.message, want) != NULL, "report: %s", r.message);
    hm_t_free(&r);
}
END_TEST

START_TEST(test_rh_timeline)
{
    char *dir = hm_t_tmpdir();
    char extra[512], path[400];
    snprintf(path, sizeof path, "%s/rh.timeline.txt", dir);
    snprintf(extra, sizeof extra, ",\"output\":{\"timeline\":\"%s\"}", path);
    hm_trun_t r = run_linear("rh-broadcast", 8, 0, 64, 0, "companions", "queue", extra);
    ck_assert_int_eq(r.rc, 0);
    hm_t_free(&r);
    char *tl = hm_t_slurp(path, NULL);
    ck_assert_ptr_nonnull(tl);
    /* 4 circuits 0->4, 1->5, 2->6, 3->7 on link 3->4, each 4*a*m+b = 4*3*8+50 = 146
     * slots long. */
    ck_assert_msg(strstr(tl, "link contention: link 3->4 carries 4 circuits (link_capacity "
                             "1): msg 4 0->4 lasts 4*a*m+b = 146 slots") != NULL,
                  "%s", tl);
    free(tl);
    free(dir);
}
END_TEST

/* Section 5.3 for n = 3..40 that are not powers of two, nu = 0, from the first, the
 * last and the middle node:
 *   ST   virtual nodes ceil(lg n)(ma+b)        companions (floor(lg n)+1)(ma+b)
 *   BST  virtual nodes (ceil(lg n)+1)(ma/2+b)  companions (floor(lg n)+1)(ma/2+b)+ma+b
 *   RH   companions    RH(2^floor(lg n)) + ma + b. */
START_TEST(test_any_size)
{
    int n = _i;
    if ((n & (n - 1)) == 0)
        return;
    int64_t m = 8 * 64, a = ABAR;
    A = ABAR;
    int fl = lg_floor(n), cl = lg_ceil(n);
    int roots[3] = {0, n - 1, n / 2};
    for (int k = 0; k < 3; k++) {
        struct {
            const char *alg, *sizing, *contention;
            int64_t want;
        } cases[] = {
            {"st-broadcast", "virtual-nodes", "strict", cl * (m * a + B)},
            {"st-broadcast", "companions", "strict", (fl + 1) * (m * a + B)},
            {"bst-broadcast", "virtual-nodes", "strict", (cl + 1) * (m * a / 2 + B)},
            {"bst-broadcast", "companions", "strict", (fl + 1) * (m * a / 2 + B) + m * a + B},
            {"rh-broadcast", "companions", "queue", linear_rh(fl, 0, m) + m * a + B},
        };
        for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
            hm_trun_t r = run_linear(cases[c].alg, n, 0, m, roots[k], cases[c].sizing,
                                     cases[c].contention, NULL);
            ck_assert_msg(r.rc == 0, "%s %s n=%d root %d: rc %d %s", cases[c].alg, cases[c].sizing,
                          n, roots[k], r.rc, r.message ? r.message : "");
            ck_assert_msg(hm_t_int(&r, "completion_slots") == cases[c].want,
                          "%s %s n=%d root %d: %lld slots, want %lld", cases[c].alg,
                          cases[c].sizing, n, roots[k], (long long)hm_t_int(&r, "completion_slots"),
                          (long long)cases[c].want);
            ck_assert_int_eq(hm_t_bound(&r, "bound"), cases[c].want);
            ck_assert_int_eq(hm_t_int(&r, "verified"), 1);
            hm_t_free(&r);
        }
    }
}
END_TEST

/* Messages carry real bytes: lengths that do not divide evenly still arrive whole. */
START_TEST(test_odd_lengths)
{
    static const int64_t lens[] = {1, 7, 1000, 4097};
    for (size_t i = 0; i < 4; i++) {
        hm_trun_t r = run_linear("rh-broadcast", 12, 1, lens[i], 5, "companions", "queue", NULL);
        ck_assert_msg(r.rc == 0, "rh m=%lld: %s", (long long)lens[i], r.message ? r.message : "");
        hm_t_free(&r);
        r = run_linear("bst-broadcast", 13, 0, lens[i], 12, "virtual-nodes", "strict", NULL);
        ck_assert_msg(r.rc == 0, "bst m=%lld: %s", (long long)lens[i], r.message ? r.message : "");
        hm_t_free(&r);
    }
}
END_TEST

/* A 64 KiB broadcast with the Delta constants in slots of 0.01 us (a = 8, b = 7500,
 * rho = 1): millions of slots, a few dozen barriers. */
START_TEST(test_time_jumps)
{
    hm_trun_t r = hm_t_run("{\"topology\":{\"kind\":\"linear\",\"nodes\":16},"
                           "\"ports\":{\"cost\":{\"a\":8,\"b\":7500,\"rho\":1}},"
                           "\"clock\":{\"max_slots\":100000000},"
                           "\"algorithm\":{\"name\":\"st-broadcast\","
                           "\"message_bytes\":65536}}",
                           NULL);
    ck_assert_int_eq(r.rc, 0);
    ck_assert_int_eq(hm_t_int(&r, "completion_slots"), 4 * (65536 * 8 + 7500));
    ck_assert_int_le(hm_t_int(&r, "slots_run"), 16);
    hm_t_free(&r);
}
END_TEST

START_TEST(test_config_errors)
{
    /* Packet routing cannot run a circuit algorithm. */
    hm_trun_t r = hm_t_run("{\"topology\":{\"kind\":\"linear\",\"nodes\":8},"
                           "\"ports\":{\"routing\":\"packet\"},"
                           "\"algorithm\":{\"name\":\"st-broadcast\"}}",
                           NULL);
    ck_assert_int_eq(r.rc, 2);
    ck_assert_msg(strstr(r.message, "ports.routing: found \"packet\"") != NULL, "%s", r.message);
    hm_t_free(&r);
    r = hm_t_run("{\"topology\":{\"kind\":\"linear\",\"nodes\":9},"
                 "\"algorithm\":{\"name\":\"rh-broadcast\",\"sizing\":\"virtual-nodes\"}}",
                 NULL);
    ck_assert_int_eq(r.rc, 2);
    ck_assert_msg(strstr(r.message, "algorithm.sizing: found \"virtual-nodes\"") != NULL, "%s",
                  r.message);
    hm_t_free(&r);
    r = hm_t_run("{\"topology\":{\"kind\":\"linear\",\"nodes\":8},"
                 "\"algorithm\":{\"name\":\"st-broadcast\",\"root\":8}}",
                 NULL);
    ck_assert_int_eq(r.rc, 2);
    hm_t_free(&r);
}
END_TEST

/* ---- meshes 2^d1 x 2^d2, d1, d2 = 1..4, nu = 0, 1 ------------------------------ */

static hm_trun_t run_mesh(const char *alg, const char *variant, int d1, int d2, int nu, int64_t m,
                          int root, const char *contention)
{
    char cfg[1024], var[64] = "";
    if (variant)
        snprintf(var, sizeof var, ",\"variant\":\"%s\"", variant);
    snprintf(cfg, sizeof cfg,
             "{\"topology\":{\"kind\":\"mesh\",\"rows\":%d,\"cols\":%d},"
             "\"contention\":\"%s\",\"ports\":{\"link_capacity\":%d,"
             "\"cost\":{\"abar\":%d,\"b\":%d,\"rho\":%d}},"
             "\"algorithm\":{\"name\":\"%s\",\"message_bytes\":%lld,\"root\":%d%s}}",
             1 << d1, 1 << d2, contention, 1 << nu, ABAR, B, RHO, alg, (long long)m, root, var);
    return hm_t_run(cfg, NULL);
}

static void expect(hm_trun_t *r, const char *what, int d1, int d2, int nu, int root, int64_t want,
                   int64_t conflicts)
{
    ck_assert_msg(r->rc == 0, "%s %dx%d nu=%d root %d: rc %d %s", what, d1, d2, nu, root, r->rc,
                  r->message ? r->message : "");
    ck_assert_msg(hm_t_int(r, "completion_slots") == want,
                  "%s %dx%d nu=%d root %d: %lld slots, want %lld", what, d1, d2, nu, root,
                  (long long)hm_t_int(r, "completion_slots"), (long long)want);
    ck_assert_int_eq(hm_t_bound(r, "bound"), want);
    ck_assert_int_eq(hm_t_int(r, "verified"), 1);
    if (conflicts >= 0)
        ck_assert_int_eq(hm_t_int(r, "conflicts"), conflicts);
    hm_t_free(r);
}

/* Table I mesh rows (the "better" ST and BST), the simple variants, the RH sum; from
 * (0,0), the last node and an inner node; ST and BST under "strict": no conflict
 * from any root, which the paper only conjectured (section 4). */
START_TEST(test_mesh_table1)
{
    int d1 = 1 + _i / 8, d2 = 1 + (_i / 2) % 4, nu_cfg = _i % 2;
    int mn = d1 < d2 ? d1 : d2, mx = d1 > d2 ? d1 : d2;
    int nu = nu_cfg < mn - 1 ? nu_cfg : mn - 1;
    int n = 1 << (d1 + d2), q = 1 << nu;
    int64_t m = (int64_t)8 * n * 3, a = (int64_t)ABAR << nu_cfg, ma = m * a;
    int roots[3] = {0, n - 1, ((1 << d1) / 2) * (1 << d2) + (1 << d2) / 2 - 1};

    /* ST better, Table I; BST better, Table I except on 2 x 2 submeshes, where there
     * is no opposite corner and the emulator runs the linear BST of 4 nodes. */
    int64_t st_better = 2 * ma + (mx - nu - 2) * ma / (2 * q * q) + (2 * mx + 2 * nu + 2) * B;
    int64_t bst_better =
        2 * ma + (2 * mx - 2 * nu - 5) * ma / (8 * q * q) + (2 * mx + 2 * nu + 3) * B;
    if (mx - nu == 1)
        bst_better = 2 * (ma - ma / (q * q)) + 4 * nu * B + 3 * (ma / (2 * q * q) + B);
    /* ST simple: the five phases of section 3.2.2, the shorter axis first (equation
     * (4), column first, overstates them by (1-2^-nu)^2 ma); nu = 0: (d1+d2)(ma+b). */
    int64_t st_simple = (ma - ma / q) + nu * B + (mn - nu) * (ma / q + B) +
                        (ma / q - ma / (q * q)) + nu * B + (mx - nu) * (ma / (q * q) + B) +
                        (ma - ma / (q * q)) + 2 * nu * B;
    /* BST simple: equation (8) on the row-major linear array of 2^(d1+d2) nodes. */
    int dl = d1 + d2, nul = nu_cfg < dl - 1 ? nu_cfg : dl - 1;
    int64_t bst_simple = 2 * ma + (dl - nul - 3) * ma / (2 << nul) + (dl + nul + 1) * B;
    /* RH: the sum of section 3.6 with the link capacity 2^nu_cfg itself: step i (from
     * the last) carries m/2^(i+1) bytes over 2^(floor(i/2)-1) circuits a link in the
     * interleaved pairs, 2^(i-min) in the first |d1-d2| steps; it is Table I's closed
     * form (x = min, y = max) whenever nu < min(d1, d2). */
    int64_t rh = ma - ma / n + (d1 + d2) * B + m * RHO;
    for (int i = 0; i < d1 + d2; i++) {
        int64_t k = i < 2 * mn ? (i >= 2 ? 1 << (i / 2 - 1) : 0) : 1 << (i - mn);
        int64_t f = k * ABAR > a ? k * ABAR : a;
        rh += m / (2 << i) * f + B;
    }
    if (nu_cfg < mn)
        ck_assert_int_eq(rh, 2 * ma + (2 * (mx - mn) - 3) * ma / (4 * q << mn) + ma / (8 * q * q) -
                                 ma / n + 2 * (d1 + d2) * B + m * RHO);
    for (int k = 0; k < 3; k++) {
        int root = roots[k];
        if (k == 1 && d1 + d2 > 5)
            continue; /* keep the suite fast: the last node on the smaller meshes */
        hm_trun_t r = run_mesh("st-broadcast", "better", d1, d2, nu_cfg, m, root, "strict");
        expect(&r, "st better", d1, d2, nu, root, st_better, 0);
        r = run_mesh("bst-broadcast", "better", d1, d2, nu_cfg, m, root, "strict");
        expect(&r, "bst better", d1, d2, nu, root, bst_better, 0);
        r = run_mesh("st-broadcast", "simple", d1, d2, nu_cfg, m, root, "strict");
        expect(&r, "st simple", d1, d2, nu, root, st_simple, 0);
        r = run_mesh("bst-broadcast", "simple", d1, d2, nu_cfg, m, root, "strict");
        expect(&r, "bst simple", d1, d2, nu, root, bst_simple, 0);
        r = run_mesh("rh-broadcast", NULL, d1, d2, nu_cfg, m, root, "queue");
        expect(&r, "rh", d1, d2, nu, root, rh, -1);
    }
}
END_TEST

/* Companions on meshes: the broadcast on the 2^floor x 2^floor full nodes, then the
 * 2 x 2 ST to the companions, 2(ma + b) (or ma + b when only one axis has some). */
START_TEST(test_mesh_companions)
{
    int64_t m = 32, ma = m * ABAR; /* b >= ma/2: the 2 x 2 ST is the cheaper */
    /* 6 x 7: full 4 x 4, companions on both axes; the root 40 = (5, 5) is a
     * companion position, so its pair swaps roles. */
    char cfg[512];
    snprintf(cfg, sizeof cfg,
             "{\"topology\":{\"kind\":\"mesh\",\"rows\":6,\"cols\":7},"
             "\"ports\":{\"cost\":{\"abar\":%d,\"b\":%d}},"
             "\"algorithm\":{\"name\":\"st-broadcast\",\"message_bytes\":%lld,\"root\":40}}",
             ABAR, B, (long long)m);
    hm_trun_t r = hm_t_run(cfg, NULL);
    /* Table I on 4 x 4 (max = 2, nu = 0): (2 - 0/2) ma + 6b, then 2(ma + b). */
    ck_assert_int_eq(r.rc, 0);
    ck_assert_int_eq(hm_t_int(&r, "completion_slots"), 2 * ma + 6 * B + 2 * (ma + B));
    ck_assert_int_eq(hm_t_int(&r, "companion_steps"), 2);
    hm_t_free(&r);
    /* With b < ma/2 the 2 x 2 BST, 3(ma/2 + b), is the cheaper way (a = 1, b = 10,
     * m = 1024): 2*1024 + 6*10 + 3*(512 + 10) = 3674, under "strict". */
    r = hm_t_run("{\"topology\":{\"kind\":\"mesh\",\"rows\":6,\"cols\":7},"
                 "\"ports\":{\"cost\":{\"a\":1,\"b\":10}},"
                 "\"algorithm\":{\"name\":\"st-broadcast\",\"message_bytes\":1024,"
                 "\"root\":40}}",
                 NULL);
    ck_assert_int_eq(r.rc, 0);
    ck_assert_int_eq(hm_t_int(&r, "completion_slots"), 3674);
    ck_assert_int_eq(hm_t_bound(&r, "bound"), 3674);
    ck_assert_str_eq(hm_t_str(&r, "companion_broadcast"), "bst 2x2");
    hm_t_free(&r);
}
END_TEST

/* The shipped configs (a = 1, b = 20, rho = 1, m = 256; 16 nodes or 4 x 8), outputs
 * left out: each completes in its formula's time. */
START_TEST(test_configs)
{
    static const struct {
        const char *file;
        int64_t slots;
    } cases[] = {
        {"linear_st", 4 * (256 + 20)},             /* (1) */
        {"linear_bst", 5 * (128 + 20)},            /* (7) */
        {"linear_rh", 752 + 8 * 20 + 256},         /* Table I */
        {"mesh_st", 640 + 8 * 20},                 /* Table I, max = 3 */
        {"mesh_st_simple", 5 * (256 + 20)},        /* (d1+d2)(ma+b) */
        {"mesh_bst", (6 + 11) * 256 / 8 + 9 * 20}, /* (10) */
        {"mesh_bst_simple", 6 * (128 + 20)},       /* (9) */
        {"mesh_rh", 976},                          /* Table I, d1 = 2, d2 = 3 */
        {"mesh_st_column_row", 3724},              /* (3), nu = 1, a = 2, m = 512 */
        {"mesh_bst_column_row", 7 * (128 + 20)},   /* (d1+d2+2)(ma/2+b) */
    };
    static const char *const sets[] = {"output=null", NULL};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/configs/%s.json", HM_SRCDIR, cases[i].file);
        char *text = hm_t_slurp(path, NULL);
        ck_assert_msg(text != NULL, "cannot read %s", path);
        hm_trun_t r = hm_t_run(text, sets);
        free(text);
        ck_assert_msg(r.rc == 0, "%s: rc %d %s", cases[i].file, r.rc, r.message ? r.message : "");
        ck_assert_int_eq(hm_t_int(&r, "completion_slots"), cases[i].slots);
        ck_assert_int_eq(hm_t_bound(&r, "bound"), cases[i].slots);
        hm_t_free(&r);
    }
}
END_TEST

/* ---- the variants of sections 3.2.2 and 3.4.1 ----------------------------------- */

/* "column-row": a full linear broadcast down the root's column, then along every row.
 * ST: equation (3), (4 + (d1+d2-2nu-4)/2^nu) ma + (d1+d2+2nu) b; BST: (8) on each
 * axis, for nu = 0 section 3.4.1's (d1+d2+2)(ma/2 + b). Meshes 2^d1 x 2^d2, d1, d2 =
 * 1..3, nu = 0, 1 (capped at min(d1,d2) - 1), from (0,0) and an inner node, and at a
 * length the pieces do not divide (the formulas at m'), under "strict". */
START_TEST(test_mesh_column_row)
{
    int d1 = 1 + _i / 6, d2 = 1 + (_i / 2) % 3, nu_cfg = _i % 2;
    int mn = d1 < d2 ? d1 : d2, nu = nu_cfg < mn - 1 ? nu_cfg : mn - 1;
    int64_t a = (int64_t)ABAR << nu_cfg, q = 1 << nu;
    static const int64_t lens[] = {8 * 64 * 3, 1001};
    for (int k = 0; k < 2; k++) {
        int root = k == 0 ? 0 : ((1 << d1) / 2) * (1 << d2) + (1 << d2) / 2 - 1;
        int64_t mst = pad(lens[k], q), mbst = pad(lens[k], 2 * q);
        int64_t eq3 = 4 * mst * a + (d1 + d2 - 2 * nu - 4) * mst * a / q + (d1 + d2 + 2 * nu) * B;
        int64_t bst =
            4 * mbst * a + (d1 + d2 - 2 * nu - 6) * mbst * a / (2 * q) + (d1 + d2 + 2 * nu + 2) * B;
        if (nu == 0) /* section 3.4.1 */
            ck_assert_int_eq(bst, (d1 + d2 + 2) * (mbst * a / 2 + B));
        hm_trun_t r =
            run_mesh("st-broadcast", "column-row", d1, d2, nu_cfg, lens[k], root, "strict");
        expect(&r, "st column-row", d1, d2, nu, root, eq3, 0);
        r = run_mesh("bst-broadcast", "column-row", d1, d2, nu_cfg, lens[k], root, "strict");
        expect(&r, "bst column-row", d1, d2, nu, root, bst, 0);
    }
}
END_TEST

/* Equation (4) against the five phases it sums (section 3.2.2), 4 x 8, nu = 1,
 * abar = 1 (a = 2), b = 20, m = 512: the phases add up to
 * (2 + (d1-nu)/2^nu + (d2-nu-2)/4^nu) ma + (d1+d2+2nu) b = 2700, which "simple" takes;
 * equation (4) prints (3 + (d1-nu-2)/2^nu + (d2-nu-1)/4^nu) ma + (d1+d2+2nu) b = 2956,
 * larger by (1 - 2^-nu)^2 ma = 256. Equation (3) (column-row) is 3724: (4) is lower
 * than (3), as the paper says, and so are the phases. */
START_TEST(test_eq4_phases)
{
    int d1 = 2, d2 = 3, nu = 1;
    double m = 512, a = 2, b = 20, q = 2;
    double phases = (1 - 1 / q) * m * a + nu * b + (d1 - nu) * (m * a / q + b) +
                    (1 - 1 / q) * m * a / q + nu * b + (d2 - nu) * (m * a / (q * q) + b) +
                    (1 - 1 / (q * q)) * m * a + 2 * nu * b;
    double closed = (2 + (d1 - nu) / q + (d2 - nu - 2) / (q * q)) * m * a + (d1 + d2 + 2 * nu) * b;
    double eq4 = (3 + (d1 - nu - 2) / q + (d2 - nu - 1) / (q * q)) * m * a + (d1 + d2 + 2 * nu) * b;
    double eq3 = (4 + (d1 + d2 - 2 * nu - 4) / q) * m * a + (d1 + d2 + 2 * nu) * b;
    ck_assert(phases == 2700 && closed == 2700 && eq4 == 2956 && eq3 == 3724);
    ck_assert(eq4 - phases == (1 - 1 / q) * (1 - 1 / q) * m * a);
    static const char *const variants[] = {"simple", "column-row"};
    static const double want[] = {2700, 3724};
    for (int v = 0; v < 2; v++) {
        char cfg[512];
        snprintf(cfg, sizeof cfg,
                 "{\"topology\":{\"kind\":\"mesh\",\"rows\":4,\"cols\":8},"
                 "\"ports\":{\"link_capacity\":2,\"cost\":{\"abar\":1,\"b\":20}},"
                 "\"algorithm\":{\"name\":\"st-broadcast\",\"variant\":\"%s\","
                 "\"message_bytes\":512}}",
                 variants[v]);
        hm_trun_t r = hm_t_run(cfg, NULL);
        ck_assert_msg(r.rc == 0, "%s", r.message ? r.message : "");
        ck_assert_int_eq(hm_t_int(&r, "completion_slots"), (int64_t)want[v]);
        ck_assert_int_eq(hm_t_bound(&r, "bound"), (int64_t)want[v]);
        ck_assert_int_eq(hm_t_int(&r, "conflicts"), 0);
        hm_t_free(&r);
    }
}
END_TEST

/* ---- message lengths the pieces do not divide (doc/seidel.md) ----
 * The paper's formulas assume m divisible by the P pieces the algorithm cuts the
 * message into. For any m the emulator cuts pieces of ceil(m/P) bytes (the last ones
 * shorter) and runs the plan step-synchronously, every step as long as its longest
 * message at the padded length m' = P*ceil(m/P): the cost is the paper's formula with
 * m' in the transmission terms (m itself in the permutation term m*rho), exact for
 * every m >= P/2, under "strict" without a conflict. */

typedef struct seid_s {
    const char *topo; /* JSON of the topology */
    int cap, abar, b, rho;
    const char *alg, *variant, *contention;
} seid_t;

static hm_trun_t seid_run(const seid_t *c, int64_t m, int root)
{
    char cfg[1024], var[64] = "";
    if (c->variant)
        snprintf(var, sizeof var, ",\"variant\":\"%s\"", c->variant);
    snprintf(cfg, sizeof cfg,
             "{\"topology\":%s,\"contention\":\"%s\",\"ports\":{\"link_capacity\":%d,"
             "\"cost\":{\"abar\":%d,\"b\":%d,\"rho\":%d}},\"clock\":{\"max_slots\":1000000000000},"
             "\"algorithm\":{\"name\":\"%s\",\"message_bytes\":%lld,\"root\":%d%s}}",
             c->topo, c->contention, c->cap, c->abar, c->b, c->rho, c->alg, (long long)m, root,
             var);
    return hm_t_run(cfg, NULL);
}

/* Table I, linear rows, at m' (a = 2^nu abar). */
static int64_t t1_linear_st(int d, int nu, int64_t m, int64_t a, int64_t b)
{
    int64_t mp = pad(m, 1 << nu);
    return 2 * mp * a + (d - nu - 2) * mp * a / (1 << nu) + (d + nu) * b;
}

static int64_t t1_linear_bst(int d, int nu, int64_t m, int64_t a, int64_t b)
{
    int64_t mp = pad(m, 2 << nu);
    return 2 * mp * a + (d - nu - 3) * mp * a / (2 << nu) + (d + nu + 1) * b;
}

/* Section 3.5's sum for the linear RH (its Table I row when nu < d), at m'. */
static int64_t sum_linear_rh(int d, int64_t m, int64_t a, int64_t abar, int64_t b, int64_t rho)
{
    int64_t mp = pad(m, 1 << d), t = mp * a - mp * a / (1 << d) + d * b;
    for (int i = 0; i < d; i++) {
        int64_t r = abar << i;
        t += mp / (2 << i) * (a > r ? a : r) + b;
    }
    return t + m * rho;
}

/* Table I, mesh ST and BST ("better"), at m'. */
static int64_t t1_mesh_st(int mx, int nu, int64_t m, int64_t a, int64_t b)
{
    int64_t q = (int64_t)1 << (2 * nu), mp = pad(m, 4 * q);
    return 2 * mp * a + (mx - nu - 2) * mp * a / (2 * q) + (2 * mx + 2 * nu + 2) * b;
}

static int64_t t1_mesh_bst(int mx, int nu, int64_t m, int64_t a, int64_t b)
{
    int64_t q = (int64_t)1 << (2 * nu), mp = pad(m, 8 * q);
    return 2 * mp * a + (2 * mx - 2 * nu - 5) * mp * a / (8 * q) + (2 * mx + 2 * nu + 3) * b;
}

/* Section 3.6's sum for the mesh RH at m': the distribution, then step i (counted
 * from the last) carries m/2^(i+1) bytes over k_i circuits a link, k_i =
 * 2^(floor(i/2)-1) in the interleaved pairs (half a circuit: none shared), 2^(i-min)
 * in the first |d1-d2| steps; and m*rho. *over gets the number of exchange steps
 * with k_i > capacity (each of their n messages is link contention). */
static int64_t sum_mesh_rh(int d1, int d2, int cap, int64_t m, int64_t abar, int64_t b, int64_t rho,
                           int *over)
{
    int mn = d1 < d2 ? d1 : d2, n = 1 << (d1 + d2);
    int64_t a = cap * abar, mp = pad(m, n), t = mp * a - mp * a / n + (d1 + d2) * b + m * rho;
    *over = 0;
    for (int i = 0; i < d1 + d2; i++) {
        int64_t k2 = i < 2 * mn ? (i >= 2 ? (int64_t)1 << (i / 2) : 1) : (int64_t)2 << (i - mn);
        /* k2 = 2 k_i: max(a, k_i abar) = max(2a, k2 abar) / 2, exact since m'/2^(i+1) is
         * even here (m' is a multiple of 2n). */
        int64_t f2 = k2 * abar > 2 * a ? k2 * abar : 2 * a;
        t += mp / (2 << i) * f2 / 2 + b;
        *over += k2 > 2 * cap;
    }
    return t;
}

typedef struct sweep_case_s {
    seid_t c;
    int d1, d2; /* logical sizes (d1 = 0: linear) */
    int nu;     /* the nu the algorithm uses */
} sweep_case_t;

/* The pieces of case k. */
static int64_t sweep_pieces(const sweep_case_t *k)
{
    int q = k->d1 ? 2 * k->nu : k->nu;
    if (strcmp(k->c.alg, "st-broadcast") == 0)
        return (int64_t)(k->d1 ? 4 : 1) << q;
    if (strcmp(k->c.alg, "bst-broadcast") == 0)
        return (int64_t)(k->d1 ? 8 : 2) << q;
    return (int64_t)1 << (k->d1 + k->d2);
}

static int64_t sweep_formula_pad(const sweep_case_t *k, int64_t m, int64_t *conflicts);

/* The formula for case k at m, and the conflicts it must count: at m', and when
 * m < P/2 the last step (an exchange of halves between neighbours) carries m bytes
 * instead of m'/2. */
static int64_t sweep_formula(const sweep_case_t *k, int64_t m, int64_t *conflicts)
{
    int64_t t = sweep_formula_pad(k, m, conflicts), P = sweep_pieces(k);
    if (P >= 2 && 2 * m < P)
        t -= (P / 2 - m) * k->c.cap * k->c.abar;
    return t;
}

static int64_t sweep_formula_pad(const sweep_case_t *k, int64_t m, int64_t *conflicts)
{
    int64_t a = (int64_t)k->c.cap * k->c.abar, b = k->c.b;
    int mx = k->d1 > k->d2 ? k->d1 : k->d2;
    *conflicts = 0;
    if (strcmp(k->c.alg, "st-broadcast") == 0)
        return k->d1 ? t1_mesh_st(mx, k->nu, m, a, b) : t1_linear_st(k->d2, k->nu, m, a, b);
    if (strcmp(k->c.alg, "bst-broadcast") == 0)
        return k->d1 ? t1_mesh_bst(mx, k->nu, m, a, b) : t1_linear_bst(k->d2, k->nu, m, a, b);
    if (k->d1 == 0) {
        int d = k->d2, nu = k->nu;
        *conflicts = (int64_t)(d - nu - 1) * (1 << d); /* section 3.5: steps over capacity */
        return sum_linear_rh(d, m, a, k->c.abar, b, k->c.rho);
    }
    int over;
    int64_t t = sum_mesh_rh(k->d1, k->d2, k->c.cap, m, k->c.abar, b, k->c.rho, &over);
    *conflicts = (int64_t)over << (k->d1 + k->d2);
    return t;
}

static void sweep_one(const sweep_case_t *k, int64_t m, int root)
{
    int64_t conflicts, want = sweep_formula(k, m, &conflicts);
    hm_trun_t r = seid_run(&k->c, m, root);
    ck_assert_msg(r.rc == 0 && hm_t_int(&r, "completion_slots") == want &&
                      hm_t_bound(&r, "bound") == want && hm_t_int(&r, "conflicts") == conflicts &&
                      hm_t_int(&r, "delayed_packets") == 0 && hm_t_int(&r, "verified") == 1,
                  "%s %s %s cap %d m=%lld root %d: rc %d, %lld slots (bound %lld), want %lld "
                  "with %lld conflicts: %s",
                  k->c.alg, k->c.variant ? k->c.variant : "", k->c.topo, k->c.cap, (long long)m,
                  root, r.rc, (long long)(r.summary ? hm_t_int(&r, "completion_slots") : -1),
                  (long long)(r.summary ? hm_t_bound(&r, "bound") : -1), (long long)want,
                  (long long)conflicts, r.message ? r.message : "");
    hm_t_free(&r);
}

#define LIN4 "{\"kind\":\"linear\",\"nodes\":4}"
#define LIN16 "{\"kind\":\"linear\",\"nodes\":16}"
#define MESH2x4 "{\"kind\":\"mesh\",\"rows\":2,\"cols\":4}"
#define MESH4x8 "{\"kind\":\"mesh\",\"rows\":4,\"cols\":8}"

/* Small machines, where P <= 8 pieces: every m in 1..2048, strict (RH: queue on the
 * mesh, with exactly the formula's link contention), root 0 and the last node in
 * turn. */
static const sweep_case_t small_cases[] = {
    {{LIN4, 2, 3, 50, 2, "st-broadcast", NULL, "strict"}, 0, 2, 1},         /* (2), P = 2 */
    {{LIN4, 1, 3, 50, 2, "bst-broadcast", NULL, "strict"}, 0, 2, 0},        /* (7), P = 2 */
    {{LIN4, 2, 3, 50, 2, "bst-broadcast", NULL, "strict"}, 0, 2, 1},        /* (8), P = 4 */
    {{LIN4, 2, 3, 50, 2, "rh-broadcast", NULL, "strict"}, 0, 2, 1},         /* P = 4 */
    {{MESH2x4, 1, 3, 50, 2, "st-broadcast", "better", "strict"}, 1, 2, 0},  /* P = 4 */
    {{MESH2x4, 1, 3, 50, 2, "bst-broadcast", "better", "strict"}, 1, 2, 0}, /* P = 8 */
    {{MESH2x4, 1, 3, 50, 2, "rh-broadcast", NULL, "queue"}, 1, 2, 0},       /* P = 8 */
};

START_TEST(test_any_m_small)
{
    const sweep_case_t *k = &small_cases[_i];
    int n = 1 << (k->d1 + k->d2);
    for (int64_t m = 1; m <= 2048; m++)
        sweep_one(k, m, m % 2 ? n - 1 : 0);
}
END_TEST

/* 16 nodes and a 4 x 8 mesh (P up to 32), m spread over 1..65536: 1..40, the powers
 * of two and their neighbours, and a stride of 997 bytes. */
static const sweep_case_t big_cases[] = {
    {{LIN16, 1, 8, 7500, 1, "st-broadcast", NULL, "strict"}, 0, 4, 0},
    {{LIN16, 4, 2, 7500, 1, "st-broadcast", NULL, "strict"}, 0, 4, 2},
    {{LIN16, 1, 8, 7500, 1, "bst-broadcast", NULL, "strict"}, 0, 4, 0},
    {{LIN16, 2, 4, 7500, 1, "bst-broadcast", NULL, "strict"}, 0, 4, 1},
    {{LIN16, 1, 8, 7500, 1, "rh-broadcast", NULL, "queue"}, 0, 4, 0},
    {{LIN16, 8, 1, 7500, 1, "rh-broadcast", NULL, "strict"}, 0, 4, 3},
    {{MESH4x8, 1, 8, 7500, 1, "st-broadcast", "better", "strict"}, 2, 3, 0},
    {{MESH4x8, 2, 4, 7500, 1, "st-broadcast", "better", "strict"}, 2, 3, 1},
    {{MESH4x8, 1, 8, 7500, 1, "bst-broadcast", "better", "strict"}, 2, 3, 0},
    {{MESH4x8, 1, 8, 7500, 1, "rh-broadcast", NULL, "queue"}, 2, 3, 0},
};

START_TEST(test_any_m_spread)
{
    const sweep_case_t *k = &big_cases[_i];
    int n = 1 << (k->d1 + k->d2), i = 0;
    int roots[3] = {0, n - 1, n / 2 + 1};
    for (int64_t m = 1; m <= 40; m++)
        sweep_one(k, m, roots[i++ % 3]);
    for (int64_t p = 64; p <= 65536; p *= 2)
        for (int64_t m = p - 1; m <= p + 1 && m <= 65536; m++)
            sweep_one(k, m, roots[i++ % 3]);
    for (int64_t m = 2049; m <= 65536; m += 997)
        sweep_one(k, m, roots[i++ % 3]);
}
END_TEST

/* The reproducers of the robustness issue: linear_bst.json with the Delta constants
 * at m = 625 stopped on port contention; BST on 15 nodes from root 3 with m = 1
 * (pieces of 1 and 0 bytes: m < P/2, where the last step carries m bytes, not m'/2)
 * took 105 slots under queue. */
START_TEST(test_any_m_reproducers)
{
    char path[512];
    snprintf(path, sizeof path, "%s/configs/linear_bst.json", HM_SRCDIR);
    char *text = hm_t_slurp(path, NULL);
    ck_assert_ptr_nonnull(text);
    static const char *const sets[] = {"output=null", "ports.cost.a=8", "ports.cost.b=7500",
                                       "algorithm.message_bytes=625", NULL};
    hm_trun_t r = hm_t_run(text, sets);
    free(text);
    ck_assert_msg(r.rc == 0, "%s", r.message ? r.message : "");
    /* (7) at m' = 626: 5 (626*8/2 + 7500). */
    ck_assert_int_eq(hm_t_int(&r, "completion_slots"), 5 * (626 * 8 / 2 + 7500));
    ck_assert_int_eq(hm_t_int(&r, "conflicts"), 0);
    ck_assert_str_eq(hm_t_str(&r, "verification"),
                     "every node holds the 625 bytes of node 0's message, byte for byte");
    hm_t_free(&r);
    /* 15 nodes: 8 full, 7 companions; abar 3, b 50: three BST steps of m'/2 = 1 byte,
     * the last carrying m = 1 byte too, then the companion step of m = 1 byte. */
    r = run_linear("bst-broadcast", 15, 0, 1, 3, "companions", "strict", NULL);
    ck_assert_msg(r.rc == 0, "%s", r.message ? r.message : "");
    ck_assert_int_eq(hm_t_int(&r, "completion_slots"), 4 * (1 * ABAR + B) + (1 * ABAR + B));
    ck_assert_int_eq(hm_t_int(&r, "conflicts"), 0);
    hm_t_free(&r);
}
END_TEST

/* Section 5.3 at lengths the pieces do not divide: virtual nodes and companions, the
 * broadcast on the full nodes at m', the companions' steps at m (the whole message).
 * On a 6 x 7 mesh the companions get the 2 x 2 ST, 2(ma + b): the 2 x 2 BST, which
 * halves the message, is used only when the pieces divide m. */
START_TEST(test_any_m_any_size)
{
    static const int ns[] = {5, 11, 13};
    static const int64_t ms[] = {9, 625, 1001};
    int64_t a = ABAR;
    A = ABAR;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            int n = ns[i], fl = lg_floor(n), cl = lg_ceil(n);
            int64_t m = ms[j], mp = pad(m, 2), ma = m * a;
            struct {
                const char *alg, *sizing, *contention;
                int64_t want;
            } cases[] = {
                {"st-broadcast", "virtual-nodes", "strict", cl * (ma + B)},
                {"st-broadcast", "companions", "strict", (fl + 1) * (ma + B)},
                {"bst-broadcast", "virtual-nodes", "strict", (cl + 1) * (mp * a / 2 + B)},
                {"bst-broadcast", "companions", "strict", (fl + 1) * (mp * a / 2 + B) + ma + B},
                {"rh-broadcast", "companions", "queue",
                 sum_linear_rh(fl, m, a, ABAR, B, RHO) + ma + B},
            };
            for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
                int root = (int)(c + j) % 2 ? n - 1 : 0;
                hm_trun_t r = run_linear(cases[c].alg, n, 0, m, root, cases[c].sizing,
                                         cases[c].contention, NULL);
                ck_assert_msg(r.rc == 0 && hm_t_int(&r, "completion_slots") == cases[c].want &&
                                  hm_t_bound(&r, "bound") == cases[c].want,
                              "%s %s n=%d m=%lld root %d: rc %d, %lld slots, want %lld: %s",
                              cases[c].alg, cases[c].sizing, n, (long long)m, root, r.rc,
                              (long long)(r.summary ? hm_t_int(&r, "completion_slots") : -1),
                              (long long)cases[c].want, r.message ? r.message : "");
                hm_t_free(&r);
            }
        }
    /* 6 x 7, full 4 x 4, root (5, 5): Table I at m' = 1004, then 2(ma + b). */
    hm_trun_t r = hm_t_run("{\"topology\":{\"kind\":\"mesh\",\"rows\":6,\"cols\":7},"
                           "\"ports\":{\"cost\":{\"abar\":3,\"b\":50}},"
                           "\"algorithm\":{\"name\":\"st-broadcast\",\"message_bytes\":1001,"
                           "\"root\":40}}",
                           NULL);
    ck_assert_msg(r.rc == 0, "%s", r.message ? r.message : "");
    ck_assert_int_eq(hm_t_int(&r, "completion_slots"),
                     t1_mesh_st(2, 0, 1001, 3, 50) + 2 * (1001 * 3 + 50));
    ck_assert_int_eq(hm_t_int(&r, "companion_steps"), 2);
    ck_assert_int_eq(hm_t_int(&r, "conflicts"), 0);
    hm_t_free(&r);
}
END_TEST

/* The plan's own checks: slot counts saturate instead of overflowing, and a plan with
 * a node sending or receiving twice in one step is refused as not step-synchronous. */
START_TEST(test_plan_checks)
{
    ck_assert_int_eq(hma_plan_slots(1e300), HMA_PLAN_MAX_SLOTS);
    ck_assert_int_eq(hma_plan_slots(-1e300), -HMA_PLAN_MAX_SLOTS);
    ck_assert_int_eq(hma_plan_slots(0.0 / 0.0), HMA_PLAN_MAX_SLOTS);
    ck_assert_int_eq(hma_plan_slots(2.5), 3);
    ck_assert_int_eq(hma_plan_slots(7.0), 7);
    hm_machine_info_t mi = {.topology = HM_TOPO_LINEAR,
                            .nodes = 4,
                            .rows = 1,
                            .cols = 4,
                            .link_capacity = 1,
                            .circuit = 1,
                            .cost_a = 1,
                            .cost_abar = 1,
                            .cost_b = 5};
    /* 0 -> 1 then 0 -> 2 in step 1: two sends of node 0. */
    hma_plan_t *p = hma_plan_new(4, 4, NULL, 8, 1, 0);
    ck_assert_ptr_nonnull(p);
    hma_plan_send(p, 1, 0, 1, 0, 1, 1);
    hma_plan_send(p, 1, 0, 2, 1, 1, 1);
    hma_plan_finish(p);
    ck_assert_int_eq(hma_plan_time(p, &mi, p->last_step), -3);
    hma_plan_free(p);
    /* 0 -> 2 and 1 -> 2 in step 1: two receives of node 2. */
    p = hma_plan_new(4, 4, NULL, 8, 1, 0);
    hma_plan_send(p, 1, 0, 2, 0, 1, 1);
    hma_plan_send(p, 1, 1, 2, 1, 1, 1);
    hma_plan_finish(p);
    ck_assert_int_eq(hma_plan_time(p, &mi, p->last_step), -3);
    hma_plan_free(p);
    /* A valid one (8 bytes in 2 pieces of 4): 0 -> 2 with piece 1 in step 1, then
     * 0 -> 1 with both pieces and 2 -> 3 with piece 1 in step 2: steps of a*4 + b = 9
     * and a*8 + b = 13 slots. */
    p = hma_plan_new(4, 4, NULL, 8, 1, 0);
    hma_plan_send(p, 1, 0, 2, 1, 1, 1);
    hma_plan_send(p, 2, 0, 1, 0, 2, 1);
    hma_plan_send(p, 2, 2, 3, 1, 1, 1);
    hma_plan_finish(p);
    ck_assert_int_eq(hma_plan_time(p, &mi, p->last_step), 0);
    ck_assert_int_eq(p->start[1], 0);
    ck_assert_int_eq(p->start[2], 9);
    ck_assert_int_eq(p->timed_end, 9 + 13);
    hma_plan_free(p);
    /* Two circuits on link 1->2 in one step, capacity 1: the step lasts 2*a*4 + b. */
    p = hma_plan_new(4, 4, NULL, 8, 1, 0);
    hma_plan_send(p, 1, 0, 2, 0, 1, 1);
    hma_plan_send(p, 1, 1, 3, 1, 1, 1);
    hma_plan_finish(p);
    ck_assert_int_eq(hma_plan_time(p, &mi, p->last_step), 0);
    ck_assert_int_eq(p->timed_end, 2 * 4 + 5);
    hma_plan_free(p);
}
END_TEST

/* Robustness: costs that would overflow a slot count are refused, by the config's
 * ranges (doc/config.md "Config ranges"; seidel.c's own check of 2^53 slots stays behind them). */
START_TEST(test_cost_overflow)
{
    static const char *const keys[] = {"ports.cost.a=1e18", "ports.cost.b=1e308",
                                       "ports.cost.rho=1e308"};
    static const char *const said[] = {
        "ports.cost.a: found 1e18; allowed: a number from 0 to 1048576",
        "ports.cost.b: found 1e308; allowed: a number from 0 to 1099511627776",
        "ports.cost.rho: found 1e308; allowed: a number from 0 to 1048576"};
    char path[512];
    snprintf(path, sizeof path, "%s/configs/linear_rh.json", HM_SRCDIR);
    char *text = hm_t_slurp(path, NULL);
    ck_assert_ptr_nonnull(text);
    for (size_t i = 0; i < 3; i++) {
        const char *sets[] = {"output=null", keys[i], NULL};
        hm_trun_t r = hm_t_run(text, sets);
        ck_assert_msg(r.rc == 2, "%s: rc %d", keys[i], r.rc);
        ck_assert_msg(r.message && strstr(r.message, said[i]) != NULL, "%s",
                      r.message ? r.message : "(none)");
        hm_t_free(&r);
    }
    free(text);
}
END_TEST

/* ---- Figures 16 and 18: the crossovers, Delta constants (Table II in slots of
 * 0.01 us: a = abar = 8, b = 7500, rho = 1, nu = 0) ---------------------------------- */

/* One crossover: over [lo, hi] the emulator's completions must be the formulas'; returns
 * the first m where y beats x (strictly lower), -1 if none, and in *last_loss the last
 * m where it does not. */
static int64_t crossover(const seid_t *x, const seid_t *y, int64_t lo, int64_t hi,
                         int64_t (*fx)(int64_t), int64_t (*fy)(int64_t), int64_t *last_loss)
{
    int64_t first = -1;
    *last_loss = -1;
    for (int64_t m = lo; m <= hi; m++) {
        hm_trun_t rx = seid_run(x, m, 0), ry = seid_run(y, m, 0);
        ck_assert_msg(rx.rc == 0 && ry.rc == 0, "m=%lld: %s %s", (long long)m,
                      rx.message ? rx.message : "", ry.message ? ry.message : "");
        int64_t cx = hm_t_int(&rx, "completion_slots"), cy = hm_t_int(&ry, "completion_slots");
        ck_assert_msg(cx == fx(m) && cy == fy(m), "m=%lld: %s %lld (formula %lld), %s %lld (%lld)",
                      (long long)m, x->alg, (long long)cx, (long long)fx(m), y->alg, (long long)cy,
                      (long long)fy(m));
        if (cy < cx && first < 0)
            first = m;
        if (cy >= cx)
            *last_loss = m;
        hm_t_free(&rx);
        hm_t_free(&ry);
    }
    return first;
}

static int64_t fig16_st(int64_t m)
{
    return 4 * (m * 8 + 7500); /* (1), d = 4 */
}

static int64_t fig16_bst(int64_t m)
{
    return t1_linear_bst(4, 0, m, 8, 7500); /* (7) at m' */
}

/* Figure 16, linear 2^4: BST beats ST when m > 2^(nu+1) b / (a (d - nu - 1)) = 625
 * exactly; the emulator's first winning length is 626 (at 625 both cost 50,000 in the
 * paper; here BST pays (7) at m' = 626: 50,020). */
START_TEST(test_fig16_crossover)
{
    int d = 4, nu = 0;
    int64_t a = 8, b = 7500;
    ck_assert_int_eq(((int64_t)2 << nu) * b % (a * (d - nu - 1)), 0);
    ck_assert_int_eq(((int64_t)2 << nu) * b / (a * (d - nu - 1)), 625);
    seid_t st = {LIN16, 1, 8, 7500, 1, "st-broadcast", NULL, "strict"};
    seid_t bst = {LIN16, 1, 8, 7500, 1, "bst-broadcast", NULL, "strict"};
    int64_t last;
    ck_assert_int_eq(crossover(&st, &bst, 620, 632, fig16_st, fig16_bst, &last), 626);
    ck_assert_int_eq(last, 625);
    /* RH never beats BST on a linear array (section 3.7): a few lengths. */
    seid_t rh = {LIN16, 1, 8, 7500, 1, "rh-broadcast", NULL, "queue"};
    for (int64_t m = 8; m <= 65536; m *= 8) {
        hm_trun_t r1 = seid_run(&bst, m, 0), r2 = seid_run(&rh, m, 0);
        ck_assert_int_lt(hm_t_int(&r1, "completion_slots"), hm_t_int(&r2, "completion_slots"));
        hm_t_free(&r1);
        hm_t_free(&r2);
    }
}
END_TEST

#define MESH16x32 "{\"kind\":\"mesh\",\"rows\":16,\"cols\":32}"

static int64_t fig18_st(int64_t m)
{
    return t1_mesh_st(5, 0, m, 8, 7500);
}

static int64_t fig18_bst(int64_t m)
{
    return t1_mesh_bst(5, 0, m, 8, 7500);
}

static int64_t fig18_rh(int64_t m)
{
    int over;
    return sum_mesh_rh(4, 5, 1, m, 8, 7500, 1, &over);
}

/* Figure 18, mesh 2^4 x 2^5, the "better" ST and BST and the RH. Table I's rows
 * cross where 0.875 m a = b (ST/BST), m = 7500/7 = 1071.4 (the paper's text says
 * "between 512 and 1K", below its own Table I), and RH beats BST from 11,940.3 bytes
 * (the paper: "more than 12K"). The emulator pays the formulas at m' (P = 4, 8 and
 * 512 pieces): BST first wins at 1,069 bytes (m' = 1,072 for both) and for good from
 * 1,077; RH first wins at 12,233 bytes (m' = 12,288), loses again from 12,289
 * (m' = 12,800) and wins for good from 14,385. */
START_TEST(test_fig18_crossover)
{
    /* Table I: ST (2 + (5-2)/2) ma + 12b, BST (2 + 5/8) ma + 13b: 7/8 m a = b. */
    double a = 8, b = 7500, x = b / ((3.5 - 2.625) * a);
    ck_assert(x > 1071 && x < 1072 && x > 1024);
    /* RH (2 + (2-3)/2^6 + 1/8 - 1/2^9) ma + 18b + m rho against BST. */
    double rh = 2 - 1.0 / 64 + 1.0 / 8 - 1.0 / 512, y = 5 * b / ((2.625 - rh) * a - 1);
    ck_assert(y > 11940 && y < 11941);
    seid_t st = {MESH16x32, 1, 8, 7500, 1, "st-broadcast", "better", "strict"};
    seid_t bst = {MESH16x32, 1, 8, 7500, 1, "bst-broadcast", "better", "strict"};
    seid_t rhc = {MESH16x32, 1, 8, 7500, 1, "rh-broadcast", NULL, "queue"};
    int64_t last;
    ck_assert_int_eq(crossover(&st, &bst, 1066, 1079, fig18_st, fig18_bst, &last), 1069);
    ck_assert_int_eq(last, 1076);
    ck_assert_int_eq(crossover(&bst, &rhc, 12231, 12234, fig18_bst, fig18_rh, &last), 12233);
    ck_assert_int_eq(crossover(&bst, &rhc, 12288, 12289, fig18_bst, fig18_rh, &last), 12288);
    ck_assert_int_eq(last, 12289);
    ck_assert_int_eq(crossover(&bst, &rhc, 14383, 14386, fig18_bst, fig18_rh, &last), 14385);
    ck_assert_int_eq(last, 14384);
    /* For good: the formulas (checked against the emulator above) up to 64 KiB. */
    for (int64_t m = 1077; m <= 65536; m++)
        ck_assert_int_lt(fig18_bst(m), fig18_st(m));
    for (int64_t m = 14385; m <= 65536; m++)
        ck_assert_int_lt(fig18_rh(m), fig18_bst(m));
    ck_assert_int_ge(fig18_rh(14384), fig18_bst(14384));
}
END_TEST

Suite *hm_suite_seidel(void)
{
    Suite *s = suite_create("seidel");
    TCase *eng = tcase_create("circuit");
    tcase_add_test(eng, test_circuit_port_contention);
    tcase_add_test(eng, test_circuit_link_sharing);
    tcase_set_timeout(eng, 30);
    suite_add_tcase(s, eng);

    TCase *lin = tcase_create("linear");
    tcase_add_loop_test(lin, test_linear_table1, 0, 18);
    tcase_add_loop_test(lin, test_linear_eq1_eq7, 1, 7);
    tcase_add_loop_test(lin, test_rh_middle_link, 2, 7);
    tcase_add_test(lin, test_rh_timeline);
    tcase_add_test(lin, test_odd_lengths);
    tcase_add_test(lin, test_time_jumps);
    tcase_add_test(lin, test_config_errors);
    tcase_add_test(lin, test_configs);
    tcase_set_timeout(lin, 120);
    suite_add_tcase(s, lin);

    TCase *mesh = tcase_create("mesh");
    tcase_add_loop_test(mesh, test_mesh_table1, 0, 32);
    tcase_add_test(mesh, test_mesh_companions);
    tcase_add_loop_test(mesh, test_mesh_column_row, 0, 18);
    tcase_add_test(mesh, test_eq4_phases);
    tcase_set_timeout(mesh, 120);
    suite_add_tcase(s, mesh);

    TCase *anym = tcase_create("any-m");
    tcase_add_loop_test(anym, test_any_m_small, 0, (int)(sizeof small_cases / sizeof *small_cases));
    tcase_add_loop_test(anym, test_any_m_spread, 0, (int)(sizeof big_cases / sizeof *big_cases));
    tcase_add_test(anym, test_any_m_reproducers);
    tcase_add_test(anym, test_any_m_any_size);
    tcase_add_test(anym, test_cost_overflow);
    tcase_add_test(anym, test_plan_checks);
    tcase_add_test(anym, test_fig16_crossover);
    tcase_add_test(anym, test_fig18_crossover);
    tcase_set_timeout(anym, 120);
    suite_add_tcase(s, anym);

    TCase *any = tcase_create("any-size");
    tcase_add_loop_test(any, test_any_size, 3, 41);
    tcase_set_timeout(any, 120);
    suite_add_tcase(s, any);
    return s;
}
