/* SPDX-License-Identifier: MIT */
/*
 * rng.h — a small deterministic pseudo-random generator for algorithms that choose
 * at random "with the seed" (README "Slot semantics": same config and seed, same run).
 *
 * splitmix64 (Steele, Lea, Flood 2014): one 64-bit word of state, every seed valid,
 * no thread-shared state. A node that needs its own stream seeds one generator with
 * the run's seed mixed with its number.
 */
#ifndef HMA_ALGO_RNG_H
#define HMA_ALGO_RNG_H

#include <stdint.h>

typedef struct hma_rng_s {
    uint64_t state;
} hma_rng_t;

/* Start a stream from `seed`. */
void hma_rng_seed(hma_rng_t *r, uint64_t seed);

/* The next 64 random bits. */
uint64_t hma_rng_next(hma_rng_t *r);

/* A uniform integer in 0 .. n - 1 (0 when n is 0), without modulo bias. */
uint64_t hma_rng_below(hma_rng_t *r, uint64_t n);

#endif
