/* SPDX-License-Identifier: MIT */
/*
 * machine.c — builds the virtual machine (topology, mailboxes, its transport, one
 * thread per node), runs it to the end and takes it down.
 *
 * Threads get small stacks (opt.stack_size, the config's stack_kib, 64 KiB by default)
 * so that thousands of nodes start, each with an alternate signal stack below, for the
 * crash report of an overflow (README "Exit codes"). Each runs its node program as soon as it
 * exists (slot 0 closes only once every node has ended it); if one cannot be created the run is
 * aborted (end cause "system", naming the host limit that was hit) and the others leave.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include "hm_internal.h"

const hm__transport_t *hm__transport_for(const hm__options_t *opt)
{
    if (opt->transport)
        return opt->transport;
    if (opt->clock == HM_CLOCK_FREE)
        return opt->info.circuit ? &hm__transport_free_circuit : &hm__transport_free;
    if (opt->clock == HM_CLOCK_LOCAL)
        return opt->info.circuit ? &hm__transport_local_circuit : &hm__transport_local;
    if (opt->info.circuit)
        return &hm__transport_circuit;
    return &hm__transport_packet;
}

_Thread_local hm_node_t *hm__self;

/* The alternate signal stack of a node thread (README "Exit codes"): the lowest bytes of
 * its own stack, just above the guard page, so that it costs no memory until a signal
 * handler runs on it. The thread's stack is made that much larger: the size the config
 * asked for (stack_kib) stays the program's. */
size_t hm__altstack_size(void)
{
    long min = sysconf(_SC_MINSIGSTKSZ), page = sysconf(_SC_PAGESIZE);
    size_t want = (size_t)(min > 0 ? min : 4096) + 16 * 1024;
    size_t pg = page > 0 ? (size_t)page : 4096;
    return (want + pg - 1) / pg * pg;
}

/* Linux's SS_AUTODISARM (1U << 31): the handler may run while the thread's own stack
 * pointer is within the alternate stack (an overflow that reached it). */
#define HM__SS_AUTODISARM INT_MIN

/* Record the thread's stack and its guard in n (the crash report classifies a fault
 * against them) and put the alternate signal stack at its bottom, unless the thread has
 * one already (a sanitizer's); 1 when it did, for stack_leave. */
static int stack_enter(hm_node_t *n)
{
    pthread_attr_t a;
    void *lo = NULL;
    size_t size = 0, guard = 0;
    if (pthread_getattr_np(pthread_self(), &a) != 0)
        return 0;
    pthread_attr_getstack(&a, &lo, &size);
    pthread_attr_getguardsize(&a, &guard);
    pthread_attr_destroy(&a);
    n->stack_lo = (uintptr_t)lo;
    n->stack_hi = (uintptr_t)lo + size;
    n->stack_guard = guard;
    stack_t old, alt = {.ss_sp = lo, .ss_size = hm__altstack_size(), .ss_flags = HM__SS_AUTODISARM};
    if (sigaltstack(NULL, &old) != 0 || !(old.ss_flags & SS_DISABLE) || alt.ss_size >= size)
        return 0;
    if (sigaltstack(&alt, NULL) == 0)
        return 1;
    alt.ss_flags = 0; /* a kernel before 4.7 */
    return sigaltstack(&alt, NULL) == 0;
}

/* The thread leaves: no alternate stack (a sanitizer's thread exit frees the one it finds). */
static void stack_leave(int set)
{
    if (set)
        sigaltstack(&(stack_t){.ss_flags = SS_DISABLE}, NULL);
}

/* A node thread runs its program at once: slot 0 cannot close before every node has
 * ended it, so no node needs to wait for the others to exist. If one cannot be
 * created, or the run was stopped before this one started (engine/rules.c), the run is
 * aborted: a program that has not started does not, and ends its slot 0 as one that
 * returned at once. A program that leaves its thread by pthread_exit skips what
 * follows node_main: the cleanup handler stops the run instead (engine/rules.c). */
static void *node_thread(void *arg)
{
    hm_node_t *n = arg;
    hm__machine_t *m = n->m;
    n->now = 0;
    int alt = stack_enter(n);
    if (!atomic_load(&m->aborted)) {
        hm__self = n;
        hm__wd_run(n);
        pthread_cleanup_push(hm__rules_thread_left, n);
        hm__show_input(n);
        m->algo->node_main(n, m->state);
        pthread_cleanup_pop(0);
        hm__self = NULL;
        hm__wd_sleep(n);
        hm__blob_release(n->held);
        n->held = NULL;
    }
    if (m->opt.thread_figures)
        hm__thread_figures(n->thread_fig);
    m->tp->finish(n);
    stack_leave(alt);
    hm__node_left(n, 1);
    return NULL;
}

static int create_nodes(hm__machine_t *m, char *err, size_t errlen)
{
    int n = m->info.nodes;
    size_t out_size = hm__out_size(&m->opt, m->algo);
    m->nodes = calloc((size_t)n, sizeof *m->nodes);
    m->occ = calloc((size_t)n * (size_t)m->maxdeg + 1, sizeof *m->occ);
    if (out_size)
        m->out = calloc((size_t)n, out_size);
    if (!m->nodes || !m->occ || (out_size && !m->out)) {
        snprintf(err, errlen, "out of memory creating %d nodes", n);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        hm_node_t *nd = &m->nodes[i];
        nd->id = i;
        nd->m = m;
        nd->busy_last = -1;
        nd->wake_at = -1;
        atomic_init(&nd->go, 0);
        atomic_init(&nd->wd_slot, -1);
        atomic_init(&nd->wd_beat, 0);
        atomic_init(&nd->left, 0);
        atomic_init(&nd->crashed, 0);
        nd->out = out_size ? m->out + (size_t)i * out_size : NULL;
        if (sem_init(&nd->wake, 0, 0) != 0) {
            snprintf(err, errlen, "cannot create the semaphore of node %d: %s", i, strerror(errno));
            return -1;
        }
    }
    return 0;
}

int hm__machine_create(hm__machine_t **out, const hm__options_t *opt, const hm_algorithm_t *algo,
                       void *state, char *err, size_t errlen)
{
    hm__machine_t *m = calloc(1, sizeof *m);
    *out = m;
    if (!m) {
        snprintf(err, errlen, "out of memory creating the machine");
        return -1;
    }
    m->opt = *opt;
    m->info = opt->info;
    m->algo = algo;
    m->state = state;
    m->tp = hm__transport_for(opt);
    m->stats.last_activity = -1;
    atomic_init(&m->aborted, 0);
    atomic_init(&m->stopping, 0);
    atomic_init(&m->exited, 0);
    if (sem_init(&m->waiter, 0, 0) != 0) {
        snprintf(err, errlen, "cannot create the semaphore of the machine: %s", strerror(errno));
        return -1;
    }
    atomic_init(&m->active_left, 0);
    atomic_init(&m->wake_word, 0);
    atomic_init(&m->progress_slot, -1);
    atomic_init(&m->progress_packets, 0);
    hm__links_t l;
    int rc = hm__topology_build(&m->info, &l, err, errlen);
    m->maxdeg = l.maxdeg;
    m->deg = l.deg;
    m->nbr = l.nbr;
    m->rport = l.rport;
    if (rc != 0 || create_nodes(m, err, errlen) != 0)
        return -1;
    m->lo = 0;
    m->hi = m->info.nodes;
    if (m->tp->create(m) != 0) {
        snprintf(err, errlen, "out of memory creating %s of %d nodes", m->tp->name, m->info.nodes);
        return -1;
    }
    return 0;
}

/* clock.affinity: the CPU of node i's thread, in its attributes. */
static void pin(const hm__machine_t *m, pthread_attr_t *attr, const int *cpus, int n, int i)
{
    int c = hm__affinity_cpu(&m->opt, cpus, n, i, m->info.nodes);
    if (c < 0)
        return;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(c, &set);
    pthread_attr_setaffinity_np(attr, sizeof set, &set);
}

/* Create the threads of nodes lo.. ; returns how many exist. */
static int start_threads(hm__machine_t *m)
{
    int n = m->hi - m->lo;
    pthread_attr_t attr;
    if (pthread_attr_init(&attr) != 0) {
        hm__stop(m, HM__END_SYSTEM, hm__strdup_printf("pthread_attr_init failed"));
        return 0;
    }
    size_t stack = hm__stack_size(&m->opt) + hm__altstack_size();
    pthread_attr_setstacksize(&attr, stack);
    /* Node threads inherit a mask without SIGINT and SIGTERM: those go to the thread
     * that waits for the run, which is never busy in a node's slot (a node that spins
     * would hold up a handler run on its thread, under ThreadSanitizer). */
    sigset_t async, old;
    sigemptyset(&async);
    sigaddset(&async, SIGINT);
    sigaddset(&async, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &async, &old);
    int cpus[HM__AFFINITY_MAX], ncpus = hm__allowed_cpus(cpus);
    int created = 0;
    m->start_ns = hm__now_ns(); /* hm_clock_ns's zero, before any node runs */
    for (; created < n; created++) {
        hm_node_t *nd = &m->nodes[m->lo + created];
        pin(m, &attr, cpus, ncpus, m->lo + created);
        nd->started = 1; /* before the thread exists: it may end slot 0 at once */
        int rc = pthread_create(&nd->thread, &attr, node_thread, nd);
        /* EAGAIN can be passing (other processes' threads, a system limit): try again
         * for about a second before giving up. */
        for (int tries = 0; rc == EAGAIN && tries < 50; tries++) {
            nanosleep(&(struct timespec){.tv_nsec = 20 * 1000 * 1000}, NULL);
            rc = pthread_create(&nd->thread, &attr, node_thread, nd);
        }
        if (rc != 0) {
            nd->started = 0;
            char why[256];
            hm__host_thread_limit(n - created, stack, why, sizeof why);
            snprintf(m->start_fail, sizeof m->start_fail,
                     "cannot create the thread of node %d of %d: %s; %s", m->lo + created,
                     m->info.nodes, strerror(rc), why);
            m->tp->abort(m, hm__strdup_printf("%s", m->start_fail));
            break;
        }
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
    return created;
}

/* After the join: fold the nodes' own figures in; a failed allocation in a node
 * thread explains whatever followed it. */
static void collect(hm__machine_t *m)
{
    if (m->tp->collect)
        m->tp->collect(m);
    for (int i = 0; i < m->info.nodes; i++) {
        hm_node_t *nd = &m->nodes[i];
        if (nd->busy_last > m->stats.last_activity)
            m->stats.last_activity = nd->busy_last;
        /* A broken rule explains what followed it. */
        if ((nd->failed || nd->aborted) && m->end != HM__END_SYSTEM && m->end != HM__END_RULES &&
            (nd->failed || m->end != HM__END_ABORTED)) {
            free(m->stop_reason);
            m->stop_reason = hm__fail_message(nd);
            m->end = nd->failed ? HM__END_SYSTEM : HM__END_ABORTED;
            atomic_store(&m->aborted, 1);
        }
    }
}

hm__end_t hm__machine_run(hm__machine_t *m)
{
    /* Slot 0: every node (of this process) is active. */
    for (int i = m->lo; i < m->hi; i++)
        if (HM__PUSH(m->active, i) != 0) {
            hm__stop(m, HM__END_SYSTEM, hm__strdup_printf("out of memory starting the clock"));
            return m->end;
        }
    m->now = 0;
    m->stats.slots_run = 1;
    atomic_store(&m->active_left, m->hi - m->lo);

    hm__rules_enter(m);
    hm__host_futex_hash(m->hi - m->lo);
    int created = start_threads(m);
    hm__wait_nodes(m, created);
    /* Their stacks unmapped, there is room again for the report a full address space
     * refused (README "Many nodes": exit 4 names the limit). */
    if (m->start_fail[0] && !m->stop_reason && m->end == HM__END_SYSTEM)
        m->stop_reason = hm__strdup_printf("%s", m->start_fail);
    hm__rules_leave(m);
    collect(m);
    return m->end;
}

static void free_copies(hm__copyvec_t *v, size_t from)
{
    for (size_t i = from; i < v->n; i++)
        hm__blob_release(v->v[i].blob);
    free(v->v);
}

void hm__machine_destroy(hm__machine_t *m)
{
    if (!m)
        return;
    if (m->abandoned) {
        /* A node thread still runs and holds pointers into m: it stays. */
        hm__keep_abandoned(m);
        return;
    }
    if (m->tp && m->tp->destroy)
        m->tp->destroy(m);
    if (m->nodes) {
        for (int i = 0; i < m->info.nodes; i++) {
            hm_node_t *nd = &m->nodes[i];
            for (size_t k = 0; k < nd->log.n; k++)
                free(nd->log.v[k].text), free(nd->log.v[k].pay);
            free(nd->log.v);
            free_copies(&nd->outbox, 0);
            hm__inbox_free(&nd->inbox);
            hm__blob_release(nd->held);
            free(nd->stores.v);
            free(nd->store_slots.v);
            if (nd->heard) {
                free(nd->heard->reads.v);
                free(nd->heard->words.v);
                free(nd->heard);
            }
            free(nd->shows.v);
            free(nd->shown.v);
            free(nd->refusals);
            sem_destroy(&nd->wake);
        }
    }
    free(m->woken.v);
    free(m->active.v);
    free(m->posted.v);
    free(m->timers.v);
    free(m->nodes);
    free(m->out);
    free(m->occ);
    hm__links_t l = {m->maxdeg, m->deg, m->nbr, m->rport};
    hm__links_free(&l);
    free(m->stop_reason);
    sem_destroy(&m->waiter);
    free(m);
}

void hm__machine_progress(hm__machine_t *m, int64_t *slot, int64_t *packets)
{
    *slot = -1;
    *packets = 0;
    if (m->tp->progress)
        m->tp->progress(m, slot, packets);
}

int hm__machine_has_progress(const hm__machine_t *m)
{
    return m->tp->progress != NULL;
}

size_t hm__stack_size(const hm__options_t *opt)
{
    size_t stack = opt->stack_size ? opt->stack_size : 64 * 1024;
    return stack < (size_t)PTHREAD_STACK_MIN ? (size_t)PTHREAD_STACK_MIN : stack;
}

int hm__nodes_settled(const hm__machine_t *m, int64_t slot)
{
    int asleep = 0;
    for (int i = m->lo; i < m->hi; i++) {
        const hm_node_t *n = &m->nodes[i];
        if (atomic_load(&n->left) || atomic_load(&n->crashed))
            continue;
        /* wd_beat is 0 until the node's program starts; wd_slot is -1 in a wait. */
        unsigned beat = atomic_load_explicit(&n->wd_beat, memory_order_acquire);
        int64_t s = atomic_load_explicit(&n->wd_slot, memory_order_relaxed);
        if (!beat || (s >= 0 && s <= slot))
            return 0;
        asleep |= s < 0;
    }
    return asleep ? 2 : 1;
}

size_t hm__out_size(const hm__options_t *opt, const hm_algorithm_t *algo)
{
    return opt->out_size ? opt->out_size : algo ? algo->out_size : 0;
}
