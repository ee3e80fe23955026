/* SPDX-License-Identifier: MIT */
/*
 * check_engine.c — the clock, the mailboxes and the port models, driven by small node
 * programs written here against the public node API (as a student would).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "helpers.h"

/* ---- deadlock and max_slots ------------------------------------------------ */

/* ---- hm_grid: a node's place in the grid -------------------------------------------- */

static int64_t grid_seen[64]; /* rows, cols, row, col packed per node, -1: HM_ENOENT */

static void note_grid(hm_node_t *n, void *s)
{
    (void)s;
    int rows = -1, cols = -1, row = -1, col = -1;
    int rc = hm_grid(n, &rows, &cols, &row, &col);
    grid_seen[hm_id(n)] = rc == HM_OK       ? rows * 1000000 + cols * 10000 + row * 100 + col
                          : rc == HM_ENOENT ? -1
                                            : -2;
    (void)hm_grid(n, NULL, NULL, NULL, NULL); /* any pointer may be NULL */
}

/* Run note_grid on topology `topo` (the config's algorithm `name` is legal there, with
 * its default ports). */
static void run_grid(const char *topo, const char *name, int p)
{
    char cfg[256];
    snprintf(cfg, sizeof cfg, "{\"topology\": %s, \"algorithm\": {\"name\": \"%s\"}}", topo, name);
    hm_algorithm_t a = hm_t_algo(note_grid, hm_t_verify_ok);
    a.topologies = 0x3f;
    for (int x = 0; x < p; x++)
        grid_seen[x] = -3;
    hm_trun_t r = hm_t_run_algo(cfg, &a);
    ck_assert_msg(r.rc == 0, "%s: rc %d %s", topo, r.rc, r.message ? r.message : "");
    hm_t_free(&r);
}

START_TEST(test_grid)
{
    run_grid("{\"kind\": \"mesh\", \"rows\": 3, \"cols\": 4}", "st-broadcast", 12);
    ck_assert_int_eq(grid_seen[0], 3040000);
    ck_assert_int_eq(grid_seen[6], 3040102); /* node 6 = row 1, column 2 */
    ck_assert_int_eq(grid_seen[11], 3040203);
    run_grid("{\"kind\": \"torus\", \"rows\": 4, \"cols\": 6}", "allgather-ring", 24);
    ck_assert_int_eq(grid_seen[23], 4060305);
    run_grid("{\"kind\": \"ring\", \"nodes\": 7}", "allreduce-ring", 7);
    ck_assert_int_eq(grid_seen[5], 1070005);
    run_grid("{\"kind\": \"linear\", \"nodes\": 5}", "st-broadcast", 5);
    ck_assert_int_eq(grid_seen[4], 1050004);
    run_grid("{\"kind\": \"hypercube\", \"dim\": 2}", "sbt-broadcast", 4);
    ck_assert_int_eq(grid_seen[3], -1); /* no grid */
}
END_TEST

START_TEST(test_deadlock_names_waiters)
{
    hm_algorithm_t a = hm_t_algo(hm_t_wait_forever, hm_t_verify_ok);
    hm_trun_t r = hm_t_run_algo(hm_t_cube(1, "all-port", "strict", NULL), &a);
    ck_assert_int_eq(r.rc, 3);
    ck_assert_str_eq(r.message, "deadlock at slot 0: every node is blocked and nothing is in "
                                "flight\n  node 0 waits for a packet from any neighbour\n"
                                "  node 1 waits for a packet from any neighbour");
    ck_assert_int_eq(hm_t_int(&r, "verified"), 0);
    hm_t_free(&r);
}
END_TEST

START_TEST(test_deadlock_on_full_mailbox)
{
    hm_algorithm_t a = hm_t_algo(hm_t_flood, hm_t_verify_ok);
    hm_trun_t r =
        hm_t_run_algo(hm_t_cube(1, "all-port", "strict", ",\"mailbox\":{\"capacity\":1}"), &a);
    ck_assert_int_eq(r.rc, 3);
    ck_assert_str_eq(r.message, "deadlock at slot 1: every node is blocked and nothing is in "
                                "flight\n  node 0 waits on node 1 (mailbox 0->1 full, "
                                "capacity 1)");
    ck_assert_int_eq(hm_t_int(&r, "stalls"), 1);
    hm_t_free(&r);
}
END_TEST

START_TEST(test_max_slots)
{
    hm_algorithm_t a = hm_t_algo(hm_t_sleep_long, hm_t_verify_ok);
    hm_trun_t r =
        hm_t_run_algo(hm_t_cube(1, "all-port", "strict", ",\"clock\":{\"max_slots\":100}"), &a);
    ck_assert_int_eq(r.rc, 3);
    ck_assert_str_eq(r.message, "clock.max_slots = 100 reached: the next slot with work is "
                                "1000, with 2 of 2 nodes still running");
    hm_t_free(&r);
}
END_TEST

/* ---- the clock jumps over idle slots --------------------------------------- */

START_TEST(test_idle_slots_cost_nothing)
{
    hm_algorithm_t a = hm_t_algo(hm_t_late_send, hm_t_verify_ok);
    hm_trun_t r = hm_t_run_algo(
        hm_t_cube(1, "all-port", "strict", ",\"clock\":{\"max_slots\":2000000000}"), &a);
    ck_assert_int_eq(r.rc, 0);
    ck_assert_int_eq(hm_t_int(&r, "completion_slots"), 1000000001);
    /* Slot 0, the send in slot 10^9, node 1 reading in slot 10^9 + 1. */
    ck_assert_int_eq(hm_t_int(&r, "slots_run"), 3);
    hm_t_free(&r);
}
END_TEST

/* ---- backpressure ------------------------------------------------------------ */

static int64_t bp_stores[2][8];
static size_t bp_count[2];

static void verify_record(hm_report_t *r)
{
    for (int x = 0; x < 2; x++) {
        const int64_t *v = hm_report_stores(r, x, &bp_count[x]);
        for (size_t i = 0; i < bp_count[x] && i < 8; i++)
            bp_stores[x][i] = v[i];
    }
    hm_t_verify_ok(r);
}

static void producer_consumer(hm_node_t *n, void *s)
{
    (void)s;
    hm_packet_t p = {0};
    if (hm_id(n) == 0) {
        for (int i = 1; i <= 5; i++) {
            p.msg = i;
            hm_send(n, 0, &p);
            if (i < 5 && hm_next_slot(n) != HM_OK)
                return;
        }
        return;
    }
    if (hm_wait_until(n, 10) != HM_OK)
        return;
    for (int i = 0; i < 5; i++) {
        if (hm_wait_packet(n, &p) != HM_OK)
            return;
        hm_store(n, p.msg * 100 + p.recv_slot);
    }
}

START_TEST(test_backpressure)
{
    /* Capacity 2: m1 and m2 arrive in slots 0 and 1; m3 finds the mailbox full in
     * slot 2 and its sender stalls. Node 1 reads m1, m2 in slot 10, which makes room:
     * m3 goes in slot 10, and node 0, released, sends m4 in 11 and m5 in 12. */
    hm_algorithm_t a = hm_t_algo(producer_consumer, verify_record);
    hm_trun_t r =
        hm_t_run_algo(hm_t_cube(1, "all-port", "strict", ",\"mailbox\":{\"capacity\":2}"), &a);
    ck_assert_int_eq(r.rc, 0);
    ck_assert_int_eq(hm_t_int(&r, "stalls"), 1);
    ck_assert_int_eq(hm_t_int(&r, "max_mailbox_depth"), 2);
    ck_assert_int_eq(hm_t_int(&r, "transmissions"), 5);
    ck_assert_int_eq(hm_t_int(&r, "completion_slots"), 13);
    ck_assert_uint_eq(bp_count[1], 5);
    static const int64_t want[] = {100, 201, 310, 411, 512};
    for (int i = 0; i < 5; i++)
        ck_assert_int_eq(bp_stores[1][i], want[i]);
    hm_t_free(&r);
}
END_TEST

/* ---- port models -------------------------------------------------------------- */

static void three_on_port0(hm_node_t *n, void *s)
{
    (void)s;
    hm_packet_t p = {0};
    if (hm_id(n) == 0) {
        for (int i = 1; i <= 3; i++) {
            p.msg = i;
            hm_send(n, 0, &p);
        }
        return;
    }
    for (int i = 0; i < 3; i++)
        if (hm_wait_packet(n, &p) == HM_OK)
            hm_store(n, p.recv_slot);
}

START_TEST(test_link_capacity_strict)
{
    hm_algorithm_t a = hm_t_algo(three_on_port0, hm_t_verify_ok);
    hm_trun_t r = hm_t_run_algo(
        "{\"topology\":{\"kind\":\"hypercube\",\"dim\":1},\"ports\":{\"model\":\"all-port\","
        "\"link_capacity\":2},\"algorithm\":{\"name\":\"sbt-broadcast\"}}",
        &a);
    ck_assert_int_eq(r.rc, 1);
    ck_assert_str_eq(r.message, "slot 0: link 0->1 already carries 2 packet(s) (link_capacity "
                                "2): msg 3 on link 0->1 (port 0)");
    hm_t_free(&r);
}
END_TEST

START_TEST(test_link_capacity_queue)
{
    hm_algorithm_t a = hm_t_algo(three_on_port0, verify_record);
    hm_trun_t r = hm_t_run_algo(
        "{\"topology\":{\"kind\":\"hypercube\",\"dim\":1},\"ports\":{\"model\":\"all-port\","
        "\"link_capacity\":2},\"contention\":\"queue\",\"algorithm\":{\"name\":"
        "\"sbt-broadcast\"}}",
        &a);
    ck_assert_int_eq(r.rc, 0);
    ck_assert_int_eq(hm_t_int(&r, "delayed_packets"), 1);
    ck_assert_int_eq(hm_t_int(&r, "delay_slots"), 1);
    ck_assert_int_eq(hm_t_int(&r, "completion_slots"), 2);
    ck_assert_uint_eq(bp_count[1], 3);
    ck_assert_int_eq(bp_stores[1][0], 0);
    ck_assert_int_eq(bp_stores[1][1], 0);
    ck_assert_int_eq(bp_stores[1][2], 1);
    hm_t_free(&r);
}
END_TEST

static void shout_both(hm_node_t *n, void *s)
{
    (void)s;
    hm_packet_t p = {.msg = 1};
    if (hm_id(n) == 0)
        hm_shout(n, 3, &p);
}

START_TEST(test_one_port_full_two_sends)
{
    hm_algorithm_t a = hm_t_algo(shout_both, hm_t_verify_ok);
    hm_trun_t r = hm_t_run_algo(hm_t_cube(2, "one-port-full", "strict", NULL), &a);
    ck_assert_int_eq(r.rc, 1);
    ck_assert_str_eq(r.message, "slot 0: node 0 sends twice in one slot under one-port-full: "
                                "msg 1 on link 0->1 (port 0) and msg 1 on link 0->2 (port 1)");
    hm_t_free(&r);
}
END_TEST

START_TEST(test_shout_one_emission_many_ports)
{
    /* The same program is legal under shout and all-port: one emission, two copies. */
    hm_algorithm_t a = hm_t_algo(shout_both, hm_t_verify_ok);
    hm_trun_t r = hm_t_run_algo(hm_t_cube(2, "shout", "strict", NULL), &a);
    ck_assert_int_eq(r.rc, 0);
    ck_assert_int_eq(hm_t_int(&r, "transmissions"), 2);
    ck_assert_int_eq(hm_t_int(&r, "completion_slots"), 1);
    hm_t_free(&r);
}
END_TEST

static void exchange(hm_node_t *n, void *s)
{
    (void)s;
    hm_packet_t p = {.msg = hm_id(n) + 1};
    hm_send(n, 0, &p);
}

START_TEST(test_half_duplex)
{
    hm_algorithm_t a = hm_t_algo(exchange, hm_t_verify_ok);
    hm_trun_t r = hm_t_run_algo(hm_t_cube(1, "one-port-half", "strict", NULL), &a);
    ck_assert_int_eq(r.rc, 1);
    ck_assert_str_eq(r.message, "slot 0: node 1 cannot send and receive in one slot under "
                                "one-port-half: sends msg 2 on link 1->0 (port 0), receives "
                                "msg 1 on link 0->1 (port 0)");
    hm_t_free(&r);
    /* Full duplex allows the exchange. */
    r = hm_t_run_algo(hm_t_cube(1, "one-port-full", "strict", NULL), &a);
    ck_assert_int_eq(r.rc, 0);
    ck_assert_int_eq(hm_t_int(&r, "transmissions"), 2);
    hm_t_free(&r);
    /* Shout: emit and receive in one slot is a conflict too. */
    r = hm_t_run_algo(hm_t_cube(1, "shout", "strict", NULL), &a);
    ck_assert_int_eq(r.rc, 1);
    ck_assert_str_eq(r.message, "slot 0: node 1 cannot emit and receive in one slot under shout: "
                                "emits msg 2 on link 1->0 (port 0), receives msg 1 on link "
                                "0->1 (port 0)");
    hm_t_free(&r);
}
END_TEST

static void two_into_one(hm_node_t *n, void *s)
{
    (void)s;
    hm_packet_t p = {.msg = hm_id(n)};
    if (hm_id(n) == 1 || hm_id(n) == 2)
        hm_send(n, hm_port_to(n, 3), &p);
    if (hm_id(n) == 3)
        for (int i = 0; i < 2; i++)
            if (hm_wait_packet(n, &p) == HM_OK)
                hm_store(n, p.msg * 100 + p.recv_slot);
}

START_TEST(test_shout_two_receptions_queue)
{
    /* Nodes 1 and 2 both send to 3 in slot 0; under shout 3 hears one per slot. */
    hm_algorithm_t a = hm_t_algo(two_into_one, hm_t_verify_ok);
    hm_trun_t r = hm_t_run_algo(hm_t_cube(2, "shout", "queue", NULL), &a);
    ck_assert_int_eq(r.rc, 0);
    ck_assert_int_eq(hm_t_int(&r, "delayed_packets"), 1);
    ck_assert_int_eq(hm_t_int(&r, "completion_slots"), 2);
    hm_t_free(&r);
    r = hm_t_run_algo(hm_t_cube(2, "all-port", "strict", NULL), &a);
    ck_assert_int_eq(r.rc, 0);
    ck_assert_int_eq(hm_t_int(&r, "completion_slots"), 1);
    hm_t_free(&r);
}
END_TEST

/* ---- the node API ---------------------------------------------------------------- */

static void deadline_prog(hm_node_t *n, void *s)
{
    (void)s;
    hm_packet_t p = {.msg = 5};
    if (hm_id(n) == 0) {
        /* Bad arguments are refused, not fatal. */
        hm_store(n, hm_send(n, 7, &p));
        hm_store(n, hm_shout(n, 0, &p));
        hm_store(n, hm_wait_until(n, 0));
        hm_store(n, hm_neighbor(n, 0));
        hm_store(n, hm_neighbor(n, 1));
        if (hm_busy(n, 4) != HM_OK || hm_wait_until(n, 9) != HM_OK)
            return;
        hm_send(n, 0, &p);
        return;
    }
    hm_store(n, hm_wait_packet_until(n, &p, 7));
    hm_store(n, hm_now(n));
    hm_store(n, hm_wait_packet(n, &p));
    hm_store(n, hm_now(n));
    hm_store(n, p.recv_slot);
    hm_store(n, p.from);
    hm_store(n, hm_recv(n, &p));
}

START_TEST(test_node_api)
{
    hm_algorithm_t a = hm_t_algo(deadline_prog, verify_record);
    hm_trun_t r = hm_t_run_algo(hm_t_cube(1, "all-port", "strict", NULL), &a);
    ck_assert_int_eq(r.rc, 0);
    static const int64_t want0[] = {HM_EINVAL, HM_EINVAL, HM_EINVAL, 1, -1};
    static const int64_t want1[] = {HM_ENOENT, 7, HM_OK, 10, 9, 0, HM_ENOENT};
    ck_assert_uint_eq(bp_count[0], 5);
    ck_assert_uint_eq(bp_count[1], 7);
    for (int i = 0; i < 5; i++)
        ck_assert_int_eq(bp_stores[0][i], want0[i]);
    for (int i = 0; i < 7; i++)
        ck_assert_int_eq(bp_stores[1][i], want1[i]);
    ck_assert_int_eq(hm_t_int(&r, "completion_slots"), 10);
    /* The three HM_EINVAL are refused calls, hm_wait_until(n, 0) too (README "Refused
     * calls"). */
    ck_assert_int_eq(hm_t_int(&r, "refused_calls"), 3);
    hm_t_free(&r);
}
END_TEST

static void busy_only(hm_node_t *n, void *s)
{
    (void)s;
    if (hm_id(n) == 1)
        hm_busy(n, 6);
}

START_TEST(test_busy_counts_in_completion)
{
    hm_algorithm_t a = hm_t_algo(busy_only, hm_t_verify_ok);
    hm_trun_t r = hm_t_run_algo(hm_t_cube(1, "all-port", "strict", NULL), &a);
    ck_assert_int_eq(r.rc, 0);
    ck_assert_int_eq(hm_t_int(&r, "completion_slots"), 6);
    ck_assert_int_eq(hm_t_int(&r, "transmissions"), 0);
    hm_t_free(&r);
}
END_TEST

static void payload(hm_node_t *n, void *s)
{
    (void)s;
    char text[] = "hypercube";
    hm_packet_t p = {.msg = 1, .data = text, .len = sizeof text};
    if (hm_id(n) == 0) {
        hm_send(n, 0, &p);
        text[0] = 'X'; /* the engine copied the bytes at the call */
        return;
    }
    if (hm_wait_packet(n, &p) == HM_OK)
        hm_store(n, p.len == 10 && memcmp(p.data, "hypercube", 10) == 0);
}

START_TEST(test_payload_copied)
{
    hm_algorithm_t a = hm_t_algo(payload, verify_record);
    hm_trun_t r = hm_t_run_algo(hm_t_cube(1, "all-port", "strict", NULL), &a);
    ck_assert_int_eq(r.rc, 0);
    ck_assert_uint_eq(bp_count[1], 1);
    ck_assert_int_eq(bp_stores[1][0], 1);
    hm_t_free(&r);
}
END_TEST

static void give_up(hm_node_t *n, void *s)
{
    (void)s;
    hm_packet_t p;
    if (hm_id(n) == 0) {
        hm_fail(n, "cannot allocate its table");
        return;
    }
    hm_wait_packet(n, &p); /* would wait for ever */
}

START_TEST(test_hm_fail_exit_4)
{
    /* A node program that cannot go on stops the run with exit 4 and its reason,
     * rather than leaving the others to deadlock. */
    hm_algorithm_t a = hm_t_algo(give_up, hm_t_verify_ok);
    hm_trun_t r = hm_t_run_algo(hm_t_cube(1, "all-port", "strict", NULL), &a);
    ck_assert_int_eq(r.rc, 4);
    ck_assert_str_eq(r.message, "node 0: cannot allocate its table");
    hm_t_free(&r);
}
END_TEST

/* The example at the top of include/hypemu.h, as written there. */
static void header_bcast(hm_node_t *n, void *state)
{
    (void)state;
    hm_packet_t p = {.msg = 1, .value = 42};
    int lowest = hm_degree(n); // the root forwards on every port
    if (hm_id(n) != 0) {
        if (hm_wait_packet(n, &p) < 0) // run aborted: return at once
            return;
        lowest = p.port; // arrived on port k: children below k
    }
    hm_store(n, p.value);
    uint64_t children = (UINT64_C(1) << lowest) - 1;
    if (children)
        hm_shout(n, children, &p); // one emission, all children
}

static void verify_all_42(hm_report_t *r)
{
    r->verified = 1;
    for (int x = 0; x < r->machine->nodes; x++) {
        size_t k;
        const int64_t *v = hm_report_stores(r, x, &k);
        r->verified &= k == 1 && v[0] == 42;
    }
}

START_TEST(test_header_example)
{
    /* A student's first program: the binomial tree of the header, on Q_5 under shout:
     * 5 slots, 31 packets, every node holds 42. */
    hm_algorithm_t a = hm_t_algo(header_bcast, verify_all_42);
    hm_trun_t r = hm_t_run_algo(hm_t_cube(5, "shout", "strict", NULL), &a);
    ck_assert_int_eq(r.rc, 0);
    ck_assert_int_eq(hm_t_int(&r, "completion_slots"), 5);
    ck_assert_int_eq(hm_t_int(&r, "transmissions"), 31);
    ck_assert_int_eq(hm_t_int(&r, "conflicts"), 0);
    hm_t_free(&r);
}
END_TEST

/* ---- the interrupt flag: what a SIGINT handler raises ----------------------------- */

static atomic_int interrupt_flag;

/* Every node stores its slot each slot; node 3 raises the flag in slot 5, as a
 * signal arriving then would. */
static void tick_then_interrupt(hm_node_t *n, void *s)
{
    (void)s;
    for (;;) {
        if (hm_id(n) == 3 && hm_now(n) == 5)
            atomic_store(&interrupt_flag, 1);
        hm_store(n, hm_now(n));
        if (hm_next_slot(n) != HM_OK)
            return;
    }
}

/* The slotted clock stops at the end of slot 5 and the outputs keep what was done:
 * 16 nodes x 6 slots of stores, the last in slot 5. */
START_TEST(test_interrupt_ends_slot)
{
    char *dir = hm_t_tmpdir();
    char cfg[1024], path[512];
    snprintf(path, sizeof path, "%s/events.jsonl", dir);
    snprintf(cfg, sizeof cfg,
             "{\"topology\":{\"kind\":\"hypercube\",\"dim\":4},"
             "\"algorithm\":{\"name\":\"sbt-broadcast\"},\"output\":{\"events\":\"%s\"}}",
             path);
    atomic_store(&interrupt_flag, 0);
    hm_algorithm_t a = hm_t_algo(tick_then_interrupt, hm_t_verify_ok);
    hm_trun_t r = hm_t_run_interrupt(cfg, &a, &interrupt_flag);
    ck_assert_int_eq(r.rc, 130);
    ck_assert_str_eq(r.message,
                     "interrupted at the end of slot 5, with 16 of 16 nodes still running");
    ck_assert_str_eq(hm_t_str(&r, "verification"), "not verified: the run stopped (interrupted)");
    ck_assert_int_eq(hm_t_int(&r, "slots_run"), 6);
    size_t len;
    char *text = hm_t_slurp(path, &len);
    ck_assert_ptr_nonnull(text);
    size_t lines = 0;
    for (size_t i = 0; i < len; i++)
        lines += text[i] == '\n';
    ck_assert_int_eq(lines, 16 * 6);
    ck_assert_ptr_nonnull(
        strstr(text, "{\"slot\":5,\"node\":15,\"event\":\"store\",\"value\":5}\n"));
    ck_assert_ptr_null(strstr(text, "{\"slot\":6,"));
    free(text);
    hm_t_free(&r);
    hm_t_rmtree(dir);
}
END_TEST

/* The free-running clock stops at the next step of a node that sees the flag. */
/* The same in free mode, where each node keeps its own clock: a node that reaches
 * slot 5 first waits there (in wall time) for node 3 to raise the flag, so that
 * however the host schedules the threads no node ticks on towards clock.max_slots
 * before the interrupt (a loaded host may leave node 3 unscheduled for seconds). */
static void tick_until_interrupt(hm_node_t *n, void *s)
{
    (void)s;
    for (;;) {
        if (hm_id(n) == 3 && hm_now(n) == 5)
            atomic_store(&interrupt_flag, 1);
        while (hm_now(n) >= 5 && !atomic_load(&interrupt_flag))
            nanosleep(&(struct timespec){0, 1000000}, NULL);
        hm_store(n, hm_now(n));
        if (hm_next_slot(n) != HM_OK)
            return;
    }
}

START_TEST(test_interrupt_free)
{
    atomic_store(&interrupt_flag, 0);
    hm_algorithm_t a = hm_t_algo(tick_until_interrupt, hm_t_verify_ok);
    hm_trun_t r = hm_t_run_interrupt("{\"topology\":{\"kind\":\"hypercube\",\"dim\":2},"
                                     "\"clock\":{\"mode\":\"free\"},"
                                     "\"algorithm\":{\"name\":\"sbt-broadcast\"}}",
                                     &a, &interrupt_flag);
    ck_assert_int_eq(r.rc, 130);
    ck_assert_msg(strncmp(r.message, "interrupted at slot ", 20) == 0, "%s", r.message);
    ck_assert_str_eq(hm_t_str(&r, "verification"), "not verified: the run stopped (interrupted)");
    hm_t_free(&r);
}
END_TEST

/* ---- thread creation fails: the error names the host limit -------------------------- */

/* Stacks of 2^44 bytes cannot be mapped: the first pthread_create fails (after its
 * retries, about a second), the run ends with the cause "system" and the message names
 * the memory limit with its value. */
START_TEST(test_thread_limit_named)
{
    hm_algorithm_t a = hm_t_algo(hm_t_wait_forever, hm_t_verify_ok);
    hm__options_t o = {0};
    o.info.topology = HM_TOPO_HYPERCUBE;
    o.info.dim = 2;
    o.info.nodes = 4;
    o.info.ports = HM_PORTS_ALL_PORT;
    o.info.link_capacity = 1;
    o.mailbox_capacity = 4;
    o.max_slots = 100;
    o.stack_size = (size_t)1 << 44;
    hm__machine_t *m;
    char err[256];
    ck_assert_int_eq(hm__machine_create(&m, &o, &a, NULL, err, sizeof err), 0);
    ck_assert_int_eq(hm__machine_run(m), HM__END_SYSTEM);
    ck_assert_msg(strncmp(m->stop_reason, "cannot create the thread of node 0 of 4: ", 41) == 0,
                  "%s", m->stop_reason);
    ck_assert_msg(strstr(m->stop_reason, "the host limit reached is memory (MemAvailable, kB) = "),
                  "%s", m->stop_reason);
    hm__machine_destroy(m);
    /* The same limits, as --validate would ask: room for 4 small threads, so no limit
     * is said to be reached; the tightest is shown. */
    char why[256];
    ck_assert_int_ge(hm__host_thread_limit(4, 64 * 1024, why, sizeof why), 4);
    ck_assert_msg(strncmp(why, "no host limit read here is reached; the tightest is ", 52) == 0,
                  "%s", why);
}
END_TEST

Suite *hm_suite_engine(void)
{
    Suite *s = suite_create("engine");
    TCase *clock = tcase_create("clock");
    tcase_add_test(clock, test_deadlock_names_waiters);
    tcase_add_test(clock, test_grid);
    tcase_add_test(clock, test_deadlock_on_full_mailbox);
    tcase_add_test(clock, test_max_slots);
    tcase_add_test(clock, test_idle_slots_cost_nothing);
    tcase_add_test(clock, test_backpressure);
    tcase_add_test(clock, test_interrupt_ends_slot);
    tcase_add_test(clock, test_interrupt_free);
    tcase_add_test(clock, test_thread_limit_named);
    tcase_set_timeout(clock, 30);
    suite_add_tcase(s, clock);

    TCase *ports = tcase_create("ports");
    tcase_add_test(ports, test_link_capacity_strict);
    tcase_add_test(ports, test_link_capacity_queue);
    tcase_add_test(ports, test_one_port_full_two_sends);
    tcase_add_test(ports, test_shout_one_emission_many_ports);
    tcase_add_test(ports, test_half_duplex);
    tcase_add_test(ports, test_shout_two_receptions_queue);
    tcase_set_timeout(ports, 30);
    suite_add_tcase(s, ports);

    TCase *api = tcase_create("api");
    tcase_add_test(api, test_node_api);
    tcase_add_test(api, test_busy_counts_in_completion);
    tcase_add_test(api, test_payload_copied);
    tcase_add_test(api, test_hm_fail_exit_4);
    tcase_add_test(api, test_header_example);
    tcase_set_timeout(api, 30);
    suite_add_tcase(s, api);
    return s;
}
