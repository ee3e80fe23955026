/* SPDX-License-Identifier: MIT */
/*
 * check_bus.c — the bus topology, the bus port model and Dechter-Kleinrock's MAX and
 * MERGE-SORT (1981) against the paper's examples and Theorem 1.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"

/* ---- helpers ---------------------------------------------------------------- */

static const char MAX_EXAMPLE[] = "[25, 17, 34, 45, 12, 70, 83, 75]";

/* The merge-sort example of section 2 (n = 12, k = 4): the columns after phase 1,
 * P1 first, top of each stack first. */
static const char SORT_EXAMPLE[] = "[63, 54, 25, 79, 64, 28, 84, 75, 32, 66, 65, 17]";

static hm_trun_t run_bus(int k, const char *algo, const char *params, const char *contention,
                         long seed, const char *timeline)
{
    char *cfg = NULL;
    char out[512] = "";
    if (timeline)
        snprintf(out, sizeof out, ",\"output\":{\"timeline\":\"%s\"}", timeline);
    int rc = asprintf(&cfg,
                      "{\"topology\":{\"kind\":\"bus\",\"nodes\":%d},\"contention\":\"%s\","
                      "\"algorithm\":{\"name\":\"%s\"%s%s},\"seed\":%ld%s}",
                      k + 1, contention, algo, params[0] ? "," : "", params, seed, out);
    ck_assert_int_ge(rc, 0);
    hm_trun_t r = hm_t_run(cfg, NULL);
    free(cfg);
    return r;
}

static json_t *key(const hm_trun_t *r, const char *k)
{
    ck_assert_ptr_nonnull(r->summary);
    json_t *v = json_object_get(r->summary, k);
    ck_assert_msg(v != NULL, "summary has no key %s", k);
    return v;
}

static double real_value(const hm_trun_t *r, const char *k)
{
    json_t *v = key(r, k);
    if (json_is_object(v))
        v = json_object_get(v, "value");
    ck_assert_msg(json_is_number(v), "%s is not a number", k);
    return json_number_value(v);
}

static void assert_list(const hm_trun_t *r, const char *k, const long *want, size_t n)
{
    json_t *v = key(r, k);
    ck_assert_msg(json_is_array(v), "%s is not a list", k);
    ck_assert_int_eq(json_array_size(v), n);
    for (size_t i = 0; i < n; i++)
        ck_assert_int_eq(json_integer_value(json_array_get(v, i)), want[i]);
}

/* The exact solution of T(k) = 1 + (1/k) sum_{i<k} T(i), T(0) = T(1) = 0. */
static double exact_T(int k)
{
    if (k < 2)
        return 0;
    double h = 0;
    for (int i = 1; i <= k; i++)
        h += 1.0 / i;
    return h - 0.5;
}

/* ---- topology and port model ------------------------------------------------ */

/* Every bus node has a port to every other node, in node order, and the port back
 * leads home. */
START_TEST(test_bus_topology_tables)
{
    for (int nodes = 2; nodes <= 65; nodes++) {
        hm__options_t opt = {0};
        opt.info.topology = HM_TOPO_BUS;
        opt.info.nodes = nodes;
        opt.info.ports = HM_PORTS_BUS;
        opt.info.link_capacity = 1;
        opt.mailbox_capacity = 4;
        hm__machine_t *m = NULL;
        char err[256];
        ck_assert_int_eq(hm__machine_create(&m, &opt, NULL, NULL, err, sizeof err), 0);
        ck_assert_int_eq(m->maxdeg, nodes - 1);
        for (int x = 0; x < nodes; x++) {
            ck_assert_int_eq(m->deg[x], nodes - 1);
            for (int p = 0; p < nodes - 1; p++) {
                int y = m->nbr[x * m->maxdeg + p];
                ck_assert_int_eq(y, p < x ? p : p + 1);
                int back = m->rport[x * m->maxdeg + p];
                ck_assert_int_eq(m->nbr[y * m->maxdeg + back], x);
            }
        }
        hm__machine_destroy(m);
    }
}
END_TEST

START_TEST(test_bus_config_limits)
{
    /* 1026 nodes: the directed links grow as nodes^2 (topo/bus.c). */
    hm_trun_t r = run_bus(1025, "max", "", "strict", 1, NULL);
    ck_assert_int_eq(r.rc, 2);
    ck_assert_str_eq(r.message,
                     "test.json: topology.nodes: found 1026; allowed: an integer from 2 to 1025\n");
    hm_t_free(&r);
    /* max needs the bus port model and the bus topology. */
    r = hm_t_run("{\"topology\":{\"kind\":\"bus\",\"nodes\":4},\"ports\":{\"model\":\"shout\"},"
                 "\"algorithm\":{\"name\":\"max\"}}",
                 NULL);
    ck_assert_int_eq(r.rc, 2);
    ck_assert_str_eq(r.message, "test.json: ports.model: found \"shout\"; allowed for max: bus\n");
    hm_t_free(&r);
    r = hm_t_run("{\"topology\":{\"kind\":\"hypercube\",\"dim\":2},"
                 "\"algorithm\":{\"name\":\"merge-sort\"}}",
                 NULL);
    ck_assert_int_eq(r.rc, 2);
    ck_assert_msg(strstr(r.message, "topology.kind: found \"hypercube\"; allowed for "
                                    "merge-sort: bus") != NULL,
                  "%s", r.message);
    hm_t_free(&r);
    /* One value per processor. */
    r = run_bus(4, "max", "\"values\":[1,2,3]", "strict", 1, NULL);
    ck_assert_int_eq(r.rc, 2);
    ck_assert_str_eq(r.message, "test.json: algorithm.values: found a list of 3 values; "
                                "allowed: a list of k = 4 integers\n");
    hm_t_free(&r);
    r = run_bus(4, "merge-sort", "\"values\":[1,2,3],\"n\":4", "strict", 1, NULL);
    ck_assert_int_eq(r.rc, 2);
    ck_assert_str_eq(r.message, "test.json: algorithm.n: found n = 4 with 3 values; "
                                "allowed: the length of algorithm.values, or no n");
    hm_t_free(&r);
    r = run_bus(4, "max", "\"silent_slots\":2", "strict", 1, NULL);
    ck_assert_int_eq(r.rc, 2);
    ck_assert_str_eq(r.message, "test.json: algorithm.silent_slots: found 2; allowed: an "
                                "integer from 0 to 1\n");
    hm_t_free(&r);
}
END_TEST

/* Two transmitters in one slot: strict stops the run, exit 1, naming the slot and
 * both nodes (max with schedule "none": every processor transmits in slot 0). */
START_TEST(test_bus_collision_strict)
{
    char *params;
    ck_assert_int_ge(asprintf(&params, "\"values\":%s,\"schedule\":\"none\"", MAX_EXAMPLE), 0);
    hm_trun_t r = run_bus(8, "max", params, "strict", 1, NULL);
    ck_assert_int_eq(r.rc, 1);
    ck_assert_str_eq(r.message, "slot 0: bus collision: nodes 0 and 1 both transmit in one "
                                "slot: msg 1 on link 0->1 (port 0) and msg 2 on link 1->0 "
                                "(port 0)");
    ck_assert_int_eq(hm_t_int(&r, "verified"), 0);
    ck_assert_int_ge(hm_t_int(&r, "conflicts"), 1);
    hm_t_free(&r);
    free(params);

    /* The same through the program: exit 1 and the report on stderr. */
    char *dir = hm_t_tmpdir(), *path, *out = NULL, *err = NULL;
    ck_assert_int_ge(asprintf(&path, "%s/collide.json", dir), 0);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f, "{\"topology\":{\"kind\":\"bus\",\"nodes\":3},\"algorithm\":{\"name\":\"max\","
               "\"values\":[5,9],\"schedule\":\"none\"}}\n");
    fclose(f);
    const char *args[] = {path, NULL};
    ck_assert_int_eq(hm_t_exec(dir, &out, &err, args), 1);
    ck_assert_msg(strstr(err, "slot 0: bus collision: nodes 0 and 1 both transmit in one slot") !=
                      NULL,
                  "stderr: %s", err);
    free(out);
    free(err);
    remove(path);
    rmdir(dir);
    free(path);
    free(dir);
}
END_TEST

/* Under queue the bus serialises the k transmitters: one per slot, oldest first. */
START_TEST(test_bus_collision_queue)
{
    char *params;
    ck_assert_int_ge(asprintf(&params, "\"values\":%s,\"schedule\":\"none\"", MAX_EXAMPLE), 0);
    hm_trun_t r = run_bus(8, "max", params, "queue", 1, NULL);
    ck_assert_msg(r.rc == 0, "rc %d %s", r.rc, r.message ? r.message : "");
    ck_assert_int_eq(hm_t_int(&r, "result"), 83);
    ck_assert_int_eq(hm_t_int(&r, "completion_slots"), 8);
    ck_assert_int_eq(hm_t_int(&r, "transmissions"), 8 * 8);
    /* Processors 1..7 each had their 8 copies held at least once. */
    ck_assert_int_eq(hm_t_int(&r, "delayed_packets"), 7 * 8);
    /* Processor j waited j slots: 8 * (1 + ... + 7). */
    ck_assert_int_eq(hm_t_int(&r, "delay_slots"), 8 * 28);
    hm_t_free(&r);
    free(params);
}
END_TEST

/* Same config and seed, byte-identical timeline (README "Slot semantics"), whatever the
 * scheduling of the 13 threads. */
START_TEST(test_bus_deterministic)
{
    char *dir = hm_t_tmpdir(), *tl[2], *text[2];
    for (int i = 0; i < 2; i++) {
        ck_assert_int_ge(asprintf(&tl[i], "%s/run%d.timeline.txt", dir, i), 0);
        hm_trun_t r = run_bus(12, "merge-sort", "\"n\":40", "strict", 99, tl[i]);
        ck_assert_int_eq(r.rc, 0);
        hm_t_free(&r);
        text[i] = hm_t_slurp(tl[i], NULL);
        ck_assert_ptr_nonnull(text[i]);
    }
    ck_assert_str_eq(text[0], text[1]);
    for (int i = 0; i < 2; i++) {
        free(text[i]);
        remove(tl[i]);
        free(tl[i]);
    }
    rmdir(dir);
    free(dir);
}
END_TEST

/* ---- max -------------------------------------------------------------------- */

/* Section 1, the example: P1 P3 P4 P6 P7 broadcast 25 34 45 70 83; max 83. */
START_TEST(test_max_paper_example)
{
    char *dir = hm_t_tmpdir(), *tl, *params;
    ck_assert_int_ge(asprintf(&tl, "%s/max.timeline.txt", dir), 0);
    ck_assert_int_ge(asprintf(&params, "\"values\":%s", MAX_EXAMPLE), 0);
    hm_trun_t r = run_bus(8, "max", params, "strict", 1, tl);
    ck_assert_msg(r.rc == 0, "rc %d %s", r.rc, r.message ? r.message : "");
    ck_assert_int_eq(hm_t_int(&r, "result"), 83);
    ck_assert_int_eq(hm_t_int(&r, "broadcasts"), 5);
    ck_assert_int_eq(hm_t_int(&r, "silent_turns"), 3);
    ck_assert_int_eq(hm_t_int(&r, "comparisons"), 5);
    const long speakers[] = {0, 2, 3, 5, 6}, said[] = {25, 34, 45, 70, 83};
    assert_list(&r, "speakers", speakers, 5);
    assert_list(&r, "broadcast_values", said, 5);
    ck_assert_str_eq(hm_t_str(&r, "verification"),
                     "the output processor stored the maximum 83; 5 real broadcasts (P1 P3 P4 "
                     "P6 P7), 3 silent turns");
    /* k turns of one slot each. */
    ck_assert_int_eq(hm_t_int(&r, "completion_slots"), 8);
    ck_assert_int_eq(hm_t_bound(&r, "bound"), 8);
    ck_assert_int_eq(hm_t_int(&r, "channel_slots"), 8);
    ck_assert_int_eq(hm_t_int(&r, "transmissions"), 5 * 8);
    ck_assert_int_eq(hm_t_int(&r, "conflicts"), 0);
    hm_t_free(&r);

    char *text = hm_t_slurp(tl, NULL);
    ck_assert_ptr_nonnull(text);
    static const char *const lines[] = {
        "     0 0 log      P1 broadcasts 25\n", "     2 2 log      P3 broadcasts 34\n",
        "     3 3 log      P4 broadcasts 45\n", "     5 5 log      P6 broadcasts 70\n",
        "     6 6 log      P7 broadcasts 83\n", "     8 8 store    value 83\n",
    };
    for (size_t i = 0; i < sizeof lines / sizeof *lines; i++)
        ck_assert_msg(strstr(text, lines[i]) != NULL, "timeline lacks: %s", lines[i]);
    free(text);
    remove(tl);
    rmdir(dir);
    free(tl);
    free(dir);
    free(params);
}
END_TEST

/* An empty turn that costs nothing: the channel time is the 5 real broadcasts. */
START_TEST(test_max_silent_free)
{
    char *params;
    ck_assert_int_ge(asprintf(&params, "\"values\":%s,\"silent_slots\":0", MAX_EXAMPLE), 0);
    hm_trun_t r = run_bus(8, "max", params, "strict", 1, NULL);
    ck_assert_int_eq(r.rc, 0);
    ck_assert_int_eq(hm_t_int(&r, "result"), 83);
    ck_assert_int_eq(hm_t_int(&r, "broadcasts"), 5);
    ck_assert_int_eq(hm_t_int(&r, "silent_turns"), 3);
    ck_assert_int_eq(hm_t_int(&r, "channel_slots"), 5);
    /* The last real broadcast is P7's, in slot 6. */
    ck_assert_int_eq(hm_t_int(&r, "completion_slots"), 7);
    hm_t_free(&r);
    free(params);
}
END_TEST

/* The summary's T(k) is the recurrence solved exactly, H_k - 1/2, below log2 k. */
START_TEST(test_max_exact_T)
{
    int k = _i;
    hm_trun_t r = run_bus(k, "max", "", "strict", 1, NULL);
    ck_assert_int_eq(r.rc, 0);
    double t = real_value(&r, "expected_comparisons");
    ck_assert_msg(fabs(t - exact_T(k)) < 1e-9, "k=%d T=%.12f exact %.12f", k, t, exact_T(k));
    ck_assert_msg(t <= log2(k) + 1e-12, "k=%d T=%f > log2 k", k, t);
    ck_assert_msg(fabs(real_value(&r, "comparisons_bound") - log2(k)) < 1e-12, "k=%d", k);
    hm_t_free(&r);
}
END_TEST

/* Every k from 2 to 64, 8000 seeded instances (seed k): the maximum always right,
 * the mean number of comparisons within 2% of T(k) (8000 trials put 2% beyond four
 * standard deviations of the mean for every k <= 64: the variance follows from the
 * same recurrence), the mean number of real broadcasts within 2% of H_k.
 *
 * Under a sanitizer (CI's ASan and TSan runs) the loop covers a spread of k only:
 * those runs look for races and memory errors, which every k exercises alike, and
 * the full sweep costs minutes there. The plain run covers every k. */
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define HM_T_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define HM_T_SANITIZED 1
#endif
#endif
#ifdef HM_T_SANITIZED
static const int mean_ks[] = {2, 3, 5, 8, 13, 21, 34, 64};
#define MEAN_K(i) mean_ks[i]
#define MEAN_FIRST 0
#define MEAN_END ((int)(sizeof mean_ks / sizeof *mean_ks))
#else
#define MEAN_K(i) (i)
#define MEAN_FIRST 2
#define MEAN_END 65
#endif

START_TEST(test_max_mean_comparisons)
{
    int k = MEAN_K(_i);
    hm_trun_t r = run_bus(k, "max", "\"trials\":8000", "strict", k, NULL);
    ck_assert_msg(r.rc == 0, "k=%d rc %d %s", k, r.rc, r.message ? r.message : "");
    ck_assert_int_eq(hm_t_int(&r, "verified"), 1);
    ck_assert_int_eq(hm_t_int(&r, "trials"), 8000);
    ck_assert_int_eq(hm_t_int(&r, "completion_slots"), k);
    ck_assert_int_eq(hm_t_int(&r, "conflicts"), 0);
    ck_assert_int_eq(hm_t_int(&r, "broadcasts") + hm_t_int(&r, "silent_turns"), 8000 * k);
    double mean = real_value(&r, "mean_comparisons"), t = exact_T(k);
    ck_assert_msg(fabs(mean - t) <= 0.02 * t, "k=%d mean comparisons %f, T(k) %f", k, mean, t);
    double hk = exact_T(k) + 0.5, mb = real_value(&r, "mean_broadcasts");
    ck_assert_msg(fabs(mb - hk) <= 0.02 * hk, "k=%d mean broadcasts %f, H_k %f", k, mb, hk);
    hm_t_free(&r);
}
END_TEST

/* Values drawn with the seed: a permutation of 1..k, so the maximum is k. */
START_TEST(test_max_drawn)
{
    for (int k = 1; k <= 64; k += 7)
        for (long seed = 1; seed <= 5; seed++) {
            hm_trun_t r = run_bus(k, "max", "", "strict", seed, NULL);
            ck_assert_msg(r.rc == 0, "k=%d seed %ld rc %d", k, seed, r.rc);
            ck_assert_int_eq(hm_t_int(&r, "result"), k);
            ck_assert_int_ge(hm_t_int(&r, "broadcasts"), 1);
            hm_t_free(&r);
        }
}
END_TEST

/* ---- merge-sort ---------------------------------------------------------------- */

/* Section 2, the example: the merged list, and the paper's table (turns of each
 * cycle, "-" for an empty turn, the merged element and the stack) in the timeline.
 * The rows follow from the rules: cycle 1 is P1's; cycle 2 is case a (P2 rebroadcasts
 * 79, the element before 84); cycle 3 is case b.1 (79 was second in cycle 1, after
 * P1's 63); cycle 8 is case b.2 (63 was first in cycle 1: P1 again); after cycle 11
 * P1, P2 and P3 are empty and the first processor to P1's right with elements is P4. */
START_TEST(test_msort_paper_example)
{
    char *dir = hm_t_tmpdir(), *tl, *params;
    ck_assert_int_ge(asprintf(&tl, "%s/sort.timeline.txt", dir), 0);
    ck_assert_int_ge(asprintf(&params, "\"values\":%s", SORT_EXAMPLE), 0);
    hm_trun_t r = run_bus(4, "merge-sort", params, "strict", 1, tl);
    ck_assert_msg(r.rc == 0, "rc %d %s", r.rc, r.message ? r.message : "");
    const long sorted[] = {84, 79, 75, 66, 65, 64, 63, 54, 32, 28, 25, 17};
    assert_list(&r, "result", sorted, 12);
    ck_assert_int_eq(hm_t_int(&r, "broadcasts"), 20);
    ck_assert_int_eq(hm_t_bound(&r, "broadcasts_bound"), 23);
    ck_assert_int_eq(hm_t_bound(&r, "broadcasts_lower"), 12);
    ck_assert_int_eq(hm_t_int(&r, "silent_turns"), 12 * 4 - 20);
    ck_assert_int_eq(hm_t_int(&r, "completion_slots"), 48);
    ck_assert_int_eq(hm_t_bound(&r, "bound"), 48);
    ck_assert_int_eq(hm_t_int(&r, "transmissions"), 20 * 4);
    ck_assert_str_eq(hm_t_str(&r, "verification"),
                     "the output processor holds the 12 values in nonincreasing order; "
                     "S(n,k) = 20 broadcasts, within n <= S <= 2n-1 = 23");
    hm_t_free(&r);

    char *text = hm_t_slurp(tl, NULL);
    ck_assert_ptr_nonnull(text);
    static const char *const rows[] = {
        "cycle 1: P1 63 P2 79 P3 84 P4 - | merged 84 from P3 | stack 63 79 | case a: P2 "
        "rebroadcasts 79\n",
        "cycle 2: P2 79 P3 - P4 - P1 - | merged 79 from P2 | stack 63 | case b.1: P1 "
        "rebroadcasts 63\n",
        "cycle 3: P1 63 P2 64 P3 75 P4 - | merged 75 from P3 | stack 63 64 | case a: P2 "
        "rebroadcasts 64\n",
        "cycle 4: P2 64 P3 - P4 66 P1 - | merged 66 from P4 | stack 63 64 | case a: P2 "
        "rebroadcasts 64\n",
        "cycle 5: P2 64 P3 - P4 65 P1 - | merged 65 from P4 | stack 63 64 | case a: P2 "
        "rebroadcasts 64\n",
        "cycle 6: P2 64 P3 - P4 - P1 - | merged 64 from P2 | stack 63 | case b.1: P1 "
        "rebroadcasts 63\n",
        "cycle 7: P1 63 P2 - P3 - P4 - | merged 63 from P1 | stack empty | case b.2: P1 "
        "starts\n",
        "cycle 8: P1 54 P2 - P3 - P4 - | merged 54 from P1 | stack empty | case b.2: P1 "
        "starts\n",
        "cycle 9: P1 25 P2 28 P3 32 P4 - | merged 32 from P3 | stack 25 28 | case a: P2 "
        "rebroadcasts 28\n",
        "cycle 10: P2 28 P3 - P4 - P1 - | merged 28 from P2 | stack 25 | case b.1: P1 "
        "rebroadcasts 25\n",
        "cycle 11: P1 25 P2 - P3 - P4 - | merged 25 from P1 | stack empty | case b.2: P4 "
        "starts\n",
        "cycle 12: P4 17 P1 - P2 - P3 - | merged 17 from P4 | stack empty | done\n",
    };
    /* One row per cycle, logged by the output processor (node 4) at the cycle's end. */
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        char *line;
        ck_assert_int_ge(asprintf(&line, "%6zu 4 log      %s", 4 * (i + 1), rows[i]), 0);
        ck_assert_msg(strstr(text, line) != NULL, "timeline lacks: %s", line);
        free(line);
    }
    free(text);
    remove(tl);
    rmdir(dir);
    free(tl);
    free(dir);
    free(params);
}
END_TEST

/* Uneven blocks (n mod k != 0), processors with nothing, equal values, one value. */
START_TEST(test_msort_uneven_and_ties)
{
    static const struct {
        int k;
        const char *values;
        long n;
        long sorted[12];
    } cases[] = {
        {4, "[1, 9, 2, 8, 3, 7, 4, 6, 5, 10]", 10, {10, 9, 8, 7, 6, 5, 4, 3, 2, 1}},
        {5, "[2, 3, 1]", 3, {3, 2, 1}},
        {3, "[5, 5, 1, 5, 7, 5, 7]", 7, {7, 7, 5, 5, 5, 5, 1}},
        {6, "[42]", 1, {42}},
        {2, "[-3, 0, -7, 12]", 4, {12, 0, -3, -7}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *params;
        ck_assert_int_ge(asprintf(&params, "\"values\":%s", cases[i].values), 0);
        hm_trun_t r = run_bus(cases[i].k, "merge-sort", params, "strict", 1, NULL);
        ck_assert_msg(r.rc == 0, "case %zu rc %d %s", i, r.rc, r.message ? r.message : "");
        assert_list(&r, "result", cases[i].sorted, (size_t)cases[i].n);
        int64_t s = hm_t_int(&r, "broadcasts");
        ck_assert_msg(cases[i].n <= s && s <= 2 * cases[i].n - 1, "case %zu S=%lld", i,
                      (long long)s);
        ck_assert_int_eq(hm_t_int(&r, "completion_slots"), cases[i].n * cases[i].k);
        hm_t_free(&r);
        free(params);
    }
}
END_TEST

/* The worst case: blocks in increasing order (P1 the smallest values, p = n/k each).
 * Cycle 1 broadcasts every top (k); each top of P1..P_(k-1) is broadcast once more
 * when it is popped alone (k - 1); each later element of P2..Pk costs the
 * rebroadcast of the top below it plus its own broadcast (2 each), each later
 * element of P1 one (case b.2): S = k + (k-1) + 2(n-k-(p-1)) + (p-1) = 2n - p, which
 * is Theorem 1's 2n - 1 when every processor holds one value, so the bound is tight.
 * An exhaustive search over every input with n <= 9 (k = 2, 3, 4; a model of the same
 * rules) found no input with more broadcasts than 2n - n/k. */
START_TEST(test_msort_worst_case)
{
    static const int sizes[][2] = {{2, 1},  {3, 1}, {4, 1}, {5, 1}, {8, 1}, {16, 1}, {32, 1},
                                   {64, 1}, {2, 4}, {3, 3}, {4, 2}, {4, 5}, {8, 3}};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        int k = sizes[i][0], per = sizes[i][1], n = k * per;
        size_t cap = 16 + (size_t)n * 8, len = 0;
        char *params = malloc(cap);
        ck_assert_ptr_nonnull(params);
        len += (size_t)snprintf(params, cap, "\"values\":[");
        for (int v = 1; v <= n; v++)
            len += (size_t)snprintf(params + len, cap - len, "%s%d", v > 1 ? "," : "", v);
        snprintf(params + len, cap - len, "],\"silent_slots\":0");
        hm_trun_t r = run_bus(k, "merge-sort", params, "strict", 1, NULL);
        ck_assert_msg(r.rc == 0, "k=%d n=%d rc %d %s", k, n, r.rc, r.message ? r.message : "");
        ck_assert_msg(hm_t_int(&r, "broadcasts") == 2 * n - per, "k=%d n=%d S=%lld", k, n,
                      (long long)hm_t_int(&r, "broadcasts"));
        if (per == 1)
            ck_assert_int_eq(hm_t_int(&r, "broadcasts"), hm_t_bound(&r, "broadcasts_bound"));
        hm_t_free(&r);
        free(params);
    }
}
END_TEST

/* A sequential model of section 2's rules (cyclic turns from the initiator, the
 * paper's stack): the number of broadcasts S for blocks of v cut as the algorithm
 * cuts them. Values are distinct here. */
static long model_S(int k, const long *v, int n)
{
    long st[64][64];
    int len[64], top[64], sp[64];
    long sv[64];
    int first = 0;
    for (int j = 0; j < k; j++) {
        len[j] = n / k + (j < n % k);
        top[j] = 0;
        for (int i = 0; i < len[j]; i++)
            st[j][i] = v[first + i];
        first += len[j];
        /* largest first */
        for (int a = 0; a < len[j]; a++)
            for (int b = a + 1; b < len[j]; b++)
                if (st[j][b] > st[j][a]) {
                    long t = st[j][a];
                    st[j][a] = st[j][b];
                    st[j][b] = t;
                }
    }
    int depth = 0, init = 0, reb = 0;
    long S = 0;
    while (len[init] == 0)
        init++;
    for (int c = 0; c < n; c++) {
        int m = 0, cur = -1;
        for (int r = 0; r < k; r++) {
            int j = (init + r) % k;
            if (top[j] < len[j] && (cur < 0 || st[j][top[j]] > st[cur][top[cur]])) {
                if (!(m == 0 && reb)) {
                    sp[depth] = j;
                    sv[depth++] = st[j][top[j]];
                }
                cur = j;
                m++;
                S++;
            }
        }
        int q = sp[--depth];
        ck_assert_int_eq(sv[depth], st[q][top[q]]);
        top[q]++;
        if (depth > 0) {
            init = sp[depth - 1];
            reb = 1;
        } else {
            init = q;
            for (int i = 0; i < k && top[init] == len[init]; i++)
                init = (init + 1) % k;
            reb = 0;
        }
    }
    return S;
}

/* The distributed run (threads, channel, replicas) against the sequential model, on
 * random inputs given as values. */
START_TEST(test_msort_matches_model)
{
    static const long example[] = {63, 54, 25, 79, 64, 28, 84, 75, 32, 66, 65, 17};
    ck_assert_int_eq(model_S(4, example, 12), 20);
    uint64_t x = 88172645463325252u; /* xorshift64, independent of hm_rng */
    for (int k = 2; k <= 9; k++)
        for (int rep = 0; rep < 6; rep++) {
            int n = 1 + (int)(k * rep + 3) % (4 * k);
            long v[64];
            for (int i = 0; i < n; i++) /* distinct: a permutation of 10, 20, ..., 10n */
                v[i] = 10L * (i + 1);
            for (int i = n - 1; i > 0; i--) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                int j = (int)(x % (uint64_t)(i + 1));
                long t = v[i];
                v[i] = v[j];
                v[j] = t;
            }
            char params[64 * 8 + 64];
            size_t len = (size_t)snprintf(params, sizeof params, "\"values\":[");
            for (int i = 0; i < n; i++)
                len += (size_t)snprintf(params + len, sizeof params - len, "%s%ld", i ? "," : "",
                                        v[i]);
            snprintf(params + len, sizeof params - len, "],\"silent_slots\":0");
            hm_trun_t r = run_bus(k, "merge-sort", params, "strict", 1, NULL);
            ck_assert_msg(r.rc == 0, "k=%d n=%d rc %d", k, n, r.rc);
            ck_assert_msg(hm_t_int(&r, "broadcasts") == model_S(k, v, n),
                          "k=%d n=%d: S %lld, "
                          "model %ld",
                          k, n, (long long)hm_t_int(&r, "broadcasts"), model_S(k, v, n));
            hm_t_free(&r);
        }
}
END_TEST

/* k from 2 to 64 and seeded inputs: always sorted, n <= S(n, k) <= 2n - 1
 * (Theorem 1); the worst S found is printed. Small k get many seeds and sizes; the
 * larger ones fewer, to keep the suite fast (every broadcast wakes k + 1 threads). */
START_TEST(test_msort_sweep)
{
    static const int big[] = {20, 24, 28, 32, 40, 48, 56, 64};
    int64_t worst_s = 0, worst_n = 1, worst_k = 0;
    double worst_ratio = 0;
    int runs = 0;
    for (int k = 2; k <= 64; k++) {
        int seeds = k <= 8 ? 12 : k <= 16 ? 3 : 0;
        for (size_t b = 0; b < sizeof big / sizeof *big; b++)
            seeds += big[b] == k;
        for (int seed = 1; seed <= seeds; seed++) {
            /* Sizes from below k (idle processors) to a few per processor. */
            long n = k <= 16 ? 1 + (seed * 7 + k) % (4 * k) : k + seed;
            char params[96];
            snprintf(params, sizeof params, "\"n\":%ld,\"silent_slots\":%d", n, seed % 2);
            hm_trun_t r = run_bus(k, "merge-sort", params, "strict", seed * 1000 + k, NULL);
            ck_assert_msg(r.rc == 0, "k=%d n=%ld seed %d: rc %d %s", k, n, seed, r.rc,
                          r.message ? r.message : "");
            ck_assert_int_eq(hm_t_int(&r, "verified"), 1);
            int64_t s = hm_t_int(&r, "broadcasts");
            ck_assert_msg(n <= s && s <= 2 * n - 1, "k=%d n=%ld S=%lld", k, n, (long long)s);
            /* The drawn list is a permutation of 1..n. */
            json_t *res = key(&r, "result");
            for (long i = 0; i < n; i++)
                ck_assert_int_eq(json_integer_value(json_array_get(res, (size_t)i)), n - i);
            /* Worst relative to the bound, among inputs of at least 2 values per
             * processor (tiny ones reach 2n - 1 trivially, see the worst case test). */
            double ratio = (double)s / (double)(2 * n - 1);
            if (n >= 2 * k && ratio > worst_ratio) {
                worst_ratio = ratio;
                worst_s = s;
                worst_n = n;
                worst_k = k;
            }
            runs++;
            hm_t_free(&r);
        }
    }
    fprintf(stderr,
            "merge-sort sweep: %d runs; worst S(n,k) with n >= 2k: %lld for n = %lld, "
            "k = %lld (2n-1 = %lld)\n",
            runs, (long long)worst_s, (long long)worst_n, (long long)worst_k,
            (long long)(2 * worst_n - 1));
}
END_TEST

/* ---- merge-sort: time in comparisons, Lemmas 1 and 2, the asynchronous note ------ */

/* The Conclusion's worst case as the abstract writes it, (n/k) log2(n/k) + 2n - 1,
 * and as the Conclusion prints it, (n log n)/k - (n log k)/n + 2n - 1. */
static double worst_abstract(double n, double k)
{
    return n / k * log2(n / k) + 2 * n - 1;
}

static double worst_printed(double n, double k)
{
    return n * log2(n) / k - n * log2(k) / n + 2 * n - 1;
}

/* The example with compare_slots = 1 and 5: each block of 3 is given sorted, and the
 * merge sort takes 1 + 1 = 2 comparisons (C_1 = 2), so phase 1 lasts 2 (10) slots
 * before the 48 of phase 2; in comparisons the run takes C_1 + S = 2 + 20 = 22, within
 * 3 log2 3 + 23 = 27.75 (the printed form: 31.75). */
START_TEST(test_msort_time_example)
{
    static const int cost[] = {1, 5};
    for (size_t i = 0; i < 2; i++) {
        char *params;
        ck_assert_int_ge(
            asprintf(&params, "\"values\":%s,\"compare_slots\":%d", SORT_EXAMPLE, cost[i]), 0);
        hm_trun_t r = run_bus(4, "merge-sort", params, "strict", 1, NULL);
        ck_assert_msg(r.rc == 0, "rc %d %s", r.rc, r.message ? r.message : "");
        ck_assert_int_eq(hm_t_int(&r, "verified"), 1);
        json_t *c = key(&r, "comparisons"), *ph = key(&r, "phases");
        ck_assert_int_eq(json_integer_value(json_object_get(c, "sort")), 2);
        ck_assert_int_eq(json_integer_value(json_object_get(c, "merge")), 20);
        ck_assert_int_eq(json_integer_value(json_object_get(c, "total")), 22);
        ck_assert_int_eq(json_integer_value(json_object_get(ph, "sort")), 2 * cost[i]);
        ck_assert_int_eq(json_integer_value(json_object_get(ph, "merge")), 48);
        ck_assert_int_eq(hm_t_int(&r, "completion_slots"), 2 * cost[i] + 48);
        ck_assert_int_eq(hm_t_bound(&r, "bound"), 2 * cost[i] + 48);
        ck_assert(fabs(real_value(&r, "time_bound") - worst_abstract(12, 4)) < 1e-3);
        ck_assert(fabs(real_value(&r, "time_bound_printed") - worst_printed(12, 4)) < 1e-3);
        ck_assert(fabs(worst_abstract(12, 4) - 27.7549) < 1e-4);
        ck_assert(fabs(worst_printed(12, 4) - 31.7549) < 1e-4);
        ck_assert_str_eq(json_string_value(json_object_get(key(&r, "time_bound"), "expression")),
                         "(n/k)log2(n/k)+2n-1");
        hm_t_free(&r);
        free(params);
    }
    /* Without compare_slots the summary is what it was: no comparison keys, sort 0. */
    char *params;
    ck_assert_int_ge(asprintf(&params, "\"values\":%s", SORT_EXAMPLE), 0);
    hm_trun_t r = run_bus(4, "merge-sort", params, "strict", 1, NULL);
    ck_assert_ptr_null(json_object_get(r.summary, "comparisons"));
    ck_assert_int_eq(json_integer_value(json_object_get(key(&r, "phases"), "sort")), 0);
    hm_t_free(&r);
    free(params);
}
END_TEST

/* The Conclusion's worst case on drawn inputs with k | n: phase 1 takes at most
 * (n/k) log2(n/k) comparisons on every processor (C_1), and C_1 + S stays within
 * (n/k) log2(n/k) + 2n - 1; phase 1 lasts compare_slots * C_1 slots. Blocks in
 * decreasing order make the merge sort's fewest comparisons, so the extremes are
 * covered by the drawn permutations and the worst-case input of the earlier test. */
START_TEST(test_msort_time_worst_case)
{
    for (int k = 2; k <= 8; k++)
        for (int m = 1; m <= 8; m++) {
            int n = k * m, seed = 7 * k + m;
            char params[96];
            snprintf(params, sizeof params, "\"n\":%d,\"compare_slots\":3,\"silent_slots\":0", n);
            hm_trun_t r = run_bus(k, "merge-sort", params, "strict", seed, NULL);
            ck_assert_msg(r.rc == 0, "k=%d n=%d rc %d %s", k, n, r.rc, r.message ? r.message : "");
            json_t *c = key(&r, "comparisons");
            int64_t c1 = json_integer_value(json_object_get(c, "sort"));
            int64_t s = hm_t_int(&r, "broadcasts");
            ck_assert_msg((double)c1 <= m * log2(m) + 1e-9, "k=%d n=%d C_1=%lld", k, n,
                          (long long)c1);
            ck_assert_int_eq(json_integer_value(json_object_get(c, "total")), c1 + s);
            ck_assert((double)(c1 + s) <= worst_abstract(n, k) + 1e-9);
            ck_assert(worst_abstract(n, k) <= worst_printed(n, k) + 1e-9);
            ck_assert_int_eq(json_integer_value(json_object_get(key(&r, "phases"), "sort")),
                             3 * c1);
            ck_assert_int_eq(hm_t_int(&r, "verified"), 1);
            hm_t_free(&r);
        }
}
END_TEST

/* Lemmas 1 and 2 of section 2.b, checked on the cycles the output processor logs.
 * Lemma 1 (as its proof states it): an element takes part in at most one cycle it
 * does not initiate, so "whenever a_i rebroadcasts after the first time, it always
 * initiates a cycle": every broadcast but a cycle's first is the element's first.
 * Lemma 2: "each time a_i initiates a cycle, (except for the last cycle which
 * includes only a_i) the cycle is terminated by an element never broadcast before".
 * Returns S as counted from the table. */
static long check_lemmas(const char *timeline, int n)
{
    char *text = hm_t_slurp(timeline, NULL);
    ck_assert_ptr_nonnull(text);
    unsigned char *seen = calloc((size_t)n + 1, 1);
    ck_assert_ptr_nonnull(seen);
    long S = 0, cycles = 0;
    for (char *line = strstr(text, " log      cycle "); line;
         line = strstr(line + 1, " log      cycle ")) {
        char *p = strchr(line, ':') + 1, *bar = strchr(line, '|');
        long vals[64];
        int m = 0;
        while (p < bar) {
            int j, used = 0;
            long v;
            if (sscanf(p, " P%d %ld%n", &j, &v, &used) == 2) {
                vals[m++] = v;
                p += used;
            } else if (sscanf(p, " P%d -%n", &j, &used) == 1 && used > 0) {
                p += used;
            } else {
                break;
            }
        }
        ck_assert_msg(m >= 1, "a cycle without a broadcast: %.80s", line);
        for (int i = 1; i < m; i++)
            ck_assert_msg(!seen[vals[i]], "Lemma 1: %ld broadcast again without initiating: %.120s",
                          vals[i], line);
        if (m > 1)
            ck_assert_msg(!seen[vals[m - 1]], "Lemma 2: terminated by %ld, heard before: %.120s",
                          vals[m - 1], line);
        for (int i = 0; i < m; i++)
            seen[vals[i]] = 1;
        S += m;
        cycles++;
    }
    ck_assert_int_eq(cycles, n);
    free(seen);
    free(text);
    return S;
}

/* Lemmas 1 and 2 on drawn inputs (permutations of 1..n), with the cyclic turns of
 * section 2.a and with the closing note's asynchronous turns (turns = async: any order
 * after the initiator): both sort, keep n <= S <= 2n - 1 and satisfy both lemmas.
 * Observed, not claimed by the paper: S is the same for both turn orders on every
 * input tried. */
START_TEST(test_msort_lemmas_and_async)
{
    static const int kn[][2] = {{3, 9}, {4, 12}, {4, 30}, {5, 17}, {8, 40}, {8, 64}, {16, 50}};
    char *dir = hm_t_tmpdir(), *tl;
    ck_assert_ptr_nonnull(dir);
    ck_assert_int_ge(asprintf(&tl, "%s/lemmas.timeline.txt", dir), 0);
    for (size_t i = 0; i < sizeof kn / sizeof *kn; i++)
        for (int seed = 1; seed <= 4; seed++) {
            int k = kn[i][0], n = kn[i][1];
            long s[2];
            for (int a = 0; a < 2; a++) {
                char params[96];
                snprintf(params, sizeof params, "\"n\":%d,\"turns\":\"%s\"", n,
                         a ? "async" : "cyclic");
                hm_trun_t r = run_bus(k, "merge-sort", params, "strict", seed, tl);
                ck_assert_msg(r.rc == 0, "k=%d n=%d %s rc %d", k, n, params, r.rc);
                ck_assert_int_eq(hm_t_int(&r, "verified"), 1);
                s[a] = check_lemmas(tl, n);
                ck_assert_int_eq(s[a], hm_t_int(&r, "broadcasts"));
                ck_assert(n <= s[a] && s[a] <= 2 * n - 1);
                json_t *res = key(&r, "result");
                for (int j = 0; j < n; j++)
                    ck_assert_int_eq(json_integer_value(json_array_get(res, (size_t)j)), n - j);
                hm_t_free(&r);
            }
            ck_assert_msg(s[0] == s[1], "k=%d n=%d seed %d: S %ld cyclic, %ld async", k, n, seed,
                          s[0], s[1]);
        }
    /* The async turns really differ: the example's cycle 1 takes P4's turn before P3's. */
    char *params;
    ck_assert_int_ge(asprintf(&params, "\"values\":%s,\"turns\":\"async\"", SORT_EXAMPLE), 0);
    hm_trun_t r = run_bus(4, "merge-sort", params, "strict", 1, tl);
    ck_assert_int_eq(r.rc, 0);
    hm_t_free(&r);
    char *text = hm_t_slurp(tl, NULL);
    ck_assert_ptr_nonnull(text);
    ck_assert_msg(strstr(text, "cycle 1: P1 63 P2 79 P4 - P3 84 | merged 84 from P3") != NULL,
                  "async example: %.300s", text);
    free(text);
    free(params);
    remove(tl);
    rmdir(dir);
    free(tl);
    free(dir);
}
END_TEST

/* ---- more processors than a 64-bit port mask ------------------------------------ */

/* MAX with k = 200 processors (201 nodes): values (37 j mod 200) + 1, j = 0..199, a
 * permutation of 1..200 whose left-to-right maxima are P1..P6, P17, P28 (1, 38, 75,
 * 112, 149, 186, 193, 200). k turns of one slot: 200 slots, 8 broadcasts heard by the
 * 200 other nodes each, 192 silent turns; every broadcast but none is compared by a
 * processor still in the race (8 comparisons). */
START_TEST(test_max_200_processors)
{
    char values[2048] = "\"values\":[";
    for (int j = 0; j < 200; j++)
        snprintf(values + strlen(values), sizeof values - strlen(values), "%s%d", j ? "," : "",
                 (37 * j) % 200 + 1);
    strcat(values, "]");
    hm_trun_t r = run_bus(200, "max", values, "strict", 1, NULL);
    ck_assert_msg(r.rc == 0, "rc %d %s", r.rc, r.message ? r.message : "");
    ck_assert_int_eq(hm_t_int(&r, "completion_slots"), 200);
    ck_assert_int_eq(hm_t_bound(&r, "bound"), 200);
    ck_assert_int_eq(hm_t_int(&r, "result"), 200);
    ck_assert_int_eq(hm_t_int(&r, "broadcasts"), 8);
    ck_assert_int_eq(hm_t_int(&r, "silent_turns"), 192);
    ck_assert_int_eq(hm_t_int(&r, "comparisons"), 8);
    ck_assert_int_eq(hm_t_int(&r, "transmissions"), 8 * 200);
    ck_assert_int_eq(hm_t_int(&r, "conflicts"), 0);
    const long speakers[] = {0, 1, 2, 3, 4, 5, 16, 27};
    assert_list(&r, "speakers", speakers, 8);
    ck_assert_str_eq(hm_t_str(&r, "verification"),
                     "the output processor stored the maximum 200; 8 real broadcasts (P1 P2 P3 P4 "
                     "P5 P6 P17 P28), 192 silent turns");
    hm_t_free(&r);
}
END_TEST

/* MAX keeps what the processors saw in their output areas (hm_out, sized by setup to
 * two int32_t per instance), not in stores: 200 processors and 50 instances of drawn
 * values verify, with 300 broadcasts of which 272 were compared by a processor still
 * in the race (the same counts as the stored records gave), and only the output
 * processor stores: its 50 maxima. */
START_TEST(test_max_output_areas)
{
    char *dir = hm_t_tmpdir(), *tl;
    ck_assert_int_ge(asprintf(&tl, "%s/max.timeline.txt", dir), 0);
    hm_trun_t r = run_bus(200, "max", "\"trials\":50", "strict", 1, tl);
    ck_assert_msg(r.rc == 0, "rc %d %s", r.rc, r.message ? r.message : "");
    ck_assert_int_eq(hm_t_int(&r, "verified"), 1);
    ck_assert_int_eq(hm_t_int(&r, "completion_slots"), 200);
    ck_assert_int_eq(hm_t_int(&r, "broadcasts"), 300);
    ck_assert_int_eq(hm_t_int(&r, "comparisons"), 272);
    ck_assert_int_eq(hm_t_int(&r, "silent_turns"), 200 * 50 - 300);
    hm_t_free(&r);
    char *text = hm_t_slurp(tl, NULL);
    ck_assert_ptr_nonnull(text);
    int stores = 0;
    for (const char *at = text; (at = strstr(at, " store    value ")) != NULL; at++) {
        ck_assert_msg(strncmp(at - 4, " 200", 4) == 0, "a processor stored: %.40s", at - 12);
        stores++;
    }
    ck_assert_int_eq(stores, 50);
    free(text);
    remove(tl);
    rmdir(dir);
    free(tl);
    free(dir);
}
END_TEST

/* MERGE-SORT with k = 200 processors and n = 200 drawn values (seed 7): n cycles of k
 * turns, n*k = 40,000 slots (the paper's count with an empty turn costing a slot);
 * S(n,k) = 394 broadcasts, within Theorem 1's n <= S <= 2n-1 = 399. */
START_TEST(test_msort_200_processors)
{
    hm_trun_t r = run_bus(200, "merge-sort", "\"n\":200", "strict", 7, NULL);
    ck_assert_msg(r.rc == 0, "rc %d %s", r.rc, r.message ? r.message : "");
    ck_assert_int_eq(hm_t_int(&r, "verified"), 1);
    ck_assert_int_eq(hm_t_int(&r, "completion_slots"), 40000);
    ck_assert_int_eq(hm_t_bound(&r, "bound"), 40000);
    ck_assert_int_eq(hm_t_int(&r, "broadcasts"), 394);
    ck_assert_int_eq(hm_t_int(&r, "silent_turns"), 40000 - 394);
    ck_assert_int_eq(hm_t_int(&r, "transmissions"), 394 * 200);
    hm_t_free(&r);
}
END_TEST

Suite *hm_suite_bus(void)
{
    Suite *s = suite_create("bus");

    TCase *tc = tcase_create("channel");
    tcase_add_test(tc, test_bus_topology_tables);
    tcase_add_test(tc, test_bus_config_limits);
    tcase_add_test(tc, test_bus_collision_strict);
    tcase_add_test(tc, test_bus_collision_queue);
    tcase_add_test(tc, test_bus_deterministic);
    tcase_set_timeout(tc, 30);
    suite_add_tcase(s, tc);

    tc = tcase_create("max");
    tcase_add_test(tc, test_max_paper_example);
    tcase_add_test(tc, test_max_silent_free);
    tcase_add_loop_test(tc, test_max_exact_T, 1, 65);
    tcase_add_loop_test(tc, test_max_mean_comparisons, MEAN_FIRST, MEAN_END);
    tcase_add_test(tc, test_max_drawn);
    tcase_add_test(tc, test_max_200_processors);
    tcase_add_test(tc, test_max_output_areas);
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);

    tc = tcase_create("merge-sort");
    tcase_add_test(tc, test_msort_paper_example);
    tcase_add_test(tc, test_msort_uneven_and_ties);
    tcase_add_test(tc, test_msort_worst_case);
    tcase_add_test(tc, test_msort_matches_model);
    tcase_add_test(tc, test_msort_sweep);
    tcase_add_test(tc, test_msort_time_example);
    tcase_add_test(tc, test_msort_time_worst_case);
    tcase_add_test(tc, test_msort_lemmas_and_async);
    tcase_add_test(tc, test_msort_200_processors);
    tcase_set_timeout(tc, 300);
    suite_add_tcase(s, tc);
    return s;
}
