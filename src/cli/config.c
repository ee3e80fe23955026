/*
 * config.c — reads and checks the config of SPEC section 2.
 *
 * Every check adds a message "FILE: PATH: found X; allowed: Y" and goes on, so that
 * --validate lists every error at once. Unknown keys are errors: a typo must not be
 * silently ignored. Defaults are documented in README.md ("Config reference").
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

static void add_error(hm__config_t *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void add_error(hm__config_t *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *body = NULL;
    if (vasprintf(&body, fmt, ap) < 0)
        body = NULL;
    va_end(ap);
    char *msg =
        hm__strdup_printf("%s: %s", c->file ? c->file : "(config)", body ? body : "out of memory");
    free(body);
    if (!msg)
        return;
    if (c->nerrors == c->errcap &&
        hm__grow((void **)&c->errors, &c->errcap, c->nerrors + 1, sizeof *c->errors) != 0) {
        free(msg);
        return;
    }
    c->errors[c->nerrors++] = msg;
}

/* What a JSON value looks like in a message. */
static char *show(const json_t *v)
{
    if (!v)
        return strdup("nothing");
    char *s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
    if (s && strlen(s) > 60) {
        s[57] = s[58] = s[59] = '.';
        s[60] = 0;
    }
    return s ? s : strdup("?");
}

static void wrong(hm__config_t *c, const char *path, const json_t *found, const char *allowed)
{
    char *f = show(found);
    add_error(c, "%s: found %s; allowed: %s", path, f ? f : "?", allowed);
    free(f);
}

/* Reject keys of `obj` that are not in the NULL-terminated list. */
static void only_keys(hm__config_t *c, const char *path, json_t *obj, const char *const *keys)
{
    const char *k;
    json_t *v;
    json_object_foreach(obj, k, v) {
        int ok = 0;
        for (size_t i = 0; keys[i]; i++)
            ok |= strcmp(k, keys[i]) == 0;
        if (ok)
            continue;
        char allowed[512] = "";
        for (size_t i = 0; keys[i]; i++) {
            if (i)
                strncat(allowed, ", ", sizeof allowed - strlen(allowed) - 1);
            strncat(allowed, keys[i], sizeof allowed - strlen(allowed) - 1);
        }
        add_error(c, "%s%s%s: unknown key; allowed keys: %s", path, *path ? "." : "", k,
                  allowed[0] ? allowed : "(none)");
    }
}

/* An integer field with a range; returns def when absent. */
static int64_t get_int(hm__config_t *c, json_t *obj, const char *parent, const char *key,
                       int64_t def, int64_t min, int64_t max, int required)
{
    char path[128];
    snprintf(path, sizeof path, "%s%s%s", parent, *parent ? "." : "", key);
    json_t *v = obj ? json_object_get(obj, key) : NULL;
    char allowed[96];
    snprintf(allowed, sizeof allowed, "an integer from %lld to %lld", (long long)min,
             (long long)max);
    if (!v) {
        if (required)
            add_error(c, "%s: missing; allowed: %s", path, allowed);
        return def;
    }
    if (!json_is_integer(v) || json_integer_value(v) < min || json_integer_value(v) > max) {
        wrong(c, path, v, allowed);
        return def;
    }
    return json_integer_value(v);
}

static double get_number(hm__config_t *c, json_t *obj, const char *parent, const char *key,
                         double def)
{
    char path[128];
    snprintf(path, sizeof path, "%s.%s", parent, key);
    json_t *v = json_object_get(obj, key);
    if (!v)
        return def;
    if (!json_is_number(v) || json_number_value(v) < 0) {
        wrong(c, path, v, "a number >= 0");
        return def;
    }
    return json_number_value(v);
}

/* A string field that must be one of `names` (NULL-terminated); returns its index,
 * def when absent, -1 on error. */
static int get_enum(hm__config_t *c, json_t *obj, const char *path, const char *key,
                    const char *const *names, int def)
{
    json_t *v = obj ? json_object_get(obj, key) : NULL;
    char full[128];
    snprintf(full, sizeof full, "%s%s%s", path, *path ? "." : "", key);
    char allowed[512] = "";
    for (size_t i = 0; names[i]; i++) {
        if (i)
            strncat(allowed, ", ", sizeof allowed - strlen(allowed) - 1);
        strncat(allowed, "\"", sizeof allowed - strlen(allowed) - 1);
        strncat(allowed, names[i], sizeof allowed - strlen(allowed) - 1);
        strncat(allowed, "\"", sizeof allowed - strlen(allowed) - 1);
    }
    if (!v) {
        if (def < 0)
            add_error(c, "%s: missing; allowed: %s", full, allowed);
        return def;
    }
    if (json_is_string(v))
        for (size_t i = 0; names[i]; i++)
            if (strcmp(json_string_value(v), names[i]) == 0)
                return (int)i;
    wrong(c, full, v, allowed);
    return -1;
}

static json_t *get_object(hm__config_t *c, json_t *root, const char *key, int required)
{
    json_t *v = json_object_get(root, key);
    if (!v) {
        if (required)
            add_error(c, "%s: missing; allowed: an object", key);
        return NULL;
    }
    if (!json_is_object(v)) {
        wrong(c, key, v, "an object");
        return NULL;
    }
    return v;
}

static char *get_path(hm__config_t *c, json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    if (!v)
        return NULL;
    char path[64];
    snprintf(path, sizeof path, "output.%s", key);
    if (!json_is_string(v) || json_string_length(v) == 0) {
        wrong(c, path, v, "a file name");
        return NULL;
    }
    return strdup(json_string_value(v));
}

static const char *const topology_names[] = {
#define XX(id, name, desc) name,
    HM_TOPOLOGY_MAP(XX)
#undef XX
        NULL};
static const char *const ports_names[] = {
#define XX(id, name, desc) name,
    HM_PORTS_MAP(XX)
#undef XX
        NULL};

static void check_topology(hm__config_t *c, json_t *t)
{
    hm_machine_info_t *in = &c->opt.info;
    int k = get_enum(c, t, "topology", "kind", topology_names, -1);
    if (k < 0)
        return;
    in->topology = (hm_topology_kind_t)k;
    switch (in->topology) {
    case HM_TOPO_HYPERCUBE: {
        static const char *const keys[] = {"kind", "dim", NULL};
        only_keys(c, "topology", t, keys);
        in->dim = (int)get_int(c, t, "topology", "dim", 0, 0, 16, 1);
        in->nodes = 1 << in->dim;
        in->rows = 1;
        in->cols = in->nodes;
        break;
    }
    case HM_TOPO_LINEAR: {
        static const char *const keys[] = {"kind", "nodes", NULL};
        only_keys(c, "topology", t, keys);
        in->nodes = (int)get_int(c, t, "topology", "nodes", 1, 1, 32768, 1);
        in->rows = 1;
        in->cols = in->nodes;
        break;
    }
    case HM_TOPO_MESH: {
        static const char *const keys[] = {"kind", "rows", "cols", NULL};
        only_keys(c, "topology", t, keys);
        in->rows = (int)get_int(c, t, "topology", "rows", 1, 1, 32768, 1);
        in->cols = (int)get_int(c, t, "topology", "cols", 1, 1, 32768, 1);
        if ((int64_t)in->rows * in->cols > 32768) {
            add_error(c, "topology: found %d x %d = %lld nodes; allowed: at most 32768 nodes",
                      in->rows, in->cols, (long long)in->rows * in->cols);
            in->rows = in->cols = 1;
        }
        in->nodes = in->rows * in->cols;
        break;
    }
    case HM_TOPO_BUS: {
        static const char *const keys[] = {"kind", "nodes", NULL};
        only_keys(c, "topology", t, keys);
        /* 65: a broadcast is one shout over 64-bit port masks (topo/topology.c). */
        in->nodes = (int)get_int(c, t, "topology", "nodes", 2, 2, 65, 1);
        in->rows = 1;
        in->cols = in->nodes;
        break;
    }
    case HM_TOPO_COUNT:
        break;
    }
}

static void check_ports(hm__config_t *c, json_t *p)
{
    static const char *const keys[] = {"model", "link_capacity", "routing", "cost", NULL};
    static const char *const routings[] = {"packet", "circuit", NULL};
    hm_machine_info_t *in = &c->opt.info;
    in->link_capacity = 1;
    /* Circuit routing is the default on linear arrays and meshes, where Seidel's
     * model (SPEC section 5) is the one the algorithms need; cost defaults: a = 2^nu
     * (abar = 1), b = 1, rho = 0 slots. */
    int grid = in->topology == HM_TOPO_LINEAR || in->topology == HM_TOPO_MESH;
    in->circuit = grid;
    in->cost_abar = 1;
    in->cost_b = 1;
    in->cost_rho = 0;
    int defmodel = c->algo ? (int)c->algo->default_ports
                           : (in->topology == HM_TOPO_BUS ? HM_PORTS_BUS : HM_PORTS_ALL_PORT);
    if (!p) {
        in->ports = (hm_ports_kind_t)defmodel;
        in->cost_a = in->cost_abar;
        return;
    }
    only_keys(c, "ports", p, keys);
    int k = get_enum(c, p, "ports", "model", ports_names, defmodel);
    in->ports = (hm_ports_kind_t)(k < 0 ? defmodel : k);
    in->link_capacity = (int)get_int(c, p, "ports", "link_capacity", 1, 1, 1 << 20, 0);
    in->circuit = get_enum(c, p, "ports", "routing", routings, grid) == 1;
    in->cost_a = in->cost_abar * in->link_capacity;
    json_t *cost = json_object_get(p, "cost");
    if (cost) {
        static const char *const ckeys[] = {"a", "abar", "b", "rho", NULL};
        if (!json_is_object(cost)) {
            wrong(c, "ports.cost", cost, "an object {\"a\", \"abar\", \"b\", \"rho\"}");
        } else {
            only_keys(c, "ports.cost", cost, ckeys);
            c->cost.set = 1;
            c->cost.b = get_number(c, cost, "ports.cost", "b", 1);
            c->cost.rho = get_number(c, cost, "ports.cost", "rho", 0);
            c->cost.abar = get_number(c, cost, "ports.cost", "abar", 1);
            /* Seidel section 2: a = 2^nu * abar unless given (and abar = a / 2^nu
             * when only a is). */
            c->cost.a = get_number(c, cost, "ports.cost", "a", c->cost.abar * in->link_capacity);
            if (!json_object_get(cost, "abar"))
                c->cost.abar = c->cost.a / in->link_capacity;
            in->cost_a = c->cost.a;
            in->cost_abar = c->cost.abar;
            in->cost_b = c->cost.b;
            in->cost_rho = c->cost.rho;
        }
    }
}

static void check_params(hm__config_t *c, json_t *a)
{
    const hm_algorithm_t *al = c->algo;
    /* Unknown parameters. */
    const char *k;
    json_t *v;
    json_object_foreach(a, k, v) {
        if (strcmp(k, "name") == 0)
            continue;
        const hm_param_t *p = al->params;
        while (p && p->name && strcmp(p->name, k) != 0)
            p++;
        if (p && p->name) {
            char path[128];
            snprintf(path, sizeof path, "algorithm.%s", k);
            if (p->type == HM_PARAM_STRING) {
                int ok = 0;
                if (json_is_string(v)) {
                    const char *s = json_string_value(v), *q = p->allowed;
                    size_t len = strlen(s);
                    while (q && *q) {
                        const char *bar = strchr(q, '|');
                        size_t ql = bar ? (size_t)(bar - q) : strlen(q);
                        ok |= ql == len && strncmp(q, s, len) == 0;
                        q = bar ? bar + 1 : NULL;
                    }
                }
                if (!ok) {
                    char allowed[256];
                    snprintf(allowed, sizeof allowed, "one of %s", p->allowed);
                    wrong(c, path, v, allowed);
                }
            } else if (p->type == HM_PARAM_INT && !json_is_integer(v)) {
                wrong(c, path, v, p->allowed);
            } else if (p->type == HM_PARAM_INT_LIST) {
                int ok = json_is_array(v);
                size_t i;
                json_t *e;
                json_array_foreach(v, i, e)
                    ok &= json_is_integer(e);
                if (!ok)
                    wrong(c, path, v, "a list of integers");
            }
            continue;
        }
        char allowed[512] = "name";
        for (p = al->params; p && p->name; p++) {
            strncat(allowed, ", ", sizeof allowed - strlen(allowed) - 1);
            strncat(allowed, p->name, sizeof allowed - strlen(allowed) - 1);
        }
        add_error(c, "algorithm.%s: unknown parameter of %s; allowed keys: %s", k, al->name,
                  allowed);
    }
}

static void check_algorithm(hm__config_t *c, json_t *a)
{
    json_t *name = json_object_get(a, "name");
    char allowed[1024] = "";
    for (size_t i = 0; hm_algorithms[i]; i++) {
        if (i)
            strncat(allowed, ", ", sizeof allowed - strlen(allowed) - 1);
        strncat(allowed, hm_algorithms[i]->name, sizeof allowed - strlen(allowed) - 1);
    }
    if (!name) {
        add_error(c, "algorithm.name: missing; allowed: %s", allowed);
        return;
    }
    c->algo = json_is_string(name) ? hm_algorithm_find(json_string_value(name)) : NULL;
    if (!c->algo) {
        wrong(c, "algorithm.name", name, allowed);
        return;
    }
    c->algo_params = a;
    check_params(c, a);
}

/* After topology, ports and algorithm are known: do they fit together? */
static void check_fit(hm__config_t *c)
{
    const hm_algorithm_t *al = c->algo;
    hm_machine_info_t *in = &c->opt.info;
    if (!(al->topologies & HM_BIT(in->topology))) {
        char allowed[256] = "";
        for (int t = 0; t < HM_TOPO_COUNT; t++)
            if (al->topologies & HM_BIT(t)) {
                if (allowed[0])
                    strcat(allowed, ", ");
                strcat(allowed, hm_topology_name((hm_topology_kind_t)t));
            }
        add_error(c, "topology.kind: found \"%s\"; allowed for %s: %s",
                  hm_topology_name(in->topology), al->name, allowed);
    }
    if (!(al->ports & HM_BIT(in->ports))) {
        char allowed[256] = "";
        for (int p = 0; p < HM_PORTS_COUNT; p++)
            if (al->ports & HM_BIT(p)) {
                if (allowed[0])
                    strcat(allowed, ", ");
                strcat(allowed, hm_ports_name((hm_ports_kind_t)p));
            }
        add_error(c, "ports.model: found \"%s\"; allowed for %s: %s", hm_ports_name(in->ports),
                  al->name, allowed);
    }
}

static void check_document(hm__config_t *c)
{
    json_t *root = c->root;
    static const char *const keys[] = {"topology", "ports", "mailbox", "contention", "algorithm",
                                       "clock",    "seed",  "output",  NULL};
    if (!json_is_object(root)) {
        wrong(c, "(top level)", root, "an object");
        return;
    }
    only_keys(c, "", root, keys);

    /* Defaults. */
    c->opt.mailbox_capacity = 4;
    c->opt.contention = HM__CONTENTION_STRICT;
    c->opt.max_slots = 1000000;
    c->opt.info.seed = 1;

    json_t *t = get_object(c, root, "topology", 1);
    if (t)
        check_topology(c, t);
    json_t *a = get_object(c, root, "algorithm", 1);
    if (a)
        check_algorithm(c, a);
    json_t *p = json_object_get(root, "ports");
    if (p && !json_is_object(p)) {
        wrong(c, "ports", p, "an object");
        p = NULL;
    }
    check_ports(c, p);

    json_t *mb = get_object(c, root, "mailbox", 0);
    if (mb) {
        static const char *const mkeys[] = {"capacity", NULL};
        only_keys(c, "mailbox", mb, mkeys);
        c->opt.mailbox_capacity = (int)get_int(c, mb, "mailbox", "capacity", 4, 1, 1 << 20, 0);
    }
    static const char *const policies[] = {"strict", "queue", NULL};
    int pol = get_enum(c, root, "", "contention", policies, 0);
    c->opt.contention = pol == 1 ? HM__CONTENTION_QUEUE : HM__CONTENTION_STRICT;

    json_t *ck = get_object(c, root, "clock", 0);
    if (ck) {
        static const char *const ckeys[] = {"mode", "max_slots", NULL};
        static const char *const modes[] = {"slotted", "free", NULL};
        only_keys(c, "clock", ck, ckeys);
        c->opt.free_mode = get_enum(c, ck, "clock", "mode", modes, 0) == 1;
        c->opt.max_slots = get_int(c, ck, "clock", "max_slots", 1000000, 1, INT64_MAX / 4, 0);
    }
    /* The free-running clock (engine/free.c) has no slots to judge: it cannot hold
     * circuits for several slots nor share the bus's one channel. */
    if (c->opt.free_mode && c->opt.info.circuit)
        add_error(c, "clock.mode: found \"free\"; allowed: \"slotted\" under circuit routing "
                     "(ports.routing \"circuit\"; free mode needs \"packet\")");
    else if (c->opt.free_mode && c->opt.info.ports == HM_PORTS_BUS)
        add_error(c, "clock.mode: found \"free\"; allowed: \"slotted\" under the bus port model");
    json_t *seed = json_object_get(root, "seed");
    if (seed) {
        if (!json_is_integer(seed) || json_integer_value(seed) < 0)
            wrong(c, "seed", seed, "an integer >= 0");
        else
            c->opt.info.seed = (uint64_t)json_integer_value(seed);
    }
    json_t *o = get_object(c, root, "output", 0);
    if (o) {
        static const char *const okeys[] = {"timeline", "trace", "events", NULL};
        only_keys(c, "output", o, okeys);
        c->out_timeline = get_path(c, o, "timeline");
        c->out_trace = get_path(c, o, "trace");
        c->out_events = get_path(c, o, "events");
    }
    c->opt.record_events = c->out_timeline || c->out_trace || c->out_events;
    if (c->algo && t && c->nerrors == 0)
        check_fit(c);
}

/* --set PATH=VALUE: VALUE is JSON if it parses as JSON, a string otherwise; null
 * removes the field. */
static int apply_set(hm__config_t *c, const char *set)
{
    const char *eq = strchr(set, '=');
    if (!eq || eq == set) {
        add_error(c, "--set %s: expected PATH=VALUE, e.g. topology.dim=6", set);
        return -1;
    }
    json_t *val = json_loads(eq + 1, JSON_DECODE_ANY, NULL);
    if (!val)
        val = json_string(eq + 1);
    if (!val)
        return -1;
    char *path = strndup(set, (size_t)(eq - set));
    if (!path) {
        json_decref(val);
        return -1;
    }
    json_t *obj = c->root;
    char *save = NULL, *part = strtok_r(path, ".", &save);
    int rc = 0;
    while (part) {
        char *next = strtok_r(NULL, ".", &save);
        if (!json_is_object(obj)) {
            add_error(c, "--set %s: %s is not inside an object", set, part);
            rc = -1;
            break;
        }
        if (!next) {
            /* null removes the field, so that its default applies. */
            if (json_is_null(val))
                json_object_del(obj, part);
            else
                json_object_set(obj, part, val);
            break;
        }
        json_t *child = json_object_get(obj, part);
        if (!child) {
            child = json_object();
            json_object_set_new(obj, part, child);
        }
        obj = child;
        part = next;
    }
    free(path);
    json_decref(val);
    return rc;
}

static int finish_load(hm__config_t *c, char *const *sets, int nsets)
{
    for (int i = 0; i < nsets; i++)
        if (json_is_object(c->root))
            apply_set(c, sets[i]);
    if (c->nerrors == 0)
        check_document(c);
    return c->nerrors ? HM_EXIT_USAGE : HM_EXIT_OK;
}

int hm__config_load_string(hm__config_t *c, const char *name, const char *text, char *const *sets,
                           int nsets)
{
    memset(c, 0, sizeof *c);
    c->file = strdup(name);
    json_error_t je;
    c->root = json_loads(text, JSON_REJECT_DUPLICATES, &je);
    if (!c->root) {
        add_error(c, "line %d, column %d: invalid JSON: %s", je.line, je.column, je.text);
        return HM_EXIT_USAGE;
    }
    return finish_load(c, sets, nsets);
}

int hm__config_load(hm__config_t *c, const char *file, char *const *sets, int nsets)
{
    memset(c, 0, sizeof *c);
    c->file = strdup(file);
    json_error_t je;
    FILE *f = fopen(file, "rb");
    if (!f) {
        add_error(c, "cannot open: %s", strerror(errno));
        return errno == ENOENT || errno == EACCES ? HM_EXIT_USAGE : HM_EXIT_SYSTEM;
    }
    c->root = json_loadf(f, JSON_REJECT_DUPLICATES, &je);
    fclose(f);
    if (!c->root) {
        add_error(c, "line %d, column %d: invalid JSON: %s", je.line, je.column, je.text);
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
    for (size_t i = 0; i < c->nerrors; i++)
        free(c->errors[i]);
    free(c->errors);
    memset(c, 0, sizeof *c);
}

void hm__config_print_errors(const hm__config_t *c, FILE *f)
{
    for (size_t i = 0; i < c->nerrors; i++)
        fprintf(f, "%s\n", c->errors[i]);
}
