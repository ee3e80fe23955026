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
 * Lower bound: every node receives p - 1 messages and emits one: p slots.
 * Proposition 2: 2p - alpha(d) - 1, alpha(d) the most leaves of a spanning tree of
 * Q_d, used where alpha(d) is known exactly (d <= 4: 2, 2, 4, 10, checked by
 * tests/check_trees.c by exhaustive search).
 */
#include <stdlib.h>
#include <string.h>

#include "../common/trees.h"
#include "hypemu.h"

enum { SEQUENTIAL, INTERLEAVED, ROTATED };

typedef struct succ_state_s {
    int d, p, variant, gap;
    uint32_t *holder; /* holder[j] = x^(j), j = 1..p */
    int *index;       /* index[x] = j such that x^(j) = x */
    int *rot;         /* rot[j]: rotation of broadcast j's tree */
} succ_state_t;

static const hm_param_t succ_params[] = {
    {"variant", HM_PARAM_STRING, "sequential|interleaved|rotated", "rotated",
     "how the p broadcasts are scheduled"},
    {NULL, 0, NULL, NULL, NULL},
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
    const char *variant;
    if (hm_param_string(s, "variant", "rotated", &variant))
        return -1;
    succ_state_t *st = calloc(1, sizeof *st);
    if (!st)
        return -1;
    st->d = s->machine->dim;
    st->p = s->machine->nodes;
    st->variant = strcmp(variant, "sequential") == 0    ? SEQUENTIAL
                  : strcmp(variant, "interleaved") == 0 ? INTERLEAVED
                                                        : ROTATED;
    st->gap = st->variant == SEQUENTIAL ? st->d : 2;
    st->holder = calloc((size_t)st->p + 2, sizeof *st->holder);
    st->index = calloc((size_t)st->p, sizeof *st->index);
    st->rot = calloc((size_t)st->p + 2, sizeof *st->rot);
    if (!st->holder || !st->index || !st->rot) {
        succ_free(st);
        return -1;
    }
    for (int j = 1; j <= st->p; j++) {
        st->holder[j] = hm_gray((uint32_t)(j - 1));
        st->index[st->holder[j]] = j;
        st->rot[j] =
            st->variant == ROTATED && st->d > 0 ? hm_gray_step_dim((uint32_t)(j - 1), st->d) : 0;
    }
    s->state = st;
    return 0;
}

/* Forward mu_j (or start it, at its holder) to the children in broadcast j's tree. */
static void emit(hm_node_t *n, const succ_state_t *st, int j)
{
    uint64_t children = hm_sbt_children(st->d, st->holder[j], st->rot[j], (uint32_t)hm_id(n));
    if (!children)
        return;
    hm_packet_t p = {.msg = j, .origin = (int32_t)st->holder[j], .value = j};
    hm_shout(n, children, &p);
}

static void succ_node(hm_node_t *n, void *state)
{
    const succ_state_t *st = state;
    int me = st->index[hm_id(n)];
    int64_t my_start = me == 1 ? 0 : -1; /* known once mu_(me-1) arrives */
    int stored = 0;

    for (;;) {
        /* "<=": under the free-running clock a packet read can move the node's
         * logical clock past its turn (in slotted mode my_start is never behind). */
        if (my_start >= 0 && my_start <= hm_now(n)) {
            hm_store(n, me);
            stored++;
            emit(n, st, me);
            my_start = -2; /* done */
        }
        /* Packets received in the previous slot: store, forward now. */
        hm_packet_t pk;
        while (hm_recv(n, &pk) == HM_OK) {
            hm_store(n, pk.msg);
            stored++;
            emit(n, st, pk.msg);
            if (pk.msg == me - 1)
                my_start = pk.recv_slot + st->gap;
        }
        if (stored == st->p && my_start == -2)
            return;
        /* Sleep until a packet or this node's own turn; the packet stays in the
         * mailbox and is read at the top of the loop. */
        if (hm_wait_packet_until(n, NULL, my_start >= 0 ? my_start : -1) == HM_EABORT)
            return;
    }
}

static void succ_verify(hm_report_t *r)
{
    const succ_state_t *st = r->state;
    int bad = -1, badpos = -1;
    for (int x = 0; x < st->p && bad < 0; x++) {
        size_t k;
        const int64_t *v = hm_report_stores(r, x, &k);
        if (k != (size_t)st->p)
            bad = x, badpos = (int)k;
        for (size_t i = 0; i < k && bad < 0; i++)
            if (v[i] != (int64_t)i + 1)
                bad = x, badpos = (int)i;
    }
    r->verified = bad < 0;
    if (bad < 0)
        snprintf(r->verification, sizeof r->verification, "every node stored mu_1..mu_%d in order",
                 st->p);
    else
        snprintf(r->verification, sizeof r->verification,
                 "node %d did not store mu_1..mu_%d in order (first wrong store: #%d)", bad, st->p,
                 badpos + 1);
    if (st->variant == SEQUENTIAL) {
        r->bound_expr = "p*log2(p)";
        r->bound = (int64_t)st->p * st->d;
    } else {
        r->bound_expr = "2p+log2(p)-2";
        r->bound = 2 * (int64_t)st->p + st->d - 2;
    }
    static const int alpha[] = {1, 2, 2, 4, 10};
    r->lower_expr = "p";
    r->lower = st->p;
    if (st->d >= 1 && st->d <= 4 && 2 * (int64_t)st->p - alpha[st->d] - 1 > r->lower) {
        r->lower_expr = "2p-alpha(d)-1";
        r->lower = 2 * (int64_t)st->p - alpha[st->d] - 1;
    }
    json_object_set_new(r->extra, "broadcasts", json_integer(st->p));
}

const hm_algorithm_t hm_algo_successive_broadcast = {
    .name = "successive-broadcast",
    .description = "all p nodes broadcast by turns; every node stores mu_1..mu_p in order",
    .paper = "Desprez-Fraigniaud-Tourancheau 1993, section 3 (Proposition 1, Figures 3-5)",
    .topologies = HM_BIT(HM_TOPO_HYPERCUBE),
    .ports = HM_BIT(HM_PORTS_SHOUT) | HM_BIT(HM_PORTS_ALL_PORT),
    .default_ports = HM_PORTS_SHOUT,
    .params = succ_params,
    .setup = succ_setup,
    .node_main = succ_node,
    .verify = succ_verify,
    .teardown = succ_free,
};
