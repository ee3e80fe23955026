/* SPDX-License-Identifier: MIT */
/*
 * successive-broadcast — all p nodes broadcast by turns; every node stores
 * mu_1 .. mu_p in that order.
 *
 * Paper: Desprez, Fraigniaud, Tourancheau, "Successive Broadcasts on Hypercube",
 * 1993, section 3. Port model: shout (one emission to any set of neighbours, or one
 * reception, never both).
 *
 * Allocation: mu_j is held by x^(j), the j-th word of the binary reflected Gray code.
 * Broadcast j runs on a spanning binomial tree rooted at x^(j), level by level; a
 * node forwards mu_j to its children in the slot after it receives it.
 *
 *   sequential    plain SBT(x^(j)); x^(j+1), a child of x^(j), starts its broadcast
 *                 d slots after it received mu_j: one broadcast after the other,
 *                 p*d slots.
 *   interleaved   plain SBT(x^(j)); x^(j+1) starts 2 slots after it received mu_j
 *                 (the paper's Figure 4): conflicts appear from d = 3.
 *   rotated       R^nu(SBT(x^(j))) with nu the dimension in which x^(j) and x^(j+1)
 *                 differ, so x^(j+1) is a leaf of broadcast j; started every 2 slots.
 *                 Proposition 1: 2p + log2 p - 2 slots, no conflict (Lemma 3), every
 *                 node stores in order (Lemma 1).
 *
 * Section 1's model (variant sequential, parameters items and t_comp): n >= p data
 * mu_1..mu_n, mu_i held by x^((i-1) mod p + 1) (by turns, so every processor holds
 * ceil(n/p) or floor(n/p) of them); step i broadcasts mu_i along SBT(its holder) in
 * d = t_broad(p) slots, then every processor updates each datum it holds in t_comp
 * slots (hm_busy). The broadcasts "are performed in distinct phases": step i + 1
 * starts when step i's slowest update is over, so the run takes exactly
 * n (t_broad(p) + ceil(n/p) t_comp) = n (d + ceil(n/p) t_comp) slots. With the
 * defaults (n = p, t_comp = 0) this is the sequential variant above.
 *
 * Lower bound: every node receives p - 1 messages and emits one: p slots.
 * Proposition 2: 2p - alpha(d) - 1, alpha(d) the most leaves of a spanning tree of
 * Q_d, used where alpha(d) is known exactly (d <= 4: 2, 2, 4, 10, checked by
 * tests/check_trees.c by exhaustive search; d = 5: 22, found with a SAT solver by
 * scripts/alpha-sat.py and checked by tests/check_hypercube.c, see
 * doc/papers/desprez-fraigniaud-tourancheau.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/trees.h"
#include "hypemu.h"

#define SUCC_VARIANT_MAP(XX)                                                                       \
    XX(SEQUENTIAL, "sequential")                                                                   \
    XX(INTERLEAVED, "interleaved")                                                                 \
    XX(ROTATED, "rotated")

enum { SUCC_VARIANT_MAP(HM_ENUM_ID) };
static const char *const succ_variants[] = {SUCC_VARIANT_MAP(HM_ENUM_NAME) NULL};

typedef struct succ_state_s {
    int d, p, variant, gap;
    int64_t items;    /* section 1's n (p unless the model is used) */
    int64_t t_comp;   /* section 1's t_comp(F), slots per datum and step */
    int model;        /* items != p or t_comp > 0: section 1's schedule */
    uint32_t *holder; /* holder[j] = x^(j), j = 1..p */
    int *index;       /* index[x] = j such that x^(j) = x */
    int *rot;         /* rot[j]: rotation of broadcast j's tree */
} succ_state_t;

static const hm_param_spec_t succ_specs[] = {
    {.name = "variant",
     .type = HM_PARAM_ENUM,
     .choices = succ_variants,
     .def = ROTATED,
     .help = "how the p broadcasts are scheduled"},
    {.name = "items",
     .type = HM_PARAM_INT,
     .min_of = HM_QTY_NODES,
     .max = INT64_C(1) << 20,
     .def_of = HM_QTY_NODES,
     .only_if = "variant=sequential",
     .help = "section 1's n data mu_1..mu_n, held by turns (n > p)"},
    {.name = "t_comp",
     .type = HM_PARAM_INT,
     .max = 1000,
     .only_if = "variant=sequential",
     .help = "section 1's t_comp(F), slots to update one datum after each broadcast"},
    HM_PARAM_END,
};

static void succ_free(void *state)
{
    succ_state_t *st = state;
    if (!st)
        return;
    free(st->holder);
    free(st->index);
    free(st->rot);
    free(st);
}

static int succ_setup(hm_setup_t *s)
{
    /* items and t_comp exist with variant sequential only (the loader refuses them
     * otherwise); their defaults, p and 0, are the plain sequential schedule. */
    int64_t items = hm_param_get_int(s, "items"), t_comp = hm_param_get_int(s, "t_comp");
    succ_state_t *st = calloc(1, sizeof *st);
    if (!st)
        return -1;
    st->d = s->machine->dim;
    st->p = s->machine->nodes;
    st->variant = hm_param_get_enum(s, "variant");
    st->items = items;
    st->t_comp = t_comp;
    st->model = items != st->p || t_comp > 0;
    st->gap = st->variant == SEQUENTIAL ? st->d : 2;
    st->holder = calloc((size_t)st->p + 2, sizeof *st->holder);
    st->index = calloc((size_t)st->p, sizeof *st->index);
    st->rot = calloc((size_t)st->p + 2, sizeof *st->rot);
    if (!st->holder || !st->index || !st->rot) {
        succ_free(st);
        return -1;
    }
    for (int j = 1; j <= st->p; j++) {
        st->holder[j] = hma_gray((uint32_t)(j - 1));
        st->index[st->holder[j]] = j;
        st->rot[j] =
            st->variant == ROTATED && st->d > 0 ? hma_gray_step_dim((uint32_t)(j - 1), st->d) : 0;
    }
    s->state = st;
    return 0;
}

/* Forward mu_i (or start it, at its holder) to the children in the tree of broadcast
 * j (i = j but in section 1's model, where mu_i uses its holder x^(j)'s tree). */
static void emit(hm_node_t *n, const succ_state_t *st, int j, int64_t i)
{
    uint64_t children = hma_sbt_children(st->d, st->holder[j], st->rot[j], (uint32_t)hm_id(n));
    if (!children)
        return;
    hm_packet_t p = {.msg = (int32_t)i, .origin = (int32_t)st->holder[j], .value = i};
    hm_shout(n, children, &p);
}

static int64_t ceil_div(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

/* Section 1's model: a fixed schedule of n steps of d + ceil(n/p) t_comp slots. In
 * step i the holder of mu_i starts its broadcast; every node forwards mu_i the slot
 * after it receives it, and once the broadcast is over (slot start + d) updates its
 * own data, t_comp slots each. */
static void model_node(hm_node_t *n, const succ_state_t *st)
{
    int me = st->index[hm_id(n)];
    int64_t step = st->d + ceil_div(st->items, st->p) * st->t_comp;
    /* Data held: mu_i with (i - 1) mod p + 1 = me. */
    int64_t own = st->items / st->p + (me <= st->items % st->p);
    for (int64_t i = 1; i <= st->items; i++) {
        int64_t start = (i - 1) * step;
        int j = (int)((i - 1) % st->p) + 1; /* the tree of mu_i: its holder's */
        if (hm_now(n) < start && hm_wait_until(n, start) != HM_OK)
            return;
        if (j == me) {
            hm_store(n, i);
            emit(n, st, j, i);
        } else {
            hm_packet_t pk;
            if (hm_wait_packet(n, &pk) != HM_OK)
                return;
            hm_store(n, pk.value);
            emit(n, st, j, pk.value);
        }
        if (st->t_comp > 0 && own > 0) {
            if (hm_now(n) < start + st->d && hm_wait_until(n, start + st->d) != HM_OK)
                return;
            if (hm_busy(n, own * st->t_comp) != HM_OK)
                return;
        }
    }
}

static void succ_node(hm_node_t *n, void *state)
{
    const succ_state_t *st = state;
    if (st->model) {
        model_node(n, st);
        return;
    }
    int me = st->index[hm_id(n)];
    int64_t my_start = me == 1 ? 0 : -1; /* known once mu_(me-1) arrives */
    int stored = 0;
    int64_t *got = malloc((size_t)st->p * sizeof *got); /* what it holds, for hm_show */

    for (;;) {
        /* "<=": under the free-running clock a packet read can move the node's
         * logical clock past its turn (in slotted mode my_start is never behind). */
        if (my_start >= 0 && my_start <= hm_now(n)) {
            hm_store(n, me);
            if (got && stored < st->p)
                got[stored] = me, hm_show(n, got, (size_t)stored + 1);
            stored++;
            emit(n, st, me, me);
            my_start = -2; /* done */
        }
        /* Packets received in the previous slot: store, forward now. */
        hm_packet_t pk;
        while (hm_recv(n, &pk) == HM_OK) {
            hm_store(n, pk.msg);
            if (got && stored < st->p)
                got[stored] = pk.msg, hm_show(n, got, (size_t)stored + 1);
            stored++;
            emit(n, st, pk.msg, pk.msg);
            if (pk.msg == me - 1)
                my_start = pk.recv_slot + st->gap;
        }
        if (stored == st->p && my_start == -2)
            break;
        /* Sleep until a packet or this node's own turn; the packet stays in the
         * mailbox and is read at the top of the loop. */
        if (hm_wait_packet_until(n, NULL, my_start >= 0 ? my_start : -1) == HM_EABORT)
            break;
    }
    free(got);
}

static void succ_verify(hm_report_t *r)
{
    const succ_state_t *st = r->state;
    int bad = -1;
    int64_t badpos = -1;
    for (int x = 0; x < st->p && bad < 0; x++) {
        size_t k;
        const int64_t *v = hm_report_stores(r, x, &k);
        if (k != (size_t)st->items)
            bad = x, badpos = (int64_t)k;
        for (size_t i = 0; i < k && bad < 0; i++)
            if (v[i] != (int64_t)i + 1)
                bad = x, badpos = (int64_t)i;
    }
    r->verified = bad < 0;
    /* mu_i comes from its holder x^((i-1) mod p + 1) (README "What verified means"). */
    for (int x = 0; x < st->p && bad < 0; x++)
        for (int64_t i = 0; i < st->items; i++)
            hm_report_from(r, x, (size_t)i, 1, (int)st->holder[i % st->p + 1]);
    if (bad < 0)
        snprintf(r->verification, sizeof r->verification,
                 "every node stored mu_1..mu_%lld in order", (long long)st->items);
    else
        snprintf(r->verification, sizeof r->verification,
                 "node %d did not store mu_1..mu_%lld in order (first wrong store: #%lld)", bad,
                 (long long)st->items, (long long)badpos + 1);
    if (st->model) {
        /* Section 1: n (t_broad(p) + ceil(n/p) t_comp(F)), t_broad(p) = log2 p. */
        r->bound_expr = "n*(log2(p)+ceil(n/p)*t_comp)";
        r->bound = st->items * (st->d + ceil_div(st->items, st->p) * st->t_comp);
        if (r->verified && r->completion_slots != r->bound) {
            r->verified = 0;
            snprintf(r->verification, sizeof r->verification,
                     "%lld slots where section 1 gives exactly n(t_broad + ceil(n/p) t_comp) "
                     "= %lld",
                     (long long)r->completion_slots, (long long)r->bound);
        }
    } else if (st->variant == SEQUENTIAL) {
        r->bound_expr = "p*log2(p)";
        r->bound = (int64_t)st->p * st->d;
    } else {
        r->bound_expr = "2p+log2(p)-2";
        r->bound = 2 * (int64_t)st->p + st->d - 2;
    }
    static const int alpha[] = {1, 2, 2, 4, 10, 22};
    /* Under shout a node hears one emission a slot: p - 1 messages from the others,
     * then the slot that reads the last (p on Q_d, d >= 1; nothing to do on Q_0). Under
     * all-port it hears up to d a slot. */
    r->lower_expr = "p";
    r->lower = st->d == 0 ? 0 : st->p;
    if (r->machine->ports == HM_PORTS_ALL_PORT && st->d > 0) {
        r->lower_expr = "ceil((p-1)/d)";
        r->lower = ceil_div(st->p - 1, st->d);
    } else if (st->d >= 1 && st->d <= 5 && 2 * (int64_t)st->p - alpha[st->d] - 1 > r->lower) {
        r->lower_expr = "2p-alpha(d)-1";
        r->lower = 2 * (int64_t)st->p - alpha[st->d] - 1;
    }
    json_object_set_new(r->extra, "broadcasts", json_integer(st->items));
    if (st->model) {
        json_object_set_new(r->extra, "items", json_integer(st->items));
        json_object_set_new(r->extra, "t_comp", json_integer(st->t_comp));
    }
}

const hm_algorithm_t hm_algo_successive_broadcast = {
    .name = "successive-broadcast",
    .description = "all p nodes broadcast by turns; every node stores mu_1..mu_p in order",
    .paper = "Desprez-Fraigniaud-Tourancheau 1993, section 3 (Proposition 1, Figures 3-5)",
    .topologies = HM_BIT(HM_TOPO_HYPERCUBE),
    .ports = HM_BIT(HM_PORTS_SHOUT) | HM_BIT(HM_PORTS_ALL_PORT),
    .default_ports = HM_PORTS_SHOUT,
    .specs = succ_specs,
    .needs = {.routing = HM_BIT(HM_ROUTING_PACKET),
              .clock_modes = HM_BIT(HM_CLOCK_SLOTTED),
              .clock_why = "Lemma 1's order rests on the slot timing: without the global slot "
                           "mu_(j+1) overtakes mu_j, and under the port model the broadcasts "
                           "block one another"},
    .problem = HM_PROBLEM_BROADCAST,
    .setup = succ_setup,
    .node_main = succ_node,
    .verify = succ_verify,
    .teardown = succ_free,
};
