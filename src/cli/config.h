/*
 * config.h — the JSON config of SPEC section 2, read with jansson and checked
 * completely: every error names the file, the JSON path, what was found and what is
 * allowed, and --validate reports all of them at once.
 */
#ifndef HM_CONFIG_H
#define HM_CONFIG_H

#include "hm_internal.h"

typedef struct hm__cost_s {
    int set;
    double a, abar, b, rho; /* SPEC section 5: slots per byte, slots per byte, slots,
                               slots per byte */
} hm__cost_t;

typedef struct hm__config_s {
    char *file;   /* for messages */
    json_t *root; /* the whole document (owned) */
    hm__options_t opt;
    hm__cost_t cost;
    const hm_algorithm_t *algo;
    json_t *algo_params; /* borrowed from root: the "algorithm" object */
    char *out_timeline, *out_trace, *out_events;
    /* Errors, one message a line. */
    char **errors;
    size_t nerrors, errcap;
} hm__config_t;

/* Load and check `file`, applying the --set overrides (PATH=VALUE strings) first.
 * Returns 0 if the config is valid; otherwise the errors are in cfg->errors and the
 * return value is HM_EXIT_USAGE (or HM_EXIT_SYSTEM for an unreadable file). */
int hm__config_load(hm__config_t *cfg, const char *file, char *const *sets, int nsets);

/* The same from a JSON text (tests). */
int hm__config_load_string(hm__config_t *cfg, const char *name, const char *text, char *const *sets,
                           int nsets);

void hm__config_free(hm__config_t *cfg);

/* Print every error to f, one per line. */
void hm__config_print_errors(const hm__config_t *cfg, FILE *f);

#endif
