/* SPDX-License-Identifier: MIT */
/*
 * rules.c — the rules of the node API (README "Rules of the node API"). A node program
 * runs in its node's thread, calls the API with its own handle only, and ends by
 * returning from node_main. Node threads share one address space, so nothing stops a
 * program from breaking these rules; what breaks one stops the run with the end cause
 * rules (exit 5) and one line naming the node, and no such program hangs or crashes
 * the run:
 *
 *   - a call with another node's handle, or from a thread that is not a node's (one
 *     the program created): engine/node.c compares the handle with the calling
 *     thread's node (hm__self) and calls hm__rules_call when they differ; the call
 *     returns HM_EABORT and changes nothing;
 *   - pthread_exit in a node program: the node thread's cleanup handler;
 *   - exit() in a node program: an on_exit handler, called in the exiting thread,
 *     stops the run and never returns: the thread waits there, the process does not
 *     end, and the thread that waits for the run writes the summary and the outputs
 *     (engine/watchdog.c leaves the thread behind).
 *
 * None of this is on the node's path: the compare is engine/node.c's; the rest runs
 * only once a rule is broken.
 */
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "hm_internal.h"

/* ---- the machines that run now ------------------------------------------------------ */

/* A thread that is not a node's has no node to find its machine by: it is looked up
 * here, under the lock, which also keeps the machine from being freed meanwhile. */
static pthread_mutex_t running_lock = PTHREAD_MUTEX_INITIALIZER;
static hm__machine_t **running;
static size_t nrunning, caprunning;

static void arm(int nodes);

void hm__rules_enter(hm__machine_t *m)
{
    arm(m->hi - m->lo);
    pthread_mutex_lock(&running_lock);
    /* Out of memory: the run goes on; such a call then stops nothing. */
    if (hm__grow((void **)&running, &caprunning, nrunning + 1, sizeof *running) == 0)
        running[nrunning++] = m;
    pthread_mutex_unlock(&running_lock);
}

void hm__rules_leave(hm__machine_t *m)
{
    pthread_mutex_lock(&running_lock);
    for (size_t i = 0; i < nrunning; i++)
        if (running[i] == m) {
            running[i] = running[--nrunning];
            break;
        }
    if (nrunning == 0) {
        free(running);
        running = NULL;
        caprunning = 0;
    }
    pthread_mutex_unlock(&running_lock);
}

/* ---- stopping the run ------------------------------------------------------------- */

/* The run stops (the first reason wins); the thread that waits for it looks at once. */
static void stop(hm__machine_t *m, char *reason)
{
    hm__stop(m, HM__END_RULES, reason);
    sem_post(&m->waiter);
}

void hm__rules_stop(hm__machine_t *m, char *reason)
{
    stop(m, reason);
}

void hm__node_left(hm_node_t *n, int how)
{
    hm__machine_t *m = n->m;
    atomic_store_explicit(&n->left, how, memory_order_release);
    int last = atomic_fetch_add_explicit(&m->exited, 1, memory_order_acq_rel) + 1 == m->hi - m->lo;
    if (last || how != 1)
        sem_post(&m->waiter);
}

/* The node number of handle n in m, without reading n; -1 if n is none of m's. */
static int node_of(const hm__machine_t *m, const hm_node_t *n)
{
    uintptr_t a = (uintptr_t)n, lo = (uintptr_t)m->nodes;
    if (a < lo || a >= lo + (uintptr_t)m->info.nodes * sizeof *m->nodes ||
        (a - lo) % sizeof *m->nodes != 0)
        return -1;
    return (int)((a - lo) / sizeof *m->nodes);
}

/* From a thread that is not a node's: the machine whose node n is (or the only one
 * that runs), under running_lock. */
static void foreign_call(const hm_node_t *n, const char *fn)
{
    pthread_mutex_lock(&running_lock);
    hm__machine_t *m = nrunning == 1 ? running[0] : NULL;
    int who = -1;
    for (size_t i = 0; i < nrunning && who < 0; i++)
        if ((who = node_of(running[i], n)) >= 0)
            m = running[i];
    if (m && who >= 0)
        stop(m, hm__strdup_printf("%s called from a thread that is not a node thread (node %d's "
                                  "handle)",
                                  fn, who));
    else if (m)
        stop(m, hm__strdup_printf("%s called from a thread that is not a node thread (with a "
                                  "handle that is no node of the run)",
                                  fn));
    pthread_mutex_unlock(&running_lock);
}

void hm__rules_call(const hm_node_t *n, const char *fn)
{
    hm_node_t *self = hm__self;
    if (!self) {
        foreign_call(n, fn);
        return;
    }
    int who = node_of(self->m, n);
    if (who >= 0)
        stop(self->m,
             hm__strdup_printf("node %d: %s called with the handle of node %d", self->id, fn, who));
    else
        stop(self->m,
             hm__strdup_printf("node %d: %s called with %s", self->id, fn,
                               n ? "a handle that is no node of this run" : "a null handle"));
}

/* ---- a node program that leaves its thread ------------------------------------------ */

void hm__rules_thread_left(void *arg)
{
    hm_node_t *n = arg;
    if (hm__self != n)
        return;
    hm__self = NULL;
    stop(n->m, hm__strdup_printf("node %d called pthread_exit in slot %lld: a node program "
                                 "ends by returning from its node_main",
                                 n->id, (long long)n->now));
    hm__wd_sleep(n);
    hm__node_left(n, 3); /* its slot stays open: engine/watchdog.c wakes the others */
}

/* exit() runs the atexit and on_exit handlers in the calling thread, each once: one
 * handler is armed per node of the runs so far, so that every node thread that calls
 * exit() at once meets one. A handler called in a node thread stops the run and never
 * returns (exit() goes no further; its lock is not held meanwhile); elsewhere it
 * returns at once. A handler that cannot be armed (out of memory) leaves the run as it
 * was. */
static atomic_int armed;

static void exit_hook(int status, void *arg)
{
    (void)arg;
    atomic_fetch_sub(&armed, 1);
    hm_node_t *n = hm__self;
    if (!n)
        return;
    hm__self = NULL;
    stop(n->m, hm__strdup_printf("node %d called exit(%d) in slot %lld: a node program ends by "
                                 "returning from its node_main, not by ending the process",
                                 n->id, status, (long long)n->now));
    hm__wd_sleep(n);
    hm__node_left(n, 2);
    for (;;)
        pause(); /* until the process ends, once the run is written */
}

#ifdef __GLIBC__
static int arm_one(void)
{
    return on_exit(exit_hook, NULL);
}
#else
static void exit_hook_plain(void)
{
    exit_hook(-1, NULL);
}
static int arm_one(void)
{
    return atexit(exit_hook_plain);
}
#endif

/* Before a run of `nodes` node threads (the thread that runs it). */
static void arm(int nodes)
{
    while (atomic_load(&armed) < nodes && arm_one() == 0)
        atomic_fetch_add(&armed, 1);
}
