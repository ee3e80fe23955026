/* SPDX-License-Identifier: MIT */
/*
 * crash.c — the report of a node program, or an algorithm's hook, that crashes (README
 * "Exit codes"; plugin.h): one line on stderr naming the node, its algorithm and its
 * plugin, written with one write(2), then the process ends by the signal. Every signal
 * whose default action ends the process and that a program can raise itself (a fault,
 * abort(), raise(), a CPU or file size limit, a pipe with no reader, an alarm) has its
 * line. And a fork() in a node thread: the child process ends at once, with a line of its
 * own (README "What verified means", threads).
 */
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "cli/plugin.h"
#include "hm_internal.h"

/* The algorithm whose setup, verify or teardown this thread runs, and which: a crash
 * there names them (cli/run.c sets them around each call). */
static _Thread_local const hm_algorithm_t *hook_algo;
static _Thread_local const char *hook_name;

void hm__crash_context(const hm_algorithm_t *a, const char *hook)
{
    hook_algo = a;
    hook_name = hook;
}

/* A line being formatted on the handler's stack, written with one write(2): the lines of
 * nodes that crash at once never mix (README "Exit codes"). */
typedef struct line_s {
    char buf[1024];
    size_t n;
} line_t;

static void put(line_t *l, const char *s)
{
    while (*s && l->n < sizeof l->buf - 1)
        l->buf[l->n++] = *s++;
}

static void put_int(line_t *l, long long v)
{
    char buf[24], *p = buf + sizeof buf - 1;
    int neg = v < 0;
    unsigned long long u = neg ? 0ULL - (unsigned long long)v : (unsigned long long)v;
    *p = 0;
    do
        *--p = (char)('0' + u % 10);
    while ((u /= 10) && p > buf + 1);
    if (neg)
        *--p = '-';
    put(l, p);
}

/* The signals reported, and their names. */
#define SIG(s)                                                                                     \
    {                                                                                              \
        s, #s                                                                                      \
    }
static const struct {
    int sig;
    const char *name;
} crash_signals[] = {
    SIG(SIGSEGV), SIG(SIGBUS),  SIG(SIGFPE),  SIG(SIGILL),  SIG(SIGABRT), SIG(SIGTRAP),
    SIG(SIGALRM), SIG(SIGPIPE), SIG(SIGXCPU), SIG(SIGXFSZ), SIG(SIGSYS),
};
#undef SIG
#define NSIGNALS (sizeof crash_signals / sizeof *crash_signals)
#define NFAULTS 5 /* the first five: a fault, or abort() */

static const char *signal_name(int sig)
{
    for (size_t i = 0; i < NSIGNALS; i++)
        if (crash_signals[i].sig == sig)
            return crash_signals[i].name;
    return "a signal";
}

/* "(algorithm X, plugin FILE)" or "(algorithm X)". */
static void put_algo(line_t *l, const hm_algorithm_t *a)
{
    const char *file = hm__plugin_file(a);
    put(l, "(algorithm ");
    put(l, a->name);
    if (file) {
        put(l, ", plugin ");
        put(l, file);
    }
    put(l, ")");
}

/* "hypemu: node N (algorithm X, plugin FILE) " */
static void put_node(line_t *l, const hm_node_t *n)
{
    put(l, "hypemu: node ");
    put_int(l, n->id);
    put(l, " ");
    put_algo(l, n->m->algo);
    put(l, " ");
}

/* Async-signal-safe: write(2) only, and tables that no longer change during a run. */
static void on_crash(int sig)
{
    const hm_node_t *n = hm__self;
    line_t l = {.n = 0};
    if (n) {
        put_node(&l, n);
        put(&l, "crashed in slot ");
        put_int(&l, n->now);
    } else if (hook_algo) {
        const char *file = hm__plugin_file(hook_algo);
        put(&l, "hypemu: ");
        put(&l, hook_name);
        put(&l, " of algorithm ");
        put(&l, hook_algo->name);
        if (file) {
            put(&l, " (plugin ");
            put(&l, file);
            put(&l, ")");
        }
        put(&l, " crashed");
    }
    if (l.n) {
        put(&l, ": ");
        put(&l, signal_name(sig));
        l.buf[l.n++] = '\n'; /* put leaves room for it */
        ssize_t w = write(STDERR_FILENO, l.buf, l.n);
        (void)w;
    }
    /* Die of the signal: with the default action restored, raise() delivers it when the
     * handler returns, and a fault that returns re-faults. */
    signal(sig, SIG_DFL);
    raise(sig);
}

/* In the child of a fork() (pthread_atfork): the child of a node thread ends at once, so
 * that no copy of the run goes on beside it; async-signal-safe, as the child of a
 * process with threads must be. */
static void fork_child(void)
{
    const hm_node_t *n = hm__self;
    if (!n)
        return;
    line_t l = {.n = 0};
    put_node(&l, n);
    put(&l, "called fork() in slot ");
    put_int(&l, n->now);
    put(&l, ": the child process ends at once");
    l.buf[l.n++] = '\n';
    ssize_t w = write(STDERR_FILENO, l.buf, l.n);
    (void)w;
    _exit(HM_EXIT_RULES);
}

void hm__crash_report_install(void)
{
    static int forks; /* registered once: the main thread calls this before each run */
    if (!forks++)
        pthread_atfork(NULL, NULL, fork_child);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_crash;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < NSIGNALS; i++) {
        /* A signal that is no fault and came ignored stays so (SIGPIPE ignored by the
         * caller: a write to a closed pipe fails with EPIPE, exit 4, as before). */
        struct sigaction old;
        int sig = crash_signals[i].sig;
        if (i >= NFAULTS && sigaction(sig, NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            continue;
        sigaction(sig, &sa, NULL);
    }
}
