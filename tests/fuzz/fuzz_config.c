/* SPDX-License-Identifier: MIT */
/*
 * fuzz_config.c — fuzz target: a config file. The input is the JSON text, read and
 * checked by hm__config_load_buffer (the loader the command line uses, from memory),
 * then the algorithm's setup and teardown (tests/fuzz/fuzz.h).
 *
 * Must hold: no crash, no leak, no undefined behaviour; a rejected config has at
 * least one message, each naming the file.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    hm__config_t cfg;
    int rc = hm__config_load_buffer(&cfg, "fuzz.json", (const char *)data, size, NULL, 0);
    if (rc == HM_EXIT_OK)
        hm_fuzz_setup(&cfg);
    else if (cfg.nerrors == 0)
        abort(); /* rejected without saying why */
    for (size_t i = 0; i < cfg.nerrors; i++)
        if (strncmp(cfg.errors[i], "fuzz.json: ", 11) != 0)
            abort();
    hm__config_free(&cfg);
    return 0;
}
