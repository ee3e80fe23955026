/* SPDX-License-Identifier: MIT */
/*
 * agree.h — what the ranks of hypemu-mpi must share before slot 0 (doc/mpi.md,
 * "Every rank runs the same config"): a description of the run each rank is about to
 * make, as canonical JSON text, and the first difference between two of them in words.
 */
#ifndef HM_CLI_AGREE_H
#define HM_CLI_AGREE_H

#include <stdint.h>

#include "config.h"

/* 64-bit FNV-1a of n bytes, continuing from h (HM__FNV_BASIS to start). */
#define HM__FNV_BASIS UINT64_C(0xcbf29ce484222325)
uint64_t hm__fnv1a(const void *p, size_t n, uint64_t h);

/* What a rank is about to do besides its config. */
typedef struct hm__agree_s {
    int validate, repeat; /* --validate, --repeat N (0 without) */
    int stop;             /* -1: it goes on; else it stops before the run with this code */
    const char *why;      /* then: its first line on stderr, or NULL */
    const char *stats;    /* HM_MPI_STATS, or NULL */
} hm__agree_t;

/* The description of the run: the resolved config (the document after --set, with
 * the defaults of the keys the engine reads filled in; cfg NULL for a rank that stops),
 * the FNV-1a digest of every plugin file's bytes, the options and environment that
 * change what the ranks do together, and the version; JSON with sorted keys (malloc'd),
 * NULL when out of memory. */
char *hm__agree_text(const hm__config_t *cfg, const hm__agree_t *a);

/* The first difference between rank 0's description (mine) and rank `rank`'s
 * (theirs), as rank 0 says it: "rank 1's config differs from rank 0's at
 * clock.max_slots (1000 against 1000000)", its value first. malloc'd; NULL when both
 * are the same or out of memory. */
char *hm__agree_difference(const char *mine, const char *theirs, int rank);

#endif
