/* SPDX-License-Identifier: MIT */
/*
 * stamoulis.c — the three phases of Stamoulis-Tsitsiklis section 3.2 as a node
 * program, shared by simultaneous-broadcast (prefix, randomized) and
 * multinode-broadcast (stamoulis).
 *
 * Phase 1 (prefix only), slots 0 .. 2d: the parallel prefix of prefix.c gives every
 *   node r_x = sum_{y >= x} a_y in slots 0 .. 2d - 1; in slot 2d node 0 sends
 *   K = r_0 to e_1 .. e_d. Every node knows the phase ends at 2d + 1.
 * Phase 2, from slot t2 (2d + 1, or 0 without phase 1): node x sends its m-th packet
 *   to the root e_j, j = (r_x - a_x - 1 + m) mod d + 1, along the reverse of the path
 *   from e_j to x in T^(j). Every node keeps one FIFO queue per port and sends the
 *   head of each queue every slot; the reversed trees are edge-disjoint, so one port
 *   carries one tree's packets only.
 *   The roots detect the end individually: with K known, root e_j starts phase 3 at
 *   slot t2 + ceil(K/d) + d - 1 (it also checks it holds its N_j packets, and waits
 *   for them and reports an overrun otherwise, which the paper says cannot happen).
 *   Randomized: each broadcasting node draws j uniformly with the seed; the roots
 *   report their counts to node 0 over the arcs e_j -> 0, which no reversed tree
 *   uses (0 is a leaf of every T^(j)); node 0, which knows K, tells every root to go
 *   once the counts add up to K, but not before the end of the window
 *   ceil(C* K/d) + d - 1 plus the two slots of that exchange. A go sent later is the
 *   paper's fallback termination ("run phase 2 until e_1..e_d hold K packets").
 *   Randomized-window (the paper's first option, "run phase 2 (and resp. phase 3)
 *   for C* K/d + d - 1 (and resp. C* K/d + d) slots"): every node knows K, phase 2
 *   lasts W + d - 1 slots, W = ceil(C* K/d); then every node drops the routing
 *   packets it still holds and root e_j starts phase 3 whatever it holds.
 * Phase 3: root e_j broadcasts its N_j packets along T^(j), one per slot, then a
 *   termination packet (randomized-window: at most W packets, so that the phase fits
 *   its W + d slots; the others are lost); every node forwards what it receives from its father in
 *   T^(j) to its children in the next slot. A node is done once it has seen the d
 *   termination packets.
 *
 * Cost (section 3.2): (2d + 1) + (ceil(K/d) + d - 1) + (ceil(K/d) + d)
 * = 2 ceil(K/d) + 4d slots; without phase 1 (K = 2^d, the multinode broadcast)
 * 2 ceil(2^d/d) + 2d - 1.
 * Randomized (guaranteed termination): the paper proves the time only with high
 * probability. What it proves for every draw is per phase (the pipelining argument):
 * phase 2 delivers root e_j's N_j packets within N_j + d - 1 slots and phase 3 lasts
 * N_j + d. With N = max N_j and W = ceil(C* K/d) phase 3 starts at the latest at
 * max(W, N) + d + 1 (the window end, or the last arrival plus the two slots of the
 * count-and-go exchange), so every run takes at most 2 max(W, N) + 2d + 1 slots:
 * 2W + 2d + 1 (the paper's 2 C* K/d + 2d - 1 plus the two detection slots) when
 * N <= W, and at most 2 max(W, K) + 2d + 1 whatever the draw. verify checks the
 * bound of the draw on every run.
 * Randomized-window: exactly the paper's 2W + 2d - 1 slots at most; it delivers every
 * packet if and only if N <= W (the Chernoff bound: for C* > e with high probability).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/rng.h"
#include "portq.h"
#include "prefix.h"
#include "stamoulis.h"
#include "stamoulis_trees.h"

enum { TAG_PREFIX = 1, TAG_K, TAG_ROUTE, TAG_DATA, TAG_TERM, TAG_COUNT, TAG_GO };

static int64_t ceil_div(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

hma_st_state_t *hma_st_state_new(const hm_machine_info_t *mi, hma_st_variant_t variant,
                                 const int *a, int packets)
{
    hma_st_state_t *st = calloc(1, sizeof *st);
    if (!st)
        return NULL;
    st->d = mi->dim;
    st->p = mi->nodes;
    st->cap = mi->link_capacity;
    st->variant = variant;
    st->packets = packets;
    st->seed = mi->seed;
    st->a = calloc((size_t)st->p, sizeof *st->a);
    st->rank = calloc((size_t)st->p, sizeof *st->rank);
    if (!st->a || !st->rank) {
        hma_st_state_free(st);
        return NULL;
    }
    for (int x = 0; x < st->p; x++)
        st->K += st->a[x] = a[x];
    st->ids = calloc(st->K > 0 ? (size_t)st->K : 1, sizeof *st->ids);
    if (!st->ids) {
        hma_st_state_free(st);
        return NULL;
    }
    int64_t r = 0, k = 0;
    for (int x = st->p - 1; x >= 0; x--)
        st->rank[x] = r += st->a[x];
    for (int x = 0; x < st->p; x++)
        for (int m = 1; m <= st->a[x]; m++)
            st->ids[k++] = hma_st_packet_id(st, x, m);
    return st;
}

hma_st_obs_t *hma_st_obs_open(hm_node_t *n)
{
    hma_st_obs_t *o = hm_out(n);
    *o = (hma_st_obs_t){
        .root_last = -1, .root_start = -1, .go_slot = -1, .prefix_total = -1, .rank = -1};
    return o;
}

void hma_st_state_free(void *state)
{
    hma_st_state_t *st = state;
    if (!st)
        return;
    free(st->a);
    free(st->rank);
    free(st->ids);
    free(st);
}

/* ---- the node program ------------------------------------------------------ */

/* What one node keeps during phases 2 and 3. */
typedef struct tp_node_s {
    const hma_st_state_t *st;
    hm_node_t *n;
    hma_st_obs_t *obs;
    uint32_t x;
    int d, root;   /* root: j if x = e_j, else 0 */
    int64_t K;     /* known to the roots and node 0 (-1 elsewhere) */
    hma_portq_t q; /* phase-2 queues, one per port */
    int64_t *held; /* root: the packets received for its tree */
    int64_t nheld, capheld, sent, reported;
    int started, term_sent, terms;
    int64_t go;      /* root, randomized: slot it read go, -1 */
    int64_t limit;   /* root: most data packets phase 3 may carry */
    int64_t *counts; /* node 0, randomized: latest count of every root */
} tp_node_t;

static int hold(tp_node_t *t, int64_t id, int64_t slot)
{
    if (t->nheld == t->capheld) {
        int64_t cap = t->capheld ? 2 * t->capheld : 16;
        int64_t *v = realloc(t->held, (size_t)cap * sizeof *v);
        if (!v) {
            hm_fail(t->n, "out of memory");
            return HM_ENOMEM;
        }
        t->held = v;
        t->capheld = cap;
    }
    t->held[t->nheld++] = id;
    t->obs->root_count = t->nheld;
    t->obs->root_last = slot;
    return HM_OK;
}

/* Phase 2: a packet for tree j, at this node (own or received). */
static int route(tp_node_t *t, int j, int64_t id, int64_t slot)
{
    if (t->root == j)
        return hold(t, id, slot);
    if (t->st->variant == HMA_ST_RANDOM_FIXED && hm_now(t->n) >= t->st->window) {
        t->obs->dropped++; /* phase 2 is over: the packet is lost */
        return HM_OK;
    }
    int port = hma_cut_parent_port(t->d, hma_st_root(j), hma_st_first(j, t->d), t->x);
    hm_packet_t p = {
        .msg = (int32_t)id, .origin = (int32_t)t->x, .value = id, .tag = TAG_ROUTE, .aux = j};
    int rc = hma_portq_push(&t->q, port, &p, 0);
    if (rc == HM_ENOMEM)
        hm_fail(t->n, "out of memory");
    return rc;
}

/* Phase 3: forward a packet of tree j to this node's children in T^(j). */
static void forward(tp_node_t *t, int j, const hm_packet_t *in)
{
    uint64_t children = hma_cut_children(t->d, hma_st_root(j), hma_st_first(j, t->d), t->x);
    if (!children)
        return;
    hm_packet_t p = *in;
    p.data = NULL;
    p.len = 0;
    hm_shout(t->n, children, &p);
}

static int read_slot(tp_node_t *t)
{
    hm_packet_t pk;
    while (hm_recv(t->n, &pk) == HM_OK) {
        int rc = HM_OK;
        /* Every packet but K and go names its tree in aux: a number outside 1..d (a
         * packet this phase did not expect) must not reach the tree functions. */
        if (pk.tag != TAG_K && pk.tag != TAG_GO && !hma_st_tree_valid(pk.aux, t->d)) {
            char why[96];
            snprintf(why, sizeof why, "packet msg %d with tag %d names tree %d; allowed: 1..%d",
                     pk.msg, pk.tag, pk.aux, t->d);
            hm_fail(t->n, why);
            return HM_EINVAL;
        }
        switch (pk.tag) {
        case TAG_K:
            t->K = pk.value;
            break;
        case TAG_ROUTE:
            rc = route(t, pk.aux, pk.value, pk.recv_slot);
            break;
        case TAG_DATA:
            hm_store(t->n, pk.value);
            forward(t, pk.aux, &pk);
            break;
        case TAG_TERM:
            t->terms++;
            forward(t, pk.aux, &pk);
            break;
        case TAG_COUNT:
            t->counts[pk.aux] = pk.value;
            break;
        case TAG_GO:
            t->go = hm_now(t->n);
            break;
        default:
            break;
        }
        if (rc != HM_OK)
            return rc;
    }
    return HM_OK;
}

/* Phase 3 at root e_j: one packet per slot on every port, then the termination. */
static void root_emit(tp_node_t *t)
{
    hm_packet_t p = {.origin = (int32_t)t->x, .aux = t->root};
    if (t->sent < t->nheld && t->sent < t->limit) {
        p.value = t->held[t->sent++];
        t->obs->emitted = t->sent;
        p.msg = (int32_t)p.value;
        p.tag = TAG_DATA;
        hm_store(t->n, p.value);
    } else {
        p.msg = -1;
        p.tag = TAG_TERM;
        t->term_sent = 1;
        t->terms++;
    }
    hm_shout(t->n, (UINT64_C(1) << t->d) - 1, &p);
}

/* Phase 1: the node's rank r (and K where it is known); *t2 is the slot phase 2
 * starts. Returns HM_OK, or what ended the run. */
static int phase1(tp_node_t *t, int64_t a, int64_t *r, int64_t *t2)
{
    const hma_st_state_t *st = t->st;
    hm_node_t *n = t->n;
    int d = t->d;
    if (st->variant == HMA_ST_PREFIX) {
        int64_t total;
        int rc = hma_prefix_suffix(n, d, a, TAG_PREFIX, r, &total);
        if (rc != HM_OK)
            return rc;
        hm_log(n, "phase 1: r_x = %lld", (long long)*r);
        if (t->x == 0) {
            hm_log(n, "phase 1: K = %lld, sent to e_1..e_%d", (long long)total, d);
            t->obs->prefix_total = total;
            hm_packet_t p = {.msg = -2, .value = total, .tag = TAG_K};
            hm_shout(n, (UINT64_C(1) << d) - 1, &p);
        }
        if ((rc = hm_next_slot(n)) != HM_OK)
            return rc;
        *t2 = 2 * d + 1;
    } else if (st->variant == HMA_ST_MULTINODE) {
        *r = st->rank[t->x]; /* 2^d - x, known without communication */
        t->K = st->K;
    } else if (t->root || t->x == 0 || st->variant == HMA_ST_RANDOM_FIXED) {
        t->K = st->K; /* randomized: nodes 0 and e_1..e_d know K; window: every node */
    }
    t->obs->rank = *r;
    return HM_OK;
}

/* Phase 2: route the node's own a packets towards their roots. */
static int phase2(tp_node_t *t, int64_t a, int64_t r, int64_t t2)
{
    const hma_st_state_t *st = t->st;
    hma_rng_t rng;
    hma_rng_seed(&rng, st->seed ^ (UINT64_C(0x9e3779b97f4a7c15) * (t->x + 1)));
    for (int m = 1; m <= a; m++) {
        int j = st->variant == HMA_ST_RANDOMIZED || st->variant == HMA_ST_RANDOM_FIXED
                    ? 1 + (int)hma_rng_below(&rng, (uint64_t)t->d)
                    : hma_st_tree_of_rank(r - a + m, t->d);
        int rc = route(t, j, hma_st_packet_id(st, (int)t->x, m), t2);
        if (rc != HM_OK)
            return rc;
    }
    return HM_OK;
}

/* Randomized-window: phase 2 ends at the window for every node; what has not reached
 * its root by then is lost. Returns 0, or -1 (out of memory, the node failed). */
static int window_drop(tp_node_t *t, int64_t now)
{
    if (t->st->variant != HMA_ST_RANDOM_FIXED || now < t->st->window || !hma_portq_size(&t->q))
        return 0;
    t->obs->dropped += (int64_t)hma_portq_size(&t->q);
    hma_portq_free(&t->q);
    if (hma_portq_init(&t->q, t->d) != HM_OK) {
        hm_fail(t->n, "out of memory");
        return -1;
    }
    return 0;
}

/* A root decides whether phase 3 starts now; *wake is the slot to look again. */
static void root_decide(tp_node_t *t, int64_t now, int64_t t2, int64_t *wake)
{
    const hma_st_state_t *st = t->st;
    int d = t->d;
    if (st->variant == HMA_ST_RANDOM_FIXED) {
        if (now >= st->window)
            t->started = 1;
        else
            *wake = st->window;
    } else if (st->variant == HMA_ST_RANDOMIZED) {
        if (t->go >= 0)
            t->started = 1;
        else if (t->reported != t->nheld) {
            hm_packet_t c = {.msg = -3, .value = t->nheld, .tag = TAG_COUNT, .aux = t->root};
            hm_send(t->n, t->root - 1, &c);
            t->reported = t->nheld;
        }
    } else if (t->K >= 0) {
        int64_t due = t2 + ceil_div(t->K, d) + d - 1;
        if (now >= due && t->nheld >= hma_st_tree_load(t->K, t->root, d)) {
            t->started = 1;
            t->obs->overrun = now > due;
        } else if (now < due) {
            *wake = due;
        }
    }
    if (t->started) {
        t->obs->root_start = now;
        hm_log(t->n, "phase 3: root e_%d broadcasts its %lld packets", t->root,
               (long long)t->nheld);
    }
}

/* Node 0, randomized: go once the roots hold K packets, not before the end of the
 * window; *wake is the slot to look again. */
static void go_check(tp_node_t *t, int64_t now, int64_t *wake)
{
    int64_t sum = 0;
    for (int j = 1; j <= t->d; j++)
        sum += t->counts[j];
    if (sum != t->K)
        return;
    if (now >= t->st->window - 1) {
        hm_packet_t g = {.msg = -4, .tag = TAG_GO};
        hm_shout(t->n, (UINT64_C(1) << t->d) - 1, &g);
        t->obs->go_slot = now;
        hm_log(t->n, "the roots hold K = %lld packets: go", (long long)t->K);
    } else {
        *wake = t->st->window - 1;
    }
}

static void three_phase(tp_node_t *t)
{
    const hma_st_state_t *st = t->st;
    hm_node_t *n = t->n;
    int64_t a = st->a[t->x], r = -1, t2 = 0;
    if (phase1(t, a, &r, &t2) != HM_OK || phase2(t, a, r, t2) != HM_OK)
        return;
    for (;;) {
        if (read_slot(t) != HM_OK)
            return;
        int64_t now = hm_now(n), wake = -1;
        if (window_drop(t, now) != 0)
            return;
        /* The roots decide when phase 3 starts. */
        if (t->root && !t->started)
            root_decide(t, now, t2, &wake);
        if (t->started && !t->term_sent)
            root_emit(t);
        if (t->counts && t->obs->go_slot < 0)
            go_check(t, now, &wake);
        if (hma_portq_send(&t->q, n, st->cap) < 0)
            return;
        if (t->terms == t->d && hma_portq_size(&t->q) == 0)
            return;
        int rc;
        if (hma_portq_size(&t->q) > 0 || (t->started && !t->term_sent) || wake == now + 1)
            rc = hm_next_slot(n);
        else
            rc = hm_wait_packet_until(n, NULL, wake > now ? wake : -1);
        if (rc == HM_EABORT)
            return;
    }
}

void hma_st_three_phase_node(hm_node_t *n, void *state)
{
    const hma_st_state_t *st = state;
    tp_node_t t = {0};
    t.st = st;
    t.n = n;
    t.x = (uint32_t)hm_id(n);
    t.obs = hma_st_obs_open(n);
    t.d = st->d;
    t.root = (t.x != 0 && (t.x & (t.x - 1)) == 0) ? __builtin_ctz(t.x) + 1 : 0;
    t.K = -1;
    t.go = -1;
    t.reported = 0;
    t.limit = st->variant == HMA_ST_RANDOM_FIXED ? ceil_div((int64_t)st->c_star * st->K, st->d)
                                                 : INT64_MAX;
    if (hma_portq_init(&t.q, st->d) != HM_OK) {
        hm_fail(n, "out of memory");
        return;
    }
    if (st->variant == HMA_ST_RANDOMIZED && t.x == 0)
        t.counts = calloc((size_t)st->d + 1, sizeof *t.counts);
    if (st->variant != HMA_ST_RANDOMIZED || t.x != 0 || t.counts)
        three_phase(&t);
    else
        hm_fail(n, "out of memory");
    hma_portq_free(&t.q);
    free(t.held);
    free(t.counts);
}

/* ---- after the run --------------------------------------------------------- */

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

int hma_st_check_delivery(hm_report_t *r, const hma_st_state_t *st, char *why, size_t len)
{
    int64_t *v = malloc((st->K > 0 ? (size_t)st->K : 1) * sizeof *v);
    if (!v) {
        snprintf(why, len, "out of memory while checking the stores");
        r->error = "out of memory while checking the stores";
        return 0;
    }
    int ok = 1;
    for (int x = 0; x < st->p && ok; x++) {
        size_t k;
        const int64_t *s = hm_report_stores(r, x, &k);
        if (k != (size_t)st->K) {
            snprintf(why, len, "node %d stored %zu packets instead of %lld", x, k,
                     (long long)st->K);
            ok = 0;
            break;
        }
        memcpy(v, s, k * sizeof *v);
        qsort(v, k, sizeof *v, cmp_i64);
        for (size_t i = 0; i < k; i++)
            if (v[i] != st->ids[i]) {
                snprintf(why, len,
                         "node %d did not store every packet exactly once (packet "
                         "%lld missing or repeated)",
                         x, (long long)st->ids[i]);
                ok = 0;
                break;
            }
        /* Packet id comes from node id / packets (hma_st_packet_id). */
        for (size_t i = 0; i < k && ok; i++)
            hm_report_from(r, x, i, 1, (int)(s[i] / st->packets));
    }
    free(v);
    if (ok)
        snprintf(why, len, "every node stored each of the %lld packets exactly once",
                 (long long)st->K);
    return ok;
}

int64_t hma_st_lower_bound(int d, int64_t K)
{
    int64_t p = INT64_C(1) << d;
    int64_t load = d > 0 ? ceil_div((p - 1) * K, (int64_t)d * p) : 0;
    return load > d ? load : d;
}

void hma_st_report_common(hm_report_t *r, const hma_st_state_t *st)
{
    json_t *src = json_array();
    for (int x = 0; x < st->p; x++)
        if (st->a[x] > 0)
            json_array_append_new(src, json_integer(x));
    json_object_set_new(r->extra, "K", json_integer(st->K));
    json_object_set_new(r->extra, "packets", json_integer(st->packets));
    json_object_set_new(r->extra, "sources", src);
    r->lower_expr = "max(d,ceil((p-1)K/(d*p)))";
    r->lower = hma_st_lower_bound(st->d, st->K);
}

/* The roots' view: N_j, when phase 2 really ended, when phase 3 began (r->extra "N",
 * "max_N", "phases"). Returns max N_j; *overrun when a root started late. */
static int64_t roots_view(hm_report_t *r, const hma_st_state_t *st, int *overrun)
{
    int d = st->d;
    json_t *nj = json_array();
    int64_t maxn = 0, last = -1, start = -1, t2 = st->variant == HMA_ST_PREFIX ? 2 * d + 1 : 0;
    for (int j = 1; j <= d; j++) {
        const hma_st_obs_t *o = hma_st_obs(r, hma_st_root(j));
        json_array_append_new(nj, json_integer(o->root_count));
        if (o->root_count > maxn)
            maxn = o->root_count;
        if (o->root_last > last)
            last = o->root_last;
        if (start < 0 || (o->root_start >= 0 && o->root_start < start))
            start = o->root_start;
        *overrun |= o->overrun;
    }
    json_object_set_new(r->extra, "N", nj);
    json_object_set_new(r->extra, "max_N", json_integer(maxn));

    json_t *ph = json_object();
    if (st->variant == HMA_ST_PREFIX)
        json_object_set_new(ph, "prefix", json_integer(t2));
    json_object_set_new(ph, "routing", json_integer(start - t2));
    json_object_set_new(ph, "routing_last_arrival", json_integer(last < 0 ? 0 : last - t2 + 1));
    json_object_set_new(ph, "broadcast", json_integer(r->completion_slots - start));
    json_object_set_new(r->extra, "phases", ph);
    return maxn;
}

/* Prefix: the bound, and the parallel prefix's K and ranks. */
static int verify_prefix(hm_report_t *r, const hma_st_state_t *st, int ok, char *why, size_t len)
{
    int d = st->d;
    r->bound_expr = "2ceil(K/d)+4d";
    r->bound = 2 * ((st->K + d - 1) / d) + 4 * d;
    if (hma_st_obs(r, 0)->prefix_total != st->K) {
        ok = 0;
        snprintf(why, len, "the parallel prefix gave K = %lld instead of %lld",
                 (long long)hma_st_obs(r, 0)->prefix_total, (long long)st->K);
    }
    for (int x = 0; x < st->p && ok; x++)
        if (hma_st_obs(r, x)->rank != st->rank[x]) {
            ok = 0;
            snprintf(why, len,
                     "the parallel prefix gave node %d rank %lld instead "
                     "of %lld",
                     x, (long long)hma_st_obs(r, x)->rank, (long long)st->rank[x]);
        }
    return ok;
}

/* Randomized-window: correct if and only if every N_j fits the window. */
static int verify_window(hm_report_t *r, const hma_st_state_t *st, int64_t maxn, int ok, char *why,
                         size_t len)
{
    int d = st->d;
    int64_t w = ceil_div((int64_t)st->c_star * st->K, d), emitted = 0, dropped = 0;
    r->bound_expr = "2ceil(C*K/d)+2d-1";
    r->bound = 2 * w + 2 * d - 1;
    for (int j = 1; j <= d; j++)
        emitted += hma_st_obs(r, hma_st_root(j))->emitted;
    for (int x = 0; x < st->p; x++)
        dropped += hma_st_obs(r, x)->dropped;
    int within = maxn <= w;
    json_object_set_new(r->extra, "c_star", json_integer(st->c_star));
    json_object_set_new(r->extra, "window", json_integer(st->window));
    json_object_set_new(r->extra, "within_window", json_boolean(within));
    json_object_set_new(r->extra, "lost", json_integer(st->K - emitted));
    json_object_set_new(r->extra, "dropped_in_routing", json_integer(dropped));
    json_object_set_new(r->extra, "succeeded", json_boolean(ok));
    /* The paper: the algorithm is correct if and only if every N_j fits the
     * window (phase 2 delivers N_j packets within N_j + d - 1 slots). */
    if (ok != within) {
        ok = 0;
        snprintf(why, len, "max N_j = %lld %s ceil(C*K/d) = %lld but %lld packets were lost",
                 (long long)maxn, within ? "<=" : ">", (long long)w, (long long)(st->K - emitted));
    } else if (!ok) {
        snprintf(why, len,
                 "max N_j = %lld > ceil(C*K/d) = %lld: the fixed window was too short and "
                 "%lld of the %lld packets were lost (the paper: correct with high "
                 "probability only)",
                 (long long)maxn, (long long)w, (long long)(st->K - emitted), (long long)st->K);
    }
    return ok;
}

/* Randomized: the bound of this draw. */
static void verify_randomized(hm_report_t *r, const hma_st_state_t *st, int64_t maxn, int ok,
                              char *why, size_t len)
{
    int d = st->d;
    int64_t w = ceil_div((int64_t)st->c_star * st->K, d);
    /* Within the window: every root held its packets in time for the go at the
     * window's end, and max N_j <= ceil(C* K/d) so phase 3 fits its C* K/d + d. */
    int fallback = hma_st_obs(r, 0)->go_slot > st->window - 1;
    int within = !fallback && maxn <= w;
    /* The bound of this draw (see the header): the paper's window bound when the
     * draw fits it, else what the per-phase pipelining argument guarantees. */
    r->bound_expr = within ? "2ceil(C*K/d)+2d+1" : "2max(ceil(C*K/d),max_N)+2d+1";
    r->bound = 2 * (maxn > w ? maxn : w) + 2 * d + 1;
    json_object_set_new(r->extra, "c_star", json_integer(st->c_star));
    json_object_set_new(r->extra, "window", json_integer(st->window));
    json_object_set_new(r->extra, "within_window", json_boolean(within));
    json_object_set_new(r->extra, "fallback", json_boolean(fallback));
    if (ok && !within)
        snprintf(why + strlen(why), len - strlen(why),
                 "; outside the C*K/d window (max N_j = %lld, fallback %s): the paper's "
                 "window bound holds with high probability only",
                 (long long)maxn, fallback ? "used" : "not needed");
}

void hma_st_three_phase_verify(hm_report_t *r)
{
    const hma_st_state_t *st = r->state;
    int d = st->d;
    char why[256];
    int ok = hma_st_check_delivery(r, st, why, sizeof why);
    hma_st_report_common(r, st);
    int overrun = 0;
    int64_t maxn = roots_view(r, st, &overrun);
    if (st->variant == HMA_ST_PREFIX) {
        ok = verify_prefix(r, st, ok, why, sizeof why);
    } else if (st->variant == HMA_ST_MULTINODE) {
        r->bound_expr = "2ceil(2^d/d)+2d-1";
        r->bound = 2 * ((st->K + d - 1) / d) + 2 * d - 1;
    } else if (st->variant == HMA_ST_RANDOM_FIXED) {
        ok = verify_window(r, st, maxn, ok, why, sizeof why);
    } else {
        verify_randomized(r, st, maxn, ok, why, sizeof why);
    }
    if (ok && overrun) {
        ok = 0;
        snprintf(why, sizeof why,
                 "phase 2 was still running when the roots should have "
                 "started phase 3");
    }
    if (ok && r->completion_slots > r->bound) {
        ok = 0;
        snprintf(why, sizeof why, "%lld slots, more than the bound %lld",
                 (long long)r->completion_slots, (long long)r->bound);
    }
    r->verified = ok;
    snprintf(r->verification, sizeof r->verification, "%s", why);
}
