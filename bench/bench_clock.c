/* SPDX-License-Identifier: MIT */
/*
 * bench_clock.c — what the emulator's slot costs in wall time, against a bare
 * pthread_barrier with the same number of threads on the same machine (`make bench`).
 *
 * For N = 16, 256, 1024 and 4096 nodes (hypercubes Q_4, Q_8, Q_10, Q_12) it measures,
 * each REPS times, the wall time per slot of
 *
 *   idle     every node is active in every slot and does nothing but end it
 *            (hm_next_slot): the clock alone;
 *   traffic  every node is active in every slot, reads what arrived, and sends one
 *            packet across dimension t mod d (all-port model): clock, port model and
 *            delivery;
 *   barrier  N threads with 64 KiB stacks, like the node threads, doing nothing but
 *            pthread_barrier_wait, round after round;
 *
 * and prints the medians and the ratios as a Markdown table, in wall time and in the
 * process's CPU time (all threads, user + system). The time is taken by
 * node (thread) 0 between the start of slot (round) 1 and the start of the last one,
 * so thread creation and joining are left out. Then it times the rotated successive
 * broadcasts on the 10-cube (1,024 threads, 2056 slots), whole runs as
 * hypemu reports them in wall_seconds (median of 3).
 *
 * The node programs use include/hypemu.h only, and run through the same path as the
 * hypemu program (config text -> hm__config_load_string -> hm__run_config).
 *
 * Thread start-up: for the same sizes, a whole run of a node program that returns at
 * once (wall_seconds: creating, starting and joining N node threads) against a bare
 * loop that creates N threads with the same 64 KiB stacks and joins them.
 *
 * Environment: HM_BENCH_REPS (default 5), HM_BENCH_SCALE (default 1: multiplies the
 * number of slots), HM_BENCH_MAX_NODES (default 4096).
 *
 * `bench_clock --barrier N ROUNDS` only runs the bare barrier: N threads, ROUNDS rounds,
 * and exits. bench/bench_simgrid.sh times that whole process as the floor of any
 * emulator that gives every node a thread and ends every slot with a barrier.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "cli/run.h"

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU time of the whole process (every thread, user + system): less sensitive than
 * wall time to other jobs on a shared machine. */
static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- the node programs ---------------------------------------------------- */

typedef struct bench_state_s {
    int64_t slots;
    int traffic;
    double t_first, t_last; /* written by node 0 only, read after the run */
    double c_first, c_last; /* the same in process CPU time */
} bench_state_t;

static bench_state_t bench;

static int bench_setup(hm_setup_t *s)
{
    s->state = &bench;
    return 0;
}

static void bench_main(hm_node_t *n, void *state)
{
    bench_state_t *b = state;
    int d = hm_degree(n);
    int64_t received = 0;
    hm_packet_t p = {.msg = 1, .origin = hm_id(n)};
    for (int64_t t = 0; t < b->slots; t++) {
        if (hm_id(n) == 0 && t == 1)
            b->t_first = now_seconds(), b->c_first = cpu_seconds();
        if (hm_id(n) == 0 && t == b->slots - 1)
            b->t_last = now_seconds(), b->c_last = cpu_seconds();
        if (b->traffic) {
            hm_packet_t in;
            while (hm_recv(n, &in) == 0)
                received++;
            p.value = t;
            if (hm_send(n, (int)(t % d), &p) < 0)
                return;
        }
        if (hm_next_slot(n) < 0)
            return;
    }
    hm_packet_t in;
    while (hm_recv(n, &in) == 0)
        received++;
    hm_store(n, received);
}

/* Every node must have received one packet a slot (traffic) or none (idle). */
static void bench_verify(hm_report_t *r)
{
    const bench_state_t *b = r->state;
    r->verified = 1;
    for (int i = 0; i < r->machine->nodes; i++) {
        size_t k;
        const int64_t *v = hm_report_stores(r, i, &k);
        if (k != 1 || v[0] != (b->traffic ? b->slots : 0))
            r->verified = 0;
    }
    snprintf(r->verification, sizeof r->verification, "%s",
             r->verified ? "every node received one packet a slot" : "packets lost");
}

static const hm_algorithm_t bench_algo = {
    .name = "bench-clock",
    .description = "every node active in every slot (benchmark)",
    .paper = "-",
    .topologies = HM_BIT(HM_TOPO_HYPERCUBE),
    .ports = HM_BIT(HM_PORTS_ALL_PORT),
    .default_ports = HM_PORTS_ALL_PORT,
    .setup = bench_setup,
    .node_main = bench_main,
    .verify = bench_verify,
};

/* One run of the config text (bench_run), its wall time and completion slots. */
static int run_config(const char *text, const hm_algorithm_t *algo, double *wall, int64_t *slots)
{
    bench_figures_t f = {0, 0, 0};
    int rc = bench_run("bench_clock", text, algo, &f);
    *wall = f.wall;
    *slots = f.slots;
    return rc;
}

/* Seconds per slot of the emulator on Q_d, every node active for `slots` slots; CPU
 * seconds per slot into *cpu. */
static double emu_per_slot(int d, int64_t slots, int traffic, double *cpu)
{
    char text[256];
    snprintf(text, sizeof text,
             "{\"topology\":{\"kind\":\"hypercube\",\"dim\":%d},\"ports\":{\"model\":\"all-port\"},"
             "\"algorithm\":{\"name\":\"sbt-broadcast\"}}",
             d);
    bench.slots = slots;
    bench.traffic = traffic;
    bench.t_first = bench.t_last = 0;
    double wall;
    int64_t done;
    if (run_config(text, &bench_algo, &wall, &done) != HM_EXIT_OK)
        exit(1);
    *cpu = (bench.c_last - bench.c_first) / (double)(slots - 2);
    return (bench.t_last - bench.t_first) / (double)(slots - 2);
}

/* ---- the bare barrier ------------------------------------------------------ */

typedef struct barrier_run_s {
    pthread_barrier_t barrier;
    int64_t rounds;
    double t_first, t_last;
    double c_first, c_last;
} barrier_run_t;

typedef struct barrier_arg_s {
    barrier_run_t *run;
    int id;
} barrier_arg_t;

static void *barrier_thread(void *p)
{
    barrier_arg_t *a = p;
    barrier_run_t *r = a->run;
    for (int64_t t = 0; t < r->rounds; t++) {
        if (a->id == 0 && t == 1)
            r->t_first = now_seconds(), r->c_first = cpu_seconds();
        if (a->id == 0 && t == r->rounds - 1)
            r->t_last = now_seconds(), r->c_last = cpu_seconds();
        pthread_barrier_wait(&r->barrier);
    }
    return NULL;
}

/* Seconds per round of pthread_barrier_wait with n threads; CPU seconds into *cpu. */
static double barrier_per_round(int n, int64_t rounds, double *cpu)
{
    barrier_run_t r = {.rounds = rounds};
    pthread_t *th = calloc((size_t)n, sizeof *th);
    barrier_arg_t *args = calloc((size_t)n, sizeof *args);
    pthread_attr_t attr;
    if (!th || !args || pthread_attr_init(&attr) != 0 ||
        pthread_barrier_init(&r.barrier, NULL, (unsigned)n) != 0) {
        fprintf(stderr, "bench_clock: cannot set up %d barrier threads\n", n);
        exit(4);
    }
    pthread_attr_setstacksize(&attr, 64 * 1024);
    for (int i = 0; i < n; i++) {
        args[i] = (barrier_arg_t){&r, i};
        if (pthread_create(&th[i], &attr, barrier_thread, &args[i]) != 0) {
            fprintf(stderr, "bench_clock: cannot create barrier thread %d\n", i);
            exit(4);
        }
    }
    for (int i = 0; i < n; i++)
        pthread_join(th[i], NULL);
    pthread_attr_destroy(&attr);
    pthread_barrier_destroy(&r.barrier);
    free(th);
    free(args);
    *cpu = (r.c_last - r.c_first) / (double)(rounds - 2);
    return (r.t_last - r.t_first) / (double)(rounds - 2);
}

/* ---- thread start-up ------------------------------------------------------- */

static void quit_main(hm_node_t *n, void *state)
{
    (void)n;
    (void)state;
}

static void quit_verify(hm_report_t *r)
{
    r->verified = 1;
    snprintf(r->verification, sizeof r->verification, "every node returned");
}

static const hm_algorithm_t quit_algo = {
    .name = "bench-startup",
    .description = "every node returns at once (benchmark)",
    .paper = "-",
    .topologies = HM_BIT(HM_TOPO_HYPERCUBE),
    .ports = HM_BIT(HM_PORTS_ALL_PORT),
    .default_ports = HM_PORTS_ALL_PORT,
    .node_main = quit_main,
    .verify = quit_verify,
};

/* Seconds to create, run and join the node threads of Q_d (wall_seconds). */
static double emu_startup(int d)
{
    char text[256];
    snprintf(text, sizeof text,
             "{\"topology\":{\"kind\":\"hypercube\",\"dim\":%d},\"ports\":{\"model\":\"all-port\"},"
             "\"algorithm\":{\"name\":\"sbt-broadcast\"}}",
             d);
    double wall;
    int64_t done;
    if (run_config(text, &quit_algo, &wall, &done) != HM_EXIT_OK)
        exit(1);
    return wall;
}

static void *bare_thread(void *p)
{
    return p;
}

/* Seconds to create n threads with 64 KiB stacks and join them. */
static double bare_startup(int n)
{
    pthread_t *th = calloc((size_t)n, sizeof *th);
    pthread_attr_t attr;
    if (!th || pthread_attr_init(&attr) != 0) {
        fprintf(stderr, "bench_clock: cannot set up %d threads\n", n);
        exit(4);
    }
    pthread_attr_setstacksize(&attr, 64 * 1024);
    double t0 = now_seconds();
    for (int i = 0; i < n; i++)
        if (pthread_create(&th[i], &attr, bare_thread, NULL) != 0) {
            fprintf(stderr, "bench_clock: cannot create thread %d\n", i);
            exit(4);
        }
    for (int i = 0; i < n; i++)
        pthread_join(th[i], NULL);
    double t = now_seconds() - t0;
    pthread_attr_destroy(&attr);
    free(th);
    return t;
}

/* ---- the report ------------------------------------------------------------- */

static void print_machine(void)
{
    char model[256] = "unknown";
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[512];
        while (fgets(line, sizeof line, f))
            if (strncmp(line, "model name", 10) == 0) {
                const char *c = strchr(line, ':');
                if (c) {
                    snprintf(model, sizeof model, "%s", c + 2);
                    model[strcspn(model, "\n")] = 0;
                }
                break;
            }
        fclose(f);
    }
    printf("machine: %ld online CPUs (nproc), %s\n", sysconf(_SC_NPROCESSORS_ONLN), model);
}

/* `--barrier N ROUNDS`: the bare barrier alone (see the header). */
static int barrier_only(const char *ns, const char *rs)
{
    char *end1, *end2;
    long n = strtol(ns, &end1, 10), rounds = strtol(rs, &end2, 10);
    if (*ns == '\0' || *end1 || *rs == '\0' || *end2 || n < 1 || n > 65536 || rounds < 3) {
        fprintf(stderr, "bench_clock --barrier N ROUNDS: N in 1..65536, ROUNDS >= 3\n");
        return 2;
    }
    double cpu;
    barrier_per_round((int)n, rounds, &cpu);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "--barrier") == 0)
        return barrier_only(argv[2], argv[3]);
    if (argc != 1) {
        fprintf(stderr, "usage: bench_clock [--barrier N ROUNDS]\n");
        return 2;
    }
    int reps = env_int("HM_BENCH_REPS", 5, 1);
    int scale = env_int("HM_BENCH_SCALE", 1, 1);
    int max_nodes = env_int("HM_BENCH_MAX_NODES", 4096, 16);
    static const int dims[] = {4, 8, 10, 12};
    static double cpu_idle[4][64], cpu_traffic[4][64], cpu_barrier[4][64];

    print_machine();
    printf("median of %d runs each; time per slot (emulator) or per round (barrier)\n\n", reps);
    printf("| nodes | slots | idle slot | traffic slot | bare barrier round | idle / barrier | "
           "traffic / barrier |\n");
    printf("|------:|------:|----------:|-------------:|-------------------:|---------------:|"
           "------------------:|\n");
    for (size_t k = 0; k < sizeof dims / sizeof *dims; k++) {
        int d = dims[k], n = 1 << d;
        if (n > max_nodes)
            break;
        /* About the same number of thread wake-ups for every size. */
        int64_t slots = (int64_t)scale * (n <= 16 ? 2000 : 100000 / n);
        if (slots < 24)
            slots = 24;
        double idle[64], traffic[64], barrier[64];
        if (reps > 64)
            reps = 64;
        for (int r = 0; r < reps; r++) {
            idle[r] = emu_per_slot(d, slots, 0, &cpu_idle[k][r]);
            traffic[r] = emu_per_slot(d, slots, 1, &cpu_traffic[k][r]);
            barrier[r] = barrier_per_round(n, slots, &cpu_barrier[k][r]);
        }
        double mi = median(idle, reps), mt = median(traffic, reps), mb = median(barrier, reps);
        printf("| %5d | %5lld | %6.1f us | %9.1f us | %15.1f us | %13.1fx | %16.1fx |\n", n,
               (long long)slots, mi * 1e6, mt * 1e6, mb * 1e6, mi / mb, mt / mb);
        fflush(stdout);
    }

    /* The same runs in process CPU time (every thread, user + system). */
    printf("\n| nodes | idle slot CPU | traffic slot CPU | barrier round CPU | idle / barrier | "
           "traffic / barrier |\n");
    printf("|------:|--------------:|-----------------:|------------------:|---------------:|"
           "------------------:|\n");
    for (size_t k = 0; k < sizeof dims / sizeof *dims && (1 << dims[k]) <= max_nodes; k++) {
        double mi = median(cpu_idle[k], reps), mt = median(cpu_traffic[k], reps);
        double mb = median(cpu_barrier[k], reps);
        printf("| %5d | %10.1f us | %13.1f us | %14.1f us | %13.1fx | %16.1fx |\n", 1 << dims[k],
               mi * 1e6, mt * 1e6, mb * 1e6, mi / mb, mt / mb);
    }

    printf("\n| nodes | node threads start-up | bare pthread_create loop | ratio |\n");
    printf("|------:|----------------------:|-------------------------:|------:|\n");
    for (size_t k = 0; k < sizeof dims / sizeof *dims; k++) {
        int d = dims[k], n = 1 << d;
        if (n > max_nodes)
            break;
        double emu[64], bare[64];
        for (int r = 0; r < reps; r++) {
            emu[r] = emu_startup(d);
            bare[r] = bare_startup(n);
        }
        double me = median(emu, reps), mb = median(bare, reps);
        printf("| %5d | %18.1f us | %21.1f us | %4.2fx |\n", n, me * 1e6, mb * 1e6, me / mb);
        fflush(stdout);
    }

    /* The rotated successive broadcasts on Q_10: 1,024 threads, 2p + d - 2 slots. */
    if (max_nodes >= 1024) {
        double wall[64];
        int64_t slots = 0;
        int qreps = reps < 3 ? reps : 3; /* about 2 s each on 2 cores */
        for (int r = 0; r < qreps; r++)
            if (run_config("{\"topology\":{\"kind\":\"hypercube\",\"dim\":10},"
                           "\"ports\":{\"model\":\"shout\"},"
                           "\"algorithm\":{\"name\":\"successive-broadcast\","
                           "\"variant\":\"rotated\"}}",
                           NULL, &wall[r], &slots) != HM_EXIT_OK)
                return 1;
        double w = median(wall, qreps);
        printf("\nsuccessive-broadcast rotated on Q_10 (1024 threads, shout, strict): %lld slots, "
               "%.3f s wall (median of %d), %.1f us per slot\n",
               (long long)slots, w, qreps, w / (double)slots * 1e6);
    }
    return 0;
}
