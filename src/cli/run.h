/*
 * run.h — one run, from a checked config to a summary: algorithm setup, machine,
 * node threads, verification, output files.
 */
#ifndef HM_RUN_H
#define HM_RUN_H

#include "config.h"

typedef struct hm__result_s {
    int exit_code;
    hm__machine_t *m; /* kept for the writers; NULL if never built */
    hm_report_t report;
    json_t *summary; /* SPEC section 7 */
    double wall_seconds;
    char *message; /* why the run stopped or failed, for stderr (owned) */
} hm__result_t;

/* Run cfg; fills res. Writes the output files named in the config, also when the
 * run stops early. Returns res->exit_code. */
int hm__run_config(const hm__config_t *cfg, hm__result_t *res);
void hm__result_free(hm__result_t *res);

/* summary.c */
json_t *hm__summary_build(const hm__config_t *cfg, const hm__result_t *res);
void hm__summary_print(FILE *f, const json_t *summary);

/* out/: each returns 0 or -1 with errno set. */
int hm__write_events(const hm__machine_t *m, const hm__timeline_t *tl, FILE *f);
int hm__write_timeline(const hm__machine_t *m, const hm__timeline_t *tl, FILE *f);
int hm__write_trace(const hm__machine_t *m, const hm__timeline_t *tl, FILE *f);

#endif
