/* SPDX-License-Identifier: MIT */
/*
 * crash.c — the report of a node program, or an algorithm's hook, that crashes (README
 * "Exit codes"; plugin.h): one line on stderr naming the node, its algorithm and its
 * plugin, written with one write(2), then the process ends by the signal. Every signal
 * whose default action ends the process and that a program can raise itself (a fault,
 * abort(), raise(), a CPU or file size limit, a pipe with no reader, an alarm) has its
 * line. A fault names its source line where the code has a line table (libdw, asked by
 * the handler of a thread started beforehand: no libdw call in a signal handler), and a
 * stack overflow is named as one (the handler runs on the node thread's alternate stack,
 * engine/machine.c). Of nodes that crash together, the first in (slot, node) order has
 * the line. And a fork() in a node thread: the child process ends at once, with a line of
 * its own (README "What verified means", threads).
 */
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>
#ifdef HM_HAVE_LIBDW
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#endif

#include "cli/config_keys.h"
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

/* ---- where: the source line of the faulting instruction -------------------------------- */

/* The requests to the symboliser thread (a program counter) and its answers ("FILE:LINE",
 * or "" where the code has no line table), pipes; -1 without libdw. The handler only
 * writes and reads them: libdw runs outside the signal handler. */
static int where_req[2] = {-1, -1}, where_ans[2] = {-1, -1};

#ifdef HM_HAVE_LIBDW
/* The line of pc in the compilation unit that holds it, found by walking them: for code
 * without .debug_aranges (clang's), where dwfl_module_getsrc finds none. */
static const char *line_by_cu(Dwfl_Module *mod, Dwarf_Addr pc, int *lineno, const char **dir)
{
    Dwarf_Addr bias;
    Dwarf_Die *cu = NULL;
    Dwarf_Attribute a;
    while ((cu = dwfl_module_nextcu(mod, cu, &bias)) != NULL)
        if (dwarf_haspc(cu, pc - bias) > 0) {
            Dwarf_Line *l = dwarf_getsrc_die(cu, pc - bias);
            *dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &a));
            return l && dwarf_lineno(l, lineno) == 0 ? dwarf_linesrc(l, NULL, NULL) : NULL;
        }
    return NULL;
}

/* "FILE:LINE" of pc among d's modules, or nothing. */
static void line_of(Dwfl *d, uintptr_t pc, char *out, size_t len)
{
    Dwfl_Module *mod = dwfl_addrmodule(d, (Dwarf_Addr)pc);
    Dwfl_Line *line = mod ? dwfl_module_getsrc(mod, (Dwarf_Addr)pc) : NULL;
    int lineno = 0;
    const char *file = line ? dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL) : NULL;
    const char *dir = line ? dwfl_line_comp_dir(line) : NULL;
    if (!file && mod)
        file = line_by_cu(mod, (Dwarf_Addr)pc, &lineno, &dir);
    /* A name relative to the compilation's directory (clang's, under it) is given whole. */
    int whole = file && file[0] != '/' && dir && dir[0] == '/';
    if (file && lineno > 0)
        snprintf(out, len, "%s%s%s:%d", whole ? dir : "", whole ? "/" : "", file, lineno);
}

static void where_of(uintptr_t pc, char *out, size_t len)
{
    static const Dwfl_Callbacks cb = {.find_elf = dwfl_linux_proc_find_elf,
                                      .find_debuginfo = dwfl_standard_find_debuginfo};
    Dwfl *d = dwfl_begin(&cb);
    out[0] = 0;
    if (!d)
        return;
    dwfl_report_begin(d);
    if (dwfl_linux_proc_report(d, getpid()) == 0 && dwfl_report_end(d, NULL, NULL) == 0)
        line_of(d, pc, out, len);
    dwfl_end(d);
}

typedef struct where_in_s {
    const char *file;
    uint64_t base, pc;
    char *out;
    size_t len;
} where_in_t;

static void *where_in(void *arg)
{
    static const Dwfl_Callbacks cb = {.find_elf = dwfl_build_id_find_elf,
                                      .find_debuginfo = dwfl_standard_find_debuginfo,
                                      .section_address = dwfl_offline_section_address};
    const where_in_t *w = arg;
    Dwfl *d = dwfl_begin(&cb);
    if (!d)
        return NULL;
    dwfl_report_begin(d);
    Dwfl_Module *mod = dwfl_report_elf(d, "plugin", w->file, -1, (GElf_Addr)w->base, false);
    if (mod && dwfl_report_end(d, NULL, NULL) == 0)
        line_of(d, (uintptr_t)w->pc, w->out, w->len);
    dwfl_end(d);
    return NULL;
}

/* libdw's own stack needs are not a node thread's 64 KiB: a thread of its own. */
void hm__crash_where_in(const char *file, uint64_t base, uint64_t pc, char *out, size_t len)
{
    where_in_t w = {file, base, pc, out, len};
    pthread_t t;
    out[0] = 0;
    if (pc && file && pthread_create(&t, NULL, where_in, &w) == 0)
        pthread_join(t, NULL);
}

static void *symboliser(void *arg)
{
    (void)arg;
    uint64_t pc;
    while (read(where_req[0], &pc, sizeof pc) == (ssize_t)sizeof pc) {
        char buf[512];
        where_of((uintptr_t)pc, buf, sizeof buf);
        ssize_t w = write(where_ans[1], buf, strlen(buf) + 1);
        (void)w;
    }
    return NULL;
}

/* Started once, with every signal blocked: it never runs a handler. */
static void symboliser_start(void)
{
    if (pipe2(where_req, O_CLOEXEC) != 0)
        return;
    if (pipe2(where_ans, O_CLOEXEC) != 0) {
        close(where_req[0]);
        close(where_req[1]);
        where_req[0] = where_req[1] = -1;
        return;
    }
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_attr_t attr;
    pthread_t t;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&t, &attr, symboliser, NULL) != 0)
        where_req[1] = -1; /* the handler does not ask */
    pthread_attr_destroy(&attr);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}
#else
void hm__crash_where_in(const char *file, uint64_t base, uint64_t pc, char *out, size_t len)
{
    (void)file;
    (void)base;
    (void)pc;
    if (len)
        out[0] = 0;
}
#endif

/* The faulting instruction of a fault (si_code > 0: the kernel's, not raise's or kill's);
 * 0 for a signal sent (its handler's caller is the C library's raise or abort) or where
 * this machine's context is not known here. */
static uintptr_t fault_pc(int sig, const siginfo_t *si, const void *uc)
{
    if ((sig != SIGSEGV && sig != SIGBUS && sig != SIGFPE && sig != SIGILL && sig != SIGTRAP) ||
        si->si_code <= 0)
        return 0;
#if defined(__x86_64__) && defined(REG_RIP)
    return (uintptr_t)((const ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
    return (uintptr_t)((const ucontext_t *)uc)->uc_mcontext.pc;
#else
    (void)uc;
    return 0;
#endif
}

/* " at FILE:LINE" from the symboliser, which has 2 s to answer; nothing without libdw,
 * or where the code has no line table (built without -g). */
static void put_where(line_t *l, uintptr_t pc)
{
    uint64_t v = pc;
    if (!pc || where_req[1] < 0 || write(where_req[1], &v, sizeof v) != (ssize_t)sizeof v)
        return;
    struct pollfd p = {.fd = where_ans[0], .events = POLLIN};
    char buf[512];
    if (poll(&p, 1, 2000) != 1)
        return;
    ssize_t r = read(where_ans[0], buf, sizeof buf - 1);
    if (r <= 1)
        return;
    buf[r] = 0;
    put(l, " at ");
    put(l, buf);
}

/* ---- a stack overflow -------------------------------------------------------------------- */

/* A fault in the guard page below the node's stack or within it, or a stack pointer
 * that has left it downwards (a frame that jumped the guard, in code built without
 * -fstack-clash-protection). */
static int overflowed(const hm_node_t *n, int sig, const siginfo_t *si, const void *uc)
{
    uintptr_t a = (uintptr_t)si->si_addr, sp = 0;
    if (sig != SIGSEGV || !n->stack_hi)
        return 0;
#if defined(__x86_64__) && defined(REG_RSP)
    sp = (uintptr_t)((const ucontext_t *)uc)->uc_mcontext.gregs[REG_RSP];
#else
    (void)uc;
#endif
    uintptr_t far = (uintptr_t)HM__STACK_KIB_MAX * 1024;
    return (a >= n->stack_lo - n->stack_guard && a < n->stack_hi) ||
           (sp && sp < n->stack_lo && n->stack_lo - sp <= far);
}

/* ": node N overflowed its stack (64 KiB, stack_kib)" */
static void put_overflow(line_t *l, const hm_node_t *n)
{
    put(l, ": node ");
    put_int(l, n->id);
    put(l, " overflowed its stack (");
    put_int(l, (long long)(hm__stack_size(&n->m->opt) / 1024));
    put(l, " KiB, ");
    put(l, hm__config_keys[HM__K_STACK_KIB].path);
    put(l, ")");
}

/* ---- the first crash --------------------------------------------------------------------- */

/* Nodes that crash together: each one's key (slot << 24 | node, HM__NODES_MAX = 2^24)
 * goes into `best` (the least); the first to arrive waits until no other node can still
 * crash in a slot before or at the least's (engine's hm__nodes_settled): each has
 * crashed, left, or runs a later slot, or sleeps in a wait and no node has crashed for
 * 100 ms; at most 1 s. It then publishes the least as `winner`; that node alone writes
 * its line, the others wait for the process to end (README "Exit codes"). */
static atomic_uint_least64_t best = UINT64_MAX, winner = UINT64_MAX;
static atomic_int arrivals;
static atomic_llong last_arrival; /* CLOCK_MONOTONIC ms of the latest crash */

static void sleep_ms(long ms)
{
    nanosleep(&(struct timespec){.tv_sec = ms / 1000, .tv_nsec = ms % 1000 * 1000000}, NULL);
}

static long long now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void choose(const hm__machine_t *m)
{
    long long t0 = now_ms();
    for (;;) {
        int settled = hm__nodes_settled(m, (int64_t)(atomic_load(&best) >> 24));
        long long t = now_ms();
        if (settled == 1 || (settled == 2 && t - atomic_load(&last_arrival) >= 100) ||
            t - t0 >= 1000)
            break;
        sleep_ms(2);
    }
    atomic_store(&winner, atomic_load(&best));
}

/* 1 when this node's line is the one to write. */
static int first_crash(hm_node_t *n)
{
    int64_t slot = n->now < ((int64_t)1 << 40) ? n->now : ((int64_t)1 << 40) - 1;
    uint64_t key = (uint64_t)(slot < 0 ? 0 : slot) << 24 | (uint64_t)n->id;
    uint64_t b = atomic_load(&best);
    while (key < b && !atomic_compare_exchange_weak(&best, &b, key))
        ;
    atomic_store(&last_arrival, now_ms());
    atomic_store(&n->crashed, 1);
    if (atomic_fetch_add(&arrivals, 1) == 0)
        choose(n->m);
    while (atomic_load(&winner) == UINT64_MAX)
        sleep_ms(1);
    return atomic_load(&winner) == key;
}

/* ---- the handler ------------------------------------------------------------------------- */

static void put_hook(line_t *l)
{
    const char *file = hm__plugin_file(hook_algo);
    put(l, "hypemu: ");
    put(l, hook_name);
    put(l, " of algorithm ");
    put(l, hook_algo->name);
    if (file) {
        put(l, " (plugin ");
        put(l, file);
        put(l, ")");
    }
    put(l, " crashed");
}

/* Async-signal-safe: write(2), poll(2), nanosleep(2), atomics, and tables that no longer
 * change during a run. */
static void on_crash(int sig, siginfo_t *si, void *uc)
{
    hm_node_t *n = hm__self;
    line_t l = {.n = 0};
    if (n && !first_crash(n))
        for (;;)
            pause(); /* another node's line is written; the process ends by its signal */
    if (n) {
        put_node(&l, n);
        put(&l, "crashed in slot ");
        put_int(&l, n->now);
    } else if (hook_algo) {
        put_hook(&l);
    }
    if (l.n) {
        put(&l, ": ");
        put(&l, signal_name(sig));
        put_where(&l, fault_pc(sig, si, uc));
        if (n && overflowed(n, sig, si, uc))
            put_overflow(&l, n);
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
    if (!forks++) {
        pthread_atfork(NULL, NULL, fork_child);
#ifdef HM_HAVE_LIBDW
        symboliser_start();
#endif
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    /* On the node thread's alternate stack (engine/machine.c): a stack overflow has its
     * line too. */
    sa.sa_sigaction = on_crash;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
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
