/* SPDX-License-Identifier: MIT */
/*
 * run.h — one run, from a checked config to a summary: algorithm setup, machine,
 * node threads, the outcome, verification, output files. This is where the run's
 * end cause becomes an exit code (README "Exit codes").
 */
#ifndef HM_RUN_H
#define HM_RUN_H

#include "config.h"

typedef struct hm__result_s {
    int exit_code;
    hm__outcome_t *outcome; /* what the run left (the machine is gone); NULL if none */
    hm_report_t report;
    json_t *summary; /* README "Summary" */
    double wall_seconds;
    char *message; /* why the run stopped or failed, for stderr (owned) */
    /* What checked the result (the summary's "checked_by", README "What verified
     * means"): the problem's name, the name of a built-in algorithm that declares none,
     * "plugin" or "none". */
    const char *checked_by;
    /* Node threads the run left running (engine/watchdog.c): they may still read the
     * algorithm's state, which is then kept, not torn down. */
    int abandoned;
} hm__result_t;

/* Run cfg; fills res. Writes the output files named in the config, also when the
 * run stops early. Returns res->exit_code. */
int hm__run_config(const hm__config_t *cfg, hm__result_t *res);
void hm__result_free(hm__result_t *res);
/* The run's refused calls on f (README "Refused calls"): the count, the first few in full
 * (node, slot, call, reason), "... and N more"; nothing when there was none. */
void hm__refused_print(FILE *f, const hm__outcome_t *o);

/* After a run, stdio's locks on stdout and stderr may be held by a node program whose
 * thread was left running (README "Exit codes"): what follows it is written with write(2).
 * hm__write_fd writes all len bytes of buf to fd (0, or -1 with errno);
 * hm__result_report writes "hypemu: MESSAGE" and the refused calls to stderr at once. */
int hm__write_fd(int fd, const char *buf, size_t len);
void hm__result_report(const hm__result_t *res);

/* Remove the output file being written, if any (async-signal-safe: for a second
 * Ctrl-C, which ends the process at once). */
void hm__cli_discard_temp_output(void);

/* repeat.c: --repeat N: cfg run n times; each run, then min/median/max and a 95%
 * interval of every figure, on out (as one JSON object with as_json). Returns the
 * first nonzero exit code of the runs, else 0. */
int hm__run_repeat(const hm__config_t *cfg, int n, int as_json, FILE *out);

/* verdict.c: check the run's outcome res->outcome (README "What verified means"): hypemu's
 * check of algorithm cfg->algo and a plugin's own verify, the light cone, the volume
 * delivered, the lower bound. Fills res->report (completion the engine's figure, state
 * the algorithm's) and res->checked_by; the caller turns the verdict into the exit code. */
void hm__verdict(const hm__config_t *cfg, const hm_setup_t *setup, int64_t completion,
                 hm__result_t *res);

/* summary.c */
json_t *hm__summary_build(const hm__config_t *cfg, const hm__result_t *res);
/* 1 if key is one of the summary's own keys, which an algorithm's r->extra may not
 * set (README "What verified means"), for outcome o. */
int hm__summary_own_key(const hm__outcome_t *o, const char *key);
void hm__summary_print(FILE *f, const json_t *summary);

#endif
