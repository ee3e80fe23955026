/*
 * bus.c — see bus.h.
 */
#include <stdio.h>
#include <stdlib.h>

#include "bus.h"

uint64_t hm_bus_everyone(const hm_node_t *n)
{
    int deg = hm_degree(n);
    return deg >= 64 ? UINT64_MAX : (UINT64_C(1) << deg) - 1;
}

void hm_bus_shuffle(hm_rng_t *rng, int64_t *v, int64_t n)
{
    for (int64_t i = n - 1; i > 0; i--) {
        int64_t j = (int64_t)hm_rng_below(rng, (uint64_t)i + 1);
        int64_t t = v[i];
        v[i] = v[j];
        v[j] = t;
    }
}

int hm_bus_read_values(hm_setup_t *s, int64_t def_n, int64_t min_n, int64_t max_n, hm_rng_t *rng,
                       int64_t **out, int64_t *n)
{
    char found[64], allowed[128];
    const json_t *vals = json_object_get(s->params, "values");
    *out = NULL;
    if (min_n == max_n)
        snprintf(allowed, sizeof allowed, "a list of %lld values (one per processor)",
                 (long long)min_n);
    else
        snprintf(allowed, sizeof allowed, "a list of %lld to %lld values", (long long)min_n,
                 (long long)max_n);
    if (vals) {
        /* The config loader checked that it is a list of integers. */
        int64_t len = (int64_t)json_array_size(vals);
        if (len < min_n || len > max_n) {
            snprintf(found, sizeof found, "a list of %lld values", (long long)len);
            return hm_setup_fail(s, "values", found, allowed);
        }
        const json_t *given_n = json_object_get(s->params, "n");
        if (given_n && (!json_is_integer(given_n) || json_integer_value(given_n) != len)) {
            snprintf(found, sizeof found, "n = %lld with %lld values",
                     (long long)json_integer_value(given_n), (long long)len);
            return hm_setup_fail(s, "n", found, "the length of algorithm.values, or no n");
        }
        *out = malloc((size_t)len * sizeof **out);
        if (!*out)
            return -1;
        for (int64_t i = 0; i < len; i++)
            (*out)[i] = json_integer_value(json_array_get(vals, (size_t)i));
        *n = len;
        return 0;
    }
    if (hm_param_int(s, "n", def_n, min_n, max_n, n))
        return -1;
    *out = malloc((size_t)*n * sizeof **out);
    if (!*out)
        return -1;
    for (int64_t i = 0; i < *n; i++)
        (*out)[i] = i + 1;
    hm_bus_shuffle(rng, *out, *n);
    return 0;
}
