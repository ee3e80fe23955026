/* SPDX-License-Identifier: MIT */
/*
 * simultaneous-broadcast — K packets, held by a list of nodes or by k nodes chosen
 * with the seed (`packets` each), broadcast at the same time to every node of Q_d.
 *
 * Paper: Stamoulis and Tsitsiklis, "An efficient algorithm for multiple simultaneous
 * broadcasts in the hypercube", section 3. Port model: all-port, one packet per
 * directed link per slot (section 1).
 *
 *   prefix        section 3.2: parallel prefix (2d + 1 slots, node 0 passing K to
 *                 e_1..e_d), routing of every packet to the root e_j(x) of one of the
 *                 d edge-disjoint trees T^(j), pipelined broadcasts along T^(j) with
 *                 termination packets (src/algo/hypercube/stamoulis.c).
 *                 2 ceil(K/d) + 4d slots.
 *   randomized    section 3.2, last paragraph but two: j(x) drawn at random with the
 *                 seed, no prefix phase, the paper's guaranteed termination ("run
 *                 phase 2 until e_1..e_d receive a total of K packets"): always
 *                 correct, time 2 ceil(C* K/d) + 2d + 1 when max N_j fits the window
 *                 (with high probability), 2 max(ceil(C* K/d), max N_j) + 2d + 1 for
 *                 every draw (the bound verify checks; derivation in
 *                 src/algo/hypercube/stamoulis.c). The paper states no time for a draw
 *                 that misses the window: a bound that held only with high probability
 *                 could not be checked on every run.
 *   randomized-window  the same paragraph, first option: fixed windows, phase 2 for
 *                 W + d - 1 slots and phase 3 for W + d, W = ceil(C* K/d): at most
 *                 2 ceil(C* K/d) + 2d - 1 slots, correct if and only if max N_j <= W
 *                 (with high probability by the Chernoff bound, C* > e); the summary
 *                 says whether it succeeded ("succeeded", "lost"), and a run that
 *                 lost packets does not verify.
 *   same-order    section 3.3.1: every source broadcasts along its own completely
 *                 unbalanced tree, all trees crossing the dimensions in increasing
 *                 order; one FIFO queue per link. At most d + K - 1 slots.
 *   priority      section 3.3.2, K = 2: same-order, but on a collision the copy that
 *                 will reach its source's antipode goes first. Exactly d slots.
 *   rank-rotated  section 3.3.3, K = d: the packet of rank r crosses, in its m-th
 *                 slot, only dimension (r + m - 2) mod d + 1, so no two packets ever
 *                 want one link. Exactly d slots with known ranks; 3d when the
 *                 parallel prefix computes them first (ranks = "prefix").
 *
 * Every node stores every packet exactly once: a source stores its own at slot 0
 * (in prefix and randomized, where the packet comes back through the broadcast, the
 * source stores it then), the others on receipt.
 * The variants of section 3.3 assume K known to every node ("cases where K is known
 * to have a special value"): a node stops once it holds K packets.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/rng.h"
#include "portq.h"
#include "prefix.h"
#include "stamoulis.h"
#include "stamoulis_trees.h"

/* The K a variant needs: any, exactly 2 (section 3.3.2), or exactly d (3.3.3). */
enum { K_ANY, K_TWO, K_DIM };

/* The variants of section 3, the only list of them: name, the state's variant, the K
 * it needs. */
#define SIM_VARIANT_MAP(XX)                                                                        \
    XX(SIM_PREFIX, "prefix", HMA_ST_PREFIX, K_ANY)                                                 \
    XX(SIM_RANDOMIZED, "randomized", HMA_ST_RANDOMIZED, K_ANY)                                     \
    XX(SIM_RANDOMIZED_WINDOW, "randomized-window", HMA_ST_RANDOM_FIXED, K_ANY)                     \
    XX(SIM_SAME_ORDER, "same-order", HMA_ST_SAME_ORDER, K_ANY)                                     \
    XX(SIM_PRIORITY, "priority", HMA_ST_PRIORITY, K_TWO)                                           \
    XX(SIM_RANK_ROTATED, "rank-rotated", HMA_ST_RANK_ROTATED, K_DIM)

#define SIM_RANKS_MAP(XX)                                                                          \
    XX(RANKS_KNOWN, "known")                                                                       \
    XX(RANKS_PREFIX, "prefix")

enum { SIM_VARIANT_MAP(HM_ENUM_ID) };
enum { SIM_RANKS_MAP(HM_ENUM_ID) };
static const char *const sim_variant_names[] = {SIM_VARIANT_MAP(HM_ENUM_NAME) NULL};
static const char *const sim_ranks_names[] = {SIM_RANKS_MAP(HM_ENUM_NAME) NULL};

static const struct {
    hma_st_variant_t v;
    int needs_k;
} sim_variants[] = {
#define XX(id, name, v, k) {v, k},
    SIM_VARIANT_MAP(XX)
#undef XX
};

static const hm_param_spec_t sim_specs[] = {
    {.name = "variant",
     .type = HM_PARAM_ENUM,
     .choices = sim_variant_names,
     .def = SIM_PREFIX,
     .help = "which algorithm of section 3"},
    {.name = "sources",
     .type = HM_PARAM_INT_LIST,
     .max_of = HM_QTY_NODES_MINUS_1,
     .len_min = 1,
     .len_max_of = HM_QTY_NODES,
     .flags = HM_PARAM_OPTIONAL | HM_PARAM_DISTINCT,
     .default_text = "none (k nodes drawn with the seed)",
     .help = "the broadcasting nodes (instead of k)"},
    {.name = "k",
     .type = HM_PARAM_INT,
     .min = 1,
     .max_of = HM_QTY_NODES,
     .def_of = HM_QTY_DIM,
     .flags = HM_PARAM_OPTIONAL,
     .default_text = "d (2 for priority)",
     .help = "number of broadcasting nodes, chosen with the seed (instead of sources)"},
    {.name = "packets",
     .type = HM_PARAM_INT,
     .min = 1,
     .max = 64,
     .def = 1,
     .help = "packets per broadcasting node"},
    {.name = "ranks",
     .type = HM_PARAM_ENUM,
     .choices = sim_ranks_names,
     .def = RANKS_KNOWN,
     .only_if = "variant=rank-rotated",
     .help = "ranks known in advance or computed by the parallel prefix"},
    {.name = "c_star",
     .type = HM_PARAM_INT,
     .min = 0,
     .max = 64,
     .def = 3,
     .only_if = "variant=randomized|randomized-window",
     .help = "the window constant C* (the paper takes C* > e; 0 = no window, randomized "
             "only)"},
    HM_PARAM_END,
};

/* The broadcasting nodes: the list, or k nodes drawn with the seed (the loader has
 * checked the list: distinct nodes, 1 to p of them, and k's range). */
static int read_sources(hm_setup_t *s, int p, int64_t k, int *a, int64_t packets)
{
    if (hm_param_is_set(s, "sources") && hm_param_is_set(s, "k"))
        return hm_setup_fail(s, "sources", "both sources and k", "one of them");
    if (hm_param_is_set(s, "sources")) {
        int64_t *list = malloc((size_t)p * sizeof *list);
        if (!list)
            return -1;
        size_t n = hm_param_get_list(s, "sources", list, (size_t)p);
        for (size_t i = 0; i < n && i < (size_t)p; i++)
            a[list[i]] = (int)packets;
        free(list);
        return 0;
    }
    /* Partial Fisher-Yates over 0..p-1. */
    int *perm = malloc((size_t)p * sizeof *perm);
    if (!perm)
        return -1;
    for (int x = 0; x < p; x++)
        perm[x] = x;
    hma_rng_t rng;
    hma_rng_seed(&rng, s->machine->seed ^ UINT64_C(0x5157a11c0de5));
    for (int64_t i = 0; i < k; i++) {
        int64_t j = i + (int64_t)hma_rng_below(&rng, (uint64_t)(p - i));
        int t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
        a[perm[i]] = (int)packets;
    }
    free(perm);
    return 0;
}

static int sim_setup(hm_setup_t *s)
{
    const hm_machine_info_t *mi = s->machine;
    int64_t packets = hm_param_get_int(s, "packets"), c_star = hm_param_get_int(s, "c_star");
    int row = hm_param_get_enum(s, "variant");
    hma_st_variant_t v = sim_variants[row].v;
    int needs_k = sim_variants[row].needs_k;
    /* k: given, else 2 where the variant needs K = 2, else the spec's default (d). */
    int64_t k = !hm_param_is_set(s, "k") && needs_k == K_TWO ? 2 : hm_param_get_int(s, "k");
    char found[64];
    int *a = calloc((size_t)mi->nodes, sizeof *a);
    if (!a)
        return -1;
    if (read_sources(s, mi->nodes, k, a, packets)) {
        free(a);
        return -1;
    }
    hma_st_state_t *st = hma_st_state_new(mi, v, a, (int)packets);
    free(a);
    if (!st)
        return -1;
    snprintf(found, sizeof found, "K = %lld packets", (long long)st->K);
    if (needs_k == K_TWO && (st->K != 2 || packets != 1)) {
        hma_st_state_free(st);
        return hm_setup_fail(s, "variant", found,
                             "priority needs K = 2 distinct sources with one packet each");
    }
    if (needs_k == K_DIM && st->K != mi->dim) {
        char allowed[64];
        snprintf(allowed, sizeof allowed, "rank-rotated needs K = d = %d", mi->dim);
        hma_st_state_free(st);
        return hm_setup_fail(s, "variant", found, allowed);
    }
    st->ranks_prefix = hm_param_get_enum(s, "ranks") == RANKS_PREFIX;
    st->c_star = (int)c_star;
    /* Randomized: the phase-2 window ceil(C* K/d) + d - 1, plus the two slots in
     * which the roots' counts reach node 0 and its go comes back. Randomized-window:
     * the window alone. */
    st->window = (c_star * st->K + mi->dim - 1) / mi->dim + mi->dim + 1;
    if (v == HMA_ST_RANDOM_FIXED) {
        st->window -= 2;
        if (c_star < 1) {
            hma_st_state_free(st);
            return hm_setup_fail(s, "c_star", "0 with variant randomized-window",
                                 "1..64 (a fixed window needs C* > 0; the paper takes C* > e)");
        }
    }
    s->state = st;
    return 0;
}

/* ---- sections 3.3.1 and 3.3.2: every source floods its own tree -------------- */

/* Queue copies of p on the ports of this node's children in the increasing-order
 * completely unbalanced tree rooted at p's origin. Priority (3.3.2): the copy that
 * will reach the origin's antipode goes first. */
static int flood(const hma_st_state_t *st, hma_portq_t *q, uint32_t z, const hm_packet_t *p)
{
    uint32_t origin = (uint32_t)p->origin, anti = origin ^ (uint32_t)(st->p - 1);
    uint64_t children = hma_cut_children(st->d, origin, 0, z);
    for (int j = 0; j < st->d; j++) {
        if (!(children >> j & 1))
            continue;
        int key = 0;
        if (st->variant == HMA_ST_PRIORITY) {
            uint32_t low = (UINT32_C(2) << j) - 1;
            key = ((z ^ anti) & low) == (UINT32_C(1) << j) ? 0 : 1;
        }
        int rc = hma_portq_push(q, j, p, key);
        if (rc != HM_OK)
            return rc;
    }
    return HM_OK;
}

static void flood_node(hm_node_t *n, void *state)
{
    const hma_st_state_t *st = state;
    uint32_t x = (uint32_t)hm_id(n);
    int64_t stored = 0;
    hma_portq_t q;
    if (hma_portq_init(&q, st->d) != HM_OK) {
        hm_fail(n, "out of memory");
        return;
    }
    for (int m = 1; m <= st->a[x]; m++) {
        int64_t id = hma_st_packet_id(st, (int)x, m);
        hm_packet_t p = {.msg = (int32_t)id, .origin = (int32_t)x, .value = id};
        hm_store(n, id);
        stored++;
        if (flood(st, &q, x, &p) != HM_OK)
            goto nomem;
    }
    for (;;) {
        hm_packet_t pk;
        while (hm_recv(n, &pk) == HM_OK) {
            hm_store(n, pk.value);
            stored++;
            if (flood(st, &q, x, &pk) != HM_OK)
                goto nomem;
        }
        if (hma_portq_send(&q, n, st->cap) < 0)
            goto out;
        if (stored >= st->K && hma_portq_size(&q) == 0)
            break;
        int rc = hma_portq_size(&q) > 0 ? hm_next_slot(n) : hm_wait_packet(n, NULL);
        if (rc == HM_EABORT)
            break;
    }
out:
    hma_portq_free(&q);
    return;
nomem: /* flood fails only when a queue cannot grow */
    hm_fail(n, "out of memory");
    hma_portq_free(&q);
}

/* ---- section 3.3.3: rank-rotated trees, K = d ------------------------------ */

enum { TAG_RANKS = 1 };

static void rank_node(hm_node_t *n, void *state)
{
    const hma_st_state_t *st = state;
    uint32_t x = (uint32_t)hm_id(n);
    int d = st->d;
    int64_t a = st->a[x], r = st->rank[x];
    if (st->ranks_prefix) {
        int64_t total;
        if (hma_prefix_suffix(n, d, a, TAG_RANKS, &r, &total) != HM_OK)
            return;
    }
    hma_st_obs_open(n)->rank = r;
    if (a > 0)
        hm_log(n, "ranks %lld..%lld", (long long)(r - a + 1), (long long)r);
    int64_t t0 = hm_now(n);
    /* The copies this node holds: rank and identifier; at most K = d of them. */
    int64_t rank[64], id[64];
    int held = 0;
    for (int m = 1; m <= a; m++) {
        rank[held] = r - a + m;
        id[held] = hma_st_packet_id(st, (int)x, m);
        hm_store(n, id[held]);
        held++;
    }
    for (int64_t s = 0;; s++) {
        hm_packet_t pk;
        while (hm_recv(n, &pk) == HM_OK && held < 64) {
            rank[held] = pk.aux;
            id[held] = pk.value;
            hm_store(n, pk.value);
            held++;
        }
        hm_show(n, id, (size_t)held); /* the packets it holds, by identifier */
        if (s == d)
            break;
        /* Slot m = s + 1 of every packet: rank r crosses dimension (r + m - 2) mod d + 1
         * of the paper, our (r + s - 1) mod d; every holder sends its copy across it. */
        for (int i = 0; i < held; i++) {
            hm_packet_t p = {.msg = (int32_t)id[i], .value = id[i], .aux = (int32_t)rank[i]};
            p.origin = (int32_t)(id[i] / st->packets);
            hm_send(n, (int)((rank[i] - 1 + s) % d), &p);
        }
        if (hm_wait_until(n, t0 + s + 1) != HM_OK)
            return;
    }
}

static void sim_node(hm_node_t *n, void *state)
{
    const hma_st_state_t *st = state;
    switch (st->variant) {
    case HMA_ST_SAME_ORDER:
    case HMA_ST_PRIORITY:
        flood_node(n, state);
        break;
    case HMA_ST_RANK_ROTATED:
        rank_node(n, state);
        break;
    default:
        hma_st_three_phase_node(n, state);
        break;
    }
}

static void sim_verify(hm_report_t *r)
{
    const hma_st_state_t *st = r->state;
    if (st->variant == HMA_ST_PREFIX || st->variant == HMA_ST_RANDOMIZED ||
        st->variant == HMA_ST_RANDOM_FIXED) {
        hma_st_three_phase_verify(r);
        return;
    }
    char why[200];
    int ok = hma_st_check_delivery(r, st, why, sizeof why), exact = 1;
    hma_st_report_common(r, st);
    int d = st->d;
    switch (st->variant) {
    case HMA_ST_SAME_ORDER:
        r->bound_expr = "d+K-1";
        r->bound = d + st->K - 1;
        exact = 0;
        break;
    case HMA_ST_PRIORITY:
        r->bound_expr = "d";
        r->bound = d;
        break;
    default:
        r->bound_expr = st->ranks_prefix ? "3d" : "d";
        r->bound = st->ranks_prefix ? 3 * d : d;
        if (st->ranks_prefix) {
            json_t *ph = json_object();
            json_object_set_new(ph, "prefix", json_integer(2 * d));
            json_object_set_new(ph, "broadcast", json_integer(r->completion_slots - 2 * d));
            json_object_set_new(r->extra, "phases", ph);
        }
        for (int x = 0; x < st->p && ok; x++)
            if (hma_st_obs(r, x)->rank != st->rank[x]) {
                ok = 0;
                snprintf(why, sizeof why, "node %d used rank %lld instead of %lld", x,
                         (long long)hma_st_obs(r, x)->rank, (long long)st->rank[x]);
            }
        break;
    }
    if (ok && (exact ? r->completion_slots != r->bound : r->completion_slots > r->bound)) {
        ok = 0;
        snprintf(why, sizeof why, "%lld slots where the paper says %s %lld",
                 (long long)r->completion_slots, exact ? "exactly" : "at most",
                 (long long)r->bound);
    }
    r->verified = ok;
    snprintf(r->verification, sizeof r->verification, "%s", why);
}

const hm_algorithm_t hm_algo_simultaneous_broadcast = {
    .name = "simultaneous-broadcast",
    .description = "K nodes broadcast at once: prefix, randomized, randomized-window, "
                   "same-order, priority, rank-rotated",
    .paper = "Stamoulis-Tsitsiklis, multiple simultaneous broadcasts in the hypercube, "
             "sections 3.2-3.3",
    .topologies = HM_BIT(HM_TOPO_HYPERCUBE),
    .ports = HM_BIT(HM_PORTS_ALL_PORT),
    .default_ports = HM_PORTS_ALL_PORT,
    .specs = sim_specs,
    .needs = {.routing = HM_BIT(HM_ROUTING_PACKET),
              .clock_modes = HM_BIT(HM_CLOCK_SLOTTED),
              .clock_why = "its phases are timed by the global slot",
              .min_dim = 1},
    .problem = HM_PROBLEM_BROADCAST,
    .setup = sim_setup,
    .node_main = sim_node,
    .verify = sim_verify,
    .teardown = hma_st_state_free,
    .out_size = sizeof(hma_st_obs_t),
};
