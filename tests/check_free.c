/*
 * check_free.c — the free-running clock (clock.mode "free", engine/free.c): no
 * barrier, logical (Lamport) clocks, real mailboxes with real backpressure, deadlock
 * detection, and the configs it refuses. Free mode is not deterministic: the tests
 * assert what holds whatever the scheduling (logical slot counts where every node
 * hears from one parent only, packet counts, the exact deadlock reports of runs whose
 * blocking states are forced).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "helpers.h"

static char *cube(int d, const char *model, const char *algo, const char *extra)
{
    static char buf[1024];
    snprintf(buf, sizeof buf,
             "{\"topology\":{\"kind\":\"hypercube\",\"dim\":%d},"
             "\"ports\":{\"model\":\"%s\"},\"clock\":{\"mode\":\"free\"},"
             "\"algorithm\":{\"name\":\"%s\"}%s}",
             d, model, algo, extra ? extra : "");
    return buf;
}

static json_t *free_obj(const hm_trun_t *r)
{
    json_t *f = json_object_get(r->summary, "free");
    ck_assert_msg(json_is_object(f), "summary has no \"free\" object");
    return f;
}

static int64_t free_int(const hm_trun_t *r, const char *key)
{
    json_t *v = json_object_get(free_obj(r), key);
    ck_assert_msg(json_is_integer(v), "free.%s is not an integer", key);
    return json_integer_value(v);
}

/* ---- the papers' broadcasts, free-running ---------------------------------------- */

/* A broadcast on the spanning binomial tree: each node hears from its parent only, so
 * the logical clocks are those of the slotted run: d slots, p - 1 packets, from every
 * root, under shout and one-port (children served one per slot). */
START_TEST(test_sbt_free)
{
    int d = _i;
    int p = 1 << d;
    static const char *const models[] = {"shout", "one-port-full"};
    for (int k = 0; k < 2; k++) {
        char cfg[1024];
        snprintf(cfg, sizeof cfg,
                 "{\"topology\":{\"kind\":\"hypercube\",\"dim\":%d},"
                 "\"ports\":{\"model\":\"%s\"},\"clock\":{\"mode\":\"free\"},"
                 "\"algorithm\":{\"name\":\"sbt-broadcast\",\"root\":%d,\"rotation\":%d}}",
                 d, models[k], p - 1, d - 1);
        hm_trun_t r = hm_t_run(cfg, NULL);
        ck_assert_msg(r.rc == 0, "d=%d %s: rc %d %s", d, models[k], r.rc,
                      r.message ? r.message : "");
        ck_assert_int_eq(hm_t_int(&r, "verified"), 1);
        ck_assert_int_eq(hm_t_int(&r, "completion_slots"), d);
        ck_assert_int_eq(hm_t_int(&r, "transmissions"), p - 1);
        ck_assert_int_eq(hm_t_int(&r, "conflicts"), 0);
        ck_assert_int_eq(hm_t_int(&r, "delayed_packets"), 0);
        ck_assert(json_is_false(json_object_get(free_obj(&r), "port_model_enforced")));
        ck_assert(json_is_false(json_object_get(free_obj(&r), "deterministic")));
        ck_assert_int_eq(free_int(&r, "blocked_sends"), 0);
        hm_t_free(&r);
    }
}
END_TEST

/* The successive broadcasts' own verify, plus a check that holds in free mode: every
 * node stored every mu_j exactly once ("permutation" in the summary). */
static void (*succ_verify)(hm_report_t *);

static void succ_verify_free(hm_report_t *r)
{
    succ_verify(r);
    int p = r->machine->nodes, ok = 1;
    char *seen = calloc((size_t)p + 1, 1);
    for (int x = 0; x < p && ok; x++) {
        size_t k;
        const int64_t *v = hm_report_stores(r, x, &k);
        memset(seen, 0, (size_t)p + 1);
        ok = k == (size_t)p;
        for (size_t i = 0; i < k && ok; i++) {
            ok = v[i] >= 1 && v[i] <= p && !seen[v[i]];
            if (ok)
                seen[v[i]] = 1;
        }
    }
    free(seen);
    json_object_set_new(r->extra, "permutation", json_boolean(ok));
}

/* Free mode keeps the causal order along one path (links are FIFO, each node forwards
 * in receive order), but mu_j and mu_(j+1) reach a node along different trees: with
 * no barrier, mu_(j+1) can overtake mu_j, and the paper's order (Lemma 1 rests on the
 * slot timing) may break. So: either the run verifies, or verify names the first
 * node out of order; always every node stores each mu_j exactly once, p(p-1) packets,
 * no conflict. Mailboxes as large as the p packets a link may carry, so that no send
 * blocks (blocking sends can close cycles of full mailboxes in free mode). */
START_TEST(test_successive_free)
{
    int d = _i;
    int p = 1 << d;
    const hm_algorithm_t *orig = hm_algorithm_find("successive-broadcast");
    ck_assert_ptr_nonnull(orig);
    hm_algorithm_t a = *orig;
    succ_verify = orig->verify;
    a.verify = succ_verify_free;
    char extra[128];
    snprintf(extra, sizeof extra, ",\"mailbox\":{\"capacity\":%d}", p);
    char cfg[1024];
    snprintf(cfg, sizeof cfg, "%s", cube(d, "shout", "successive-broadcast", extra));
    hm_trun_t r = hm_t_run_algo(cfg, &a);
    ck_assert_msg(r.rc == 0 || r.rc == 1, "d=%d: rc %d %s", d, r.rc, r.message ? r.message : "");
    char want[128];
    const char *got = hm_t_str(&r, "verification");
    if (r.rc == 0) {
        snprintf(want, sizeof want, "every node stored mu_1..mu_%d in order", p);
        ck_assert_str_eq(got, want);
    } else {
        snprintf(want, sizeof want, " did not store mu_1..mu_%d in order (first wrong store: #", p);
        ck_assert_msg(strncmp(got, "node ", 5) == 0 && strstr(got, want), "%s", got);
    }
    ck_assert_int_eq(hm_t_int(&r, "permutation"), 1);
    ck_assert_int_eq(hm_t_int(&r, "transmissions"), (int64_t)p * (p - 1));
    ck_assert_int_eq(hm_t_int(&r, "conflicts"), 0);
    ck_assert_int_eq(free_int(&r, "blocked_sends"), 0);
    ck_assert_int_le(hm_t_int(&r, "max_mailbox_depth"), p);
    hm_t_free(&r);
}
END_TEST

/* Q_1 has one link: mu_2 starts after node 1 read mu_1, so the order always holds. */
START_TEST(test_successive_free_q1_in_order)
{
    for (int i = 0; i < 20; i++) {
        hm_trun_t r = hm_t_run(cube(1, "shout", "successive-broadcast", NULL), NULL);
        ck_assert_int_eq(r.rc, 0);
        ck_assert_str_eq(hm_t_str(&r, "verification"), "every node stored mu_1..mu_2 in order");
        ck_assert_int_eq(hm_t_int(&r, "transmissions"), 2);
        hm_t_free(&r);
    }
}
END_TEST

/* The shipped free config, through the program: no golden summary (free mode is not
 * deterministic), but the figures that do not depend on the scheduling. */
START_TEST(test_shipped_free_config)
{
    char *out, *err;
    int rc = hm_t_exec(NULL, &out, &err,
                       (const char *[]){"--json", "--set", "output=null",
                                        HM_SRCDIR "/configs/q8_successive_free.json", NULL});
    ck_assert_msg(rc == 0 || rc == 1, "rc %d: %s", rc, err);
    json_t *j = json_loads(out, 0, NULL);
    ck_assert_ptr_nonnull(j);
    ck_assert_int_eq(json_integer_value(json_object_get(j, "nodes")), 256);
    ck_assert_int_eq(json_integer_value(json_object_get(j, "transmissions")), 256 * 255);
    ck_assert_int_eq(json_integer_value(json_object_get(j, "conflicts")), 0);
    json_t *f = json_object_get(j, "free");
    ck_assert(json_is_false(json_object_get(f, "port_model_enforced")));
    ck_assert(json_is_integer(json_object_get(f, "lock_waits")));
    ck_assert(json_is_real(json_object_get(f, "blocked_seconds")));
    json_decref(j);
    free(out);
    free(err);
}
END_TEST

/* The event log of a free run is causally consistent: every packet is received in a
 * logical slot no earlier than the one it was sent in. */
START_TEST(test_free_events_causal)
{
    char *tmp = hm_t_tmpdir();
    char path[512], sets[600];
    snprintf(path, sizeof path, "%s/e.jsonl", tmp);
    snprintf(sets, sizeof sets, "output.events=%s", path);
    hm_trun_t r =
        hm_t_run(cube(3, "shout", "successive-broadcast", ",\"mailbox\":{\"capacity\":8}"),
                 (const char *[]){sets, NULL});
    ck_assert_msg(r.rc == 0 || r.rc == 1, "rc %d", r.rc);
    size_t len;
    char *text = hm_t_slurp(path, &len);
    ck_assert_ptr_nonnull(text);
    /* send slot of (from, to, msg): successive broadcasts send each msg once a link. */
    static int64_t sent[8][8][9];
    for (int a = 0; a < 8; a++)
        for (int b = 0; b < 8; b++)
            for (int k = 0; k < 9; k++)
                sent[a][b][k] = -1;
    int recvs = 0, sends = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (char *line = text; line && *line;) {
            char *nl = strchr(line, '\n');
            if (nl)
                *nl = 0;
            json_t *e = json_loads(line, 0, NULL);
            ck_assert_ptr_nonnull(e);
            const char *kind = json_string_value(json_object_get(e, "event"));
            int64_t slot = json_integer_value(json_object_get(e, "slot"));
            int node = (int)json_integer_value(json_object_get(e, "node"));
            int msg = (int)json_integer_value(json_object_get(e, "msg"));
            if (pass == 0 && strcmp(kind, "send") == 0) {
                int to = (int)json_integer_value(json_object_get(e, "to"));
                sent[node][to][msg] = slot;
                sends++;
            }
            if (pass == 1 && strcmp(kind, "recv") == 0) {
                int from = (int)json_integer_value(json_object_get(e, "from"));
                ck_assert_int_ge(sent[from][node][msg], 0);
                ck_assert_int_le(sent[from][node][msg], slot);
                recvs++;
            }
            json_decref(e);
            if (nl)
                *nl = '\n';
            line = nl ? nl + 1 : NULL;
        }
    }
    ck_assert_int_eq(sends, 8 * 7);
    ck_assert_int_eq(recvs, 8 * 7);
    free(text);
    hm_t_free(&r);
    hm_t_rmtree(tmp);
}
END_TEST

/* ---- node programs of the tests ------------------------------------------------------ */

/* ---- deadlock ------------------------------------------------------------------------ */

START_TEST(test_deadlock_receivers)
{
    hm_algorithm_t a = hm_t_algo(hm_t_wait_forever, hm_t_verify_ok);
    hm_trun_t r = hm_t_run_algo(cube(1, "all-port", "sbt-broadcast", NULL), &a);
    ck_assert_int_eq(r.rc, 3);
    ck_assert_str_eq(r.message, "deadlock (free-running clock): every node that has not "
                                "returned is blocked\n"
                                "  node 0 waits for a packet from any neighbour, at slot 0\n"
                                "  node 1 waits for a packet from any neighbour, at slot 0");
    ck_assert_int_eq(hm_t_int(&r, "verified"), 0);
    ck_assert_str_eq(hm_t_str(&r, "verification"), "not verified: the run stopped (deadlock)");
    ck_assert_int_eq(free_int(&r, "blocked_receives"), 2);
    hm_t_free(&r);
}
END_TEST

/* Node 0 returns; nodes 1..3 of Q_2 wait at their own slots for packets that never
 * come; only the waiters are named. */
static void some_wait(hm_node_t *n, void *s)
{
    (void)s;
    if (hm_id(n) == 0)
        return;
    if (hm_wait_until(n, hm_id(n) * 10) != HM_OK)
        return;
    hm_packet_t p;
    (void)hm_wait_packet(n, &p);
}

START_TEST(test_deadlock_after_return)
{
    hm_algorithm_t a = hm_t_algo(some_wait, hm_t_verify_ok);
    hm_trun_t r = hm_t_run_algo(cube(2, "all-port", "sbt-broadcast", NULL), &a);
    ck_assert_int_eq(r.rc, 3);
    ck_assert_str_eq(r.message, "deadlock (free-running clock): every node that has not "
                                "returned is blocked\n"
                                "  node 1 waits for a packet from any neighbour, at slot 10\n"
                                "  node 2 waits for a packet from any neighbour, at slot 20\n"
                                "  node 3 waits for a packet from any neighbour, at slot 30");
    hm_t_free(&r);
}
END_TEST

/* Both nodes send two packets to each other and never read: with capacity 1 each
 * blocks on its second send, a cycle of full mailboxes. */
static void send_two(hm_node_t *n, void *s)
{
    (void)s;
    hm_packet_t p = {.msg = 1};
    if (hm_send(n, 0, &p) != HM_OK || hm_next_slot(n) != HM_OK)
        return;
    p.msg = 2;
    (void)hm_send(n, 0, &p);
}

START_TEST(test_deadlock_full_mailboxes)
{
    hm_algorithm_t a = hm_t_algo(send_two, hm_t_verify_ok);
    hm_trun_t r =
        hm_t_run_algo(cube(1, "all-port", "sbt-broadcast", ",\"mailbox\":{\"capacity\":1}"), &a);
    ck_assert_int_eq(r.rc, 3);
    ck_assert_str_eq(r.message,
                     "deadlock (free-running clock): every node that has not returned is "
                     "blocked\n"
                     "  node 0 waits on node 1 (mailbox 0->1 full, capacity 1), at slot 1\n"
                     "  node 1 waits on node 0 (mailbox 1->0 full, capacity 1), at slot 1");
    ck_assert_int_eq(free_int(&r, "blocked_sends"), 2);
    ck_assert_int_eq(hm_t_int(&r, "stalls"), 2);
    ck_assert_int_eq(hm_t_int(&r, "transmissions"), 2);
    ck_assert_int_eq(hm_t_int(&r, "max_mailbox_depth"), 1);
    hm_t_free(&r);
}
END_TEST

/* ---- backpressure ----------------------------------------------------------------------- */

enum { BP_PACKETS = 100 };

/* Node 0 sends BP_PACKETS packets, one a slot; node 1 sleeps (wall time) before it
 * reads them all: with capacity 1 the producer really blocks. */
static void producer_consumer(hm_node_t *n, void *s)
{
    (void)s;
    if (hm_id(n) == 0) {
        for (int i = 0; i < BP_PACKETS; i++) {
            hm_packet_t p = {.msg = i, .value = i};
            if (hm_send(n, 0, &p) != HM_OK)
                return;
            if (i + 1 < BP_PACKETS && hm_next_slot(n) != HM_OK)
                return;
        }
        return;
    }
    /* Once the first packet is there the producer is one send from blocking: give it
     * 20 ms of wall time to get there. */
    for (int k = 0; k < 5000 && hm_pending(n) == 0; k++)
        nanosleep(&(struct timespec){.tv_nsec = 1000 * 1000}, NULL);
    nanosleep(&(struct timespec){.tv_nsec = 20 * 1000 * 1000}, NULL);
    for (int i = 0; i < BP_PACKETS; i++) {
        hm_packet_t p;
        if (hm_wait_packet(n, &p) != HM_OK)
            return;
        /* Lamport: read in slot max(now, sent + 1), received in the slot before. */
        if (p.sent_slot != i || p.recv_slot != i || hm_now(n) != i + 1)
            return;
        hm_store(n, p.value);
    }
}

static void verify_fifo(hm_report_t *r)
{
    size_t k;
    const int64_t *v = hm_report_stores(r, 1, &k);
    r->verified = k == BP_PACKETS;
    for (size_t i = 0; i < k; i++)
        r->verified &= v[i] == (int64_t)i;
    snprintf(r->verification, sizeof r->verification, "%zu packets in order", k);
}

START_TEST(test_backpressure)
{
    hm_algorithm_t a = hm_t_algo(producer_consumer, verify_fifo);
    hm_trun_t r =
        hm_t_run_algo(cube(1, "all-port", "sbt-broadcast", ",\"mailbox\":{\"capacity\":1}"), &a);
    ck_assert_msg(r.rc == 0, "rc %d: %s", r.rc, r.message ? r.message : "");
    ck_assert_str_eq(hm_t_str(&r, "verification"), "100 packets in order");
    ck_assert_int_eq(hm_t_int(&r, "transmissions"), BP_PACKETS);
    ck_assert_int_eq(hm_t_int(&r, "completion_slots"), BP_PACKETS);
    ck_assert_int_eq(hm_t_int(&r, "max_mailbox_depth"), 1);
    ck_assert_int_gt(free_int(&r, "blocked_sends"), 0);
    ck_assert_int_eq(hm_t_int(&r, "stalls"), free_int(&r, "blocked_sends"));
    ck_assert(json_real_value(json_object_get(free_obj(&r), "blocked_seconds")) > 0.0);
    hm_t_free(&r);
}
END_TEST

/* ---- logical clocks ------------------------------------------------------------------- */

/* A deadline with no packet: the node jumps to it at once and gets HM_ENOENT; a
 * packet already there is returned at once; hm_wait_until sets the clock. */
static void deadlines(hm_node_t *n, void *s)
{
    (void)s;
    hm_packet_t p = {.msg = 7};
    if (hm_id(n) == 0) {
        /* Wait for node 1's go (sent in its slot 5): read in slot 6. */
        if (hm_wait_packet(n, &p) != HM_OK || p.msg != 1 || hm_now(n) != 6)
            return;
        if (hm_wait_until(n, 40) != HM_OK || hm_now(n) != 40)
            return;
        p.msg = 7;
        (void)hm_send(n, 0, &p);
        return;
    }
    if (hm_wait_packet_until(n, &p, 5) != HM_ENOENT || hm_now(n) != 5)
        return;
    if (hm_wait_packet_until(n, &p, 5) != HM_ENOENT || hm_now(n) != 5)
        return;
    if (hm_wait_until(n, 5) != HM_EINVAL)
        return;
    p.msg = 1;
    if (hm_send(n, 0, &p) != HM_OK)
        return;
    if (hm_wait_packet(n, &p) != HM_OK || p.msg != 7 || hm_now(n) != 41 || p.recv_slot != 40)
        return;
    hm_store(n, 1);
}

static void verify_node1_stored(hm_report_t *r)
{
    size_t k;
    (void)hm_report_stores(r, 1, &k);
    r->verified = k == 1;
    snprintf(r->verification, sizeof r->verification, "%zu", k);
}

START_TEST(test_logical_clock)
{
    hm_algorithm_t a = hm_t_algo(deadlines, verify_node1_stored);
    hm_trun_t r = hm_t_run_algo(cube(1, "all-port", "sbt-broadcast", NULL), &a);
    ck_assert_msg(r.rc == 0, "rc %d: %s", r.rc, r.message ? r.message : "");
    ck_assert_int_eq(hm_t_int(&r, "completion_slots"), 41);
    ck_assert_int_eq(hm_t_int(&r, "slots_run"), 42);
    hm_t_free(&r);
}
END_TEST

/* clock.max_slots bounds the logical clocks: node 0 ticks forever, node 1 waits. */
static void tick_forever(hm_node_t *n, void *s)
{
    (void)s;
    if (hm_id(n) == 1) {
        hm_packet_t p;
        (void)hm_wait_packet(n, &p);
        return;
    }
    while (hm_next_slot(n) == HM_OK)
        ;
}

START_TEST(test_max_slots)
{
    hm_algorithm_t a = hm_t_algo(tick_forever, hm_t_verify_ok);
    hm_trun_t r = hm_t_run_algo("{\"topology\":{\"kind\":\"hypercube\",\"dim\":1},"
                                "\"clock\":{\"mode\":\"free\",\"max_slots\":100},"
                                "\"algorithm\":{\"name\":\"sbt-broadcast\"}}",
                                &a);
    ck_assert_int_eq(r.rc, 3);
    ck_assert_str_eq(r.message, "clock.max_slots = 100 reached: the logical clock of node 0 "
                                "reached slot 100 (free-running clock)");
    ck_assert_str_eq(hm_t_str(&r, "verification"),
                     "not verified: the run stopped (clock.max_slots reached)");
    hm_t_free(&r);
}
END_TEST

/* Regression (robustness issue, defect 1): node 0 reaches max_slots while the
 * start-up wake-up tree is still waking the others; a node that saw the abort used to
 * return without waking its children, who slept for ever in the join. Half the runs
 * hung; each must now end, at once, with exit 3. */
START_TEST(test_max_slots_during_startup)
{
    const char *cfg = "{\"topology\":{\"kind\":\"hypercube\",\"dim\":4},"
                      "\"ports\":{\"model\":\"shout\"},\"mailbox\":{\"capacity\":256},"
                      "\"algorithm\":{\"name\":\"successive-broadcast\",\"variant\":\"rotated\"},"
                      "\"clock\":{\"mode\":\"free\",\"max_slots\":1}}";
    for (int i = 0; i < 40; i++) {
        hm_trun_t r = hm_t_run(cfg, NULL);
        ck_assert_int_eq(r.rc, 3);
        ck_assert_msg(
            strncmp(r.message, "clock.max_slots = 1 reached: the logical clock of node ", 55) == 0,
            "%s", r.message);
        ck_assert_str_eq(hm_t_str(&r, "verification"),
                         "not verified: the run stopped (clock.max_slots reached)");
        hm_t_free(&r);
    }
}
END_TEST

/* ---- config --------------------------------------------------------------------------- */

START_TEST(test_config_errors)
{
    hm_trun_t r = hm_t_run("{\"topology\":{\"kind\":\"linear\",\"nodes\":8},"
                           "\"clock\":{\"mode\":\"free\"},"
                           "\"algorithm\":{\"name\":\"st-broadcast\"}}",
                           NULL);
    ck_assert_int_eq(r.rc, 2);
    ck_assert_str_eq(r.message, "test.json: clock.mode: found \"free\"; allowed: \"slotted\" "
                                "under circuit routing (ports.routing \"circuit\"; free mode "
                                "needs \"packet\")\n");
    hm_t_free(&r);
    r = hm_t_run("{\"topology\":{\"kind\":\"bus\",\"nodes\":5},"
                 "\"clock\":{\"mode\":\"free\"},\"algorithm\":{\"name\":\"max\"}}",
                 NULL);
    ck_assert_int_eq(r.rc, 2);
    ck_assert_str_eq(r.message, "test.json: clock.mode: found \"free\"; allowed: \"slotted\" "
                                "under the bus port model\n");
    hm_t_free(&r);
    r = hm_t_run(cube(2, "shout", "sbt-broadcast", NULL),
                 (const char *[]){"clock.mode=fast", NULL});
    ck_assert_int_eq(r.rc, 2);
    ck_assert_str_eq(r.message, "test.json: clock.mode: found \"fast\"; allowed: \"slotted\", "
                                "\"free\", \"local\"\n");
    hm_t_free(&r);
    /* Slotted mode has no "free" object in its summary. */
    r = hm_t_run(cube(2, "shout", "sbt-broadcast", NULL),
                 (const char *[]){"clock.mode=slotted", NULL});
    ck_assert_int_eq(r.rc, 0);
    ck_assert_ptr_null(json_object_get(r.summary, "free"));
    hm_t_free(&r);
}
END_TEST

Suite *hm_suite_free(void)
{
    Suite *s = suite_create("free");
    TCase *algos = tcase_create("algorithms");
    tcase_add_loop_test(algos, test_sbt_free, 1, 9);
    tcase_add_loop_test(algos, test_successive_free, 1, 9);
    tcase_add_test(algos, test_successive_free_q1_in_order);
    tcase_add_test(algos, test_shipped_free_config);
    tcase_add_test(algos, test_free_events_causal);
    tcase_set_timeout(algos, 60);
    suite_add_tcase(s, algos);
    TCase *engine = tcase_create("engine");
    tcase_add_test(engine, test_deadlock_receivers);
    tcase_add_test(engine, test_deadlock_after_return);
    tcase_add_test(engine, test_deadlock_full_mailboxes);
    tcase_add_test(engine, test_backpressure);
    tcase_add_test(engine, test_logical_clock);
    tcase_add_test(engine, test_max_slots);
    tcase_add_test(engine, test_max_slots_during_startup);
    tcase_add_test(engine, test_config_errors);
    tcase_set_timeout(engine, 30);
    suite_add_tcase(s, engine);
    return s;
}
