/* SPDX-License-Identifier: MIT */
/*
 * check_esbt.c — multinode-broadcast variant esbt (lecture notes, collision avoiding
 * spanning trees): ceil((2^d - 1)/d) slots with no conflict for d = 1..12 with the
 * shipped construction, and where the notes read literally break.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo/hypercube/esbt.h"
#include "helpers.h"

/* Under ThreadSanitizer and AddressSanitizer the 2048- and 4096-thread runs take
 * minutes (TSan: 470 s for both on a loaded 2-core machine); they run in the plain
 * build only, and d <= 10 (1024 threads) runs everywhere. */
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define HM_T_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define HM_T_SANITIZED 1
#endif
#endif
#ifndef HM_T_SANITIZED
#define HM_T_SANITIZED 0
#endif

/* ceil((2^d - 1)/d), d = 0..16. */
static const int64_t optimal[] = {0,  1,   2,   3,   4,   7,    11,   19,  32,
                                  57, 103, 187, 342, 631, 1171, 2185, 4096};

static hm_trun_t run_esbt(int d, const char *construction, const char *contention)
{
    char cfg[512];
    snprintf(cfg, sizeof cfg,
             "{\"topology\":{\"kind\":\"hypercube\",\"dim\":%d},\"contention\":\"%s\","
             "\"algorithm\":{\"name\":\"multinode-broadcast\",\"variant\":\"esbt\","
             "\"construction\":\"%s\"}}",
             d, contention, construction);
    return hm_t_run(cfg, NULL);
}

static void assert_optimal(int d, const char *construction)
{
    int64_t p = INT64_C(1) << d;
    hm_trun_t r = run_esbt(d, construction, "strict");
    ck_assert_msg(r.rc == 0, "d=%d rc=%d %s", d, r.rc, r.message ? r.message : "");
    ck_assert_str_eq(hm_t_str(&r, "ports"), "all-port"); /* the default for it */
    ck_assert_int_eq(hm_t_int(&r, "completion_slots"), optimal[d]);
    ck_assert_int_eq(hm_t_bound(&r, "bound"), optimal[d]);
    ck_assert_int_eq(hm_t_bound(&r, "lower_bound"), optimal[d] > d ? optimal[d] : d);
    ck_assert_int_eq(hm_t_int(&r, "conflicts"), 0);
    ck_assert_int_eq(hm_t_int(&r, "delayed_packets"), 0);
    ck_assert_int_eq(hm_t_int(&r, "transmissions"), p * (p - 1));
    ck_assert_int_eq(hm_t_int(&r, "verified"), 1);
    ck_assert_int_eq(hm_t_int(&r, "construction_conflicts"), 0);
    ck_assert_int_eq(hm_t_int(&r, "late_packets"), 0);
    ck_assert_str_eq(hm_t_str(&r, "construction"), construction);
    hm_t_free(&r);
}

/* The shipped construction: exactly ceil((2^d-1)/d) slots, every node gets the
 * other 2^d - 1 packets once, in the scheduled step, no link carries two. */
START_TEST(test_searched_optimal)
{
    assert_optimal(_i, "searched");
}
END_TEST

START_TEST(test_q4_summary)
{
    hm_trun_t r = run_esbt(4, "searched", "strict");
    ck_assert_int_eq(r.rc, 0);
    ck_assert_str_eq(
        json_string_value(json_object_get(json_object_get(r.summary, "bound"), "expression")),
        "ceil((2^d-1)/d)");
    ck_assert_str_eq(
        json_string_value(json_object_get(json_object_get(r.summary, "lower_bound"), "expression")),
        "max(d,ceil((2^d-1)/d))");
    ck_assert_str_eq(hm_t_str(&r, "verification"),
                     "every node received the packet of every other node exactly once, in the "
                     "step its tree schedules");
    ck_assert_int_eq(hm_t_int(&r, "broadcasts"), 16);
    ck_assert_int_eq(hm_t_int(&r, "search_backtracks"), 1);
    ck_assert_int_eq(hm_t_int(&r, "max_mailbox_depth"), 1);
    ck_assert_ptr_null(json_object_get(r.summary, "construction_first_conflict"));
    hm_t_free(&r);
}
END_TEST

/* Q_0: one node, nothing to send. */
START_TEST(test_q0)
{
    hm_trun_t r = run_esbt(0, "searched", "strict");
    ck_assert_int_eq(r.rc, 0);
    ck_assert_int_eq(hm_t_int(&r, "completion_slots"), 0);
    ck_assert_int_eq(hm_t_int(&r, "transmissions"), 0);
    hm_t_free(&r);
}
END_TEST

/* The construction alone (no threads), d = 1..16: the search always succeeds, with
 * the backtracks documented in esbt.c; the literal reading conflicts exactly for
 * the composite d. */
START_TEST(test_constructions_static)
{
    static const long backtracks[] = {0, 0, 0, 0, 1, 0, 0, 0, 4, 3, 0, 0, 0, 0, 0, 0, 12};
    static const int literal[] = {0,   0,   0, 0,    1, 0,    25,    0,    81,
                                  118, 427, 0, 1731, 0, 4720, 14814, 31361};
    for (int d = 1; d <= 16; d++)
        for (int lit = 0; lit < 2; lit++) {
            hm_machine_info_t mi = {.topology = HM_TOPO_HYPERCUBE,
                                    .nodes = 1 << d,
                                    .dim = d,
                                    .ports = HM_PORTS_ALL_PORT,
                                    .link_capacity = 1};
            json_t *params = json_pack("{s:s}", "construction", lit ? "literal" : "searched");
            hm_setup_t s = {.machine = &mi,
                            .params = params,
                            .file = "test.json",
                            .algorithm = hm_algorithm_find("multinode-broadcast")};
            ck_assert_int_eq(hm_esbt_setup(&s), 0);
            int unreached;
            long bt;
            int c = hm_esbt_conflicts(s.state, &unreached, &bt);
            if (lit) {
                ck_assert_msg(c == literal[d], "d=%d literal: %d conflicts", d, c);
            } else {
                ck_assert_msg(c == 0 && unreached == 0, "d=%d searched: %d conflicts", d, c);
                ck_assert_msg(bt == backtracks[d], "d=%d: %ld backtracks", d, bt);
            }
            hm_esbt_teardown(s.state);
            json_decref(params);
        }
}
END_TEST

/* The notes read literally work where every class is a full rotation orbit and each
 * level starts a fresh step: d prime (and d = 1). */
START_TEST(test_literal_fine)
{
    static const int ds[] = {1, 2, 3, 5, 7};
    assert_optimal(ds[_i], "literal");
}
END_TEST

/* d = 4, the first break: node 1111 is the last node of step 4 and hangs from 1011,
 * which is reached in step 4 too. Its packet is forwarded one slot late in every
 * tree: 5 slots instead of 4, 16 late packets, no link conflict (slot 4 is free). */
START_TEST(test_literal_q4_same_step)
{
    for (int strict = 0; strict < 2; strict++) {
        hm_trun_t r = run_esbt(4, "literal", strict ? "strict" : "queue");
        ck_assert_int_eq(r.rc, 1);
        ck_assert_int_eq(hm_t_int(&r, "completion_slots"), 5);
        ck_assert_int_eq(hm_t_bound(&r, "bound"), 4);
        ck_assert_int_eq(hm_t_int(&r, "conflicts"), 0);
        ck_assert_int_eq(hm_t_int(&r, "verified"), 0);
        ck_assert_int_eq(hm_t_int(&r, "late_packets"), 16);
        ck_assert_int_eq(hm_t_int(&r, "construction_conflicts"), 1);
        ck_assert_str_eq(hm_t_str(&r, "construction_first_conflict"),
                         "step 4: node 15 (1111) hangs from node 11 (1011), reached in the "
                         "same step 4");
        ck_assert_str_eq(hm_t_str(&r, "verification"),
                         "16 packet(s) late: node 0 received the packet of node 15 in slot 4, "
                         "scheduled for slot 3");
        hm_t_free(&r);
    }
}
END_TEST

/* d = 8: parents in later steps; the late forwards collide with the tree that owns
 * the link in that slot, and strict contention stops the run there. */
START_TEST(test_literal_q8_strict)
{
    hm_trun_t r = run_esbt(8, "literal", "strict");
    ck_assert_int_eq(r.rc, 1);
    ck_assert_str_eq(r.message, "slot 23: link 0->1 already carries 1 packet(s) "
                                "(link_capacity 1): msg 204 on link 0->1 (port 0)");
    ck_assert_int_eq(hm_t_int(&r, "construction_conflicts"), 81);
    ck_assert_int_eq(hm_t_int(&r, "construction_unreached"), 153);
    ck_assert_str_eq(hm_t_str(&r, "construction_first_conflict"),
                     "step 5: node 7 (00000111) hangs from node 23 (00010111), reached only in "
                     "the later step 13");
    hm_t_free(&r);
}
END_TEST

/* d = 6: the parent pointers form cycles; 30 nodes of every tree never hang from its
 * root, so their packets never come and the run deadlocks (exit 3). */
START_TEST(test_literal_q6_deadlock)
{
    hm_trun_t r = run_esbt(6, "literal", "strict");
    ck_assert_int_eq(r.rc, 3);
    ck_assert_msg(strncmp(r.message, "deadlock at slot 10:", 20) == 0, "%s", r.message);
    ck_assert_int_eq(hm_t_int(&r, "construction_conflicts"), 25);
    ck_assert_int_eq(hm_t_int(&r, "construction_unreached"), 30);
    ck_assert_str_eq(hm_t_str(&r, "construction_first_conflict"),
                     "step 4: node 7 (000111) hangs from node 15 (001111), reached only in the "
                     "later step 7");
    hm_t_free(&r);
}
END_TEST

START_TEST(test_bad_construction)
{
    hm_trun_t r = run_esbt(3, "notes", "strict");
    ck_assert_int_eq(r.rc, 2);
    ck_assert_msg(strstr(r.message, "algorithm.construction") && strstr(r.message, "literal"), "%s",
                  r.message);
    hm_t_free(&r);
}
END_TEST

/* Only all-port carries d packets out of a node per slot. */
START_TEST(test_bad_ports)
{
    const char *cfg = "{\"topology\":{\"kind\":\"hypercube\",\"dim\":3},"
                      "\"ports\":{\"model\":\"shout\"},"
                      "\"algorithm\":{\"name\":\"multinode-broadcast\",\"variant\":\"esbt\"}}";
    hm_trun_t r = hm_t_run(cfg, NULL);
    ck_assert_int_eq(r.rc, 2);
    ck_assert_msg(strstr(r.message, "all-port") != NULL, "%s", r.message);
    hm_t_free(&r);
}
END_TEST

/* The shipped example config runs as documented. */
START_TEST(test_example_config)
{
    char *dir = hm_t_tmpdir(), *out = NULL, path[4096];
    snprintf(path, sizeof path, "%s/configs/q4_multinode_esbt.json", HM_SRCDIR);
    const char *args[] = {"--json", path, NULL};
    ck_assert_int_eq(hm_t_exec(dir, &out, NULL, args), 0);
    json_t *s = json_loads(out, 0, NULL);
    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq(json_integer_value(json_object_get(s, "completion_slots")), 4);
    ck_assert_int_eq(json_integer_value(json_object_get(s, "transmissions")), 240);
    ck_assert(json_is_true(json_object_get(s, "verified")));
    json_decref(s);
    free(out);
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
    free(dir);
}
END_TEST

Suite *hm_suite_esbt(void)
{
    Suite *s = suite_create("esbt");
    TCase *tc = tcase_create("core");
    tcase_add_loop_test(tc, test_searched_optimal, 1, 11);
    tcase_add_test(tc, test_q4_summary);
    tcase_add_test(tc, test_q0);
    tcase_add_test(tc, test_constructions_static);
    tcase_add_test(tc, test_example_config);
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);

    TCase *lit = tcase_create("literal");
    tcase_add_loop_test(lit, test_literal_fine, 0, 5);
    tcase_add_test(lit, test_literal_q4_same_step);
    tcase_add_test(lit, test_literal_q8_strict);
    tcase_add_test(lit, test_literal_q6_deadlock);
    tcase_set_timeout(lit, 60);
    suite_add_tcase(s, lit);

    TCase *err = tcase_create("errors");
    tcase_add_test(err, test_bad_construction);
    tcase_add_test(err, test_bad_ports);
    suite_add_tcase(s, err);

    /* 2048 and 4096 threads (plain build only, see HM_T_SANITIZED). */
    if (!HM_T_SANITIZED) {
        TCase *big = tcase_create("limits");
        tcase_add_loop_test(big, test_searched_optimal, 11, 13);
        tcase_set_timeout(big, 600);
        suite_add_tcase(s, big);
    }
    return s;
}
