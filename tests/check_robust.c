/* SPDX-License-Identifier: MIT */
/*
 * check_robust.c — bad input never crashes, hangs or gives a silent wrong result:
 * the reproducers of the robustness issue (doc/config.md "Config ranges" and README "Exit
 * codes"), each with its exit code and its exact message. A program of its own, so
 * that it adds no suite to the shared runner.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"
#include "out/writers.h"

#define Q4 "configs/q4_successive.json"
#define RH "configs/linear_rh.json"
#define Q4_TEXT                                                                                    \
    "{\"topology\":{\"kind\":\"hypercube\",\"dim\":2},\"clock\":{\"max_slots\":100},"              \
    "\"algorithm\":{\"name\":\"successive-broadcast\"}}"

/* The config errors of Q4_TEXT with the --set overrides (NULL-terminated): the
 * exit code must be 2. */
static char *set_errors(const char *const *sets)
{
    hm_trun_t r = hm_t_run(Q4_TEXT, sets);
    ck_assert_msg(r.rc == 2, "exit %d, expected 2: %s", r.rc, r.message ? r.message : "");
    char *m = r.message;
    r.message = NULL;
    hm_t_free(&r);
    return m;
}

/* Defect 3: a key that is not UTF-8 made jansson free the new child object, which
 * the walk went on using; as the last key the override was silently dropped. */
START_TEST(test_set_key_not_utf8)
{
    char *m = set_errors((const char *const[]){"\xff.x=1", NULL});
    ck_assert_str_eq(m, "test.json: --set \\xff.x=1: key 1 \"\\xff\" is not UTF-8 text; "
                        "allowed: keys in UTF-8\n");
    free(m);
    m = set_errors((const char *const[]){"clock.max_slots=5", "clock.\xc3\x28=1", NULL});
    ck_assert_str_eq(m, "test.json: --set clock.\\xc3(=1: key 2 \"\\xc3(\" is not UTF-8 text; "
                        "allowed: keys in UTF-8\n");
    free(m);
    /* Overlong forms and surrogates are not UTF-8 either (jansson's rules). */
    m = set_errors((const char *const[]){"a.\xc0\xaf=1", "\xed\xa0\x80=1", NULL});
    ck_assert_str_eq(m, "test.json: --set a.\\xc0\\xaf=1: key 2 \"\\xc0\\xaf\" is not UTF-8 "
                        "text; allowed: keys in UTF-8\n"
                        "test.json: --set \\xed\\xa0\\x80=1: key 1 \"\\xed\\xa0\\x80\" is not "
                        "UTF-8 text; allowed: keys in UTF-8\n");
    free(m);
    /* A value that is not UTF-8 was dropped too (json_string refuses it). */
    m = set_errors((const char *const[]){"algorithm.variant=\xfe", NULL});
    ck_assert_str_eq(m, "test.json: --set algorithm.variant=\\xfe: the value is not UTF-8 text; "
                        "allowed: JSON or UTF-8 text\n");
    free(m);
    /* UTF-8 keys and values go through, and reach the checks. */
    m = set_errors((const char *const[]){"clock.\xce\xbc=\xce\xbc", NULL});
    ck_assert_str_eq(m, "test.json: clock.\xce\xbc: unknown key; allowed keys: mode, "
                        "max_slots, affinity, slot_timeout\n");
    free(m);

    /* The program: exit 2 and the message, also with the bad key last. */
    char *out, *err;
    ck_assert_int_eq(hm_t_exec(NULL, &out, &err,
                               (const char *[]){"--validate", "--set", "clock.max_slots=9", "--set",
                                                "\xff.x=1", Q4, NULL}),
                     2);
    ck_assert_str_eq(out, "");
    ck_assert_str_eq(err, Q4 ": --set \\xff.x=1: key 1 \"\\xff\" is not UTF-8 text; allowed: "
                             "keys in UTF-8\n");
    free(out);
    free(err);
}
END_TEST

/* Defect 4: empty keys were silently accepted ("." made a key ""). */
START_TEST(test_set_empty_key)
{
    char *m = set_errors((const char *const[]){".=1", "a..b=1", "clock.=1", "=1", NULL});
    ck_assert_str_eq(m, "test.json: --set .=1: key 1 of 2 in the path is empty; allowed: "
                        "non-empty keys joined by single dots, e.g. topology.dim=6\n"
                        "test.json: --set a..b=1: key 2 of 3 in the path is empty; allowed: "
                        "non-empty keys joined by single dots, e.g. topology.dim=6\n"
                        "test.json: --set clock.=1: key 2 of 2 in the path is empty; allowed: "
                        "non-empty keys joined by single dots, e.g. topology.dim=6\n"
                        "test.json: --set =1: expected PATH=VALUE, e.g. topology.dim=6\n");
    free(m);
}
END_TEST

/* "x" and n - 1 times ".a" = "=" value. */
static char *deep_set(size_t n, const char *value)
{
    char *s = malloc(2 * n + strlen(value) + 2);
    ck_assert_ptr_nonnull(s);
    char *p = s;
    *p++ = 'x';
    for (size_t i = 1; i < n; i++) {
        *p++ = '.';
        *p++ = 'a';
    }
    sprintf(p, "=%s", value);
    return s;
}

/* The document after the overrides, dumped and read back by jansson: is it within
 * jansson's nesting limit? Returns the config errors, the document in *doc. */
static char *set_document(const char *set, int *reloads)
{
    hm__config_t cfg;
    char *const sets[] = {(char *)set};
    hm__config_load_string(&cfg, "test.json", Q4_TEXT, sets, 1);
    char *text = json_dumps(cfg.root, 0);
    ck_assert_ptr_nonnull(text);
    json_error_t je;
    json_t *back = json_loads(text, 0, &je);
    *reloads = back != NULL;
    json_decref(back);
    free(text);
    size_t len = 1;
    for (size_t i = 0; i < cfg.nerrors; i++)
        len += strlen(cfg.errors[i]) + 1;
    char *m = calloc(1, len);
    for (size_t i = 0; i < cfg.nerrors; i++) {
        strcat(m, cfg.errors[i]);
        strcat(m, "\n");
    }
    hm__config_free(&cfg);
    return m;
}

/* Defect 4: a path of 40,000 keys overflowed the stack (jansson's dump and free
 * recurse once per level). --set keeps within jansson's own limit of 2048 levels:
 * what it builds, jansson reads back. */
START_TEST(test_set_depth_limit)
{
    int reloads;
    /* 2047 keys and a scalar: the value is level 2048, the deepest jansson reads. */
    char *set = deep_set(2047, "1");
    char *m = set_document(set, &reloads);
    ck_assert_str_eq(m,
                     "test.json: x: unknown key; allowed keys: topology, ports, mailbox, "
                     "contention, algorithm, clock, seed, stack_kib, output, plugins, sandbox\n");
    ck_assert_int_eq(reloads, 1);
    free(m);
    free(set);
    /* 2046 keys and [1]: 2048 again. */
    set = deep_set(2046, "[1]");
    m = set_document(set, &reloads);
    ck_assert_int_eq(reloads, 1);
    free(m);
    free(set);
    /* One level more is refused, and the document stays as jansson read it. */
    set = deep_set(2047, "[1]");
    m = set_document(set, &reloads);
    ck_assert_str_eq(m, "test.json: --set x.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a."
                        "a.a.a.a....: found a path of 2047 keys and a value 2 levels deep; "
                        "allowed: at most 2048 levels in all (jansson's limit)\n");
    ck_assert_int_eq(reloads, 1);
    free(m);
    free(set);
    set = deep_set(2048, "1");
    m = set_document(set, &reloads);
    ck_assert_str_eq(m, "test.json: --set x.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a."
                        "a.a.a.a....: found a path of 2048 keys; allowed: at most 2047 keys, "
                        "fewer for a nested value (2048 levels in all, jansson's limit)\n");
    free(m);
    free(set);

    /* The reproducer: seed.a.a... with 40,000 components, through the program. */
    char *big = malloc(4 + 2 * 40000 + 3);
    strcpy(big, "seed");
    for (int i = 0; i < 40000; i++)
        strcat(big + 4 + 2 * i, ".a");
    strcat(big, "=1");
    char *out, *err;
    ck_assert_int_eq(hm_t_exec(NULL, &out, &err, (const char *[]){"--set", big, RH, NULL}), 2);
    ck_assert_str_eq(out, "");
    ck_assert_str_eq(err, RH ": --set seed.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a."
                             "a.a.a...: found a path of 40001 keys; allowed: at most 2047 keys, "
                             "fewer for a nested value (2048 levels in all, jansson's limit)\n");
    free(out);
    free(err);
    free(big);
}
END_TEST

/* Defect 5: costs and max_slots beyond what 64-bit slot counts hold were accepted;
 * a = 1e18 ran "verified" in 264 slots (the cost wrapped). */
START_TEST(test_cost_and_clock_ranges)
{
    static const struct {
        const char *set, *err;
    } bad[] = {
        {"ports.cost.a=1e18", "ports.cost.a: found 1e18; allowed: a number from 0 to 1048576"},
        {"ports.cost.b=1e308",
         "ports.cost.b: found 1e308; allowed: a number from 0 to 1099511627776"},
        {"ports.cost.rho=1e308", "ports.cost.rho: found 1e308; allowed: a number from 0 to "
                                 "1048576"},
        {"ports.cost.abar=1048577",
         "ports.cost.abar: found 1048577; allowed: a number from 0 to 1048576"},
        {"ports.cost.a=-0.5", "ports.cost.a: found -0.5; allowed: a number from 0 to 1048576"},
        {"clock.max_slots=1099511627777",
         "clock.max_slots: found 1099511627777; allowed: an integer from 1 to 1099511627776"},
        {"clock.max_slots=9223372036854775807",
         "clock.max_slots: found 9223372036854775807; allowed: an integer from 1 to "
         "1099511627776"},
        {"clock.slot_timeout=-1", "clock.slot_timeout: found -1; allowed: a number from 0 to "
                                  "86400"},
        {"clock.slot_timeout=86401", "clock.slot_timeout: found 86401; allowed: a number from 0 "
                                     "to 86400"},
        {"clock.slot_timeout=\"1s\"", "clock.slot_timeout: found \"1s\"; allowed: a number "
                                      "from 0 to 86400"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *out, *err, want[256];
        ck_assert_int_eq(
            hm_t_exec(NULL, &out, &err, (const char *[]){"--set", bad[i].set, RH, NULL}), 2);
        snprintf(want, sizeof want, RH ": %s\n", bad[i].err);
        ck_assert_str_eq(err, want);
        ck_assert_str_eq(out, "");
        free(out);
        free(err);
    }
    /* a = abar x link_capacity when a is not given: abar may be in range, a not. */
    char *out, *err;
    ck_assert_int_eq(hm_t_exec(NULL, &out, &err,
                               (const char *[]){"--validate", "--set", "ports.link_capacity=1024",
                                                "--set", "ports.cost={\"abar\":1025}", RH, NULL}),
                     2);
    ck_assert_str_eq(err, RH ": ports.cost.abar: found 1025, making a = abar x link_capacity = "
                             "1049600; allowed: abar x link_capacity from 0 to 1048576\n");
    free(out);
    free(err);

    /* The largest values are legal and run to a truthful end: b = 2^40 makes the
     * first message outlast max_slots, the run stops with exit 3, not "verified". */
    hm_trun_t r = hm_t_run("{\"topology\":{\"kind\":\"linear\",\"nodes\":4},"
                           "\"ports\":{\"cost\":{\"a\":1048576,\"b\":1099511627776,"
                           "\"rho\":1048576}},\"clock\":{\"max_slots\":1099511627776},"
                           "\"algorithm\":{\"name\":\"st-broadcast\",\"message_bytes\":16}}",
                           NULL);
    ck_assert_int_eq(r.rc, 3);
    ck_assert_int_eq(hm_t_int(&r, "verified"), 0);
    ck_assert_int_eq(hm_t_bound(&r, "bound"), 2 * (16 * INT64_C(1048576) + INT64_C(1099511627776)));
    hm_t_free(&r);
    /* And at the edge a = 2^20 with a small message completes exactly: one message of
     * 16 bytes costs 16 * 2^20 + 20 slots, two such steps on 4 nodes. */
    r = hm_t_run("{\"topology\":{\"kind\":\"linear\",\"nodes\":4},"
                 "\"ports\":{\"cost\":{\"a\":1048576,\"b\":20}},"
                 "\"algorithm\":{\"name\":\"st-broadcast\",\"message_bytes\":16}}",
                 (const char *const[]){"clock.max_slots=1099511627776", NULL});
    ck_assert_int_eq(r.rc, 0);
    ck_assert_int_eq(hm_t_int(&r, "completion_slots"), 2 * (16 * 1048576 + 20));
    ck_assert_int_eq(hm_t_bound(&r, "bound"), 2 * (16 * 1048576 + 20));
    hm_t_free(&r);
}
END_TEST

/* Defect 5, the trace writer: slot * 1000 overflowed for slots past INT64_MAX / 1000
 * and wrote wrapped times. The digits stay exact. */
START_TEST(test_trace_huge_slots)
{
    hm__outcome_t o;
    memset(&o, 0, sizeof o);
    o.algorithm = "test";
    o.info.nodes = 2;
    o.info.topology = HM_TOPO_LINEAR;
    hm__event_t ev[] = {{.slot = INT64_C(10000000000000000),
                         .node = 0,
                         .kind = HM__EV_BUSY,
                         .dur = INT64_C(9000000000000000)},
                        {.slot = INT64_C(9223372036854775807),
                         .node = 1,
                         .kind = HM__EV_RECV,
                         .peer = 0,
                         .port = 0,
                         .msg = 1,
                         .dur = 2}};
    o.timeline.ev = ev;
    o.timeline.n = 2;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ck_assert_int_eq(hm__write_trace(&o, f), 0);
    fclose(f);
    ck_assert_msg(strstr(text, "\"ts\":10000000000000000000,\"dur\":9000000000000000000,"
                               "\"name\":\"busy\"") != NULL,
                  "%s", text);
    ck_assert_msg(strstr(text, "\"ts\":9223372036854775806000,\"dur\":2000,\"name\":\"recv msg "
                               "1\"") != NULL,
                  "%s", text);
    /* The times are numbers JSON readers take (as reals past 2^63). */
    json_error_t je;
    json_t *j = json_loads(text, JSON_DECODE_INT_AS_REAL, &je);
    ck_assert_msg(j != NULL, "%s: %s", je.text, text);
    json_decref(j);
    free(text);
}
END_TEST

/* Run the program with stdout on /dev/full; returns the exit code, stderr in *err. */
static int exec_to_full(char **err, const char *const *args)
{
    char errpath[] = "/tmp/hypemu-err-XXXXXX";
    int efd = mkstemp(errpath);
    ck_assert(efd >= 0);
    pid_t pid = fork();
    ck_assert(pid >= 0);
    if (pid == 0) {
        int full = open("/dev/full", O_WRONLY);
        if (full < 0 || chdir(HM_SRCDIR) != 0)
            _exit(126);
        dup2(full, 1);
        dup2(efd, 2);
        char *argv[16] = {HM_BUILDDIR "/hypemu"};
        for (int i = 0; args[i] && i < 14; i++)
            argv[i + 1] = (char *)args[i];
        execv(argv[0], argv);
        _exit(127);
    }
    int st;
    waitpid(pid, &st, 0);
    close(efd);
    *err = hm_t_slurp(errpath, NULL);
    unlink(errpath);
    ck_assert_msg(WIFEXITED(st), "hypemu died of signal %d", WTERMSIG(st));
    return WEXITSTATUS(st);
}

/* Defect 9: a run to /dev/full exited 4 with no message; --validate, --list,
 * --help, --version to /dev/full exited 0. */
START_TEST(test_stdout_write_error)
{
    if (access("/dev/full", W_OK) != 0)
        return; /* not Linux: nothing to write to that always fails */
    static const char *const cases[][6] = {
        {"--help", NULL},
        {"--version", NULL},
        {"--list", NULL},
        {"--validate", Q4, NULL},
        {"--set", "output=null", Q4, NULL},
        {"--json", "--set", "output=null", Q4, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *err;
        ck_assert_int_eq(exec_to_full(&err, cases[i]), 4);
        ck_assert_str_eq(err, "hypemu: cannot write standard output: No space left on device\n");
        free(err);
    }
    /* A run that stops early says why, then that its summary is lost: exit 4. */
    char *err;
    ck_assert_int_eq(exec_to_full(&err, (const char *[]){"--set", "output=null", "--set",
                                                         "clock.max_slots=20", Q4, NULL}),
                     4);
    ck_assert_str_eq(err, "hypemu: clock.max_slots = 20 reached: the next slot with work is 20, "
                          "with 16 of 16 nodes still running\n"
                          "hypemu: cannot write standard output: No space left on device\n");
    free(err);
}
END_TEST

/* Defect 9: the config path. A directory was "invalid JSON"; ENAMETOOLONG and ELOOP
 * exited 4 (system error) though the path is the user's mistake. */
START_TEST(test_config_path_errors)
{
    char *tmp = hm_t_tmpdir();
    char *out, *err;
    ck_assert_int_eq(hm_t_exec(NULL, &out, &err, (const char *[]){"configs", NULL}), 2);
    ck_assert_str_eq(err, "configs: cannot open: Is a directory; allowed: a JSON file\n");
    free(out);
    free(err);

    char loop[512];
    snprintf(loop, sizeof loop, "%s/loop.json", tmp);
    ck_assert_int_eq(symlink("loop.json", loop), 0);
    ck_assert_int_eq(hm_t_exec(tmp, &out, &err, (const char *[]){"loop.json", NULL}), 2);
    ck_assert_str_eq(err, "loop.json: cannot open: Too many levels of symbolic links\n");
    free(out);
    free(err);

    char *lng = malloc(5001);
    memset(lng, 'n', 5000);
    lng[5000] = 0;
    ck_assert_int_eq(hm_t_exec(tmp, &out, &err, (const char *[]){lng, NULL}), 2);
    char want[5100];
    snprintf(want, sizeof want, "%s: cannot open: File name too long\n", lng);
    ck_assert_str_eq(err, want);
    free(out);
    free(err);
    free(lng);
    hm_t_rmtree(tmp);
}
END_TEST

/* Defect 9: outputs naming one file silently kept the last writer's. */
START_TEST(test_outputs_one_file)
{
    char *tmp = hm_t_tmpdir();
    char *out, *err;
    ck_assert_int_eq(hm_t_exec(tmp, &out, &err,
                               (const char *[]){"--set", "output.timeline=run.out", "--set",
                                                "output.trace=./run.out", "--set",
                                                "output.events=run.out", HM_SRCDIR "/" Q4, NULL}),
                     2);
    ck_assert_str_eq(out, "");
    ck_assert_str_eq(err,
                     HM_SRCDIR "/" Q4 ": output.trace: found \"./run.out\", the same file as "
                               "output.timeline (\"run.out\"); allowed: a file no other "
                               "output writes (devices such as /dev/null may be shared)\n" HM_SRCDIR
                               "/" Q4 ": output.events: found \"run.out\", the same file as "
                               "output.timeline (\"run.out\"); allowed: a file no other "
                               "output writes (devices such as /dev/null may be shared)\n");
    free(out);
    free(err);
    /* A symbolic link to an existing output is the same file too. */
    char path[512];
    snprintf(path, sizeof path, "%s/t.json", tmp);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fclose(f);
    snprintf(path, sizeof path, "%s/link.json", tmp);
    ck_assert_int_eq(symlink("t.json", path), 0);
    ck_assert_int_eq(hm_t_exec(tmp, &out, &err,
                               (const char *[]){"--validate", "--set", "output=null", "--set",
                                                "output.trace=t.json", "--set",
                                                "output.events=link.json", HM_SRCDIR "/" Q4, NULL}),
                     2);
    ck_assert_str_eq(err, HM_SRCDIR "/" Q4 ": output.events: found \"link.json\", the same file "
                                    "as output.trace (\"t.json\"); allowed: a file no other "
                                    "output writes (devices such as /dev/null may be shared)\n");
    free(out);
    free(err);
    /* /dev/null for all three is fine. */
    ck_assert_int_eq(hm_t_exec(tmp, &out, &err,
                               (const char *[]){"--validate", "--set", "output.timeline=/dev/null",
                                                "--set", "output.trace=/dev/null", "--set",
                                                "output.events=/dev/null", HM_SRCDIR "/" Q4, NULL}),
                     0);
    free(out);
    free(err);
    hm_t_rmtree(tmp);
}
END_TEST

/* ---- the output budget (output.max_bytes, README "Output budget") ------------------ */

/* Size of dir/name, -1 if there is no such file. */
static long file_size(const char *dir, const char *name)
{
    char path[512];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

/* The Q_4 successive broadcasts' timeline, events and trace take 26602 + 46896 +
 * 121446 = 194944 bytes, and the estimate is exact: one byte less is refused with
 * every output named, nothing is written and the previous file stays; the exact
 * budget writes all three, at the sizes estimated. */
START_TEST(test_output_budget)
{
    char *tmp = hm_t_tmpdir();
    char path[512], *out, *err;
    snprintf(path, sizeof path, "%s/q4_successive.events.jsonl", tmp);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("previous\n", f);
    fclose(f);
    ck_assert_int_eq(
        hm_t_exec(tmp, &out, &err,
                  (const char *[]){"--set", "output.max_bytes=194943", HM_SRCDIR "/" Q4, NULL}),
        4);
    ck_assert_str_eq(
        err, "hypemu: outputs not written: they would take about 190.4 KiB (194944 bytes), more "
             "than output.max_bytes = 190.4 KiB (194943 bytes):\n"
             "  output.timeline (q4_successive.timeline.txt): about 26.0 KiB (26602 bytes)\n"
             "  output.events (q4_successive.events.jsonl): about 45.8 KiB (46896 bytes)\n"
             "  output.trace (q4_successive.trace.json): about 118.6 KiB (121446 bytes)\n"
             "raise the budget with --set output.max_bytes=BYTES (0: no limit), or ask for fewer "
             "outputs (output.nodes narrows the timeline)\n");
    ck_assert_ptr_nonnull(strstr(out, "\nverified           true\n"));
    ck_assert_ptr_nonnull(strstr(out, "\nexit_code          4\n"));
    ck_assert_int_eq(file_size(tmp, "q4_successive.timeline.txt"), -1);
    ck_assert_int_eq(file_size(tmp, "q4_successive.trace.json"), -1);
    ck_assert_int_eq(file_size(tmp, "q4_successive.events.jsonl"), 9);
    free(out);
    free(err);
    ck_assert_int_eq(
        hm_t_exec(tmp, &out, &err,
                  (const char *[]){"--set", "output.max_bytes=194944", HM_SRCDIR "/" Q4, NULL}),
        0);
    ck_assert_str_eq(err, "");
    ck_assert_int_eq(file_size(tmp, "q4_successive.timeline.txt"), 26602);
    ck_assert_int_eq(file_size(tmp, "q4_successive.events.jsonl"), 46896);
    ck_assert_int_eq(file_size(tmp, "q4_successive.trace.json"), 121446);
    free(out);
    free(err);
    /* A device costs nothing: the events to /dev/null leave the other two in budget. */
    ck_assert_int_eq(hm_t_exec(tmp, &out, &err,
                               (const char *[]){"--set", "output.max_bytes=148048", "--set",
                                                "output.events=/dev/null", HM_SRCDIR "/" Q4, NULL}),
                     0);
    free(out);
    free(err);
    /* The range: an integer from 0 (no limit) to 2^62. */
    ck_assert_int_eq(hm_t_exec(tmp, &out, &err,
                               (const char *[]){"--validate", "--set", "output.max_bytes=-1",
                                                HM_SRCDIR "/" Q4, NULL}),
                     2);
    ck_assert_str_eq(err, HM_SRCDIR "/" Q4 ": output.max_bytes: found -1; allowed: an integer "
                                    "from 0 to 4611686018427387904\n");
    free(out);
    free(err);
    hm_t_rmtree(tmp);
}
END_TEST

/* The reproducers of the unbounded timeline: a run of idle or busy slots is one
 * column, so the file follows the events, not the slots. configs/linear_rh.json with
 * a = 1000 takes 752,416 slots: its timeline was 15 MB and is 17,628 bytes; the 4x4
 * mesh under a huge rho stops at clock.max_slots (exit 3) with a 617-byte timeline
 * that shows one busy period of 268,435,456 slots, and a summary whose
 * completion_slots is the 10^8 of clock.max_slots, not the busy period's end. */
START_TEST(test_timeline_folds_idle_slots)
{
    char *tmp = hm_t_tmpdir();
    char *out, *err;
    ck_assert_int_eq(
        hm_t_exec(tmp, &out, &err,
                  (const char *[]){"--set", "output=null", "--set", "ports.cost.a=1000", "--set",
                                   "output.timeline=t.txt", HM_SRCDIR "/" RH, NULL}),
        0);
    ck_assert_ptr_nonnull(strstr(out, "\ncompletion_slots   752416\n"));
    ck_assert_int_eq(file_size(tmp, "t.txt"), 17628);
    free(out);
    free(err);
    char path[512];
    snprintf(path, sizeof path, "%s/t.txt", tmp);
    char *t = hm_t_slurp(path, NULL);
    ck_assert_ptr_nonnull(
        strstr(t, "    ~ at column 1: slots 256..128275 (128020 identical slots)\n"));
    free(t);
    ck_assert_int_eq(
        hm_t_exec(tmp, &out, &err,
                  (const char *[]){"--set", "output=null", "--set", "topology.cols=4", "--set",
                                   "ports.cost.rho=1048576", "--set", "output.timeline=m.txt",
                                   "--set", "output.events=m.jsonl",
                                   HM_SRCDIR "/configs/mesh_rh.json", NULL}),
        3);
    /* The summary stops at the bound too: completion_slots is clock.max_slots. */
    ck_assert_ptr_nonnull(strstr(out, "\ncompletion_slots   100000000\n"));
    ck_assert_int_eq(file_size(tmp, "m.txt"), 617);
    ck_assert_int_eq(file_size(tmp, "m.jsonl"), 53);
    snprintf(path, sizeof path, "%s/m.txt", tmp);
    t = hm_t_slurp(path, NULL);
    ck_assert_ptr_nonnull(strstr(t, "   0  #\n1-15  .\n    ~ at column 0: slots 0..268435455 "
                                    "(268435456 identical slots)\n"));
    free(t);
    free(out);
    free(err);
    hm_t_rmtree(tmp);
}
END_TEST

/* ---- --validate and the host's thread limit (README "Many nodes") ---------------- */

static void put_file(const char *dir, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

/* A fake /proc (HYPEMU_PROC) with 1000 tasks on the host, the given kernel.pid_max and
 * MemAvailable, and room enough elsewhere; its directory. */
static char *fake_proc(const char *pid_max, const char *meminfo)
{
    char *proc = hm_t_tmpdir();
    char path[512];
    const char *dirs[] = {"sys", "sys/kernel", "sys/vm", "self"};
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
        snprintf(path, sizeof path, "%s/%s", proc, dirs[i]);
        ck_assert_int_eq(mkdir(path, 0700), 0);
    }
    put_file(proc, "sys/kernel/pid_max", pid_max);
    put_file(proc, "sys/kernel/threads-max", "100000000\n");
    put_file(proc, "sys/vm/max_map_count", "100000000\n");
    put_file(proc, "loadavg", "0.00 0.00 0.00 1/1000 4242\n");
    put_file(proc, "meminfo", meminfo);
    put_file(proc, "self/maps", "a\nb\n");
    put_file(proc, "self/status", "Name:\thypemu\nThreads:\t1\n");
    ck_assert_int_eq(setenv("HYPEMU_PROC", proc, 1), 0);
    return proc;
}

/* What --validate says of a run of `nodes` threads on fake_proc's host with `mem`
 * kB available: nothing, the memory (34 KiB a thread), or, where this process's
 * ulimit -u (not raised past its hard limit; root is exempt) is the first short, that. */
static void expect_thread_warning(char *buf, size_t len, const char *file, long nodes, long mem)
{
    struct rlimit rl;
    long room = mem * 1024 / (34 * 1024);
    const char *lim = "memory (MemAvailable, kB)", *fix = "fewer nodes or a smaller stack";
    char used[64] = "about 34 kB a thread";
    long value = mem;
    if (getrlimit(RLIMIT_NPROC, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && geteuid() != 0 &&
        (long)rl.rlim_cur - 1 < nodes) {
        lim = "RLIMIT_NPROC (ulimit -u)";
        fix = "ulimit -u ...";
        snprintf(used, sizeof used, "1 threads in this process");
        value = (long)rl.rlim_cur;
        room = value - 1;
    } else if (room >= nodes) {
        buf[0] = '\0';
        return;
    }
    snprintf(buf, len,
             "hypemu: %s: warning: the run needs %ld threads (one per node), more than the host "
             "allows now: the host limit reached is %s = %ld (%s, room for about %ld more "
             "threads; raise it: %s, see README \"Many nodes\")\n",
             file, nodes, lim, value, used, room, fix);
}

/* Machines past the old ceiling of 65,536 nodes (README "Many nodes", doc/config.md "Config
 * ranges"): on a host with room (fake_proc: 32 GB available), --validate accepts a 17-cube (131,072
 * node threads, not run) and warns of a 20-cube (1,048,576 threads: more than 32 GB at
 * 34 KiB a thread) naming the memory; dim 25, a ring of 2^24 + 1 nodes and a 4097 x 4097
 * mesh are config errors (exit 2); an allgather on a ring of 2^22 nodes is refused with
 * its memory estimate (p^2 * block * 16 bytes) against the host's. */
START_TEST(test_validate_large_machines)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NPROC, &rl) == 0 && rl.rlim_cur != rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NPROC, &rl);
    }
    char *proc = fake_proc("4194304\n", "MemTotal: 64000000 kB\nMemAvailable: 32000000 kB\n");
    const char *cfg = HM_SRCDIR "/configs/q4_sbt_broadcast.json";
    char *out, *err, want[1024];
    ck_assert_int_eq(
        hm_t_exec(NULL, &out, &err,
                  (const char *[]){"--validate", "--set", "topology.dim=17", cfg, NULL}),
        0);
    expect_thread_warning(want, sizeof want, cfg, 131072, 32000000);
    ck_assert_str_eq(err, want);
    ck_assert_str_eq(out, HM_SRCDIR "/configs/q4_sbt_broadcast.json: valid (sbt-broadcast on "
                                    "hypercube, 131072 nodes, shout ports)\n");
    free(out);
    free(err);
    ck_assert_int_eq(
        hm_t_exec(NULL, &out, &err,
                  (const char *[]){"--validate", "--set", "topology.dim=20", cfg, NULL}),
        0);
    expect_thread_warning(want, sizeof want, cfg, 1048576, 32000000);
    ck_assert_str_eq(want, err);
    ck_assert_ptr_nonnull(strstr(want, "1048576 threads"));
    free(out);
    free(err);
    unsetenv("HYPEMU_PROC");
    hm_t_rmtree(proc);

    static const struct {
        const char *text, *want;
    } bad[] = {
        {"{\"topology\":{\"kind\":\"hypercube\",\"dim\":25},\"algorithm\":{\"name\":\"sbt-"
         "broadcast\"}}",
         "topology.dim: found 25; allowed: an integer from 0 to 24"},
        {"{\"topology\":{\"kind\":\"ring\",\"nodes\":16777217},\"algorithm\":{\"name\":"
         "\"allgather-ring\"}}",
         "topology.nodes: found 16777217; allowed: an integer from 1 to 16777216"},
        {"{\"topology\":{\"kind\":\"mesh\",\"rows\":4097,\"cols\":4097},\"algorithm\":{"
         "\"name\":\"st-broadcast\"}}",
         "topology: found 4097 x 4097 = 16785409 nodes; allowed: at most 16777216 nodes"},
    };
    char *dir = hm_t_tmpdir(), path[512], line[1200];
    snprintf(path, sizeof path, "%s/big.json", dir);
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        put_file(dir, "big.json", bad[i].text);
        ck_assert_int_eq(hm_t_exec(NULL, &out, &err, (const char *[]){"--validate", path, NULL}),
                         2);
        snprintf(line, sizeof line, "%s: %s\n", path, bad[i].want);
        ck_assert_str_eq(err, line);
        free(out);
        free(err);
    }
    put_file(dir, "big.json",
             "{\"topology\":{\"kind\":\"ring\",\"nodes\":4194304},\"ports\":{\"model\":"
             "\"all-port\"},\"algorithm\":{\"name\":\"allgather-ring\"}}");
    ck_assert_int_eq(hm_t_exec(NULL, &out, &err, (const char *[]){"--validate", path, NULL}), 2);
    double host = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    snprintf(line, sizeof line,
             "hypemu: %s: algorithm.block: found 1 (allgather holds p * block = 4194304 values "
             "per node: about 268435456 MiB in all); allowed: a block whose results fit the "
             "host's memory (%.0f MiB)\n",
             path, host / 1048576.0);
    ck_assert_str_eq(err, line);
    free(out);
    free(err);
    hm_t_rmtree(dir);
}
END_TEST

/* A host whose kernel.pid_max is 5000 with 1000 tasks running (HYPEMU_PROC: a fake
 * /proc) has room for 4000 threads: --validate of Q_12 (4096 node threads) warns and
 * names the limit with its value; Q_11 (2048) does not; both are valid (exit 0). */
START_TEST(test_validate_thread_limit)
{
    char *proc = fake_proc("5000\n", "MemTotal: 64000000 kB\nMemAvailable: 32000000 kB\n");
    char *out, *err;
    ck_assert_int_eq(hm_t_exec(NULL, &out, &err,
                               (const char *[]){"--validate", "--set", "topology.dim=12",
                                                HM_SRCDIR "/" Q4, NULL}),
                     0);
    ck_assert_str_eq(err, "hypemu: " HM_SRCDIR "/" Q4 ": warning: the run needs 4096 threads "
                          "(one per node), more than the host allows now: the host limit "
                          "reached is kernel.pid_max = 5000 (1000 tasks on the host, room for "
                          "about 4000 more threads; raise it: sysctl -w kernel.pid_max=4194304, "
                          "see README \"Many nodes\")\n");
    ck_assert_str_eq(out, HM_SRCDIR "/" Q4 ": valid (successive-broadcast on hypercube, 4096 "
                                    "nodes, shout ports)\n");
    free(out);
    free(err);
    ck_assert_int_eq(hm_t_exec(NULL, &out, &err,
                               (const char *[]){"--validate", "--set", "topology.dim=11",
                                                HM_SRCDIR "/" Q4, NULL}),
                     0);
    ck_assert_str_eq(err, "");
    free(out);
    free(err);
    unsetenv("HYPEMU_PROC");
    hm_t_rmtree(proc);
}
END_TEST

/* ---- the rules of the node API (README "Rules of the node API") ------------------------ */

#define CUBE3                                                                                      \
    "{\"topology\":{\"kind\":\"hypercube\",\"dim\":3},\"ports\":{\"model\":\"all-port\"},"         \
    "\"algorithm\":{\"name\":\"sbt-broadcast\"}}"

/* A run of CUBE3 with node program fn: exit 5, "end": "rules", the message. */
static void expect_rules(void (*fn)(hm_node_t *, void *), const char *message)
{
    hm_algorithm_t a = hm_t_algo(fn, hm_t_verify_ok);
    hm_trun_t r = hm_t_run_algo(CUBE3, &a);
    ck_assert_int_eq(r.rc, 5);
    ck_assert_str_eq(r.message, message);
    ck_assert_str_eq(hm_t_str(&r, "end"), "rules");
    ck_assert_str_eq(hm_t_str(&r, "stopped"), message);
    ck_assert_int_eq(hm_t_int(&r, "exit_code"), 5);
    ck_assert_int_eq(hm_t_int(&r, "verified"), 0);
    hm_t_free(&r);
}

static hm_node_t *_Atomic node0; /* node 0's handle, for the programs that misuse it */

/* Node 1 stores with node 0's handle in slot 1. */
static void store_foreign(hm_node_t *n, void *s)
{
    (void)s;
    if (hm_id(n) == 0)
        atomic_store(&node0, n);
    if (hm_next_slot(n) != HM_OK)
        return;
    if (hm_id(n) == 1) {
        hm_store(node0, 5);
        /* The run is stopping: the next wait says so at once. */
        ck_assert_int_eq(hm_next_slot(n), HM_EABORT);
        return;
    }
    hm_wait_packet(n, NULL);
}

/* Node 2 sends with node 0's handle in slot 0: the call changes nothing. */
static void send_foreign(hm_node_t *n, void *s)
{
    (void)s;
    if (hm_id(n) == 0)
        atomic_store(&node0, n);
    if (hm_next_slot(n) != HM_OK)
        return;
    if (hm_id(n) == 2) {
        hm_packet_t p = {.msg = 1};
        ck_assert_int_eq(hm_send(node0, 0, &p), HM_EABORT);
    }
    hm_next_slot(n);
}

static void null_handle(hm_node_t *n, void *s)
{
    (void)s;
    if (hm_id(n) == 2)
        ck_assert_int_eq(hm_now(NULL), HM_EABORT);
    hm_next_slot(n);
}

/* A thread of node 0's program calls every function of the node API with node 0's
 * handle: each refuses (HM_EABORT, NULL, nothing) and the first stops the run. */
static void *every_call(void *arg)
{
    hm_node_t *n = arg;
    hm_packet_t p = {.msg = 1};
    size_t count = 9;
    ck_assert_int_eq(hm_send(n, 0, &p), HM_EABORT);
    ck_assert_int_eq(hm_send_to(n, 1, &p), HM_EABORT);
    ck_assert_int_eq(hm_shout(n, 1, &p), HM_EABORT);
    ck_assert_int_eq(hm_shout_all(n, &p), HM_EABORT);
    ck_assert_int_eq(hm_recv(n, &p), HM_EABORT);
    ck_assert_int_eq(hm_pending(n), HM_EABORT);
    ck_assert_int_eq(hm_wait_packet(n, &p), HM_EABORT);
    ck_assert_int_eq(hm_wait_packet_until(n, &p, 5), HM_EABORT);
    ck_assert_int_eq(hm_wait_until(n, 5), HM_EABORT);
    ck_assert_int_eq(hm_next_slot(n), HM_EABORT);
    ck_assert_int_eq(hm_busy(n, 2), HM_EABORT);
    ck_assert_int_eq(hm_id(n), HM_EABORT);
    ck_assert_int_eq(hm_nodes(n), HM_EABORT);
    ck_assert_int_eq(hm_degree(n), HM_EABORT);
    /* These three answer -1, "none": they return no abort code. */
    ck_assert_int_eq(hm_neighbor(n, 0), -1);
    ck_assert_int_eq(hm_port_to(n, 1), -1);
    ck_assert_int_eq(hm_root(n), -1);
    ck_assert_int_eq(hm_now(n), HM_EABORT);
    ck_assert_ptr_null(hm_state(n));
    ck_assert_ptr_null(hm_out(n));
    ck_assert_ptr_null(hm_input(n, &count));
    ck_assert_uint_eq(count, 0);
    hm_store(n, 1);
    hm_log(n, "x");
    hm_fail(n, "x");
    return NULL;
}

static void from_thread(hm_node_t *n, void *s)
{
    (void)s;
    if (hm_id(n) == 0) {
        pthread_t t;
        ck_assert_int_eq(pthread_create(&t, NULL, every_call, n), 0);
        pthread_join(t, NULL);
    }
    hm_next_slot(n);
}

/* Node 3 leaves its thread in slot 2; the others wait for packets that never come. */
static void leaves(hm_node_t *n, void *s)
{
    (void)s;
    if (hm_wait_until(n, 2) != HM_OK)
        return;
    if (hm_id(n) == 3)
        pthread_exit(NULL);
    hm_wait_packet(n, NULL);
}

START_TEST(test_rules_handles)
{
    expect_rules(store_foreign, "node 1: hm_store called with the handle of node 0");
    expect_rules(send_foreign, "node 2: hm_send called with the handle of node 0");
    expect_rules(null_handle, "node 2: hm_now called with a null handle");
    expect_rules(from_thread,
                 "hm_send called from a thread that is not a node thread (node 0's handle)");
    expect_rules(leaves, "node 3 called pthread_exit in slot 2: a node program ends by "
                         "returning from its node_main");
}
END_TEST

/* Under every clock mode: the same stop, no hang. */
START_TEST(test_rules_modes)
{
    static const char *const modes[] = {"clock.mode=\"local\"", "clock.mode=\"free\""};
    for (size_t i = 0; i < 2; i++) {
        hm_algorithm_t a = hm_t_algo(leaves, hm_t_verify_ok);
        char cfg[512];
        snprintf(cfg, sizeof cfg,
                 "{\"topology\":{\"kind\":\"hypercube\",\"dim\":3},\"clock\":{\"mode\":%s},"
                 "\"algorithm\":{\"name\":\"sbt-broadcast\"}}",
                 strchr(modes[i], '=') + 1);
        hm_trun_t r = hm_t_run_algo(cfg, &a);
        ck_assert_int_eq(r.rc, 5);
        ck_assert_str_eq(r.message, "node 3 called pthread_exit in slot 2: a node program ends "
                                    "by returning from its node_main");
        hm_t_free(&r);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("robust");
    TCase *set = tcase_create("set");
    tcase_add_test(set, test_set_key_not_utf8);
    tcase_add_test(set, test_set_empty_key);
    tcase_add_test(set, test_set_depth_limit);
    tcase_set_timeout(set, 60);
    suite_add_tcase(s, set);
    TCase *ranges = tcase_create("ranges");
    tcase_add_test(ranges, test_cost_and_clock_ranges);
    tcase_add_test(ranges, test_trace_huge_slots);
    tcase_set_timeout(ranges, 60);
    suite_add_tcase(s, ranges);
    TCase *io = tcase_create("io");
    tcase_add_test(io, test_stdout_write_error);
    tcase_add_test(io, test_config_path_errors);
    tcase_add_test(io, test_outputs_one_file);
    tcase_add_test(io, test_output_budget);
    tcase_add_test(io, test_timeline_folds_idle_slots);
    tcase_add_test(io, test_validate_thread_limit);
    tcase_add_test(io, test_validate_large_machines);
    tcase_set_timeout(io, 60);
    suite_add_tcase(s, io);
    TCase *rules = tcase_create("rules");
    tcase_add_test(rules, test_rules_handles);
    tcase_add_test(rules, test_rules_modes);
    tcase_set_timeout(rules, 60);
    suite_add_tcase(s, rules);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
