/* SPDX-License-Identifier: MIT */
/*
 * common.c — see fuzz.h.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

/* The configs of configs/, read once, sorted by name so that a hash picks the same
 * one on every machine. */
static struct {
    char *name, *text;
    size_t len;
} * configs;
static size_t nconfigs;

static int json_file(const struct dirent *e)
{
    size_t n = strlen(e->d_name);
    return n > 5 && strcmp(e->d_name + n - 5, ".json") == 0;
}

static void load_configs(void)
{
    struct dirent **list;
    int n = scandir(HM_SRCDIR "/configs", &list, json_file, alphasort);
    if (n <= 0) {
        fprintf(stderr, "fuzz: no configs in %s/configs\n", HM_SRCDIR);
        abort();
    }
    configs = calloc((size_t)n, sizeof *configs);
    if (!configs)
        abort();
    for (int i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/configs/%s", HM_SRCDIR, list[i]->d_name);
        FILE *f = fopen(path, "rb");
        if (!f)
            abort();
        fseek(f, 0, SEEK_END);
        long len = ftell(f);
        fseek(f, 0, SEEK_SET);
        char *text = malloc((size_t)len + 1);
        if (!text || fread(text, 1, (size_t)len, f) != (size_t)len)
            abort();
        fclose(f);
        text[len] = 0;
        configs[nconfigs].name = strdup(list[i]->d_name);
        configs[nconfigs].text = text;
        configs[nconfigs].len = (size_t)len;
        nconfigs++;
        free(list[i]);
    }
    free(list);
}

int hm_fuzz_split(const uint8_t *data, size_t size, hm_fuzz_input_t *in)
{
    memset(in, 0, sizeof *in);
    if (!configs)
        load_configs();
    in->buf = malloc(size + 1);
    if (!in->buf)
        return -1;
    memcpy(in->buf, data, size);
    in->buf[size] = 0;
    char *line = in->buf, *nl = strchr(line, '\n');
    if (nl)
        *nl = 0;
    size_t pick = nconfigs;
    for (size_t i = 0; i < nconfigs; i++)
        if (strcmp(line, configs[i].name) == 0)
            pick = i;
    if (pick == nconfigs) {
        uint32_t h = 2166136261u; /* FNV-1a */
        for (const char *p = line; *p; p++)
            h = (h ^ (uint8_t)*p) * 16777619u;
        pick = h % nconfigs;
    }
    in->name = configs[pick].name;
    in->text = configs[pick].text;
    in->len = configs[pick].len;
    while (nl && in->nsets < HM_FUZZ_MAX_SETS) {
        line = nl + 1;
        nl = strchr(line, '\n');
        if (nl)
            *nl = 0;
        if (*line)
            in->sets[in->nsets++] = line;
    }
    return 0;
}

void hm_fuzz_input_free(hm_fuzz_input_t *in)
{
    free(in->buf);
    memset(in, 0, sizeof *in);
}

int64_t hm_fuzz_param(const hm__config_t *cfg, const char *key, int64_t def)
{
    json_t *v = json_object_get(cfg->algo_params, key);
    return json_is_integer(v) ? json_integer_value(v) : def;
}

void hm_fuzz_setup(const hm__config_t *cfg)
{
    const hm_algorithm_t *algo = cfg->algo;
    if (cfg->opt.info.nodes > 4096 || hm_fuzz_param(cfg, "message_bytes", 0) > 65536 ||
        hm_fuzz_param(cfg, "n", 0) > 4096 || hm_fuzz_param(cfg, "trials", 0) > 64)
        return;
    hm_setup_t setup = {.machine = &cfg->opt.info, .params = cfg->algo_params, .file = cfg->file};
    if (algo->setup && algo->setup(&setup) != 0)
        return;
    if (algo->teardown)
        algo->teardown(setup.state);
}
