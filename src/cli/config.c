/* SPDX-License-Identifier: MIT */
/*
 * config.c — reads and checks the config of doc/config.md.
 *
 * Every check adds a message "FILE: PATH: found X; allowed: Y" and goes on, so that
 * --validate lists every error at once. Unknown keys are errors: a typo must not be
 * silently ignored. The keys, their ranges and defaults are the table of config_keys.h
 * (doc/config.md, hypemu(1)).
 *
 * This file holds the domain checks (topology, ports, the algorithm's parameters,
 * clock, output, plugins, their fit) and the loading; the checking kit they use is
 * config_json.c (config_json.h), clock.affinity config_affinity.c, --set config_set.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "config_json.h"
#include "plugin.h"

/* output.nodes: "0-3,8", node numbers and ranges of the machine, comma-separated; the
 * nodes the text timeline shows. Returns one byte per node, or NULL after an error. */
static unsigned char *parse_nodes(hm__config_t *c, json_t *v)
{
    int n = c->opt.info.nodes;
    char allowed[128];
    snprintf(allowed, sizeof allowed,
             "node numbers 0..%d and ranges a-b, comma-separated (e.g. \"0-3,8\")", n - 1);
    char one[24];
    const char *s = json_string_value(v);
    if (json_is_integer(v)) { /* --set output.nodes=3 reads 3 as JSON */
        snprintf(one, sizeof one, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        s = one;
    }
    unsigned char *show = n > 0 && s && *s ? calloc((size_t)n, 1) : NULL;
    int ok = show != NULL;
    while (ok && *s) {
        char *end;
        errno = 0;
        long a = strtol(s, &end, 10), b = a;
        ok = end != s && *s != '-' && *s != '+' && !errno;
        s = end;
        if (ok && *s == '-') {
            ok = s[1] >= '0' && s[1] <= '9';
            b = strtol(s + 1, &end, 10);
            s = end;
        }
        ok = ok && !errno && a >= 0 && b >= a && b < n && (!*s || (*s == ',' && s[1]));
        if (ok)
            memset(show + a, 1, (size_t)(b - a + 1));
        if (*s == ',')
            s++;
    }
    if (ok)
        return show;
    free(show);
    if (n > 0)
        hm__cfg_wrong(c, "output.nodes", v, allowed);
    return NULL;
}

/* Where an output lands, to see two names of one file: the resolved path of an
 * existing file, else its resolved directory and its name, else the name as given. */
static char *output_place(const char *path)
{
    char *r = realpath(path, NULL);
    if (r || errno != ENOENT)
        return r ? r : strdup(path);
    const char *slash = strrchr(path, '/');
    char *dir = slash ? strndup(path, (size_t)(slash - path) + 1) : strdup(".");
    char *rdir = dir ? realpath(dir, NULL) : NULL;
    char *out = rdir ? hm__strdup_printf("%s/%s", rdir, slash ? slash + 1 : path) : strdup(path);
    free(dir);
    free(rdir);
    return out;
}

/* Two outputs must not write one file: the second writer would silently replace the
 * first one's output. Devices (/dev/null) and pipes may be shared. */
static void check_distinct_outputs(hm__config_t *c)
{
    const char *key[6] = {"timeline", "trace", "events", "svg", "otf2", "html"};
    const char *name[6] = {c->out_timeline, c->out_trace, c->out_events,
                           c->out_svg,      c->out_otf2,  c->out_html};
    char *place[6];
    for (int i = 0; i < 6; i++)
        place[i] = name[i] ? output_place(name[i]) : NULL;
    for (int j = 1; j < 6; j++)
        for (int i = 0; i < j; i++) {
            if (!place[i] || !place[j] || strcmp(place[i], place[j]) != 0)
                continue;
            struct stat st;
            if (stat(place[j], &st) == 0 && !S_ISREG(st.st_mode))
                break;
            hm__cfg_error(
                c,
                "output.%s: found \"%s\", the same file as output.%s (\"%s\"); allowed: a "
                "file no other output writes (devices such as /dev/null may be shared)",
                key[j], name[j], key[i], name[i]);
            break;
        }
    for (int i = 0; i < 6; i++)
        free(place[i]);
}

/* A topology of "nodes" in a row (linear, bus, ring): key `id` says their range. */
static void check_row(hm__config_t *c, json_t *t, hm__key_id_t id)
{
    hm_machine_info_t *in = &c->opt.info;
    hm__cfg_table_keys(c, "topology", hm_topology_name(in->topology), t);
    in->nodes = (int)hm__cfg_key_int(c, t, id, 1);
    in->rows = 1;
    in->cols = in->nodes;
}

/* A topology of rows x cols (mesh, torus): at most HM__NODES_MAX nodes. */
static void check_grid(hm__config_t *c, json_t *t)
{
    hm_machine_info_t *in = &c->opt.info;
    hm__cfg_table_keys(c, "topology", hm_topology_name(in->topology), t);
    in->rows = (int)hm__cfg_key_int(c, t, HM__K_TOPOLOGY_ROWS, 1);
    in->cols = (int)hm__cfg_key_int(c, t, HM__K_TOPOLOGY_COLS, 1);
    if ((int64_t)in->rows * in->cols > HM__NODES_MAX) {
        hm__cfg_error(c, "topology: found %d x %d = %lld nodes; allowed: at most %d nodes",
                      in->rows, in->cols, (long long)in->rows * in->cols, HM__NODES_MAX);
        in->rows = in->cols = 1;
    }
    in->nodes = in->rows * in->cols;
}

static void check_topology(hm__config_t *c, json_t *t)
{
    hm_machine_info_t *in = &c->opt.info;
    int k = hm__cfg_key_enum(c, t, HM__K_TOPOLOGY_KIND, -1);
    if (k < 0)
        return;
    in->topology = (hm_topology_kind_t)k;
    switch (in->topology) {
    case HM_TOPO_HYPERCUBE:
        hm__cfg_table_keys(c, "topology", hm_topology_name(in->topology), t);
        in->dim = (int)hm__cfg_key_int(c, t, HM__K_TOPOLOGY_DIM, 1);
        in->nodes = 1 << in->dim;
        in->rows = 1;
        in->cols = in->nodes;
        break;
    case HM_TOPO_LINEAR:
    case HM_TOPO_RING:
        check_row(c, t, HM__K_TOPOLOGY_NODES);
        break;
    case HM_TOPO_BUS:
        /* 1025: a node has a port to each other node, links grow as nodes^2 (topo/bus.c). */
        check_row(c, t, HM__K_TOPOLOGY_BUS_NODES);
        break;
    case HM_TOPO_MESH:
    case HM_TOPO_TORUS:
        check_grid(c, t);
        break;
    case HM_TOPO_COUNT:
        break;
    }
}

/* The ranges of the cost model and of the clock (doc/config.md "Config ranges"): no slot
 * count can overflow. A message costs at most ceil(k / 2^nu) * a * m + b slots, k
 * <= nodes circuits sharing a link, and the Seidel broadcasts hold at most 2^29 bytes
 * in all (nodes * m): so at most 2^20 * 2^29 + 2^40 < 2^50 slots, the same bound for
 * rho * m; the plans add at most a few hundred such steps, and a slot number times
 * 1000 (the trace's microseconds) stays below 2^63. */
#define HM__COST_A_MAX ((double)hm__config_keys[HM__K_PORTS_COST_A].max) /* 2^20 slots per byte */

static void check_ports(hm__config_t *c, json_t *p)
{
    hm_machine_info_t *in = &c->opt.info;
    in->link_capacity = (int)hm__config_keys[HM__K_PORTS_LINK_CAPACITY].def;
    /* Circuit routing is the default on linear arrays and meshes, where Seidel's
     * model (doc/config.md, ports.routing and ports.cost) is the one the algorithms
     * need, unless the algorithm runs under packet routing only (traffic); cost
     * defaults: a = 2^nu (abar = 1), b = 1, rho = 0 slots. */
    unsigned need = c->algo ? c->algo->needs.routing : 0;
    int grid = (in->topology == HM_TOPO_LINEAR || in->topology == HM_TOPO_MESH) &&
               (!need || (need & HM_BIT(HM_ROUTING_CIRCUIT)));
    in->circuit = grid;
    in->cost_abar = (double)hm__config_keys[HM__K_PORTS_COST_ABAR].def;
    in->cost_b = (double)hm__config_keys[HM__K_PORTS_COST_B].def;
    in->cost_rho = (double)hm__config_keys[HM__K_PORTS_COST_RHO].def;
    int defmodel = c->algo ? (int)c->algo->default_ports
                           : (in->topology == HM_TOPO_BUS ? HM_PORTS_BUS : HM_PORTS_ALL_PORT);
    if (!p) {
        in->ports = (hm_ports_kind_t)defmodel;
        in->cost_a = in->cost_abar;
        return;
    }
    hm__cfg_table_keys(c, "ports", NULL, p);
    int k = hm__cfg_key_enum(c, p, HM__K_PORTS_MODEL, defmodel);
    in->ports = (hm_ports_kind_t)(k < 0 ? defmodel : k);
    in->link_capacity = (int)hm__cfg_key_int(c, p, HM__K_PORTS_LINK_CAPACITY, 0);
    in->circuit = hm__cfg_key_enum(c, p, HM__K_PORTS_ROUTING, grid) == HM_ROUTING_CIRCUIT;
    in->cost_a = in->cost_abar * in->link_capacity;
    json_t *cost = json_object_get(p, "cost");
    if (cost) {
        if (!json_is_object(cost)) {
            hm__cfg_wrong(c, "ports.cost", cost, "an object {\"a\", \"abar\", \"b\", \"rho\"}");
        } else {
            hm__cfg_table_keys(c, "ports.cost", NULL, cost);
            c->cost.set = 1;
            c->cost.b = hm__cfg_key_number(c, cost, HM__K_PORTS_COST_B);
            c->cost.rho = hm__cfg_key_number(c, cost, HM__K_PORTS_COST_RHO);
            c->cost.abar = hm__cfg_key_number(c, cost, HM__K_PORTS_COST_ABAR);
            /* Seidel section 2: a = 2^nu * abar unless given (and abar = a / 2^nu
             * when only a is). */
            double a = c->cost.abar * in->link_capacity;
            if (!json_object_get(cost, "a") && a > HM__COST_A_MAX) {
                char *f = hm__cfg_show(json_object_get(cost, "abar"));
                hm__cfg_error(c,
                              "ports.cost.abar: found %s, making a = abar x link_capacity = %.17g; "
                              "allowed: abar x link_capacity from 0 to %.0f",
                              f ? f : "?", a, HM__COST_A_MAX);
                free(f);
                a = 1;
            }
            c->cost.a = hm__cfg_get_number(c, cost, "ports.cost", "a", a, HM__COST_A_MAX);
            if (!json_object_get(cost, "abar"))
                c->cost.abar = c->cost.a / in->link_capacity;
            in->cost_a = c->cost.a;
            in->cost_abar = c->cost.abar;
            in->cost_b = c->cost.b;
            in->cost_rho = c->cost.rho;
        }
    }
}

/* ---- the algorithm's parameters ------------------------------------------------ */

/* A bound of a typed parameter on this machine; *known is 0 when it depends on a
 * topology that had errors (then the bound is not checked). */
static int64_t bound(const hm__config_t *c, hm_qty_t q, int64_t constant, int *known)
{
    if (q != HM_QTY_NONE && !c->topology_ok)
        *known = 0;
    return hm_qty_value(q, &c->opt.info, constant);
}

/* "a list of 1 to 8 distinct nodes from 0 to 7", "a list of k = 4 integers". */
static void list_allowed(const hm__config_t *c, const hm_param_spec_t *p, char *buf, size_t size)
{
    int known = 1;
    int64_t lmin = bound(c, p->len_min_of, p->len_min, &known);
    int64_t lmax = bound(c, p->len_max_of, p->len_max, &known);
    int64_t emin = bound(c, p->min_of, p->min, &known);
    int64_t emax = bound(c, p->max_of, p->max, &known);
    char len[64], range[96] = "";
    hm_qty_t lq = p->len_min_of ? p->len_min_of : p->len_max_of;
    if (lmin == lmax && lq != HM_QTY_NONE)
        snprintf(len, sizeof len, "%s = %lld", hm_qty_name(lq), (long long)lmin);
    else if (lmin == lmax)
        snprintf(len, sizeof len, "%lld", (long long)lmin);
    else
        snprintf(len, sizeof len, "%lld to %lld", (long long)lmin, (long long)lmax);
    if (emin > INT64_MIN || emax < INT64_MAX)
        snprintf(range, sizeof range, " from %lld to %lld", (long long)emin, (long long)emax);
    snprintf(buf, size, "a list of %s %s%s%s", len, p->flags & HM_PARAM_DISTINCT ? "distinct " : "",
             p->max_of == HM_QTY_NODES_MINUS_1 ? "nodes" : "integers", range);
}

static void check_list(hm__config_t *c, const hm_param_spec_t *p, const char *path, json_t *v)
{
    char allowed[192], found[96];
    list_allowed(c, p, allowed, sizeof allowed);
    int ok = json_is_array(v);
    size_t i;
    json_t *e;
    json_array_foreach(v, i, e)
        ok &= json_is_integer(e);
    if (!ok) {
        hm__cfg_wrong(c, path, v, allowed);
        return;
    }
    int known = 1;
    int64_t n = (int64_t)json_array_size(v);
    int64_t lmin = bound(c, p->len_min_of, p->len_min, &known);
    int64_t lmax = bound(c, p->len_max_of, p->len_max, &known);
    int64_t emin = bound(c, p->min_of, p->min, &known);
    int64_t emax = bound(c, p->max_of, p->max, &known);
    if (!known)
        return;
    if (n < lmin || n > lmax) {
        if (n == 0)
            snprintf(found, sizeof found, "an empty list");
        else
            snprintf(found, sizeof found, "a list of %lld values", (long long)n);
        hm__cfg_error(c, "%s: found %s; allowed: %s", path, found, allowed);
        return;
    }
    json_array_foreach(v, i, e) {
        json_int_t x = json_integer_value(e);
        int again = 0;
        for (size_t j = 0; j < i && (p->flags & HM_PARAM_DISTINCT); j++)
            again |= json_integer_value(json_array_get(v, j)) == x;
        if (x >= emin && x <= emax && !again)
            continue;
        snprintf(found, sizeof found, "%s%lld",
                 again ? (p->max_of == HM_QTY_NODES_MINUS_1 ? "repeated node " : "repeated value ")
                       : "",
                 (long long)x);
        hm__cfg_error(c, "%s: found %s; allowed: %s", path, found, allowed);
        return;
    }
}

/* The value of enum spec q on this config: given, else its default. */
static const char *enum_value(json_t *a, const hm_param_spec_t *q)
{
    json_t *v = json_object_get(a, q->name);
    return json_is_string(v) ? json_string_value(v) : q->choices[q->def];
}

/* only_if "variant=esbt" (or "variant=a|b", any of the values): does it hold? */
static int only_if_holds(const hm_algorithm_t *al, json_t *a, const hm_param_spec_t *p, char *param,
                         size_t size, const char **want)
{
    const char *eq = p->only_if ? strchr(p->only_if, '=') : NULL;
    if (!eq)
        return 1;
    snprintf(param, size, "%.*s", (int)(eq - p->only_if), p->only_if);
    *want = eq + 1;
    const hm_param_spec_t *q = hm_param_spec_find(al->specs, param);
    if (!q || q->type != HM_PARAM_ENUM)
        return 0;
    const char *value = enum_value(a, q);
    size_t len = strlen(value);
    for (const char *w = *want; *w;) {
        size_t n = strcspn(w, "|");
        if (n == len && strncmp(w, value, n) == 0)
            return 1;
        w += n + (w[n] == '|');
    }
    return 0;
}

static void check_spec(hm__config_t *c, json_t *a, const hm_param_spec_t *p, const char *path,
                       json_t *v)
{
    char allowed[512] = "", other[64];
    const char *want;
    if (!only_if_holds(c->algo, a, p, other, sizeof other, &want)) {
        const hm_param_spec_t *q = hm_param_spec_find(c->algo->specs, other);
        char *f = hm__cfg_show(v), values[256] = "";
        /* "a|b" reads "a" or "b". */
        for (const char *w = want; *w && strlen(values) + 8 < sizeof values;) {
            size_t n = strcspn(w, "|");
            snprintf(values + strlen(values), sizeof values - strlen(values), "%s\"%.*s\"",
                     w == want ? "" : " or ", (int)n, w);
            w += n + (w[n] == '|');
        }
        hm__cfg_error(c, "%s: found %s with %s \"%s\"; allowed: only with %s %s", path, f ? f : "?",
                      other, q ? enum_value(a, q) : "?", other, values);
        free(f);
        return;
    }
    switch (p->type) {
    case HM_PARAM_INT: {
        int known = 1;
        int64_t min = bound(c, p->min_of, p->min, &known);
        int64_t max = bound(c, p->max_of, p->max, &known);
        /* With a topology in error, the machine's bounds in words ("0 to p-1"). */
        char lo[32], hi[32];
        snprintf(lo, sizeof lo, "%lld", (long long)min);
        snprintf(hi, sizeof hi, "%lld", (long long)max);
        if (!known && p->min_of)
            snprintf(lo, sizeof lo, "%s", hm_qty_name(p->min_of));
        if (!known && p->max_of)
            snprintf(hi, sizeof hi, "%s", hm_qty_name(p->max_of));
        snprintf(allowed, sizeof allowed, "an integer from %s to %s", lo, hi);
        if (!json_is_integer(v) ||
            (known && (json_integer_value(v) < min || json_integer_value(v) > max)))
            hm__cfg_wrong(c, path, v, allowed);
        break;
    }
    case HM_PARAM_ENUM: {
        int ok = 0;
        strcat(allowed, "one of ");
        for (size_t i = 0; p->choices[i]; i++) {
            if (i)
                strncat(allowed, "|", sizeof allowed - strlen(allowed) - 1);
            strncat(allowed, p->choices[i], sizeof allowed - strlen(allowed) - 1);
            ok |= json_is_string(v) && strcmp(json_string_value(v), p->choices[i]) == 0;
        }
        if (!ok)
            hm__cfg_wrong(c, path, v, allowed);
        break;
    }
    case HM_PARAM_INT_LIST:
        check_list(c, p, path, v);
        break;
    case HM_PARAM_STRING:
        break;
    }
}

/* Fill the "algorithm" object with the defaults of the typed parameters it lacks, so
 * that setup, the summary and every reader see one value (doc/algorithms.md). */
static void fill_defaults(hm__config_t *c, json_t *a)
{
    char other[64];
    const char *want;
    for (const hm_param_spec_t *p = c->algo->specs; p && p->name; p++) {
        if (json_object_get(a, p->name) || (p->flags & HM_PARAM_OPTIONAL) ||
            p->type == HM_PARAM_INT_LIST ||
            !only_if_holds(c->algo, a, p, other, sizeof other, &want))
            continue;
        json_t *v = p->type == HM_PARAM_ENUM
                        ? json_string(p->choices[p->def])
                        : json_integer(hm_qty_value(p->def_of, &c->opt.info, p->def));
        if (!v || json_object_set_new(a, p->name, v) != 0)
            hm__cfg_error(c, "algorithm.%s: out of memory filling in the default", p->name);
    }
}

static void check_params(hm__config_t *c, json_t *a)
{
    const hm_algorithm_t *al = c->algo;
    const char *k;
    json_t *v;
    json_object_foreach(a, k, v) {
        if (strcmp(k, "name") == 0)
            continue;
        char path[128];
        snprintf(path, sizeof path, "algorithm.%s", k);
        const hm_param_spec_t *sp = hm_param_spec_find(al->specs, k);
        if (sp) {
            check_spec(c, a, sp, path, v);
            continue;
        }
        char allowed[512] = "name";
        for (sp = al->specs; sp && sp->name; sp++) {
            strncat(allowed, ", ", sizeof allowed - strlen(allowed) - 1);
            strncat(allowed, sp->name, sizeof allowed - strlen(allowed) - 1);
        }
        hm__cfg_error(c, "algorithm.%s: unknown parameter of %s; allowed keys: %s", k, al->name,
                      allowed);
    }
    fill_defaults(c, a);
}

static void check_algorithm(hm__config_t *c, json_t *a)
{
    json_t *name = json_object_get(a, "name");
    char allowed[1024] = "";
    const hm_algorithm_t *const *cat = hm__catalogue(); /* with the plugins' (cli/plugin.c) */
    for (size_t i = 0; cat[i]; i++) {
        if (i)
            strncat(allowed, ", ", sizeof allowed - strlen(allowed) - 1);
        strncat(allowed, cat[i]->name, sizeof allowed - strlen(allowed) - 1);
    }
    if (!name) {
        hm__cfg_error(c, "algorithm.name: missing; allowed: %s", allowed);
        return;
    }
    c->algo = json_is_string(name) ? hm_algorithm_find(json_string_value(name)) : NULL;
    if (!c->algo) {
        hm__cfg_wrong(c, "algorithm.name", name, allowed);
        return;
    }
    json_t *problem = json_object_get(a, "problem");
    if (problem && hm__plugin_mpi(c->algo)) { /* an MPI program's problem (doc/mpi-programs.md) */
        const hm_algorithm_t *bound =
            hm__plugin_mpi_problem(c->algo, json_string_value(problem), allowed, sizeof allowed);
        if (!bound) {
            hm__cfg_wrong(c, "algorithm.problem", problem, allowed);
            return;
        }
        c->algo = bound;
    }
    c->algo_params = a;
    check_params(c, a);
}

/* The names of the set bits of mask, ", "-separated, from name(bit). */
static void bit_names(char *buf, size_t size, unsigned mask, int count, const char *const *names,
                      const char *quote)
{
    buf[0] = 0;
    for (int i = 0; i < count; i++)
        if (mask & HM_BIT(i)) {
            size_t len = strlen(buf);
            snprintf(buf + len, size - len, "%s%s%s%s", len ? ", " : "", quote, names[i], quote);
        }
}

/* After topology, ports and algorithm are known: do they fit together, and does the
 * machine meet what the algorithm needs (its descriptor's needs)? */
static void check_fit(hm__config_t *c)
{
    const hm_algorithm_t *al = c->algo;
    const hm_needs_t *nd = &al->needs;
    hm_machine_info_t *in = &c->opt.info;
    char allowed[256];
    if (!(al->topologies & HM_BIT(in->topology))) {
        bit_names(allowed, sizeof allowed, al->topologies, HM_TOPO_COUNT, hm__topology_names, "");
        hm__cfg_error(c, "topology.kind: found \"%s\"; allowed for %s: %s",
                      hm_topology_name(in->topology), al->name, allowed);
        return;
    }
    if (!(al->ports & HM_BIT(in->ports))) {
        bit_names(allowed, sizeof allowed, al->ports, HM_PORTS_COUNT, hm__ports_names, "");
        hm__cfg_error(c, "ports.model: found \"%s\"; allowed for %s: %s", hm_ports_name(in->ports),
                      al->name, allowed);
    }
    hm_routing_t routing = in->circuit ? HM_ROUTING_CIRCUIT : HM_ROUTING_PACKET;
    if (nd->routing && !(nd->routing & HM_BIT(routing))) {
        bit_names(allowed, sizeof allowed, nd->routing, HM_ROUTING_COUNT, hm__routing_names, "\"");
        hm__cfg_error(c, "ports.routing: found \"%s\"; allowed for %s: %s",
                      hm_routing_name(routing), al->name, allowed);
    }
    hm_clock_mode_t mode = c->opt.clock;
    unsigned modes = hm__clock_modes(nd->clock_modes);
    if (modes && !(modes & HM_BIT(mode))) {
        bit_names(allowed, sizeof allowed, modes, HM_CLOCK_COUNT, hm__clock_mode_names, "\"");
        hm__cfg_error(c, "clock.mode: found \"%s\"; allowed for %s: %s%s%s%s", hm_clock_name(mode),
                      al->name, allowed, nd->clock_why ? " (" : "",
                      nd->clock_why ? nd->clock_why : "", nd->clock_why ? ")" : "");
    }
    if (in->topology == HM_TOPO_HYPERCUBE && in->dim < nd->min_dim)
        hm__cfg_error(c, "topology.dim: found %d; allowed for %s: topology.dim >= %d", in->dim,
                      al->name, nd->min_dim);
    if (nd->pow2_nodes && (in->nodes & (in->nodes - 1)) != 0)
        hm__cfg_error(c, "topology: found %d nodes; allowed for %s: a power of two", in->nodes,
                      al->name);
}

/* "plugins": ["x.so", ...], each relative to the config file's directory, loaded before
 * the algorithm is looked up (README "Writing node programs outside the tree"). */
static void check_plugins(hm__config_t *c, json_t *list)
{
    if (!json_is_array(list)) {
        hm__cfg_wrong(c, "plugins", list, "an array of plugin files (strings)");
        return;
    }
    const char *slash = c->file ? strrchr(c->file, '/') : NULL;
    int dirlen = slash ? (int)(slash - c->file) : 1;
    const char *dir = slash ? c->file : ".";
    size_t i;
    json_t *v;
    json_array_foreach(list, i, v) {
        char path[32];
        snprintf(path, sizeof path, "plugins[%zu]", i);
        if (!json_is_string(v) || !json_string_value(v)[0]) {
            hm__cfg_wrong(c, path, v, "a plugin file name");
            continue;
        }
        const char *f = json_string_value(v);
        char *full = f[0] == '/' ? strdup(f) : hm__strdup_printf("%.*s/%s", dirlen, dir, f);
        char err[1024];
        if (!full)
            hm__cfg_error(c, "%s: out of memory", path);
        else if (hm__plugin_load(full, err, sizeof err) != 0)
            hm__cfg_error(c, "%s: %s", path, err);
        free(full);
    }
}

/* "clock": its mode, max_slots and affinity, and the modes' restrictions. */
static void check_clock(hm__config_t *c, json_t *root)
{
    json_t *ck = hm__cfg_get_object(c, root, "clock", 0);
    if (ck) {
        hm__cfg_table_keys(c, "clock", NULL, ck);
        /* A mode that is not one (-1, the error recorded) leaves the default. */
        int mode =
            hm__cfg_key_enum(c, ck, HM__K_CLOCK_MODE, (int)hm__config_keys[HM__K_CLOCK_MODE].def);
        c->opt.clock = mode < 0 ? HM_CLOCK_SLOTTED : (hm_clock_mode_t)mode;
        c->opt.max_slots = hm__cfg_key_int(c, ck, HM__K_CLOCK_MAX_SLOTS, 0);
        c->max_slots_given = json_object_get(ck, "max_slots") != NULL;
        hm__cfg_affinity(c, json_object_get(ck, "affinity"));
        /* The watchdog (README "Watchdog"): at most a day. */
        c->opt.slot_timeout = hm__cfg_key_number(c, ck, HM__K_CLOCK_SLOT_TIMEOUT);
    }
    c->opt.info.clock = (int)c->opt.clock;
    /* The free-running clock (engine/free.c) has no slots to judge: it cannot share
     * the bus's one channel. (Circuits it holds while their bytes are copied.) */
    if (c->opt.clock == HM_CLOCK_FREE && c->opt.info.ports == HM_PORTS_BUS)
        hm__cfg_error(c,
                      "clock.mode: found \"free\"; allowed: \"slotted\" under the bus port model");
}

/* "seed": an integer >= 0. */
static void check_seed(hm__config_t *c, json_t *root)
{
    json_t *seed = json_object_get(root, "seed");
    if (seed) {
        if (!json_is_integer(seed) || json_integer_value(seed) < 0)
            hm__cfg_wrong(c, "seed", seed, "an integer >= 0");
        else
            c->opt.info.seed = (uint64_t)json_integer_value(seed);
    }
}

/* "output": the files to write, the timeline's nodes, the budget. */
static void check_output(hm__config_t *c, json_t *root)
{
    json_t *o = hm__cfg_get_object(c, root, "output", 0);
    if (o) {
        hm__cfg_table_keys(c, "output", NULL, o);
        c->out_timeline = hm__cfg_get_path(c, o, "timeline");
        c->out_trace = hm__cfg_get_path(c, o, "trace");
        c->out_events = hm__cfg_get_path(c, o, "events");
        c->out_svg = hm__cfg_get_path(c, o, "svg");
        c->svg_colour = hm__cfg_key_enum(c, o, HM__K_OUTPUT_SVG_COLOUR,
                                         (int)hm__config_keys[HM__K_OUTPUT_SVG_COLOUR].def);
        c->out_otf2 = hm__cfg_get_path(c, o, "otf2");
        c->out_html = hm__cfg_get_path(c, o, "html");
        c->out_max_bytes = hm__cfg_key_int(c, o, HM__K_OUTPUT_MAX_BYTES, 0);
        json_t *nodes = json_object_get(o, "nodes");
        if (nodes)
            c->out_show = parse_nodes(c, nodes);
#ifndef HM_HAVE_OTF2
        if (c->out_otf2)
            hm__cfg_error(c,
                          "output.otf2: this hypemu was built without the OTF2 library; allowed: "
                          "no output.otf2, or install libopen-trace-format2-dev and run "
                          "./configure again");
#else
        /* The writer replaces its target whole: only an archive it wrote (README
         * "Outputs"). */
        char why[400];
        if (c->out_otf2 && hm__otf2_target(c->out_otf2, why, sizeof why) != 0)
            hm__cfg_error(
                c,
                "output.otf2: found \"%s\", %s; allowed: a path that does not exist yet, or "
                "an OTF2 archive written before (traces.otf2, traces.def and traces/ "
                "only), which the run replaces",
                c->out_otf2, why);
#endif
        check_distinct_outputs(c);
    }
}

/* What the judge needs the nodes' reads for (engine/causal.c, README "What verified
 * means"): the causal past of a problem's values, or of any plugin's, and the player's
 * "what each node knows" (out/knows.c); the words carried, where the problem's check
 * judges values passed on unchanged. */
static void judged_reads(hm__config_t *c)
{
    const hm_algorithm_t *a = c->algo;
    if (!a)
        return;
    hm_problem_t k = a->problem;
    c->opt.record_reads = k != HM_PROBLEM_NONE || hm__plugin_file(a) != NULL || c->out_html;
    int forwards = k == HM_PROBLEM_BROADCAST || k == HM_PROBLEM_SCATTER || k == HM_PROBLEM_GATHER ||
                   k == HM_PROBLEM_ALLGATHER || k == HM_PROBLEM_ALLTOALL;
    c->opt.record_words = c->opt.record_reads && forwards && hm__problem_checked(a);
}

/* HM_THREAD_FIGURES=1: the summary's "threads" in every clock mode (doc/contention.md,
 * "The sweep"). */
static int thread_figures_wanted(void)
{
    const char *tf = getenv("HM_THREAD_FIGURES");
    return tf && strcmp(tf, "1") == 0;
}

/* mailbox, contention and stack_kib, with an MPI program's defaults. */
static void check_buffers(hm__config_t *c, json_t *root)
{
    const hm__config_key_t *k = hm__config_keys;
    /* An MPI program's defaults are MPI's eager buffering (doc/mpi-programs.md): mailboxes
     * of the largest capacity, so that a send never waits for its receiver to read (an
     * MPI_Sendrecv or Isend of any length completes), and "queue". */
    int mpi = c->algo && hm__plugin_mpi(c->algo);
    if (mpi)
        c->opt.mailbox_capacity = (int)k[HM__K_MAILBOX_CAPACITY].max;
    json_t *mb = hm__cfg_get_object(c, root, "mailbox", 0);
    if (mb) {
        hm__cfg_table_keys(c, "mailbox", NULL, mb);
        if (json_object_get(mb, "capacity") || !mpi)
            c->opt.mailbox_capacity = (int)hm__cfg_key_int(c, mb, HM__K_MAILBOX_CAPACITY, 0);
    }
    int pol = hm__cfg_key_enum(c, root, HM__K_CONTENTION, mpi ? 1 : (int)k[HM__K_CONTENTION].def);
    /* "stack_kib" (README "Exit codes"): an MPI program's default is 1 MiB, its arrays on
     * its stack (main). */
    if (json_object_get(root, "stack_kib"))
        c->opt.stack_size = (size_t)hm__cfg_key_int(c, root, HM__K_STACK_KIB, 0) * 1024;
    else if (mpi && !c->opt.stack_size)
        c->opt.stack_size = 1024 * 1024;
    c->opt.contention = pol == 1 ? HM__CONTENTION_QUEUE : HM__CONTENTION_STRICT;
}

static void check_document(hm__config_t *c)
{
    json_t *root = c->root;
    const hm__config_key_t *k = hm__config_keys;
    if (!json_is_object(root)) {
        hm__cfg_wrong(c, "(top level)", root, "an object");
        return;
    }
    hm__cfg_table_keys(c, "", NULL, root);

    /* Defaults, for the objects that are absent. */
    c->opt.mailbox_capacity = (int)k[HM__K_MAILBOX_CAPACITY].def;
    c->opt.contention = (hm__contention_t)k[HM__K_CONTENTION].def;
    c->opt.max_slots = k[HM__K_CLOCK_MAX_SLOTS].def;
    c->opt.slot_timeout = (double)k[HM__K_CLOCK_SLOT_TIMEOUT].def;
    c->opt.info.seed = (uint64_t)k[HM__K_SEED].def;
    c->out_max_bytes = k[HM__K_OUTPUT_MAX_BYTES].def;
    c->svg_colour = (int)k[HM__K_OUTPUT_SVG_COLOUR].def;

    json_t *t = hm__cfg_get_object(c, root, "topology", 1);
    size_t before = c->nerrors;
    if (t)
        check_topology(c, t);
    c->topology_ok = t && c->nerrors == before;
    /* "sandbox": true, before any plugin of the config is loaded (README "Sandbox"; the
     * command line's --plugin files: cli/main.c reads the key before it loads them). */
    json_t *sandbox = json_object_get(root, "sandbox");
    if (sandbox && !json_is_boolean(sandbox))
        hm__cfg_wrong(c, "sandbox", sandbox, "true or false");
    else if (json_is_true(sandbox))
        hm__plugin_sandbox(1);
    json_t *plugins = json_object_get(root, "plugins");
    if (plugins)
        check_plugins(c, plugins);
    /* Sandboxed, a plugin's own verify is its author's word: it counts as nothing checked
     * (README "What verified means"). */
    c->plugin_verify_uncounted = hm__plugin_sandboxed();
    json_t *a = hm__cfg_get_object(c, root, "algorithm", 1);
    if (a)
        check_algorithm(c, a);
    json_t *p = json_object_get(root, "ports");
    if (p && !json_is_object(p)) {
        hm__cfg_wrong(c, "ports", p, "an object");
        p = NULL;
    }
    check_ports(c, p);

    check_buffers(c, root);

    check_clock(c, root);
    check_seed(c, root);
    check_output(c, root);
    c->opt.record_events = c->out_timeline || c->out_trace || c->out_events || c->out_svg ||
                           c->out_otf2 || c->out_html;
    judged_reads(c);
    c->opt.record_page = c->out_html != NULL;
    c->opt.thread_figures = thread_figures_wanted();
    if (c->algo && c->topology_ok)
        check_fit(c);
}

static int finish_load(hm__config_t *c, char *const *sets, int nsets)
{
    for (int i = 0; i < nsets; i++)
        if (json_is_object(c->root))
            hm__cfg_apply_set(c, sets[i]);
    if (c->nerrors == 0)
        check_document(c);
    return c->nerrors ? HM_EXIT_USAGE : HM_EXIT_OK;
}

int hm__config_load_buffer(hm__config_t *c, const char *name, const char *text, size_t len,
                           char *const *sets, int nsets)
{
    memset(c, 0, sizeof *c);
    c->file = strdup(name);
    json_error_t je;
    c->root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (!c->root) {
        hm__cfg_error(c, "line %d, column %d: invalid JSON: %s", je.line, je.column, je.text);
        return HM_EXIT_USAGE;
    }
    return finish_load(c, sets, nsets);
}

int hm__config_load_string(hm__config_t *c, const char *name, const char *text, char *const *sets,
                           int nsets)
{
    return hm__config_load_buffer(c, name, text, strlen(text), sets, nsets);
}

/* errno values of open(2) that mean the path names no readable file: the user's
 * mistake (exit 2). Others (no memory, too many open files, I/O) are the system's. */
static int path_errno(int e)
{
    return e == ENOENT || e == EACCES || e == EPERM || e == ENOTDIR || e == ENAMETOOLONG ||
           e == ELOOP || e == EISDIR || e == ENXIO || e == ENODEV;
}

int hm__config_load(hm__config_t *c, const char *file, char *const *sets, int nsets)
{
    memset(c, 0, sizeof *c);
    c->file = strdup(file);
    json_error_t je;
    FILE *f = fopen(file, "rb");
    struct stat st;
    if (f && fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        /* fopen opens a directory for reading; reading it fails later with EISDIR. */
        fclose(f);
        f = NULL;
        errno = EISDIR;
    }
    if (!f) {
        int e = errno;
        hm__cfg_error(c, "cannot open: %s%s", strerror(e),
                      e == EISDIR ? "; allowed: a JSON file" : "");
        return path_errno(e) ? HM_EXIT_USAGE : HM_EXIT_SYSTEM;
    }
    c->root = json_loadf(f, JSON_REJECT_DUPLICATES, &je);
    int read_error = ferror(f) ? errno : 0;
    fclose(f);
    if (read_error) {
        json_decref(c->root);
        c->root = NULL;
        hm__cfg_error(c, "cannot read: %s", strerror(read_error));
        return HM_EXIT_SYSTEM;
    }
    if (!c->root) {
        hm__cfg_error(c, "line %d, column %d: invalid JSON: %s", je.line, je.column, je.text);
        return HM_EXIT_USAGE;
    }
    return finish_load(c, sets, nsets);
}

void hm__config_free(hm__config_t *c)
{
    json_decref(c->root);
    free(c->file);
    free(c->out_timeline);
    free(c->out_trace);
    free(c->out_events);
    free(c->out_svg);
    free(c->out_html);
    free(c->out_otf2);
    free(c->out_show);
    for (size_t i = 0; i < c->nerrors; i++)
        free(c->errors[i]);
    free(c->errors);
    memset(c, 0, sizeof *c);
}

int hm__config_setup(const hm__config_t *c, hm_setup_t *s, char **message)
{
    memset(s, 0, sizeof *s);
    s->machine = &c->opt.info;
    s->params = c->algo_params;
    s->file = c->file;
    s->algorithm = c->algo;
    *message = NULL;
    if (!c->algo->setup || c->algo->setup(s) == 0)
        return HM_EXIT_OK;
    *message = strdup(s->error[0] ? s->error : "algorithm setup failed");
    return s->error[0] ? HM_EXIT_USAGE : HM_EXIT_SYSTEM;
}

void hm__config_print_errors(const hm__config_t *c, FILE *f)
{
    for (size_t i = 0; i < c->nerrors; i++)
        fprintf(f, "%s\n", c->errors[i]);
}

/* --validate's warnings (doc/clocks.md "Free-running mode"): settings the config gives that
 * change nothing in the chosen mode. Under the free clock a packet is in flight until
 * its receiver reads it, and the port model bounds the packets in flight, so a link's
 * mailbox never holds more than that bound (ports.link_capacity under all-port, one
 * otherwise), and under circuit routing messages go into mailboxes unbounded; there are
 * no slots to judge, so no contention policy. Returns the number printed. */
int hm__config_warnings(const hm__config_t *c, FILE *f)
{
    const hm__options_t *o = &c->opt;
    int n = 0;
    if (o->clock != HM_CLOCK_FREE)
        return 0;
    if (json_is_integer(json_object_get(json_object_get(c->root, "mailbox"), "capacity"))) {
        int inflight = o->info.ports == HM_PORTS_ALL_PORT ? o->info.link_capacity : 1;
        if (o->info.circuit)
            n += fprintf(f,
                         "hypemu: %s: warning: mailbox.capacity has no effect in free mode under "
                         "circuit routing: messages go into the mailboxes unbounded\n",
                         c->file) > 0;
        else if (o->mailbox_capacity > inflight)
            n += fprintf(f,
                         "hypemu: %s: warning: mailbox.capacity %d has no effect in free mode: "
                         "the %s model lets at most %d packet%s in flight on a link (until its "
                         "receiver reads it), so no mailbox holds more\n",
                         c->file, o->mailbox_capacity, hm_ports_name(o->info.ports), inflight,
                         inflight > 1 ? "s" : "") > 0;
    }
    if (json_object_get(c->root, "contention"))
        n += fprintf(f,
                     "hypemu: %s: warning: contention has no effect in free mode: no slot is "
                     "judged, conflicts do not exist\n",
                     c->file) > 0;
    return n;
}
