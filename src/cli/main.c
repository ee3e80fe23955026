/*
 * main.c — the command line of SPEC section 1.
 *
 *   hypemu [--json] [--set PATH=VALUE]... CONFIG.json
 *   hypemu --validate [--set PATH=VALUE]... CONFIG.json
 *   hypemu --list | --help | --version
 *
 * Exit codes: 0 run complete and verified; 1 verification failed or strict
 * port-model violation; 2 bad usage or config; 3 deadlock or clock.max_slots;
 * 4 system error.
 */
#include <stdlib.h>
#include <string.h>

#include "run.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: hypemu [--json] [--set PATH=VALUE]... CONFIG.json\n"
            "       hypemu --validate [--set PATH=VALUE]... CONFIG.json\n"
            "       hypemu --list | --help | --version\n"
            "\n"
            "  --json            print the summary as one JSON object\n"
            "  --set PATH=VALUE  override one config field, repeatable\n"
            "                    (e.g. --set topology.dim=6 --set algorithm.variant=sequential)\n"
            "  --validate        check the config, report every error, run nothing\n"
            "  --list            topologies, port models, algorithms, parameters and papers\n"
            "\n"
            "exit codes: 0 verified, 1 verification failed or strict port-model violation,\n"
            "            2 bad usage or config, 3 deadlock or clock.max_slots, 4 system error\n");
}

static void list(FILE *f)
{
    fprintf(f, "topologies:\n");
#define XX(id, name, desc) fprintf(f, "  %-22s %s\n", name, desc);
    HM_TOPOLOGY_MAP(XX)
#undef XX
    fprintf(f, "\nport models:\n");
#define XX(id, name, desc) fprintf(f, "  %-22s %s\n", name, desc);
    HM_PORTS_MAP(XX)
#undef XX
    fprintf(f, "\nalgorithms:\n");
    for (size_t i = 0; hm_algorithms[i]; i++) {
        const hm_algorithm_t *a = hm_algorithms[i];
        fprintf(f, "  %-22s %s\n", a->name, a->description);
        fprintf(f, "  %-22s paper: %s\n", "", a->paper);
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
        for (const hm_param_t *p = a->params; p && p->name; p++)
            fprintf(f, "  %-22s   %s = %s%s%s: %s\n", "", p->name, p->allowed,
                    p->defval ? ", default " : " (required)", p->defval ? p->defval : "", p->help);
    }
}

int main(int argc, char **argv)
{
    int json = 0, validate = 0;
    const char *file = NULL;
    char **sets = calloc((size_t)argc, sizeof *sets);
    int nsets = 0;
    if (!sets)
        return HM_EXIT_SYSTEM;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            free(sets);
            return HM_EXIT_OK;
        } else if (strcmp(a, "--version") == 0) {
            printf("hypemu %s\n", HM_VERSION);
            free(sets);
            return HM_EXIT_OK;
        } else if (strcmp(a, "--list") == 0) {
            list(stdout);
            free(sets);
            return HM_EXIT_OK;
        } else if (strcmp(a, "--json") == 0) {
            json = 1;
        } else if (strcmp(a, "--validate") == 0) {
            validate = 1;
        } else if (strcmp(a, "--set") == 0 || strncmp(a, "--set=", 6) == 0) {
            if (a[5] == '=')
                sets[nsets++] = argv[i] + 6;
            else if (i + 1 < argc)
                sets[nsets++] = argv[++i];
            else {
                fprintf(stderr, "hypemu: --set needs PATH=VALUE\n");
                free(sets);
                return HM_EXIT_USAGE;
            }
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr,
                    "hypemu: unknown option %s; allowed: --json, --set, --validate, "
                    "--list, --help, --version\n",
                    a);
            free(sets);
            return HM_EXIT_USAGE;
        } else if (file) {
            fprintf(stderr, "hypemu: one config file expected, found %s and %s\n", file, a);
            free(sets);
            return HM_EXIT_USAGE;
        } else {
            file = a;
        }
    }
    if (!file) {
        usage(stderr);
        free(sets);
        return HM_EXIT_USAGE;
    }

    hm__config_t cfg;
    int rc = hm__config_load(&cfg, file, sets, nsets);
    free(sets);
    if (rc != HM_EXIT_OK) {
        hm__config_print_errors(&cfg, stderr);
        hm__config_free(&cfg);
        return rc;
    }
    if (validate) {
        printf("%s: valid (%s on %s, %d nodes, %s ports)\n", file, cfg.algo->name,
               hm_topology_name(cfg.opt.info.topology), cfg.opt.info.nodes,
               hm_ports_name(cfg.opt.info.ports));
        hm__config_free(&cfg);
        return HM_EXIT_OK;
    }

    hm__result_t res;
    rc = hm__run_config(&cfg, &res);
    if (res.message)
        fprintf(stderr, "hypemu: %s\n", res.message);
    if (res.summary) {
        if (json) {
            char *s = json_dumps(res.summary,
                                 JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));
            if (s) {
                puts(s);
                free(s);
            }
        } else {
            hm__summary_print(stdout, res.summary);
        }
    }
    if (fflush(stdout) != 0 && rc == HM_EXIT_OK)
        rc = HM_EXIT_SYSTEM;
    hm__result_free(&res);
    hm__config_free(&cfg);
    return rc;
}
