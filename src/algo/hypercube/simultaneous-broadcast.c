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
 *                 termination packets (src/algo/common/stamoulis.c).
 *                 2 ceil(K/d) + 4d slots.
 *   randomized    section 3.2, last paragraphs: j(x) drawn at random with the seed,
 *                 no prefix phase; the run reports the largest N_j and whether the
 *                 C* K/d window sufficed or the fallback termination was needed.
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

#include "../common/portq.h"
#include "../common/prefix.h"
#include "../common/rng.h"
#include "../common/stamoulis.h"
#include "../common/stamoulis_trees.h"

static const hm_param_t sim_params[] = {
    {"variant", HM_PARAM_STRING, "prefix|randomized|same-order|priority|rank-rotated", "prefix",
     "which algorithm of section 3"},
    {"sources", HM_PARAM_INT_LIST, "distinct nodes 0..p-1", "none (k nodes drawn with the seed)",
     "the broadcasting nodes (instead of k)"},
    {"k", HM_PARAM_INT, "1..p", "d (2 for priority)",
     "number of broadcasting nodes, chosen with the seed (instead of sources)"},
    {"packets", HM_PARAM_INT, "1..64", "1", "packets per broadcasting node"},
    {"ranks", HM_PARAM_STRING, "known|prefix", "known",
     "rank-rotated: ranks known in advance or computed by the parallel prefix"},
    {"c_star", HM_PARAM_INT, "0..64", "3",
     "randomized: the window constant C* (the paper takes C* > e; 0 = no window)"},
    {NULL, 0, NULL, NULL, NULL},
};

static const struct {
    const char *name;
    hm_st_variant_t v;
} sim_variants[] = {
    {"prefix", HM_ST_PREFIX},
    {"randomized", HM_ST_RANDOMIZED},
    {"same-order", HM_ST_SAME_ORDER},
    {"priority", HM_ST_PRIORITY},
    {"rank-rotated", HM_ST_RANK_ROTATED},
};

/* The broadcasting nodes: the list, or k nodes drawn with the seed. */
static int read_sources(hm_setup_t *s, int p, int64_t defk, int *a, int64_t packets)
{
    const json_t *list = json_object_get(s->params, "sources");
    json_t *kv = json_object_get(s->params, "k");
    char found[64], allowed[64];
    if (list && kv)
        return hm_setup_fail(s, "sources", "both sources and k", "one of them");
    if (list) {
        size_t i;
        json_t *e;
        if (!json_is_array(list) || json_array_size(list) == 0)
            return hm_setup_fail(s, "sources", "an empty list", "a list of distinct nodes");
        snprintf(allowed, sizeof allowed, "distinct nodes from 0 to %d", p - 1);
        json_array_foreach(list, i, e) {
            json_int_t x = json_is_integer(e) ? json_integer_value(e) : -1;
            if (x < 0 || x >= p || a[x]) {
                snprintf(found, sizeof found, "%s%lld", x >= 0 && x < p ? "repeated node " : "",
                         (long long)x);
                return hm_setup_fail(s, "sources", found, allowed);
            }
            a[x] = (int)packets;
        }
        return 0;
    }
    int64_t k;
    if (hm_param_int(s, "k", defk, 1, p, &k))
        return -1;
    /* Partial Fisher-Yates over 0..p-1. */
    int *perm = malloc((size_t)p * sizeof *perm);
    if (!perm)
        return -1;
    for (int x = 0; x < p; x++)
        perm[x] = x;
    hm_rng_t rng;
    hm_rng_seed(&rng, s->machine->seed ^ UINT64_C(0x5157a11c0de5));
    for (int64_t i = 0; i < k; i++) {
        int64_t j = i + (int64_t)hm_rng_below(&rng, (uint64_t)(p - i));
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
    const char *vname, *ranks;
    int64_t packets, c_star;
    char found[64];
    if (hm_param_string(s, "variant", "prefix", &vname) ||
        hm_param_string(s, "ranks", "known", &ranks) ||
        hm_param_int(s, "packets", 1, 1, 64, &packets) ||
        hm_param_int(s, "c_star", 3, 0, 64, &c_star))
        return -1;
    hm_st_variant_t v = HM_ST_PREFIX;
    for (size_t i = 0; i < sizeof sim_variants / sizeof sim_variants[0]; i++)
        if (strcmp(vname, sim_variants[i].name) == 0)
            v = sim_variants[i].v;
    if (mi->dim < 1) {
        snprintf(found, sizeof found, "a hypercube of dimension %d", mi->dim);
        return hm_setup_fail(s, "name", found, "topology.dim >= 1");
    }
    int *a = calloc((size_t)mi->nodes, sizeof *a);
    if (!a)
        return -1;
    if (read_sources(s, mi->nodes, v == HM_ST_PRIORITY ? 2 : mi->dim, a, packets)) {
        free(a);
        return -1;
    }
    hm_st_state_t *st = hm_st_state_new(mi, v, a, (int)packets);
    free(a);
    if (!st)
        return -1;
    snprintf(found, sizeof found, "K = %lld packets", (long long)st->K);
    if (v == HM_ST_PRIORITY && (st->K != 2 || packets != 1)) {
        hm_st_state_free(st);
        return hm_setup_fail(s, "variant", found,
                             "priority needs K = 2 distinct sources with one packet each");
    }
    if (v == HM_ST_RANK_ROTATED && st->K != mi->dim) {
        char allowed[64];
        snprintf(allowed, sizeof allowed, "rank-rotated needs K = d = %d", mi->dim);
        hm_st_state_free(st);
        return hm_setup_fail(s, "variant", found, allowed);
    }
    st->ranks_prefix = strcmp(ranks, "prefix") == 0;
    st->c_star = (int)c_star;
    /* Randomized: the phase-2 window ceil(C* K/d) + d - 1, plus the two slots in
     * which the roots' counts reach node 0 and its go comes back. */
    st->window = (c_star * st->K + mi->dim - 1) / mi->dim + mi->dim + 1;
    s->state = st;
    return 0;
}

/* ---- sections 3.3.1 and 3.3.2: every source floods its own tree -------------- */

/* Queue copies of p on the ports of this node's children in the increasing-order
 * completely unbalanced tree rooted at p's origin. Priority (3.3.2): the copy that
 * will reach the origin's antipode goes first. */
static int flood(const hm_st_state_t *st, hm_portq_t *q, uint32_t z, const hm_packet_t *p)
{
    uint32_t origin = (uint32_t)p->origin, anti = origin ^ (uint32_t)(st->p - 1);
    uint64_t children = hm_cut_children(st->d, origin, 0, z);
    for (int j = 0; j < st->d; j++) {
        if (!(children >> j & 1))
            continue;
        int key = 0;
        if (st->variant == HM_ST_PRIORITY) {
            uint32_t low = (UINT32_C(2) << j) - 1;
            key = ((z ^ anti) & low) == (UINT32_C(1) << j) ? 0 : 1;
        }
        int rc = hm_portq_push(q, j, p, key);
        if (rc != HM_OK)
            return rc;
    }
    return HM_OK;
}

static void flood_node(hm_node_t *n, void *state)
{
    const hm_st_state_t *st = state;
    uint32_t x = (uint32_t)hm_id(n);
    int64_t stored = 0;
    hm_portq_t q;
    if (hm_portq_init(&q, st->d) != HM_OK) {
        hm_fail(n, "out of memory");
        return;
    }
    for (int m = 1; m <= st->a[x]; m++) {
        int64_t id = hm_st_packet_id(st, (int)x, m);
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
        if (hm_portq_send(&q, n, st->cap) < 0)
            goto out;
        if (stored >= st->K && hm_portq_size(&q) == 0)
            break;
        int rc = hm_portq_size(&q) > 0 ? hm_next_slot(n) : hm_wait_packet(n, NULL);
        if (rc == HM_EABORT)
            break;
    }
out:
    hm_portq_free(&q);
    return;
nomem: /* flood fails only when a queue cannot grow */
    hm_fail(n, "out of memory");
    hm_portq_free(&q);
}

/* ---- section 3.3.3: rank-rotated trees, K = d ------------------------------ */

enum { TAG_RANKS = 1 };

static void rank_node(hm_node_t *n, void *state)
{
    hm_st_state_t *st = state;
    uint32_t x = (uint32_t)hm_id(n);
    int d = st->d;
    int64_t a = st->a[x], r = st->rank[x];
    if (st->ranks_prefix) {
        int64_t total;
        if (hm_prefix_suffix(n, d, a, TAG_RANKS, &r, &total) != HM_OK)
            return;
    }
    st->obs[x].rank = r;
    if (a > 0)
        hm_log(n, "ranks %lld..%lld", (long long)(r - a + 1), (long long)r);
    int64_t t0 = hm_now(n);
    /* The copies this node holds: rank and identifier; at most K = d of them. */
    int64_t rank[64], id[64];
    int held = 0;
    for (int m = 1; m <= a; m++) {
        rank[held] = r - a + m;
        id[held] = hm_st_packet_id(st, (int)x, m);
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
    const hm_st_state_t *st = state;
    switch (st->variant) {
    case HM_ST_SAME_ORDER:
    case HM_ST_PRIORITY:
        flood_node(n, state);
        break;
    case HM_ST_RANK_ROTATED:
        rank_node(n, state);
        break;
    default:
        hm_st_three_phase_node(n, state);
        break;
    }
}

static void sim_verify(hm_report_t *r)
{
    const hm_st_state_t *st = r->state;
    if (st->variant == HM_ST_PREFIX || st->variant == HM_ST_RANDOMIZED) {
        hm_st_three_phase_verify(r);
        return;
    }
    char why[200];
    int ok = hm_st_check_delivery(r, st, why, sizeof why), exact = 1;
    hm_st_report_common(r, st);
    int d = st->d;
    switch (st->variant) {
    case HM_ST_SAME_ORDER:
        r->bound_expr = "d+K-1";
        r->bound = d + st->K - 1;
        exact = 0;
        break;
    case HM_ST_PRIORITY:
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
            if (st->obs[x].rank != st->rank[x]) {
                ok = 0;
                snprintf(why, sizeof why, "node %d used rank %lld instead of %lld", x,
                         (long long)st->obs[x].rank, (long long)st->rank[x]);
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
    .description = "K nodes broadcast at once: prefix, randomized, same-order, priority, "
                   "rank-rotated",
    .paper = "Stamoulis-Tsitsiklis, multiple simultaneous broadcasts in the hypercube, "
             "sections 3.2-3.3",
    .topologies = HM_BIT(HM_TOPO_HYPERCUBE),
    .ports = HM_BIT(HM_PORTS_ALL_PORT),
    .default_ports = HM_PORTS_ALL_PORT,
    .params = sim_params,
    .setup = sim_setup,
    .node_main = sim_node,
    .verify = sim_verify,
    .teardown = hm_st_state_free,
};
