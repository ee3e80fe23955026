/* SPDX-License-Identifier: MIT */
/*
 * check_outputs.c — the timeline, events and trace writers (README "Outputs"), and
 * determinism: the same config and seed give byte-identical outputs in slotted mode,
 * whatever the thread scheduling.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "helpers.h"
#include "out/writers.h"

#define Q4 HM_SRCDIR "/configs/q4_successive.json"

static const char *const files[] = {"q4_successive.timeline.txt", "q4_successive.events.jsonl",
                                    "q4_successive.trace.json"};

static char *file_in(const char *dir, const char *name, size_t *len)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *s = hm_t_slurp(path, len);
    ck_assert_msg(s != NULL, "cannot read %s", path);
    return s;
}

/* The summary without wall_seconds, the only field allowed to differ. */
static char *stable_summary(const char *json_text)
{
    json_t *j = json_loads(json_text, 0, NULL);
    ck_assert_ptr_nonnull(j);
    json_object_del(j, "wall_seconds");
    char *s = json_dumps(j, JSON_SORT_KEYS);
    json_decref(j);
    return s;
}

static void check_identical(const char *const *extra)
{
    char *dir[2], *sum[2];
    for (int i = 0; i < 2; i++) {
        dir[i] = hm_t_tmpdir();
        const char *args[16] = {"--json"};
        int n = 1;
        for (int k = 0; extra && extra[k]; k++)
            args[n++] = extra[k];
        args[n++] = Q4;
        args[n] = NULL;
        char *out;
        int rc = hm_t_exec(dir[i], &out, NULL, args);
        ck_assert_msg(rc == 0 || rc == 1, "rc %d", rc);
        sum[i] = stable_summary(out);
        free(out);
    }
    ck_assert_str_eq(sum[0], sum[1]);
    for (size_t f = 0; f < 3; f++) {
        size_t la, lb;
        char *a = file_in(dir[0], files[f], &la), *b = file_in(dir[1], files[f], &lb);
        ck_assert_msg(la == lb && memcmp(a, b, la) == 0, "%s differs between two runs", files[f]);
        free(a);
        free(b);
    }
    for (int i = 0; i < 2; i++) {
        free(sum[i]);
        hm_t_rmtree(dir[i]);
    }
}

START_TEST(test_deterministic_rotated)
{
    check_identical(NULL);
}
END_TEST

START_TEST(test_deterministic_queue_delays)
{
    /* Delays and their order are decided by the clock, not by the scheduler. */
    static const char *const extra[] = {
        "--set", "topology.dim=6",   "--set", "algorithm.variant=interleaved",
        "--set", "contention=queue", NULL};
    check_identical(extra);
}
END_TEST

START_TEST(test_events_jsonl)
{
    char *dir = hm_t_tmpdir();
    ck_assert_int_eq(hm_t_exec(dir, NULL, NULL, (const char *[]){Q4, NULL}), 0);
    size_t len;
    char *ev = file_in(dir, files[1], &len);
    /* Slot 0: mu_1 leaves node 0 = x^(1) on its 4 ports, shouted at once. */
    static const char head[] =
        "{\"slot\":0,\"node\":0,\"event\":\"store\",\"value\":1}\n"
        "{\"slot\":0,\"node\":0,\"event\":\"send\",\"port\":0,\"to\":1,\"msg\":1,\"value\":1}\n"
        "{\"slot\":0,\"node\":0,\"event\":\"send\",\"port\":1,\"to\":2,\"msg\":1,\"value\":1}\n"
        "{\"slot\":0,\"node\":0,\"event\":\"send\",\"port\":2,\"to\":4,\"msg\":1,\"value\":1}\n"
        "{\"slot\":0,\"node\":0,\"event\":\"send\",\"port\":3,\"to\":8,\"msg\":1,\"value\":1}\n"
        "{\"slot\":0,\"node\":1,\"event\":\"recv\",\"port\":0,\"from\":0,\"msg\":1,\"value\":1}\n";
    ck_assert_msg(strncmp(ev, head, strlen(head)) == 0, "%.400s", ev);
    /* One line per event: 240 receptions, 240 sends, 256 stores. */
    int lines = 0, sends = 0, recvs = 0, stores = 0;
    for (char *l = ev; *l; l = strchr(l, '\n') + 1) {
        json_error_t je;
        char *nl = strchr(l, '\n');
        ck_assert_ptr_nonnull(nl);
        json_t *j = json_loadb(l, (size_t)(nl - l), 0, &je);
        ck_assert_msg(j != NULL, "line %d is not JSON: %s", lines + 1, je.text);
        const char *kind = json_string_value(json_object_get(j, "event"));
        sends += strcmp(kind, "send") == 0;
        recvs += strcmp(kind, "recv") == 0;
        stores += strcmp(kind, "store") == 0;
        json_decref(j);
        lines++;
    }
    ck_assert_int_eq(sends, 240);
    ck_assert_int_eq(recvs, 240);
    ck_assert_int_eq(stores, 256);
    ck_assert_int_eq(lines, 736);
    free(ev);
    hm_t_rmtree(dir);
}
END_TEST

START_TEST(test_timeline_text)
{
    char *dir = hm_t_tmpdir();
    ck_assert_int_eq(hm_t_exec(dir, NULL, NULL, (const char *[]){Q4, NULL}), 0);
    char *tl = file_in(dir, files[0], NULL);
    static const char head[] =
        "hypemu timeline: hypercube, 16 nodes, shout ports, successive-broadcast, 35 slots\n"
        "legend: S send  R receive  * both  o store  l log  d delayed  s stalled  ! conflict  "
        "# busy  . idle\n"
        "\n"
        "slots 0..34\n"
        "    0         10        20        30\n"
        "    01234567890123456789012345678901234\n"
        " 0  S.RS.RRS.RS.RRRS.RS.RS.RRRS.RRRo...\n"
        " 1  RoS.RS.RS.RRRS.RS.RRS.RS.RRRRS.Ro..\n";
    ck_assert_msg(strncmp(tl, head, strlen(head)) == 0, "%.600s", tl);
    /* Shout never lets a node send and receive in one slot: no '*' cell. */
    char *events = strstr(tl, "\nevents");
    ck_assert_ptr_nonnull(events);
    *events = 0;
    ck_assert_ptr_null(strchr(strstr(tl, "slots 0..34"), '*'));
    free(tl);
    hm_t_rmtree(dir);
}
END_TEST

START_TEST(test_trace_json)
{
    char *dir = hm_t_tmpdir();
    ck_assert_int_eq(hm_t_exec(dir, NULL, NULL, (const char *[]){Q4, NULL}), 0);
    char *text = file_in(dir, files[2], NULL);
    json_error_t je;
    json_t *j = json_loads(text, 0, &je);
    ck_assert_msg(j != NULL, "trace is not JSON: %s line %d", je.text, je.line);
    json_t *evs = json_object_get(j, "traceEvents");
    ck_assert(json_is_array(evs));
    int names = 0, starts = 0, finishes = 0, slices = 0;
    size_t i;
    json_t *e;
    json_array_foreach(evs, i, e) {
        const char *ph = json_string_value(json_object_get(e, "ph"));
        const char *name = json_string_value(json_object_get(e, "name"));
        if (strcmp(ph, "M") == 0 && strcmp(name, "thread_name") == 0) {
            char want[32];
            snprintf(want, sizeof want, "node %04d", names);
            ck_assert_str_eq(json_string_value(json_object_get(json_object_get(e, "args"), "name")),
                             want);
            names++;
        }
        starts += strcmp(ph, "s") == 0;
        finishes += strcmp(ph, "f") == 0;
        slices += strcmp(ph, "X") == 0;
    }
    ck_assert_int_eq(names, 16);
    ck_assert_int_eq(starts, 240); /* one arrow per packet, send to receive */
    ck_assert_int_eq(finishes, 240);
    ck_assert_int_eq(slices, 128 + 240); /* a slice per emission (a shout is one), per receive */
    json_decref(j);
    free(text);
    hm_t_rmtree(dir);
}
END_TEST

/* The output budget's count of the text outputs (out/size.c, README "Output budget") is
 * the bytes written, for every shipped config, with its outputs redirected to a fresh
 * directory; once more with output.nodes narrowing the timeline. The count and the
 * files come from one run, so the free clock's timings cannot make them differ. */
static void check_sizes(const char *config, const char *nodes)
{
    char *dir = hm_t_tmpdir();
    char set[3][600];
    const char *key[3] = {"timeline", "events", "trace"};
    char *sets[8];
    int nsets = 0;
    for (int i = 0; i < 3; i++) {
        snprintf(set[i], sizeof set[i], "output.%s=%s/%s", key[i], dir, key[i]);
        sets[nsets++] = set[i];
    }
    sets[nsets++] = "output.svg=null";
    sets[nsets++] = "output.otf2=null";
    sets[nsets++] = "output.max_bytes=0";
    char nodes_set[64];
    if (nodes) {
        snprintf(nodes_set, sizeof nodes_set, "output.nodes=%s", nodes);
        sets[nsets++] = nodes_set;
    }
    hm__config_t cfg;
    int rc = hm__config_load(&cfg, config, sets, nsets);
    ck_assert_msg(rc == 0, "%s: config error %s", config, cfg.nerrors ? cfg.errors[0] : "");
    hm__result_t res;
    rc = hm__run_config(&cfg, &res);
    ck_assert_msg(res.outcome != NULL, "%s: exit %d, no outcome", config, rc);
    int64_t want[3] = {hm__size_timeline(res.outcome, cfg.out_show), hm__size_events(res.outcome),
                       hm__size_trace(res.outcome)};
    for (int i = 0; i < 3; i++) {
        char path[600];
        snprintf(path, sizeof path, "%s/%s", dir, key[i]);
        struct stat st;
        ck_assert_msg(stat(path, &st) == 0, "%s: output.%s not written (exit %d)", config, key[i],
                      rc);
        ck_assert_msg(st.st_size == want[i],
                      "%s%s%s: output.%s: predicted %lld bytes, written %lld", config,
                      nodes ? " output.nodes=" : "", nodes ? nodes : "", key[i], (long long)want[i],
                      (long long)st.st_size);
    }
    hm__result_free(&res);
    hm__config_free(&cfg);
    hm_t_rmtree(dir);
}

START_TEST(test_sizes_exact)
{
    DIR *d = opendir(HM_SRCDIR "/configs");
    ck_assert_ptr_nonnull(d);
    struct dirent *e;
    int n = 0;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len < 6 || strcmp(e->d_name + len - 5, ".json") != 0)
            continue;
        char path[512];
        snprintf(path, sizeof path, "%s/configs/%s", HM_SRCDIR, e->d_name);
        check_sizes(path, NULL);
        n++;
    }
    closedir(d);
    ck_assert_int_ge(n, 40);
    check_sizes(Q4, "1-2,9");
}
END_TEST

/* ---- what each node knows (out/knows.c) ---------------------------------------------- */

/* The counts of node x's changes, as "slot:count" words. */
static void knows_text(const hm__knows_t *k, int x, char *buf, size_t len)
{
    buf[0] = 0;
    for (size_t i = 0; i < k->changes[x].n; i++)
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%lld:%lld", i ? " " : "",
                 (long long)k->changes[x].v[i].slot, (long long)k->changes[x].v[i].count);
}

/* Run `config` (a file of configs/, or a config's text, with sets) and compute what every
 * node knows. */
static hm__knows_t knows_of(const char *config, const char *const *sets, int nsets)
{
    char path[512];
    snprintf(path, sizeof path, "%s/configs/%s", HM_SRCDIR, config);
    char *all[8] = {"output=null"};
    for (int i = 0; i < nsets; i++)
        all[i + 1] = (char *)sets[i];
    hm__config_t cfg;
    int rc = config[0] == '{' ? hm__config_load_string(&cfg, "test.json", config, all, nsets + 1)
                              : hm__config_load(&cfg, path, all, nsets + 1);
    ck_assert_int_eq(rc, 0);
    cfg.opt.record_reads = 1; /* as output.html asks */
    hm__result_t res;
    hm__run_config(&cfg, &res);
    ck_assert_ptr_nonnull(res.outcome);
    hm__knows_t k;
    ck_assert_int_eq(hm__knows(res.outcome, res.outcome->stats.last_activity + 1, &k), 0);
    hm__result_free(&res);
    hm__config_free(&cfg);
    return k;
}

START_TEST(test_knows)
{
    char buf[512];
    /* Recursive doubling on Q_4: 2^t nodes known after step t. */
    hm__knows_t k = knows_of("q4_allgather_recursive_doubling.json", NULL, 0);
    knows_text(&k, 5, buf, sizeof buf);
    ck_assert_str_eq(buf, "0:1 1:2 2:4 3:8 4:16");
    ck_assert_int_eq((int64_t)k.changes[5].v[1].set, (1 << 5) | (1 << 4)); /* itself, node 4 */
    hm__knows_free(&k);
    /* The ring allgather on 8 nodes: one more each step. */
    k = knows_of("{\"topology\": {\"kind\": \"ring\", \"nodes\": 8}, \"ports\": {\"model\": "
                 "\"one-port-full\"}, \"algorithm\": {\"name\": \"allgather-ring\"}}",
                 NULL, 0);
    knows_text(&k, 0, buf, sizeof buf);
    ck_assert_str_eq(buf, "0:1 1:2 2:3 3:4 4:5 5:6 6:7 7:8");
    hm__knows_free(&k);
    /* A broadcast's root (node 5) hears from no one. */
    k = knows_of("q4_broadcast_binomial.json", NULL, 0);
    knows_text(&k, 5, buf, sizeof buf);
    ck_assert_str_eq(buf, "0:1");
    hm__knows_free(&k);
}
END_TEST

Suite *hm_suite_outputs(void)
{
    Suite *s = suite_create("outputs");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_events_jsonl);
    tcase_add_test(tc, test_knows);
    tcase_add_test(tc, test_timeline_text);
    tcase_add_test(tc, test_trace_json);
    tcase_add_test(tc, test_deterministic_rotated);
    tcase_add_test(tc, test_deterministic_queue_delays);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);
    /* Every shipped config with its text outputs: a few seconds plain, longer under the
     * sanitizers. */
    TCase *sizes = tcase_create("sizes");
    tcase_add_test(sizes, test_sizes_exact);
    tcase_set_timeout(sizes, 600);
    suite_add_tcase(s, sizes);
    return s;
}
