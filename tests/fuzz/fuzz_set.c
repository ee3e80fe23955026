/* SPDX-License-Identifier: MIT */
/*
 * fuzz_set.c — fuzz target: --set overrides. The input names a config of configs/
 * on its first line and gives one PATH=VALUE a line after it (tests/fuzz/fuzz.h);
 * they are applied and the result checked as `hypemu --validate --set ...` does,
 * then the algorithm's setup and teardown run.
 *
 * Must hold: no crash, no leak, no undefined behaviour; a rejected config has at
 * least one message; what --set builds, jansson can write and read back (its
 * nesting limit).
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    hm_fuzz_input_t in;
    if (hm_fuzz_split(data, size, &in) != 0)
        return 0;
    hm__config_t cfg;
    int rc = hm__config_load_buffer(&cfg, in.name, in.text, in.len, in.sets, in.nsets);
    if (rc == HM_EXIT_OK)
        hm_fuzz_setup(&cfg);
    else if (cfg.nerrors == 0)
        abort();
    if (cfg.root) {
        char *text = json_dumps(cfg.root, JSON_COMPACT);
        if (text) {
            json_error_t je;
            json_t *back = json_loads(text, JSON_REJECT_DUPLICATES, &je);
            /* Only memory may fail: jansson reports its nesting limit in je. */
            if (!back && strstr(je.text, "maximum parsing depth"))
                abort();
            json_decref(back);
            free(text);
        }
    }
    hm__config_free(&cfg);
    hm_fuzz_input_free(&in);
    return 0;
}
