/* SPDX-License-Identifier: MIT */
/*
 * problem_bounds.c — the collective problems' lower bounds (hma_prob_lower) and the
 * verdict that weighs a run against them and against its algorithm's exact cost
 * (hma_prob_verify): doc/collectives.md, "Lower bounds" and "Message length: Seidel's
 * a·m + b".
 */
#include "problem.h"

#include <stdio.h>

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
    int ecc; /* diam is the root's eccentricity (a rooted problem on a mesh or a line) */
} shape_t;

/* The farthest any node lies from the root, on the mesh (linear: one row). */
static int64_t eccentricity(const hm_machine_info_t *mi, int root)
{
    int64_t r = root / mi->cols, c = root % mi->cols;
    int64_t dr = r > mi->rows - 1 - r ? r : mi->rows - 1 - r;
    int64_t dc = c > mi->cols - 1 - c ? c : mi->cols - 1 - c;
    return dr + dc;
}

/* The degree is an upper bound on every node's (a side of 1 has fewer links: the bound
 * is then only weaker); on a mesh or a line the latency of a rooted problem is its
 * root's eccentricity, the distance to the farthest node (time reversed for gather and
 * reduce); the hypercube, the ring, the torus and the bus look the same from every
 * node. */
static shape_t shape_of(const hma_prob_t *pb, const hm_machine_info_t *mi)
{
    shape_t s = {.p = pb->p, .b = pb->block, .lg = pb->lg, .cap = mi->link_capacity};
    s.cube = mi->topology == HM_TOPO_HYPERCUBE;
    s.allport = mi->ports == HM_PORTS_ALL_PORT;
    switch (mi->topology) {
    case HM_TOPO_HYPERCUBE:
        s.deg = s.diam = pb->d;
        break;
    case HM_TOPO_BUS:
        s.deg = pb->p - 1;
        s.diam = 1;
        break;
    case HM_TOPO_TORUS:
        s.deg = 4;
        s.diam = mi->rows / 2 + mi->cols / 2;
        break;
    case HM_TOPO_RING:
        s.deg = 2;
        s.diam = pb->p / 2;
        break;
    default: /* mesh, linear (one row) */
        s.deg = mi->topology == HM_TOPO_MESH ? 4 : 2;
        s.diam = (int64_t)mi->rows - 1 + mi->cols - 1;
        s.ecc = hma_prob_rooted(pb->kind) && pb->root >= 0;
        if (s.ecc)
            s.diam = eccentricity(mi, pb->root);
        break;
    }
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
    return (best_t){by_diam ? s->diam : s->lg, !by_diam ? "ceil(log2(p))"
                                               : s->ecc ? "eccentricity(root)"
                                                        : "diameter"};
}

/* The pipe: the last of b values through the machine (one value a packet). */
static void pipe_bound(const shape_t *s, best_t *bt, const best_t *lat, int by_diam)
{
    static const char *const all[4] = {"ceil(block/log2(p))+log2(p)-1",
                                       "ceil(block/degree)+diameter-1",
                                       "ceil(block/(log2(p)*link_capacity))+log2(p)-1",
                                       "ceil(block/(degree*link_capacity))+diameter-1"};
    static const char *const ecc[2] = {"ceil(block/degree)+eccentricity(root)-1",
                                       "ceil(block/(degree*link_capacity))+eccentricity(root)-1"};
    if (s->allport)
        take(bt, ceil_div(s->b, s->deg * s->cap) + s->diam - 1,
             s->ecc ? ecc[s->cap > 1] : spell(s, all));
    else
        take(bt, s->b - 1 + lat->v,
             s->cube   ? "block-1+log2(p)"
             : by_diam ? (s->ecc ? "block-1+eccentricity(root)" : "block-1+diameter")
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

int64_t hma_prob_lower_any(const hma_prob_t *pb, const hm_machine_info_t *mi, const char **expr)
{
    if (mi->circuit) { /* a message may carry its value word alone: 0 bytes, ceil(b) */
        *expr = "ceil(log2(p))*max(1,ceil(b))";
        return pb->lg * hma_prob_msg_slots(mi, 0);
    }
    return packet_lower(pb, mi, 1, expr);
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
    hma_prob_summary_keys(pb, r);
    if (pb->given)
        json_object_set_new(r->extra, "inputs", json_string("config"));
    json_object_set_new(r->extra, "packets", json_integer(packets));
    json_object_set_new(r->extra, "values", json_integer(values));
    json_object_set_new(r->extra, "max_values_per_packet", json_integer(maxv));
    json_object_set_new(r->extra, "combining", json_boolean(combining));
}

/* Scatter and gather on the binomial tree: the root sends (receives) p/2, p/4, .. 1
 * blocks, one message a level; log2 p slots under unit slots. */
void hma_prob_verify_halving(hm_report_t *r)
{
    const hma_prob_t *pb = r->state;
    if (r->machine->circuit)
        hma_prob_verify(r, hma_prob_pow2(pb) ? "sum_i ceil(8a*block*2^i+b)" : HMA_PROB_TREE_EXPR,
                        hma_prob_tree_slots(r->machine, pb), pb->p > 2 || pb->block > 1);
    else
        hma_prob_verify(r, pb->full ? "ceil(log2(p))" : "log2(p)", pb->lg,
                        pb->p > 2 || pb->block > 1);
}

void hma_prob_verify_tree(hm_report_t *r)
{
    const hma_prob_t *pb = r->state;
    if (r->machine->circuit) /* ceil(log2 p) messages of b values one after the other */
        hma_prob_verify(r, pb->full ? "ceil(log2(p))*ceil(8a*block+b)" : "log2(p)*ceil(8a*block+b)",
                        pb->lg * hma_prob_msg_slots(r->machine, (size_t)pb->block), pb->block > 1);
    else
        hma_prob_verify(r, pb->full ? "ceil(log2(p))" : "log2(p)", pb->lg, pb->block > 1);
}
