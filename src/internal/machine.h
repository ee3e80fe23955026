/* SPDX-License-Identifier: MIT */
/*
 * internal/machine.h — the machine, and what engine/machine.c, rules.c, watchdog.c and host.c offer
 * about it. Part of the engine's private structures (hm_internal.h, which includes every part in
 * this order); nothing in src/algo includes it.
 */
#ifndef HM_INTERNAL_MACHINE_H
#define HM_INTERNAL_MACHINE_H

#include "internal/transport.h"

struct hm__machine_s {
    hm__options_t opt;
    hm_machine_info_t info; /* = opt.info */
    const hm_algorithm_t *algo;
    void *state;
    const hm__transport_t *tp;
    void *tp_priv; /* the transport's own state */

    /* Topology (the fields of hm__links_t, built by topo/). */
    int maxdeg;
    int *deg;
    int32_t *nbr, *rport;

    hm_node_t *nodes;
    unsigned char *out; /* the nodes' output areas, out_size bytes each */
    /* The nodes whose threads run in this process: [lo, hi), every node unless a
     * distributed transport splits the machine (engine/mpi.c); and its own state. */
    int lo, hi;
    void *dist;

    /* The barrier clock (engine/clock.c). The pads keep the words that every node
     * writes or reads each slot (active_left; aborted) off the cache lines of the
     * read-only fields above and of what the committer writes (doc/performance.md). */
    char pad_clock[64];
    atomic_int active_left; /* nodes still running in the current slot */
    int64_t now;
    HM__VEC(int32_t) active;     /* nodes running in the current slot, ascending */
    HM__VEC(int32_t) posted;     /* those of them woken by their semaphore */
    atomic_uint wake_word;       /* the shared wake-up word (a futex) */
    HM__VEC(hm__timer_t) timers; /* min-heap on (slot, node) */
    int done_nodes;
    HM__VEC(int32_t) woken; /* scratch: nodes woken by a packet */

    /* Mailboxes: occupancy per directed link (delayed + received-unread copies). */
    int32_t *occ;

    hm__stats_t stats;

    /* Progress (README "Progress"): the last slot committed and the copies delivered by
     * then, published by the barrier clock for a reader on another thread; -1 while
     * none (and always under the free-running clock, which has no global slot). */
    _Atomic int64_t progress_slot, progress_packets;

    /* Stopping. `stopping` elects the one hm__stop that writes end and stop_reason;
     * `aborted`, stored after them, publishes the stop. */
    char pad_stop[64];
    atomic_int aborted;
    atomic_int stopping;
    hm__end_t end;
    char *stop_reason; /* conflict report, deadlock report... (owned) */
    /* A node thread that could not be created: the report, kept here as well, since
     * with the address space spent its copy for stop_reason may fail until the threads
     * created have ended (engine/machine.c). */
    char start_fail[640];

    /* The thread that waits for the run (engine/watchdog.c): posted by every node thread
     * that ends and by a stop from a node's thread; the node threads ended; those left
     * running when the run was given up (their machine is then never freed). */
    sem_t waiter;
    atomic_int exited;
    int abandoned;
    struct hm__machine_s *next_abandoned;
    /* CLOCK_MONOTONIC ns when the node threads were started: hm_clock_ns's zero. */
    int64_t start_ns;
};

/* engine/machine.c */
int hm__machine_create(hm__machine_t **out, const hm__options_t *opt, const hm_algorithm_t *algo,
                       void *state, char *err, size_t errlen);
/* Runs the node threads to the end. Returns how the run ended (0: HM__END_DONE). */
hm__end_t hm__machine_run(hm__machine_t *m);
void hm__machine_destroy(hm__machine_t *m);

/* From any thread while the run goes on: the last slot every node has completed (-1 if
 * none yet) and the copies delivered until then, from the transport's progress hook;
 * hm__machine_has_progress says whether the transport has one. */
void hm__machine_progress(hm__machine_t *m, int64_t *slot, int64_t *packets);
int hm__machine_has_progress(const hm__machine_t *m);
/* engine/clock.c: the barrier clock's progress, the slot it committed last. */
void hm__clock_progress(hm__machine_t *m, int64_t *slot, int64_t *packets);

/* The first reason wins; takes reason (may be NULL: out of memory). Any thread. */
void hm__stop(hm__machine_t *m, hm__end_t end, char *reason);
/* engine/rules.c: stop the run with the end cause rules (exit 5), from any thread; takes
 * reason (the line that names the node; cli/sandbox.c's node processes). */
void hm__rules_stop(hm__machine_t *m, char *reason);
static inline int hm__aborted(const hm__machine_t *m)
{
    return atomic_load(&((hm__machine_t *)m)->aborted);
}
static inline int hm__local(const hm__machine_t *m, int node)
{
    return node >= m->lo && node < m->hi;
}
static inline int hm__interrupted(const hm__machine_t *m)
{
    return m->opt.interrupt && atomic_load(m->opt.interrupt);
}

/* Why the machine cannot start more threads: names the host limit that is reached
 * (kernel.pid_max, kernel.threads-max, vm.max_map_count, RLIMIT_NPROC, memory) with
 * its value, into buf. `want` threads of `stack` bytes; returns the number of threads
 * the tightest limit allows (INT64_MAX if none is known). A `--validate` check can
 * call it with buf NULL. */
int64_t hm__host_thread_limit(int64_t want, size_t stack, char *buf, size_t len);
/* Give the process's futex hash (Linux 6.16 and later) at least one bucket per node
 * thread, so that a wake-up walks a short chain however many nodes sleep (README "Many
 * nodes"); does nothing where the kernel has no such hash. */
void hm__host_futex_hash(int64_t threads);
/* engine/watchdog.c: what node threads tell the watchdog, two relaxed stores and a
 * release one per wait. */
static inline void hm__wd_sleep(hm_node_t *n)
{
    atomic_store_explicit(&n->wd_slot, -1, memory_order_relaxed);
}
static inline void hm__wd_run(hm_node_t *n)
{
    atomic_store_explicit(&n->wd_slot, n->now, memory_order_relaxed);
    unsigned b = atomic_load_explicit(&n->wd_beat, memory_order_relaxed);
    atomic_store_explicit(&n->wd_beat, b + 1, memory_order_release);
}
/* Wait for the `created` node threads of m (from m->lo), watching them (clock.slot_timeout,
 * an interrupt that a node's slot holds up), until each has ended or is given up. */
void hm__wait_nodes(hm__machine_t *m, int created);
/* Keep m, whose threads were given up, reachable until the process ends. */
void hm__keep_abandoned(hm__machine_t *m);
/* 1 once a run of this process has left a node's thread running (hm__keep_abandoned). */
int hm__threads_left_running(void);

/* engine/rules.c (README "Rules of the node API"): a node API call whose handle is not
 * the calling thread's node (engine/node.c's check) stops the run with the end cause
 * rules; the node thread's hooks catch a program that calls pthread_exit or exit(). */
void hm__rules_call(const hm_node_t *n, const char *fn);
void hm__rules_thread_left(void *n); /* pthread_cleanup handler: pthread_exit in node_main */
/* The machines that run now, for a call from a thread that is not a node's. */
void hm__rules_enter(hm__machine_t *m);
void hm__rules_leave(hm__machine_t *m);
/* The node thread ended (or will never come back): tell the waiting thread. */
void hm__node_left(hm_node_t *n, int how);

/* engine/machine.c: the bytes of each node's output area (hm_out): the setup's, else
 * the descriptor's. */
size_t hm__out_size(const hm__options_t *opt, const hm_algorithm_t *algo);
/* engine/machine.c: the stack size of a node thread (opt.stack_size, 64 KiB by default). */
size_t hm__stack_size(const hm__options_t *opt);
/* engine/machine.c: the bytes of a node thread's alternate signal stack, taken from the
 * bottom of its stack and added to its size. */
size_t hm__altstack_size(void);
/* engine/machine.c, for the crash report: whether a node of m that has not crashed
 * (crashed) nor left may still crash in a slot before or at `slot`: 0 when one runs
 * there (or has not started), 2 when none but some sleep in a wait (one may have been
 * woken into that slot and not run yet), 1 when none can. Async-signal-safe. */
int hm__nodes_settled(const hm__machine_t *m, int64_t slot);

/* The CPU node `node` of `nodes` is pinned to under opt's clock.affinity, given the
 * CPUs this process may use (cpus[0..n-1], ascending); -1: not pinned. */
int hm__affinity_cpu(const hm__options_t *opt, const int *cpus, int n, int node, int nodes);
/* The CPUs this process may use (sched_getaffinity), ascending, into cpus (room for
 * HM__AFFINITY_MAX); returns how many. */
int hm__allowed_cpus(int *cpus);
/* The host, for the free-running clock's summary: CPUs, CPU model, kernel, affinity. */
json_t *hm__host_json(const hm__machine_t *m);
/* engine/host.c: the calling thread as the kernel counts it: voluntary and involuntary
 * context switches and CPU migrations (-1: unreadable). */
void hm__thread_figures(int64_t fig[3]);

#endif /* HM_INTERNAL_MACHINE_H */
