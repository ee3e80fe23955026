/* SPDX-License-Identifier: MIT */
/*
 * rng.c — splitmix64 (see rng.h).
 */
#include "rng.h"

void hma_rng_seed(hma_rng_t *r, uint64_t seed)
{
    r->state = seed;
}

uint64_t hma_rng_next(hma_rng_t *r)
{
    uint64_t z = (r->state += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

uint64_t hma_rng_below(hma_rng_t *r, uint64_t n)
{
    if (n == 0)
        return 0;
    /* Reject the top partial block so that every residue is equally likely. */
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t x;
    do
        x = hma_rng_next(r);
    while (x >= limit);
    return x % n;
}
