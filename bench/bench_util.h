/* SPDX-License-Identifier: MIT */
/*
 * bench_util.h — what the benchmarks in bench/ share (doc/performance.md): the
 * median of a few runs and the HM_BENCH_* environment variables. Header-only, each
 * bench is one program.
 */
#ifndef HM_BENCH_UTIL_H
#define HM_BENCH_UTIL_H

#include <stdio.h>
#include <stdlib.h>

#include "cli/run.h"

static inline int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of v[0..n-1] (sorts v). */
static inline double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The integer in environment variable name, def when unset, at least min. */
static inline int env_int(const char *name, int def, int min)
{
    const char *s = getenv(name);
    int v = s ? atoi(s) : def;
    return v < min ? min : v;
}

/* What a run gives the benchmarks: hypemu's wall_seconds, completion slots and copies
 * delivered (-1 when the run left no outcome). */
typedef struct bench_figures_s {
    double wall;
    int64_t slots, transmissions;
} bench_figures_t;

/* One run of the config text through the hypemu program's path (hm__config_load_string
 * -> hm__run_config); with algo set, that node program on the checked machine instead
 * of the algorithm the text names. Returns hypemu's exit code (a failure is said on
 * stderr, prefixed with who) and fills *f when f is not NULL. */
static inline int bench_run(const char *who, const char *text, const hm_algorithm_t *algo,
                            bench_figures_t *f)
{
    hm__config_t cfg;
    int rc = hm__config_load_string(&cfg, "bench", text, NULL, 0);
    if (rc != HM_EXIT_OK) {
        hm__config_print_errors(&cfg, stderr);
        hm__config_free(&cfg);
        return rc;
    }
    if (algo) {
        cfg.algo = algo;
        cfg.algo_params = NULL;
    }
    hm__result_t res;
    rc = hm__run_config(&cfg, &res);
    if (rc != HM_EXIT_OK)
        fprintf(stderr, "%s: run failed (exit %d): %s\n", who, rc, res.message ? res.message : "?");
    if (f) {
        f->wall = res.wall_seconds;
        f->slots = res.report.completion_slots;
        f->transmissions = res.outcome ? res.outcome->stats.transmissions : -1;
    }
    hm__result_free(&res);
    hm__config_free(&cfg);
    return rc;
}

#endif
