/* SPDX-License-Identifier: MIT */
/*
 * bench_local.c — the local clock (clock.mode "local", engine/local.c) against the
 * global barrier (clock.mode "slotted") in wall time (`make bench-local`, also run by
 * `make bench`).
 *
 * For the hypercubes Q_8 and Q_10 (Q_12 with HM_BENCH_MAX_NODES=4096) it runs, each
 * HM_BENCH_REPS times (default 3) in each mode, the p successive broadcasts (rotated
 * variant, shout ports, 2p + d - 2 slots) and d simultaneous broadcasts of 4 packets
 * each (Stamoulis-Tsitsiklis prefix variant, all-port), and prints the medians of
 * hypemu's wall_seconds as a Markdown table. Both modes must give the same completion
 * slots and transmissions (the bench stops otherwise).
 *
 * The runs go through the same path as the hypemu program (config text ->
 * hm__config_load_string -> hm__run_config).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_util.h"
#include "cli/run.h"

typedef bench_figures_t figures_t;

/* One run of the config text; 0 or hypemu's exit code. */
static int run_text(const char *text, figures_t *f)
{
    return bench_run("bench_local", text, NULL, f);
}

static const char *const algos[][2] = {
    {"successive", "\"ports\":{\"model\":\"shout\"},"
                   "\"algorithm\":{\"name\":\"successive-broadcast\",\"variant\":\"rotated\"}"},
    {"simultaneous", "\"ports\":{\"model\":\"all-port\"},"
                     "\"algorithm\":{\"name\":\"simultaneous-broadcast\",\"variant\":\"prefix\","
                     "\"packets\":4}"},
};

/* Median wall time of reps runs of algorithm a on Q_d in one mode; the figures of
 * the last run into *f. */
static int measure(int a, int d, const char *mode, int reps, figures_t *f, double *med)
{
    char text[1024];
    snprintf(text, sizeof text,
             "{\"topology\":{\"kind\":\"hypercube\",\"dim\":%d},%s,\"seed\":1,"
             "\"clock\":{\"mode\":\"%s\"}}",
             d, algos[a][1], mode);
    double wall[64];
    for (int r = 0; r < reps; r++) {
        if (run_text(text, f) != HM_EXIT_OK)
            return -1;
        wall[r] = f->wall;
    }
    *med = median(wall, reps);
    return 0;
}

int main(void)
{
    int reps = env_int("HM_BENCH_REPS", 3, 1);
    int max_nodes = env_int("HM_BENCH_MAX_NODES", 1024, 256);
    if (reps > 64)
        reps = 64;
    printf("local vs slotted clock, %ld online CPUs; median wall_seconds of %d runs each\n\n",
           sysconf(_SC_NPROCESSORS_ONLN), reps);
    printf("| algorithm | nodes | slots | slotted | local | local / slotted |\n");
    printf("|-----------|------:|------:|--------:|------:|----------------:|\n");
    for (int a = 0; a < 2; a++)
        for (int d = 8; d <= 12 && (1 << d) <= max_nodes; d += 2) {
            figures_t fs, fl;
            double ms, ml;
            if (measure(a, d, "slotted", reps, &fs, &ms) != 0 ||
                measure(a, d, "local", reps, &fl, &ml) != 0)
                return 1;
            if (fs.slots != fl.slots || fs.transmissions != fl.transmissions) {
                fprintf(stderr,
                        "bench_local: %s on Q_%d: slotted %lld slots %lld packets, local "
                        "%lld slots %lld packets\n",
                        algos[a][0], d, (long long)fs.slots, (long long)fs.transmissions,
                        (long long)fl.slots, (long long)fl.transmissions);
                return 1;
            }
            printf("| %s | %d | %lld | %.3f s | %.3f s | %.2fx |\n", algos[a][0], 1 << d,
                   (long long)fs.slots, ms, ml, ml / ms);
            fflush(stdout);
        }
    return 0;
}
