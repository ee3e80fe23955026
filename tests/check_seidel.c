/*
 * check_seidel.c — circuit routing (SPEC section 5) and Seidel's ST, BST and RH
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
    tcase_set_timeout(mesh, 120);
    suite_add_tcase(s, mesh);

    TCase *any = tcase_create("any-size");
    tcase_add_loop_test(any, test_any_size, 3, 41);
    tcase_set_timeout(any, 120);
    suite_add_tcase(s, any);
    return s;
}
