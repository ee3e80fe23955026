/* SPDX-License-Identifier: MIT */
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

/* All-port with link_capacity 2: two packets of a link in flight, so that a mailbox of
 * capacity 1 fills before the port model stops the sender. */
static char *cube_lc2(int d, const char *extra)
{
    static char buf[1024];
    snprintf(buf, sizeof buf,
             "{\"topology\":{\"kind\":\"hypercube\",\"dim\":%d},"
             "\"ports\":{\"model\":\"all-port\",\"link_capacity\":2},"
             "\"clock\":{\"mode\":\"free\"},\"algorithm\":{\"name\":\"sbt-broadcast\"}%s}",
             d, extra ? extra : "");
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
        ck_assert(json_is_true(json_object_get(free_obj(&r), "port_model_enforced")));
        ck_assert(json_is_false(json_object_get(free_obj(&r), "deterministic")));
        ck_assert_int_eq(free_int(&r, "blocked_sends"), 0);
        hm_t_free(&r);
    }
}
END_TEST

/* Every algorithm the free-running clock accepts on the hypercube verifies under it,
 * with the same packets as the slotted run, under each port model it allows: the
 * tree broadcasts (sbt, binomial, chain) on Q_4..Q_8, and Q_10 for the largest tree. */
static const char *const free_algos[] = {
    "sbt-broadcast", "bcast-binomial",  "bcast-chain",    "scatter-binomial", "scatter-linear",
    "gather-linear", "reduce-binomial", "allreduce-ring", "allgather-ring",   NULL};

static void free_matches_slotted(const char *algo, const char *model, int d)
{
    char cfg[1024];
    snprintf(cfg, sizeof cfg, "%s", cube(d, model, algo, NULL));
    hm_trun_t s = hm_t_run(cfg, (const char *[]){"clock.mode=slotted", NULL});
    if (s.rc == 2) { /* the model is not one this algorithm allows */
        hm_t_free(&s);
        return;
    }
    ck_assert_msg(s.rc == 0, "%s %s d=%d slotted: rc %d", algo, model, d, s.rc);
    hm_trun_t r = hm_t_run(cfg, NULL);
    ck_assert_msg(r.rc == 0, "%s %s d=%d free: rc %d %s", algo, model, d, r.rc,
                  r.message ? r.message : "");
    ck_assert_int_eq(hm_t_int(&r, "verified"), 1);
    ck_assert_int_eq(hm_t_int(&r, "transmissions"), hm_t_int(&s, "transmissions"));
    ck_assert(json_is_true(json_object_get(free_obj(&r), "port_model_enforced")));
    hm_t_free(&s);
    hm_t_free(&r);
}

START_TEST(test_free_algorithms_verify)
{
    static const char *const models[] = {"all-port", "one-port-full", "one-port-half", "shout"};
    int d = 4 + _i;
    for (int k = 0; free_algos[k]; k++)
        for (int m = 0; m < 4; m++)
            free_matches_slotted(free_algos[k], models[m], d);
}
END_TEST

START_TEST(test_free_trees_q10)
{
    free_matches_slotted("sbt-broadcast", "shout", 10);
    free_matches_slotted("bcast-binomial", "one-port-full", 10);
}
END_TEST

/* The algorithms that need the global slot are refused, naming the modes they run
 * under and why. */
START_TEST(test_free_refuses_slot_algorithms)
{
    hm_trun_t r = hm_t_run(cube(3, "shout", "successive-broadcast", NULL), NULL);
    ck_assert_int_eq(r.rc, 2);
    ck_assert_str_eq(
        r.message,
        "test.json: clock.mode: found \"free\"; allowed for successive-broadcast: "
        "\"slotted\", \"local\" (Lemma 1's order rests on the slot timing: without the global "
        "slot mu_(j+1) overtakes mu_j, and under the port model the broadcasts "
        "block one another)\n");
    hm_t_free(&r);
    r = hm_t_run(cube(3, "one-port-full", "gather-binomial", NULL), NULL);
    ck_assert_int_eq(r.rc, 2);
    const char *want = "test.json: clock.mode: found \"free\"; allowed for gather-binomial: "
                       "\"slotted\", \"local\" (";
    ck_assert_msg(strncmp(r.message, want, strlen(want)) == 0, "%s", r.message);
    hm_t_free(&r);
}
END_TEST

/* The shipped free config, through the program: no golden summary (free mode is not
 * deterministic), but the figures that do not depend on the scheduling. */
START_TEST(test_shipped_free_config)
{
    char *out, *err;
    int rc = hm_t_exec(NULL, &out, &err,
                       (const char *[]){"--json", "--set", "output=null",
                                        HM_SRCDIR "/configs/q8_allgather_ring_free.json", NULL});
    ck_assert_msg(rc == 0, "rc %d: %s", rc, err);
    json_t *j = json_loads(out, 0, NULL);
    ck_assert_ptr_nonnull(j);
    ck_assert_int_eq(json_integer_value(json_object_get(j, "nodes")), 256);
    ck_assert_int_eq(json_integer_value(json_object_get(j, "transmissions")), 256 * 255);
    ck_assert_int_eq(json_integer_value(json_object_get(j, "conflicts")), 0);
    ck_assert(json_is_true(json_object_get(j, "verified")));
    /* One-port: one packet of a node in flight, so never two unread on a link. */
    ck_assert_int_eq(json_integer_value(json_object_get(j, "max_mailbox_depth")), 1);
    json_t *f = json_object_get(j, "free");
    ck_assert(json_is_true(json_object_get(f, "port_model_enforced")));
    ck_assert_int_eq(json_array_size(json_object_get(f, "links")), 256);
    ck_assert_int_eq(json_array_size(json_object_get(f, "nodes")), 256);
    ck_assert_int_eq(json_array_size(json_object_get(f, "hottest_links")), 5);
    ck_assert(json_is_integer(json_object_get(f, "lock_waits")));
    ck_assert(json_is_real(json_object_get(f, "blocked_seconds")));
    json_decref(j);
    free(out);
    free(err);
}
END_TEST

/* The event log of a free run, read back: every send and receive carries its wall
 * clock ("ns"); a link is FIFO, so the k-th send on a link pairs with the k-th receive
 * on it. Causality: a packet is received in a logical slot no earlier than its send
 * slot, and no earlier in wall time. The port model: under one-port a node never has
 * two packets in flight (its next send is stamped no earlier than the receive of the
 * one before); under all-port a link never carries two. */
enum { EV_MAX = 4096 };
typedef struct evl_s {
    int n;
    int node[EV_MAX], peer[EV_MAX], port[EV_MAX], send[EV_MAX];
    int64_t slot[EV_MAX], ns[EV_MAX];
} evl_t;

static void read_events(const char *path, evl_t *ev)
{
    size_t len;
    char *text = hm_t_slurp(path, &len);
    ck_assert_ptr_nonnull(text);
    ev->n = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        json_t *e = json_loads(line, 0, NULL);
        ck_assert_ptr_nonnull(e);
        const char *kind = json_string_value(json_object_get(e, "event"));
        ck_assert_msg(json_integer_value(json_object_get(e, "ns")) > 0, "no ns: %s", line);
        int send = strcmp(kind, "send") == 0;
        if (send || strcmp(kind, "recv") == 0) {
            ck_assert_int_lt(ev->n, EV_MAX);
            int k = ev->n++;
            ev->send[k] = send;
            ev->node[k] = (int)json_integer_value(json_object_get(e, "node"));
            ev->peer[k] = (int)json_integer_value(json_object_get(e, send ? "to" : "from"));
            ev->port[k] = (int)json_integer_value(json_object_get(e, "port"));
            ev->slot[k] = json_integer_value(json_object_get(e, "slot"));
            ev->ns[k] = json_integer_value(json_object_get(e, "ns"));
        }
        json_decref(e);
    }
    free(text);
}

/* match[k] = the receive of send k (k-th on its link), by FIFO order per link. */
static void pair_events(const evl_t *ev, int *match)
{
    for (int k = 0; k < ev->n; k++) {
        match[k] = -1;
        if (!ev->send[k])
            continue;
        int before = 0;
        for (int j = 0; j < k; j++)
            before += ev->send[j] && ev->node[j] == ev->node[k] && ev->port[j] == ev->port[k];
        /* Sends of one node come in its log order; receives on the link likewise. */
        for (int j = 0; j < ev->n && match[k] < 0; j++)
            if (!ev->send[j] && ev->node[j] == ev->peer[k] && ev->peer[j] == ev->node[k] &&
                before-- == 0)
                match[k] = j;
        ck_assert_int_ge(match[k], 0);
        ck_assert_int_le(ev->slot[k], ev->slot[match[k]]);
        ck_assert_int_le(ev->ns[k], ev->ns[match[k]]);
    }
}

/* Under the port model: a node's (one-port) or a link's (all-port) packets in flight
 * never overlap in wall time. */
static int count_overlaps(const evl_t *ev, const int *match, int per_link)
{
    int overlaps = 0;
    for (int k = 0; k < ev->n; k++)
        for (int j = 0; j < ev->n; j++) {
            if (j == k || !ev->send[k] || !ev->send[j] || ev->node[j] != ev->node[k] ||
                (per_link && ev->port[j] != ev->port[k]))
                continue;
            /* j sent after k, before k was read: two in flight. */
            if (ev->ns[j] >= ev->ns[k] && ev->ns[j] < ev->ns[match[k]])
                overlaps++;
        }
    return overlaps;
}

static void run_logged(const char *cfg, const char *path, evl_t *ev, int *match, int *sends)
{
    char sets[600];
    snprintf(sets, sizeof sets, "output.events=%s", path);
    hm_trun_t r = hm_t_run(cfg, (const char *[]){sets, NULL});
    ck_assert_msg(r.rc == 0, "rc %d %s", r.rc, r.message ? r.message : "");
    read_events(path, ev);
    pair_events(ev, match);
    *sends = 0;
    for (int k = 0; k < ev->n; k++)
        *sends += ev->send[k];
    ck_assert_int_eq(*sends, hm_t_int(&r, "transmissions"));
    hm_t_free(&r);
}

START_TEST(test_free_events_port_model)
{
    static evl_t ev;
    static int match[EV_MAX];
    char *tmp = hm_t_tmpdir();
    char path[512];
    snprintf(path, sizeof path, "%s/e.jsonl", tmp);
    int sends;
    /* Q_4, one-port: every node sends 15 packets on one link of the Gray-code ring. */
    run_logged(cube(4, "one-port-full", "allgather-ring", NULL), path, &ev, match, &sends);
    ck_assert_int_eq(sends, 16 * 15);
    ck_assert_int_eq(count_overlaps(&ev, match, 0), 0);
    /* Binomial reduce on Q_5 under one-port-half: also one packet a node. */
    run_logged(cube(5, "one-port-half", "reduce-binomial", NULL), path, &ev, match, &sends);
    ck_assert_int_eq(sends, 31);
    ck_assert_int_eq(count_overlaps(&ev, match, 0), 0);
    /* All-port ring allreduce: one packet per link in flight. */
    run_logged(cube(3, "all-port", "allreduce-ring", NULL), path, &ev, match, &sends);
    ck_assert_int_eq(count_overlaps(&ev, match, 1), 0);
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

/* Circuit routing: node 0 sends node 3 of Q_2 a message of 10 bytes (a = 1, b = 40:
 * D = 50 slots), every node then waits for a packet. Node 3 reads it in its logical
 * slot 50, as the slotted clock would, and the others never get one. */
static void circuit_then_wait(hm_node_t *n, void *s)
{
    (void)s;
    unsigned char bytes[10] = {0};
    hm_packet_t p = {.msg = 1, .data = bytes, .len = 10};
    if (hm_id(n) == 0 && hm_send_to(n, 3, &p) != HM_OK)
        return;
    if (hm_wait_packet(n, &p) == HM_OK && hm_wait_packet(n, &p) == HM_OK)
        hm_store(n, 1);
}

START_TEST(test_deadlock_circuit)
{
    hm_algorithm_t a = hm_t_algo(circuit_then_wait, hm_t_verify_ok);
    hm_trun_t r = hm_t_run_algo("{\"topology\":{\"kind\":\"hypercube\",\"dim\":2},"
                                "\"ports\":{\"model\":\"one-port-full\",\"routing\":\"circuit\","
                                "\"cost\":{\"a\":1,\"b\":40}},\"clock\":{\"mode\":\"free\"},"
                                "\"algorithm\":{\"name\":\"sbt-broadcast\"}}",
                                &a);
    ck_assert_int_eq(r.rc, 3);
    ck_assert_str_eq(r.message, "deadlock (free-running clock): every node that has not "
                                "returned is blocked\n"
                                "  node 0 waits for a packet from any neighbour, at slot 0\n"
                                "  node 1 waits for a packet from any neighbour, at slot 0\n"
                                "  node 2 waits for a packet from any neighbour, at slot 0\n"
                                "  node 3 waits for a packet from any neighbour, at slot 50");
    ck_assert_int_eq(hm_t_int(&r, "transmissions"), 1);
    ck_assert_int_eq(hm_t_int(&r, "completion_slots"), 50);
    json_t *t = json_object_get(free_obj(&r), "totals");
    ck_assert_int_eq(json_integer_value(json_object_get(t, "bytes")), 10);
    /* It counts on the first link of its route, 0 -> 1 (lowest dimension first). */
    json_t *link = json_array_get(json_object_get(free_obj(&r), "links"), 0);
    ck_assert_int_eq(json_array_size(json_object_get(free_obj(&r), "links")), 1);
    ck_assert_int_eq(json_integer_value(json_object_get(link, "from")), 0);
    ck_assert_int_eq(json_integer_value(json_object_get(link, "to")), 1);
    ck_assert_int_eq(json_integer_value(json_object_get(link, "packets")), 1);
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
    hm_trun_t r = hm_t_run_algo(cube_lc2(1, ",\"mailbox\":{\"capacity\":1}"), &a);
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
    hm_trun_t r = hm_t_run_algo(cube_lc2(1, ",\"mailbox\":{\"capacity\":1}"), &a);
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

/* ---- the port model in wall-clock time ------------------------------------------------ */

/* send_two under all-port, one packet a link: the second send waits for the port
 * (the first packet is never read), on both nodes: a deadlock that names the port. */
START_TEST(test_deadlock_port)
{
    hm_algorithm_t a = hm_t_algo(send_two, hm_t_verify_ok);
    hm_trun_t r = hm_t_run_algo(cube(1, "all-port", "sbt-broadcast", NULL), &a);
    ck_assert_int_eq(r.rc, 3);
    ck_assert_str_eq(r.message,
                     "deadlock (free-running clock): every node that has not returned is "
                     "blocked\n"
                     "  node 0 waits on node 1 (all-port port busy: its packet to node 1 is "
                     "unread), at slot 1\n"
                     "  node 1 waits on node 0 (all-port port busy: its packet to node 0 is "
                     "unread), at slot 1");
    json_t *t = json_object_get(free_obj(&r), "totals");
    ck_assert_int_eq(json_integer_value(json_object_get(t, "port_waits")), 2);
    ck_assert_int_eq(json_integer_value(json_object_get(t, "mailbox_full_waits")), 0);
    ck_assert_int_eq(hm_t_int(&r, "transmissions"), 2);
    hm_t_free(&r);
}
END_TEST

/* The producer of test_backpressure under one-port: its port holds one packet until
 * the consumer reads it, so the producer waits on its port and the mailbox (4) never
 * holds more than one. */
START_TEST(test_port_backpressure)
{
    hm_algorithm_t a = hm_t_algo(producer_consumer, verify_fifo);
    hm_trun_t r = hm_t_run_algo(cube(1, "one-port-full", "sbt-broadcast", NULL), &a);
    ck_assert_msg(r.rc == 0, "rc %d: %s", r.rc, r.message ? r.message : "");
    ck_assert_str_eq(hm_t_str(&r, "verification"), "100 packets in order");
    ck_assert_int_eq(hm_t_int(&r, "max_mailbox_depth"), 1);
    json_t *t = json_object_get(free_obj(&r), "totals");
    ck_assert_int_gt(json_integer_value(json_object_get(t, "port_waits")), 0);
    ck_assert_int_gt(json_integer_value(json_object_get(t, "port_wait_ns")), 0);
    ck_assert_int_eq(json_integer_value(json_object_get(t, "mailbox_full_waits")), 0);
    ck_assert_int_eq(free_int(&r, "blocked_sends"), 0);
    ck_assert_int_eq(json_integer_value(json_object_get(t, "packets")), BP_PACKETS);
    hm_t_free(&r);
}
END_TEST

/* ---- per link and per node ------------------------------------------------------------- */

static int64_t sum_of(json_t *arr, const char *key)
{
    int64_t s = 0;
    size_t i;
    json_t *x;
    json_array_foreach(arr, i, x)
        s += json_integer_value(json_object_get(x, key));
    return s;
}

static int64_t lat(json_t *o, const char *q)
{
    return json_integer_value(json_object_get(json_object_get(o, "latency_ns"), q));
}

/* The per-link and per-node figures add up to the totals; the totals' latency spans
 * every link's; the hottest links are the links of most contention, in order. */
static void check_sums(const hm_trun_t *r, int64_t packets, int64_t bytes)
{
    json_t *f = free_obj(r), *t = json_object_get(f, "totals");
    json_t *links = json_object_get(f, "links"), *nodes = json_object_get(f, "nodes");
    ck_assert_int_eq(json_integer_value(json_object_get(t, "packets")), packets);
    ck_assert_int_eq(json_integer_value(json_object_get(t, "bytes")), bytes);
    ck_assert_int_eq(hm_t_int(r, "transmissions"), packets);
    static const char *const both[] = {
        "packets",         "bytes", "port_waits", "port_wait_ns", "mailbox_full_waits",
        "mailbox_full_ns", NULL};
    for (int k = 0; both[k]; k++) {
        int64_t want = json_integer_value(json_object_get(t, both[k]));
        ck_assert_msg(sum_of(links, both[k]) == want, "links: %s", both[k]);
        ck_assert_msg(sum_of(nodes, both[k]) == want, "nodes: %s", both[k]);
    }
    static const char *const by_node[] = {"lock_waits", "lock_wait_ns", "blocked_receives",
                                          "blocked_receive_ns", NULL};
    for (int k = 0; by_node[k]; k++)
        ck_assert_msg(sum_of(nodes, by_node[k]) ==
                          json_integer_value(json_object_get(t, by_node[k])),
                      "nodes: %s", by_node[k]);
    ck_assert_int_eq(free_int(r, "lock_waits"),
                     json_integer_value(json_object_get(t, "lock_waits")));
    ck_assert_int_le(sum_of(links, "lock_waits"), free_int(r, "lock_waits"));
    size_t i;
    json_t *x;
    json_array_foreach(links, i, x) {
        if (json_is_null(json_object_get(x, "latency_ns")))
            continue; /* none of its packets was read */
        ck_assert_int_ge(lat(x, "min"), lat(t, "min"));
        ck_assert_int_le(lat(x, "max"), lat(t, "max"));
        ck_assert_int_le(lat(x, "p50"), lat(x, "p99"));
    }
    json_t *hot = json_object_get(f, "hottest_links");
    int64_t top = INT64_MAX;
    json_array_foreach(hot, i, x) {
        int64_t c = json_integer_value(json_object_get(x, "contention_ns"));
        ck_assert_int_le(c, top);
        top = c;
    }
    json_array_foreach(links, i, x)
        ck_assert_int_le(json_integer_value(json_object_get(x, "contention_ns")),
                         json_array_size(hot) == 5 ? INT64_MAX : top);
}

START_TEST(test_link_node_sums)
{
    /* Ring allgather on Q_5: 32 * 31 packets of one 8-byte value each. */
    hm_trun_t r = hm_t_run(cube(5, "one-port-full", "allgather-ring", NULL), NULL);
    ck_assert_msg(r.rc == 0, "rc %d %s", r.rc, r.message ? r.message : "");
    check_sums(&r, 32 * 31, 32 * 31 * 8);
    ck_assert_int_eq(json_array_size(json_object_get(free_obj(&r), "links")), 32);
    ck_assert_int_eq(json_array_size(json_object_get(free_obj(&r), "nodes")), 32);
    ck_assert_int_eq(json_array_size(json_object_get(free_obj(&r), "hottest_links")), 5);
    hm_t_free(&r);
    /* Backpressure on a full mailbox: its time is on the link and its sender. */
    hm_algorithm_t a = hm_t_algo(producer_consumer, verify_fifo);
    r = hm_t_run_algo(cube_lc2(1, ",\"mailbox\":{\"capacity\":1}"), &a);
    ck_assert_int_eq(r.rc, 0);
    check_sums(&r, BP_PACKETS, 0);
    json_t *link = json_array_get(json_object_get(free_obj(&r), "links"), 0);
    ck_assert_int_eq(json_integer_value(json_object_get(link, "from")), 0);
    ck_assert_int_eq(json_integer_value(json_object_get(link, "to")), 1);
    ck_assert_int_gt(json_integer_value(json_object_get(link, "mailbox_full_ns")), 0);
    hm_t_free(&r);
}
END_TEST

/* ---- host controls ---------------------------------------------------------------------- */

START_TEST(test_affinity_map)
{
    static const int cpus[] = {2, 5};
    hm__options_t o = {.affinity = HM__AFFINITY_COMPACT};
    static const int compact[8] = {2, 2, 2, 2, 5, 5, 5, 5}, scatter[8] = {2, 5, 2, 5, 2, 5, 2, 5};
    for (int i = 0; i < 8; i++)
        ck_assert_int_eq(hm__affinity_cpu(&o, cpus, 2, i, 8), compact[i]);
    o.affinity = HM__AFFINITY_SCATTER;
    for (int i = 0; i < 8; i++)
        ck_assert_int_eq(hm__affinity_cpu(&o, cpus, 2, i, 8), scatter[i]);
    /* Fewer nodes than CPUs: spread evenly (scatter), packed (compact). */
    static const int many[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    ck_assert_int_eq(hm__affinity_cpu(&o, many, 8, 1, 2), 4);
    o.affinity = HM__AFFINITY_COMPACT;
    ck_assert_int_eq(hm__affinity_cpu(&o, many, 8, 1, 2), 1);
    o.affinity = HM__AFFINITY_LIST;
    o.affinity_n = 3;
    o.affinity_cpus[0] = 7, o.affinity_cpus[1] = 3, o.affinity_cpus[2] = 1;
    ck_assert_int_eq(hm__affinity_cpu(&o, cpus, 2, 4, 8), 3);
    o.affinity = HM__AFFINITY_NONE;
    ck_assert_int_eq(hm__affinity_cpu(&o, cpus, 2, 4, 8), -1);
}
END_TEST

START_TEST(test_affinity_config)
{
    /* Pinned to CPU 0 (every host has it): the summary says so, and the run verifies. */
    hm_trun_t r = hm_t_run(cube(3, "shout", "sbt-broadcast", NULL),
                           (const char *[]){"clock.affinity=\"0\"", NULL});
    ck_assert_msg(r.rc == 0, "rc %d %s", r.rc, r.message ? r.message : "");
    json_t *h = json_object_get(free_obj(&r), "host");
    ck_assert_str_eq(json_string_value(json_object_get(h, "affinity")), "list");
    char *used = json_dumps(json_object_get(h, "pinned_cpus"), JSON_COMPACT);
    ck_assert_str_eq(used, "[0]");
    free(used);
    ck_assert_int_ge(json_integer_value(json_object_get(h, "cpus_online")), 1);
    ck_assert_ptr_nonnull(json_string_value(json_object_get(h, "cpu_model")));
    ck_assert_msg(strncmp(json_string_value(json_object_get(h, "kernel")), "Linux ", 6) == 0, "%s",
                  json_string_value(json_object_get(h, "kernel")));
    hm_t_free(&r);
    r = hm_t_run(cube(3, "shout", "sbt-broadcast", NULL),
                 (const char *[]){"clock.affinity=compact", NULL});
    ck_assert_int_eq(r.rc, 0);
    ck_assert_str_eq(
        json_string_value(json_object_get(json_object_get(free_obj(&r), "host"), "affinity")),
        "compact");
    hm_t_free(&r);
    r = hm_t_run(cube(3, "shout", "sbt-broadcast", NULL),
                 (const char *[]){"clock.affinity=\"0-\"", NULL});
    ck_assert_int_eq(r.rc, 2);
    ck_assert_str_eq(r.message, "test.json: clock.affinity: found \"0-\"; allowed: \"none\", "
                                "\"compact\", \"scatter\", or CPUs: \"0-3,8\" or [0, 1]\n");
    hm_t_free(&r);
    r = hm_t_run(cube(3, "shout", "sbt-broadcast", NULL),
                 (const char *[]){"clock.affinity=[0,1023]", NULL});
    ck_assert_int_eq(r.rc, 2);
    const char *want = "test.json: clock.affinity: found CPU 1023; allowed: the CPUs this "
                       "process may use (0";
    ck_assert_msg(strncmp(r.message, want, strlen(want)) == 0, "%s", r.message);
    hm_t_free(&r);
}
END_TEST

/* --repeat 3: three runs, each on its line with the load before and after, then the
 * figures' n, mean, sd, min, median, max and the interval of the median ([min, max] at
 * 75% for three runs); in JSON the median is the middle of the three runs' values, the
 * host is recorded, no run is left out. */
START_TEST(test_repeat)
{
    char *out, *err;
    const char *cfg = HM_SRCDIR "/configs/q8_allgather_ring_free.json";
    int rc = hm_t_exec(NULL, &out, &err,
                       (const char *[]){"--repeat", "3", "--set", "output=null", "--set",
                                        "topology.dim=4", cfg, NULL});
    ck_assert_msg(rc == 0, "rc %d: %s", rc, err);
    ck_assert_msg(strstr(out, "run 1: exit 0, verified, wall ") == out, "%s", out);
    ck_assert_ptr_nonnull(strstr(out, "\nrun 2: exit 0, verified, wall "));
    ck_assert_ptr_nonnull(strstr(out, "\nrun 3: exit 0, verified, wall "));
    ck_assert_ptr_null(strstr(out, "run 4:"));
    ck_assert_ptr_nonnull(strstr(out, "\nfigure "));
    ck_assert_ptr_nonnull(strstr(out, " median "));
    ck_assert_ptr_nonnull(strstr(out, ", load "));
    ck_assert_ptr_nonnull(strstr(out,
                                 "\nfigure                                n         mean           "
                                 "sd          min       median          max  interval of the "
                                 "median\n"));
    ck_assert_ptr_nonnull(strstr(out,
                                 "\nfree.totals.packets                   3          240       "
                                 "     0          240          240          240  [240, 240] "
                                 "75.0%\n"));
    free(out);
    free(err);
    rc = hm_t_exec(NULL, &out, &err,
                   (const char *[]){"--repeat", "3", "--json", "--set", "output=null", "--set",
                                    "topology.dim=4", cfg, NULL});
    ck_assert_int_eq(rc, 0);
    json_t *j = json_loads(out, 0, NULL);
    ck_assert_ptr_nonnull(j);
    ck_assert_int_eq(json_integer_value(json_object_get(j, "repeat")), 3);
    json_t *runs = json_object_get(j, "runs");
    ck_assert_int_eq(json_array_size(runs), 3);
    double w[3];
    for (int i = 0; i < 3; i++)
        w[i] = json_real_value(json_object_get(
            json_object_get(json_array_get(runs, (size_t)i), "figures"), "wall_seconds"));
    double lo = w[0] < w[1] ? w[0] : w[1], hi = w[0] < w[1] ? w[1] : w[0];
    double mid = w[2] < lo ? lo : w[2] > hi ? hi : w[2];
    json_t *ws = json_object_get(json_object_get(j, "stats"), "wall_seconds");
    ck_assert(json_real_value(json_object_get(ws, "median")) == mid);
    json_t *ci = json_object_get(ws, "median_ci");
    ck_assert(json_real_value(json_array_get(ci, 0)) == (w[2] < lo ? w[2] : lo));
    ck_assert(json_real_value(json_array_get(ci, 1)) == (w[2] > hi ? w[2] : hi));
    ck_assert(json_real_value(json_object_get(ws, "median_ci_level")) == 0.75);
    ck_assert_int_eq(json_integer_value(json_object_get(j, "left_out")), 0);
    ck_assert(json_is_object(json_object_get(j, "host")));
    json_t *run1 = json_array_get(runs, 0);
    ck_assert(json_is_real(json_object_get(run1, "load_before")));
    ck_assert(json_is_real(json_object_get(run1, "load_after")));
    ck_assert_int_gt(json_integer_value(json_object_get(run1, "started")), 1600000000);
    json_t *pk = json_object_get(json_object_get(j, "stats"), "free.totals.packets");
    ck_assert(json_real_value(json_object_get(pk, "median")) == 240.0);
    json_decref(j);
    free(out);
    free(err);
    /* Runs that stop early (max_slots: exit 3) are listed but not counted. */
    rc = hm_t_exec(NULL, &out, &err,
                   (const char *[]){"--repeat", "2", "--json", "--set", "output=null", "--set",
                                    "topology.dim=2", "--set", "clock.max_slots=1", cfg, NULL});
    ck_assert_int_eq(rc, 3);
    j = json_loads(out, 0, NULL);
    ck_assert_ptr_nonnull(j);
    ck_assert_int_eq(json_array_size(json_object_get(j, "runs")), 2);
    ck_assert_int_eq(json_integer_value(json_object_get(
                         json_array_get(json_object_get(j, "runs"), 1), "exit_code")),
                     3);
    ck_assert_int_eq(json_object_size(json_object_get(j, "stats")), 0);
    ck_assert_int_eq(json_integer_value(json_object_get(j, "left_out")), 2);
    json_decref(j);
    free(out);
    free(err);
    rc = hm_t_exec(NULL, &out, &err, (const char *[]){"--repeat", "0", cfg, NULL});
    ck_assert_int_eq(rc, 2);
    ck_assert_str_eq(err, "hypemu: --repeat: found 0; allowed: a number of runs 1..1000\n");
    free(out);
    free(err);
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
    ck_assert_int_eq(hm_t_int(&r, "refused_calls"), 1); /* hm_wait_until(n, 5) in slot 5 */
    hm_t_free(&r);
}
END_TEST

/* hm_wait_packet_ns (README "Writing a node program", hypemu(3)): node 1 waits 50 ms for
 * a packet that has not been sent (HM_ENOENT, its logical slot unchanged), while node 0
 * waits 100 ms by the same call, so that both are in timed waits and neither is blocked for
 * the deadlock check; then node 0 sends, and node 1, waiting with a 10 s deadline, has it
 * long before. Node 1 stores its two waits' outcomes and their wall times in ms. */
static void timed_waits(hm_node_t *n, void *s)
{
    (void)s;
    hm_packet_t p = {.msg = 3};
    if (hm_id(n) == 0) {
        if (hm_wait_packet_ns(n, NULL, hm_clock_ns(n) + 100000000) == HM_ENOENT)
            (void)hm_send(n, 0, &p);
        return;
    }
    int64_t t0 = hm_clock_ns(n), slot = hm_now(n);
    int a = hm_wait_packet_ns(n, &p, t0 + 50000000);
    int64_t t1 = hm_clock_ns(n);
    int b = hm_wait_packet_ns(n, &p, t1 + 10000000000);
    int64_t t2 = hm_clock_ns(n);
    hm_store(n, a == HM_ENOENT && hm_now(n) >= slot);
    hm_store(n, (t1 - t0) / 1000000);
    hm_store(n, b == HM_OK && p.msg == 3);
    hm_store(n, (t2 - t1) / 1000000);
}

static void verify_timed(hm_report_t *r)
{
    size_t k;
    const int64_t *v = hm_report_stores(r, 1, &k);
    r->verified = k == 4 && v[0] == 1 && v[1] >= 50 && v[2] == 1 && v[3] < 5000;
    snprintf(r->verification, sizeof r->verification, "%lld %lld %lld %lld",
             (long long)(k > 0 ? v[0] : -1), (long long)(k > 1 ? v[1] : -1),
             (long long)(k > 2 ? v[2] : -1), (long long)(k > 3 ? v[3] : -1));
}

START_TEST(test_wait_packet_ns)
{
    hm_algorithm_t a = hm_t_algo(timed_waits, verify_timed);
    hm_trun_t r = hm_t_run_algo(cube(1, "all-port", "sbt-broadcast", NULL), &a);
    ck_assert_msg(r.rc == 0, "rc %d: %s", r.rc, r.message ? r.message : "");
    ck_assert_msg(hm_t_int(&r, "verified") == 1, "%s", hm_t_str(&r, "verification"));
    hm_t_free(&r);
}
END_TEST

/* Under the slotted clock hm_wait_packet_ns is a refused call: HM_EINVAL, the slot goes
 * on; hm_clock_ns still reads the wall time. */
static void refused_ns(hm_node_t *n, void *s)
{
    (void)s;
    int64_t t = hm_clock_ns(n);
    if (hm_wait_packet_ns(n, NULL, t + 1000) == HM_EINVAL && t >= 0 && hm_now(n) == 0)
        hm_store(n, 1);
}

static void verify_both_stored(hm_report_t *r)
{
    size_t a, b;
    (void)hm_report_stores(r, 0, &a);
    (void)hm_report_stores(r, 1, &b);
    r->verified = a == 1 && b == 1;
    snprintf(r->verification, sizeof r->verification, "%zu %zu", a, b);
}

START_TEST(test_wait_packet_ns_slotted)
{
    hm_algorithm_t a = hm_t_algo(refused_ns, verify_both_stored);
    hm_trun_t r = hm_t_run_algo("{\"topology\":{\"kind\":\"hypercube\",\"dim\":1},"
                                "\"algorithm\":{\"name\":\"sbt-broadcast\"}}",
                                &a);
    ck_assert_msg(r.rc == 0, "rc %d: %s", r.rc, r.message ? r.message : "");
    ck_assert_int_eq(hm_t_int(&r, "refused_calls"), 2);
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
                      "\"ports\":{\"model\":\"one-port-full\"},\"mailbox\":{\"capacity\":256},"
                      "\"algorithm\":{\"name\":\"allgather-ring\"},"
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

/* ---- circuit routing --------------------------------------------------------------- */

/* Under circuit routing free mode verifies Seidel's ST, BST and RH on linear arrays and
 * meshes of 2^d nodes and the tree broadcasts on Q_d, d = 4..10, with the slotted
 * run's messages, and the per-link and per-node figures add up to the totals (a message
 * counts on the first link of its route). ST on a linear array, where every node hears
 * from its parent only, ends in the slotted run's logical slot. */
static void free_circuit_matches_slotted(const char *cfg, const char *what, int d, int same_slots)
{
    hm_trun_t s = hm_t_run(cfg, (const char *[]){"clock.mode=slotted", NULL});
    ck_assert_msg(s.rc == 0, "%s d=%d slotted: rc %d %s", what, d, s.rc,
                  s.message ? s.message : "");
    hm_trun_t r = hm_t_run(cfg, NULL);
    ck_assert_msg(r.rc == 0, "%s d=%d free: rc %d %s", what, d, r.rc, r.message ? r.message : "");
    ck_assert_int_eq(hm_t_int(&r, "verified"), 1);
    ck_assert_int_eq(hm_t_int(&r, "conflicts"), 0);
    if (same_slots)
        ck_assert_int_eq(hm_t_int(&r, "completion_slots"), hm_t_int(&s, "completion_slots"));
    ck_assert(json_is_true(json_object_get(free_obj(&r), "port_model_enforced")));
    json_t *t = json_object_get(free_obj(&r), "totals");
    check_sums(&r, hm_t_int(&s, "transmissions"), json_integer_value(json_object_get(t, "bytes")));
    hm_t_free(&s);
    hm_t_free(&r);
}

/* Under ThreadSanitizer (CI) Q_9 and Q_10 (nine runs of 512 and 1,024 threads, each
 * also run slotted) take minutes, past Check's stretched timeout: that build covers
 * d = 4..8, where the same code runs; the plain build covers d = 4..10. */
#if defined(__SANITIZE_THREAD__)
#define HM_T_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define HM_T_TSAN 1
#endif
#endif

/* A Seidel broadcast (name) in free mode with 8 * 2^d message bytes, a = 1, b = 20,
 * queue contention: on a line of 2^d nodes from root 2^d / 3, or on a 2^(d/2) x
 * 2^(d - d/2) mesh (mesh = 1) from node 0. */
static void seidel_free_cfg(char *cfg, size_t size, const char *name, int d, int mesh)
{
    char topo[96], root[32] = "";
    if (mesh)
        snprintf(topo, sizeof topo, "\"kind\":\"mesh\",\"rows\":%d,\"cols\":%d", 1 << (d / 2),
                 1 << (d - d / 2));
    else {
        snprintf(topo, sizeof topo, "\"kind\":\"linear\",\"nodes\":%d", 1 << d);
        snprintf(root, sizeof root, "\"root\":%d,", (1 << d) / 3);
    }
    snprintf(cfg, size,
             "{\"topology\":{%s},\"ports\":{\"cost\":{\"a\":1,\"b\":20}},"
             "\"contention\":\"queue\",\"clock\":{\"mode\":\"free\"},"
             "\"algorithm\":{\"name\":\"%s\",%s\"message_bytes\":%d}}",
             topo, name, root, 8 << d);
}

START_TEST(test_free_circuits_verify)
{
    int d = _i;
#ifdef HM_T_TSAN
    if (d > 8)
        return;
#endif
    static const char *const seidel[] = {"st-broadcast", "bst-broadcast", "rh-broadcast"};
    static const char *const trees[] = {"sbt-broadcast", "bcast-binomial", "bcast-chain"};
    char cfg[1024];
    for (int k = 0; k < 3; k++) {
        seidel_free_cfg(cfg, sizeof cfg, seidel[k], d, 0);
        free_circuit_matches_slotted(cfg, seidel[k], d, k == 0);
        seidel_free_cfg(cfg, sizeof cfg, seidel[k], d, 1);
        free_circuit_matches_slotted(cfg, seidel[k], d, 0);
        snprintf(cfg, sizeof cfg,
                 "{\"topology\":{\"kind\":\"hypercube\",\"dim\":%d},"
                 "\"ports\":{\"model\":\"one-port-full\",\"routing\":\"circuit\"},"
                 "\"clock\":{\"mode\":\"free\"},\"algorithm\":{\"name\":\"%s\"}}",
                 d, trees[k]);
        free_circuit_matches_slotted(cfg, trees[k], d, 0);
    }
    /* The other algorithms free mode accepts, under circuit routing, on Q_4..Q_6. */
    for (int k = 3; free_algos[k] && d <= 6; k++) {
        snprintf(cfg, sizeof cfg,
                 "{\"topology\":{\"kind\":\"hypercube\",\"dim\":%d},"
                 "\"ports\":{\"model\":\"one-port-full\",\"routing\":\"circuit\"},"
                 "\"clock\":{\"mode\":\"free\"},\"algorithm\":{\"name\":\"%s\"}}",
                 d, free_algos[k]);
        free_circuit_matches_slotted(cfg, free_algos[k], d, 0);
    }
}
END_TEST

/* Under circuit routing a send carries its transfer in wall time: start_ns (its whole
 * circuit held) to end_ns (just before it is given back). Read back from the event
 * log: a receiver's transfers never overlap (one receive port), nor a sender's (one
 * transmit port), and every transmission of the summary is checked. */
typedef struct xfer_s {
    int node, to;
    int64_t start, ns, end;
} xfer_t;

static int by_to_start(const void *a, const void *b)
{
    const xfer_t *x = a, *y = b;
    if (x->to != y->to)
        return (x->to > y->to) - (x->to < y->to);
    return (x->start > y->start) - (x->start < y->start);
}

static int by_node_start(const void *a, const void *b)
{
    const xfer_t *x = a, *y = b;
    if (x->node != y->node)
        return (x->node > y->node) - (x->node < y->node);
    return (x->start > y->start) - (x->start < y->start);
}

/* The sends of an event log with their transfers; *n their number. */
static xfer_t *read_transfers(const char *path, int *n)
{
    size_t len, cap = 1024;
    char *text = hm_t_slurp(path, &len);
    ck_assert_ptr_nonnull(text);
    xfer_t *v = malloc(cap * sizeof *v);
    ck_assert_ptr_nonnull(v);
    *n = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        json_t *e = json_loads(line, 0, NULL);
        ck_assert_ptr_nonnull(e);
        if (strcmp(json_string_value(json_object_get(e, "event")), "send") == 0) {
            if ((size_t)*n == cap) {
                cap *= 2;
                v = realloc(v, cap * sizeof *v);
                ck_assert_ptr_nonnull(v);
            }
            xfer_t *x = &v[(*n)++];
            x->node = (int)json_integer_value(json_object_get(e, "node"));
            x->to = (int)json_integer_value(json_object_get(e, "to"));
            x->start = json_integer_value(json_object_get(e, "start_ns"));
            x->ns = json_integer_value(json_object_get(e, "ns"));
            x->end = json_integer_value(json_object_get(e, "end_ns"));
            ck_assert_msg(x->start > 0 && x->start <= x->ns && x->ns <= x->end,
                          "transfer not stamped: %s", line);
        }
        json_decref(e);
    }
    free(text);
    return v;
}

/* Transfers that start before the previous one of the same receiver (by_to: 1) or of
 * the same sender (0) has ended. */
static int transfer_overlaps(xfer_t *v, int n, int by_to)
{
    qsort(v, (size_t)n, sizeof *v, by_to ? by_to_start : by_node_start);
    int overlaps = 0;
    for (int k = 1; k < n; k++) {
        int same = by_to ? v[k].to == v[k - 1].to : v[k].node == v[k - 1].node;
        overlaps += same && v[k].start < v[k - 1].end;
    }
    return overlaps;
}

static void check_transfers(const char *cfg, const char *what, const char *path)
{
    char sets[600];
    snprintf(sets, sizeof sets, "output.events=%s", path);
    hm_trun_t r = hm_t_run(cfg, (const char *[]){sets, NULL});
    ck_assert_msg(r.rc == 0, "%s: rc %d %s", what, r.rc, r.message ? r.message : "");
    ck_assert_int_eq(hm_t_int(&r, "verified"), 1);
    int n;
    xfer_t *v = read_transfers(path, &n);
    ck_assert_int_gt(n, 0);
    ck_assert_int_eq(n, hm_t_int(&r, "transmissions"));
    ck_assert_msg(transfer_overlaps(v, n, 1) == 0, "%s: a receiver had two transfers", what);
    ck_assert_msg(transfer_overlaps(v, n, 0) == 0, "%s: a sender had two transfers", what);
    free(v);
    hm_t_free(&r);
}

START_TEST(test_free_circuit_transfers)
{
    int d = _i;
    static const char *const seidel[] = {"st-broadcast", "bst-broadcast", "rh-broadcast"};
    char *tmp = hm_t_tmpdir();
    char path[512], cfg[1024];
    snprintf(path, sizeof path, "%s/e.jsonl", tmp);
    for (int k = 0; k < 3 && d <= 6; k++) {
        seidel_free_cfg(cfg, sizeof cfg, seidel[k], d, 0);
        check_transfers(cfg, seidel[k], path);
        seidel_free_cfg(cfg, sizeof cfg, seidel[k], d, 1);
        check_transfers(cfg, seidel[k], path);
    }
    snprintf(cfg, sizeof cfg,
             "{\"topology\":{\"kind\":\"hypercube\",\"dim\":%d},"
             "\"ports\":{\"model\":\"one-port-full\",\"routing\":\"circuit\"},"
             "\"clock\":{\"mode\":\"free\"},\"algorithm\":{\"name\":\"sbt-broadcast\"}}",
             d);
    check_transfers(cfg, "sbt-broadcast", path);
    hm_t_rmtree(tmp);
}
END_TEST

/* ---- config --------------------------------------------------------------------------- */

START_TEST(test_config_errors)
{
    hm_trun_t r = hm_t_run("{\"topology\":{\"kind\":\"bus\",\"nodes\":5},"
                           "\"clock\":{\"mode\":\"free\"},\"algorithm\":{\"name\":\"max\"}}",
                           NULL);
    ck_assert_int_eq(r.rc, 2);
    ck_assert_str_eq(r.message, "test.json: clock.mode: found \"free\"; allowed: \"slotted\" "
                                "under the bus port model\n");
    hm_t_free(&r);
    /* Under circuit routing too, an algorithm that needs the global slot is refused. */
    r = hm_t_run("{\"topology\":{\"kind\":\"hypercube\",\"dim\":3},"
                 "\"ports\":{\"model\":\"one-port-full\",\"routing\":\"circuit\"},"
                 "\"clock\":{\"mode\":\"free\"},"
                 "\"algorithm\":{\"name\":\"allgather-recursive-doubling\"}}",
                 NULL);
    ck_assert_int_eq(r.rc, 2);
    ck_assert_str_eq(r.message,
                     "test.json: clock.mode: found \"free\"; allowed for "
                     "allgather-recursive-doubling: \"slotted\", \"local\" (each step takes the "
                     "next packet as that step's partner's, which only lock step "
                     "guarantees)\n");
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
    tcase_add_loop_test(algos, test_free_algorithms_verify, 0, 4);
    tcase_add_test(algos, test_free_refuses_slot_algorithms);
    tcase_add_test(algos, test_shipped_free_config);
    tcase_add_test(algos, test_free_events_port_model);
    tcase_add_loop_test(algos, test_free_circuits_verify, 4, 8);
    tcase_add_loop_test(algos, test_free_circuit_transfers, 4, 8);
    tcase_set_timeout(algos, 60);
    suite_add_tcase(s, algos);
    /* The largest sizes: 256 to 1,024 threads a run, dozens of runs a test (Q_8: 72),
     * take minutes on a loaded 2-core host; the same tests, with more time. */
    TCase *big = tcase_create("big");
    tcase_add_loop_test(big, test_free_algorithms_verify, 4, 5);
    tcase_add_test(big, test_free_trees_q10);
    tcase_add_loop_test(big, test_free_circuits_verify, 8, 11);
    tcase_add_loop_test(big, test_free_circuit_transfers, 8, 9);
    tcase_set_timeout(big, 300);
    suite_add_tcase(s, big);
    TCase *engine = tcase_create("engine");
    tcase_add_test(engine, test_deadlock_receivers);
    tcase_add_test(engine, test_deadlock_circuit);
    tcase_add_test(engine, test_deadlock_after_return);
    tcase_add_test(engine, test_deadlock_full_mailboxes);
    tcase_add_test(engine, test_backpressure);
    tcase_add_test(engine, test_deadlock_port);
    tcase_add_test(engine, test_port_backpressure);
    tcase_add_test(engine, test_link_node_sums);
    tcase_add_test(engine, test_affinity_map);
    tcase_add_test(engine, test_affinity_config);
    tcase_add_test(engine, test_repeat);
    tcase_add_test(engine, test_logical_clock);
    tcase_add_test(engine, test_wait_packet_ns);
    tcase_add_test(engine, test_wait_packet_ns_slotted);
    tcase_add_test(engine, test_max_slots);
    tcase_add_test(engine, test_max_slots_during_startup);
    tcase_add_test(engine, test_config_errors);
    tcase_set_timeout(engine, 30);
    suite_add_tcase(s, engine);
    return s;
}
