/* SPDX-License-Identifier: MIT */
/*
 * bus.c — see bus.h.
 */
#include <stdio.h>
#include <stdlib.h>

#include "bus.h"

uint64_t hma_bus_everyone(const hm_node_t *n)
{
    int deg = hm_degree(n);
    return deg >= 64 ? UINT64_MAX : (UINT64_C(1) << deg) - 1;
}

void hma_bus_shuffle(hma_rng_t *rng, int64_t *v, int64_t n)
{
    for (int64_t i = n - 1; i > 0; i--) {
        int64_t j = (int64_t)hma_rng_below(rng, (uint64_t)i + 1);
        int64_t t = v[i];
        v[i] = v[j];
        v[j] = t;
    }
}

int hma_bus_read_values(hm_setup_t *s, hma_rng_t *rng, int64_t **out, int64_t *n)
{
    *out = NULL;
    if (hm_param_is_set(s, "values")) {
        /* The config loader checked the list against the spec: its length, integers. */
        size_t len = hm_param_get_list(s, "values", NULL, 0);
        if (hm_param_is_set(s, "n") && hm_param_get_int(s, "n") != (int64_t)len) {
            char found[64];
            snprintf(found, sizeof found, "n = %lld with %zu values",
                     (long long)hm_param_get_int(s, "n"), len);
            return hm_setup_fail(s, "n", found, "the length of algorithm.values, or no n");
        }
        *out = malloc((len ? len : 1) * sizeof **out);
        if (!*out)
            return -1;
        hm_param_get_list(s, "values", *out, len);
        *n = (int64_t)len;
        return 0;
    }
    *n = hm_param_get_int(s, "n");
    *out = malloc((size_t)*n * sizeof **out);
    if (!*out)
        return -1;
    for (int64_t i = 0; i < *n; i++)
        (*out)[i] = i + 1;
    hma_bus_shuffle(rng, *out, *n);
    return 0;
}

/* Read the channel until slot `until`, or with until < 0 until `count` broadcasts have
 * come, handing each to hear. Returns HM_OK or HM_EABORT. */
static int bus_read(hm_node_t *n, int64_t until, int64_t count,
                    void (*hear)(void *, const hm_packet_t *), void *ctx)
{
    hm_packet_t p;
    int rc;
    if (until < 0) {
        for (int64_t heard = 0; heard < count; heard++) {
            if ((rc = hm_wait_packet(n, &p)) != HM_OK)
                return rc;
            if (hear)
                hear(ctx, &p);
        }
        return HM_OK;
    }
    while ((rc = hm_wait_packet_until(n, &p, until)) == HM_OK)
        if (hear)
            hear(ctx, &p);
    return rc == HM_EABORT ? HM_EABORT : HM_OK;
}

int hma_bus_round(hm_node_t *n, const hma_bus_round_t *r, const hma_bus_ops_t *ops, void *ctx)
{
    if (r->turn >= 0) {
        if (bus_read(n, r->turn, 0, ops->before, ctx) != HM_OK)
            return HM_EABORT;
        hm_packet_t p = {0};
        int go = ops->speak ? ops->speak(ctx, n, &p) : 0;
        if (go < 0)
            return go;
        if (go) {
            int rc = hm_shout_all(n, &p);
            if (rc != HM_OK)
                return rc;
            if (ops->spoke)
                ops->spoke(ctx, n, &p);
        } else if (r->silent_slots > 0 && hm_busy(n, r->silent_slots) != HM_OK) {
            return HM_EABORT;
        }
    }
    return bus_read(n, r->end, r->expect, ops->after, ctx);
}

void hma_bus_channel_extra(json_t *x, int64_t broadcasts, int64_t silent, int silent_slots)
{
    json_object_set_new(x, "silent_turns", json_integer(silent));
    json_object_set_new(x, "silent_slots", json_integer(silent_slots));
    json_object_set_new(x, "channel_slots", json_integer(broadcasts + silent_slots * silent));
}
