/* SPDX-License-Identifier: MIT */
/*
 * config.h — the JSON config of doc/config.md, read with jansson and checked
 * completely: every error names the file, the JSON path, what was found and what is
 * allowed, and --validate reports all of them at once.
 */
#ifndef HM_CONFIG_H
#define HM_CONFIG_H

#include "hm_internal.h"
#include "out/writers.h" /* HM__SVG_BY_* */

/* output.max_bytes by default: 1 GiB for all the files of one run (README "Output
 * budget"). */
#define HM__OUT_MAX_BYTES (INT64_C(1) << 30)

typedef struct hm__cost_s {
    int set;
    double a, abar, b, rho; /* doc/config.md, ports.routing and ports.cost: slots per
                               byte, slots per byte, slots, slots per byte */
} hm__cost_t;

/* The largest clock.max_slots (config.c explains the ranges; run.c caps its rise). */
#define HM__MAX_SLOTS_MAX (INT64_C(1) << 40)

typedef struct hm__config_s {
    char *file;   /* for messages */
    json_t *root; /* the whole document (owned) */
    hm__options_t opt;
    hm__cost_t cost;
    const hm_algorithm_t *algo;
    json_t *algo_params; /* borrowed from root: the "algorithm" object */
    char *out_timeline, *out_trace, *out_events, *out_svg;
    char *out_otf2;          /* a directory */
    char *out_html;          /* the player (out/html.c) */
    unsigned char *out_show; /* output.nodes: a byte per node, NULL for all */
    int svg_colour;          /* HM__SVG_BY_* (out/writers.h) */
    int64_t out_max_bytes;   /* output.max_bytes: the outputs' budget, 0 for none */
    int progress;            /* the progress line: 1 --progress, -1 --quiet, 0 on a terminal */
    int topology_ok;         /* the topology had no error: machine quantities are known */
    int max_slots_given;     /* clock.max_slots was set: no rise above the default (run.c) */
    /* 1 where a plugin's code is not trusted (the sandbox, README "What verified means"):
     * a plugin's own verify alone checks nothing, so "checked_by": "plugin" counts as
     * "none" (cli/verdict.c); 0 in thread mode, the default. */
    int plugin_verify_uncounted;
    /* Errors, one message a line. */
    char **errors;
    size_t nerrors, errcap;
} hm__config_t;

/* Load and check `file`, applying the --set overrides (PATH=VALUE strings) first.
 * Returns 0 if the config is valid; otherwise the errors are in cfg->errors and the
 * return value is HM_EXIT_USAGE (or HM_EXIT_SYSTEM for an unreadable file). */
int hm__config_load(hm__config_t *cfg, const char *file, char *const *sets, int nsets);

/* The same from a JSON text of len bytes, named `name` in messages (the fuzz
 * targets, tests/fuzz/), and from a C string (tests). */
int hm__config_load_buffer(hm__config_t *cfg, const char *name, const char *text, size_t len,
                           char *const *sets, int nsets);
int hm__config_load_string(hm__config_t *cfg, const char *name, const char *text, char *const *sets,
                           int nsets);

void hm__config_free(hm__config_t *cfg);

/* The algorithm's setup on the checked config, as the run and --validate both call
 * it: fills s (machine, the "algorithm" object with its defaults, file, algorithm) and
 * calls cfg->algo->setup. Returns HM_EXIT_OK (s->state is the algorithm's, for its
 * teardown), or HM_EXIT_USAGE with *message the setup's error (HM_EXIT_SYSTEM when
 * setup failed without one: out of memory); *message is malloc'd. */
int hm__config_setup(const hm__config_t *cfg, hm_setup_t *s, char **message);

/* Print every error to f, one per line. */
void hm__config_print_errors(const hm__config_t *cfg, FILE *f);
/* --validate: warn on f about settings with no effect in the chosen mode; returns how
 * many (doc/clocks.md "Free-running mode"). */
int hm__config_warnings(const hm__config_t *cfg, FILE *f);

#endif
