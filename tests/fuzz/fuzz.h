/* SPDX-License-Identifier: MIT */
/*
 * fuzz.h — shared by the fuzz targets of tests/fuzz/ (doc/development.md "Fuzzing").
 *
 * Each target defines LLVMFuzzerTestOneInput. Built with clang -fsanitize=fuzzer it
 * is a libFuzzer fuzzer (`make fuzz`); built with replay.c instead it is a plain
 * program that runs every input of its corpus and of its regressions once (`make
 * check`, with any compiler).
 *
 * The --set and run targets read their input as lines: the first names a config of
 * configs/ (any other text picks one by its hash), each other line is one --set
 * PATH=VALUE override.
 */
#ifndef HM_FUZZ_H
#define HM_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "cli/run.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The most overrides one input applies. */
#define HM_FUZZ_MAX_SETS 64

/* An input split into a shipped config and --set lines. */
typedef struct hm_fuzz_input_s {
    const char *name; /* the config's file name, e.g. "q4_successive.json" */
    const char *text; /* its contents */
    size_t len;
    char *sets[HM_FUZZ_MAX_SETS]; /* point into buf */
    int nsets;
    char *buf;
} hm_fuzz_input_t;

/* Split data (the format above); 0 on success, -1 if there is no config to use. */
int hm_fuzz_split(const uint8_t *data, size_t size, hm_fuzz_input_t *in);
void hm_fuzz_input_free(hm_fuzz_input_t *in);

/* After a config loaded without error: the algorithm's setup and teardown, as the
 * run does them, unless the machine is larger than the fuzzers explore (setup of
 * 2^15 nodes or 512 MiB of buffers is legal but slow). */
void hm_fuzz_setup(const hm__config_t *cfg);

/* An integer parameter of the algorithm object, or def when absent or not an
 * integer. */
int64_t hm_fuzz_param(const hm__config_t *cfg, const char *key, int64_t def);

#endif
