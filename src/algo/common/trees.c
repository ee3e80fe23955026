/* SPDX-License-Identifier: MIT */
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

int hma_balanced_tree(int d, int32_t *par, int32_t *sub, int32_t *count)
{
    uint32_t p = UINT32_C(1) << d;
    int most = 0;
    par[0] = sub[0] = -1;
    for (int j = 0; j < d; j++)
        count[j] = 0;
    for (int level = 1; level <= d; level++)
        for (uint32_t x = 1; x < p; x++) {
            if (__builtin_popcount(x) != level)
                continue;
            int best = -1;
            for (int i = 0; i < d; i++) {
                uint32_t y = x ^ (UINT32_C(1) << i);
                if (!(x >> i & 1))
                    continue;
                int j = y ? sub[y] : i;
                if (best < 0 || count[j] < count[sub[x]] ||
                    (count[j] == count[sub[x]] && j < sub[x])) {
                    best = i;
                    sub[x] = j;
                    par[x] = (int32_t)y;
                }
            }
            if (++count[sub[x]] > most)
                most = count[sub[x]];
        }
    return most;
}
