/* SPDX-License-Identifier: MIT */
/*
 * bench_scale.c — one measurement of `make bench-scale` (bench/bench_scale.sh,
 * README "Many nodes"): a whole hypemu run, or the bare floor of the same size, in a
 * process of its own, so that each has the host to itself and its own peak memory.
 *
 *   bench_scale bare N          N threads with 64 KiB stacks, like the node threads,
 *                               each crossing one barrier round, then joined: the
 *                               kernel's cost of a thread per node
 *   bench_scale run ALGO D [CLOCK]
 *                               the registered algorithm ALGO on the D-cube (all-port,
 *                               clock.mode CLOCK: slotted by default, local, free),
 *                               through the same path as the hypemu program, with
 *                               clock.slot_timeout off (a loaded host may take
 *                               longer than its default for a slot of 2^19 nodes),
 *                               or $HM_BENCH_SLOT_TIMEOUT seconds (the watchdog on)
 *   bench_scale room N          whether the host lets this process create N threads
 *                               (exit 0) or not (exit 3, with the limit on stderr)
 *
 * bare and run print one line, "wall_s maxrss_kb kernel_share": the wall time of the
 * whole thing (for run: configuration, machine, threads, verification), the peak
 * resident memory of the process, and the share of its CPU time spent in the kernel.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "bench_util.h"
#include "cli/run.h"
#include "hm_internal.h"

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void report(double wall)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double user = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6;
    double sys = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
    printf("%.4f %ld %.3f\n", wall, ru.ru_maxrss, user + sys > 0 ? sys / (user + sys) : 0.0);
}

/* ---- the bare floor ------------------------------------------------------------ */

static pthread_barrier_t barrier;

static void *bare_thread(void *p)
{
    pthread_barrier_wait(&barrier);
    return p;
}

static int bare(int n)
{
    pthread_t *th = calloc((size_t)n, sizeof *th);
    pthread_attr_t attr;
    if (!th || pthread_attr_init(&attr) != 0 ||
        pthread_barrier_init(&barrier, NULL, (unsigned)n + 1) != 0) {
        fprintf(stderr, "bench_scale: cannot set up %d threads\n", n);
        return 4;
    }
    pthread_attr_setstacksize(&attr, 64 * 1024);
    double t0 = now_seconds();
    for (int i = 0; i < n; i++)
        if (pthread_create(&th[i], &attr, bare_thread, NULL) != 0) {
            fprintf(stderr, "bench_scale: cannot create thread %d of %d\n", i, n);
            return 4;
        }
    pthread_barrier_wait(&barrier);
    for (int i = 0; i < n; i++)
        pthread_join(th[i], NULL);
    report(now_seconds() - t0);
    pthread_attr_destroy(&attr);
    pthread_barrier_destroy(&barrier);
    free(th);
    return 0;
}

/* ---- a hypemu run --------------------------------------------------------------- */

static int run(const char *algo, int d, const char *clock)
{
    char text[320];
    const char *timeout = getenv("HM_BENCH_SLOT_TIMEOUT");
    snprintf(text, sizeof text,
             "{\"topology\":{\"kind\":\"hypercube\",\"dim\":%d},\"ports\":{\"model\":\"all-port\"},"
             "\"clock\":{\"mode\":\"%s\",\"slot_timeout\":%d},\"algorithm\":{\"name\":\"%s\"}}",
             d, clock, timeout ? atoi(timeout) : 0, algo);
    double t0 = now_seconds();
    int rc = bench_run("bench_scale", text, NULL, NULL);
    double wall = now_seconds() - t0;
    if (rc != HM_EXIT_OK)
        fprintf(stderr, "bench_scale: %s on Q_%d failed (exit %d)\n", algo, d, rc);
    else
        report(wall);
    return rc;
}

static int room(int n)
{
    char why[512];
    int64_t left = hm__host_thread_limit(n, 64 * 1024, why, sizeof why);
    if (left >= n)
        return 0;
    fprintf(stderr, "%s\n", why);
    return 3;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "bare") == 0 && atoi(argv[2]) > 0)
        return bare(atoi(argv[2]));
    if (argc == 3 && strcmp(argv[1], "room") == 0 && atoi(argv[2]) > 0)
        return room(atoi(argv[2]));
    if ((argc == 4 || argc == 5) && strcmp(argv[1], "run") == 0)
        return run(argv[2], atoi(argv[3]), argc == 5 ? argv[4] : "slotted");
    fprintf(stderr, "usage: bench_scale bare N | run ALGO D [CLOCK] | room N\n");
    return 2;
}
