/*
 * problem.c — the collective problems: inputs, check, lower bounds (problem.h,
 * doc/collectives.md).
 */
#include "problem.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rng.h"
#include "trees.h"

const char *const hma_prob_op_names[] = {HMA_OP_MAP(HM_ENUM_NAME) NULL};
const char *const hma_prob_route_names[] = {HMA_ROUTE_MAP(HM_ENUM_NAME) NULL};

/* Inputs stay small so that a sum over the largest machine cannot overflow. */
#define HM_PROB_VALUE_RANGE 1000
/* At most this many input values in all (alltoall holds p*p*b). */
#define HM_PROB_MAX_VALUES (INT64_C(1) << 24)

int hma_prob_rooted(hm_problem_t k)
{
    return k == HM_PROBLEM_BROADCAST || k == HM_PROBLEM_SCATTER || k == HM_PROBLEM_GATHER ||
           k == HM_PROBLEM_REDUCE;
}

int hma_prob_reduces(hm_problem_t k)
{
    return k == HM_PROBLEM_REDUCE || k == HM_PROBLEM_ALLREDUCE || k == HM_PROBLEM_REDUCE_SCATTER;
}

void hma_prob_free(void *state)
{
    hma_prob_t *pb = state;
    if (!pb)
        return;
    free(pb->in);
    free(pb->incount);
    free(pb->storage);
    free(pb->alg);
    free(pb->cyc_at);
    free(pb);
}

/* Values node x holds as input. */
static size_t input_count(const hma_prob_t *pb, int x)
{
    size_t b = (size_t)pb->block, p = (size_t)pb->p;
    switch (pb->kind) {
    case HM_PROBLEM_BROADCAST:
        return x == pb->root ? b : 0;
    case HM_PROBLEM_SCATTER:
        return x == pb->root ? p * b : 0;
    case HM_PROBLEM_REDUCE_SCATTER:
    case HM_PROBLEM_ALLTOALL:
        return p * b;
    default:
        return b;
    }
}

/* The cycle the ring algorithms follow on a ring (0, 1, ..., p-1, ports 0 forward, 1
 * back) or a torus (a snake: along row 0 east, row 1 west, ... and back up column 0
 * when rows is even; by columns when only cols is even; a torus of one row or column
 * is a ring). Ports as in topo/ring.c and topo/torus.c. */
enum { WEST, EAST, NORTH, SOUTH };

/* Position q of the snake along rows of an r x c torus (r even): its node and the
 * ports to the next and the previous position. */
static void snake_rows(int q, int c, int *x, int *fwd, int *back)
{
    int i = q / c, j = i % 2 ? c - 1 - q % c : q % c;
    *x = i * c + j;
    *fwd = q % c == c - 1 ? SOUTH : i % 2 ? WEST : EAST;
    *back = q % c == 0 ? NORTH : i % 2 ? EAST : WEST;
}

/* The same along columns (c even). */
static void snake_cols(int q, int r, int c, int *x, int *fwd, int *back)
{
    int j = q / r, i = j % 2 ? r - 1 - q % r : q % r;
    *x = i * c + j;
    *fwd = q % r == r - 1 ? EAST : j % 2 ? NORTH : SOUTH;
    *back = q % r == 0 ? WEST : j % 2 ? SOUTH : NORTH;
}

/* An r x c torus with both sides odd (3 or more) has no snake of rows, since its row
 * snake ends in the last row's east end; its wrap-around links give a Hamiltonian
 * cycle all the same. Take lines of length C along the longer side's R >= C lines (rows
 * when r >= c): each line is walked whole, its end one before (east, +1) or one after
 * (west, -1) its start, then one step to the next line in the same column. With
 * (R + C)/2 lines east and (R - C)/2 west the ends drift by -C = 0 mod C, so the last
 * step (over the wrap-around) comes back to node 0. */
static void snake_odd(hma_prob_t *pb, int r, int c)
{
    int rows = r >= c, R = rows ? r : c, C = rows ? c : r, s = 0, q = 0;
    int along[2] = {rows ? EAST : SOUTH, rows ? WEST : NORTH}, cross = rows ? SOUTH : EAST;
    int against[2] = {along[1], along[0]}, cross_back = rows ? NORTH : WEST;
    for (int i = 0; i < R; i++) {
        int west = i >= (R + C) / 2, dir = west ? -1 : 1;
        for (int k = 0; k < C; k++, q++) {
            int j = ((s + dir * k) % C + C) % C, x = rows ? i * c + j : j * c + i;
            pb->cyc_at[q] = x;
            pb->cyc_pos[x] = q;
            pb->cyc_next[x] = k < C - 1 ? along[west] : cross;
            pb->cyc_prev[x] = k > 0 ? against[west] : cross_back;
        }
        s = ((s - dir) % C + C) % C;
    }
}

static int cycle_build(hma_prob_t *pb, const hm_machine_info_t *mi)
{
    int p = pb->p, r = mi->rows, c = mi->cols;
    pb->cyc_at = malloc(4 * (size_t)p * sizeof *pb->cyc_at);
    if (!pb->cyc_at)
        return -1;
    pb->cyc_pos = pb->cyc_at + p;
    pb->cyc_next = pb->cyc_pos + p;
    pb->cyc_prev = pb->cyc_next + p;
    int by_rows = pb->ring == 2 && r > 1 && c > 1 && r % 2 == 0;
    int odd = pb->ring == 2 && r > 1 && c > 1 && r % 2 && c % 2;
    int by_cols = pb->ring == 2 && r > 1 && c > 1 && !by_rows && !odd;
    if (odd) {
        snake_odd(pb, r, c);
        return 0;
    }
    for (int q = 0; q < p; q++) {
        int x = q, fwd = 0, back = 1; /* ring; and a torus of one row */
        if (pb->ring == 2 && c == 1)
            fwd = SOUTH, back = NORTH;
        else if (pb->ring == 2 && r == 1)
            fwd = EAST, back = WEST;
        if (by_rows)
            snake_rows(q, c, &x, &fwd, &back);
        else if (by_cols)
            snake_cols(q, r, c, &x, &fwd, &back);
        pb->cyc_at[q] = x;
        pb->cyc_pos[x] = q;
        pb->cyc_next[x] = fwd;
        pb->cyc_prev[x] = back;
    }
    return 0;
}

/* Whether the machine can hold the problem: 0, or -1 with s->error written. */
static int check_machine(hm_setup_t *s, hm_problem_t kind)
{
    const hm_machine_info_t *mi = s->machine;
    /* The descriptors' .topologies and .needs.min_dim = 1 make the config loader refuse
     * such a machine first; this guards a descriptor that forgets them. A plugin's
     * descriptor that lists other topologies gets the problem there too (README "Writing
     * node programs outside the tree"). */
    int listed = s->algorithm && (s->algorithm->topologies & HM_BIT(mi->topology));
    if ((mi->topology != HM_TOPO_HYPERCUBE && mi->topology != HM_TOPO_RING &&
         mi->topology != HM_TOPO_TORUS && !listed) ||
        mi->nodes < 2) {
        snprintf(s->error, sizeof s->error,
                 "%s: topology: found %d node(s), allowed: a hypercube of dim 1 or more, a "
                 "ring or a torus of 2 nodes or more (the %s problem needs 2 nodes or more)",
                 s->file ? s->file : "config", mi->nodes, hm_problem_name(kind));
        return -1;
    }
    return 0;
}

/* An allgather or an alltoall leaves p * block values (8 bytes each) at every node, and
 * as many pass through its mailboxes: p^2 * block * 16 bytes in all, refused where that
 * exceeds the host's physical memory (README "Many nodes"), with the estimate. Returns 0,
 * or -1 with s->error written. */
static int results_fit(hm_setup_t *s, hm_problem_t kind, int64_t p, int64_t block)
{
    if (kind != HM_PROBLEM_ALLGATHER && kind != HM_PROBLEM_ALLTOALL)
        return 0;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0)
        return 0;
    double need = (double)p * (double)p * (double)block * 16.0;
    double host = (double)pages * (double)page;
    if (need <= host)
        return 0;
    char found[160], allowed[128];
    snprintf(found, sizeof found,
             "%lld (%s holds p * block = %lld values per node: about %.0f MiB in all)",
             (long long)block, hm_problem_name(kind), (long long)(p * block), need / 1048576.0);
    snprintf(allowed, sizeof allowed, "a block whose results fit the host's memory (%.0f MiB)",
             host / 1048576.0);
    hm_setup_fail(s, "block", found, allowed);
    return -1;
}

hma_prob_t *hma_prob_setup(hm_setup_t *s, hm_problem_t kind)
{
    const hm_machine_info_t *mi = s->machine;
    if (check_machine(s, kind) != 0)
        return NULL;
    /* The loader checked the typed parameters (problem.h) against their specs. */
    int64_t block = hm_param_get_int(s, "block");
    int64_t root = hma_prob_rooted(kind) ? hm_param_get_int(s, "root") : -1;
    int op = hma_prob_reduces(kind) ? hm_param_get_enum(s, "op") : HMA_OP_SUM;
    hma_prob_t *pb = calloc(1, sizeof *pb);
    if (!pb)
        return NULL;
    pb->kind = kind;
    pb->p = mi->nodes;
    pb->ring = mi->topology == HM_TOPO_RING ? 1 : mi->topology == HM_TOPO_TORUS ? 2 : 0;
    pb->full = mi->topology == HM_TOPO_BUS;
    pb->d = mi->topology == HM_TOPO_HYPERCUBE ? mi->dim : 0;
    while ((1 << pb->lg) < pb->p)
        pb->lg++;
    if (pb->ring && cycle_build(pb, mi) != 0) {
        hma_prob_free(pb);
        return NULL;
    }
    pb->root = (int)root;
    pb->block = (int)block;
    pb->op = (hma_op_t)op;
    int64_t total = 0;
    for (int x = 0; x < pb->p; x++)
        total += (int64_t)input_count(pb, x);
    if (total > HM_PROB_MAX_VALUES) {
        char found[64], allowed[96];
        snprintf(found, sizeof found, "%lld (%lld input values in all)", (long long)block,
                 (long long)total);
        snprintf(allowed, sizeof allowed, "a block with at most %lld input values in all",
                 (long long)HM_PROB_MAX_VALUES);
        hm_setup_fail(s, "block", found, allowed);
        hma_prob_free(pb);
        return NULL;
    }
    if (results_fit(s, kind, pb->p, block) != 0) {
        hma_prob_free(pb);
        return NULL;
    }
    pb->in = calloc((size_t)pb->p, sizeof *pb->in);
    pb->incount = calloc((size_t)pb->p, sizeof *pb->incount);
    pb->storage = calloc((size_t)total + 1, sizeof *pb->storage);
    if (!pb->in || !pb->incount || !pb->storage) {
        hma_prob_free(pb);
        return NULL;
    }
    /* One splitmix stream per node, from the run's seed and the node's number, so a
     * node's input does not depend on the others' sizes. */
    int64_t *at = pb->storage;
    for (int x = 0; x < pb->p; x++) {
        hma_rng_t rng;
        hma_rng_seed(&rng, mi->seed ^ (UINT64_C(0x9E3779B97F4A7C15) * (uint64_t)(x + 1)));
        pb->in[x] = at;
        pb->incount[x] = input_count(pb, x);
        for (size_t i = 0; i < pb->incount[x]; i++)
            at[i] = (int64_t)hma_rng_below(&rng, HM_PROB_VALUE_RANGE);
        at += pb->incount[x];
    }
    if (hma_prob_take_inputs(s, pb) != 0) {
        hma_prob_free(pb);
        return NULL;
    }
    return pb;
}

const int64_t *hma_prob_input(const void *state, int node, size_t *count)
{
    const hma_prob_t *pb = state;
    *count = pb->incount[node];
    return *count ? pb->in[node] : NULL;
}

int hma_prob_root(const void *state)
{
    const hma_prob_t *pb = state;
    return pb->root;
}

static int64_t apply(hma_op_t op, int64_t a, int64_t b)
{
    switch (op) {
    case HMA_OP_MAX:
        return a > b ? a : b;
    case HMA_OP_MIN:
        return a < b ? a : b;
    default:
        return a + b;
    }
}

void hma_prob_combine(const hma_prob_t *pb, int64_t *acc, const int64_t *v, size_t k)
{
    for (size_t i = 0; i < k; i++)
        acc[i] = apply(pb->op, acc[i], v[i]);
}

/* The packet of k values, counted in the node's own output area (out_size). */
static hm_packet_t counted(hm_node_t *n, int msg, const int64_t *v, size_t k)
{
    hm_packet_t p = {.msg = msg, .origin = hm_id(n), .value = (int64_t)k};
    p.data = k ? v : NULL;
    p.len = (uint32_t)(k * sizeof *v);
    hma_prob_count_t *c = hm_out(n);
    if (c) {
        c->packets++;
        c->values += (int64_t)k;
        if ((int64_t)k > c->max_values)
            c->max_values = (int64_t)k;
    }
    return p;
}

int hma_prob_send(hm_node_t *n, const hma_prob_t *pb, int port, int msg, const int64_t *v, size_t k)
{
    (void)pb;
    hm_packet_t p = counted(n, msg, v, k);
    return hm_send(n, port, &p);
}

int hma_prob_exchange(hm_node_t *n, const hma_prob_t *pb, int to, int msg, const int64_t *v,
                      size_t k, int64_t *out, size_t cap)
{
    size_t got;
    (void)pb;
    hm_packet_t p = counted(n, msg, v, k);
    int rc = hm_send_to(n, to, &p); /* the engine copies v before out is written */
    return rc == HM_OK ? hma_prob_recv(n, out, cap, &got, NULL) : rc;
}

static int take_route(hm_setup_t *s, hma_prob_t *pb)
{
    pb->direct = hm_param_get_enum(s, "route") == HMA_ROUTE_DIRECT;
    if (!pb->direct || pb->full)
        return 0;
    if (!s->machine->circuit)
        return hm_setup_fail(s, "route", "\"direct\" under packet routing",
                             "\"relay\" (a packet crosses one link a slot; \"direct\" needs "
                             "ports.routing \"circuit\")");
    if (pb->ring == 2) /* the snake's circuits cross rows: no one load a step */
        return hm_setup_fail(s, "route", "\"direct\" on a torus",
                             "\"relay\" (\"direct\" runs on the hypercube, the ring and the bus)");
    return 0;
}

int hma_prob_ready(hm_setup_t *s, hma_prob_t *pb)
{
    s->state = pb;
    if (!pb)
        return -1;
    if (!s->algorithm || !s->algorithm->verify)
        return 0;
    /* No outcome (priv NULL): hm_report_stores and hm_report_out find nothing. */
    hm_report_t r = {.machine = s->machine, .state = pb, .bound = -1, .lower = -1};
    r.extra = json_object();
    if (!r.extra)
        return 0; /* the cost stays unknown: the default clock.max_slots applies */
    s->algorithm->verify(&r);
    json_decref(r.extra);
    s->cost = r.bound > 0 ? r.bound : 0;
    return 0;
}

/* Bruck by node number: the bus, and route direct on the hypercube. */
static int bruck_by_id(const hma_prob_t *pb)
{
    return pb->full || (pb->direct && !pb->ring);
}

int hma_prob_bruck_pos(const hma_prob_t *pb, int x)
{
    return bruck_by_id(pb) ? x : hma_prob_pos(pb, x, -1);
}

int hma_prob_bruck_node(const hma_prob_t *pb, int pos)
{
    return bruck_by_id(pb) ? pos : hma_prob_node(pb, pos, -1);
}

int64_t hma_prob_bruck_slots(const hma_prob_t *pb, const hm_machine_info_t *mi,
                             int64_t (*blocks)(int64_t p, int64_t h))
{
    int64_t t = 0, p = pb->p;
    int direct = pb->full || pb->direct;
    for (int64_t h = 1; h < p; h *= 2)
        t += (direct ? 1 : h) * hma_prob_msg_slots(mi, (size_t)(hma_prob_arc_factor(pb, mi, h) *
                                                                blocks(p, h) * pb->block));
    return t;
}

hma_prob_t *hma_prob_setup_routed(hm_setup_t *s, hm_problem_t kind)
{
    hma_prob_t *pb = hma_prob_setup(s, kind);
    if (pb && take_route(s, pb) != 0) {
        hma_prob_free(pb);
        return NULL;
    }
    return pb;
}

int64_t hma_prob_arc_factor(const hma_prob_t *pb, const hm_machine_info_t *mi, int64_t dist)
{
    if (!pb->direct || pb->ring != 1)
        return 1;
    int64_t arc = dist < pb->p - dist ? dist : pb->p - dist;
    return (arc + mi->link_capacity - 1) / mi->link_capacity;
}

int hma_prob_recv(hm_node_t *n, int64_t *v, size_t cap, size_t *k, hm_packet_t *pk)
{
    hm_packet_t p;
    int rc = hm_wait_packet(n, &p);
    if (rc != HM_OK)
        return rc;
    size_t got = p.len / sizeof *v;
    if (got > cap) {
        hm_fail(n, "collective: a packet carries more values than expected");
        return HM_EABORT;
    }
    if (got)
        memcpy(v, p.data, got * sizeof *v); /* valid only until the next receive */
    *k = got;
    if (pk)
        *pk = p;
    return HM_OK;
}

int64_t *hma_prob_alloc(hm_node_t *n, size_t count)
{
    int64_t *v = calloc(count + 1, sizeof *v);
    if (!v)
        hm_fail(n, "collective: out of memory for the node's values");
    return v;
}

void hma_prob_store(hm_node_t *n, const int64_t *v, size_t k)
{
    for (size_t i = 0; i < k; i++)
        hm_store(n, v[i]);
}

size_t hma_prob_expected_count(const hma_prob_t *pb, int x)
{
    size_t b = (size_t)pb->block, p = (size_t)pb->p;
    switch (pb->kind) {
    case HM_PROBLEM_GATHER:
        return x == pb->root ? p * b : 0;
    case HM_PROBLEM_REDUCE:
        return x == pb->root ? b : 0;
    case HM_PROBLEM_ALLGATHER:
    case HM_PROBLEM_ALLTOALL:
        return p * b;
    default:
        return b;
    }
}

/* op over y of in[y][j]. */
static int64_t reduce_at(const hma_prob_t *pb, size_t j)
{
    int64_t acc = pb->in[0][j];
    for (int y = 1; y < pb->p; y++)
        acc = apply(pb->op, acc, pb->in[y][j]);
    return acc;
}

/* red: the reductions precomputed by hma_prob_check (NULL: computed here). */
static int64_t expected(const hma_prob_t *pb, const int64_t *red, int x, size_t i)
{
    size_t b = (size_t)pb->block;
    switch (pb->kind) {
    case HM_PROBLEM_BROADCAST:
        return pb->in[pb->root][i];
    case HM_PROBLEM_SCATTER:
        return pb->in[pb->root][(size_t)x * b + i];
    case HM_PROBLEM_GATHER:
    case HM_PROBLEM_ALLGATHER:
        return pb->in[i / b][i % b];
    case HM_PROBLEM_REDUCE:
    case HM_PROBLEM_ALLREDUCE:
        return red ? red[i] : reduce_at(pb, i);
    case HM_PROBLEM_REDUCE_SCATTER:
        return red ? red[(size_t)x * b + i] : reduce_at(pb, (size_t)x * b + i);
    case HM_PROBLEM_ALLTOALL:
        return pb->in[i / b][(size_t)x * b + i % b];
    default:
        return 0;
    }
}

int64_t hma_prob_expected(const hma_prob_t *pb, int x, size_t i)
{
    return expected(pb, NULL, x, i);
}

/* Where node x's want values come from (hm_report_from): the root's block for a
 * broadcast and a scatter, block y from node y where blocks are gathered or exchanged,
 * every node for a reduction. 0, or -1 when out of memory. */
static int declare_sources(const hma_prob_t *pb, hm_report_t *r, int x, size_t want)
{
    size_t b = (size_t)pb->block;
    switch (pb->kind) {
    case HM_PROBLEM_BROADCAST:
    case HM_PROBLEM_SCATTER:
        return hm_report_from(r, x, 0, want, pb->root) == HM_OK ? 0 : -1;
    case HM_PROBLEM_GATHER:
    case HM_PROBLEM_ALLGATHER:
    case HM_PROBLEM_ALLTOALL:
        for (size_t y = 0; y * b < want; y++)
            if (hm_report_from(r, x, y * b, b, (int)y) != HM_OK)
                return -1;
        return 0;
    default:
        return hm_report_from(r, x, 0, want, HM_FROM_ALL) == HM_OK ? 0 : -1;
    }
}

int hma_prob_check(const hma_prob_t *pb, hm_report_t *r, char *msg, size_t len)
{
    int64_t *red = NULL;
    if (hma_prob_reduces(pb->kind)) {
        size_t nred = pb->kind == HM_PROBLEM_REDUCE_SCATTER ? (size_t)pb->p * (size_t)pb->block
                                                            : (size_t)pb->block;
        red = malloc(nred * sizeof *red);
        if (red)
            for (size_t j = 0; j < nred; j++)
                red[j] = reduce_at(pb, j);
    }
    int ok = 1;
    for (int x = 0; x < pb->p && ok; x++) {
        size_t k, want = hma_prob_expected_count(pb, x);
        const int64_t *v = hm_report_stores(r, x, &k);
        for (size_t i = 0; i < k && i < want && ok; i++) {
            int64_t e = expected(pb, red, x, i);
            if (v[i] != e) {
                snprintf(msg, len, "node %d: index %zu: found %lld, expected %lld", x, i,
                         (long long)v[i], (long long)e);
                ok = 0;
            }
        }
        if (ok && k < want) {
            snprintf(msg, len, "node %d: index %zu: missing, expected %lld", x, k,
                     (long long)expected(pb, red, x, k));
            ok = 0;
        } else if (ok && k > want) {
            snprintf(msg, len, "node %d: index %zu: found %lld, expected nothing (%zu values)", x,
                     want, (long long)v[want], want);
            ok = 0;
        }
        if (ok && declare_sources(pb, r, x, want) != 0) {
            snprintf(msg, len, "out of memory recording where the values come from");
            ok = 0;
        }
    }
    free(red);
    return ok;
}

static int64_t ceil_div(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

/*
 * Lower bounds (doc/collectives.md, "Lower bounds"), each proven under the run's model:
 * a run below its bound is impossible, so verify may fail it. They count what any
 * algorithm must do whose messages carry input values or partial results of one
 * position each (no two values packed into one), and take the largest of:
 *
 *   latency   information crosses one link a slot: the diameter; under one-port and
 *             shout, where values flow into a node, the set of nodes that know a value
 *             (or that a partial result depends on) at most doubles a slot:
 *             ceil(log2 p). Both are d on Q_d.
 *
 * and, for an algorithm that puts one value in a packet (combining false: a packet of
 * many values makes volume free in unit slots), the volume. A node takes in (and sends)
 * one packet a slot under one-port and shout, degree * link_capacity under all-port:
 *
 *   pipe      broadcast, reduce, allreduce, reduce-scatter: a node at the diameter's
 *             distance takes in b values (reduce: time reversal), the first no earlier
 *             than slot diameter - 1: ceil(b/(degree*link_capacity)) + diameter - 1
 *             (all-port, Johnsson-Ho); under one-port the last value leaves the root in
 *             slot b - 1 and still reaches every node: block - 1 + latency.
 *   sends     reduce-scatter: node y's value i of block z (z != y) must leave y in some
 *             packet, its own or combined: every node sends (p-1)*b values (Chan et al.).
 *   gossip    allreduce: for one position the p nodes gossip one way, which takes 2(p-1)
 *             receptions at least (Harary-Schwenk); 2(p-1)*b in all, at most p*rate a
 *             slot: ceil(2(p-1)*b/(p*rate)) (Chan et al.'s 2(p-1)/p*n).
 *   volume    scatter, gather, allgather, alltoall: the root (every node) sends or takes
 *             in (p-1)*b values; alltoall on Q_d under all-port also the bisection,
 *             (p/2)^2*b values over p/2 links a direction: ceil(p*b/(2*link_capacity)).
 *
 * The degree is log2 p on Q_d, 2 on a ring, 4 on a torus (a side of 1 has fewer links:
 * the bound is then only weaker), p - 1 on the bus (fully connected).
 */
typedef struct shape_s {
    int64_t p, b, lg, diam, deg, cap; /* cap: link_capacity */
    int cube, allport;
} shape_t;

static shape_t shape_of(const hma_prob_t *pb, const hm_machine_info_t *mi)
{
    shape_t s = {.p = pb->p, .b = pb->block, .lg = pb->lg, .cap = mi->link_capacity};
    s.cube = !pb->ring && !pb->full;
    s.allport = mi->ports == HM_PORTS_ALL_PORT;
    s.deg = s.cube ? pb->d : pb->full ? pb->p - 1 : pb->ring == 2 ? 4 : 2;
    s.diam = s.cube          ? pb->d
             : pb->full      ? 1
             : pb->ring == 2 ? mi->rows / 2 + mi->cols / 2
                             : pb->p / 2;
    return s;
}

/* One expression in four spellings: the hypercube's (its degree log2 p) and the other
 * topologies' (degree), with link capacity 1, then above 1. */
static const char *spell(const shape_t *s, const char *const e[4])
{
    return e[(s->cube ? 0 : 1) + (s->cap > 1 ? 2 : 0)];
}

/* The largest candidate so far (a later one only when strictly larger). */
typedef struct best_s {
    int64_t v;
    const char *e;
} best_t;

static void take(best_t *bt, int64_t v, const char *e)
{
    if (v > bt->v) {
        bt->v = v;
        bt->e = e;
    }
}

/* Whether the latency is the diameter: under all-port, and for a shout from the root (one
 * emission reaches every neighbour), the informed set does not merely double but crosses
 * one link a slot; elsewhere the larger of the two. */
static int diam_argument(const shape_t *s, const hma_prob_t *pb, const hm_machine_info_t *mi)
{
    int one_to_many = pb->kind == HM_PROBLEM_BROADCAST || pb->kind == HM_PROBLEM_SCATTER;
    return s->allport || (mi->ports == HM_PORTS_SHOUT && one_to_many);
}

static int by_diameter(const shape_t *s, const hma_prob_t *pb, const hm_machine_info_t *mi)
{
    return diam_argument(s, pb, mi) || s->diam >= s->lg;
}

static best_t latency(const shape_t *s, const hma_prob_t *pb, const hm_machine_info_t *mi)
{
    if (s->cube) /* the diameter and log2 p are both d: named by the argument that holds */
        return (best_t){s->lg, diam_argument(s, pb, mi) ? "diameter" : "log2(p)"};
    int by_diam = by_diameter(s, pb, mi);
    return (best_t){by_diam ? s->diam : s->lg, by_diam ? "diameter" : "ceil(log2(p))"};
}

/* The pipe: the last of b values through the machine (one value a packet). */
static void pipe_bound(const shape_t *s, best_t *bt, const best_t *lat, int by_diam)
{
    static const char *const all[4] = {"ceil(block/log2(p))+log2(p)-1",
                                       "ceil(block/degree)+diameter-1",
                                       "ceil(block/(log2(p)*link_capacity))+log2(p)-1",
                                       "ceil(block/(degree*link_capacity))+diameter-1"};
    if (s->allport)
        take(bt, ceil_div(s->b, s->deg * s->cap) + s->diam - 1, spell(s, all));
    else
        take(bt, s->b - 1 + lat->v,
             s->cube   ? "block-1+log2(p)"
             : by_diam ? "block-1+diameter"
                       : "block-1+ceil(log2(p))");
}

/* (p-1)*b values sent or taken in by one node, one a packet. */
static void volume_bound(const shape_t *s, best_t *bt)
{
    static const char *const all[4] = {"ceil((p-1)*block/log2(p))", "ceil((p-1)*block/degree)",
                                       "ceil((p-1)*block/(log2(p)*link_capacity))",
                                       "ceil((p-1)*block/(degree*link_capacity))"};
    int64_t v = (s->p - 1) * s->b;
    if (s->allport)
        take(bt, ceil_div(v, s->deg * s->cap), spell(s, all));
    else
        take(bt, v, "(p-1)*block");
}

/* Allreduce: 2(p-1)*b receptions in all, p*rate a slot at most. */
static void gossip_bound(const shape_t *s, best_t *bt)
{
    static const char *const all[4] = {"ceil(2*(p-1)*block/(p*log2(p)))",
                                       "ceil(2*(p-1)*block/(p*degree))",
                                       "ceil(2*(p-1)*block/(p*log2(p)*link_capacity))",
                                       "ceil(2*(p-1)*block/(p*degree*link_capacity))"};
    int64_t v = 2 * (s->p - 1) * s->b;
    if (s->allport)
        take(bt, ceil_div(v, s->p * s->deg * s->cap), spell(s, all));
    else
        take(bt, ceil_div(v, s->p), "ceil(2*(p-1)*block/p)");
}

/* Alltoall on Q_d under all-port: the bisection. */
static void bisection_bound(const shape_t *s, best_t *bt)
{
    if (s->cube && s->allport)
        take(bt, ceil_div(s->p * s->b, 2 * s->cap),
             s->cap > 1 ? "ceil(p*block/(2*link_capacity)) (bisection)" : "p*block/2 (bisection)");
}

static int64_t packet_lower(const hma_prob_t *pb, const hm_machine_info_t *mi, int combining,
                            const char **expr)
{
    shape_t s = shape_of(pb, mi);
    best_t lat = latency(&s, pb, mi), bt = lat;
    if (!combining) {
        switch (pb->kind) {
        case HM_PROBLEM_BROADCAST:
        case HM_PROBLEM_REDUCE:
            pipe_bound(&s, &bt, &lat, by_diameter(&s, pb, mi));
            break;
        case HM_PROBLEM_ALLREDUCE:
            pipe_bound(&s, &bt, &lat, by_diameter(&s, pb, mi));
            gossip_bound(&s, &bt);
            break;
        case HM_PROBLEM_REDUCE_SCATTER:
            pipe_bound(&s, &bt, &lat, by_diameter(&s, pb, mi));
            volume_bound(&s, &bt);
            break;
        case HM_PROBLEM_ALLTOALL:
            bisection_bound(&s, &bt);
            volume_bound(&s, &bt);
            break;
        case HM_PROBLEM_SCATTER:
        case HM_PROBLEM_GATHER:
        case HM_PROBLEM_ALLGATHER:
            volume_bound(&s, &bt);
            break;
        default:
            break;
        }
    }
    *expr = bt.e;
    return bt.v;
}

/*
 * Under circuit routing (Seidel's a*m + b) a node transmits one message and receives one
 * at a time, whatever the port model and the link capacity, a message may go to any
 * node, and one of v values lasts at least D(v) = max(1, ceil(8a*v + b)) slots; D(v) +
 * D(w) >= D(v + w). Latency: a message that moves a value (or a partial result) carries
 * one value at least, so the nodes that know it (or that a partial result depends on)
 * at most double every D(1) slots: ceil(log2 p)*D(1) (Chan et al.'s ceil(log2 p)*alpha).
 * Volume: some node must send or receive V values, in messages that take D(V) slots
 * together at least: V = b for broadcast (every node receives), reduce (every node but
 * the root sends); V = (p-1)*b for scatter and gather (the root), allgather and alltoall
 * (every node receives), reduce-scatter (every node sends its values of the other
 * blocks, as above: Chan et al.'s (p-1)/p*n*beta, n = p*b); V = ceil(2(p-1)*b/p) for
 * allreduce (2(p-1)*b values sent in all, the gossip above: Chan et al.'s
 * 2(p-1)/p*n*beta, n = b). The bound is the larger (Chan et al.'s max of the two).
 */
static int64_t circuit_lower(const hma_prob_t *pb, const hm_machine_info_t *mi, const char **expr)
{
    size_t b = (size_t)pb->block, p = (size_t)pb->p, v = b;
    const char *ve = "ceil(8a*block+b)";
    switch (pb->kind) {
    case HM_PROBLEM_SCATTER:
    case HM_PROBLEM_GATHER:
    case HM_PROBLEM_ALLGATHER:
    case HM_PROBLEM_ALLTOALL:
    case HM_PROBLEM_REDUCE_SCATTER:
        v = (p - 1) * b;
        ve = "ceil(8a*(p-1)*block+b)";
        break;
    case HM_PROBLEM_ALLREDUCE:
        v = (2 * (p - 1) * b + p - 1) / p;
        ve = "ceil(8a*ceil(2*(p-1)*block/p)+b)";
        break;
    default:
        break;
    }
    int64_t lat = pb->lg * hma_prob_msg_slots(mi, 1), vol = hma_prob_msg_slots(mi, v);
    *expr = vol > lat ? ve : "ceil(log2(p))*ceil(8a+b)";
    return vol > lat ? vol : lat;
}

int64_t hma_prob_lower(const hma_prob_t *pb, const hm_machine_info_t *mi, int combining,
                       const char **expr)
{
    return mi->circuit ? circuit_lower(pb, mi, expr) : packet_lower(pb, mi, combining, expr);
}

void hma_prob_verify(hm_report_t *r, const char *expr, int64_t bound, int combining)
{
    const hma_prob_t *pb = r->state;
    char why[200];
    r->bound_expr = expr;
    r->bound = bound;
    r->lower = hma_prob_lower(pb, r->machine, combining, &r->lower_expr);
    int ok = hma_prob_check(pb, r, why, sizeof why);
    if (!ok) {
        snprintf(r->verification, sizeof r->verification, "%s", why);
    } else if (r->completion_slots != bound) {
        ok = 0;
        snprintf(r->verification, sizeof r->verification,
                 "%s stored right, but completion %lld slots is not the algorithm's exact cost "
                 "%s = %lld",
                 hm_problem_name(pb->kind), (long long)r->completion_slots, expr, (long long)bound);
    } else {
        snprintf(r->verification, sizeof r->verification,
                 "%s: all %d nodes stored the right values in order, in exactly %s slots",
                 hm_problem_name(pb->kind), pb->p, expr);
    }
    r->verified = ok;
    int64_t packets = 0, values = 0, maxv = 0;
    for (int x = 0; x < pb->p; x++) {
        const hma_prob_count_t *c = hm_report_out(r, x);
        if (!c)
            continue;
        packets += c->packets;
        values += c->values;
        if (c->max_values > maxv)
            maxv = c->max_values;
    }
    json_object_set_new(r->extra, "problem", json_string(hm_problem_name(pb->kind)));
    json_object_set_new(r->extra, "block", json_integer(pb->block));
    if (hma_prob_rooted(pb->kind))
        json_object_set_new(r->extra, "root", json_integer(pb->root));
    if (hma_prob_reduces(pb->kind))
        json_object_set_new(r->extra, "op", json_string(hma_prob_op_names[pb->op]));
    if (pb->given)
        json_object_set_new(r->extra, "inputs", json_string("config"));
    json_object_set_new(r->extra, "packets", json_integer(packets));
    json_object_set_new(r->extra, "values", json_integer(values));
    json_object_set_new(r->extra, "max_values_per_packet", json_integer(maxv));
    json_object_set_new(r->extra, "combining", json_boolean(combining));
}

int64_t hma_prob_msg_slots(const hm_machine_info_t *mi, size_t k)
{
    double v = mi->cost_a * 8.0 * (double)k + mi->cost_b;
    int64_t dur = (int64_t)ceil(v - 1e-9);
    return dur < 1 ? 1 : dur;
}

/* The slots of the longest 2^i of the 2^k chunks [b*c/2^k, ..): D(ceil(b*2^i/2^k)). */
static int64_t longest_part(const hm_machine_info_t *mi, size_t b, int i, int k)
{
    return hma_prob_msg_slots(mi, ((b << i) + ((size_t)1 << k) - 1) >> k);
}

int64_t hma_prob_halving_slots(const hm_machine_info_t *mi, size_t b, int k)
{
    int64_t t = 0;
    for (int i = 0; i < k; i++)
        t += longest_part(mi, b, i, k);
    return t;
}

void hma_prob_set_halving_steps(hma_prob_t *pb, const hm_machine_info_t *mi)
{
    int k = hma_prob_fold_k(pb), first = !hma_prob_pow2(pb);
    size_t b = (size_t)pb->block;
    if (!mi->circuit || pb->block % (1 << k) == 0 || first + 2 * k + 1 >= 40)
        return;
    pb->step_waits = 1;
    pb->step_at[0] = 0;
    pb->step_at[first] = first ? hma_prob_msg_slots(mi, b) : 0;
    for (int s = 0; s < 2 * k; s++) /* halving (bit k-1-s), then doubling or gather (bit s-k) */
        pb->step_at[first + s + 1] =
            pb->step_at[first + s] + longest_part(mi, b, s < k ? k - 1 - s : s - k, k);
}

int64_t hma_prob_doubling_slots(const hm_machine_info_t *mi, size_t k, int d)
{
    int64_t t = 0;
    for (int i = 0; i < d; i++)
        t += hma_prob_msg_slots(mi, k << i);
    return t;
}

void hma_prob_verify_steps(hm_report_t *r)
{
    const hma_prob_t *pb = r->state;
    if (r->machine->circuit) /* p - 1 steps of one block */
        hma_prob_verify(r, "(p-1)*ceil(8a*block+b)",
                        ((int64_t)pb->p - 1) * hma_prob_msg_slots(r->machine, (size_t)pb->block),
                        pb->block > 1);
    else
        hma_prob_verify(r, "p-1", (int64_t)pb->p - 1, pb->block > 1);
}

/* The pairwise exchanges' verify (alltoall-pairwise, reduce-scatter-pairwise): p - 1
 * direct messages of one block on the bus and under route direct, (p/2) log2 p e-cube
 * hops on the hypercube. */
void hma_prob_verify_pairwise(hm_report_t *r)
{
    const hma_prob_t *pb = r->state;
    if (pb->full || pb->direct) /* p - 1 direct messages of one block */
        hma_prob_verify_steps(r);
    else if (r->machine->circuit) /* (p/2) log2 p hops of one block */
        hma_prob_verify(r, "(p/2)*log2(p)*ceil(8a*block+b)",
                        (int64_t)pb->p / 2 * pb->d *
                            hma_prob_msg_slots(r->machine, (size_t)pb->block),
                        pb->block > 1);
    else
        hma_prob_verify(r, "(p/2)*log2(p)", (int64_t)pb->p / 2 * pb->d, pb->block > 1);
}

/* p not a power of two (the bus): the reductions fold first (one message of b values)
 * and allreduce unfolds last (another), around the halving pair of the first q. */
static void verify_halving_fold(hm_report_t *r)
{
    const hma_prob_t *pb = r->state;
    int k = hma_prob_fold_k(pb), ends = pb->kind == HM_PROBLEM_ALLREDUCE ? 2 : 1;
    int even = pb->block % (1 << k) == 0; /* equal chunks: the expression without ceil */
    if (r->machine->circuit)
        hma_prob_verify(r,
                        ends == 2 ? (even ? "2*ceil(8a*block+b)+2*sum_{i<floor(log2(p))} "
                                            "ceil(8a*block*2^i/2^floor(log2(p))+b)"
                                          : "2*ceil(8a*block+b)+2*sum_{i<floor(log2(p))} "
                                            "ceil(8a*ceil(block*2^i/2^floor(log2(p)))+b)")
                        : even    ? "ceil(8a*block+b)+2*sum_{i<floor(log2(p))} "
                                    "ceil(8a*block*2^i/2^floor(log2(p))+b)"
                                  : "ceil(8a*block+b)+2*sum_{i<floor(log2(p))} "
                                    "ceil(8a*ceil(block*2^i/2^floor(log2(p)))+b)",
                        ends * hma_prob_msg_slots(r->machine, (size_t)pb->block) +
                            2 * hma_prob_halving_slots(r->machine, (size_t)pb->block, k),
                        pb->block > 1);
    else
        hma_prob_verify(r, ends == 2 ? "2*floor(log2(p))+2" : "2*floor(log2(p))+1",
                        2 * (int64_t)k + ends, pb->block > 1);
}

void hma_prob_verify_halving_pair(hm_report_t *r)
{
    const hma_prob_t *pb = r->state;
    int k = hma_prob_fold_k(pb);
    if (!hma_prob_pow2(pb))
        verify_halving_fold(r);
    else if (r->machine->circuit)
        hma_prob_verify(r,
                        pb->block % pb->p == 0 ? "2*sum_i ceil(8a*block*2^i/p+b)"
                                               : "2*sum_i ceil(8a*ceil(block*2^i/p)+b)",
                        2 * hma_prob_halving_slots(r->machine, (size_t)pb->block, k),
                        pb->block > 1);
    else
        hma_prob_verify(r, "2*log2(p)", 2 * (int64_t)k, pb->block > 1);
}

int hma_prob_fold_k(const hma_prob_t *pb)
{
    return hma_prob_pow2(pb) ? pb->lg : pb->lg - 1;
}

int hma_prob_fold_new(const hma_prob_t *pb, int r, int keep_odd)
{
    int rem = pb->p - (1 << hma_prob_fold_k(pb));
    if (r >= 2 * rem)
        return r - rem;
    return r % 2 == keep_odd ? r / 2 : -1;
}

int hma_prob_fold_old(const hma_prob_t *pb, int nr, int keep_odd)
{
    int rem = pb->p - (1 << hma_prob_fold_k(pb));
    return nr < rem ? 2 * nr + keep_odd : nr + rem;
}

/* The port to new rank nr: the dimension on the hypercube, else the link to its node. */
static int fold_port(hm_node_t *n, const hma_prob_t *pb, int nr, int keep_odd, int dim)
{
    return pb->full ? hma_prob_port_rel(n, pb, hma_prob_fold_old(pb, nr, keep_odd)) : dim;
}

int hma_prob_fold_in(hm_node_t *n, const hma_prob_t *pb, int r, int keep_odd, int64_t *buf,
                     int64_t *tmp, size_t b)
{
    size_t k;
    int rem = pb->p - (1 << hma_prob_fold_k(pb));
    if (hma_prob_pow2(pb))
        return HM_OK;
    if (r < 2 * rem && r % 2 != keep_odd) /* drops out: its values to its pair */
        return hma_prob_send(n, pb, hma_prob_port_rel(n, pb, r + (keep_odd ? 1 : -1)), 0, buf, b);
    if (r < 2 * rem) {
        int rc = hma_prob_recv(n, tmp, b, &k, NULL);
        if (rc != HM_OK)
            return rc;
        hma_prob_combine(pb, buf, tmp, k);
    }
    return hma_prob_wait(n, pb->step_at[1]);
}

int hma_prob_halving_fold(hm_node_t *n, const hma_prob_t *pb, int nr, int keep_odd, int64_t *buf,
                          int64_t *tmp, const size_t *off)
{
    size_t k;
    int d = hma_prob_fold_k(pb), first = !hma_prob_pow2(pb);
    for (int i = d - 1; i >= 0; i--) {
        int mine = nr >> i << i, theirs = (nr ^ (1 << i)) >> i << i;
        size_t mlo = off[mine], mn = off[mine + (1 << i)] - mlo;
        /* Parts of unequal length: every node waits for the longest of the step before. */
        if (pb->step_waits && hma_prob_wait(n, pb->step_at[first + d - 1 - i]) != HM_OK)
            return HM_EABORT;
        int rc =
            hma_prob_send(n, pb, fold_port(n, pb, nr ^ (1 << i), keep_odd, i), first + d - 1 - i,
                          buf + off[theirs], off[theirs + (1 << i)] - off[theirs]);
        if (rc == HM_OK)
            rc = hma_prob_recv(n, tmp, mn, &k, NULL);
        if (rc != HM_OK)
            return rc;
        hma_prob_combine(pb, buf + mlo, tmp, k);
    }
    return HM_OK;
}

int hma_prob_doubling_fold(hm_node_t *n, const hma_prob_t *pb, int nr, int keep_odd, int64_t *buf,
                           const size_t *off)
{
    size_t k;
    int d = hma_prob_fold_k(pb), first = hma_prob_pow2(pb) ? 0 : d + 1;
    for (int i = 0; i < d; i++) {
        int mine = nr >> i << i, theirs = (nr ^ (1 << i)) >> i << i;
        if (pb->step_waits && hma_prob_wait(n, pb->step_at[first ? first + i : d + i]) != HM_OK)
            return HM_EABORT;
        int rc = hma_prob_send(n, pb, fold_port(n, pb, nr ^ (1 << i), keep_odd, i), first + i,
                               buf + off[mine], off[mine + (1 << i)] - off[mine]);
        if (rc == HM_OK)
            rc =
                hma_prob_recv(n, buf + off[theirs], off[theirs + (1 << i)] - off[theirs], &k, NULL);
        if (rc != HM_OK)
            return rc;
    }
    return HM_OK;
}

int hma_prob_gather_fold(hm_node_t *n, const hma_prob_t *pb, int nr, int keep_odd, int64_t *buf,
                         const size_t *off)
{
    size_t k;
    int d = hma_prob_fold_k(pb), j = nr ? __builtin_ctz((unsigned)nr) : d;
    int first = hma_prob_pow2(pb) ? 0 : d + 1;
    for (int i = 0; i < j; i++) { /* children nr + 2^i send in step i */
        int c = nr + (1 << i);
        int rc = hma_prob_recv(n, buf + off[c], off[c + (1 << i)] - off[c], &k, NULL);
        if (rc != HM_OK)
            return rc;
    }
    if (!nr)
        return HM_OK;
    if (pb->step_waits && hma_prob_wait(n, pb->step_at[first ? first + j : d + j]) != HM_OK)
        return HM_EABORT;
    return hma_prob_send(n, pb, fold_port(n, pb, nr - (1 << j), keep_odd, j), first + j,
                         buf + off[nr], off[nr + (1 << j)] - off[nr]);
}

int64_t hma_prob_tree_slots(const hm_machine_info_t *mi, const hma_prob_t *pb)
{
    size_t b = (size_t)pb->block, top = (size_t)1 << (pb->lg - 1);
    return hma_prob_msg_slots(mi, b * ((size_t)pb->p - top)) +
           hma_prob_doubling_slots(mi, b, pb->lg - 1);
}

void hma_prob_set_steps(hma_prob_t *pb, const hm_machine_info_t *mi, int doubling)
{
    pb->step_at[0] = 0;
    for (int j = 0; j < pb->lg && j + 1 < 40; j++)
        pb->step_at[j + 1] =
            pb->step_at[j] + (!mi->circuit ? 1
                              : doubling   ? hma_prob_msg_slots(mi, (size_t)pb->block << j)
                                           : hma_prob_msg_slots(mi, (size_t)pb->block));
}

int hma_prob_wait(hm_node_t *n, int64_t at)
{
    return hm_now(n) < at ? hm_wait_until(n, at) : HM_OK;
}

int hma_prob_pow2(const hma_prob_t *pb)
{
    return (pb->p & (pb->p - 1)) == 0;
}

int hma_prob_gray_pos(uint32_t x)
{
    for (int s = 1; s < 32; s <<= 1)
        x ^= x >> s;
    return (int)x;
}

int hma_prob_ring_next_port(int pos, int d)
{
    return hma_gray_step_dim((uint32_t)pos, d);
}

int hma_prob_ring_prev_port(int pos, int d)
{
    return hma_gray_step_dim((uint32_t)((pos + (1 << d) - 1) % (1 << d)), d);
}

int hma_prob_rel(const hma_prob_t *pb, int x, int root)
{
    if (root < 0)
        root = 0;
    return pb->full ? (x - root + pb->p) % pb->p : x ^ root;
}

int hma_prob_abs(const hma_prob_t *pb, int rel, int root)
{
    if (root < 0)
        root = 0;
    return pb->full ? (rel + root) % pb->p : rel ^ root;
}

int hma_prob_port_rel(hm_node_t *n, const hma_prob_t *pb, int rel)
{
    return hm_port_to(n, hma_prob_abs(pb, rel, hm_root(n)));
}

/* Ring and torus: the table of setup (cycle_build); positions relative to the root's
 * are a rotation of the cycle. */
int hma_prob_pos(const hma_prob_t *pb, int x, int root)
{
    if (root < 0)
        root = 0;
    if (!pb->ring)
        return hma_prob_gray_pos((uint32_t)(x ^ root));
    return (pb->cyc_pos[x] - pb->cyc_pos[root] + pb->p) % pb->p;
}

int hma_prob_node(const hma_prob_t *pb, int pos, int root)
{
    if (root < 0)
        root = 0;
    if (!pb->ring)
        return (int)hma_gray((uint32_t)pos) ^ root;
    return pb->cyc_at[(pos + pb->cyc_pos[root]) % pb->p];
}

int hma_prob_next(const hma_prob_t *pb, int pos, int root)
{
    if (!pb->ring)
        return hma_prob_ring_next_port(pos, pb->d);
    return pb->cyc_next[hma_prob_node(pb, pos, root)];
}

int hma_prob_prev(const hma_prob_t *pb, int pos, int root)
{
    if (!pb->ring)
        return hma_prob_ring_prev_port(pos, pb->d);
    return pb->cyc_prev[hma_prob_node(pb, pos, root)];
}

size_t *hma_prob_offsets(hm_node_t *n, size_t total, int p)
{
    size_t *off = malloc(((size_t)p + 1) * sizeof *off);
    if (!off) {
        hm_fail(n, "collective: out of memory for the node's offsets");
        return NULL;
    }
    for (int c = 0; c <= p; c++)
        off[c] = total * (size_t)c / (size_t)p;
    return off;
}

int hma_prob_scatter_tree(hm_node_t *n, const hma_prob_t *pb, int r, int64_t *buf,
                          const size_t *off)
{
    int d = pb->lg, p = pb->p, j = r ? __builtin_ctz((unsigned)r) : d, sent = 0;
    size_t k;
    if (r) {
        size_t lo = off[r], hi = off[r + (1 << j) < p ? r + (1 << j) : p];
        int rc = hma_prob_recv(n, buf + lo, hi - lo, &k, NULL);
        if (rc != HM_OK)
            return rc;
    }
    /* Received in slot d-1-j (now d-j); children r + 2^i, i = j-1 .. 0, one a slot (those
     * below p: every node receives once, so a node may send earlier than in its slot). */
    for (int i = j - 1; i >= 0; i--) {
        int c = r + (1 << i), e = c + (1 << i) < p ? c + (1 << i) : p;
        if (c >= p)
            continue;
        int rc = sent++ ? hm_next_slot(n) : HM_OK;
        if (rc == HM_OK && pb->step_waits) /* unequal chunks: the step's longest message */
            rc = hma_prob_wait(n, pb->step_at[d - 1 - i]);
        if (rc == HM_OK)
            rc = hma_prob_send(n, pb, pb->full ? hma_prob_port_rel(n, pb, c) : i, d - 1 - i,
                               buf + off[c], off[e] - off[c]);
        if (rc != HM_OK)
            return rc;
    }
    return HM_OK;
}

int hma_prob_gather_tree(hm_node_t *n, const hma_prob_t *pb, int r, int64_t *buf, const size_t *off)
{
    int p = pb->p, j = r ? __builtin_ctz((unsigned)r) : pb->lg;
    size_t k;
    /* Children r + 2^i (below p) send in slot i, i = 0 .. j-1; this node sends in slot j
     * (for p not a power of two it waits for it: a parent takes one child a step). */
    for (int i = 0; i < j && r + (1 << i) < p; i++) {
        int c = r + (1 << i), e = c + (1 << i) < p ? c + (1 << i) : p;
        int rc = hma_prob_recv(n, buf + off[c], off[e] - off[c], &k, NULL);
        if (rc != HM_OK)
            return rc;
    }
    if (!r)
        return HM_OK;
    if (!hma_prob_pow2(pb) && hma_prob_wait(n, pb->step_at[j]) != HM_OK)
        return HM_EABORT;
    int e = r + (1 << j) < p ? r + (1 << j) : p;
    return hma_prob_send(n, pb, pb->full ? hma_prob_port_rel(n, pb, r - (1 << j)) : j, j,
                         buf + off[r], off[e] - off[r]);
}

int hma_prob_allgather_rd(hm_node_t *n, const hma_prob_t *pb, int r, int64_t *buf,
                          const size_t *off)
{
    size_t k;
    for (int i = 0; i < pb->lg; i++) {
        int mine = r >> i << i, theirs = (r ^ (1 << i)) >> i << i;
        int port = pb->full ? hma_prob_port_rel(n, pb, r ^ (1 << i)) : i;
        if (pb->step_waits && hma_prob_wait(n, pb->step_at[pb->lg + i]) != HM_OK)
            return HM_EABORT; /* after the scatter tree's lg steps (hma_prob_set_halving_steps) */
        int rc = hma_prob_send(n, pb, port, i, buf + off[mine], off[mine + (1 << i)] - off[mine]);
        if (rc == HM_OK)
            rc =
                hma_prob_recv(n, buf + off[theirs], off[theirs + (1 << i)] - off[theirs], &k, NULL);
        if (rc != HM_OK)
            return rc;
    }
    return HM_OK;
}

int hma_prob_allgather_ring(hm_node_t *n, const hma_prob_t *pb, int pos, int shift, int64_t *buf,
                            const size_t *off)
{
    int p = pb->p, next = hma_prob_next(pb, pos, -1);
    size_t k;
    for (int s = 0; s < p - 1; s++) {
        int out = ((pos + shift - s) % p + p) % p, in = ((pos + shift - s - 1) % p + p) % p;
        int rc = hma_prob_send(n, pb, next, s, buf + off[out], off[out + 1] - off[out]);
        if (rc == HM_OK)
            rc = hma_prob_recv(n, buf + off[in], off[in + 1] - off[in], &k, NULL);
        if (rc != HM_OK)
            return rc;
    }
    return HM_OK;
}

int hma_prob_relay(hm_node_t *n, const hma_prob_t *pb, int pos, int hops, int msg, const int64_t *v,
                   int64_t *out, size_t k)
{
    int next = hma_prob_next(pb, pos, -1);
    size_t got;
    for (int h = 0; h < hops; h++) {
        /* The send copies v before out is overwritten (v may be out). */
        int rc = hma_prob_send(n, pb, next, msg, h ? out : v, k);
        if (rc == HM_OK)
            rc = hma_prob_recv(n, out, k, &got, NULL);
        if (rc != HM_OK)
            return rc;
    }
    return HM_OK;
}

int hma_prob_xor_route(hm_node_t *n, const hma_prob_t *pb, int s, const int64_t *v, int64_t *out,
                       size_t k)
{
    size_t got;
    const int64_t *cur = v;
    for (int i = 0; i < pb->d; i++) {
        if (!(s >> i & 1))
            continue;
        int rc = hma_prob_send(n, pb, i, s, cur, k);
        if (rc == HM_OK)
            rc = hma_prob_recv(n, out, k, &got, NULL);
        if (rc != HM_OK)
            return rc;
        cur = out;
    }
    return HM_OK;
}
