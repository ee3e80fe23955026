/*
 * rng.c — splitmix64, see rng.h.
 */
#include "rng.h"

void hm_rng_seed(hm_rng_t *r, uint64_t seed)
{
    r->state = seed;
}

uint64_t hm_rng_next(hm_rng_t *r)
{
    uint64_t z = (r->state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

uint64_t hm_rng_below(hm_rng_t *r, uint64_t bound)
{
    if (bound <= 1)
        return 0;
    /* Reject the top partial block so that every residue is equally likely. */
    uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
    uint64_t x;
    do
        x = hm_rng_next(r);
    while (x >= limit);
    return x % bound;
}
