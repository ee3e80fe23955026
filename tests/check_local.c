/* SPDX-License-Identifier: MIT */
/*
 * check_local.c — the locally synchronised clock, clock.mode "local" (doc/clocks.md "Local
 * clock"): the runs of check_engine.c that end in a deadlock, at clock.max_slots or
 * after a jump over idle slots end in the same way and with the same report as under
 * the barrier clock, under circuit routing too; nodes far apart really are in
 * different slots at once. tests/check_local.sh compares every shipped config with its
 * slotted run, summary and event log.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "helpers.h"

/* A d-cube in local mode, all-port, strict; clock and extra add to the config. */
static char *local_cube(int d, const char *clock, const char *extra)
{
    static char tail[512];
    snprintf(tail, sizeof tail, ",\"clock\":{\"mode\":\"local\"%s}%s", clock ? clock : "",
             extra ? extra : "");
    return hm_t_cube(d, "all-port", "strict", tail);
}

START_TEST(test_local_deadlock_names_waiters)
{
    hm_algorithm_t a = hm_t_algo(hm_t_wait_forever, hm_t_verify_ok);
    hm_trun_t r = hm_t_run_algo(local_cube(1, NULL, NULL), &a);
    ck_assert_int_eq(r.rc, 3);
    ck_assert_str_eq(r.message, "deadlock at slot 0: every node is blocked and nothing is in "
                                "flight\n  node 0 waits for a packet from any neighbour\n"
                                "  node 1 waits for a packet from any neighbour");
    ck_assert_str_eq(hm_t_str(&r, "end"), "deadlock");
    hm_t_free(&r);
}
END_TEST

START_TEST(test_local_deadlock_on_full_mailbox)
{
    hm_algorithm_t a = hm_t_algo(hm_t_flood, hm_t_verify_ok);
    hm_trun_t r = hm_t_run_algo(local_cube(1, NULL, ",\"mailbox\":{\"capacity\":1}"), &a);
    ck_assert_int_eq(r.rc, 3);
    ck_assert_str_eq(r.message, "deadlock at slot 1: every node is blocked and nothing is in "
                                "flight\n  node 0 waits on node 1 (mailbox 0->1 full, "
                                "capacity 1)");
    ck_assert_int_eq(hm_t_int(&r, "stalls"), 1);
    ck_assert_int_eq(hm_t_int(&r, "transmissions"), 1);
    hm_t_free(&r);
}
END_TEST

START_TEST(test_local_max_slots)
{
    hm_algorithm_t a = hm_t_algo(hm_t_sleep_long, hm_t_verify_ok);
    hm_trun_t r = hm_t_run_algo(local_cube(1, ",\"max_slots\":100", NULL), &a);
    ck_assert_int_eq(r.rc, 3);
    ck_assert_str_eq(r.message, "clock.max_slots = 100 reached: the next slot with work is "
                                "1000, with 2 of 2 nodes still running");
    ck_assert_str_eq(hm_t_str(&r, "end"), "max_slots");
    hm_t_free(&r);
}
END_TEST

/* 10^9 idle slots: the clocks jump over them, as the barrier clock does. */
START_TEST(test_local_idle_slots_cost_nothing)
{
    hm_algorithm_t a = hm_t_algo(hm_t_late_send, hm_t_verify_ok);
    hm_trun_t r = hm_t_run_algo(local_cube(1, ",\"max_slots\":2000000000", NULL), &a);
    ck_assert_int_eq(r.rc, 0);
    ck_assert_int_eq(hm_t_int(&r, "completion_slots"), 1000000001);
    ck_assert_int_eq(hm_t_int(&r, "slots_run"), 3);
    hm_t_free(&r);
}
END_TEST

/* Q_3: node 7 ends slot 2 while node 0, at distance 3, is still in slot 0 (it waits
 * for node 7's flag, which the barrier clock could never let it see). Nodes 1..6
 * wait for a packet until slot 10: one slot of lookahead per hop. */
static atomic_int far_flag;

static void far_apart(hm_node_t *n, void *s)
{
    (void)s;
    int id = hm_id(n);
    if (id == 7) {
        if (hm_wait_until(n, 2) == HM_OK)
            atomic_store(&far_flag, (int)hm_now(n) + 1);
        return;
    }
    if (id != 0) {
        hm_wait_packet_until(n, NULL, 10);
        return;
    }
    for (int i = 0; i < 10000 && atomic_load(&far_flag) == 0; i++)
        nanosleep(&(struct timespec){.tv_nsec = 1000 * 1000}, NULL);
    if (atomic_load(&far_flag) != 3 || hm_now(n) != 0)
        hm_fail(n, "node 7 did not run slot 2 while node 0 was in slot 0");
}

START_TEST(test_local_far_nodes_run_ahead)
{
    atomic_store(&far_flag, 0);
    hm_algorithm_t a = hm_t_algo(far_apart, hm_t_verify_ok);
    hm_trun_t r = hm_t_run_algo(local_cube(3, NULL, NULL), &a);
    ck_assert_msg(r.rc == 0, "%s", r.message ? r.message : "");
    ck_assert_int_eq(atomic_load(&far_flag), 3);
    ck_assert_int_eq(hm_t_int(&r, "slots_run"), 3); /* 0, 2 and 10 */
    hm_t_free(&r);
}
END_TEST

/* Circuit routing: a deadlock and clock.max_slots end as under the barrier clock,
 * with its report, while a circuit is still in flight for the second. */
static void circuit_then_wait(hm_node_t *n, void *s)
{
    (void)s;
    hm_packet_t p = {.msg = 1, .len = 0};
    if (hm_id(n) == 0)
        hm_send_to(n, 3, &p);
    hm_wait_packet(n, &p);
    hm_store(n, p.recv_slot);
}

START_TEST(test_local_circuit_deadlock_and_max_slots)
{
    static const char *const clocks[] = {"slotted", "local"};
    hm_algorithm_t a = hm_t_algo(circuit_then_wait, hm_t_verify_ok);
    for (int k = 0; k < 2; k++) {
        char cfg[512];
        snprintf(cfg, sizeof cfg,
                 "{\"topology\":{\"kind\":\"hypercube\",\"dim\":2},"
                 "\"ports\":{\"model\":\"one-port-full\",\"routing\":\"circuit\","
                 "\"cost\":{\"a\":1,\"b\":40}},\"algorithm\":{\"name\":\"sbt-broadcast\"},"
                 "\"clock\":{\"mode\":\"%s\"}}",
                 clocks[k]);
        hm_trun_t r = hm_t_run_algo(cfg, &a);
        ck_assert_int_eq(r.rc, 3);
        /* The circuit 0->3 lasts b = 40 slots: received in slot 39, node 3 reads it in
         * slot 40, and nobody sends again. */
        ck_assert_str_eq(r.message, "deadlock at slot 40: every node is blocked and nothing is "
                                    "in flight\n  node 0 waits for a packet from any neighbour\n"
                                    "  node 1 waits for a packet from any neighbour\n"
                                    "  node 2 waits for a packet from any neighbour");
        ck_assert_int_eq(hm_t_int(&r, "slots_run"), 3);
        ck_assert_int_eq(hm_t_int(&r, "transmissions"), 1);
        hm_t_free(&r);
        size_t len = strlen(cfg);
        snprintf(cfg + len - 2, sizeof cfg - len + 2, ",\"max_slots\":30}}");
        r = hm_t_run_algo(cfg, &a);
        ck_assert_int_eq(r.rc, 3);
        ck_assert_str_eq(r.message, "clock.max_slots = 30 reached: the next slot with work is "
                                    "39, with 4 of 4 nodes still running");
        ck_assert_int_eq(hm_t_int(&r, "slots_run"), 1);
        hm_t_free(&r);
    }
}
END_TEST

Suite *hm_suite_local(void)
{
    Suite *s = suite_create("local");
    TCase *tc = tcase_create("local");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_local_deadlock_names_waiters);
    tcase_add_test(tc, test_local_deadlock_on_full_mailbox);
    tcase_add_test(tc, test_local_max_slots);
    tcase_add_test(tc, test_local_idle_slots_cost_nothing);
    tcase_add_test(tc, test_local_far_nodes_run_ahead);
    tcase_add_test(tc, test_local_circuit_deadlock_and_max_slots);
    suite_add_tcase(s, tc);
    return s;
}
