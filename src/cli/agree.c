/* SPDX-License-Identifier: MIT */
/*
 * agree.c — what the ranks of hypemu-mpi must share before slot 0 (doc/mpi.md, "Every
 * rank runs the same config"). Each rank replicates the commit of every slot, so ranks
 * that read another clock.max_slots, topology, seed, port model or plugin would wait
 * for one another forever, read past each other's tables or verify different runs.
 * Each rank therefore describes the run it is about to make, as canonical JSON (sorted
 * keys, so that two equal runs give equal bytes), and the ranks compare the FNV-1a
 * digests of their descriptions (engine/mpi.c); on a difference rank 0 names the first
 * differing key from the two texts.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/agree.h"
#include "cli/plugin.h"

uint64_t hm__fnv1a(const void *p, size_t n, uint64_t h)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= UINT64_C(0x100000001b3);
    }
    return h;
}

/* The digest of a file's bytes as 16 hex digits, or why it cannot be read. */
static json_t *file_digest(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return json_sprintf("unreadable: %s", strerror(errno));
    unsigned char buf[65536];
    uint64_t h = HM__FNV_BASIS;
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        h = hm__fnv1a(buf, n, h);
    int bad = ferror(f);
    fclose(f);
    return bad ? json_string("unreadable") : json_sprintf("%016llx", (unsigned long long)h);
}

/* root[section][key] = v (root[key] without a section); the section is made when it is
 * missing. */
static void put(json_t *root, const char *section, const char *key, json_t *v)
{
    json_t *o = section ? json_object_get(root, section) : root;
    if (!json_is_object(o)) {
        o = json_object();
        json_object_set_new(root, section, o);
    }
    json_object_set_new(o, key, v);
}

/* The document after --set, with the values config.c resolved for the keys the
 * engine reads (a default and the same value written out are the same run). The
 * algorithm's own defaults are in the document already (config.c, fill_defaults). */
static json_t *resolved(const hm__config_t *c)
{
    json_t *r = json_deep_copy(c->root);
    if (!json_is_object(r))
        return r;
    const hm_machine_info_t *in = &c->opt.info;
    const char *mode = hm_clock_name(c->opt.clock);
    put(r, "ports", "model", json_string(hm_ports_name(in->ports)));
    put(r, "ports", "routing",
        json_string(hm_routing_name(in->circuit ? HM_ROUTING_CIRCUIT : HM_ROUTING_PACKET)));
    put(r, "ports", "link_capacity", json_integer(in->link_capacity));
    put(r, "mailbox", "capacity", json_integer(c->opt.mailbox_capacity));
    put(r, NULL, "contention",
        json_string(c->opt.contention == HM__CONTENTION_QUEUE ? "queue" : "strict"));
    put(r, "clock", "mode", json_string(mode));
    put(r, "clock", "max_slots", json_integer(c->opt.max_slots));
    put(r, NULL, "seed", json_integer((json_int_t)in->seed));
    put(r, "output", "max_bytes", json_integer(c->out_max_bytes));
    return r;
}

char *hm__agree_text(const hm__config_t *cfg, const hm__agree_t *a)
{
    json_t *plugins = json_array(), *env = json_object();
    const char *f;
    for (size_t i = 0; plugins && (f = hm__plugin_loaded(i)); i++)
        json_array_append_new(plugins, file_digest(f));
    if (env && a->stats)
        json_object_set_new(env, "HM_MPI_STATS", json_string(a->stats));
    json_t *stop =
        a->stop < 0 ? json_null() : json_pack("{s:i, s:s?}", "exit", a->stop, "message", a->why);
    json_t *d =
        json_pack("{s:o?, s:o, s:{s:b, s:i}, s:o, s:o, s:s}", "config", cfg ? resolved(cfg) : NULL,
                  "plugins", plugins, "options", "--validate", a->validate, "--repeat", a->repeat,
                  "environment", env, "stop", stop, "hypemu", HM_VERSION);
    char *s = d ? json_dumps(d, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    json_decref(d);
    return s;
}

/* ---- the first difference -------------------------------------------------------- */

/* The least key of a or b after `after` (NULL: the least), in strcmp order. */
static const char *next_key(const json_t *a, const json_t *b, const char *after)
{
    const char *best = NULL, *k;
    json_t *v;
    const json_t *o[2] = {a, b};
    for (int i = 0; i < 2; i++)
        json_object_foreach((json_t *)o[i], k, v) {
            (void)v;
            if ((!after || strcmp(k, after) > 0) && (!best || strcmp(k, best) < 0))
                best = k;
        }
    return best;
}

/* The first place where a and b differ, depth first in sorted key order: path gets it
 * ("clock.max_slots", "algorithm.inputs[2]"), *x and *y the two values there (NULL:
 * absent). Returns 1 when they differ. */
static int first_diff(const json_t *a, const json_t *b, char *path, size_t len, const json_t **x,
                      const json_t **y)
{
    size_t at = strlen(path);
    if (json_is_object(a) && json_is_object(b)) {
        for (const char *k = next_key(a, b, NULL); k; k = next_key(a, b, k)) {
            snprintf(path + at, len - at, "%s%s", at ? "." : "", k);
            if (first_diff(json_object_get(a, k), json_object_get(b, k), path, len, x, y))
                return 1;
        }
    } else if (json_is_array(a) && json_is_array(b)) {
        size_t n =
            json_array_size(a) > json_array_size(b) ? json_array_size(a) : json_array_size(b);
        for (size_t i = 0; i < n; i++) {
            snprintf(path + at, len - at, "[%zu]", i);
            if (first_diff(json_array_get(a, i), json_array_get(b, i), path, len, x, y))
                return 1;
        }
    } else if (!(a && b && json_equal((json_t *)a, (json_t *)b))) {
        *x = a;
        *y = b;
        return 1;
    }
    path[at] = 0;
    return 0;
}

/* A value in a message, cut after 60 characters. */
static char *show(const json_t *v)
{
    if (!v)
        return strdup("nothing");
    char *s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT | JSON_SORT_KEYS);
    if (s && strlen(s) > 60)
        strcpy(s + 57, "...");
    return s ? s : strdup("?");
}

/* One rank stops before the run and the other does not, or both with other codes. */
static char *say_stop(const json_t *sa, const json_t *sb, int r)
{
    int ea = (int)json_integer_value(json_object_get(sa, "exit"));
    int eb = (int)json_integer_value(json_object_get(sb, "exit"));
    if (json_is_null(sa)) {
        const char *why = json_string_value(json_object_get(sb, "message"));
        return hm__strdup_printf("rank %d stops before the run with exit %d, rank 0 does not%s%s",
                                 r, eb, why ? ": " : "", why ? why : "");
    }
    if (json_is_null(sb))
        return hm__strdup_printf("rank 0 stops before the run with exit %d, rank %d does not", ea,
                                 r);
    return hm__strdup_printf("rank %d stops before the run with exit %d, rank 0 with exit %d", r,
                             eb, ea);
}

/* Plugins: their number, or the first whose bytes differ (named by rank 0's file). */
static char *say_plugins(const json_t *pa, const json_t *pb, int r)
{
    size_t na = json_array_size(pa), nb = json_array_size(pb);
    for (size_t i = 0; i < na && i < nb; i++) {
        const char *da = json_string_value(json_array_get(pa, i));
        const char *db = json_string_value(json_array_get(pb, i));
        if (da && db && strcmp(da, db) != 0) {
            const char *file = hm__plugin_loaded(i);
            return hm__strdup_printf("rank %d's plugin %zu differs from rank 0's (%s): the "
                                     "FNV-1a digest of its bytes is %s against %s",
                                     r, i + 1, file ? file : "?", db, da);
        }
    }
    return hm__strdup_printf("rank %d loads %zu plugin%s, rank 0 %zu", r, nb, nb == 1 ? "" : "s",
                             na);
}

static char *say_difference(const json_t *a, const json_t *b, int r)
{
    const json_t *sa = json_object_get(a, "stop"), *sb = json_object_get(b, "stop");
    if (!json_equal((json_t *)sa, (json_t *)sb))
        return say_stop(sa, sb, r);
    const char *va = json_string_value(json_object_get(a, "hypemu"));
    const char *vb = json_string_value(json_object_get(b, "hypemu"));
    if (!va || !vb || strcmp(va, vb) != 0)
        return hm__strdup_printf("rank %d runs hypemu %s, rank 0 hypemu %s", r, vb ? vb : "?",
                                 va ? va : "?");
    const json_t *pa = json_object_get(a, "plugins"), *pb = json_object_get(b, "plugins");
    if (!json_equal((json_t *)pa, (json_t *)pb))
        return say_plugins(pa, pb, r);
    static const char *const sections[][2] = {
        {"options", "command line"}, {"environment", "environment"}, {"config", "config"}};
    for (size_t i = 0; i < sizeof sections / sizeof *sections; i++) {
        char path[512] = "";
        const json_t *x = NULL, *y = NULL;
        if (!first_diff(json_object_get(a, sections[i][0]), json_object_get(b, sections[i][0]),
                        path, sizeof path, &x, &y))
            continue;
        char *sx = show(x), *sy = show(y);
        char *msg = hm__strdup_printf("rank %d's %s differs from rank 0's at %s (%s against %s)", r,
                                      sections[i][1], path[0] ? path : "its top", sy ? sy : "?",
                                      sx ? sx : "?");
        free(sx);
        free(sy);
        return msg;
    }
    return NULL;
}

char *hm__agree_difference(const char *mine, const char *theirs, int rank)
{
    json_t *a = json_loads(mine, 0, NULL), *b = json_loads(theirs, 0, NULL);
    char *msg = a && b ? say_difference(a, b, rank) : NULL;
    json_decref(a);
    json_decref(b);
    return msg;
}
