/* SPDX-License-Identifier: MIT */
/*
 * check_contention.c — the contention instrument (doc/contention.md): the synthetic
 * traffic algorithm delivering every packet in every clock mode at saturation, the free
 * clock's new figures consistent with each other, and --repeat's statistics on known
 * samples.
 */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

/* cli/repeat.c: the statistics of n samples (sorted in place). */
json_t *hm__repeat_stats(double *v, int n);

/* ---- traffic ---------------------------------------------------------------------- */

static const char *const topologies[] = {
    "{\"kind\": \"hypercube\", \"dim\": 3}",
    "{\"kind\": \"mesh\", \"rows\": 3, \"cols\": 4}",
    "{\"kind\": \"torus\", \"rows\": 4, \"cols\": 4}",
    "{\"kind\": \"torus\", \"rows\": 3, \"cols\": 5}",
    "{\"kind\": \"ring\", \"nodes\": 5}",
};
static const int topo_nodes[] = {8, 12, 16, 15, 5};
static const char *const modes[] = {"slotted", "local", "free"};
static const char *const patterns[] = {"uniform",        "transpose", "bit-reversal",
                                       "bit-complement", "hotspot",   "neighbour"};

static char *traffic_cfg(const char *topo, const char *mode, const char *pattern, int rate)
{
    static char cfg[1024];
    snprintf(cfg, sizeof cfg,
             "{\"topology\": %s, \"ports\": {\"model\": \"all-port\", \"routing\": \"packet\", "
             "\"link_capacity\": 4}, \"clock\": {\"mode\": \"%s\"}, "
             "\"algorithm\": {\"name\": \"traffic\", \"pattern\": \"%s\", \"packets\": 12, "
             "\"rate_percent\": %d}, \"seed\": 5}",
             topo, mode, pattern, rate);
    return cfg;
}

/* Every pattern, topology and clock mode at full offered load (past saturation on all of
 * them): every packet delivered exactly once, verified (the engine's light cone and
 * volume included). Bit-reversal needs a power of two. */
START_TEST(test_traffic_delivers)
{
    const char *mode = modes[_i];
    for (size_t t = 0; t < sizeof topologies / sizeof *topologies; t++)
        for (size_t p = 0; p < sizeof patterns / sizeof *patterns; p++) {
            int n = topo_nodes[t];
            if (strcmp(patterns[p], "bit-reversal") == 0 && (n & (n - 1)) != 0)
                continue;
            hm_trun_t r = hm_t_run(traffic_cfg(topologies[t], mode, patterns[p], 100), NULL);
            ck_assert_msg(r.rc == 0, "%s %s %s: rc %d %s", mode, topologies[t], patterns[p], r.rc,
                          r.message ? r.message : "");
            char want[128];
            snprintf(want, sizeof want,
                     "every one of the %d packets reached its destination exactly once", n * 12);
            ck_assert_str_eq(hm_t_str(&r, "verification"), want);
            json_t *tr = json_object_get(r.summary, "traffic");
            ck_assert_int_eq(json_integer_value(json_object_get(tr, "delivered")), n * 12);
            ck_assert_int_eq(json_integer_value(json_object_get(tr, "virtual_channels")),
                             strstr(topologies[t], "torus") || strstr(topologies[t], "ring") ? 2
                                                                                             : 1);
            hm_t_free(&r);
        }
}
END_TEST

/* Slotted runs are deterministic: at a low rate the latency is the route's length plus
 * the credit round trips; the offered load raises it. */
START_TEST(test_traffic_load_curve)
{
    hm_trun_t lo = hm_t_run(traffic_cfg(topologies[2], "slotted", "uniform", 5), NULL);
    hm_trun_t hi = hm_t_run(traffic_cfg(topologies[2], "slotted", "uniform", 100), NULL);
    ck_assert_int_eq(lo.rc, 0);
    ck_assert_int_eq(hi.rc, 0);
    double a = json_real_value(
        json_object_get(json_object_get(lo.summary, "traffic"), "latency_slots_mean"));
    double b = json_real_value(
        json_object_get(json_object_get(hi.summary, "traffic"), "latency_slots_mean"));
    ck_assert_msg(a >= 1.0 && a < b, "latency %g at 5%%, %g at 100%%", a, b);
    /* The same config twice: the same figures. */
    hm_trun_t again = hm_t_run(traffic_cfg(topologies[2], "slotted", "uniform", 100), NULL);
    ck_assert_int_eq(hm_t_int(&again, "completion_slots"), hm_t_int(&hi, "completion_slots"));
    ck_assert_int_eq(hm_t_int(&again, "transmissions"), hm_t_int(&hi, "transmissions"));
    hm_t_free(&lo);
    hm_t_free(&hi);
    hm_t_free(&again);
}
END_TEST

/* The traffic block's window (doc/contention.md, "Offered load"): json number k of it. */
static double win(const hm_trun_t *r, const char *key)
{
    json_t *w = json_object_get(json_object_get(r->summary, "traffic"), "window");
    json_t *v = json_object_get(w, key);
    ck_assert_msg(v != NULL, "traffic.window has no %s", key);
    return json_number_value(v);
}

static double win_lat(const hm_trun_t *r, const char *unit, const char *q)
{
    json_t *w = json_object_get(json_object_get(r->summary, "traffic"), "window");
    return json_number_value(json_object_get(json_object_get(w, unit), q));
}

/* Steady state in slots, on the 4x4 torus, a random phase per node, packets 20..79 of 120
 * measured: below saturation (rate 10%) the accepted load is the offered one and the
 * latency the route's; at 100% the network accepts less than it is offered and less than
 * the capacity the routes allow (the channel-load bound). Deterministic, and the local
 * clock gives the same figures. */
START_TEST(test_traffic_window)
{
    const char *sets[] = {"algorithm.packets=120", "algorithm.warmup_packets=20",
                          "algorithm.measure_packets=60", "algorithm.phase=\"random\"", NULL};
    for (int m = 0; m < 2; m++) {
        hm_trun_t lo = hm_t_run(traffic_cfg(topologies[2], modes[m], "uniform", 10), sets);
        hm_trun_t hi = hm_t_run(traffic_cfg(topologies[2], modes[m], "uniform", 100), sets);
        ck_assert_int_eq(lo.rc, 0);
        ck_assert_int_eq(hi.rc, 0);
        ck_assert_int_eq((int64_t)win(&lo, "window_from"), 200); /* packet 20 at 10% */
        ck_assert_int_eq((int64_t)win(&lo, "window_to"), 809);   /* packet 79, one gap on */
        ck_assert(fabs(win(&lo, "offered_per_slot") - 960.0 / 16 / 609) < 1e-9);
        ck_assert(fabs(win(&lo, "accepted_per_slot") - win(&lo, "offered_per_slot")) < 0.002);
        ck_assert_int_eq((int64_t)win_lat(&lo, "latency_slots", "p50"), 2);
        ck_assert_int_eq((int64_t)win_lat(&lo, "latency_slots", "p99"), 6);
        ck_assert(win(&hi, "offered_per_slot") == 1.0);
        double acc = win(&hi, "accepted_per_slot"), cap = win(&hi, "capacity_per_slot");
        ck_assert_msg(acc < cap && cap < 1.0, "accepted %g, capacity %g", acc, cap);
        ck_assert_int_eq((int64_t)win(&hi, "last_measured_in"), 429);
        ck_assert_int_eq((int64_t)win_lat(&hi, "latency_slots", "max"), 351);
        hm_t_free(&lo);
        hm_t_free(&hi);
    }
}
END_TEST

/* Under a sanitizer (CI's ASan and TSan builds) a thread's start and wake-up take far
 * longer: nodes start behind their schedule and catch up inside a short warm-up, which
 * puts the backlog into the window (accepted above offered). There the load is 50 packets
 * per second per node and the warm-up 400 ms, so that the window again sees the steady
 * state the test is about. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define HM_T_SLOW 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define HM_T_SLOW 1
#endif
#endif
#ifdef HM_T_SLOW
#define HM_T_RATE "50"
#define HM_T_WARM "20"
#define HM_T_PACKETS "70"
#else
#define HM_T_RATE "200"
#define HM_T_WARM "10"
#define HM_T_PACKETS "60"
#endif

/* Offered load in wall time (free clock, inject_per_s): at 200 packets per second per
 * node (50 under a sanitizer) the network accepts what it is offered, with end-to-end
 * latencies of data packets (credits counted on their own); offered 10^7 per second it
 * saturates far below. */
START_TEST(test_traffic_inject_per_s)
{
    const char *lo_sets[] = {
        "algorithm.packets=" HM_T_PACKETS,   "algorithm.warmup_packets=" HM_T_WARM,
        "algorithm.measure_packets=40",      "algorithm.phase=\"random\"",
        "algorithm.inject_per_s=" HM_T_RATE, NULL};
    double rate = atof(HM_T_RATE);
    hm_trun_t lo = hm_t_run(traffic_cfg(topologies[2], "free", "uniform", 10), lo_sets);
    ck_assert_msg(lo.rc == 0, "rc %d %s", lo.rc, lo.message ? lo.message : "");
    double off = win(&lo, "offered_per_s"), acc = win(&lo, "accepted_per_s");
    ck_assert_msg(off > 0.95 * rate && off <= rate + 0.0001, "offered %g per s", off);
    ck_assert_msg(acc > 0.8 * off && acc < 1.2 * off, "offered %g, accepted %g", off, acc);
    double p50 = win_lat(&lo, "latency_ns", "p50"), p99 = win_lat(&lo, "latency_ns", "p99");
    ck_assert_msg(p50 > 0 && p99 >= p50, "latency p50 %g p99 %g", p50, p99);
    json_t *tr = json_object_get(lo.summary, "traffic");
    ck_assert_int_eq(json_integer_value(json_object_get(tr, "delivered")), 16 * atoi(HM_T_PACKETS));
    ck_assert(json_integer_value(json_object_get(tr, "credits")) > 0);
    const char *hi_sets[] = {"algorithm.packets=60", "algorithm.warmup_packets=10",
                             "algorithm.measure_packets=40", "algorithm.inject_per_s=10000000",
                             NULL};
    hm_trun_t hi = hm_t_run(traffic_cfg(topologies[2], "free", "uniform", 10), hi_sets);
    ck_assert_int_eq(hi.rc, 0);
    off = win(&hi, "offered_per_s");
    acc = win(&hi, "accepted_per_s");
    ck_assert_msg(acc < 0.05 * off, "offered %g, accepted %g: no saturation", off, acc);
    hm_t_free(&lo);
    hm_t_free(&hi);
}
END_TEST

/* HM_THREAD_FIGURES=1: the summary's "threads", the node threads' kernel figures added up
 * and the main thread's, in every clock mode; without it no such key (a slotted summary
 * stays the same on every run). */
START_TEST(test_thread_figures)
{
    for (int m = 0; m < 3; m++) {
        hm_trun_t r = hm_t_run(traffic_cfg(topologies[2], modes[m], "uniform", 100), NULL);
        ck_assert_int_eq(r.rc, 0);
        ck_assert(json_object_get(r.summary, "threads") == NULL);
        hm_t_free(&r);
        setenv("HM_THREAD_FIGURES", "1", 1);
        r = hm_t_run(traffic_cfg(topologies[2], modes[m], "uniform", 100), NULL);
        unsetenv("HM_THREAD_FIGURES");
        ck_assert_int_eq(r.rc, 0);
        json_t *th = json_object_get(r.summary, "threads");
        ck_assert_msg(th != NULL, "%s: no threads", modes[m]);
        /* Every node thread sleeps at least once (a slot's end, a receive). */
        ck_assert_int_ge(json_integer_value(json_object_get(th, "voluntary_switches")), 16);
        ck_assert(json_is_integer(json_object_get(th, "migrations")));
        ck_assert(
            json_is_integer(json_object_get(json_object_get(th, "main"), "involuntary_switches")));
        hm_t_free(&r);
    }
}
END_TEST

/* Refusals: the exact messages. */
START_TEST(test_traffic_refusals)
{
    hm_trun_t r = hm_t_run(traffic_cfg(topologies[1], "slotted", "bit-reversal", 10), NULL);
    ck_assert_int_eq(r.rc, 2);
    ck_assert_str_eq(r.message, "test.json: algorithm.pattern: \"bit-reversal\" needs a "
                                "power-of-two number of nodes, found 12");
    hm_t_free(&r);
    r = hm_t_run(traffic_cfg(topologies[2], "free", "uniform", 10),
                 (const char *[]){"ports.link_capacity=3", NULL});
    ck_assert_int_eq(r.rc, 2);
    ck_assert_str_eq(r.message, "test.json: ports.link_capacity: traffic needs at least 4 on a "
                                "torus under the free clock (2 virtual channels, data and "
                                "credits: doc/contention.md), found 3");
    hm_t_free(&r);
    r = hm_t_run(traffic_cfg(topologies[2], "slotted", "uniform", 10),
                 (const char *[]){"algorithm.inject_per_s=100", NULL});
    ck_assert_int_eq(r.rc, 2);
    ck_assert_str_eq(r.message, "test.json: algorithm.inject_per_s: a load in wall time needs "
                                "clock.mode \"free\"; under the slotted clock rate_percent sets "
                                "the load per slot");
    hm_t_free(&r);
    r = hm_t_run(
        traffic_cfg(topologies[2], "slotted", "uniform", 10),
        (const char *[]){"algorithm.warmup_packets=10", "algorithm.measure_packets=3", NULL});
    ck_assert_int_eq(r.rc, 2);
    ck_assert_str_eq(r.message, "test.json: algorithm.warmup_packets + measure_packets: 10 + 3; "
                                "allowed: at most packets (12), at least one packet measured");
    hm_t_free(&r);
}
END_TEST

/* The default config runs (link capacity 1, packet routing on the mesh too): the credits
 * owed go first, so no load sticks the network; exact slot counts at rate 100. */
START_TEST(test_traffic_defaults)
{
    static const struct {
        const char *topo;
        int64_t slots;
    } runs[] = {{"{\"kind\": \"torus\", \"rows\": 4, \"cols\": 4}", 129},
                {"{\"kind\": \"ring\", \"nodes\": 9}", 125},
                {"{\"kind\": \"hypercube\", \"dim\": 4}", 114}};
    for (size_t i = 0; i < sizeof runs / sizeof *runs; i++) {
        char cfg[256];
        snprintf(cfg, sizeof cfg,
                 "{\"topology\": %s, \"algorithm\": {\"name\": \"traffic\", "
                 "\"rate_percent\": 100, \"packets\": 32}}",
                 runs[i].topo);
        hm_trun_t r = hm_t_run(cfg, NULL);
        ck_assert_msg(r.rc == 0, "%s: rc %d: %s", runs[i].topo, r.rc, r.message ? r.message : "");
        ck_assert_int_eq(hm_t_int(&r, "completion_slots"), runs[i].slots);
        hm_t_free(&r);
    }
    hm_trun_t r = hm_t_run("{\"topology\": {\"kind\": \"mesh\", \"rows\": 3, \"cols\": 5}, "
                           "\"algorithm\": {\"name\": \"traffic\"}}",
                           NULL);
    ck_assert_int_eq(r.rc, 0);
    hm_t_free(&r);
}
END_TEST

/* ---- the free clock's figures ---------------------------------------------------------- */

static int64_t geti(const json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    ck_assert_msg(json_is_integer(v), "no integer %s", k);
    return json_integer_value(v);
}

/* Latencies: the histogram's buckets hold every packet read (all but the credits left
 * unread by nodes that returned: at most 2 per link), so do the split's two parts; lock waits: the
 * mailbox and circuit locks' waits are the node's lock_waits; the deadlock detection's lock is
 * counted; the threads' totals are the nodes' sums. */
START_TEST(test_free_figures_consistent)
{
    hm_trun_t r = hm_t_run(traffic_cfg(topologies[2], "free", "uniform", 100), NULL);
    ck_assert_int_eq(r.rc, 0);
    json_t *f = json_object_get(r.summary, "free"), *t = json_object_get(f, "totals");
    int64_t packets = geti(t, "packets"), hist = 0;
    size_t i;
    json_t *x;
    json_array_foreach(json_object_get(f, "latency_log2_histogram"), i, x) {
        int64_t from = json_integer_value(json_array_get(x, 0));
        ck_assert(from == 0 || (from & (from - 1)) == 0);
        hist += json_integer_value(json_array_get(x, 1));
    }
    /* Every packet read (a credit sent to a node that has returned stays unread). */
    json_t *sp = json_object_get(f, "latency_split");
    ck_assert_int_eq(geti(sp, "woken_packets") + geti(sp, "queued_packets"), hist);
    ck_assert_int_eq(hist + geti(t, "unread_packets"), packets);
    ck_assert_int_le(geti(t, "unread_packets"), 16 * 4 * 2);
    ck_assert_int_eq(geti(sp, "woken_packets"), geti(t, "blocked_receives"));
    json_t *lk = json_object_get(f, "locks");
    json_t *mb = json_object_get(lk, "mailbox"), *g = json_object_get(lk, "deadlock_detection");
    ck_assert_int_eq(geti(mb, "waits") + geti(json_object_get(lk, "circuit"), "waits"),
                     geti(f, "lock_waits"));
    ck_assert_int_ge(geti(mb, "taken"), packets);
    /* Each blocked receive takes it to sleep and its waker takes it to wake it. */
    ck_assert_int_ge(geti(g, "taken"), 2 * geti(t, "blocked_receives"));
    ck_assert_int_le(geti(mb, "max_hold_ns"), geti(mb, "hold_ns"));
    json_t *th = json_object_get(f, "threads");
    int64_t vol = 0, inv = 0;
    json_array_foreach(json_object_get(f, "nodes"), i, x) {
        vol += geti(x, "voluntary_switches");
        inv += geti(x, "involuntary_switches");
    }
    ck_assert_int_eq(geti(th, "voluntary_switches"), vol);
    ck_assert_int_eq(geti(th, "involuntary_switches"), inv);
    ck_assert_int_ge(vol, 1);
    hm_t_free(&r);
}
END_TEST

/* Under circuit routing the counting locks of links and receive ports are counted too,
 * their waits in the nodes' lock_waits with the mailboxes'. */
START_TEST(test_free_figures_circuit)
{
    const char *cfg = "{\"topology\": {\"kind\": \"linear\", \"nodes\": 16}, \"ports\": "
                      "{\"model\": \"one-port-full\", \"routing\": \"circuit\"}, \"clock\": "
                      "{\"mode\": \"free\"}, \"algorithm\": {\"name\": \"rh-broadcast\"}}";
    hm_trun_t r = hm_t_run(cfg, NULL);
    ck_assert_msg(r.rc == 0, "rc %d: %s", r.rc, r.message ? r.message : "");
    json_t *f = json_object_get(r.summary, "free"), *lk = json_object_get(f, "locks");
    json_t *c = json_object_get(lk, "circuit");
    /* Each message takes and gives back every link of its route and the receive port. */
    ck_assert_int_ge(geti(c, "taken"), 2 * 2 * hm_t_int(&r, "transmissions"));
    ck_assert_int_eq(geti(json_object_get(lk, "mailbox"), "waits") + geti(c, "waits"),
                     geti(f, "lock_waits"));
    hm_t_free(&r);
}
END_TEST

/* The human summary prints them as tables. */
START_TEST(test_free_figures_table)
{
    char *out, *err;
    int rc = hm_t_exec(NULL, &out, &err,
                       (const char *[]){"--set", "output=null", "--set", "clock.mode=free",
                                        HM_SRCDIR "/configs/torus4x4_traffic.json", NULL});
    ck_assert_msg(rc == 0, "rc %d: %s", rc, err);
    ck_assert_ptr_nonnull(strstr(out, "\nfree               lock waits "));
    ck_assert_ptr_nonnull(strstr(out, "\n  wait                                  count        "
                                      "seconds\n  port (packet in flight)   "));
    ck_assert_ptr_nonnull(strstr(out, "\n  lock                      taken      waits       "
                                      "wait s       held s  max hold ns\n  mailbox   "));
    ck_assert_ptr_nonnull(strstr(out, "\n  deadlock_detection "));
    ck_assert_ptr_nonnull(strstr(out, "\n  latency log2 histogram (from ns: packets): "));
    ck_assert_ptr_nonnull(strstr(out, "\nper_link_node      64 links, 16 nodes: in --json\n"));
    free(out);
    free(err);
}
END_TEST

/* ---- --validate's warnings ------------------------------------------------------------ */

/* A setting with no effect in the chosen mode is a warning (exit 0); no shipped config
 * gives one. */
START_TEST(test_validate_warnings)
{
    char *out, *err;
    const char *cfg = HM_SRCDIR "/configs/torus4x4_traffic.json";
    int rc =
        hm_t_exec(NULL, &out, &err,
                  (const char *[]){"--validate", "--set", "clock.mode=free", "--set",
                                   "mailbox.capacity=8", "--set", "contention=queue", cfg, NULL});
    ck_assert_int_eq(rc, 0);
    char want[1024];
    snprintf(want, sizeof want,
             "hypemu: %s: warning: mailbox.capacity 8 has no effect in free mode: the all-port "
             "model lets at most 4 packets in flight on a link (until its receiver reads it), so "
             "no mailbox holds more\n"
             "hypemu: %s: warning: contention has no effect in free mode: no slot is judged, "
             "conflicts do not exist\n",
             cfg, cfg);
    ck_assert_str_eq(err, want);
    free(out);
    free(err);
    /* At the bound, and in slotted mode: nothing to say. */
    rc = hm_t_exec(NULL, &out, &err,
                   (const char *[]){"--validate", "--set", "clock.mode=free", "--set",
                                    "mailbox.capacity=4", cfg, NULL});
    ck_assert_int_eq(rc, 0);
    ck_assert_str_eq(err, "");
    free(out);
    free(err);
    rc = hm_t_exec(NULL, &out, &err,
                   (const char *[]){"--validate", "--set", "mailbox.capacity=8", cfg, NULL});
    ck_assert_str_eq(err, "");
    free(out);
    free(err);
    DIR *d = opendir(HM_SRCDIR "/configs");
    ck_assert_ptr_nonnull(d);
    struct dirent *e;
    int seen = 0;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 6 || strcmp(e->d_name + len - 5, ".json") != 0)
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/configs/%s", HM_SRCDIR, e->d_name);
        hm_t_exec(NULL, &out, &err, (const char *[]){"--validate", path, NULL});
        ck_assert_msg(strstr(err, "has no effect") == NULL, "%s", err);
        free(out);
        free(err);
        seen++;
    }
    closedir(d);
    ck_assert_int_ge(seen, 40);
}
END_TEST

/* ---- --repeat's statistics --------------------------------------------------------------- */

static double num(const json_t *o, const char *k)
{
    return json_number_value(json_object_get(o, k));
}

START_TEST(test_repeat_stats_known)
{
    /* 1..10 shuffled: mean and median 5.5, sd sqrt(55/6); the interval of the median is
     * x_(2)..x_(9), confidence 1 - 2 * 11/1024. */
    double v[10] = {7, 3, 10, 1, 5, 9, 2, 8, 6, 4};
    json_t *s = hm__repeat_stats(v, 10);
    ck_assert_int_eq(geti(s, "n"), 10);
    ck_assert(num(s, "mean") == 5.5);
    ck_assert(num(s, "median") == 5.5);
    ck_assert(fabs(num(s, "sd") - sqrt(55.0 / 6.0)) < 1e-12);
    ck_assert(num(s, "min") == 1 && num(s, "max") == 10);
    json_t *ci = json_object_get(s, "median_ci");
    ck_assert(json_number_value(json_array_get(ci, 0)) == 2);
    ck_assert(json_number_value(json_array_get(ci, 1)) == 9);
    ck_assert(fabs(num(s, "median_ci_level") - (1 - 22.0 / 1024)) < 1e-12);
    json_decref(s);
    /* A skewed count: the interval is [min, max] (five samples cannot reach 95%: 93.75%),
     * never below 0 as the mean's t-interval was. */
    double c[5] = {0, 1000, 0, 0, 0};
    s = hm__repeat_stats(c, 5);
    ci = json_object_get(s, "median_ci");
    ck_assert(json_number_value(json_array_get(ci, 0)) == 0);
    ck_assert(json_number_value(json_array_get(ci, 1)) == 1000);
    ck_assert(num(s, "median_ci_level") == 0.9375);
    ck_assert(num(s, "mean") == 200 && num(s, "median") == 0);
    ck_assert(fabs(num(s, "sd") - sqrt(1000000.0 / 5)) < 1e-9);
    json_decref(s);
    /* 20 samples 1..20: x_(6)..x_(15), confidence 1 - 2 * 21700/2^20. */
    double w[20];
    for (int i = 0; i < 20; i++)
        w[i] = 20 - i;
    s = hm__repeat_stats(w, 20);
    ci = json_object_get(s, "median_ci");
    ck_assert(json_number_value(json_array_get(ci, 0)) == 6);
    ck_assert(json_number_value(json_array_get(ci, 1)) == 15);
    ck_assert(fabs(num(s, "median_ci_level") - (1 - 43400.0 / 1048576)) < 1e-12);
    json_decref(s);
    /* One sample: no spread. */
    double one[1] = {3};
    s = hm__repeat_stats(one, 1);
    ck_assert(json_is_null(json_object_get(s, "sd")));
    ck_assert(num(s, "median_ci_level") == 0);
    json_decref(s);
}
END_TEST

static Suite *contention_suite(void)
{
    Suite *s = suite_create("contention");
    TCase *tc = tcase_create("traffic");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_traffic_delivers, 0, 3);
    tcase_add_test(tc, test_traffic_load_curve);
    tcase_add_test(tc, test_traffic_refusals);
    tcase_add_test(tc, test_traffic_defaults);
    tcase_add_test(tc, test_traffic_window);
    tcase_add_test(tc, test_traffic_inject_per_s);
    tcase_add_test(tc, test_thread_figures);
    suite_add_tcase(s, tc);
    tc = tcase_create("figures");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_free_figures_consistent);
    tcase_add_test(tc, test_free_figures_circuit);
    tcase_add_test(tc, test_free_figures_table);
    tcase_add_test(tc, test_repeat_stats_known);
    tcase_add_test(tc, test_validate_warnings);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(contention_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
