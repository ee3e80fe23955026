/* SPDX-License-Identifier: MIT */
/*
 * problem.c — the collective problems (problem.h, doc/collectives.md, "Problems" and
 * "Inputs from the config"): setup and inputs, the operators, the counted sends and
 * receptions, the check of the stored values, and the positions along the rings and
 * tori (doc/collectives.md, "Rings and tori"). The lower bounds are in problem_bounds.c,
 * the step schedules, verify formulas and step patterns in problem_steps.c.
 */
#include "problem.h"

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

int hma_prob_bruck_step(hm_node_t *n, const hma_prob_t *pb, int pos, int dist, int k,
                        const int64_t *v, int64_t *out, size_t count)
{
    if (pb->full || pb->direct)
        return hma_prob_exchange(n, pb, hma_prob_bruck_node(pb, (pos + dist) % pb->p), k, v, count,
                                 out, count);
    return hma_prob_relay(n, pb, pos, dist, k, v, out, count);
}

void hma_prob_bruck_store(hm_node_t *n, const hma_prob_t *pb, int pos, const int64_t *buf)
{
    int p = pb->p;
    for (int y = 0; y < p; y++)
        hma_prob_store(
            n, buf + (size_t)((pos - hma_prob_bruck_pos(pb, y) + p) % p) * (size_t)pb->block,
            (size_t)pb->block);
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

void hma_prob_summary_keys(const hma_prob_t *pb, hm_report_t *r)
{
    json_object_set_new(r->extra, "problem", json_string(hm_problem_name(pb->kind)));
    json_object_set_new(r->extra, "block", json_integer(pb->block));
    if (hma_prob_rooted(pb->kind))
        json_object_set_new(r->extra, "root", json_integer(pb->root));
    if (hma_prob_reduces(pb->kind))
        json_object_set_new(r->extra, "op", json_string(hma_prob_op_names[pb->op]));
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
