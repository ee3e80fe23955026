/* SPDX-License-Identifier: MIT */
/*
 * Lab exercise 3, a reference solution (doc/lab/README.md): the successive broadcasts
 * of Desprez, Fraigniaud and Tourancheau (1993), section 3, Proposition 1, under the
 * shout model. Message j (j = 1..p) is held by x^(j), the j-th word of the binary
 * reflected Gray code, and goes down R^nu(SBT(x^(j))), the spanning binomial tree rooted
 * at x^(j) rotated by nu, the dimension in which x^(j) and x^(j+1) differ: x^(j+1) is
 * then a leaf of broadcast j, receives it last, and starts broadcast j + 1 two slots
 * after receiving message j. 2p + log2 p - 2 slots, no conflict (their Lemma 3). Every
 * node keeps the values and stores them in node order at the end (the allgather
 * problem).
 */
#include <stdlib.h>

#include <hypemu.h>

static uint32_t gray(uint32_t i)
{
    return i ^ (i >> 1);
}

/* The dimension in which the i-th and (i+1)-th Gray words differ, cyclically. */
static int gray_step(uint32_t i, int d)
{
    return i + 1 == (1u << d) ? d - 1 : __builtin_ctz(i + 1);
}

static uint32_t rotr(uint32_t x, int r, int d)
{
    uint32_t m = (1u << d) - 1;
    return r ? ((x >> r) | (x << (d - r))) & m : x;
}

/* u's children in broadcast j (holder gray(j-1), rotated by gray_step(j-1)): ports. */
static uint64_t children(int d, int j, uint32_t u)
{
    int rot = gray_step((uint32_t)(j - 1), d);
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
    int p = hm_nodes(n), me = 0;
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
                start = pk.recv_slot + 2;
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
