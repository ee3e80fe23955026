/* SPDX-License-Identifier: MIT */
/*
 * prefix.c — suffix sums over the binomial tree of Q_d in 2d slots (see prefix.h).
 */
#include "prefix.h"

enum { UP = 0, DOWN = 1 };

int hma_prefix_suffix(hm_node_t *n, int d, int64_t a, int32_t tag, int64_t *suffix, int64_t *total)
{
    uint32_t x = (uint32_t)hm_id(n);
    int low = x ? __builtin_ctz(x) : d; /* x receives up-sweep sums below this bit */
    int64_t block[33];                  /* block[i] = B_i(x), known for i <= low */
    int64_t r = -1;
    block[0] = a;
    if (d == 0)
        r = a;

    for (int s = 0; s <= 2 * d; s++) {
        /* What arrived in the previous slot. */
        hm_packet_t pk;
        while (hm_recv(n, &pk) == HM_OK) {
            if (pk.tag != tag)
                continue; /* not ours: cannot happen when callers respect t0 */
            if (pk.aux == UP)
                block[pk.port + 1] = block[pk.port] + pk.value;
            else
                r = pk.value;
        }
        if (x == 0 && s == d)
            r = block[d];
        if (s == 2 * d)
            break;
        hm_packet_t out = {.msg = 0, .origin = (int32_t)x, .tag = tag};
        if (s < d) {
            /* Up-sweep step i = s: the node whose lowest set bit is i reports. */
            if (x != 0 && low == s) {
                out.aux = UP;
                out.value = block[s];
                hm_send(n, s, &out);
            }
        } else {
            /* Down-sweep step i = 2d - 1 - s: nodes with low i + 1 bits zero. */
            int i = 2 * d - 1 - s;
            if (low > i) {
                out.aux = DOWN;
                out.value = r - block[i];
                hm_send(n, i, &out);
            }
        }
        int rc = hm_next_slot(n);
        if (rc != HM_OK)
            return rc;
    }
    *suffix = r;
    *total = x == 0 ? r : -1;
    return HM_OK;
}
