/*
 * check_cli.c — the hypemu program: options, exit codes (SPEC section 1) and the
 * human and JSON summaries.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
    free(out);
    free(err);
}
END_TEST

START_TEST(test_usage_errors)
{
    char *out, *err;
    ck_assert_int_eq(hm_t_exec(NULL, &out, &err, (const char *[]){"--frobnicate", Q4, NULL}), 2);
    ck_assert_str_eq(err, "hypemu: unknown option --frobnicate; allowed: --json, --set, "
                          "--validate, --list, --help, --version\n");
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
                               (const char *[]){"--validate", "--set", "topology.dim=20", "--set",
                                                "contention=loose", Q4, NULL}),
                     2);
    ck_assert_str_eq(out, "");
    ck_assert_str_eq(err, Q4 ": topology.dim: found 20; allowed: an integer from 0 to 16\n" Q4
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
    tcase_add_test(errors, test_exit_codes);
    tcase_set_timeout(errors, 60);
    suite_add_tcase(s, errors);
    return s;
}
