/* SPDX-License-Identifier: MIT */
/*
 * check_cli.c — the hypemu program: options, exit codes (README "Command line") and the
 * human and JSON summaries.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/agree.h"
#include "helpers.h"

#define Q4 HM_SRCDIR "/configs/q4_successive.json"

START_TEST(test_help_version_list)
{
    char *out, *err;
    ck_assert_int_eq(hm_t_exec(NULL, &out, &err, (const char *[]){"--help", NULL}), 0);
    static const char first[] = "usage: hypemu [--json] [--set PATH=VALUE]... CONFIG.json\n";
    ck_assert_msg(strncmp(out, first, strlen(first)) == 0, "%s", out);
    free(out);
    free(err);
    ck_assert_int_eq(hm_t_exec(NULL, &out, &err, (const char *[]){"--version", NULL}), 0);
    ck_assert_str_eq(out, "hypemu " HM_VERSION "\n");
    free(out);
    free(err);
    ck_assert_int_eq(hm_t_exec(NULL, &out, &err, (const char *[]){"--list", NULL}), 0);
    ck_assert_ptr_nonnull(strstr(out, "  successive-broadcast   all p nodes broadcast by turns"));
    ck_assert_ptr_nonnull(strstr(out, "variant = sequential|interleaved|rotated, default rotated"));
    ck_assert_ptr_nonnull(strstr(out, "paper: Desprez-Fraigniaud-Tourancheau 1993"));
    ck_assert_ptr_nonnull(strstr(out, "  shout                  one emission to any set"));
    /* The typed parameters and the restrictions, from the descriptors. */
    ck_assert_ptr_nonnull(strstr(out, "   root = 0..p-1, default 0: the node that broadcasts\n"));
    ck_assert_ptr_nonnull(strstr(out, "   construction = searched|literal, default searched, only "
                                      "with variant=esbt: "));
    ck_assert_ptr_nonnull(strstr(out, "   sources = list of 1..p distinct nodes 0..p-1, default "
                                      "none (k nodes drawn with the seed): "));
    ck_assert_ptr_nonnull(strstr(out,
                                 " requires: routing packet; clock slotted local (its phases are "
                                 "timed by the global slot); dim >= 1\n"));
    ck_assert_ptr_nonnull(strstr(out, " requires: routing circuit\n"));
    ck_assert_ptr_nonnull(strstr(out, "\nclock modes:\n  slotted "));
    free(out);
    free(err);
}
END_TEST

START_TEST(test_usage_errors)
{
    char *out, *err;
    ck_assert_int_eq(hm_t_exec(NULL, &out, &err, (const char *[]){"--frobnicate", Q4, NULL}), 2);
    ck_assert_str_eq(err, "hypemu: unknown option --frobnicate; allowed: --json, --set, "
                          "--timeline-nodes, --plugin, --sandbox, --validate, --list, --progress, "
                          "--quiet, --help, --version, --repeat\n");
    free(out);
    free(err);
    ck_assert_int_eq(hm_t_exec(NULL, &out, &err, (const char *[]){NULL}), 2);
    ck_assert_ptr_nonnull(strstr(err, "usage: hypemu"));
    free(out);
    free(err);
    ck_assert_int_eq(hm_t_exec(NULL, &out, &err, (const char *[]){"no-such.json", NULL}), 2);
    ck_assert_str_eq(err, "no-such.json: cannot open: No such file or directory\n");
    free(out);
    free(err);
    ck_assert_int_eq(hm_t_exec(NULL, &out, &err, (const char *[]){"--set", NULL}), 2);
    ck_assert_str_eq(err, "hypemu: --set needs PATH=VALUE\n");
    free(out);
    free(err);
}
END_TEST

START_TEST(test_validate)
{
    char *out, *err;
    ck_assert_int_eq(hm_t_exec(NULL, &out, &err, (const char *[]){"--validate", Q4, NULL}), 0);
    ck_assert_str_eq(out, Q4 ": valid (successive-broadcast on hypercube, 16 nodes, shout "
                             "ports)\n");
    free(out);
    free(err);
    ck_assert_int_eq(hm_t_exec(NULL, &out, &err,
                               (const char *[]){"--validate", "--set", "topology.dim=25", "--set",
                                                "contention=loose", Q4, NULL}),
                     2);
    ck_assert_str_eq(out, "");
    ck_assert_str_eq(err, Q4 ": topology.dim: found 25; allowed: an integer from 0 to 24\n" Q4
                             ": contention: found \"loose\"; allowed: \"strict\", \"queue\"\n");
    free(out);
    free(err);
}
END_TEST

START_TEST(test_exit_codes)
{
    char *tmp = hm_t_tmpdir();
    char *out, *err;
    /* 0: the example, verified. */
    ck_assert_int_eq(hm_t_exec(tmp, &out, &err, (const char *[]){"--json", Q4, NULL}), 0);
    json_t *j = json_loads(out, 0, NULL);
    ck_assert_ptr_nonnull(j);
    ck_assert_int_eq(json_integer_value(json_object_get(j, "completion_slots")), 34);
    ck_assert(json_is_true(json_object_get(j, "verified")));
    json_decref(j);
    free(out);
    free(err);
    /* 1: strict port-model violation. */
    ck_assert_int_eq(
        hm_t_exec(tmp, &out, &err,
                  (const char *[]){"--set", "algorithm.variant=interleaved", Q4, NULL}),
        1);
    ck_assert_str_eq(err, "hypemu: slot 4: node 7 cannot emit and receive in one slot under "
                          "shout: emits msg 2 on link 7->6 (port 0), receives msg 3 on link "
                          "3->7 (port 2)\n");
    ck_assert_ptr_nonnull(strstr(out, "verified           false\n"));
    free(out);
    free(err);
    /* 3: clock.max_slots. */
    ck_assert_int_eq(
        hm_t_exec(tmp, &out, &err, (const char *[]){"--set", "clock.max_slots=20", Q4, NULL}), 3);
    ck_assert_str_eq(err, "hypemu: clock.max_slots = 20 reached: the next slot with work is "
                          "20, with 16 of 16 nodes still running\n");
    free(out);
    free(err);
    /* 4: an output that cannot be written; the others are still written. */
    ck_assert_int_eq(
        hm_t_exec(tmp, &out, &err,
                  (const char *[]){"--set", "output.events=/nonexistent/e.jsonl", Q4, NULL}),
        4);
    ck_assert_str_eq(err, "hypemu: cannot write /nonexistent/e.jsonl: No such file or "
                          "directory\n");
    char path[512];
    struct stat st;
    snprintf(path, sizeof path, "%s/q4_successive.timeline.txt", tmp);
    ck_assert_int_eq(stat(path, &st), 0);
    snprintf(path, sizeof path, "%s/q4_successive.trace.json", tmp);
    ck_assert_int_eq(stat(path, &st), 0);
    free(out);
    free(err);
    hm_t_rmtree(tmp);
}
END_TEST

START_TEST(test_human_summary)
{
    char *tmp = hm_t_tmpdir();
    char *out, *err;
    ck_assert_int_eq(hm_t_exec(tmp, &out, &err, (const char *[]){"--set", "output=null", Q4, NULL}),
                     0);
    static const char want[] = "topology           hypercube\n"
                               "nodes              16\n"
                               "ports              shout\n"
                               "algorithm          successive-broadcast\n"
                               "variant            rotated\n"
                               "problem            broadcast\n"
                               "completion_slots   34\n"
                               "bound              34  (2p+log2(p)-2)\n"
                               "lower_bound        21  (2p-alpha(d)-1)\n"
                               "transmissions      240\n"
                               "conflicts          0\n";
    ck_assert_msg(strncmp(out, want, strlen(want)) == 0, "%s", out);
    ck_assert_str_eq(err, "");
    free(out);
    free(err);
    hm_t_rmtree(tmp);
}
END_TEST

/* Golden tests: every config shipped in configs/ gives the summary recorded in
 * tests/golden/NAME.json (all but wall_seconds), exit code included; but for those
 * with "clock": {"mode": "free"}, which are not deterministic. The files are
 * written by scripts/update-golden.sh after the figures were checked by hand. */
START_TEST(test_golden_configs)
{
    DIR *d = opendir(HM_SRCDIR "/configs");
    ck_assert_ptr_nonnull(d);
    struct dirent *e;
    int seen = 0;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len < 6 || strcmp(e->d_name + len - 5, ".json") != 0)
            continue;
        char cfg[1024], golden[1024];
        snprintf(cfg, sizeof cfg, "%s/configs/%s", HM_SRCDIR, e->d_name);
        /* Free-running configs are not deterministic: tests/check_free.c checks them. */
        json_t *c = json_load_file(cfg, 0, NULL);
        const char *mode = json_string_value(json_object_get(json_object_get(c, "clock"), "mode"));
        int free_mode = mode && strcmp(mode, "free") == 0;
        json_decref(c);
        if (free_mode)
            continue;
        snprintf(golden, sizeof golden, "%s/tests/golden/%s", HM_SRCDIR, e->d_name);
        json_error_t je;
        json_t *want = json_load_file(golden, 0, &je);
        ck_assert_msg(want != NULL, "%s has no golden summary %s (scripts/update-golden.sh)", cfg,
                      golden);
        char *out;
        int rc = hm_t_exec(NULL, &out, NULL,
                           (const char *[]){"--json", "--set", "output=null", cfg, NULL});
        json_t *got = json_loads(out, 0, &je);
        ck_assert_msg(got != NULL, "%s: no JSON summary (exit %d)", cfg, rc);
        json_object_del(got, "wall_seconds");
        char *g = json_dumps(got, JSON_SORT_KEYS), *w = json_dumps(want, JSON_SORT_KEYS);
        ck_assert_msg(json_equal(got, want), "%s:\n got  %s\n want %s", e->d_name, g, w);
        ck_assert_int_eq(rc, json_integer_value(json_object_get(want, "exit_code")));
        free(g);
        free(w);
        free(out);
        json_decref(got);
        json_decref(want);
        seen++;
    }
    closedir(d);
    ck_assert_int_ge(seen, 6);
}
END_TEST

/* --list --json: the whole catalogue as one JSON document, read by jansson and by a
 * real external reader (python3 -m json.tool), with the entries of the descriptors. */
static json_t *find_named(json_t *array, const char *name)
{
    size_t i;
    json_t *e;
    json_array_foreach(array, i, e)
        if (strcmp(json_string_value(json_object_get(e, "name")), name) == 0)
            return e;
    return NULL;
}

START_TEST(test_list_json)
{
    char *out, *err;
    ck_assert_int_eq(hm_t_exec(NULL, &out, &err, (const char *[]){"--list", "--json", NULL}), 0);
    ck_assert_str_eq(err, "");
    json_error_t je;
    json_t *doc = json_loads(out, 0, &je);
    ck_assert_msg(doc != NULL, "line %d: %s", je.line, je.text);

    /* The external reader. */
    char *tmp = hm_t_tmpdir(), path[512], cmd[1200];
    snprintf(path, sizeof path, "%s/catalogue.json", tmp);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(out, f);
    ck_assert_int_eq(fclose(f), 0);
    snprintf(cmd, sizeof cmd, "python3 -m json.tool '%s' >/dev/null", path);
    ck_assert_int_eq(system(cmd), 0);
    hm_t_rmtree(tmp);

    json_t *algos = json_object_get(doc, "algorithms");
    ck_assert_int_eq(json_array_size(algos), 33); /* 9 + the 23 collectives + traffic */
    /* A collective names its problem from the one public list (doc/collectives.md). */
    ck_assert_str_eq(
        json_string_value(json_object_get(find_named(algos, "reduce-scatter-pairwise"), "problem")),
        "reduce-scatter");
    json_t *succ = find_named(algos, "successive-broadcast");
    ck_assert_ptr_nonnull(succ);
    ck_assert_str_eq(json_string_value(json_object_get(succ, "problem")), "broadcast");
    ck_assert_str_eq(json_string_value(json_object_get(succ, "default_ports")), "shout");
    json_t *variant = find_named(json_object_get(succ, "params"), "variant");
    char *v = json_dumps(variant, JSON_PRESERVE_ORDER | JSON_COMPACT);
    ck_assert_str_eq(v, "{\"name\":\"variant\",\"type\":\"enum\",\"default\":\"rotated\","
                        "\"min\":null,\"max\":null,\"choices\":[\"sequential\",\"interleaved\","
                        "\"rotated\"],\"optional\":false,\"only_if\":null,\"help\":\"how the p "
                        "broadcasts are scheduled\"}");
    free(v);

    /* A machine-dependent range is data: root in 0..p-1. */
    json_t *root =
        find_named(json_object_get(find_named(algos, "sbt-broadcast"), "params"), "root");
    ck_assert_str_eq(json_string_value(json_object_get(root, "type")), "int");
    ck_assert_int_eq(json_integer_value(json_object_get(root, "min")), 0);
    ck_assert_str_eq(json_string_value(json_object_get(root, "max")), "p-1");
    ck_assert_int_eq(json_integer_value(json_object_get(root, "default")), 0);

    /* multinode-broadcast: its variants and the esbt construction, first-class. */
    json_t *mnb = find_named(algos, "multinode-broadcast");
    ck_assert_str_eq(json_string_value(json_object_get(mnb, "problem")), "allgather");
    json_t *mv = find_named(json_object_get(mnb, "params"), "variant");
    v = json_dumps(json_object_get(mv, "choices"), JSON_COMPACT);
    ck_assert_str_eq(v, "[\"stamoulis\",\"esbt\"]");
    free(v);
    json_t *cons = find_named(json_object_get(mnb, "params"), "construction");
    ck_assert_str_eq(json_string_value(json_object_get(cons, "only_if")), "variant=esbt");
    ck_assert_str_eq(json_string_value(json_object_get(cons, "default")), "searched");
    v = json_dumps(json_object_get(mnb, "requires"), JSON_PRESERVE_ORDER | JSON_COMPACT);
    ck_assert_str_eq(
        v, "{\"routing\":[\"packet\"],\"clock_modes\":[\"slotted\",\"local\"],\"clock_why\":"
           "\"its phases and tree steps are timed by the global slot\",\"min_dim\":0,"
           "\"power_of_two_nodes\":false}");
    free(v);

    /* Restrictions and problems of the others. */
    json_t *sim = find_named(algos, "simultaneous-broadcast");
    ck_assert_int_eq(
        json_integer_value(json_object_get(json_object_get(sim, "requires"), "min_dim")), 1);
    json_t *st = find_named(algos, "st-broadcast");
    v = json_dumps(json_object_get(json_object_get(st, "requires"), "routing"), JSON_COMPACT);
    ck_assert_str_eq(v, "[\"circuit\"]");
    free(v);
    ck_assert_str_eq(json_string_value(json_object_get(find_named(algos, "max"), "problem")),
                     "max");
    ck_assert_str_eq(json_string_value(json_object_get(find_named(algos, "merge-sort"), "problem")),
                     "sort");
    json_t *values = find_named(json_object_get(find_named(algos, "max"), "params"), "values");
    ck_assert_str_eq(json_string_value(json_object_get(values, "min_length")), "k");
    ck_assert(json_is_null(json_object_get(values, "min")));

    /* The lists of the machine. */
    v = json_dumps(json_object_get(doc, "clock_modes"), JSON_PRESERVE_ORDER | JSON_COMPACT);
    ck_assert_str_eq(v, "[{\"name\":\"slotted\",\"description\":\"the global barrier clock: every "
                        "node sees the same slot\"},{\"name\":\"free\",\"description\":\"no "
                        "barrier: each node's own logical clock, real mailboxes\"},{\"name\":"
                        "\"local\",\"description\":\"the slotted semantics with per-node clocks "
                        "instead of the barrier\"}]");
    free(v);
    ck_assert_int_eq(json_array_size(json_object_get(doc, "topologies")), 6);
    ck_assert_int_eq(json_array_size(json_object_get(doc, "ports")), 5);
    ck_assert_str_eq(json_string_value(json_object_get(
                         json_array_get(json_object_get(doc, "problems"), 1), "name")),
                     "allgather");
    ck_assert_int_eq(json_array_size(json_object_get(doc, "problems")), 10);
    ck_assert_str_eq(json_string_value(json_object_get(
                         json_array_get(json_object_get(doc, "problems"), 9), "name")),
                     "alltoall");
    json_decref(doc);
    free(out);
    free(err);
}
END_TEST

/* --validate makes the checks a run makes, the algorithm's setup included, and says
 * so with the run's message and exit code; every config error at once. */
START_TEST(test_validate_runs_setup)
{
    static const char *const cases[][7] = {
        /* A setup error (buffers over the 512 MiB cap): the run's message. */
        {HM_SRCDIR "/configs/linear_st.json", "--set", "topology.nodes=64", "--set",
         "algorithm.message_bytes=16777216", NULL},
        /* dim 0 with root 5 and rotation 3: both ranges depend on the machine. */
        {HM_SRCDIR "/configs/q4_sbt_broadcast.json", "--set", "topology.dim=0", "--set",
         "algorithm.root=5", "--set", "algorithm.rotation=3"},
        {HM_SRCDIR "/configs/q4_sbt_broadcast.json", "--set", "algorithm.root=99", NULL},
        /* The free-running clock cannot run the slot-timed phases. */
        {HM_SRCDIR "/configs/q4_simultaneous_prefix.json", "--set", "clock.mode=free", NULL},
    };
    static const char *const want[] = {
        "hypemu: " HM_SRCDIR "/configs/linear_st.json: algorithm.message_bytes: found 16777216 "
        "bytes on 64 nodes; allowed: at most 512 MiB of buffers in all (bytes x nodes)\n",
        HM_SRCDIR "/configs/q4_sbt_broadcast.json: algorithm.root: found 5; allowed: an integer "
                  "from 0 to 0\n" HM_SRCDIR "/configs/q4_sbt_broadcast.json: algorithm.rotation: "
                  "found 3; allowed: an integer from 0 to 0\n",
        HM_SRCDIR "/configs/q4_sbt_broadcast.json: algorithm.root: found 99; allowed: an integer "
                  "from 0 to 15\n",
        HM_SRCDIR "/configs/q4_simultaneous_prefix.json: clock.mode: found \"free\"; allowed for "
                  "simultaneous-broadcast: \"slotted\", \"local\" (its phases are timed by the "
                  "global slot)\n",
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        for (int validate = 0; validate < 2; validate++) {
            const char *args[12];
            int n = 0;
            if (validate)
                args[n++] = "--validate";
            args[n++] = "--set";
            args[n++] = "output=null";
            for (int j = 1; j < 7 && cases[i][j]; j++)
                args[n++] = cases[i][j];
            args[n++] = cases[i][0];
            args[n] = NULL;
            char *out, *err;
            ck_assert_int_eq(hm_t_exec(NULL, &out, &err, args), 2);
            ck_assert_str_eq(out, "");
            ck_assert_str_eq(err, want[i]);
            free(out);
            free(err);
        }
    }
    /* A valid config: setup and teardown ran, nothing else. */
    char *out, *err;
    ck_assert_int_eq(
        hm_t_exec(NULL, &out, &err,
                  (const char *[]){"--validate", HM_SRCDIR "/configs/linear_st.json", NULL}),
        0);
    ck_assert_str_eq(out, HM_SRCDIR "/configs/linear_st.json: valid (st-broadcast on linear, 16 "
                                    "nodes, one-port-full ports)\n");
    ck_assert_str_eq(err, "");
    free(out);
    free(err);
}
END_TEST

/* ---- hypemu-mpi's agreement (doc/mpi.md, "Every rank runs the same config") ------- */

/* The description of a config given as text, with --set overrides. */
static char *describe(const char *text, const char *set, const hm__agree_t *a)
{
    hm__config_t cfg;
    char *sets[1] = {(char *)set};
    ck_assert_int_eq(hm__config_load_string(&cfg, "c.json", text, sets, set ? 1 : 0), 0);
    char *d = hm__agree_text(&cfg, a);
    ck_assert_ptr_nonnull(d);
    hm__config_free(&cfg);
    return d;
}

/* Two ranks' descriptions: the same bytes for a default and the same value written
 * out; otherwise the first difference in sorted key order, rank r's value first. */
START_TEST(test_agree_difference)
{
    static const char base[] =
        "{\"topology\":{\"kind\":\"hypercube\",\"dim\":2},\"ports\":{\"model\":\"all-port\"},"
        "\"algorithm\":{\"name\":\"allreduce-ring\",\"block\":2,"
        "\"inputs\":[[1,2],[3,4],[5,6],[7,8]]}}";
    const hm__agree_t go = {0, 0, -1, NULL, NULL};
    char *zero = describe(base, NULL, &go);
    static const struct {
        const char *set, *want;
    } cases[] = {
        {"clock.max_slots=1000000", NULL},
        {"mailbox.capacity=4", NULL},
        {"clock.max_slots=1000", "rank 1's config differs from rank 0's at clock.max_slots (1000 "
                                 "against 1000000)"},
        {"algorithm.inputs=[[1,2],[3,4],[5,9],[7,8]]",
         "rank 1's config differs from rank 0's at algorithm.inputs[2][1] (9 against 6)"},
        {"output.events=\"e.jsonl\"",
         "rank 1's config differs from rank 0's at output.events (\"e.jsonl\" against nothing)"},
        {"contention=\"queue\"",
         "rank 1's config differs from rank 0's at contention (\"queue\" against \"strict\")"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *one = describe(base, cases[i].set, &go);
        char *msg = hm__agree_difference(zero, one, 1);
        if (cases[i].want) {
            ck_assert_msg(msg && strcmp(msg, cases[i].want) == 0, "%s: %s", cases[i].set,
                          msg ? msg : "(none)");
            ck_assert_str_ne(zero, one);
        } else {
            ck_assert_msg(!msg, "%s: %s", cases[i].set, msg);
            ck_assert_str_eq(zero, one);
        }
        free(msg);
        free(one);
    }
    /* The command line, the environment, a rank that stops before the run. */
    const hm__agree_t validate = {1, 0, -1, NULL, NULL}, stats = {0, 0, -1, NULL, "1"};
    const hm__agree_t stop = {0, 0, 2, "c.json: topology.dim: found 99", NULL};
    char *v = describe(base, NULL, &validate), *e = describe(base, NULL, &stats);
    char *st = hm__agree_text(NULL, &stop);
    char *msgs[3] = {hm__agree_difference(zero, v, 3), hm__agree_difference(zero, e, 2),
                     hm__agree_difference(zero, st, 1)};
    ck_assert_str_eq(msgs[0], "rank 3's command line differs from rank 0's at --validate (true "
                              "against false)");
    ck_assert_str_eq(msgs[1], "rank 2's environment differs from rank 0's at HM_MPI_STATS (\"1\" "
                              "against nothing)");
    ck_assert_str_eq(msgs[2], "rank 1 stops before the run with exit 2, rank 0 does not: c.json: "
                              "topology.dim: found 99");
    for (int i = 0; i < 3; i++)
        free(msgs[i]);
    free(v), free(e), free(st), free(zero);
    /* FNV-1a 64 of "a" (the published test vector). */
    ck_assert_uint_eq(hm__fnv1a("a", 1, HM__FNV_BASIS), UINT64_C(0xaf63dc4c8601ec8c));
}
END_TEST

Suite *hm_suite_cli(void)
{
    Suite *s = suite_create("cli");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_help_version_list);
    tcase_add_test(tc, test_human_summary);
    tcase_add_test(tc, test_golden_configs);
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);
    TCase *errors = tcase_create("errors");
    tcase_add_test(errors, test_usage_errors);
    tcase_add_test(errors, test_validate);
    tcase_add_test(errors, test_validate_runs_setup);
    tcase_add_test(errors, test_list_json);
    tcase_add_test(errors, test_exit_codes);
    tcase_add_test(errors, test_agree_difference);
    tcase_set_timeout(errors, 60);
    suite_add_tcase(s, errors);
    return s;
}
