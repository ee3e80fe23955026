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
