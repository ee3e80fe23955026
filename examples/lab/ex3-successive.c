/* SPDX-License-Identifier: MIT */
/*
 * Lab exercise 3 (doc/lab/README.md): all p nodes broadcast their value, one after the
 * other, under the shout model (one emission to any set of neighbours, or one
 * reception, per slot), in 2p + log2 p - 2 slots without a conflict. The values are the
 * allgather problem's: every node stores all p of them, in node order.
 *
 * This starter is right but slow: message j is held by x^(j), the j-th word of the
 * binary reflected Gray code, and goes down the spanning binomial tree rooted at x^(j);
 * x^(j+1) starts its broadcast d slots after it received message j, when broadcast j
 * is over: p * d slots. Start it 2 slots after instead (see the conflicts in the
 * timeline, d >= 3), then find which rotation of the trees removes them (Desprez,
 * Fraigniaud and Tourancheau 1993, section 3).
 *
 *     hypemu-lab check 3 ex3-successive.c
 */
#include <stdlib.h>

#include <hypemu.h>

static uint32_t gray(uint32_t i)
{
    return i ^ (i >> 1);
}

static uint32_t rotr(uint32_t x, int r, int d)
{
    uint32_t m = (1u << d) - 1;
    return r ? ((x >> r) | (x << (d - r))) & m : x;
}

/* u's children in broadcast j (holder gray(j-1), rotated by gray_step(j-1)): ports. */
static uint64_t children(int d, int j, uint32_t u)
{
    int rot = 0; /* the tree is not rotated */
    uint32_t w = rotr(u ^ gray((uint32_t)(j - 1)), rot, d);
    int k = w ? __builtin_ctz(w) : d;
    uint64_t mask = 0;
    for (int i = 0; i < k; i++)
        mask |= UINT64_C(1) << ((i + rot) % d);
    return mask;
}

static void emit(hm_node_t *n, int j, int64_t value)
{
    uint64_t c = children(hm_degree(n), j, (uint32_t)hm_id(n));
    hm_packet_t p = {.msg = j, .origin = (int32_t)gray((uint32_t)(j - 1)), .value = value};
    if (c)
        hm_shout(n, c, &p);
}

static void succ_node(hm_node_t *n, void *state)
{
    (void)state;
    int p = hm_nodes(n), d = hm_degree(n), me = 0;
    size_t count;
    const int64_t *in = hm_input(n, &count);
    int64_t *got = calloc((size_t)p, sizeof *got);
    if (!got) {
        hm_fail(n, "out of memory");
        return;
    }
    while (gray((uint32_t)me) != (uint32_t)hm_id(n))
        me++;
    me++; /* this node holds message me */
    int64_t start = me == 1 ? 0 : -1;
    int have = 0;
    for (;;) {
        if (start >= 0 && start <= hm_now(n)) {
            got[hm_id(n)] = in[0];
            have++;
            emit(n, me, in[0]);
            start = -2;
        }
        hm_packet_t pk;
        while (hm_recv(n, &pk) == HM_OK) {
            got[pk.origin] = pk.value;
            have++;
            emit(n, pk.msg, pk.value);
            if (pk.msg == me - 1)
                start = pk.recv_slot + d; /* when broadcast me - 1 is over */
        }
        if (have == p && start == -2)
            break;
        if (hm_wait_packet_until(n, NULL, start >= 0 ? start : -1) == HM_EABORT)
            break;
    }
    for (int x = 0; have == p && x < p; x++)
        hm_store(n, got[x]);
    free(got);
}

static const hm_algorithm_t lab3 = {
    .name = "lab3-successive",
    .description = "lab exercise 3: p successive broadcasts on Q_d, shout, 2p + log2 p - 2 slots",
    .topologies = HM_BIT(HM_TOPO_HYPERCUBE),
    .ports = HM_BIT(HM_PORTS_SHOUT),
    .needs = {.min_dim = 1},
    .problem = HM_PROBLEM_ALLGATHER,
    .node_main = succ_node,
};
HM_PLUGIN(&lab3);
