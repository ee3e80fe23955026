/* SPDX-License-Identifier: MIT */
/*
 * progress.c — the progress line on stderr while a run goes on (README "Progress"):
 *
 *   hypemu: progress: slot 5120 of at most 1000000 (0.51%), 81234 packets/s,
 *   elapsed 2.0 s, ETA at most 388 s
 *
 * (one line). A thread of its own wakes every period, reads the slot and the packet
 * count that the barrier clock publishes (hm__machine_progress: relaxed atomics, so
 * it never races with the run) and writes the line; on a terminal the line is
 * rewritten in place and erased at the end, elsewhere (--progress) each is a line.
 * stdout is never touched. The free-running clock has no global slot: no line.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "progress.h"
#include "run.h"

struct hm__progress_s {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t cond; /* on CLOCK_MONOTONIC */
    int done;
    hm__machine_t *m;
    int64_t max_slots;
    int tty;
    double delay, period, t0;
    int shown; /* a line stands on the terminal */
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Sleep until monotonic time `until` or until stopped; returns done. */
static int sleep_until(hm__progress_t *p, double until)
{
    struct timespec ts;
    ts.tv_sec = (time_t)until;
    ts.tv_nsec = (long)((until - (double)ts.tv_sec) * 1e9);
    pthread_mutex_lock(&p->lock);
    while (!p->done && pthread_cond_timedwait(&p->cond, &p->lock, &ts) != ETIMEDOUT)
        ;
    int done = p->done;
    pthread_mutex_unlock(&p->lock);
    return done;
}

static void show(hm__progress_t *p)
{
    int64_t slot, packets;
    hm__machine_progress(p->m, &slot, &packets);
    if (slot < 0)
        return;
    double elapsed = now_s() - p->t0;
    double rate = elapsed > 0 ? (double)packets / elapsed : 0;
    double slots_per_s = elapsed > 0 ? (double)(slot + 1) / elapsed : 0;
    double eta = slots_per_s > 0 ? (double)(p->max_slots - slot - 1) / slots_per_s : 0;
    char line[256];
    int len = snprintf(line, sizeof line,
                       "%shypemu: progress: slot %lld of at most %lld (%.2f%%), %.0f packets/s, "
                       "elapsed %.1f s, ETA at most %.0f s%s",
                       p->tty ? "\r" : "", (long long)slot, (long long)p->max_slots,
                       100.0 * (double)(slot + 1) / (double)p->max_slots, rate, elapsed, eta,
                       p->tty ? "\033[K" : "\n");
    /* write(2), not stdio: a node program may hold stderr's lock (README "Exit codes"). */
    if (len > 0)
        (void)hm__write_fd(STDERR_FILENO, line,
                           (size_t)len < sizeof line ? (size_t)len : sizeof line - 1);
    p->shown = p->tty;
}

static void *run(void *arg)
{
    hm__progress_t *p = arg;
    double next = p->t0 + p->delay;
    while (!sleep_until(p, next)) {
        show(p);
        next += p->period;
    }
    if (p->shown)
        (void)hm__write_fd(STDERR_FILENO, "\r\033[K", 4);
    return NULL;
}

/* HYPEMU_PROGRESS_PERIOD: seconds before the first line and between two (tests). */
static double period_from_env(double def)
{
    const char *s = getenv("HYPEMU_PROGRESS_PERIOD");
    if (!s || !*s)
        return def;
    char *end;
    double v = strtod(s, &end);
    return *end == '\0' && v > 0 && v <= 3600 ? v : def;
}

hm__progress_t *hm__progress_start(hm__machine_t *m, int mode)
{
    int tty = isatty(STDERR_FILENO);
    if (mode < 0 || (mode == 0 && !tty) || !hm__machine_has_progress(m))
        return NULL;
    hm__progress_t *p = calloc(1, sizeof *p);
    if (!p)
        return NULL; /* no progress line: the run goes on */
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    int ok = pthread_mutex_init(&p->lock, NULL) == 0;
    if (ok && pthread_cond_init(&p->cond, &ca) != 0) {
        pthread_mutex_destroy(&p->lock);
        ok = 0;
    }
    pthread_condattr_destroy(&ca);
    if (!ok) {
        free(p);
        return NULL;
    }
    p->m = m;
    p->max_slots = m->opt.max_slots; /* the run's: raised above a known cost (run.c) */
    p->tty = tty;
    p->delay = period_from_env(2.0);
    p->period = period_from_env(1.0);
    p->t0 = now_s();
    if (pthread_create(&p->thread, NULL, run, p) != 0) {
        pthread_cond_destroy(&p->cond);
        pthread_mutex_destroy(&p->lock);
        free(p);
        return NULL;
    }
    return p;
}

void hm__progress_stop(hm__progress_t *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    p->done = 1;
    pthread_cond_signal(&p->cond);
    pthread_mutex_unlock(&p->lock);
    pthread_join(p->thread, NULL);
    pthread_cond_destroy(&p->cond);
    pthread_mutex_destroy(&p->lock);
    free(p);
}
