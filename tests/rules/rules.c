/* SPDX-License-Identifier: MIT */
/* Node programs that break the rules of the node API (README "Rules of the node API",
 * "Watchdog"), raise a fatal signal, fork or hold stdio's locks (README "Exit codes",
 * "What verified means"), one algorithm each, run by tests/check_rules.sh: hypemu must stop each
 * run with its exit code and one line naming the node, and never hang or exit 0. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <hypemu.h>

/* Node 3 calls exit(0) in slot 2. */
static void do_exit(hm_node_t *n, void *state)
{
    (void)state;
    if (hm_wait_until(n, 2) != HM_OK)
        return;
    if (hm_id(n) == 3)
        exit(0);
    hm_next_slot(n);
}

/* Every node calls exit(0) in slot 1. */
static void do_exit_all(hm_node_t *n, void *state)
{
    (void)state;
    if (hm_next_slot(n) == HM_OK)
        exit(0);
}

/* Node 3 calls pthread_exit in slot 2. */
static void do_pthread_exit(hm_node_t *n, void *state)
{
    (void)state;
    if (hm_wait_until(n, 2) != HM_OK)
        return;
    if (hm_id(n) == 3)
        pthread_exit(NULL);
    hm_next_slot(n);
}

/* Node 0 sends from a thread of its own, with its own handle. */
static void *sender(void *arg)
{
    hm_packet_t p = {.msg = 1, .value = 7};
    hm_send(arg, 0, &p);
    return NULL;
}

static void do_thread(hm_node_t *n, void *state)
{
    (void)state;
    if (hm_id(n) == 0) {
        pthread_t t;
        if (pthread_create(&t, NULL, sender, n) == 0)
            pthread_join(t, NULL);
    }
    hm_next_slot(n);
}

/* Node 1 stores with node 0's handle in slot 1 (passed through a global in slot 0: the
 * barrier orders the write and the read). */
static hm_node_t *node0;

static void do_handle(hm_node_t *n, void *state)
{
    (void)state;
    if (hm_id(n) == 0)
        node0 = n;
    if (hm_next_slot(n) != HM_OK)
        return;
    if (hm_id(n) == 1)
        hm_store(node0, 5);
    hm_next_slot(n);
}

/* Node 3 calls abort() in slot 2. */
static void do_abort(hm_node_t *n, void *state)
{
    (void)state;
    if (hm_wait_until(n, 2) != HM_OK)
        return;
    if (hm_id(n) == 3)
        abort();
}

/* Every node dereferences a null pointer in slot 1. */
static void do_crash_all(hm_node_t *n, void *state)
{
    (void)state;
    if (hm_next_slot(n) != HM_OK)
        return;
    volatile int *volatile nowhere = NULL;
    *nowhere = 1;
}

/* Node 2 spins in slot 3, after a send in slot 0; the others wait for a packet. */
static void do_spin(hm_node_t *n, void *state)
{
    (void)state;
    hm_packet_t p = {.msg = 1, .value = hm_id(n)};
    hm_send(n, 0, &p);
    if (hm_id(n) != 2) {
        hm_wait_packet(n, NULL);
        hm_wait_packet(n, NULL);
        return;
    }
    if (hm_wait_until(n, 3) != HM_OK)
        return;
    for (volatile unsigned long i = 0;; i++)
        ;
}

/* Node 3 raises a fatal signal in slot 2, and waits for it (a sanitizer may deliver it
 * at its next call). */
#define RAISE(sig)                                                                                 \
    static void do_##sig(hm_node_t *n, void *state)                                                \
    {                                                                                              \
        (void)state;                                                                               \
        if (hm_wait_until(n, 2) != HM_OK || hm_id(n) != 3)                                         \
            return;                                                                                \
        raise(sig);                                                                                \
        for (;;)                                                                                   \
            pause();                                                                               \
    }
RAISE(SIGTRAP)
RAISE(SIGALRM)
RAISE(SIGPIPE)
RAISE(SIGXCPU)
RAISE(SIGXFSZ)
RAISE(SIGSYS)
RAISE(SIGBUS)
RAISE(SIGFPE)
RAISE(SIGILL)

/* Node 0 forks in slot 1: the child, if it went on, would say so on stdout. */
static void do_fork(hm_node_t *n, void *state)
{
    (void)state;
    if (hm_next_slot(n) != HM_OK || hm_id(n) != 0)
        return;
    pid_t pid = fork();
    if (pid == 0) {
        static const char alive[] = "the child of node 0 goes on\n";
        ssize_t w = write(STDOUT_FILENO, alive, sizeof alive - 1);
        _exit(w < 0);
    }
    if (pid > 0)
        waitpid(pid, NULL, 0);
}

/* Node 2 takes stdio's locks on stdout and stderr in slot 3 and blocks for ever; the
 * others wait for packets. */
static void do_stdio(hm_node_t *n, void *state)
{
    (void)state;
    if (hm_id(n) != 2) {
        hm_wait_packet(n, NULL);
        return;
    }
    if (hm_wait_until(n, 3) != HM_OK)
        return;
    flockfile(stdout);
    flockfile(stderr);
    for (;;)
        pause();
}

static void quiet(hm_node_t *n, void *state)
{
    (void)n;
    (void)state;
}

/* A verify that dereferences a null pointer. */
static void crash_verify(hm_report_t *r)
{
    volatile int *volatile nowhere = NULL;
    *nowhere = r->verified;
}

#define ALGO(id, fn)                                                                               \
    static const hm_algorithm_t algo_##id = {.name = "rules-" #id,                                 \
                                             .topologies = HM_BIT(HM_TOPO_HYPERCUBE),              \
                                             .ports = HM_BIT(HM_PORTS_ALL_PORT),                   \
                                             .problem = HM_PROBLEM_BROADCAST,                      \
                                             .node_main = fn};
ALGO(exit, do_exit)
ALGO(exit_all, do_exit_all)
ALGO(pthread_exit, do_pthread_exit)
ALGO(thread, do_thread)
ALGO(handle, do_handle)
ALGO(abort, do_abort)
ALGO(crash_all, do_crash_all)
ALGO(spin, do_spin)
ALGO(SIGTRAP, do_SIGTRAP)
ALGO(SIGALRM, do_SIGALRM)
ALGO(SIGPIPE, do_SIGPIPE)
ALGO(SIGXCPU, do_SIGXCPU)
ALGO(SIGXFSZ, do_SIGXFSZ)
ALGO(SIGSYS, do_SIGSYS)
ALGO(SIGBUS, do_SIGBUS)
ALGO(SIGFPE, do_SIGFPE)
ALGO(SIGILL, do_SIGILL)
ALGO(fork, do_fork)
ALGO(stdio, do_stdio)
static const hm_algorithm_t verify_crash = {.name = "rules-verify_crash",
                                            .topologies = HM_BIT(HM_TOPO_HYPERCUBE),
                                            .ports = HM_BIT(HM_PORTS_ALL_PORT),
                                            .problem = HM_PROBLEM_BROADCAST,
                                            .node_main = quiet,
                                            .verify = crash_verify};
HM_PLUGIN(&algo_exit, &algo_exit_all, &algo_pthread_exit, &algo_thread, &algo_handle, &algo_abort,
          &algo_crash_all, &algo_spin, &verify_crash, &algo_SIGTRAP, &algo_SIGALRM, &algo_SIGPIPE,
          &algo_SIGXCPU, &algo_SIGXFSZ, &algo_SIGSYS, &algo_SIGBUS, &algo_SIGFPE, &algo_SIGILL,
          &algo_fork, &algo_stdio);
