/* SPDX-License-Identifier: MIT */
/*
 * check_config.c — the config of doc/config.md: defaults, --set, and errors that
 * name the file, the JSON path, what was found and what is allowed.
 */
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

static char *errors_of(const char *text, const char *const *sets)
{
    hm_trun_t r = hm_t_run(text, sets);
    ck_assert_int_eq(r.rc, 2);
    char *m = r.message;
    r.message = NULL;
    hm_t_free(&r);
    return m;
}

START_TEST(test_minimal_config_defaults)
{
    /* Only topology and algorithm are required; successive-broadcast's paper model,
     * shout, is the default port model. */
    hm_trun_t r = hm_t_run("{\"topology\":{\"kind\":\"hypercube\",\"dim\":3},"
                           "\"algorithm\":{\"name\":\"successive-broadcast\"}}",
                           NULL);
    ck_assert_int_eq(r.rc, 0);
    ck_assert_str_eq(hm_t_str(&r, "ports"), "shout");
    ck_assert_str_eq(hm_t_str(&r, "variant"), "rotated");
    ck_assert_int_eq(hm_t_int(&r, "completion_slots"), 2 * 8 + 3 - 2);
    hm_t_free(&r);
}
END_TEST

START_TEST(test_unknown_keys)
{
    char *m = errors_of("{\"topology\":{\"kind\":\"hypercube\",\"dim\":3,\"dims\":4},"
                        "\"algoritm\":{},"
                        "\"algorithm\":{\"name\":\"sbt-broadcast\",\"rot\":1}}",
                        NULL);
    ck_assert_str_eq(
        m, "test.json: algoritm: unknown key; allowed keys: topology, ports, "
           "mailbox, contention, algorithm, clock, seed, stack_kib, output, plugins, sandbox\n"
           "test.json: topology.dims: unknown key; allowed keys: kind, dim\n"
           "test.json: algorithm.rot: unknown parameter of sbt-broadcast; allowed "
           "keys: name, root, rotation\n");
    free(m);
}
END_TEST

START_TEST(test_every_error_reported)
{
    char *m = errors_of("{\"topology\":{\"kind\":\"hypercube\",\"dim\":25},"
                        "\"ports\":{\"model\":\"two-port\"},"
                        "\"contention\":\"lenient\","
                        "\"mailbox\":{\"capacity\":0},"
                        "\"algorithm\":{\"name\":\"successive-broadcast\",\"variant\":\"fast\"}}",
                        NULL);
    ck_assert_str_eq(m, "test.json: topology.dim: found 25; allowed: an integer from 0 to 24\n"
                        "test.json: algorithm.variant: found \"fast\"; allowed: one of "
                        "sequential|interleaved|rotated\n"
                        "test.json: ports.model: found \"two-port\"; allowed: \"all-port\", "
                        "\"one-port-full\", \"one-port-half\", \"shout\", \"bus\"\n"
                        "test.json: mailbox.capacity: found 0; allowed: an integer from 1 to "
                        "1048576\n"
                        "test.json: contention: found \"lenient\"; allowed: \"strict\", "
                        "\"queue\"\n");
    free(m);
}
END_TEST

START_TEST(test_missing_required)
{
    char *m = errors_of("{\"seed\":3}", NULL);
    ck_assert_str_eq(m, "test.json: topology: missing; allowed: an object\n"
                        "test.json: algorithm: missing; allowed: an object\n");
    free(m);
    m = errors_of("{\"topology\":{\"kind\":\"tree\"},\"algorithm\":{\"name\":\"bcast\"}}", NULL);
    ck_assert_msg(strstr(m, "test.json: topology.kind: found \"tree\"; allowed: \"hypercube\", "
                            "\"linear\", \"mesh\", \"bus\", \"ring\", \"torus\"\n") != NULL,
                  "%s", m);
    ck_assert_msg(strstr(m, "test.json: algorithm.name: found \"bcast\"; allowed: "
                            "sbt-broadcast, successive-broadcast") != NULL,
                  "%s", m);
    free(m);
}
END_TEST

START_TEST(test_invalid_json)
{
    char *m = errors_of("{\"topology\": {\"kind\": \"hypercube\",}", NULL);
    ck_assert_msg(strncmp(m, "test.json: line 1, column 35: invalid JSON: ", 44) == 0, "%s", m);
    free(m);
    m = errors_of("[1, 2]", NULL);
    ck_assert_str_eq(m, "test.json: (top level): found [1,2]; allowed: an object\n");
    free(m);
}
END_TEST

START_TEST(test_algorithm_needs_topology_and_ports)
{
    char *m = errors_of("{\"topology\":{\"kind\":\"hypercube\",\"dim\":3},"
                        "\"ports\":{\"model\":\"one-port-full\"},"
                        "\"algorithm\":{\"name\":\"successive-broadcast\"}}",
                        NULL);
    ck_assert_str_eq(m, "test.json: ports.model: found \"one-port-full\"; allowed for "
                        "successive-broadcast: all-port, shout\n");
    free(m);
}
END_TEST

START_TEST(test_setup_errors_name_parameter)
{
    hm_trun_t r = hm_t_run("{\"topology\":{\"kind\":\"hypercube\",\"dim\":3},"
                           "\"algorithm\":{\"name\":\"sbt-broadcast\",\"root\":8}}",
                           NULL);
    ck_assert_int_eq(r.rc, 2);
    ck_assert_str_eq(r.message, "test.json: algorithm.root: found 8; allowed: an integer from "
                                "0 to 7\n");
    hm_t_free(&r);
}
END_TEST

START_TEST(test_set_overrides)
{
    static const char *const sets[] = {"topology.dim=5", "algorithm.variant=sequential", NULL};
    hm_trun_t r = hm_t_run("{\"topology\":{\"kind\":\"hypercube\",\"dim\":3},"
                           "\"algorithm\":{\"name\":\"successive-broadcast\"}}",
                           sets);
    ck_assert_int_eq(r.rc, 0);
    ck_assert_int_eq(hm_t_int(&r, "nodes"), 32);
    ck_assert_str_eq(hm_t_str(&r, "variant"), "sequential");
    ck_assert_int_eq(hm_t_int(&r, "completion_slots"), 32 * 5);
    hm_t_free(&r);

    /* A new object is created on the way; null removes a field. */
    static const char *const sets2[] = {"clock.max_slots=3", NULL};
    r = hm_t_run("{\"topology\":{\"kind\":\"hypercube\",\"dim\":3},"
                 "\"algorithm\":{\"name\":\"successive-broadcast\"}}",
                 sets2);
    ck_assert_int_eq(r.rc, 3);
    hm_t_free(&r);
    static const char *const sets3[] = {"clock=null", NULL};
    r = hm_t_run("{\"topology\":{\"kind\":\"hypercube\",\"dim\":2},\"clock\":{\"max_slots\":1},"
                 "\"algorithm\":{\"name\":\"successive-broadcast\"}}",
                 sets3);
    ck_assert_int_eq(r.rc, 0);
    hm_t_free(&r);

    static const char *const bad[] = {"topology.dim", NULL};
    char *m = errors_of("{\"topology\":{\"kind\":\"hypercube\",\"dim\":3},"
                        "\"algorithm\":{\"name\":\"sbt-broadcast\"}}",
                        bad);
    ck_assert_str_eq(m, "test.json: --set topology.dim: expected PATH=VALUE, e.g. "
                        "topology.dim=6\n");
    free(m);
}
END_TEST

/* The typed specs: every parameter error at once, from the descriptor's ranges (some
 * of them the machine's: 0..p-1), choices, list lengths and only_if. */
START_TEST(test_typed_parameters)
{
    char *m = errors_of("{\"topology\":{\"kind\":\"hypercube\",\"dim\":3},"
                        "\"algorithm\":{\"name\":\"simultaneous-broadcast\",\"variant\":\"best\","
                        "\"sources\":[1,9],\"packets\":0}}",
                        NULL);
    ck_assert_str_eq(m, "test.json: algorithm.variant: found \"best\"; allowed: one of "
                        "prefix|randomized|randomized-window|same-order|priority|rank-rotated\n"
                        "test.json: algorithm.sources: found 9; allowed: a list of 1 to 8 "
                        "distinct nodes from 0 to 7\n"
                        "test.json: algorithm.packets: found 0; allowed: an integer from 1 to "
                        "64\n");
    free(m);
    m = errors_of("{\"topology\":{\"kind\":\"hypercube\",\"dim\":3},"
                  "\"algorithm\":{\"name\":\"simultaneous-broadcast\",\"variant\":\"rank-rotated\","
                  "\"ranks\":7}}",
                  NULL);
    ck_assert_str_eq(m, "test.json: algorithm.ranks: found 7; allowed: one of known|prefix\n");
    free(m);
    m = errors_of("{\"topology\":{\"kind\":\"hypercube\",\"dim\":3},"
                  "\"algorithm\":{\"name\":\"simultaneous-broadcast\",\"sources\":[2,4,2]}}",
                  NULL);
    ck_assert_str_eq(m, "test.json: algorithm.sources: found repeated node 2; allowed: a list of "
                        "1 to 8 distinct nodes from 0 to 7\n");
    free(m);
    /* construction belongs to variant esbt. */
    m = errors_of("{\"topology\":{\"kind\":\"hypercube\",\"dim\":3},"
                  "\"algorithm\":{\"name\":\"multinode-broadcast\",\"construction\":\"literal\"}}",
                  NULL);
    ck_assert_str_eq(m, "test.json: algorithm.construction: found \"literal\" with variant "
                        "\"stamoulis\"; allowed: only with variant \"esbt\"\n");
    free(m);
    /* A topology with errors: no range that depends on it is judged. */
    m = errors_of("{\"topology\":{\"kind\":\"hypercube\",\"dim\":30},"
                  "\"algorithm\":{\"name\":\"sbt-broadcast\",\"root\":5,\"rotation\":\"x\"}}",
                  NULL);
    ck_assert_str_eq(m, "test.json: topology.dim: found 30; allowed: an integer from 0 to 24\n"
                        "test.json: algorithm.rotation: found \"x\"; allowed: an integer from 0 "
                        "to d-1\n");
    free(m);
}
END_TEST

/* The loader fills the defaults in: setup and the summary read one value. */
START_TEST(test_defaults_filled)
{
    hm__config_t cfg;
    ck_assert_int_eq(hm__config_load_string(&cfg, "test.json",
                                            "{\"topology\":{\"kind\":\"hypercube\",\"dim\":3},"
                                            "\"algorithm\":{\"name\":\"multinode-broadcast\","
                                            "\"variant\":\"esbt\"}}",
                                            NULL, 0),
                     0);
    char *a = json_dumps(cfg.algo_params, JSON_SORT_KEYS | JSON_COMPACT);
    ck_assert_str_eq(a, "{\"construction\":\"searched\",\"name\":\"multinode-broadcast\","
                        "\"variant\":\"esbt\"}");
    free(a);
    hm__config_free(&cfg);
    /* Machine defaults are resolved; optional parameters stay absent. */
    ck_assert_int_eq(hm__config_load_string(&cfg, "test.json",
                                            "{\"topology\":{\"kind\":\"hypercube\",\"dim\":3},"
                                            "\"algorithm\":{\"name\":\"simultaneous-broadcast\"}}",
                                            NULL, 0),
                     0);
    a = json_dumps(cfg.algo_params, JSON_SORT_KEYS | JSON_COMPACT);
    ck_assert_str_eq(a, "{\"name\":\"simultaneous-broadcast\",\"packets\":1,\"variant\":"
                        "\"prefix\"}");
    free(a);
    hm_setup_t s;
    char *msg;
    ck_assert_int_eq(hm__config_setup(&cfg, &s, &msg), 0);
    ck_assert_ptr_null(msg);
    ck_assert_int_eq(hm_param_get_int(&s, "k"), 3); /* the spec's default: d */
    ck_assert_int_eq(hm_param_is_set(&s, "k"), 0);
    ck_assert_int_eq(hm_param_get_enum(&s, "ranks"), 0); /* not filled: rank-rotated only */
    ck_assert_int_eq(hm_param_get_int(&s, "c_star"), 3); /* not filled: randomized only */
    ck_assert_int_eq(hm_param_is_set(&s, "c_star"), 0);
    cfg.algo->teardown(s.state);
    hm__config_free(&cfg);
}
END_TEST

/* What an algorithm needs of the machine (its descriptor's needs), checked by the
 * config loader: the routing, the clock mode, the dimension. */
START_TEST(test_needs)
{
    char *m = errors_of("{\"topology\":{\"kind\":\"hypercube\",\"dim\":4},"
                        "\"clock\":{\"mode\":\"free\"},"
                        "\"algorithm\":{\"name\":\"multinode-broadcast\",\"variant\":\"esbt\"}}",
                        NULL);
    ck_assert_str_eq(
        m, "test.json: clock.mode: found \"free\"; allowed for multinode-broadcast: "
           "\"slotted\", \"local\" (its phases and tree steps are timed by the global slot)\n");
    free(m);
    m = errors_of("{\"topology\":{\"kind\":\"hypercube\",\"dim\":0},"
                  "\"ports\":{\"routing\":\"circuit\"},"
                  "\"algorithm\":{\"name\":\"simultaneous-broadcast\"}}",
                  NULL);
    ck_assert_str_eq(m, "test.json: ports.routing: found \"circuit\"; allowed for "
                        "simultaneous-broadcast: \"packet\"\n"
                        "test.json: topology.dim: found 0; allowed for simultaneous-broadcast: "
                        "topology.dim >= 1\n");
    free(m);
    m = errors_of("{\"topology\":{\"kind\":\"mesh\",\"rows\":2,\"cols\":3},"
                  "\"ports\":{\"routing\":\"packet\"},\"algorithm\":{\"name\":\"rh-broadcast\"}}",
                  NULL);
    ck_assert_str_eq(m, "test.json: ports.routing: found \"packet\"; allowed for rh-broadcast: "
                        "\"circuit\"\n");
    free(m);
    /* The tree broadcasts run free: nothing in them waits for a global slot. */
    hm_trun_t r = hm_t_run("{\"topology\":{\"kind\":\"hypercube\",\"dim\":3},"
                           "\"clock\":{\"mode\":\"free\"},"
                           "\"algorithm\":{\"name\":\"sbt-broadcast\",\"root\":5}}",
                           NULL);
    ck_assert_int_eq(r.rc, 0);
    ck_assert_int_eq(hm_t_int(&r, "completion_slots"), 3);
    hm_t_free(&r);
}
END_TEST

Suite *hm_suite_config(void)
{
    Suite *s = suite_create("config");
    TCase *core = tcase_create("core");
    tcase_add_test(core, test_minimal_config_defaults);
    tcase_add_test(core, test_set_overrides);
    tcase_add_test(core, test_defaults_filled);
    tcase_set_timeout(core, 30);
    suite_add_tcase(s, core);
    TCase *errors = tcase_create("errors");
    tcase_add_test(errors, test_unknown_keys);
    tcase_add_test(errors, test_every_error_reported);
    tcase_add_test(errors, test_missing_required);
    tcase_add_test(errors, test_invalid_json);
    tcase_add_test(errors, test_algorithm_needs_topology_and_ports);
    tcase_add_test(errors, test_setup_errors_name_parameter);
    tcase_add_test(errors, test_typed_parameters);
    tcase_add_test(errors, test_needs);
    tcase_set_timeout(errors, 30);
    suite_add_tcase(s, errors);
    return s;
}
