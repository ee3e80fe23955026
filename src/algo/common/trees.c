/*
 * trees.c — spanning binomial trees, their rotations, Gray codes (see trees.h).
 */
#include "trees.h"

uint32_t hma_rotl(uint32_t x, int r, int d)
{
    if (d <= 0)
        return x;
    r %= d;
    if (r == 0)
        return x;
    uint32_t mask = (d >= 32) ? 0xffffffffu : ((1u << d) - 1);
    return ((x << r) | (x >> (d - r))) & mask;
}

uint32_t hma_rotr(uint32_t x, int r, int d)
{
    if (d <= 0)
        return x;
    r %= d;
    return hma_rotl(x, (d - r) % d, d);
}

uint64_t hma_sbt_children(int d, uint32_t root, int rot, uint32_t u)
{
    uint32_t w = hma_rotr(u ^ root, rot, d); /* u's place in SBT(0) */
    int k = w ? __builtin_ctz(w) : d;        /* children flip the bits below k */
    uint64_t mask = 0;
    for (int j = 0; j < k; j++)
        mask |= UINT64_C(1) << ((j + rot) % d);
    return mask;
}

int hma_sbt_parent_port(int d, uint32_t root, int rot, uint32_t u)
{
    uint32_t w = hma_rotr(u ^ root, rot, d);
    if (!w)
        return -1;
    return (__builtin_ctz(w) + rot) % d;
}

int hma_gray_step_dim(uint32_t i, int d)
{
    uint32_t p = d >= 32 ? 0 : (1u << d);
    if (i + 1 == p)
        return d - 1;
    return __builtin_ctz(i + 1);
}
