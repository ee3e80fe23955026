/* SPDX-License-Identifier: MIT */
/*
 * helpers.h — shared by the test suites: run a config in-process and read the
 * summary, run the hypemu program and capture what it prints.
 */
#ifndef HM_TEST_HELPERS_H
#define HM_TEST_HELPERS_H

#include <check.h>
#include <jansson.h>

#include "cli/run.h"

/* The outcome of one in-process run. */
typedef struct hm_trun_s {
    int rc;
    json_t *summary; /* NULL if the config was rejected */
    char *message;   /* config errors or stop reason */
} hm_trun_t;

/* Run the config text with optional --set overrides. */
hm_trun_t hm_t_run(const char *config, const char *const *sets);
void hm_t_free(hm_trun_t *r);

/* Run the config with a test's own algorithm in place of the one the config names
 * (the config must name a registered algorithm legal on its topology and ports). */
hm_trun_t hm_t_run_algo(const char *config, const hm_algorithm_t *algo);

/* The same with the run's interrupt flag (hm__options_t.interrupt) set to flag. */
hm_trun_t hm_t_run_interrupt(const char *config, const hm_algorithm_t *algo, atomic_int *flag);

/* A test's own algorithm: node program fn, verify (e.g. hm_t_verify_ok), on the
 * hypercube under any port model. */
hm_algorithm_t hm_t_algo(void (*fn)(hm_node_t *, void *), void (*verify)(hm_report_t *));
void hm_t_verify_ok(hm_report_t *r);           /* verified, "test" */
void hm_t_wait_forever(hm_node_t *n, void *s); /* waits for a packet that never comes */

/* Tiny programs and machines shared by check_engine.c and check_local.c. A d-cube
 * under ports.model `model` and `contention`, running sbt-broadcast's slot (a test
 * replaces the algorithm), extra appended to the config object (",\"clock\":{...}"):
 * a static buffer, overwritten by the next call. */
char *hm_t_cube(int d, const char *model, const char *contention, const char *extra);
void hm_t_flood(hm_node_t *n, void *s);      /* node 0 sends 3 packets to node 1 on port 0,
                                                one a slot; node 1 returns without reading */
void hm_t_sleep_long(hm_node_t *n, void *s); /* hm_wait_until(1000) */
void hm_t_late_send(hm_node_t *n, void *s);  /* node 0 sends in slot 10^9; node 1 stores its
                                                recv_slot and the slot it read it in */

/* Integer, boolean and string fields of the summary (aborts the test if absent). */
int64_t hm_t_int(const hm_trun_t *r, const char *key);
int64_t hm_t_bound(const hm_trun_t *r, const char *key); /* bound / lower_bound value */
const char *hm_t_str(const hm_trun_t *r, const char *key);

/* Run the hypemu program with arguments (NULL-terminated), in directory dir (or the
 * build directory if NULL); captures stdout and stderr; returns the exit code. */
int hm_t_exec(const char *dir, char **out, char **err, const char *const *args);

/* Whole file into memory (NULL if unreadable). */
char *hm_t_slurp(const char *path, size_t *len);

/* A fresh temporary directory for a test's files, and its removal (which also frees
 * the name). */
char *hm_t_tmpdir(void);
void hm_t_rmtree(char *dir);

Suite *hm_suite_trees(void);
Suite *hm_suite_engine(void);
Suite *hm_suite_hypercube(void);
Suite *hm_suite_config(void);
Suite *hm_suite_cli(void);
Suite *hm_suite_outputs(void);
Suite *hm_suite_bus(void);
Suite *hm_suite_simultaneous(void);
Suite *hm_suite_esbt(void);
Suite *hm_suite_seidel(void);
Suite *hm_suite_free(void);
Suite *hm_suite_collectives(void);
Suite *hm_suite_local(void);

#endif
