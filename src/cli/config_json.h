/* SPDX-License-Identifier: MIT */
/*
 * config_json.h — private to the config reader (config.c, config_json.c,
 * config_affinity.c, config_set.c): the checking kit of config_json.c, the affinity
 * parser and --set. Every function adds its messages to c's errors and goes on
 * (doc/config.md).
 */
#ifndef HM_CONFIG_JSON_H
#define HM_CONFIG_JSON_H

#include "config.h"
#include "config_keys.h"

/* "FILE: " then the message, appended to c's errors. */
void hm__cfg_error(hm__config_t *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* What a JSON value looks like in a message (malloc'd; at most 60 bytes). */
char *hm__cfg_show(const json_t *v);

/* "PATH: found X; allowed: ALLOWED". */
void hm__cfg_wrong(hm__config_t *c, const char *path, const json_t *found, const char *allowed);

/* A number field from 0 to max; returns def when absent. */
double hm__cfg_get_number(hm__config_t *c, json_t *obj, const char *parent, const char *key,
                          double def, double max);

/* The keys of the table (config_keys.h): an integer, a number, an enum (def as when the
 * key is absent), and the check that object `path` holds only the table's keys (for
 * topology kind `kind`). */
int64_t hm__cfg_key_int(hm__config_t *c, json_t *obj, hm__key_id_t id, int required);
double hm__cfg_key_number(hm__config_t *c, json_t *obj, hm__key_id_t id);
int hm__cfg_key_enum(hm__config_t *c, json_t *obj, hm__key_id_t id, int def);
void hm__cfg_table_keys(hm__config_t *c, const char *path, const char *kind, json_t *obj);

/* Object `key` of root (NULL when absent or not an object), and output.KEY as a file
 * name (malloc'd, NULL when absent or wrong). */
json_t *hm__cfg_get_object(hm__config_t *c, json_t *root, const char *key, int required);
char *hm__cfg_get_path(hm__config_t *c, json_t *obj, const char *key);

/* clock.affinity into c->opt (config_affinity.c). */
void hm__cfg_affinity(hm__config_t *c, json_t *v);

/* One --set PATH=VALUE applied to c->root: 0, or -1 after an error (config_set.c). */
int hm__cfg_apply_set(hm__config_t *c, const char *set);

#endif
