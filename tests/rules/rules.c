/* SPDX-License-Identifier: MIT */
/* Node programs that break the rules of the node API (README "Rules of the node API",
 * "Watchdog"), one algorithm each, run by tests/check_rules.sh: hypemu must stop each
 * run with its exit code and one line naming the node, and never hang or exit 0. */
#include <pthread.h>
#include <stdlib.h>

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
static const hm_algorithm_t verify_crash = {.name = "rules-verify_crash",
                                            .topologies = HM_BIT(HM_TOPO_HYPERCUBE),
                                            .ports = HM_BIT(HM_PORTS_ALL_PORT),
                                            .problem = HM_PROBLEM_BROADCAST,
                                            .node_main = quiet,
                                            .verify = crash_verify};
HM_PLUGIN(&algo_exit, &algo_exit_all, &algo_pthread_exit, &algo_thread, &algo_handle, &algo_abort,
          &algo_crash_all, &algo_spin, &verify_crash);
