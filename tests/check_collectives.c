/* SPDX-License-Identifier: MIT */
/*
 * check_collectives.c — the collective problems and their algorithms
 * (doc/collectives.md): every algorithm on p = 2..1024 under every legal port model,
 * random roots, blocks and seeds: verified, no conflict under strict, completion equal
 * to the slot count of its reference (computed here from the formula), never below
 * the problem's lower bound; and each problem's check catches a wrong store with the
 * exact message.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "algo/common/problem.h"
#include "algo/common/rng.h"
#include "algo/common/trees.h"
#include "helpers.h"
#include "hm_internal.h"

/* sum over s = 1..p-1 of popcount(s): the hops of the XOR-order pairwise exchange
 * under e-cube routing (Bertsekas-Tsitsiklis section 1.3). */
static int64_t pairwise_hops(int p)
{
    int64_t h = 0;
    for (int s = 1; s < p; s++)
        h += __builtin_popcount((unsigned)s);
    return h;
}

enum { F_LOG, F_2LOG, F_P1, F_2P1, F_CHAIN, F_MSBT, F_BST, F_BRUCK, F_PAIRWISE };

/* The exact slot counts of the references (the header of each algorithm's file). */
static int64_t formula(int f, int d, int64_t b)
{
    int64_t p = INT64_C(1) << d;
    switch (f) {
    case F_LOG: /* binomial trees, recursive doubling / halving, dimension exchange */
        return d;
    case F_2LOG: /* van de Geijn, Rabenseifner: two log p phases */
        return 2 * d;
    case F_P1: /* linear / ring: p - 1 steps */
        return p - 1;
    case F_2P1: /* ring reduce-scatter + ring allgather */
        return 2 * (p - 1);
    case F_CHAIN: /* pipelined chain: p - 1 hops, b - 1 more values */
        return p - 1 + b - 1;
    case F_MSBT: /* Johnsson-Ho: ceil(b/d) values down d trees of height d + 1 */
        return d == 1 ? b : (b + d - 1) / d + d;
    case F_BST: /* the lecture notes' scatter bound: p - 1 blocks over d links */
        return (p - 1 + d - 1) / d;
    default:
        return pairwise_hops((int)p);
    }
}

#define ALL4 "all-port one-port-full one-port-half shout"
#define ALL2 "all-port one-port-full"

static const struct {
    const char *name, *problem;
    int rooted, reduces, f, maxd;
    const char *ports;
} algos[] = {
    {"bcast-binomial", "broadcast", 1, 0, F_LOG, 10, ALL4},
    {"bcast-chain", "broadcast", 1, 0, F_CHAIN, 8, ALL2},
    {"bcast-scatter-allgather", "broadcast", 1, 0, F_2LOG, 10, ALL2},
    {"bcast-msbt", "broadcast", 1, 0, F_MSBT, 10, "all-port"},
    {"scatter-binomial", "scatter", 1, 0, F_LOG, 10, ALL4},
    {"scatter-linear", "scatter", 1, 0, F_P1, 7, ALL2},
    {"scatter-bst", "scatter", 1, 0, F_BST, 10, "all-port"},
    {"gather-binomial", "gather", 1, 0, F_LOG, 10, ALL4},
    {"gather-linear", "gather", 1, 0, F_P1, 7, ALL2},
    {"reduce-binomial", "reduce", 1, 1, F_LOG, 10, ALL4},
    {"reduce-rabenseifner", "reduce", 1, 1, F_2LOG, 10, ALL2},
    {"allreduce-recursive-doubling", "allreduce", 0, 1, F_LOG, 10, ALL2},
    {"allreduce-ring", "allreduce", 0, 1, F_2P1, 7, ALL2},
    {"allreduce-rabenseifner", "allreduce", 0, 1, F_2LOG, 10, ALL2},
    {"allgather-recursive-doubling", "allgather", 0, 0, F_LOG, 9, ALL2},
    {"allgather-ring", "allgather", 0, 0, F_P1, 7, ALL2},
    {"allgather-bruck", "allgather", 0, 0, F_P1, 7, ALL2},
    {"reduce-scatter-recursive-halving", "reduce-scatter", 0, 1, F_LOG, 9, ALL2},
    {"reduce-scatter-pairwise", "reduce-scatter", 0, 1, F_PAIRWISE, 6, ALL2},
    {"reduce-scatter-ring", "reduce-scatter", 0, 1, F_P1, 7, ALL2},
    {"alltoall-pairwise", "alltoall", 0, 0, F_PAIRWISE, 6, ALL2},
    {"alltoall-dimension-exchange", "alltoall", 0, 0, F_LOG, 9, ALL2},
    {"alltoall-bruck", "alltoall", 0, 0, F_P1, 6, ALL2},
};
#define NALGOS ((int)(sizeof algos / sizeof algos[0]))

static const char *const ports_names[] = {"all-port", "one-port-full", "one-port-half", "shout"};
static const char *const ops[] = {"sum", "max", "min"};

/* Run one algorithm and check everything a run of it must show. */
static void check_run(int a, int d, const char *ports, int64_t root, int64_t block, int op,
                      uint64_t seed)
{
    char cfg[768], extra[96] = "";
    if (algos[a].rooted)
        snprintf(extra, sizeof extra, ",\"root\":%lld", (long long)root);
    if (algos[a].reduces)
        snprintf(extra + strlen(extra), sizeof extra - strlen(extra), ",\"op\":\"%s\"", ops[op]);
    snprintf(cfg, sizeof cfg,
             "{\"topology\":{\"kind\":\"hypercube\",\"dim\":%d},\"ports\":{\"model\":\"%s\"},"
             "\"contention\":\"strict\",\"seed\":%llu,"
             "\"algorithm\":{\"name\":\"%s\",\"block\":%lld%s}}",
             d, ports, (unsigned long long)seed, algos[a].name, (long long)block, extra);
    hm_trun_t r = hm_t_run(cfg, NULL);
    int64_t want = formula(algos[a].f, d, block);
    ck_assert_msg(r.rc == 0 && r.summary, "%s: rc=%d %s", cfg, r.rc, r.message ? r.message : "");
    ck_assert_msg(hm_t_int(&r, "verified") == 1, "%s: %s", cfg, hm_t_str(&r, "verification"));
    ck_assert_int_eq(hm_t_int(&r, "conflicts"), 0);
    ck_assert_msg(hm_t_int(&r, "completion_slots") == want, "%s: completion %lld, formula %lld",
                  cfg, (long long)hm_t_int(&r, "completion_slots"), (long long)want);
    ck_assert_int_eq(hm_t_bound(&r, "bound"), want);
    int64_t lower = hm_t_bound(&r, "lower_bound");
    ck_assert_msg(lower >= d && lower <= want, "%s: lower bound %lld", cfg, (long long)lower);
    ck_assert_str_eq(hm_t_str(&r, "problem"), algos[a].problem);
    ck_assert_int_eq(hm_t_int(&r, "block"), block);
    /* Every packet counted by the algorithm is one transmission; one that does not
     * combine never puts two values in a packet. */
    ck_assert_int_eq(hm_t_int(&r, "packets"), hm_t_int(&r, "transmissions"));
    if (!hm_t_int(&r, "combining"))
        ck_assert_int_le(hm_t_int(&r, "max_values_per_packet"), 1);
    hm_t_free(&r);
}

/* One algorithm (the loop index) on p = 2 .. 2^maxd: every legal port model for
 * d <= 3, one of them in turn beyond; random root, block, operator and seed. */
START_TEST(test_algorithm_sizes)
{
    int a = _i;
    hma_rng_t rng;
    hma_rng_seed(&rng, 0xC011EC7 + (uint64_t)a);
    for (int d = 1; d <= algos[a].maxd; d++) {
        int legal = 0, turn = 0;
        for (int m = 0; m < 4; m++)
            legal += strstr(algos[a].ports, ports_names[m]) != NULL;
        for (int m = 0; m < 4; m++) {
            if (!strstr(algos[a].ports, ports_names[m]))
                continue;
            if (d > 3 && turn++ != (d + a) % legal)
                continue;
            int64_t p = INT64_C(1) << d;
            int64_t root = (int64_t)hma_rng_below(&rng, (uint64_t)p);
            /* Blocks 1..5 everywhere, larger ones where the run stays small. */
            int64_t block = 1 + (int64_t)hma_rng_below(&rng, d <= 6 ? 40 : 5);
            int op = (int)hma_rng_below(&rng, 3);
            check_run(a, d, ports_names[m], root, block, op, hma_rng_next(&rng) >> 20);
        }
    }
}
END_TEST

/* The volume bounds without combining, and the latency bound with it. */
START_TEST(test_lower_bounds)
{
    static const struct {
        const char *cfg, *expr;
        int64_t value;
    } cases[] = {
        /* b - 1 + log2 p = 6 + 3 under one-port; ceil(7/3) + 3 - 1 under all-port. */
        {"\"dim\":3},\"ports\":{\"model\":\"one-port-full\"},\"algorithm\":{\"name\":"
         "\"bcast-chain\",\"block\":7}",
         "block-1+log2(p)", 9},
        {"\"dim\":3},\"ports\":{\"model\":\"all-port\"},\"algorithm\":{\"name\":"
         "\"bcast-chain\",\"block\":7}",
         "ceil(block/log2(p))+log2(p)-1", 5},
        /* Each node receives p - 1 values, one a slot: the ring is optimal. */
        {"\"dim\":4},\"ports\":{\"model\":\"one-port-full\"},\"algorithm\":{\"name\":"
         "\"allgather-ring\"}",
         "(p-1)*block", 15},
        /* (p/2)^2 values cross the p/2 links of a bisection each way. */
        {"\"dim\":4},\"ports\":{\"model\":\"all-port\"},\"algorithm\":{\"name\":"
         "\"alltoall-pairwise\"}",
         "p*block/2 (bisection)", 8},
        {"\"dim\":4},\"ports\":{\"model\":\"one-port-full\"},\"algorithm\":{\"name\":"
         "\"alltoall-pairwise\"}",
         "(p-1)*block", 15},
        /* Combining: only the latency bound. */
        {"\"dim\":5},\"ports\":{\"model\":\"one-port-full\"},\"algorithm\":{\"name\":"
         "\"allgather-recursive-doubling\"}",
         "log2(p)", 5},
        {"\"dim\":5},\"ports\":{\"model\":\"all-port\"},\"algorithm\":{\"name\":"
         "\"alltoall-dimension-exchange\"}",
         "diameter", 5},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char cfg[512];
        snprintf(cfg, sizeof cfg, "{\"topology\":{\"kind\":\"hypercube\",%s}", cases[i].cfg);
        hm_trun_t r = hm_t_run(cfg, NULL);
        ck_assert_msg(r.rc == 0, "%s: %s", cfg, r.message ? r.message : "");
        json_t *lb = json_object_get(r.summary, "lower_bound");
        ck_assert_str_eq(json_string_value(json_object_get(lb, "expression")), cases[i].expr);
        ck_assert_int_eq(hm_t_bound(&r, "lower_bound"), cases[i].value);
        hm_t_free(&r);
    }
}
END_TEST

/* The summary of one run, key by key: the problem's keys and the counts. */
START_TEST(test_summary_keys)
{
    hm_trun_t r = hm_t_run("{\"topology\":{\"kind\":\"hypercube\",\"dim\":4},"
                           "\"algorithm\":{\"name\":\"allreduce-ring\",\"block\":32,"
                           "\"op\":\"max\"}}",
                           NULL);
    ck_assert_int_eq(r.rc, 0);
    ck_assert_str_eq(hm_t_str(&r, "problem"), "allreduce");
    ck_assert_str_eq(hm_t_str(&r, "op"), "max");
    ck_assert_str_eq(hm_t_str(&r, "ports"), "one-port-full");
    ck_assert_int_eq(hm_t_int(&r, "completion_slots"), 30);
    /* 2(p-1) slots, p packets each, every chunk of 32/16 = 2 values. */
    ck_assert_int_eq(hm_t_int(&r, "packets"), 2 * 15 * 16);
    ck_assert_int_eq(hm_t_int(&r, "values"), 2 * 15 * 16 * 2);
    ck_assert_int_eq(hm_t_int(&r, "max_values_per_packet"), 2);
    ck_assert_int_eq(hm_t_int(&r, "combining"), 1);
    ck_assert_str_eq(hm_t_str(&r, "verification"),
                     "allreduce: all 16 nodes stored the right values in order, in exactly "
                     "2(p-1) slots");
    hm_t_free(&r);
}
END_TEST

/* One algorithm (the loop index): the catalogue gives its problem; under free clocks
 * it either runs right in exactly its formula's slots (d = 1..5, the ports it
 * defaults to) or the config is refused, naming clock.mode and why. */
START_TEST(test_free_clock)
{
    int a = _i;
    const hm_algorithm_t *al = hm_algorithm_find(algos[a].name);
    ck_assert_ptr_nonnull(al);
    ck_assert_str_eq(hm_problem_name(al->problem), algos[a].problem);
    ck_assert_int_eq(hma_prob_rooted(al->problem), algos[a].rooted);
    ck_assert_int_eq(hma_prob_reduces(al->problem), algos[a].reduces);
    int free_ok = !al->needs.clock_modes || (al->needs.clock_modes & HM_BIT(HM_CLOCK_FREE));
    for (int d = 1; d <= (algos[a].maxd < 5 ? algos[a].maxd : 5); d++) {
        int64_t block = d + 1;
        char cfg[512];
        snprintf(cfg, sizeof cfg,
                 "{\"topology\":{\"kind\":\"hypercube\",\"dim\":%d},\"seed\":%d,"
                 "\"clock\":{\"mode\":\"free\"},"
                 "\"algorithm\":{\"name\":\"%s\",\"block\":%lld}}",
                 d, 7 * d, algos[a].name, (long long)block);
        hm_trun_t r = hm_t_run(cfg, NULL);
        if (free_ok) {
            ck_assert_msg(r.rc == 0 && hm_t_int(&r, "verified") == 1, "%s: rc=%d %s", cfg, r.rc,
                          r.message ? r.message : hm_t_str(&r, "verification"));
            ck_assert_int_eq(hm_t_int(&r, "completion_slots"), formula(algos[a].f, d, block));
        } else {
            char want[400];
            snprintf(want, sizeof want,
                     "clock.mode: found \"free\"; allowed for %s: \"slotted\", \"local\" (%s)",
                     algos[a].name, al->needs.clock_why);
            ck_assert_int_eq(r.rc, 2);
            ck_assert_msg(r.message && strstr(r.message, want), "%s: %s", cfg,
                          r.message ? r.message : "(none)");
        }
        hm_t_free(&r);
    }
}
END_TEST

/* The balanced spanning tree (trees.h) on Q_1 .. Q_16: a spanning tree of the cube
 * (every father a neighbour one level up), root subtrees as labelled, none above
 * ceil((p-1)/d) nodes: 1, 2, 3, 4, 7, 11, 19, 32, 57, 103, ..., 4096. */
START_TEST(test_balanced_tree)
{
    static const int32_t most[17] = {0,  1,   2,   3,   4,   7,    11,   19,  32,
                                     57, 103, 187, 342, 631, 1171, 2185, 4096};
    for (int d = 1; d <= 16; d++) {
        int32_t p = 1 << d, count[16], seen[16] = {0};
        int32_t *par = malloc((size_t)p * sizeof *par), *sub = malloc((size_t)p * sizeof *sub);
        ck_assert_ptr_nonnull(par);
        ck_assert_ptr_nonnull(sub);
        ck_assert_int_eq(hma_balanced_tree(d, par, sub, count), most[d]);
        ck_assert_int_eq(most[d], (p - 1 + d - 1) / d);
        ck_assert_int_eq(par[0], -1);
        for (int32_t x = 1; x < p; x++) {
            uint32_t flip = (uint32_t)(x ^ par[x]);
            ck_assert_int_eq(__builtin_popcount(flip), 1);
            ck_assert_int_eq(__builtin_popcount((uint32_t)par[x]),
                             __builtin_popcount((uint32_t)x) - 1);
            ck_assert_int_eq(sub[x], par[x] ? sub[par[x]] : __builtin_ctz(flip));
            seen[sub[x]]++;
        }
        for (int j = 0; j < d; j++) {
            ck_assert_int_eq(seen[j], count[j]);
            ck_assert_int_le(count[j], most[d]);
        }
        free(par);
        free(sub);
    }
}
END_TEST

/* Lecture notes, Scatter: p - 1 messages over the root's d links, no scatter in fewer
 * than ceil((p-1)/d) slots; scatter-bst reaches it on Q_1 .. Q_10 under all-port,
 * strict, one value a packet, and the summary's lower bound is that same number. */
START_TEST(test_scatter_notes_bound)
{
    for (int d = 1; d <= 10; d++) {
        char cfg[512];
        int64_t want = ((INT64_C(1) << d) - 1 + d - 1) / d;
        snprintf(cfg, sizeof cfg,
                 "{\"topology\":{\"kind\":\"hypercube\",\"dim\":%d},\"ports\":{\"model\":"
                 "\"all-port\"},\"contention\":\"strict\",\"seed\":%d,"
                 "\"algorithm\":{\"name\":\"scatter-bst\",\"root\":%d}}",
                 d, d, (5 * d) % (1 << d));
        hm_trun_t r = hm_t_run(cfg, NULL);
        ck_assert_msg(r.rc == 0 && hm_t_int(&r, "verified") == 1, "%s: %s", cfg,
                      r.message ? r.message : hm_t_str(&r, "verification"));
        ck_assert_int_eq(hm_t_int(&r, "conflicts"), 0);
        ck_assert_int_eq(hm_t_int(&r, "completion_slots"), want);
        ck_assert_int_eq(hm_t_bound(&r, "lower_bound"), want);
        /* Each block crosses as many links as its destination's depth, popcount. */
        ck_assert_int_eq(hm_t_int(&r, "transmissions"), d << (d - 1));
        hm_t_free(&r);
    }
}
END_TEST

/* ---- a deliberately wrong store is caught ---------------------------------------- */

/* The test's own oracle: what node x must store at index i (problem.h's table). */
static int64_t oracle(const hma_prob_t *pb, int x, size_t i)
{
    size_t b = (size_t)pb->block;
    int64_t acc = 0;
    int reduce_index = -1;
    switch (pb->kind) {
    case HM_PROBLEM_BROADCAST:
        return pb->in[pb->root][i];
    case HM_PROBLEM_SCATTER:
        return pb->in[pb->root][(size_t)x * b + i];
    case HM_PROBLEM_GATHER:
    case HM_PROBLEM_ALLGATHER:
        return pb->in[i / b][i % b];
    case HM_PROBLEM_ALLTOALL:
        return pb->in[i / b][(size_t)x * b + i % b];
    case HM_PROBLEM_REDUCE_SCATTER:
        reduce_index = (int)((size_t)x * b + i);
        break;
    default:
        reduce_index = (int)i;
        break;
    }
    for (int y = 0; y < pb->p; y++) {
        int64_t v = pb->in[y][reduce_index];
        acc = y == 0                 ? v
              : pb->op == HMA_OP_SUM ? acc + v
              : pb->op == HMA_OP_MAX ? (v > acc ? v : acc)
                                     : (v < acc ? v : acc);
    }
    return acc;
}

enum { WRONG_VALUE, WRONG_MISSING, WRONG_EXTRA };
static int wrong_mode, wrong_node;
static int64_t wrong_expected;

/* Stores what the problem wants, but node wrong_node spoils index 3. */
static void wrong_node_main(hm_node_t *n, void *state)
{
    const hma_prob_t *pb = state;
    int x = hm_id(n);
    size_t want = hma_prob_expected_count(pb, x);
    for (size_t i = 0; i < want; i++) {
        int64_t v = oracle(pb, x, i);
        if (x == wrong_node && i == 3) {
            if (wrong_mode == WRONG_MISSING)
                return;
            if (wrong_mode == WRONG_VALUE)
                v = 1000000;
        }
        hm_store(n, v);
    }
    if (x == wrong_node && wrong_mode == WRONG_EXTRA)
        hm_store(n, 777);
}

static void (*real_verify)(hm_report_t *);
static void wrong_verify(hm_report_t *r)
{
    wrong_expected = oracle(r->state, wrong_node, 3);
    real_verify(r);
}

/* One problem per loop index: its first algorithm with the spoiled node program. */
START_TEST(test_wrong_store_caught)
{
    static const char *const first[] = {
        "bcast-binomial", "scatter-binomial", "gather-binomial",         "reduce-binomial",
        "allreduce-ring", "allgather-ring",   "reduce-scatter-pairwise", "alltoall-pairwise",
    };
    const hm_algorithm_t *base = hm_algorithm_find(first[_i]);
    ck_assert_ptr_nonnull(base);
    hm_algorithm_t algo = *base;
    algo.node_main = wrong_node_main;
    real_verify = base->verify;
    hm_problem_t kind = base->problem;
    algo.verify = wrong_verify;
    /* Node 5 stores p*b = 32 values for gather (it is the root), allgather and
     * alltoall, b = 4 for the others. */
    int many =
        kind == HM_PROBLEM_GATHER || kind == HM_PROBLEM_ALLGATHER || kind == HM_PROBLEM_ALLTOALL;
    int count = many ? 32 : 4;
    wrong_node = 5;
    char cfg[512], want[200];
    snprintf(cfg, sizeof cfg,
             "{\"topology\":{\"kind\":\"hypercube\",\"dim\":3},\"seed\":11,"
             "\"algorithm\":{\"name\":\"%s\",\"block\":4%s}}",
             first[_i], hma_prob_rooted(kind) ? ",\"root\":5" : "");
    for (wrong_mode = WRONG_VALUE; wrong_mode <= WRONG_EXTRA; wrong_mode++) {
        hm_trun_t r = hm_t_run_algo(cfg, &algo);
        ck_assert_int_eq(hm_t_int(&r, "verified"), 0);
        if (wrong_mode == WRONG_VALUE)
            snprintf(want, sizeof want, "node 5: index 3: found 1000000, expected %lld",
                     (long long)wrong_expected);
        else if (wrong_mode == WRONG_MISSING)
            snprintf(want, sizeof want, "node 5: index 3: missing, expected %lld",
                     (long long)wrong_expected);
        else
            snprintf(want, sizeof want, "node 5: index %d: found 777, expected nothing (%d values)",
                     count, count);
        ck_assert_str_eq(hm_t_str(&r, "verification"), want);
        hm_t_free(&r);
    }
}
END_TEST

/* ---- rings and tori ------------------------------------------------------------ */

/* Ring n (rows 0) or torus rows x cols: every port's neighbour and the port back, and
 * every circuit route goes the shortest way round (length = the cyclic distances),
 * link after link, ending at the destination. */
static void check_cycle_topology(int rows, int cols)
{
    hm_machine_info_t in = {
        .topology = rows ? HM_TOPO_TORUS : HM_TOPO_RING, .rows = rows ? rows : 1, .cols = cols};
    in.nodes = in.rows * in.cols;
    hm__links_t l;
    char err[200];
    ck_assert_int_eq(hm__topology_build(&in, &l, err, sizeof err), 0);
    int32_t route[64];
    for (int x = 0; x < in.nodes; x++) {
        int i = x / cols, j = x % cols;
        /* ring: next, prev; torus: west, east, north, south. */
        int want[4] = {(j + 1) % cols + i * cols, (j + cols - 1) % cols + i * cols};
        if (rows) {
            int r = rows;
            int t[4] = {i * cols + (j + cols - 1) % cols, i * cols + (j + 1) % cols,
                        (i + r - 1) % r * cols + j, (i + 1) % r * cols + j};
            memcpy(want, t, sizeof t);
            if (cols == 1)
                want[0] = want[1] = -1;
            if (r == 1)
                want[2] = want[3] = -1;
        } else if (cols == 1) {
            want[0] = want[1] = -1;
        }
        for (int p = 0; p < l.maxdeg; p++) {
            int y = l.nbr[x * l.maxdeg + p];
            ck_assert_int_eq(y, want[p]);
            if (y >= 0)
                ck_assert_int_eq(l.nbr[y * l.maxdeg + l.rport[x * l.maxdeg + p]], x);
        }
        for (int d = 0; d < in.nodes; d++) {
            int dj = ((d % cols - j) % cols + cols) % cols, di = 0;
            dj = dj < cols - dj ? dj : cols - dj;
            if (rows) {
                di = ((d / cols - i) % rows + rows) % rows;
                di = di < rows - di ? di : rows - di;
            }
            size_t k = hm__route(&in, &l, x, d, route);
            ck_assert_uint_eq(k, (size_t)(di + dj));
            ck_assert_uint_le(k, hm__route_max(&in));
            int at = x;
            for (size_t h = 0; h < k; h++) {
                ck_assert_int_eq(route[h] / l.maxdeg, at);
                at = l.nbr[route[h]];
            }
            ck_assert_int_eq(at, d);
        }
    }
    hm__links_free(&l);
}

START_TEST(test_ring_torus_topology)
{
    for (int n = 1; n <= 9; n++)
        check_cycle_topology(0, n);
    static const int rc[][2] = {{1, 5}, {5, 1}, {2, 2}, {2, 3}, {3, 4}, {4, 4}, {5, 3}, {6, 7}};
    for (size_t i = 0; i < sizeof rc / sizeof rc[0]; i++)
        check_cycle_topology(rc[i][0], rc[i][1]);
}
END_TEST

/* The ring and chain algorithms on rings of any size and tori (a snake), every legal
 * port model, random roots, blocks, operators and seeds: verified, no conflict under
 * strict, exactly the formula, never below the lower bound (the diameter at least). */
START_TEST(test_ring_torus_algorithms)
{
    static const struct {
        const char *name;
        int rooted, reduces, f;
    } ring_algos[] = {
        {"allgather-ring", 0, 0, F_P1},      {"allreduce-ring", 0, 1, F_2P1},
        {"reduce-scatter-ring", 0, 1, F_P1}, {"bcast-chain", 1, 0, F_CHAIN},
        {"scatter-linear", 1, 0, F_P1},      {"gather-linear", 1, 0, F_P1},
        {"allgather-bruck", 0, 0, F_BRUCK},  {"alltoall-bruck", 0, 0, F_BRUCK},
    };
    static const int shapes[][2] = {{0, 2},  {0, 3}, {0, 5}, {0, 6}, {0, 11}, {0, 24},
                                    {0, 37}, {2, 3}, {3, 4}, {1, 7}, {5, 2},  {4, 5},
                                    {3, 3},  {3, 5}, {5, 3}, {7, 5}, {5, 9}};
    hma_rng_t rng;
    hma_rng_seed(&rng, 0x121A6);
    for (size_t a = 0; a < sizeof ring_algos / sizeof ring_algos[0]; a++)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            int rows = shapes[s][0], cols = shapes[s][1];
            int64_t p = rows ? rows * cols : cols, b = 1 + (int64_t)hma_rng_below(&rng, 6);
            char topo[96], extra[64] = "", cfg[600];
            if (rows)
                snprintf(topo, sizeof topo, "\"kind\":\"torus\",\"rows\":%d,\"cols\":%d", rows,
                         cols);
            else
                snprintf(topo, sizeof topo, "\"kind\":\"ring\",\"nodes\":%d", cols);
            if (ring_algos[a].rooted)
                snprintf(extra, sizeof extra, ",\"root\":%d",
                         (int)hma_rng_below(&rng, (uint64_t)p));
            if (ring_algos[a].reduces)
                snprintf(extra, sizeof extra, ",\"op\":\"%s\"", ops[hma_rng_below(&rng, 3)]);
            snprintf(cfg, sizeof cfg,
                     "{\"topology\":{%s},\"ports\":{\"model\":\"%s\"},\"contention\":"
                     "\"strict\",\"seed\":%d,\"algorithm\":{\"name\":\"%s\",\"block\":%lld%s}}",
                     topo, s % 2 ? "all-port" : "one-port-full", (int)s, ring_algos[a].name,
                     (long long)b, extra);
            hm_trun_t r = hm_t_run(cfg, NULL);
            int64_t full = 1; /* Bruck: 2^k hops in step k, k < ceil(log2 p) */
            while (full < p)
                full *= 2;
            int64_t want = ring_algos[a].f == F_P1      ? p - 1
                           : ring_algos[a].f == F_2P1   ? 2 * (p - 1)
                           : ring_algos[a].f == F_BRUCK ? full - 1
                                                        : p - 1 + b - 1;
            int64_t diam = rows ? rows / 2 + cols / 2 : p / 2;
            ck_assert_msg(r.rc == 0 && hm_t_int(&r, "verified") == 1, "%s: rc=%d %s", cfg, r.rc,
                          r.message ? r.message : hm_t_str(&r, "verification"));
            ck_assert_int_eq(hm_t_int(&r, "conflicts"), 0);
            ck_assert_int_eq(hm_t_int(&r, "completion_slots"), want);
            ck_assert_int_eq(hm_t_bound(&r, "bound"), want);
            int64_t lower = hm_t_bound(&r, "lower_bound");
            ck_assert_msg(lower >= diam && lower <= want, "%s: lower %lld", cfg, (long long)lower);
            hm_t_free(&r);
        }
}
END_TEST

/* The lower bounds on a ring: the diameter, ceil(log2 p) under one-port, and the
 * reception bound (p-1)*b, (p-1)*b/2 under all-port (two links). */
START_TEST(test_ring_lower_bounds)
{
    static const struct {
        const char *cfg, *expr;
        int64_t value;
    } cases[] = {
        {"\"nodes\":9},\"ports\":{\"model\":\"all-port\"},\"algorithm\":{\"name\":"
         "\"allreduce-ring\",\"block\":20}",
         "diameter", 4},
        {"\"nodes\":5},\"ports\":{\"model\":\"one-port-full\"},\"algorithm\":{\"name\":"
         "\"allreduce-ring\",\"block\":20}",
         "ceil(log2(p))", 3},
        {"\"nodes\":9},\"ports\":{\"model\":\"all-port\"},\"algorithm\":{\"name\":"
         "\"bcast-chain\",\"block\":20}",
         "ceil(block/degree)+diameter-1", 13},
        {"\"nodes\":9},\"ports\":{\"model\":\"all-port\"},\"algorithm\":{\"name\":"
         "\"allgather-ring\"}",
         "diameter", 4},
        {"\"nodes\":11},\"ports\":{\"model\":\"all-port\"},\"algorithm\":{\"name\":"
         "\"gather-linear\"}",
         "diameter", 5},
        {"\"nodes\":11},\"ports\":{\"model\":\"one-port-full\"},\"algorithm\":{\"name\":"
         "\"gather-linear\"}",
         "(p-1)*block", 10},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char cfg[512];
        snprintf(cfg, sizeof cfg, "{\"topology\":{\"kind\":\"ring\",%s}", cases[i].cfg);
        hm_trun_t r = hm_t_run(cfg, NULL);
        ck_assert_msg(r.rc == 0, "%s: %s", cfg, r.message ? r.message : "");
        json_t *lb = json_object_get(r.summary, "lower_bound");
        ck_assert_str_eq(json_string_value(json_object_get(lb, "expression")), cases[i].expr);
        ck_assert_int_eq(hm_t_bound(&r, "lower_bound"), cases[i].value);
        hm_t_free(&r);
    }
    /* A torus with both sides odd has a cycle over its wrap-around links: the ring
     * allreduce on 3 x 5 in 2(p-1) = 28 slots; one value a packet (block 15 = p), so
     * the lower bound is the gossip's ceil(2(p-1)*15/(p*degree)) = ceil(420/60) = 7,
     * above the pipe's ceil(15/4) + diameter (1 + 2) - 1 = 6. */
    hm_trun_t r = hm_t_run("{\"topology\":{\"kind\":\"torus\",\"rows\":3,\"cols\":5},"
                           "\"ports\":{\"model\":\"all-port\"},\"contention\":\"strict\","
                           "\"algorithm\":{\"name\":\"allreduce-ring\",\"block\":15}}",
                           NULL);
    ck_assert_int_eq(r.rc, 0);
    ck_assert_int_eq(hm_t_int(&r, "verified"), 1);
    ck_assert_int_eq(hm_t_int(&r, "conflicts"), 0);
    ck_assert_int_eq(hm_t_int(&r, "completion_slots"), 28);
    ck_assert_int_eq(hm_t_bound(&r, "lower_bound"), 7);
    ck_assert_str_eq(
        json_string_value(json_object_get(json_object_get(r.summary, "lower_bound"), "expression")),
        "ceil(2*(p-1)*block/(p*degree))");
    hm_t_free(&r);
    /* Hypercube-only algorithms are refused on a ring by the loader. */
    r = hm_t_run("{\"topology\":{\"kind\":\"ring\",\"nodes\":8},"
                 "\"algorithm\":{\"name\":\"bcast-binomial\"}}",
                 NULL);
    ck_assert_int_eq(r.rc, 2);
    ck_assert_msg(r.message && strstr(r.message, "topology.kind: found \"ring\"; allowed for "
                                                 "bcast-binomial: hypercube"),
                  "%s", r.message ? r.message : "(none)");
    hm_t_free(&r);
}
END_TEST

/* Under circuit routing to neighbours (Seidel's a*m + b): D(v) = ceil(8A*v + B), the
 * slots of one message of v values (a = 1, b = 10: binomial on Q_3 with b = 1 value is
 * 3 * 18 = 54). */
static int64_t circuit_dur(double A, double B, int64_t v)
{
    return (int64_t)ceil(A * 8.0 * (double)v + B - 1e-9);
}

/* sum over i < d of D(v*2^i). */
static int64_t circuit_doubling(double A, double B, int64_t v, int d)
{
    int64_t t = 0;
    for (int i = 0; i < d; i++)
        t += circuit_dur(A, B, v << i);
    return t;
}

/* One run of cfg: verified, 0 conflicts, completion and the algorithm's bound exactly
 * want, the problem's lower bound not above it. */
static void check_exact(const char *cfg, int64_t want)
{
    hm_trun_t r = hm_t_run(cfg, NULL);
    ck_assert_msg(r.rc == 0 && hm_t_int(&r, "verified") == 1, "%s: rc=%d %s", cfg, r.rc,
                  r.message ? r.message : hm_t_str(&r, "verification"));
    ck_assert_int_eq(hm_t_int(&r, "conflicts"), 0);
    ck_assert_msg(hm_t_int(&r, "completion_slots") == want, "%s: %lld, want %lld", cfg,
                  (long long)hm_t_int(&r, "completion_slots"), (long long)want);
    ck_assert_int_eq(hm_t_bound(&r, "bound"), want);
    ck_assert_int_le(hm_t_bound(&r, "lower_bound"), want);
    hm_t_free(&r);
}

/* The algorithms that run under a*m + b, and the blocks they take there: a multiple of
 * p where the block is cut into p chunks (chunks = 1: van de Geijn's broadcast, chunks =
 * 2: Rabenseifner's; all three take any block, test_circuit_uneven_chunks), else 2d + 1
 * values; all under one-port-full but the two all-port trees (allport = 1). */
static const struct {
    const char *name;
    int chunks, allport;
} circuit_algos[] = {
    {"bcast-binomial", 0, 0},
    {"bcast-scatter-allgather", 1, 0},
    {"allreduce-recursive-doubling", 0, 0},
    {"allreduce-ring", 0, 0},
    {"reduce-binomial", 0, 0},
    {"scatter-binomial", 0, 0},
    {"gather-binomial", 0, 0},
    {"allgather-recursive-doubling", 0, 0},
    {"allgather-ring", 0, 0},
    {"reduce-scatter-recursive-halving", 0, 0},
    {"alltoall-dimension-exchange", 0, 0},
    {"bcast-chain", 0, 0},
    {"allreduce-rabenseifner", 2, 0},
    {"reduce-rabenseifner", 2, 0},
    {"scatter-linear", 0, 0},
    {"gather-linear", 0, 0},
    {"reduce-scatter-ring", 0, 0},
    {"alltoall-pairwise", 0, 0},
    {"reduce-scatter-pairwise", 0, 0},
    {"allgather-bruck", 0, 0},
    {"alltoall-bruck", 0, 0},
    {"bcast-msbt", 0, 1},
    {"scatter-bst", 0, 1},
};

/* The formula of algorithm a (circuit_algos) on Q_d with block b, by hand: the
 * headers' and doc/collectives.md's "Message length" table. */
static int64_t circuit_want(int a, int d, int64_t b, double A, double B)
{
    int64_t p = INT64_C(1) << d;
    switch (a) {
    case 0: /* bcast-binomial: log2 p * D(b) */
    case 2: /* allreduce-recursive-doubling */
    case 4: /* reduce-binomial */
        return d * circuit_dur(A, B, b);
    case 3: /* allreduce-ring: 2(p-1) * D(ceil(b/p)) */
        return 2 * (p - 1) * circuit_dur(A, B, (b + p - 1) / p);
    case 8:  /* allgather-ring: (p-1) * D(b) */
    case 14: /* scatter-linear */
    case 15: /* gather-linear */
    case 16: /* reduce-scatter-ring */
        return (p - 1) * circuit_dur(A, B, b);
    case 10: /* alltoall-dimension-exchange: log2 p * D(b*p/2) */
        return d * circuit_dur(A, B, b * p / 2);
    case 17: /* alltoall-pairwise: (p/2) log2 p * D(b) */
    case 18: /* reduce-scatter-pairwise */
        return p / 2 * d * circuit_dur(A, B, b);
    case 19: { /* allgather-bruck on Q_d: step k is 2^k hops of 2^k blocks */
        int64_t t = 0;
        for (int k = 0; k < d; k++)
            t += (INT64_C(1) << k) * circuit_dur(A, B, b << k);
        return t;
    }
    case 20: /* alltoall-bruck on Q_d: p - 1 hops in all, each of p/2 blocks */
        return (p - 1) * circuit_dur(A, B, b * p / 2);
    case 21: /* bcast-msbt: packet slot t = d rounds of D(1), round t*d + i dimension i */
        return (d == 1 ? b : b + d * d) * circuit_dur(A, B, 1);
    case 22: /* scatter-bst: p - 1 messages from the root's one transmit port */
        return (p - 1) * circuit_dur(A, B, b);
    case 11: /* bcast-chain: ((p-1) + (b-1)) * D(1) */
        return (p - 1 + b - 1) * circuit_dur(A, B, 1);
    case 1:  /* bcast-scatter-allgather: 2 sum_i D(b*2^i/p) */
    case 12: /* allreduce-rabenseifner */
    case 13: /* reduce-rabenseifner */
        return 2 * circuit_doubling(A, B, b / p, d);
    default: /* scatter, gather, allgather-rd, reduce-scatter-rh: sum_i D(b*2^i) */
        return circuit_doubling(A, B, b, d);
    }
}

/* Every algorithm of circuit_algos (twenty-three) on Q_1..Q_5 with two cost pairs, strict:
 * verified, 0 conflicts, completion exactly its formula. */
START_TEST(test_circuit_cost)
{
    static const double cost[][2] = {{1, 10}, {0.3, 7}};
    const int na = (int)(sizeof circuit_algos / sizeof circuit_algos[0]);
    for (int d = 1; d <= 5; d++)
        for (int a = 0; a < na; a++)
            for (int c = 0; c < 2; c++) {
                int64_t p = INT64_C(1) << d, block = circuit_algos[a].chunks ? 3 * p : 2 * d + 1;
                char cfg[512];
                snprintf(cfg, sizeof cfg,
                         "{\"topology\":{\"kind\":\"hypercube\",\"dim\":%d},\"ports\":{"
                         "\"model\":\"%s\",\"routing\":\"circuit\",\"cost\":{"
                         "\"a\":%g,\"b\":%g}},\"contention\":\"strict\",\"seed\":%d,"
                         "\"algorithm\":{\"name\":\"%s\",\"block\":%lld}}",
                         d, circuit_algos[a].allport ? "all-port" : "one-port-full", cost[c][0],
                         cost[c][1], d + c, circuit_algos[a].name, (long long)block);
                hm_trun_t r = hm_t_run(cfg, NULL);
                ck_assert_msg(r.rc == 0 && hm_t_int(&r, "verified") == 1, "%s: %s", cfg,
                              r.message ? r.message : hm_t_str(&r, "verification"));
                ck_assert_int_eq(hm_t_int(&r, "conflicts"), 0);
                ck_assert_int_eq(hm_t_int(&r, "completion_slots"),
                                 circuit_want(a, d, block, cost[c][0], cost[c][1]));
                /* The problem's bound under a*m + b (test_circuit_lower_bounds). */
                ck_assert_int_le(hm_t_bound(&r, "lower_bound"), hm_t_int(&r, "completion_slots"));
                hm_t_free(&r);
            }
}
END_TEST

/* Under circuit routing on a ring of 5 and a 3 x 4 torus (block 3, a = 1, b = 10,
 * D = 34, D(1) = 18): allgather-ring, reduce-scatter-ring, scatter-linear and
 * gather-linear (p-1) * D(3) = 136 and 374, bcast-chain (p - 1 + 2) * D(1) = 108
 * and 234; on the ring of 5, Bruck's three steps of 1, 2, 4 hops: allgather-bruck
 * with 1, 2, 1 blocks, D(3) + 2 D(6) + 4 D(3) = 286, alltoall-bruck with 2, 2, 1
 * blocks, D(6) + 2 D(6) + 4 D(3) = 310; verified, 0 conflicts. */
START_TEST(test_circuit_cost_ring)
{
    static const struct {
        const char *topo, *alg;
        int64_t want;
    } cases[] = {
        {"\"kind\":\"ring\",\"nodes\":5", "allgather-ring", 136},
        {"\"kind\":\"torus\",\"rows\":3,\"cols\":4", "allgather-ring", 374},
        {"\"kind\":\"ring\",\"nodes\":5", "bcast-chain", 108},
        {"\"kind\":\"torus\",\"rows\":3,\"cols\":4", "bcast-chain", 234},
        {"\"kind\":\"ring\",\"nodes\":5", "reduce-scatter-ring", 136},
        {"\"kind\":\"torus\",\"rows\":3,\"cols\":4", "reduce-scatter-ring", 374},
        {"\"kind\":\"ring\",\"nodes\":5", "scatter-linear", 136},
        {"\"kind\":\"torus\",\"rows\":3,\"cols\":4", "gather-linear", 374},
        {"\"kind\":\"ring\",\"nodes\":5", "allgather-bruck", 286},
        {"\"kind\":\"ring\",\"nodes\":5", "alltoall-bruck", 310},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char cfg[512];
        snprintf(cfg, sizeof cfg,
                 "{\"topology\":{%s},\"ports\":{\"model\":\"one-port-full\",\"routing\":"
                 "\"circuit\",\"cost\":{\"a\":1,\"b\":10}},\"contention\":\"strict\","
                 "\"algorithm\":{\"name\":\"%s\",\"block\":3}}",
                 cases[i].topo, cases[i].alg);
        hm_trun_t r = hm_t_run(cfg, NULL);
        ck_assert_msg(r.rc == 0 && hm_t_int(&r, "verified") == 1, "%s: %s", cfg,
                      r.message ? r.message : hm_t_str(&r, "verification"));
        ck_assert_int_eq(hm_t_int(&r, "conflicts"), 0);
        ck_assert_int_eq(hm_t_int(&r, "completion_slots"), cases[i].want);
        ck_assert_int_le(hm_t_bound(&r, "lower_bound"), cases[i].want);
        hm_t_free(&r);
    }
}
END_TEST

/* The problems' lower bounds under circuit routing (a = 1, b = 10: D(v) = 8v + 10):
 * ceil(log2 p) * D(1) (latency) or D(V) (volume: V = b for broadcast and the
 * reductions, (p-1)*b for scatter, gather, allgather, alltoall), whichever is larger.
 * The binomial reduce on a bus of 5 reaches it: 3 * D(1) = 54 slots. */
START_TEST(test_circuit_lower_bounds)
{
    static const struct {
        const char *topo, *algo, *expr;
        int64_t block, value, completion;
    } cases[] = {
        {"\"kind\":\"hypercube\",\"dim\":3", "bcast-binomial", "ceil(log2(p))*ceil(8a+b)", 3, 54,
         102},
        {"\"kind\":\"hypercube\",\"dim\":3", "scatter-binomial", "ceil(8a*(p-1)*block+b)", 3, 178,
         198},
        {"\"kind\":\"ring\",\"nodes\":5", "allgather-ring", "ceil(8a*(p-1)*block+b)", 3, 106, 136},
        /* allreduce: Chan et al.'s 2(p-1)/p*n values, n = b: D(ceil(2*3*40/4)) = D(60) */
        {"\"kind\":\"hypercube\",\"dim\":2", "allreduce-ring", "ceil(8a*ceil(2*(p-1)*block/p)+b)",
         40, 490, 540},
        {"\"kind\":\"hypercube\",\"dim\":2", "reduce-binomial", "ceil(8a*block+b)", 40, 330, 660},
        {"\"kind\":\"bus\",\"nodes\":5", "reduce-binomial", "ceil(log2(p))*ceil(8a+b)", 1, 54, 54},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char cfg[512];
        snprintf(cfg, sizeof cfg,
                 "{\"topology\":{%s},\"ports\":{\"model\":\"one-port-full\",\"routing\":"
                 "\"circuit\",\"cost\":{\"a\":1,\"b\":10}},\"contention\":\"strict\","
                 "\"algorithm\":{\"name\":\"%s\",\"block\":%lld}}",
                 cases[i].topo, cases[i].algo, (long long)cases[i].block);
        hm_trun_t r = hm_t_run(cfg, NULL);
        ck_assert_msg(r.rc == 0 && hm_t_int(&r, "verified") == 1, "%s: %s", cfg,
                      r.message ? r.message : hm_t_str(&r, "verification"));
        json_t *lb = json_object_get(r.summary, "lower_bound");
        ck_assert_str_eq(json_string_value(json_object_get(lb, "expression")), cases[i].expr);
        ck_assert_int_eq(hm_t_bound(&r, "lower_bound"), cases[i].value);
        ck_assert_int_eq(hm_t_int(&r, "completion_slots"), cases[i].completion);
        hm_t_free(&r);
    }
}
END_TEST

/* ---- any p on the bus (fully connected) ------------------------------------------ */

/* The six tree and recursive-doubling algorithms on the bus topology (every node a
 * neighbour), MPICH's versions for any p, exact formulas by hand (L = ceil(log2 p),
 * q = 2^floor(log2 p), D(v) the slots of one message of v values under a = 1, b = 10):
 * bcast and reduce binomial L, L*D(b); scatter and gather binomial L,
 * D(b(p - 2^(L-1))) + sum_{i<L-1} D(b 2^i); allreduce recursive doubling with the fold
 * floor(log2 p) + 2, times D(b); allgather floor(log2 p) + 2, D(b) + sum_{k<log2 q}
 * D(b(2^k + min(2^k, p - q))) + D(p b); on powers of two the hypercube's formulas. */
static int64_t bus_want(int a, int p, int64_t b, int circuit)
{
    int L = 0, pow2 = (p & (p - 1)) == 0;
    while ((1 << L) < p)
        L++;
    int q = pow2 ? p : 1 << (L - 1), rem = p - q;
    int64_t D = circuit_dur(1, 10, b), t = 0;
    switch (a) {
    case 0: /* bcast-binomial */
    case 1: /* reduce-binomial */
        return circuit ? L * D : L;
    case 2: /* scatter-binomial */
    case 3: /* gather-binomial */
        return circuit ? circuit_dur(1, 10, b * (p - (1 << (L - 1)))) +
                             circuit_doubling(1, 10, b, L - 1)
                       : L;
    case 4: /* allreduce-recursive-doubling */
        return (pow2 ? L : L + 1) * (circuit ? D : 1);
    default: /* allgather-recursive-doubling */
        if (!circuit)
            return pow2 ? L : L + 1;
        if (pow2)
            return circuit_doubling(1, 10, b, L);
        t = D + circuit_dur(1, 10, b * p);
        for (int k = 0; (1 << k) < q; k++)
            t += circuit_dur(1, 10, b * ((1 << k) + (rem < (1 << k) ? rem : 1 << k)));
        return t;
    }
}

START_TEST(test_bus_any_p)
{
    static const char *const names[] = {"bcast-binomial",
                                        "reduce-binomial",
                                        "scatter-binomial",
                                        "gather-binomial",
                                        "allreduce-recursive-doubling",
                                        "allgather-recursive-doubling"};
    static const int sizes[] = {2, 3, 5, 6, 7, 8, 12, 13};
    hma_rng_t rng;
    hma_rng_seed(&rng, 0xB05);
    for (int a = 0; a < 6; a++)
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
            for (int circuit = 0; circuit < 2; circuit++) {
                int p = sizes[i];
                int64_t b = 1 + (int64_t)hma_rng_below(&rng, 6);
                char cfg[600], extra[64] = "";
                if (a < 4)
                    snprintf(extra, sizeof extra, ",\"root\":%d",
                             (int)hma_rng_below(&rng, (uint64_t)p));
                if (a == 1 || a == 4)
                    snprintf(extra + strlen(extra), sizeof extra - strlen(extra), ",\"op\":\"%s\"",
                             ops[hma_rng_below(&rng, 3)]);
                snprintf(cfg, sizeof cfg,
                         "{\"topology\":{\"kind\":\"bus\",\"nodes\":%d},\"ports\":{\"model\":"
                         "\"%s\",\"routing\":\"%s\",\"cost\":{\"a\":1,\"b\":10}},\"contention\":"
                         "\"strict\",\"seed\":%d,\"algorithm\":{\"name\":\"%s\",\"block\":%lld%s}}",
                         p, i % 2 ? "all-port" : "one-port-full", circuit ? "circuit" : "packet",
                         (int)i, names[a], (long long)b, extra);
                check_exact(cfg, bus_want(a, p, b, circuit));
            }
    /* The others stay where p is a power of two: refused on the bus, and the trees
     * refused on a ring, each saying what is allowed (exit 2). */
    static const struct {
        const char *topo, *name, *want;
    } refused[] = {
        {"\"kind\":\"bus\",\"nodes\":6", "alltoall-dimension-exchange",
         "topology.kind: found \"bus\"; allowed for alltoall-dimension-exchange: hypercube"},
        {"\"kind\":\"bus\",\"nodes\":6", "bcast-msbt",
         "topology.kind: found \"bus\"; allowed for bcast-msbt: hypercube"},
        {"\"kind\":\"ring\",\"nodes\":6", "reduce-binomial",
         "topology.kind: found \"ring\"; allowed for reduce-binomial: hypercube, bus"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        char cfg[300];
        snprintf(cfg, sizeof cfg, "{\"topology\":{%s},\"algorithm\":{\"name\":\"%s\"}}",
                 refused[i].topo, refused[i].name);
        hm_trun_t r = hm_t_run(cfg, NULL);
        ck_assert_int_eq(r.rc, 2);
        ck_assert_msg(r.message && strstr(r.message, refused[i].want), "%s: %s", cfg,
                      r.message ? r.message : "(none)");
        hm_t_free(&r);
    }
}
END_TEST

/* Rabenseifner's reduce and allreduce on the bus, MPICH's fold for any p (TRG 2005,
 * section 4.4), exact formulas by hand (k = floor(log2 p), q = 2^k, D(v) the slots of
 * one message of v values under a = 1, b = 10): reduce 2k + 1 slots, D(b) + 2 sum_{i<k}
 * D(b 2^i/q); allreduce 2k + 2, 2 D(b) + 2 sum_{i<k} D(b 2^i/q); on powers of two 2k
 * and 2 sum_{i<k} D(b 2^i/q). For p = 3 and b = 2 (packet): reduce 3 slots, allreduce 4;
 * for p = 12, b = 8 (circuit): reduce 74 + 2(18 + 26 + 42) = 246. */
static int64_t rab_want(int reduce, int p, int64_t b, int circuit)
{
    int k = 0, pow2 = (p & (p - 1)) == 0;
    while ((2 << k) <= p)
        k++;
    int ends = pow2 ? 0 : reduce ? 1 : 2;
    if (!circuit)
        return 2 * k + ends;
    int64_t t = ends * circuit_dur(1, 10, b);
    for (int i = 0; i < k; i++) /* the longest 2^i of the q chunks: ceil(b 2^i / q) */
        t += 2 * circuit_dur(1, 10, ((b << i) + (1 << k) - 1) >> k);
    return t;
}

/* van de Geijn's broadcast on the bus for any p (TRG 2005, section 4.1, MPICH): binomial
 * scatter of ceil(b/p)-value chunks then a ring allgather, exact formulas by hand
 * (L = ceil(log2 p), s = ceil(b/p), D as above): L + p - 1 slots; under a*m + b
 * D(s(p - 2^(L-1))) + sum_{i<L-1} D(s 2^i) + (p-1) D(s); on powers of two 2 log2 p and
 * 2 sum_{i<log2 p} D(ceil(b 2^i/p)). For p = 12, b = 24 (circuit): 74 + 26 + 42 + 74 +
 * 11*26 = 502; p = 6, b = 10 (s = 2): D(4) + D(2) + D(4) + 5 D(2) = 42 + 26 + 42 + 130 =
 * 240; p = 8, b = 12: 2 (D(2) + D(3) + D(6)) = 2 (26 + 34 + 58) = 236. */
static int64_t sag_want(int p, int64_t b, int circuit)
{
    int L = 0, pow2 = (p & (p - 1)) == 0;
    while ((1 << L) < p)
        L++;
    int64_t s = (b + p - 1) / p, t = 0;
    if (!circuit)
        return pow2 ? 2 * L : L + p - 1;
    for (int i = 0; pow2 && i < L; i++) /* the longest 2^i of the p chunks */
        t += 2 * circuit_dur(1, 10, ((b << i) + p - 1) / p);
    if (pow2)
        return t;
    return circuit_dur(1, 10, s * (p - (1 << (L - 1)))) + circuit_doubling(1, 10, s, L - 1) +
           (p - 1) * circuit_dur(1, 10, s);
}

/* Rabenseifner's reduce and allreduce, and van de Geijn's broadcast (sag_want), under
 * a*m + b with a block q does not divide: the q chunks [b c/q, b (c+1)/q) (the
 * broadcast's on the bus: ceil(b/p) values) differ in length, every step lasts as its
 * longest message (rab_want: ceil(b 2^i/q)), on Q_2 and Q_3 (q = 4, 8) and buses of 6, 12 and
 * 13 (q = 4, 8, 8), b = 1, 5, 7, 13, one-port-full and all-port, random roots and
 * operators: verified, 0 conflicts under strict, completion the formula. By hand: Q_2,
 * b = 5, reduce 2 (D(2) + D(3)) = 2 (26 + 34) = 120; bus of 6, b = 7, allreduce
 * 2 D(7) + 2 (D(2) + D(4)) = 132 + 136 = 268. */
START_TEST(test_circuit_uneven_chunks)
{
    static const char *const topos[] = {
        "\"kind\":\"hypercube\",\"dim\":2", "\"kind\":\"hypercube\",\"dim\":3",
        "\"kind\":\"bus\",\"nodes\":6", "\"kind\":\"bus\",\"nodes\":12",
        "\"kind\":\"bus\",\"nodes\":13"};
    static const int nodes[] = {4, 8, 6, 12, 13};
    static const int64_t blocks[] = {1, 5, 7, 13};
    ck_assert_int_eq(rab_want(1, 4, 5, 1), 120);
    ck_assert_int_eq(rab_want(0, 6, 7, 1), 268);
    hma_rng_t rng;
    hma_rng_seed(&rng, 0xC4E);
    static const char *const uneven_algos[] = {"allreduce-rabenseifner", "reduce-rabenseifner",
                                               "bcast-scatter-allgather"};
    for (int reduce = 0; reduce < 3; reduce++)
        for (size_t t = 0; t < sizeof topos / sizeof topos[0]; t++)
            for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++) {
                int p = nodes[t];
                char cfg[600], extra[64] = "";
                if (reduce < 2)
                    snprintf(extra, sizeof extra, ",\"op\":\"%s\"", ops[hma_rng_below(&rng, 3)]);
                if (reduce)
                    snprintf(extra + strlen(extra), sizeof extra - strlen(extra), ",\"root\":%d",
                             (int)hma_rng_below(&rng, (uint64_t)p));
                snprintf(cfg, sizeof cfg,
                         "{\"topology\":{%s},\"ports\":{\"model\":\"%s\",\"routing\":"
                         "\"circuit\",\"cost\":{\"a\":1,\"b\":10}},\"contention\":\"strict\","
                         "\"seed\":%d,\"algorithm\":{\"name\":\"%s\",\"block\":%lld%s}}",
                         topos[t], i % 2 ? "all-port" : "one-port-full", (int)(t + i),
                         uneven_algos[reduce], (long long)blocks[i], extra);
                check_exact(cfg, reduce < 2 ? rab_want(reduce, p, blocks[i], 1)
                                            : sag_want(p, blocks[i], 1));
            }
}
END_TEST

START_TEST(test_bus_rabenseifner)
{
    static const int sizes[] = {2, 3, 5, 6, 7, 8, 12};
    ck_assert_int_eq(rab_want(1, 3, 2, 0), 3);
    ck_assert_int_eq(rab_want(0, 3, 2, 0), 4);
    ck_assert_int_eq(rab_want(1, 12, 8, 1), 246);
    hma_rng_t rng;
    hma_rng_seed(&rng, 0xAB5);
    for (int reduce = 0; reduce < 2; reduce++)
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
            for (int circuit = 0; circuit < 2; circuit++) {
                int p = sizes[i], q = 1;
                while (2 * q <= p)
                    q *= 2;
                /* Any block (empty chunks when b < q); a multiple of q under circuit
                 * routing every other time, uneven chunks otherwise. */
                int64_t b = (1 + (int64_t)hma_rng_below(&rng, 3)) * (circuit ? q : 3) -
                            (circuit ? (int64_t)(i % 2) : 2);
                char cfg[600], extra[64];
                snprintf(extra, sizeof extra, ",\"op\":\"%s\"", ops[hma_rng_below(&rng, 3)]);
                if (reduce)
                    snprintf(extra + strlen(extra), sizeof extra - strlen(extra), ",\"root\":%d",
                             (int)hma_rng_below(&rng, (uint64_t)p));
                snprintf(cfg, sizeof cfg,
                         "{\"topology\":{\"kind\":\"bus\",\"nodes\":%d},\"ports\":{\"model\":"
                         "\"%s\",\"routing\":\"%s\",\"cost\":{\"a\":1,\"b\":10}},\"contention\":"
                         "\"strict\",\"seed\":%d,\"algorithm\":{\"name\":\"%s\",\"block\":%lld%s}}",
                         p, i % 2 ? "all-port" : "one-port-full", circuit ? "circuit" : "packet",
                         (int)i, reduce ? "reduce-rabenseifner" : "allreduce-rabenseifner",
                         (long long)b, extra);
                check_exact(cfg, rab_want(reduce, p, b, circuit));
            }
}
END_TEST

/* The recursive halving reduce-scatter on the bus, MPICH's fold for any p (TRG 2005,
 * section 4.6), exact formulas by hand (k = floor(log2 p), q = 2^k, rem = p - q, D as
 * above): k + 2 slots, D(p b) + sum_{i<k} D(b (2^i + min(2^i, rem))) + D(b); on powers
 * of two k and sum_{i<k} D(b 2^i). For p = 12, b = 8 (circuit): 778 + 138 + 266 + 522 +
 * 74 = 1778; p = 3, b = 1: 34 + 26 + 18 = 78; p = 100 (packet): 8 slots. */
static int64_t rsrh_want(int p, int64_t b, int circuit)
{
    int k = 0, pow2 = (p & (p - 1)) == 0;
    while ((2 << k) <= p)
        k++;
    int rem = p - (1 << k);
    if (!circuit)
        return pow2 ? k : k + 2;
    if (pow2)
        return circuit_doubling(1, 10, b, k);
    int64_t t = circuit_dur(1, 10, p * b) + circuit_dur(1, 10, b);
    for (int i = 0; i < k; i++)
        t += circuit_dur(1, 10, b * ((1 << i) + ((1 << i) < rem ? (1 << i) : rem)));
    return t;
}

START_TEST(test_bus_rs_halving)
{
    static const int sizes[] = {2, 3, 5, 6, 7, 8, 12, 13, 100};
    static const char *const models[] = {"one-port-full", "all-port"};
    ck_assert_int_eq(rsrh_want(12, 8, 1), 1778);
    ck_assert_int_eq(rsrh_want(3, 1, 1), 78);
    ck_assert_int_eq(rsrh_want(100, 3, 0), 8);
    ck_assert_int_eq(rsrh_want(8, 2, 1), 26 + 42 + 74);
    hma_rng_t rng;
    hma_rng_seed(&rng, 0x5C7);
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        for (int m = 0; m < 2; m++)
            for (int circuit = 0; circuit < 2; circuit++) {
                int p = sizes[i];
                int64_t b = 1 + (int64_t)hma_rng_below(&rng, 7); /* any block */
                char cfg[600];
                snprintf(cfg, sizeof cfg,
                         "{\"topology\":{\"kind\":\"bus\",\"nodes\":%d},\"ports\":{\"model\":"
                         "\"%s\",\"routing\":\"%s\",\"cost\":{\"a\":1,\"b\":10}},\"contention\":"
                         "\"strict\",\"seed\":%d,\"algorithm\":{\"name\":\"reduce-scatter-"
                         "recursive-halving\",\"block\":%lld,\"op\":\"%s\"}}",
                         p, models[m], circuit ? "circuit" : "packet", (int)i, (long long)b,
                         ops[hma_rng_below(&rng, 3)]);
                check_exact(cfg, rsrh_want(p, b, circuit));
            }
}
END_TEST

START_TEST(test_bus_scatter_allgather)
{
    static const int sizes[] = {2, 3, 5, 6, 7, 8, 12, 13};
    ck_assert_int_eq(sag_want(12, 24, 1), 502);
    ck_assert_int_eq(sag_want(7, 3, 0), 9);
    ck_assert_int_eq(sag_want(6, 10, 1), 240);
    ck_assert_int_eq(sag_want(8, 12, 1), 236);
    hma_rng_t rng;
    hma_rng_seed(&rng, 0x5A6);
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        for (int circuit = 0; circuit < 2; circuit++) {
            int p = sizes[i];
            /* Any block (empty chunks when b < p); under circuit routing a multiple of p
             * every other time, unequal chunks otherwise. */
            int64_t b = circuit && i % 2 ? p * (1 + (int64_t)hma_rng_below(&rng, 3))
                                         : 1 + (int64_t)hma_rng_below(&rng, 2 * (uint64_t)p);
            char cfg[600];
            snprintf(cfg, sizeof cfg,
                     "{\"topology\":{\"kind\":\"bus\",\"nodes\":%d},\"ports\":{\"model\":"
                     "\"%s\",\"routing\":\"%s\",\"cost\":{\"a\":1,\"b\":10}},\"contention\":"
                     "\"strict\",\"seed\":%d,\"algorithm\":{\"name\":\"bcast-scatter-allgather\","
                     "\"block\":%lld,\"root\":%d}}",
                     p, i % 2 ? "all-port" : "one-port-full", circuit ? "circuit" : "packet",
                     (int)i, (long long)b, (int)hma_rng_below(&rng, (uint64_t)p));
            check_exact(cfg, sag_want(p, b, circuit));
        }
}
END_TEST

/* The pairwise exchanges and Bruck's alltoall on the bus for any p (TRG 2005, sections
 * 4.6 and 4.7, MPICH's order: x + s and x - s mod p, XOR on a power of two for alltoall),
 * exact formulas by hand (D as above, a = 1, b = 10): pairwise p - 1 slots, (p - 1) D(b);
 * Bruck ceil(log2 p) slots, sum_k D(b n_k), n_k = #{j < p: bit k of j set}. For p = 6,
 * b = 2: Bruck D(6) + D(4) + D(4) = 58 + 42 + 42 = 142, pairwise 5 * 26 = 130. */
static int64_t pw_want(int bruck, int p, int64_t b, int circuit)
{
    int64_t t = 0;
    if (!bruck)
        return circuit ? (p - 1) * circuit_dur(1, 10, b) : p - 1;
    for (int h = 1; h < p; h *= 2) {
        int64_t c = 0;
        for (int j = 0; j < p; j++)
            c += (j & h) != 0;
        if (bruck == 2) /* Bruck's allgather: min(2^k, p - 2^k) blocks */
            c = h < p - h ? h : p - h;
        t += circuit ? circuit_dur(1, 10, b * c) : 1;
    }
    return t;
}

START_TEST(test_bus_pairwise)
{
    static const int sizes[] = {2, 3, 5, 6, 7, 8, 12};
    static const char *const names[] = {"alltoall-pairwise", "reduce-scatter-pairwise",
                                        "alltoall-bruck", "allgather-bruck"};
    static const int bruck[] = {0, 0, 1, 2};
    ck_assert_int_eq(pw_want(1, 6, 2, 1), 142);
    ck_assert_int_eq(pw_want(0, 6, 2, 1), 130);
    ck_assert_int_eq(pw_want(1, 12, 1, 0), 4);
    ck_assert_int_eq(pw_want(0, 7, 3, 0), 6);
    /* Bruck's allgather, p = 6, b = 2: D(2) + D(4) + D(4) = 26 + 42 + 42 = 110. */
    ck_assert_int_eq(pw_want(2, 6, 2, 1), 110);
    hma_rng_t rng;
    hma_rng_seed(&rng, 0x9A1);
    for (int a = 0; a < 4; a++)
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
            for (int circuit = 0; circuit < 2; circuit++) {
                int p = sizes[i];
                int64_t b = 1 + (int64_t)hma_rng_below(&rng, 4);
                char cfg[600], extra[32] = "";
                if (a == 1)
                    snprintf(extra, sizeof extra, ",\"op\":\"%s\"", ops[hma_rng_below(&rng, 3)]);
                snprintf(cfg, sizeof cfg,
                         "{\"topology\":{\"kind\":\"bus\",\"nodes\":%d},\"ports\":{\"model\":"
                         "\"%s\",\"routing\":\"%s\",\"cost\":{\"a\":1,\"b\":10}},\"contention\":"
                         "\"strict\",\"seed\":%d,\"algorithm\":{\"name\":\"%s\",\"block\":%lld%s}}",
                         p, i % 2 ? "all-port" : "one-port-full", circuit ? "circuit" : "packet",
                         (int)hma_rng_below(&rng, 1000), names[a], (long long)b, extra);
                check_exact(cfg, pw_want(bruck[a], p, b, circuit));
            }
    /* Buses past 65 nodes: hm_send reaches every port, also past 63 (a bus of 100 nodes
     * has 99). Pairwise p - 1 = 99 slots, Bruck ceil(log2 100) = 7, binomial broadcast
     * 7, recursive doubling allgather floor(log2 100) + 2 = 8. */
    static const struct {
        const char *name;
        int64_t slots;
    } big[] = {{"alltoall-pairwise", 99},
               {"alltoall-bruck", 7},
               {"bcast-binomial", 7},
               {"allgather-recursive-doubling", 8}};
    for (size_t i = 0; i < sizeof big / sizeof big[0]; i++) {
        char cfg[300];
        snprintf(cfg, sizeof cfg,
                 "{\"topology\":{\"kind\":\"bus\",\"nodes\":100},\"ports\":{\"model\":"
                 "\"all-port\"},\"contention\":\"strict\",\"algorithm\":{\"name\":\"%s\"}}",
                 big[i].name);
        hm_trun_t r = hm_t_run(cfg, NULL);
        ck_assert_msg(r.rc == 0 && hm_t_int(&r, "verified") == 1, "%s: rc=%d %s", cfg, r.rc,
                      r.message ? r.message : hm_t_str(&r, "verification"));
        ck_assert_int_eq(hm_t_int(&r, "conflicts"), 0);
        ck_assert_int_eq(hm_t_int(&r, "completion_slots"), big[i].slots);
        hm_t_free(&r);
    }
}
END_TEST

/* ---- route direct: one circuit a message ---------------------------------------- */

/* The direct variants under a*m + b against Thakur-Rabenseifner-Gropp's costs, alpha = B,
 * beta = 8A per value: pairwise (p - 1)(alpha + m*beta) = (p - 1) D(b); Bruck's
 * allgather sum_k D(b min(2^k, p - 2^k)) (TRG: lg p alpha + (p - 1) m beta) and
 * alltoall sum_k D(b n_k) (TRG: lg p alpha + (p/2) lg p m beta on a power of two).
 * On Q_d every step is contention-free (the XOR permutation and the shift x + 2^k under
 * e-cube routing): strict runs, 0 conflicts, exactly these. On a ring the shorter arcs
 * of step k share each link min(2^k, p - 2^k) times: strict stops the run at the first
 * shared link, queue gives each message ceil(that / link_capacity) * a*m + b. */
static int64_t direct_want(int kind, int p, int64_t b, double A, double B, int ring, int cap)
{
    int64_t t = 0;
    if (kind == 0)
        return (p - 1) * circuit_dur(A, B, b);
    for (int h = 1; h < p; h *= 2) {
        int64_t c = 0, arc = h < p - h ? h : p - h, f = ring ? (arc + cap - 1) / cap : 1;
        for (int j = 0; j < p; j++)
            c += (j & h) != 0;
        if (kind == 2)
            c = arc;
        t += circuit_dur(A, B, f * b * c);
    }
    return t;
}

START_TEST(test_route_direct)
{
    static const char *const names[] = {"alltoall-pairwise", "reduce-scatter-pairwise",
                                        "alltoall-bruck", "allgather-bruck"};
    static const int kind[] = {0, 0, 1, 2};
    static const double costs[][2] = {{1, 10}, {0.25, 100}};
    /* Q_3, m = 16, a = 1, b = 10: pairwise 7 * 138 = 966 (relayed: 12 * 138 = 1656),
     * Bruck's allgather 30 + 896 = 926, Bruck's alltoall 30 + 1536 = 1566. */
    ck_assert_int_eq(direct_want(0, 8, 16, 1, 10, 0, 1), 966);
    ck_assert_int_eq(direct_want(2, 8, 16, 1, 10, 0, 1), 3 * 10 + 7 * 16 * 8);
    ck_assert_int_eq(direct_want(1, 8, 16, 1, 10, 0, 1), 3 * 10 + 4 * 3 * 16 * 8);
    for (int a = 0; a < 4; a++)
        for (int d = 1; d <= 6; d++)
            for (int c = 0; c < 2; c++)
                for (int64_t b = 1; b <= 3; b += 2) {
                    char cfg[600];
                    snprintf(cfg, sizeof cfg,
                             "{\"topology\":{\"kind\":\"hypercube\",\"dim\":%d},\"ports\":{"
                             "\"model\":\"one-port-full\",\"routing\":\"circuit\",\"cost\":{"
                             "\"a\":%g,\"b\":%g}},\"contention\":\"strict\",\"algorithm\":{"
                             "\"name\":\"%s\",\"block\":%lld,\"route\":\"direct\"}}",
                             d, costs[c][0], costs[c][1], names[a], (long long)b);
                    check_exact(cfg,
                                direct_want(kind[a], 1 << d, b, costs[c][0], costs[c][1], 0, 1));
                }
    /* The relayed pairwise exchange on Q_3, m = 16: (p/2) log2 p = 12 hops of D(16). */
    check_exact("{\"topology\":{\"kind\":\"hypercube\",\"dim\":3},\"ports\":{\"routing\":"
                "\"circuit\",\"cost\":{\"a\":1,\"b\":10}},\"contention\":\"strict\","
                "\"algorithm\":{\"name\":\"alltoall-pairwise\",\"block\":16}}",
                1656);
    /* Bruck on rings under queue, link capacity 1 and 2 (a ring of 6, m = 16, capacity 1:
     * D(16) + D(2*2*16) + D(2*2*16): 138 + 522 + 522 = 1182). */
    ck_assert_int_eq(direct_want(2, 6, 16, 1, 10, 1, 1), 1182);
    static const int rings[] = {2, 3, 5, 6, 8};
    for (int a = 2; a < 4; a++)
        for (size_t i = 0; i < sizeof rings / sizeof rings[0]; i++)
            for (int cap = 1; cap <= 2; cap++) {
                char cfg[600];
                snprintf(cfg, sizeof cfg,
                         "{\"topology\":{\"kind\":\"ring\",\"nodes\":%d},\"ports\":{\"routing\":"
                         "\"circuit\",\"link_capacity\":%d,\"cost\":{\"a\":1,\"b\":10}},"
                         "\"contention\":\"queue\",\"algorithm\":{\"name\":\"%s\",\"block\":2,"
                         "\"route\":\"direct\"}}",
                         rings[i], cap, names[a]);
                hm_trun_t r = hm_t_run(cfg, NULL);
                int64_t want = direct_want(kind[a], rings[i], 2, 1, 10, 1, cap);
                ck_assert_msg(r.rc == 0 && hm_t_int(&r, "verified") == 1, "%s: %s", cfg,
                              r.message ? r.message : hm_t_str(&r, "verification"));
                ck_assert_int_eq(hm_t_int(&r, "completion_slots"), want);
                ck_assert_int_eq(hm_t_bound(&r, "bound"), want);
                hm_t_free(&r);
            }
    /* Strict on a ring of 6: step 1's arcs of 2 links share every link twice. */
    hm_trun_t r = hm_t_run("{\"topology\":{\"kind\":\"ring\",\"nodes\":6},\"ports\":{\"routing\":"
                           "\"circuit\",\"cost\":{\"a\":1,\"b\":10}},\"contention\":\"strict\","
                           "\"algorithm\":{\"name\":\"allgather-bruck\",\"block\":16,"
                           "\"route\":\"direct\"}}",
                           NULL);
    ck_assert_int_eq(r.rc, 1);
    ck_assert_str_eq(r.message, "slot 138: link contention: link 0->1 carries 2 circuits "
                                "(link_capacity 1): msg 1 0->2 lasts 2*a*m+b = 522 slots");
    hm_t_free(&r);
    /* Refused: direct under packet routing (but on the bus) and on the torus. */
    r = hm_t_run("{\"topology\":{\"kind\":\"hypercube\",\"dim\":2},\"algorithm\":{\"name\":"
                 "\"alltoall-pairwise\",\"route\":\"direct\"}}",
                 NULL);
    ck_assert_int_eq(r.rc, 2);
    ck_assert_str_eq(r.message, "test.json: algorithm.route: found \"direct\" under packet "
                                "routing; allowed: \"relay\" (a packet crosses one link a slot; "
                                "\"direct\" needs ports.routing \"circuit\")");
    hm_t_free(&r);
    r = hm_t_run("{\"topology\":{\"kind\":\"torus\",\"rows\":2,\"cols\":3},\"ports\":{"
                 "\"routing\":\"circuit\"},\"algorithm\":{\"name\":\"alltoall-bruck\","
                 "\"route\":\"direct\"}}",
                 NULL);
    ck_assert_int_eq(r.rc, 2);
    ck_assert_str_eq(r.message, "test.json: algorithm.route: found \"direct\" on a torus; "
                                "allowed: \"relay\" (\"direct\" runs on the hypercube, the ring "
                                "and the bus)");
    hm_t_free(&r);
    /* On the bus both routes are one message a step (packet routing: ceil(log2 p)). */
    check_exact("{\"topology\":{\"kind\":\"bus\",\"nodes\":6},\"contention\":\"strict\","
                "\"algorithm\":{\"name\":\"allgather-bruck\",\"route\":\"direct\"}}",
                3);
}
END_TEST

/* ---- lower bounds: Chan et al. and the sweep ------------------------------------- */

/* Chan, Heimlich, Purkayastha, van de Geijn (CCPE 2007), one port, full duplex, full
 * connectivity, alpha = B, beta = 8A per value: the latency ceil(log2 p) alpha and the
 * bandwidth (p-1)/p n beta (n = p*m: scatter, gather, allgather, reduce-scatter; n = m:
 * reduce), n beta (broadcast), 2(p-1)/p n beta (allreduce, n = m); alltoall, not in their
 * table, (p-1) m beta (every node takes in (p-1) m values). hypemu's bound is never
 * below the larger: it adds one alpha to the bandwidth term (a node sends at least one
 * message) and rounds up. */
static double chan_bound(const char *problem, int p, int64_t m, double A, double B)
{
    double beta = 8 * A, lat = 0, bw;
    for (int k = 1; k < p; k *= 2)
        lat += B;
    if (!strcmp(problem, "broadcast"))
        bw = (double)m * beta;
    else if (!strcmp(problem, "reduce"))
        bw = (double)(p - 1) / p * (double)m * beta;
    else if (!strcmp(problem, "allreduce"))
        bw = 2.0 * (p - 1) / p * (double)m * beta;
    else /* n = p*m, or alltoall's (p-1) m */
        bw = (double)(p - 1) * (double)m * beta;
    return lat > bw ? lat : bw;
}

START_TEST(test_chan_bounds)
{
    /* Q_3, m = 16, a = 1, b = 10: Chan's reduce-scatter 896 (hypemu D(7*16) = 906, the
     * best algorithm, recursive halving, 926), allreduce 224 (hypemu D(28) = 234,
     * Rabenseifner 284). */
    static const struct {
        const char *algo, *expr;
        int64_t lower, completion, chan;
    } cases[] = {
        {"reduce-scatter-recursive-halving", "ceil(8a*(p-1)*block+b)", 906, 926, 896},
        {"allreduce-rabenseifner", "ceil(8a*ceil(2*(p-1)*block/p)+b)", 234, 284, 224},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char cfg[400];
        snprintf(cfg, sizeof cfg,
                 "{\"topology\":{\"kind\":\"hypercube\",\"dim\":3},\"ports\":{\"routing\":"
                 "\"circuit\",\"cost\":{\"a\":1,\"b\":10}},\"contention\":\"strict\","
                 "\"algorithm\":{\"name\":\"%s\",\"block\":16}}",
                 cases[i].algo);
        hm_trun_t r = hm_t_run(cfg, NULL);
        ck_assert_msg(r.rc == 0 && hm_t_int(&r, "verified") == 1, "%s", cfg);
        ck_assert_int_eq(hm_t_int(&r, "completion_slots"), cases[i].completion);
        ck_assert_int_eq(hm_t_bound(&r, "lower_bound"), cases[i].lower);
        ck_assert_str_eq(json_string_value(json_object_get(
                             json_object_get(r.summary, "lower_bound"), "expression")),
                         cases[i].expr);
        ck_assert_int_eq((int64_t)chan_bound(hm_t_str(&r, "problem"), 8, 16, 1, 10), cases[i].chan);
        hm_t_free(&r);
    }
}
END_TEST

/* clock.max_slots and the algorithm's cost (doc/config.md, clock.max_slots): Bruck's alltoall on
 * Q_6, b = 64, a = 1, b = 10, relayed, costs 1,032,822 slots, above the default 10^6.
 * Unset, the limit rises to twice the cost and the run verifies; set to 10^6, the run
 * stops (exit 3) and the message names the cost and the setting that lets it finish. */
START_TEST(test_max_slots_cost)
{
    const char *cfg = "{\"topology\":{\"kind\":\"hypercube\",\"dim\":6},\"ports\":{\"routing\":"
                      "\"circuit\",\"cost\":{\"a\":1,\"b\":10}},\"contention\":\"strict\","
                      "\"algorithm\":{\"name\":\"alltoall-bruck\",\"block\":64}%s}";
    char text[400];
    snprintf(text, sizeof text, cfg, "");
    check_exact(text, 1032822);
    snprintf(text, sizeof text, cfg, ",\"clock\":{\"max_slots\":1000000}");
    hm_trun_t r = hm_t_run(text, NULL);
    ck_assert_int_eq(r.rc, 3);
    ck_assert_str_eq(r.message,
                     "clock.max_slots = 1000000 reached: the next slot with work is 1000033, with "
                     "64 of 64 nodes still running; the algorithm's exact cost is 1032822 slots "
                     "(sum_k 2^k*ceil(8a*block*n_k+b)): set clock.max_slots to 1032822 or more "
                     "(--set clock.max_slots=1032822)");
    hm_t_free(&r);
}
END_TEST

extern const hm_algorithm_t *const hm_algorithms[];

/* The sweep's tally: runs made, runs the loader refused (a model the algorithm does not
 * take), and each one's check. */
typedef struct sweep_s {
    int runs, refused;
} sweep_t;

/* One run: refused by the loader (exit 2), or verified with completion >= lower bound (and
 * under circuit routing >= Chan et al.'s bound); 0 conflicts unless queue lets them. */
static void sweep_one(sweep_t *sw, const char *cfg, int p, const double *cost, int queue)
{
    hm_trun_t r = hm_t_run(cfg, NULL);
    sw->runs++;
    if (r.rc == 2) { /* only route direct on a torus is refused here */
        ck_assert_msg(r.message && strstr(r.message, "found \"direct\" on a torus"), "%s: %s", cfg,
                      r.message ? r.message : "");
        sw->refused++;
        hm_t_free(&r);
        return;
    }
    ck_assert_msg(r.rc == 0 && hm_t_int(&r, "verified") == 1, "%s: rc=%d %s", cfg, r.rc,
                  r.message ? r.message : hm_t_str(&r, "verification"));
    if (!queue)
        ck_assert_int_eq(hm_t_int(&r, "conflicts"), 0);
    int64_t lower = hm_t_bound(&r, "lower_bound"), done = hm_t_int(&r, "completion_slots");
    ck_assert_msg(done >= lower, "%s: completion %lld below the lower bound %lld", cfg,
                  (long long)done, (long long)lower);
    if (cost)
        ck_assert_msg((double)lower >= chan_bound(hm_t_str(&r, "problem"), p, hm_t_int(&r, "block"),
                                                  cost[0], cost[1]) -
                                           1e-9,
                      "%s: lower bound %lld below Chan et al.'s", cfg, (long long)lower);
    hm_t_free(&r);
}

/* The machines of the sweep: two sizes per topology. */
static const struct {
    hm_topology_kind_t kind;
    const char *json;
    int p;
} sweep_topos[] = {
    {HM_TOPO_HYPERCUBE, "\"kind\":\"hypercube\",\"dim\":2", 4},
    {HM_TOPO_HYPERCUBE, "\"kind\":\"hypercube\",\"dim\":3", 8},
    {HM_TOPO_RING, "\"kind\":\"ring\",\"nodes\":3", 3},
    {HM_TOPO_RING, "\"kind\":\"ring\",\"nodes\":6", 6},
    {HM_TOPO_TORUS, "\"kind\":\"torus\",\"rows\":2,\"cols\":3", 6},
    {HM_TOPO_TORUS, "\"kind\":\"torus\",\"rows\":3,\"cols\":3", 9},
    {HM_TOPO_BUS, "\"kind\":\"bus\",\"nodes\":5", 5},
    {HM_TOPO_BUS, "\"kind\":\"bus\",\"nodes\":8", 8},
};

/* Every catalogue collective (the descriptors whose state is a problem's) on every
 * topology it takes, two sizes each, blocks 1 and 5: under packet routing every port
 * model with link capacity 1 and 2, under circuit routing two (a, b) pairs and, where the
 * algorithm has it, route direct. No run goes below its lower bound: verification may
 * fail one that does. */
START_TEST(test_bound_sweep)
{
    static const double costs[][2] = {{1, 10}, {0.125, 40}};
    static const hm_ports_kind_t models[] = {HM_PORTS_ALL_PORT, HM_PORTS_ONE_PORT_FULL,
                                             HM_PORTS_ONE_PORT_HALF, HM_PORTS_SHOUT};
    sweep_t sw = {0, 0};
    int collectives = 0;
    for (const hm_algorithm_t *const *ap = hm_algorithms; *ap; ap++) {
        const hm_algorithm_t *al = *ap;
        if (al->teardown != hma_prob_free)
            continue;
        collectives++;
        int routed = 0;
        for (const hm_param_spec_t *sp = al->specs; sp && sp->name; sp++)
            routed |= !strcmp(sp->name, "route");
        for (size_t t = 0; t < sizeof sweep_topos / sizeof sweep_topos[0]; t++) {
            if (!(al->topologies & HM_BIT(sweep_topos[t].kind)))
                continue;
            int p = sweep_topos[t].p;
            for (int64_t b = 1; b <= 5; b += 4) {
                char cfg[700], root[32] = "";
                if (hma_prob_rooted(al->problem))
                    snprintf(root, sizeof root, ",\"root\":%d", p - 1);
                for (size_t m = 0; m < sizeof models / sizeof models[0]; m++)
                    for (int cap = 1; cap <= 2; cap++) {
                        if (!(al->ports & HM_BIT(models[m])))
                            continue;
                        snprintf(cfg, sizeof cfg,
                                 "{\"topology\":{%s},\"ports\":{\"model\":\"%s\","
                                 "\"link_capacity\":%d},\"contention\":\"strict\",\"algorithm\":"
                                 "{\"name\":\"%s\",\"block\":%lld%s}}",
                                 sweep_topos[t].json, hm_ports_name(models[m]), cap, al->name,
                                 (long long)b, root);
                        sweep_one(&sw, cfg, p, NULL, 0);
                    }
                for (int c = 0; c < 2; c++)
                    for (int direct = 0; direct <= routed; direct++) {
                        int queue = direct && sweep_topos[t].kind == HM_TOPO_RING;
                        snprintf(cfg, sizeof cfg,
                                 "{\"topology\":{%s},\"ports\":{\"routing\":\"circuit\",\"cost\":"
                                 "{\"a\":%g,\"b\":%g}},\"contention\":\"%s\",\"algorithm\":{"
                                 "\"name\":\"%s\",\"block\":%lld%s%s}}",
                                 sweep_topos[t].json, costs[c][0], costs[c][1],
                                 queue ? "queue" : "strict", al->name, (long long)b, root,
                                 direct ? ",\"route\":\"direct\"" : "");
                        sweep_one(&sw, cfg, p, costs[c], queue);
                    }
            }
        }
    }
    ck_assert_int_eq(collectives, 23);
    /* 1,480 configurations; the 16 of Bruck's two with route direct on the two tori are
     * refused (doc/collectives.md), the other 1,464 run. */
    ck_assert_int_eq(sw.runs, 1480);
    ck_assert_int_eq(sw.refused, 16);
}
END_TEST

/* ---- inputs from the config ------------------------------------------------------ */

static int64_t given_stores[16][8];
static size_t given_count[16];
static void (*given_real_verify)(hm_report_t *);

/* Notes every node's stores, then the algorithm's own verify. */
static void given_verify(hm_report_t *r)
{
    const hma_prob_t *pb = r->state;
    for (int x = 0; x < pb->p && x < 16; x++) {
        const int64_t *v = hm_report_stores(r, x, &given_count[x]);
        for (size_t i = 0; i < given_count[x] && i < 8; i++)
            given_stores[x][i] = v[i];
    }
    given_real_verify(r);
}

/* One run with given inputs: every node's stores exactly as listed (want[x], count
 * values each), verified, and the summary says the inputs came from the config. */
static void check_given(const char *cfg, const char *name, int p, size_t count,
                        const int64_t want[][4])
{
    const hm_algorithm_t *base = hm_algorithm_find(name);
    ck_assert_ptr_nonnull(base);
    hm_algorithm_t algo = *base;
    given_real_verify = base->verify;
    algo.verify = given_verify;
    memset(given_count, 0, sizeof given_count);
    hm_trun_t r = hm_t_run_algo(cfg, &algo);
    ck_assert_msg(r.rc == 0 && hm_t_int(&r, "verified") == 1, "%s: rc=%d %s", cfg, r.rc,
                  r.message ? r.message : hm_t_str(&r, "verification"));
    ck_assert_str_eq(hm_t_str(&r, "inputs"), "config");
    for (int x = 0; x < p; x++) {
        size_t c = want[x][0] < 0 ? 0 : count;
        ck_assert_uint_eq(given_count[x], c);
        for (size_t i = 0; i < c; i++)
            ck_assert_int_eq(given_stores[x][i], want[x][i]);
    }
    hm_t_free(&r);
}

/* "algorithm.inputs": an array of p rows or a file of p lines gives every node's
 * input; the stores are exactly the sums, blocks and gathers of those values; a wrong
 * shape, count, value or file is refused (exit 2) with the key and what is allowed. */
START_TEST(test_inputs_from_config)
{
    /* Allreduce (sum) of 4 rows of 2: 1+3+5-7 = 2, 2+4+6+100 = 112 on every node. */
    static const int64_t sums[4][4] = {{2, 112}, {2, 112}, {2, 112}, {2, 112}};
    check_given("{\"topology\":{\"kind\":\"hypercube\",\"dim\":2},\"algorithm\":{\"name\":"
                "\"allreduce-recursive-doubling\",\"block\":2,"
                "\"inputs\":[[1,2],[3,4],[5,6],[-7,100]]}}",
                "allreduce-recursive-doubling", 4, 2, sums);
    /* Scatter on a bus of 3 from root 1: node x gets the root's value x. */
    static const int64_t blocks[3][4] = {{10}, {20}, {30}};
    check_given("{\"topology\":{\"kind\":\"bus\",\"nodes\":3},\"ports\":{\"model\":"
                "\"one-port-full\"},\"algorithm\":{\"name\":\"scatter-binomial\",\"root\":1,"
                "\"inputs\":[[],[10,20,30],[]]}}",
                "scatter-binomial", 3, 1, blocks);
    /* A file of 3 lines on a ring of 3: every node gathers 5, -6, 7. */
    char *dir = hm_t_tmpdir(), path[600], cfg[900];
    snprintf(path, sizeof path, "%s/in.txt", dir);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("5\n -6 \n7\n", f);
    fclose(f);
    static const int64_t all[3][4] = {{5, -6, 7}, {5, -6, 7}, {5, -6, 7}};
    snprintf(cfg, sizeof cfg,
             "{\"topology\":{\"kind\":\"ring\",\"nodes\":3},\"algorithm\":{\"name\":"
             "\"allgather-ring\",\"inputs\":\"%s\"}}",
             path);
    check_given(cfg, "allgather-ring", 3, 3, all);
    static const struct {
        const char *inputs, *want;
    } bad[] = {
        {"[[1,2],[3,4],[5,6]]", "algorithm.inputs: found 3 rows; allowed: 4 rows, one per node "
                                "(node x's input values), or a file name"},
        {"[[1,2],[3,4],[5],[7,8]]",
         "algorithm.inputs: found 1 values for node 2; allowed: 2 values for node 2 (block "
         "values per node; block 2, p = 4)"},
        {"[[1,2],[3.5,4],[5,6],[7,8]]", "algorithm.inputs: found a value out of range at node 1, "
                                        "index 0; allowed: integers from -274877906944 to "
                                        "274877906944"},
        {"[[1,2],[3,4],[5,6],[7,274877906945]]",
         "algorithm.inputs: found a value out of range at node 3, index 1"},
        {"7", "algorithm.inputs: found a number or boolean; allowed: 4 rows"},
        {"\"/nonexistent/in.txt\"", "algorithm.inputs: found \"/nonexistent/in.txt\" (No such "
                                    "file or directory); allowed: a readable file of p lines"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(cfg, sizeof cfg,
                 "{\"topology\":{\"kind\":\"hypercube\",\"dim\":2},\"algorithm\":{\"name\":"
                 "\"allreduce-ring\",\"block\":2,\"inputs\":%s}}",
                 bad[i].inputs);
        hm_trun_t r = hm_t_run(cfg, NULL);
        ck_assert_int_eq(r.rc, 2);
        ck_assert_msg(r.message && strstr(r.message, bad[i].want), "%s: %s", cfg,
                      r.message ? r.message : "(none)");
        hm_t_free(&r);
    }
    /* A file with a line too short for its node names the file. */
    f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("1 2\n3 4\n5 x\n7 8\n", f);
    fclose(f);
    snprintf(cfg, sizeof cfg,
             "{\"topology\":{\"kind\":\"hypercube\",\"dim\":2},\"algorithm\":{\"name\":"
             "\"allreduce-ring\",\"block\":2,\"inputs\":\"%s\"}}",
             path);
    hm_trun_t r = hm_t_run(cfg, NULL);
    ck_assert_int_eq(r.rc, 2);
    char want[800];
    snprintf(want, sizeof want,
             "algorithm.inputs: found a value out of range at node 2, index 1 in \"%s\"", path);
    ck_assert_msg(r.message && strstr(r.message, want), "%s", r.message ? r.message : "(none)");
    hm_t_free(&r);
    /* Four rows and a last empty line are read; five rows are five rows; a sixth line
     * is refused, the file not read further; a file larger than p + 1 lines of the
     * longest kind (32 bytes per value and 64 more: 5 x 128 bytes) is refused unread
     * (a million lines take no longer than six); a line longer than 128 bytes, or with
     * a NUL byte, is refused naming its number. */
    static const struct {
        const char *text;
        size_t len;
        const char *want, *allowed;
    } sizes[] = {
        {"1 2\n3 4\n5 6\n7 8\n\n", 17, NULL, NULL},
        {"1 2\n3 4\n5 6\n7 8\n9 10\n", 21, "found 5 rows in", "4 rows, one per node"},
        {"1 2\n3 4\n5 6\n7 8\n\n\n", 18, "found more than 5 lines in",
         "p lines of integers (and a last empty line), one per node"},
        {"1 2\n3 4\n5 6\n7 8\n9 10\n", 21, "found 4000021 bytes in",
         "at most 640 bytes (p + 1 lines of at most 128 bytes: 32 per value, at most 2 values "
         "a line for block 2 and p = 4, and 64 more)"},
        {"1 2\n3 4\n5\0 6\n7 8\n", 17, "found a NUL byte on line 3 in",
         "lines of integers separated by blanks"},
        {"1 2\n3 ", 6, "found line 2 longer than 128 bytes in",
         "lines of at most 128 bytes (32 per value, at most 2 values a line for block 2 and p = "
         "4, and 64 more)"},
    };
    for (int k = 0; k < 6; k++) {
        f = fopen(path, "w");
        ck_assert_ptr_nonnull(f);
        ck_assert_uint_eq(fwrite(sizes[k].text, 1, sizes[k].len, f), sizes[k].len);
        for (int i = 0; k == 3 && i < 1000000; i++)
            fputs("1 2\n", f);
        if (k == 5) /* line 2: "3", 200 blanks and "4": 203 bytes, the file 216 */
            fprintf(f, "%200s4\n5 6\n7 8\n", "");
        fclose(f);
        r = hm_t_run(cfg, NULL);
        ck_assert_int_eq(r.rc, sizes[k].want ? 2 : 0);
        if (sizes[k].want) {
            snprintf(want, sizeof want, "algorithm.inputs: %s \"%s\"; allowed: %s", sizes[k].want,
                     path, sizes[k].allowed);
            ck_assert_msg(r.message && strstr(r.message, want), "%s",
                          r.message ? r.message : "(none)");
        }
        hm_t_free(&r);
    }
    /* Not a regular file: refused before anything is read (a FIFO without a writer
     * would block the open and every read). */
    char fifo[700];
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    const char *kinds[][2] = {
        {fifo, "a FIFO"}, {dir, "a directory"}, {"/dev/zero", "a character device"}};
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) {
        snprintf(cfg, sizeof cfg,
                 "{\"topology\":{\"kind\":\"hypercube\",\"dim\":2},\"algorithm\":{\"name\":"
                 "\"allreduce-ring\",\"block\":2,\"inputs\":\"%s\"}}",
                 kinds[i][0]);
        r = hm_t_run(cfg, NULL);
        ck_assert_int_eq(r.rc, 2);
        snprintf(want, sizeof want,
                 "algorithm.inputs: found \"%s\", %s; allowed: a regular file of p lines of "
                 "integers, or an array of p rows",
                 kinds[i][0], kinds[i][1]);
        ck_assert_msg(r.message && strstr(r.message, want), "%s", r.message ? r.message : "(none)");
        hm_t_free(&r);
    }
    hm_t_rmtree(dir);
}
END_TEST

/* ---- the public hm_root and hm_input ------------------------------------------------ */

static int seen_root[16];
static size_t seen_count[16];
static const int64_t *seen_input[16];
static int io_ok;

/* Each node notes what the public API gives it (its own slot of the arrays). */
static void io_node_main(hm_node_t *n, void *state)
{
    (void)state;
    int x = hm_id(n);
    seen_root[x] = hm_root(n);
    seen_input[x] = hm_input(n, &seen_count[x]);
}

/* After the run, against the problem's own inputs (collectives only). */
static void io_verify(hm_report_t *r)
{
    const hma_prob_t *pb = r->state;
    io_ok = 1;
    for (int x = 0; x < pb->p; x++)
        io_ok &= seen_root[x] == pb->root && seen_count[x] == pb->incount[x] &&
                 (pb->incount[x] ? seen_input[x] == pb->in[x] : seen_input[x] == NULL);
    r->verified = 1;
}

static void noop_verify(hm_report_t *r)
{
    r->verified = 1;
}

/* hm_root(n) and hm_input(n, &count) give every node the problem's root (-1 when
 * rootless) and its own inputs: the root's p*b values for scatter, none elsewhere;
 * p*b everywhere for alltoall; b for allreduce. An algorithm with a root parameter
 * (sbt-broadcast) gives its root; one that declares none gives -1 and no input. */
START_TEST(test_public_root_input)
{
    static const struct {
        const char *name, *extra;
        int root;
        size_t root_count, other_count;
    } cases[] = {
        {"scatter-bst", ",\"root\":6,\"block\":3", 6, 48, 0},
        {"alltoall-pairwise", ",\"block\":2", -1, 32, 32},
        {"allreduce-ring", ",\"block\":5", -1, 5, 5},
        {"bcast-binomial", ",\"root\":15", 15, 1, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        hm_algorithm_t algo = *hm_algorithm_find(cases[i].name);
        algo.node_main = io_node_main;
        algo.verify = io_verify;
        char cfg[400];
        snprintf(cfg, sizeof cfg,
                 "{\"topology\":{\"kind\":\"hypercube\",\"dim\":4},\"ports\":{\"model\":"
                 "\"all-port\"},\"algorithm\":{\"name\":\"%s\"%s}}",
                 cases[i].name, cases[i].extra);
        io_ok = 0;
        hm_trun_t r = hm_t_run_algo(cfg, &algo);
        ck_assert_int_eq(r.rc, 0);
        ck_assert_int_eq(io_ok, 1);
        for (int x = 0; x < 16; x++) {
            ck_assert_int_eq(seen_root[x], cases[i].root);
            ck_assert_uint_eq(seen_count[x], x == cases[i].root || cases[i].root < 0
                                                 ? cases[i].root_count
                                                 : cases[i].other_count);
        }
        hm_t_free(&r);
    }
    static const char *const plain[] = {"sbt-broadcast", "successive-broadcast"};
    for (int i = 0; i < 2; i++) {
        hm_algorithm_t algo = *hm_algorithm_find(plain[i]);
        algo.node_main = io_node_main;
        algo.verify = noop_verify;
        char cfg[300];
        snprintf(cfg, sizeof cfg,
                 "{\"topology\":{\"kind\":\"hypercube\",\"dim\":3},"
                 "\"algorithm\":{\"name\":\"%s\"%s}}",
                 plain[i], i == 0 ? ",\"root\":5" : "");
        hm_trun_t r = hm_t_run_algo(cfg, &algo);
        ck_assert_int_eq(r.rc, 0);
        ck_assert_str_eq(hm_t_str(&r, "problem"), "broadcast");
        for (int x = 0; x < 8; x++) {
            ck_assert_int_eq(seen_root[x], i == 0 ? 5 : -1);
            ck_assert_uint_eq(seen_count[x], 0);
            ck_assert_ptr_null(seen_input[x]);
        }
        hm_t_free(&r);
    }
}
END_TEST

static int seen_op[16];

static void op_node_main(hm_node_t *n, void *state)
{
    (void)state;
    seen_op[hm_id(n)] = (int)hm_op(n);
}

/* hm_op(n) gives every node the run's algorithm.op for the reductions (allreduce-ring,
 * reduce-binomial), HM_OP_SUM for an algorithm whose problem does not reduce. */
START_TEST(test_public_op)
{
    static const struct {
        const char *name, *extra;
        int op;
    } cases[] = {
        {"allreduce-ring", ",\"op\":\"max\"", HM_OP_MAX},
        {"allreduce-ring", ",\"op\":\"min\"", HM_OP_MIN},
        {"allreduce-ring", "", HM_OP_SUM},
        {"reduce-binomial", ",\"op\":\"min\",\"root\":3", HM_OP_MIN},
        {"bcast-binomial", "", HM_OP_SUM},
        {"sbt-broadcast", "", HM_OP_SUM},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        hm_algorithm_t algo = *hm_algorithm_find(cases[i].name);
        algo.node_main = op_node_main;
        algo.verify = noop_verify;
        char cfg[300];
        snprintf(cfg, sizeof cfg,
                 "{\"topology\":{\"kind\":\"hypercube\",\"dim\":3},"
                 "\"algorithm\":{\"name\":\"%s\"%s}}",
                 cases[i].name, cases[i].extra);
        memset(seen_op, -1, sizeof seen_op);
        hm_trun_t r = hm_t_run_algo(cfg, &algo);
        ck_assert_int_eq(r.rc, 0);
        for (int x = 0; x < 8; x++)
            ck_assert_int_eq(seen_op[x], cases[i].op);
        hm_t_free(&r);
    }
}
END_TEST

/* Right stores, wrong time: a run that takes longer than its own formula fails. */
static void late_node_main(hm_node_t *n, void *state)
{
    const hma_prob_t *pb = state;
    int x = hm_id(n);
    /* One packet in slot 3 keeps the run busy beyond log2 p = 2 slots. */
    if (x == 0 && hm_wait_until(n, 3) == HM_OK) {
        int64_t v = 0;
        hma_prob_send(n, pb, 0, 0, &v, 1);
    }
    size_t want = hma_prob_expected_count(pb, x);
    for (size_t i = 0; i < want; i++)
        hm_store(n, oracle(pb, x, i));
}

START_TEST(test_over_formula_fails)
{
    const hm_algorithm_t *base = hm_algorithm_find("allreduce-recursive-doubling");
    ck_assert_ptr_nonnull(base);
    hm_algorithm_t algo = *base;
    algo.node_main = late_node_main;
    hm_trun_t r = hm_t_run_algo("{\"topology\":{\"kind\":\"hypercube\",\"dim\":2},"
                                "\"algorithm\":{\"name\":\"allreduce-recursive-doubling\"}}",
                                &algo);
    ck_assert_int_eq(hm_t_int(&r, "completion_slots"), 4);
    ck_assert_int_eq(hm_t_int(&r, "verified"), 0);
    ck_assert_str_eq(hm_t_str(&r, "verification"),
                     "allreduce stored right, but completion 4 slots is not the algorithm's "
                     "exact cost log2(p) = 2");
    hm_t_free(&r);
}
END_TEST

/* Bad parameters and machines are config errors (exit 2) that say what is allowed. */
START_TEST(test_setup_errors)
{
    static const struct {
        const char *topo, *algo, *want;
    } cases[] = {
        {"\"dim\":10", "\"alltoall-pairwise\",\"block\":65536",
         "algorithm.block: found 65536 (68719476736 input values in all); allowed: a block "
         "with at most 16777216 input values in all"},
        {"\"dim\":2", "\"allreduce-ring\",\"op\":\"prod\"",
         "algorithm.op: found \"prod\"; allowed: one of sum|max|min"},
        {"\"dim\":2", "\"bcast-binomial\",\"root\":4",
         "algorithm.root: found 4; allowed: an integer from 0 to 3"},
        {"\"dim\":0", "\"allgather-ring\"",
         "topology.dim: found 0; allowed for allgather-ring: topology.dim >= 1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char cfg[512];
        snprintf(cfg, sizeof cfg,
                 "{\"topology\":{\"kind\":\"hypercube\",%s},\"algorithm\":{\"name\":%s}}",
                 cases[i].topo, cases[i].algo);
        hm_trun_t r = hm_t_run(cfg, NULL);
        ck_assert_int_eq(r.rc, 2);
        ck_assert_msg(r.message && strstr(r.message, cases[i].want), "%s: %s", cfg,
                      r.message ? r.message : "(none)");
        hm_t_free(&r);
    }
}
END_TEST

Suite *hm_suite_collectives(void)
{
    Suite *s = suite_create("collectives");
    TCase *tc = tcase_create("algorithms");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_algorithm_sizes, 0, NALGOS);
    tcase_add_loop_test(tc, test_free_clock, 0, NALGOS);
    suite_add_tcase(s, tc);
    tc = tcase_create("problems");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_lower_bounds);
    tcase_add_test(tc, test_summary_keys);
    tcase_add_loop_test(tc, test_wrong_store_caught, 0, 8);
    tcase_add_test(tc, test_over_formula_fails);
    tcase_add_test(tc, test_setup_errors);
    tcase_add_test(tc, test_balanced_tree);
    tcase_add_test(tc, test_scatter_notes_bound);
    tcase_add_test(tc, test_public_root_input);
    tcase_add_test(tc, test_public_op);
    tcase_add_test(tc, test_ring_torus_topology);
    tcase_add_test(tc, test_ring_torus_algorithms);
    tcase_add_test(tc, test_ring_lower_bounds);
    tcase_add_test(tc, test_circuit_cost);
    tcase_add_test(tc, test_circuit_cost_ring);
    tcase_add_test(tc, test_bus_any_p);
    tcase_add_test(tc, test_bus_rabenseifner);
    tcase_add_test(tc, test_bus_rs_halving);
    tcase_add_test(tc, test_circuit_uneven_chunks);
    tcase_add_test(tc, test_bus_scatter_allgather);
    tcase_add_test(tc, test_bus_pairwise);
    tcase_add_test(tc, test_circuit_lower_bounds);
    tcase_add_test(tc, test_inputs_from_config);
    suite_add_tcase(s, tc);
    tc = tcase_create("bounds");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_route_direct);
    tcase_add_test(tc, test_chan_bounds);
    tcase_add_test(tc, test_bound_sweep);
    tcase_add_test(tc, test_max_slots_cost);
    suite_add_tcase(s, tc);
    return s;
}
