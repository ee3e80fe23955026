/* SPDX-License-Identifier: MIT */
/* Node programs that crash (README "Exit codes"), built with -g and
 * -fstack-clash-protection by tests/check_crash.sh: a stack overflow is named as one,
 * with the stack_kib that was too small; a fault names its source line; of two nodes
 * that crash in the same slot, the lower is reported, every run. Each is the broadcast
 * of examples/plugin/flood.c, so that a run that does not crash verifies. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <hypemu.h>

static void flood(hm_node_t *n)
{
    size_t b;
    const int64_t *in = hm_input(n, &b);
    int r = hm_id(n) ^ hm_root(n), first = 0;
    hm_packet_t p = {.msg = 1, .origin = hm_root(n), .data = in, .len = 0};
    if (r != 0) {
        if (hm_wait_packet(n, &p) != HM_OK)
            return;
        first = 32 - __builtin_clz((unsigned)r);
        b = p.len / sizeof *in;
    }
    int64_t *buf = malloc(b * sizeof *buf + 1);
    if (!buf) {
        hm_fail(n, "out of memory");
        return;
    }
    memcpy(buf, r ? p.data : (const void *)in, b * sizeof *buf);
    for (size_t i = 0; i < b; i++)
        hm_store(n, buf[i]);
    p.data = buf;
    p.len = (uint32_t)(b * sizeof *buf);
    for (int k = first; k < hm_degree(n); k++)
        if ((k > first && hm_next_slot(n) != HM_OK) || hm_send(n, k, &p) != HM_OK)
            break;
    free(buf);
}

/* A 1 MiB array on the stack: more than the 64 KiB of stack_kib's default. */
__attribute__((noinline)) static int scratch(int seed)
{
    volatile char big[1 << 20];
    big[0] = (char)seed;
    big[sizeof big - 1] = (char)(seed + 1);
    return big[0] + big[sizeof big - 1];
}

/* Node 3 uses the 1 MiB array in slot 0, then every node broadcasts. */
static void overflow_node(hm_node_t *n, void *state)
{
    (void)state;
    if (hm_id(n) == 3 && scratch(hm_id(n)) != 7)
        hm_fail(n, "the array lost its values");
    flood(n);
}

/* Node 3 dereferences a null pointer in slot 2. */
static void null_node(hm_node_t *n, void *state)
{
    (void)state;
    if (hm_wait_until(n, 2) != HM_OK)
        return;
    volatile int *volatile nowhere = NULL;
    if (hm_id(n) == 3)
        *nowhere = 1; /* the null dereference */
}

/* Nodes 1 and 2 crash in slot 0, node 1 a little later (20 ms of its slot): node 1
 * is the one reported, whichever faults first. */
static void two_node(hm_node_t *n, void *state)
{
    (void)state;
    volatile int *volatile nowhere = NULL;
    if (hm_id(n) == 1) {
        struct timespec t0, t;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        do
            clock_gettime(CLOCK_MONOTONIC, &t);
        while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 20000000L);
    }
    if (hm_id(n) == 1 || hm_id(n) == 2)
        *nowhere = 1; /* nodes 1 and 2 */
    flood(n);
}

#define ALGO(id, fn)                                                                               \
    static const hm_algorithm_t algo_##id = {.name = "crash-" #id,                                 \
                                             .topologies = HM_BIT(HM_TOPO_HYPERCUBE),              \
                                             .ports = HM_BIT(HM_PORTS_ONE_PORT_FULL),              \
                                             .needs = {.min_dim = 1},                              \
                                             .problem = HM_PROBLEM_BROADCAST,                      \
                                             .node_main = fn};
ALGO(overflow, overflow_node)
ALGO(null, null_node)
ALGO(two, two_node)
HM_PLUGIN(&algo_overflow, &algo_null, &algo_two);
