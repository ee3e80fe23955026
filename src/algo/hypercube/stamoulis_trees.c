/* SPDX-License-Identifier: MIT */
/*
 * stamoulis_trees.c — completely unbalanced spanning trees (see stamoulis_trees.h).
 */
#include "stamoulis_trees.h"

/* Position of u's last dimension on the path from the root, -1 for the root. */
static int last_position(int d, uint32_t root, int first, uint32_t u)
{
    uint32_t w = u ^ root;
    int last = -1;
    for (int i = 0; i < d; i++)
        if (w >> i & 1) {
            int pos = (i - first + d) % d;
            if (pos > last)
                last = pos;
        }
    return last;
}

uint64_t hma_cut_children(int d, uint32_t root, int first, uint32_t u)
{
    uint64_t mask = 0;
    for (int pos = last_position(d, root, first, u) + 1; pos < d; pos++)
        mask |= UINT64_C(1) << ((pos + first) % d);
    return mask;
}

int hma_cut_parent_port(int d, uint32_t root, int first, uint32_t u)
{
    int last = last_position(d, root, first, u);
    return last < 0 ? -1 : (last + first) % d;
}
