/* SPDX-License-Identifier: MIT */
/*
 * config_keys.c — the machine config's keys as data (config_keys.h): the table,
 * written once for config.c and main.c (the choices of its enums: engine/names.c).
 */
#include <string.h>

#include "config_keys.h"

const hm__config_key_t hm__config_keys[HM__K_COUNT] = {
#define XX(id, path, type, min, max, def, choices, def_text, kinds, help)                          \
    {path, HM__KEY_##type, min, max, def, choices, def_text, kinds, help},
    HM__CONFIG_KEY_MAP(XX)
#undef XX
};

const char *hm__key_type_name(hm__key_type_t t)
{
    static const char *const names[] = {
#define XX(id, name) name,
        HM__KEY_TYPE_MAP(XX)
#undef XX
    };
    return names[t];
}

void hm__config_key_children(const char *parent, const char *kind, const char **out, size_t cap)
{
    size_t n = 0, plen = strlen(parent);
    for (int k = 0; k < HM__K_COUNT && n + 1 < cap; k++) {
        const char *p = hm__config_keys[k].path, *kinds = hm__config_keys[k].kinds;
        if (plen && (strncmp(p, parent, plen) != 0 || p[plen] != '.'))
            continue;
        /* No kind's name is part of another's ("linear, ring"). */
        if (kind && kinds && !strstr(kinds, kind))
            continue;
        const char *name = plen ? p + plen + 1 : p;
        if (strchr(name, '.'))
            continue; /* a grandchild */
        int seen = 0;
        for (size_t i = 0; i < n; i++)
            seen |= strcmp(out[i], name) == 0;
        if (!seen)
            out[n++] = name;
    }
    out[n] = NULL;
}
