/*
 * rng.h — a small deterministic PRNG for the algorithms' seeded inputs: splitmix64
 * (Steele, Lea, Flood 2014). The same seed gives the same stream on every platform,
 * so seeded runs are reproducible byte for byte (SPEC section 3).
 */
#ifndef HM_ALGO_RNG_H
#define HM_ALGO_RNG_H

#include <stdint.h>

typedef struct hm_rng_s {
    uint64_t state;
} hm_rng_t;

/* Start the stream of `seed`. */
void hm_rng_seed(hm_rng_t *r, uint64_t seed);

/* The next 64 random bits. */
uint64_t hm_rng_next(hm_rng_t *r);

/* Uniform in 0..bound-1 (bound >= 1), without modulo bias. */
uint64_t hm_rng_below(hm_rng_t *r, uint64_t bound);

#endif
