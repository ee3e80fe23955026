/* SPDX-License-Identifier: MIT */
/*
 * params.c — what setup may call: the typed parameter getters (the config loader,
 * src/cli/config.c, has checked and filled the values from the specs), hm_setup_fail
 * for what only setup can judge, and the quantities' values. (What verify reads,
 * hm_report_stores and hm_report_out, is in outcome.c.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hm_internal.h"

int64_t hm_qty_value(hm_qty_t q, const hm_machine_info_t *mi, int64_t constant)
{
    switch (q) {
    case HM_QTY_NODES:
        return mi->nodes;
    case HM_QTY_NODES_MINUS_1:
        return mi->nodes - 1;
    case HM_QTY_DIM:
        return mi->dim;
    case HM_QTY_DIM_MINUS_1:
        return mi->dim > 0 ? mi->dim - 1 : 0;
    case HM_QTY_PROCESSORS:
        return mi->nodes - 1;
    case HM_QTY_PROCESSORS_X3:
        return 3 * (int64_t)(mi->nodes - 1);
    case HM_QTY_NONE:
    case HM_QTY_COUNT:
        break;
    }
    return constant;
}

const hm_param_spec_t *hm_param_spec_find(const hm_param_spec_t *specs, const char *name)
{
    for (const hm_param_spec_t *p = specs; p && p->name; p++)
        if (strcmp(p->name, name) == 0)
            return p;
    return NULL;
}

/* The spec setup asks for: a name missing from the specs is a bug in the algorithm,
 * not in the config, so it stops the program with the names. With no algorithm
 * (setup called directly by a test) there is no spec: NULL. */
static const hm_param_spec_t *spec_of(const hm_setup_t *s, const char *name, hm_param_type_t type)
{
    if (!s->algorithm)
        return NULL;
    const hm_param_spec_t *p = hm_param_spec_find(s->algorithm->specs, name);
    if (!p || p->type != type) {
        fprintf(stderr, "hypemu: bug: %s reads parameter %s, which its specs %s\n",
                s->algorithm->name, name, p ? "type differently" : "do not declare");
        abort();
    }
    return p;
}

int64_t hm_param_get_int(const hm_setup_t *s, const char *name)
{
    const hm_param_spec_t *p = spec_of(s, name, HM_PARAM_INT);
    json_t *v = json_object_get(s->params, name);
    if (json_is_integer(v))
        return json_integer_value(v);
    return p ? hm_qty_value(p->def_of, s->machine, p->def) : 0;
}

int hm_param_get_enum(const hm_setup_t *s, const char *name)
{
    const hm_param_spec_t *p = spec_of(s, name, HM_PARAM_ENUM);
    json_t *v = json_object_get(s->params, name);
    if (p && json_is_string(v))
        for (int i = 0; p->choices[i]; i++)
            if (strcmp(p->choices[i], json_string_value(v)) == 0)
                return i;
    return p ? (int)p->def : 0;
}

size_t hm_param_get_list(const hm_setup_t *s, const char *name, int64_t *out, size_t cap)
{
    spec_of(s, name, HM_PARAM_INT_LIST);
    json_t *v = json_object_get(s->params, name);
    size_t n = json_array_size(v);
    for (size_t i = 0; i < n && i < cap; i++)
        out[i] = json_integer_value(json_array_get(v, i));
    return n;
}

int hm_param_is_set(const hm_setup_t *s, const char *name)
{
    return json_object_get(s->params, name) != NULL;
}

int hm_setup_fail(hm_setup_t *s, const char *param, const char *found, const char *allowed)
{
    snprintf(s->error, sizeof s->error, "%s: algorithm.%s: found %s; allowed: %s",
             s->file ? s->file : "(config)", param, found, allowed);
    return -1;
}
