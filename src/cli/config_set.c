/* SPDX-License-Identifier: MIT */
/*
 * config_set.c — --set PATH=VALUE (hypemu(1), doc/config.md): the path split at its
 * dots, the value read as JSON or taken as a string, both checked (UTF-8, jansson's
 * nesting limit) before the document changes.
 */
#include <stdlib.h>
#include <string.h>

#include "config_json.h"

/* jansson refuses to read a document nested deeper than this (JSON_PARSER_MAX_DEPTH in
 * its load.c; every value counts, the top-level object is level 1). --set builds no
 * document that jansson would refuse: the checks that follow, and jansson's own dump
 * and free, recurse once per level. */
#define HM__SET_MAX_DEPTH 2048

/* Well-formed UTF-8 as jansson wants it in keys and strings: no overlong forms, no
 * surrogates, nothing above U+10FFFF. Returns the length of the sequence at s (1..4),
 * 0 if there is none. */
static size_t utf8_seq(const unsigned char *s)
{
    unsigned c = s[0];
    if (c < 0x80)
        return 1;
    size_t n = c >= 0xc2 && c <= 0xdf   ? 2
               : c >= 0xe0 && c <= 0xef ? 3
               : c >= 0xf0 && c <= 0xf4 ? 4
                                        : 0;
    if (n == 0)
        return 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] > 0x9f) || (c == 0xf0 && s[1] < 0x90) ||
        (c == 0xf4 && s[1] > 0x8f))
        return 0;
    return n;
}

static int utf8_valid(const char *s, size_t len)
{
    for (size_t i = 0, n; i < len; i += n)
        if ((n = utf8_seq((const unsigned char *)s + i)) == 0 || n > len - i)
            return 0;
    return 1;
}

/* An argument as a message shows it: bytes that are not UTF-8 text, and control
 * characters, as \xHH; cut after 60 characters. The caller frees it. */
static char *show_arg(const char *s)
{
    size_t cap = 64 * 4 + 4, o = 0, shown = 0;
    char *out = malloc(cap);
    if (!out)
        return NULL;
    for (const unsigned char *p = (const unsigned char *)s; *p && shown < 60; shown++) {
        size_t n = utf8_seq(p);
        if (n == 1 && *p >= 0x20 && *p != 0x7f)
            out[o++] = (char)*p++;
        else if (n > 1) {
            memcpy(out + o, p, n);
            o += n;
            p += n;
        } else {
            o += (size_t)snprintf(out + o, cap - o, "\\x%02x", *p++);
        }
        if (shown == 59 && *p)
            o += (size_t)snprintf(out + o, cap - o, "...");
    }
    out[o] = 0;
    return out;
}

/* Levels of nesting of a value, counted as jansson's parser does: 1 for a scalar or
 * an empty container. v came from jansson, so the recursion is bounded. */
static size_t json_depth(const json_t *v)
{
    size_t d = 0, i;
    const char *k;
    json_t *e;
    if (json_is_object(v)) {
        json_object_foreach((json_t *)v, k, e) {
            size_t de = json_depth(e);
            d = de > d ? de : d;
        }
    } else if (json_is_array(v)) {
        json_array_foreach(v, i, e) {
            size_t de = json_depth(e);
            d = de > d ? de : d;
        }
    }
    return d + 1;
}

/* --set's PATH, split at its dots in place (NUL between keys): the number of keys, or 0
 * after an error (an empty key, a key not in UTF-8, too many keys). sh: the argument as
 * shown in messages. */
static size_t set_split(hm__config_t *c, char *path, const char *sh)
{
    size_t nkeys = 1;
    for (char *p = path; *p; p++)
        nkeys += *p == '.';
    char *key = path;
    for (size_t i = 1; i <= nkeys; i++) {
        char *dot = strchr(key, '.');
        if (dot)
            *dot = 0;
        if (!*key) {
            hm__cfg_error(c,
                          "--set %s: key %zu of %zu in the path is empty; allowed: non-empty keys "
                          "joined by single dots, e.g. topology.dim=6",
                          sh, i, nkeys);
            return 0;
        }
        if (!utf8_valid(key, strlen(key))) {
            char *k = show_arg(key);
            hm__cfg_error(c, "--set %s: key %zu \"%s\" is not UTF-8 text; allowed: keys in UTF-8",
                          sh, i, k ? k : "?");
            free(k);
            return 0;
        }
        key = dot ? dot + 1 : key;
    }
    if (nkeys >= HM__SET_MAX_DEPTH) {
        hm__cfg_error(c,
                      "--set %s: found a path of %zu keys; allowed: at most %d keys, fewer for a "
                      "nested value (%d levels in all, jansson's limit)",
                      sh, nkeys, HM__SET_MAX_DEPTH - 1, HM__SET_MAX_DEPTH);
        return 0;
    }
    return nkeys;
}

/* --set's VALUE: JSON if it parses as JSON, a string otherwise; NULL after an error (not
 * UTF-8, too deep under nkeys keys, out of memory). */
static json_t *set_value(hm__config_t *c, const char *text, size_t nkeys, const char *sh)
{
    json_t *val = json_loads(text, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, NULL);
    if (!val) {
        if (!utf8_valid(text, strlen(text))) {
            hm__cfg_error(c, "--set %s: the value is not UTF-8 text; allowed: JSON or UTF-8 text",
                          sh);
            return NULL;
        }
        val = json_string(text);
        if (!val) {
            hm__cfg_error(c, "--set %s: out of memory", sh);
            return NULL;
        }
    }
    /* The top-level object is level 1: the value at key n is level n + 1. */
    size_t depth = json_depth(val);
    if (nkeys + depth > HM__SET_MAX_DEPTH) {
        hm__cfg_error(c,
                      "--set %s: found a path of %zu keys and a value %zu levels deep; allowed: "
                      "at most %d levels in all (jansson's limit)",
                      sh, nkeys, depth, HM__SET_MAX_DEPTH);
        json_decref(val);
        return NULL;
    }
    return val;
}

/* Put val at the nkeys keys of path (split by set_split), creating the objects on the
 * way; null removes the field, so that its default applies. 0, or -1 after an error. */
static int set_put(hm__config_t *c, const char *path, size_t nkeys, json_t *val, const char *sh)
{
    json_t *obj = c->root;
    const char *key = path;
    for (size_t i = 1; i <= nkeys; i++, key += strlen(key) + 1) {
        if (!json_is_object(obj)) {
            hm__cfg_error(c, "--set %s: %s is not inside an object", sh, key);
            return -1;
        }
        if (i == nkeys) {
            if (json_is_null(val))
                json_object_del(obj, key);
            else if (json_object_set(obj, key, val) != 0)
                break;
            return 0;
        }
        json_t *child = json_object_get(obj, key);
        if (!child) {
            child = json_object();
            /* set_new takes child: on failure it is already freed. */
            if (json_object_set_new(obj, key, child) != 0)
                break;
        }
        obj = child;
    }
    hm__cfg_error(c, "--set %s: out of memory", sh);
    return -1;
}

/* --set PATH=VALUE: VALUE is JSON if it parses as JSON, a string otherwise; null
 * removes the field. PATH is checked whole before the document changes: no empty
 * key, every key UTF-8, path and value within jansson's nesting limit. */
int hm__cfg_apply_set(hm__config_t *c, const char *set)
{
    const char *eq = strchr(set, '=');
    char *shown = show_arg(set);
    const char *sh = shown ? shown : "?";
    int rc = -1;
    if (!eq || eq == set) {
        hm__cfg_error(c, "--set %s: expected PATH=VALUE, e.g. topology.dim=6", sh);
        free(shown);
        return -1;
    }
    char *path = strndup(set, (size_t)(eq - set));
    if (!path)
        hm__cfg_error(c, "--set %s: out of memory", sh);
    size_t nkeys = path ? set_split(c, path, sh) : 0;
    json_t *val = nkeys ? set_value(c, eq + 1, nkeys, sh) : NULL;
    if (val)
        rc = set_put(c, path, nkeys, val, sh);
    free(shown);
    free(path);
    json_decref(val);
    return rc;
}
