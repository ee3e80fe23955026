/* SPDX-License-Identifier: MIT */
/*
 * list.c — the catalogue as `hypemu --list` prints it (README "Command line"): the
 * topologies, port models, clock modes and algorithms, each algorithm's paper, what it
 * runs on, its parameters and needs, from the descriptors (with the plugins'); and
 * `--list --json`, the same with the machine config's keys (config_keys.h).
 */
#include <stdio.h>
#include <string.h>

#include "config_keys.h"
#include "list.h"
#include "plugin.h"

/* A bound or default of a typed parameter: the machine quantity's name or the number. */
static void show_value(char *buf, size_t size, hm_qty_t q, int64_t v)
{
    if (q != HM_QTY_NONE)
        snprintf(buf, size, "%s", hm_qty_name(q));
    else if (v == INT64_MIN || v == INT64_MAX)
        snprintf(buf, size, "%s", v < 0 ? "-inf" : "inf");
    else
        snprintf(buf, size, "%lld", (long long)v);
}

/* "0..p-1, default 0", "sequential|interleaved|rotated, default rotated", ... */
static void spec_line(FILE *f, const hm_param_spec_t *p)
{
    char lo[32], hi[32], def[32];
    show_value(lo, sizeof lo, p->min_of, p->min);
    show_value(hi, sizeof hi, p->max_of, p->max);
    show_value(def, sizeof def, p->def_of, p->def);
    fprintf(f, "  %-22s   %s = ", "", p->name);
    switch (p->type) {
    case HM_PARAM_ENUM:
        for (size_t i = 0; p->choices[i]; i++)
            fprintf(f, "%s%s", i ? "|" : "", p->choices[i]);
        snprintf(def, sizeof def, "%s", p->choices[p->def]);
        break;
    case HM_PARAM_INT_LIST: {
        char llo[32], lhi[32];
        show_value(llo, sizeof llo, p->len_min_of, p->len_min);
        show_value(lhi, sizeof lhi, p->len_max_of, p->len_max);
        if (strcmp(llo, lhi) == 0)
            fprintf(f, "list of %s", llo);
        else
            fprintf(f, "list of %s..%s", llo, lhi);
        fprintf(f, " %s%s", p->flags & HM_PARAM_DISTINCT ? "distinct " : "",
                p->max_of == HM_QTY_NODES_MINUS_1 ? "nodes" : "integers");
        if (p->min != INT64_MIN || p->max != INT64_MAX || p->max_of != HM_QTY_NONE)
            fprintf(f, " %s..%s", lo, hi);
        break;
    }
    case HM_PARAM_STRING: /* checked by the algorithm's setup */
        fprintf(f, "text or JSON");
        break;
    case HM_PARAM_INT:
        if (strcmp(lo, hi) == 0)
            fprintf(f, "%s", lo);
        else
            fprintf(f, "%s..%s", lo, hi);
        break;
    }
    if (p->flags & HM_PARAM_OPTIONAL)
        fprintf(f, ", default %s", p->default_text ? p->default_text : "none");
    else
        fprintf(f, ", default %s", def);
    if (p->only_if)
        fprintf(f, ", only with %s", p->only_if);
    fprintf(f, ": %s\n", p->help);
}

/* "requires: ..." when the descriptor names restrictions. */
static void needs_line(FILE *f, const hm_needs_t *nd)
{
    if (!nd->routing && !nd->clock_modes && !nd->min_dim && !nd->pow2_nodes)
        return;
    fprintf(f, "  %-22s requires:", "");
    const char *sep = " ";
    if (nd->routing) {
        fprintf(f, "%srouting", sep);
        for (int i = 0; i < HM_ROUTING_COUNT; i++)
            if (nd->routing & HM_BIT(i))
                fprintf(f, " %s", hm_routing_name((hm_routing_t)i));
        sep = "; ";
    }
    if (nd->clock_modes) {
        fprintf(f, "%sclock", sep);
        for (int i = 0; i < HM_CLOCK_COUNT; i++)
            if (hm__clock_modes(nd->clock_modes) & HM_BIT(i))
                fprintf(f, " %s", hm_clock_name((hm_clock_mode_t)i));
        if (nd->clock_why)
            fprintf(f, " (%s)", nd->clock_why);
        sep = "; ";
    }
    if (nd->min_dim) {
        fprintf(f, "%sdim >= %d", sep, nd->min_dim);
        sep = "; ";
    }
    if (nd->pow2_nodes)
        fprintf(f, "%sa power-of-two number of nodes", sep);
    fputc('\n', f);
}

void hm__list(FILE *f)
{
    fprintf(f, "topologies:\n");
#define XX(id, name, desc) fprintf(f, "  %-22s %s\n", name, desc);
    HM_TOPOLOGY_MAP(XX)
#undef XX
    fprintf(f, "\nport models:\n");
#define XX(id, name, desc) fprintf(f, "  %-22s %s\n", name, desc);
    HM_PORTS_MAP(XX)
#undef XX
    fprintf(f, "\nclock modes:\n");
#define XX(id, name, desc) fprintf(f, "  %-22s %s\n", name, desc);
    HM_CLOCK_MAP(XX)
#undef XX
    fprintf(f, "\nalgorithms:\n");
    const hm_algorithm_t *const *cat = hm__catalogue(); /* with the plugins' */
    for (size_t i = 0; cat[i]; i++) {
        const hm_algorithm_t *a = cat[i];
        fprintf(f, "  %-22s %s\n", a->name, a->description ? a->description : "");
        if (hm__plugin_file(a))
            fprintf(f, "  %-22s plugin: %s\n", "", hm__plugin_file(a));
        fprintf(f, "  %-22s paper: %s\n", "", a->paper ? a->paper : "");
        fprintf(f, "  %-22s topologies:", "");
        for (int t = 0; t < HM_TOPO_COUNT; t++)
            if (a->topologies & HM_BIT(t))
                fprintf(f, " %s", hm_topology_name((hm_topology_kind_t)t));
        fprintf(f, "; ports:");
        for (int p = 0; p < HM_PORTS_COUNT; p++)
            if (a->ports & HM_BIT(p))
                fprintf(f, " %s%s", hm_ports_name((hm_ports_kind_t)p),
                        (int)a->default_ports == p ? " (default)" : "");
        fputc('\n', f);
        needs_line(f, &a->needs);
        for (const hm_param_spec_t *p = a->specs; p && p->name; p++)
            spec_line(f, p);
    }
}

/* A bound as JSON: the number, the quantity's name ("p-1"), or null when unbounded. */
static json_t *json_bound(hm_qty_t q, int64_t v)
{
    if (q != HM_QTY_NONE)
        return json_string(hm_qty_name(q));
    if (v == INT64_MIN || v == INT64_MAX)
        return json_null();
    return json_integer(v);
}

static json_t *json_bits(unsigned mask, int count, const char *const *names)
{
    json_t *a = json_array();
    for (int i = 0; i < count; i++)
        if (!mask || (mask & HM_BIT(i)))
            json_array_append_new(a, json_string(names[i]));
    return a;
}

static json_t *json_spec(const hm_param_spec_t *p)
{
    static const char *const types[] = {"int", "string", "int-list", "enum"};
    json_t *o = json_object(), *choices = json_null(), *def;
    if (p->type == HM_PARAM_ENUM) {
        choices = json_array();
        for (size_t i = 0; p->choices[i]; i++)
            json_array_append_new(choices, json_string(p->choices[i]));
        def = json_string(p->choices[p->def]);
    } else if (p->flags & HM_PARAM_OPTIONAL) {
        def = p->default_text ? json_string(p->default_text) : json_null();
    } else {
        def = json_bound(p->def_of, p->def);
    }
    json_object_set_new(o, "name", json_string(p->name));
    json_object_set_new(o, "type", json_string(types[p->type]));
    json_object_set_new(o, "default", def);
    json_object_set_new(o, "min",
                        p->type == HM_PARAM_ENUM ? json_null() : json_bound(p->min_of, p->min));
    json_object_set_new(o, "max",
                        p->type == HM_PARAM_ENUM ? json_null() : json_bound(p->max_of, p->max));
    json_object_set_new(o, "choices", choices);
    if (p->type == HM_PARAM_INT_LIST) {
        json_object_set_new(o, "min_length", json_bound(p->len_min_of, p->len_min));
        json_object_set_new(o, "max_length", json_bound(p->len_max_of, p->len_max));
        json_object_set_new(o, "distinct", json_boolean(p->flags & HM_PARAM_DISTINCT));
    }
    json_object_set_new(o, "optional", json_boolean(p->flags & HM_PARAM_OPTIONAL));
    json_object_set_new(o, "only_if", p->only_if ? json_string(p->only_if) : json_null());
    json_object_set_new(o, "help", json_string(p->help));
    return o;
}

static json_t *json_algorithm(const hm_algorithm_t *a)
{
    const hm_needs_t *nd = &a->needs;
    const char *problem = hm_problem_name(a->problem);
    json_t *o = json_object(), *params = json_array();
    for (const hm_param_spec_t *p = a->specs; p && p->name; p++)
        json_array_append_new(params, json_spec(p));
    json_t *req = json_object();
    json_object_set_new(req, "routing",
                        json_bits(nd->routing, HM_ROUTING_COUNT, hm__routing_names));
    json_object_set_new(
        req, "clock_modes",
        json_bits(hm__clock_modes(nd->clock_modes), HM_CLOCK_COUNT, hm__clock_mode_names));
    json_object_set_new(req, "clock_why", nd->clock_why ? json_string(nd->clock_why) : json_null());
    json_object_set_new(req, "min_dim", json_integer(nd->min_dim));
    json_object_set_new(req, "power_of_two_nodes", json_boolean(nd->pow2_nodes));
    json_object_set_new(o, "name", json_string(a->name));
    json_object_set_new(o, "problem", problem ? json_string(problem) : json_null());
    json_object_set_new(o, "description", json_string(a->description ? a->description : ""));
    json_object_set_new(o, "paper", json_string(a->paper ? a->paper : ""));
    if (hm__plugin_file(a)) /* README "Writing node programs outside the tree" */
        json_object_set_new(o, "plugin", json_string(hm__plugin_file(a)));
    json_object_set_new(o, "topologies",
                        json_bits(a->topologies, HM_TOPO_COUNT, hm__topology_names));
    json_object_set_new(o, "ports", json_bits(a->ports, HM_PORTS_COUNT, hm__ports_names));
    json_object_set_new(o, "default_ports", json_string(hm_ports_name(a->default_ports)));
    json_object_set_new(o, "requires", req);
    json_object_set_new(o, "params", params);
    return o;
}

/* One key of the machine config (config_keys.h): its type, range, default, choices,
 * the topology kinds it belongs to, and its help. */
static json_t *json_config_key(const hm__config_key_t *k)
{
    json_t *o = json_object(), *range = json_null(), *def = json_null(), *choices = json_null();
    if (k->type == HM__KEY_INT || k->type == HM__KEY_NUMBER) {
        range = json_pack("[I, I]", (json_int_t)k->min, (json_int_t)k->max);
        if (!k->def_text)
            def = json_integer(k->def);
    }
    if (k->type == HM__KEY_ENUM) {
        choices = json_array();
        for (size_t i = 0; k->choices[i]; i++)
            json_array_append_new(choices, json_string(k->choices[i]));
        if (k->def >= 0 && !k->def_text)
            def = json_string(k->choices[k->def]);
    }
    if (k->def_text)
        def = json_string(k->def_text);
    json_object_set_new(o, "key", json_string(k->path));
    json_object_set_new(o, "type", json_string(hm__key_type_name(k->type)));
    json_object_set_new(o, "range", range);
    json_object_set_new(o, "choices", choices);
    json_object_set_new(o, "default", def);
    json_object_set_new(o, "kinds", k->kinds ? json_string(k->kinds) : json_null());
    json_object_set_new(o, "help", json_string(k->help));
    return o;
}

/* The whole catalogue as one JSON document (doc/algorithms.md). */
static json_t *catalogue(void)
{
    json_t *doc = json_object(), *algos = json_array();
    const hm_algorithm_t *const *cat = hm__catalogue(); /* with the plugins' */
    for (size_t i = 0; cat[i]; i++)
        json_array_append_new(algos, json_algorithm(cat[i]));
    json_object_set_new(doc, "algorithms", algos);
#define LIST(key, MAP)                                                                             \
    do {                                                                                           \
        json_t *l = json_array();                                                                  \
        MAP(XX)                                                                                    \
        json_object_set_new(doc, key, l);                                                          \
    } while (0)
#define XX(id, name, desc)                                                                         \
    json_array_append_new(l, json_pack("{s:s, s:s}", "name", name, "description", desc));
    LIST("problems", HM_PROBLEM_MAP);
    LIST("topologies", HM_TOPOLOGY_MAP);
    LIST("ports", HM_PORTS_MAP);
    LIST("clock_modes", HM_CLOCK_MAP);
    LIST("routings", HM_ROUTING_MAP);
#undef XX
#undef LIST
    json_t *keys = json_array();
    for (int k = 0; k < HM__K_COUNT; k++)
        json_array_append_new(keys, json_config_key(&hm__config_keys[k]));
    json_object_set_new(doc, "config", keys);
    return doc;
}

void hm__list_json(FILE *f)
{
    json_t *doc = catalogue();
    if (json_dumpf(doc, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER) == 0)
        fputc('\n', f);
    json_decref(doc);
}
