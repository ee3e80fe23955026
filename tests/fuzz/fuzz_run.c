/* SPDX-License-Identifier: MIT */
/*
 * fuzz_run.c — fuzz target: short threaded runs of small machines. The input names
 * a config of configs/ and gives --set overrides (tests/fuzz/fuzz.h); a config that
 * loads is run whole (setup, node threads, verify, writers, summary) if it is small:
 * at most 32 nodes, messages of at most 4 KiB, max_slots cut to 20000, outputs to
 * /dev/null.
 *
 * Must hold: no crash, no hang (libFuzzer's -timeout), no leak, no undefined
 * behaviour, no data race under TSan; a run ends with a summary and an exit code of
 * 0 to 4; exit 0 means verified.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

#define MAX_NODES 32
#define MAX_SLOTS 20000

static void to_dev_null(char **path)
{
    if (*path) {
        free(*path);
        *path = strdup("/dev/null");
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    hm_fuzz_input_t in;
    if (hm_fuzz_split(data, size, &in) != 0)
        return 0;
    hm__config_t cfg;
    int rc = hm__config_load_buffer(&cfg, in.name, in.text, in.len, in.sets, in.nsets);
    if (rc == HM_EXIT_OK && cfg.opt.info.nodes <= MAX_NODES &&
        hm_fuzz_param(&cfg, "message_bytes", 0) <= 4096 && hm_fuzz_param(&cfg, "n", 0) <= 256 &&
        hm_fuzz_param(&cfg, "trials", 0) <= 4 &&
        json_array_size(json_object_get(cfg.algo_params, "values")) <= 256) {
        if (cfg.opt.max_slots > MAX_SLOTS)
            cfg.opt.max_slots = MAX_SLOTS;
        to_dev_null(&cfg.out_timeline);
        to_dev_null(&cfg.out_trace);
        to_dev_null(&cfg.out_events);
        hm__result_t res;
        rc = hm__run_config(&cfg, &res);
        if (getenv("HM_FUZZ_VERBOSE"))
            fprintf(
                stderr, "fuzz run: %s with %d overrides: exit %d, %lld slots\n", in.name, in.nsets,
                rc,
                (long long)json_integer_value(json_object_get(res.summary, "completion_slots")));
        if (rc < HM_EXIT_OK || rc > HM_EXIT_SYSTEM)
            abort();
        if (rc != HM_EXIT_USAGE && rc != HM_EXIT_SYSTEM && !res.summary)
            abort(); /* a run that ran has a summary */
        if (rc == HM_EXIT_OK && !json_is_true(json_object_get(res.summary, "verified")))
            abort();
        hm__result_free(&res);
    } else if (getenv("HM_FUZZ_VERBOSE"))
        fprintf(stderr, "fuzz run: %s with %d overrides: not run (exit %d%s)\n", in.name, in.nsets,
                rc, rc == HM_EXIT_OK ? ", too large" : "");
    hm__config_free(&cfg);
    hm_fuzz_input_free(&in);
    return 0;
}
