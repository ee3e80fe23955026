/*
 * params.c — what setup and verify may call: parameter readers that name the JSON
 * path in their errors, and access to the stores recorded during the run.
 */
#include <stdio.h>
#include <string.h>

#include "hm_internal.h"

int hm_setup_fail(hm_setup_t *s, const char *param, const char *found, const char *allowed)
{
    snprintf(s->error, sizeof s->error, "%s: algorithm.%s: found %s; allowed: %s",
             s->file ? s->file : "(config)", param, found, allowed);
    return -1;
}

int hm_param_int(hm_setup_t *s, const char *name, int64_t def, int64_t min, int64_t max,
                 int64_t *out)
{
    json_t *v = json_object_get(s->params, name);
    *out = def;
    if (!v)
        return 0;
    char found[64], allowed[96];
    snprintf(allowed, sizeof allowed, "an integer from %lld to %lld", (long long)min,
             (long long)max);
    if (!json_is_integer(v))
        return hm_setup_fail(s, name, "a non-integer", allowed);
    int64_t x = json_integer_value(v);
    if (x < min || x > max) {
        snprintf(found, sizeof found, "%lld", (long long)x);
        return hm_setup_fail(s, name, found, allowed);
    }
    *out = x;
    return 0;
}

int hm_param_string(hm_setup_t *s, const char *name, const char *def, const char **out)
{
    json_t *v = json_object_get(s->params, name);
    *out = def;
    if (!v)
        return 0;
    if (!json_is_string(v))
        return hm_setup_fail(s, name, "a non-string", "a string");
    *out = json_string_value(v);
    return 0;
}

/* The report handed to verify carries the machine in a private field. */
const int64_t *hm_report_stores(const hm_report_t *r, int node, size_t *count)
{
    const hm__machine_t *m = r->priv;
    if (node < 0 || node >= m->info.nodes) {
        *count = 0;
        return NULL;
    }
    *count = m->nodes[node].stores.n;
    return m->nodes[node].stores.v;
}
