/* SPDX-License-Identifier: MIT */
/*
 * config_json.c — the checking kit of the config reader (config_json.h): every getter
 * checks one JSON value's type and range and, when it is wrong, adds the message
 * "FILE: PATH: found X; allowed: Y" and goes on, so that --validate lists every error at
 * once (doc/config.md; the keys, ranges and defaults of config_keys.h).
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "config_json.h"

void hm__cfg_error(hm__config_t *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *body = hm__vstrdup_printf(fmt, ap);
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
char *hm__cfg_show(const json_t *v)
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

void hm__cfg_wrong(hm__config_t *c, const char *path, const json_t *found, const char *allowed)
{
    char *f = hm__cfg_show(found);
    hm__cfg_error(c, "%s: found %s; allowed: %s", path, f ? f : "?", allowed);
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
        hm__cfg_error(c, "%s%s%s: unknown key; allowed keys: %s", path, *path ? "." : "", k,
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
            hm__cfg_error(c, "%s: missing; allowed: %s", path, allowed);
        return def;
    }
    if (!json_is_integer(v) || json_integer_value(v) < min || json_integer_value(v) > max) {
        hm__cfg_wrong(c, path, v, allowed);
        return def;
    }
    return json_integer_value(v);
}

/* A number field from 0 to max; returns def when absent. */
double hm__cfg_get_number(hm__config_t *c, json_t *obj, const char *parent, const char *key,
                          double def, double max)
{
    char path[128];
    snprintf(path, sizeof path, "%s.%s", parent, key);
    json_t *v = json_object_get(obj, key);
    if (!v)
        return def;
    if (!json_is_number(v) || !(json_number_value(v) >= 0 && json_number_value(v) <= max)) {
        char allowed[96];
        snprintf(allowed, sizeof allowed, "a number from 0 to %.0f", max);
        hm__cfg_wrong(c, path, v, allowed);
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
            hm__cfg_error(c, "%s: missing; allowed: %s", full, allowed);
        return def;
    }
    if (json_is_string(v))
        for (size_t i = 0; names[i]; i++)
            if (strcmp(json_string_value(v), names[i]) == 0)
                return (int)i;
    hm__cfg_wrong(c, full, v, allowed);
    return -1;
}

/* The table's row of a key (config_keys.h) split into its parent and its own name, for
 * the getters above: "clock.max_slots" is "clock" and "max_slots". */
static const hm__config_key_t *key_of(hm__key_id_t id, char *parent, size_t size, const char **name)
{
    const hm__config_key_t *k = &hm__config_keys[id];
    const char *dot = strrchr(k->path, '.');
    snprintf(parent, size, "%.*s", dot ? (int)(dot - k->path) : 0, k->path);
    *name = dot ? dot + 1 : k->path;
    return k;
}

/* An integer key with the table's range and default. */
int64_t hm__cfg_key_int(hm__config_t *c, json_t *obj, hm__key_id_t id, int required)
{
    char parent[64];
    const char *name;
    const hm__config_key_t *k = key_of(id, parent, sizeof parent, &name);
    return get_int(c, obj, parent, name, k->def, k->min, k->max, required);
}

/* A number key with the table's range (from 0) and default. */
double hm__cfg_key_number(hm__config_t *c, json_t *obj, hm__key_id_t id)
{
    char parent[64];
    const char *name;
    const hm__config_key_t *k = key_of(id, parent, sizeof parent, &name);
    return hm__cfg_get_number(c, obj, parent, name, (double)k->def, (double)k->max);
}

/* An enum key with the table's choices; def as get_enum's. */
int hm__cfg_key_enum(hm__config_t *c, json_t *obj, hm__key_id_t id, int def)
{
    char parent[64];
    const char *name;
    const hm__config_key_t *k = key_of(id, parent, sizeof parent, &name);
    return get_enum(c, obj, parent, name, k->choices, def);
}

/* Reject the keys of object `path` the table does not list (for topology kind `kind`). */
void hm__cfg_table_keys(hm__config_t *c, const char *path, const char *kind, json_t *obj)
{
    const char *keys[HM__K_COUNT + 1];
    hm__config_key_children(path, kind, keys, sizeof keys / sizeof *keys);
    only_keys(c, path, obj, keys);
}

json_t *hm__cfg_get_object(hm__config_t *c, json_t *root, const char *key, int required)
{
    json_t *v = json_object_get(root, key);
    if (!v) {
        if (required)
            hm__cfg_error(c, "%s: missing; allowed: an object", key);
        return NULL;
    }
    if (!json_is_object(v)) {
        hm__cfg_wrong(c, key, v, "an object");
        return NULL;
    }
    return v;
}

char *hm__cfg_get_path(hm__config_t *c, json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    if (!v)
        return NULL;
    char path[64];
    snprintf(path, sizeof path, "output.%s", key);
    if (!json_is_string(v) || json_string_length(v) == 0) {
        hm__cfg_wrong(c, path, v, "a file name");
        return NULL;
    }
    return strdup(json_string_value(v));
}
