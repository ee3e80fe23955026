/* SPDX-License-Identifier: MIT */
/*
 * config_affinity.c — clock.affinity (doc/config.md, hypemu(1)): "none", "compact",
 * "scatter", or a list of CPUs, "0-3,8" or [0, 1, 2], each one this process may use.
 */
#include <stdlib.h>
#include <string.h>

#include "config_json.h"

/* clock.affinity: "none", "compact", "scatter", or CPUs as "0-3,8" or [0, 1, 2]; every
 * CPU of a list must be one this process may use (sched_getaffinity, taskset). */
static int affinity_add(hm__config_t *c, int64_t lo, int64_t hi, const int *ok, int nok)
{
    for (int64_t x = lo; x <= hi; x++) {
        int found = 0;
        for (int k = 0; k < nok && !found; k++)
            found = ok[k] == x;
        if (!found || c->opt.affinity_n >= HM__AFFINITY_MAX) {
            char allowed[64 + 6 * 32] = "";
            for (int k = 0; k < nok && k < 32; k++)
                snprintf(allowed + strlen(allowed), sizeof allowed - strlen(allowed), "%s%d",
                         k ? "," : "", ok[k]);
            hm__cfg_error(c,
                          "clock.affinity: found CPU %lld; allowed: the CPUs this process may use "
                          "(%s%s), at most %d in the list",
                          (long long)x, allowed, nok > 32 ? ",..." : "", HM__AFFINITY_MAX);
            return -1;
        }
        c->opt.affinity_cpus[c->opt.affinity_n++] = (uint16_t)x;
    }
    return 0;
}

/* "0-3,8": -1 when it is not such a list (an error about a CPU is already said). */
static int affinity_string(hm__config_t *c, const char *p, const int *ok, int nok)
{
    for (;;) {
        if (*p < '0' || *p > '9')
            return -1;
        char *end;
        long long lo = strtoll(p, &end, 10), hi = lo;
        if (*end == '-') {
            p = end + 1;
            if (*p < '0' || *p > '9')
                return -1;
            hi = strtoll(p, &end, 10);
        }
        if (hi < lo || hi - lo >= HM__AFFINITY_MAX)
            return -1;
        if (affinity_add(c, lo, hi, ok, nok) != 0)
            return 0;
        if (*end == '\0')
            return 0;
        if (*end != ',')
            return -1;
        p = end + 1;
    }
}

static void affinity_list(hm__config_t *c, json_t *v, const int *ok, int nok)
{
    static const char *const what = "\"none\", \"compact\", \"scatter\", or CPUs: \"0-3,8\" "
                                    "or [0, 1]";
    size_t i;
    json_t *x;
    c->opt.affinity = HM__AFFINITY_LIST;
    if (json_is_array(v)) {
        json_array_foreach(v, i, x) {
            if (!json_is_integer(x) || json_integer_value(x) < 0) {
                hm__cfg_wrong(c, "clock.affinity", v, what);
                return;
            }
            if (affinity_add(c, json_integer_value(x), json_integer_value(x), ok, nok) != 0)
                return;
        }
    } else if (affinity_string(c, json_string_value(v), ok, nok) != 0) {
        c->opt.affinity_n = 0;
        hm__cfg_wrong(c, "clock.affinity", v, what);
        return;
    }
    if (c->opt.affinity_n == 0)
        hm__cfg_wrong(c, "clock.affinity", v, what);
}

void hm__cfg_affinity(hm__config_t *c, json_t *v)
{
    static const char *const names[] = {"none", "compact", "scatter", NULL};
    if (!v)
        return;
    for (int k = 0; names[k] && json_is_string(v); k++)
        if (strcmp(json_string_value(v), names[k]) == 0) {
            c->opt.affinity = k;
            return;
        }
    int ok[HM__AFFINITY_MAX], nok = hm__allowed_cpus(ok);
    if (json_is_string(v) || json_is_array(v))
        affinity_list(c, v, ok, nok);
    else
        hm__cfg_wrong(c, "clock.affinity", v,
                      "\"none\", \"compact\", \"scatter\", or CPUs: \"0-3,8\" or [0, 1]");
}
