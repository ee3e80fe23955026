/* SPDX-License-Identifier: MIT */
/*
 * rh-broadcast — recursive halving broadcast on circuit-switched linear arrays and
 * meshes (Seidel 1993, sections 3.5, 3.6, 4.4, 5.2; after van de Geijn). In
 * src/algo/seidel/ with st-broadcast and bst-broadcast: see st-broadcast.c for why.
 *
 * Linear array of n = 2^d nodes, the message in n pieces:
 *   0. the root permutes its message (rho*m, charged as hm_busy; Seidel: "permuted
 *      in node 0 before the first phase") so that
 *   1. the distribution along the spanning tree of the root (XOR-ed, section 4.4)
 *      gives node x piece bitrev(x): each message is an interleaved set (every
 *      2^(d-k)-th piece), contiguous in the permuted message; (1-2^-d)ma + db
 *      Then every exchange below concatenates ranges of the original order.
 *   2. d exchange steps, farthest first: in step i nodes x and x XOR 2^(d-i) swap
 *      all they hold (m/2^(d-i+1) bytes). Step i puts 2^(d-i) circuits on the links
 *      in the middle of every block of 2^(d-i+1) nodes (2^(d-1) on the middle link in
 *      step 1): the emulator counts that link contention and, under "queue",
 *      stretches those messages by ceil(2^(d-i)/2^nu) as the cost model says;
 *                              sum_{i=0}^{d-1} [m/2^(i+1) max(a, 2^i abar) + b]
 *                              = (1 + (d-nu-2)/2^(nu+1))ma + db
 *   Table I: (2 + (d-nu-2)/2^(nu+1) - 2^-d)ma + 2db + m*rho, nu = min(nu, d-1).
 *   Run it with "contention": "queue": under "strict" the first exchange step stops
 *   the run, as it should (link contention is part of the algorithm).
 *
 * Mesh 2^d1 x 2^d2 (section 3.6): distribute down the root's column then along the
 * rows, then exchange as rh_mesh explains (interleaved horizontal and vertical
 * exchanges). Table I: (2 + (2(d2-d1)-3)/2^(d1+nu+2) + 1/2^(2nu+3) - 1/2^(d1+d2))ma
 * + 2(d1+d2)b + m*rho for nu < d1 <= d2 (symmetric in d1, d2 here). Meshes of one
 * logical row or column run the linear algorithm.
 *
 * Every cost above assumes that the P pieces (the summary's "pieces") divide m. For
 * any other m the plan is step-synchronous with pieces of ceil(m/P) bytes and costs
 * the same formula at m' = P*ceil(m/P), m itself in m*rho and in the companions'
 * steps, minus (m'/2 - m)*a when m < P/2 (seidel.h, doc/seidel.md "Message lengths").
 */
#include <stdlib.h>

#include "seidel.h"

static const hm_param_spec_t rh_specs[] = {
    HMA_SEIDEL_SPECS_COMMON,
    HM_PARAM_END,
};

/* RH on a line of 2^e logical nodes; pieces 0..2^e-1. Returns the last step. */
static int rh_line(hma_plan_t *p, const int32_t *line, int e, int root)
{
    int s = hma_plan_scatter(p, 0, line, e, root, 0, 1, 1);
    for (int t = 1; t <= e; t++) {
        int h = 1 << (e - t), held = 1 << (t - 1);
        for (int x = 0; x < (1 << e); x++) {
            int base = (int)(hma_bitrev((uint32_t)x, e) >> (t - 1)) << (t - 1);
            hma_plan_send(p, s + t, line[x], line[x ^ h], base, held, 1);
        }
    }
    return s + e;
}

/* Mesh RH (section 3.6), logical 2^d1 x 2^d2 with d1, d2 >= 1. The exchange order:
 * first the |d1 - d2| top bits of the longer axis, then for b = min(d1,d2)-1 .. 0 the
 * pair (column bit b, row bit b). In a pair with b >= 1 the nodes of one checkerboard
 * colour exchange horizontally first, the others vertically first (the partner of a
 * node always has its colour, since bit 0 does not change), so only half of the nodes
 * of a row or column use it at a time: 2^(b-1) circuits on a link instead of 2^b —
 * the interleaving of Barnett et al. that the paper's sum assumes. Piece bits are
 * numbered in the order of the exchanges (horizontal first in a pair), so every node
 * always holds a set base | mask; a node that went vertical first holds a mask with a
 * hole for one step. */
/* The piece bits of coordinate v whose bit b is piece bit pos[b]. */
static uint32_t spread(int v, const uint32_t *pos, int bits)
{
    uint32_t r = 0;
    for (int b = 0; b < bits; b++)
        if ((v >> b) & 1)
            r |= pos[b];
    return r;
}

/* The piece bit of each row bit (pr) and column bit (pc): the unpaired bits of the
 * longer side first, then the pairs from the highest. */
static void rh_bits(const hma_seidel_t *st, uint32_t *pr, uint32_t *pc)
{
    int d1 = st->d1, d2 = st->d2, D = d1 < d2 ? d1 : d2, X = d1 + d2 - 2 * D;
    for (int t = 0; t < X; t++) {
        if (d2 > d1)
            pc[d2 - 1 - t] = 1u << t;
        else
            pr[d1 - 1 - t] = 1u << t;
    }
    for (int b = D - 1; b >= 0; b--) {
        pc[b] = 1u << (X + 2 * (D - 1 - b));
        pr[b] = 1u << (X + 2 * (D - 1 - b) + 1);
    }
}

/* 1. Distribute down the root's column (each node of it gets its row's pieces), then
 *    along every row: node (i, j) ends with piece spread(i) | spread(j). Returns the
 *    last step. */
static int rh_distribute(hma_plan_t *p, const hma_seidel_t *st, const uint32_t *pr,
                         const uint32_t *pc)
{
    int d1 = st->d1, d2 = st->d2, L1 = 1 << d1, L2 = 1 << d2;
    uint32_t cmask = 0;
    for (int b = 0; b < d2; b++)
        cmask |= pc[b];
    for (int t = 1; t <= d1; t++) {
        int h = 1 << (d1 - t);
        uint32_t low = 0;
        for (int b = 0; b < d1 - t; b++)
            low |= pr[b];
        for (int y = 0; y < L1; y += 2 * h) {
            int to = (y | h) ^ st->li, lo = to & ~(h - 1);
            hma_plan_send_set(p, t, hma_seidel_lid(st, y ^ st->li, st->lj),
                              hma_seidel_lid(st, to, st->lj), spread(lo, pr, d1), low | cmask);
        }
    }
    int s = d1;
    for (int i = 0; i < L1; i++)
        for (int t = 1; t <= d2; t++) {
            int h = 1 << (d2 - t);
            uint32_t low = 0;
            for (int b = 0; b < d2 - t; b++)
                low |= pc[b];
            for (int y = 0; y < L2; y += 2 * h) {
                int to = (y | h) ^ st->lj, lo = to & ~(h - 1);
                hma_plan_send_set(p, s + t, hma_seidel_lid(st, i, y ^ st->lj),
                                  hma_seidel_lid(st, i, to), spread(i, pr, d1) | spread(lo, pc, d2),
                                  low);
            }
        }
    return s + d2;
}

/* Whether node x = (i, j) exchanges horizontally in half `half` of pair b. */
static int rh_horizontal(const hma_seidel_t *st, int x, int b, int half)
{
    int i = x >> st->d2, j = x & ((1 << st->d2) - 1);
    int black = b >= 1 && ((i ^ j) & 1);
    return (half == 0) != black;
}

/* 2. The exchanges, after step s; held[x]: the piece bits node x has gathered.
 *    Returns the last step. */
static int rh_exchanges(hma_plan_t *p, const hma_seidel_t *st, const uint32_t *pr,
                        const uint32_t *pc, uint32_t *held, int s)
{
    int d1 = st->d1, d2 = st->d2, D = d1 < d2 ? d1 : d2, X = d1 + d2 - 2 * D;
    int n = (1 << d1) << d2, L2 = 1 << d2, t = s;
    for (int k = 0; k < X; k++) {
        t++;
        int b = (d2 > d1 ? d2 : d1) - 1 - k;
        for (int x = 0; x < n; x++) {
            int i = x >> d2, j = x & (L2 - 1);
            int y =
                d2 > d1 ? hma_seidel_lid(st, i, j ^ (1 << b)) : hma_seidel_lid(st, i ^ (1 << b), j);
            uint32_t me = spread(i, pr, d1) | spread(j, pc, d2);
            hma_plan_send_set(p, t, x, y, me & ~held[x], held[x]);
        }
        for (int x = 0; x < n; x++)
            held[x] |= 1u << k;
    }
    for (int b = D - 1; b >= 0; b--)
        for (int half = 0; half < 2; half++) {
            t++;
            for (int x = 0; x < n; x++) {
                int i = x >> d2, j = x & (L2 - 1);
                int y = rh_horizontal(st, x, b, half) ? hma_seidel_lid(st, i, j ^ (1 << b))
                                                      : hma_seidel_lid(st, i ^ (1 << b), j);
                uint32_t me = spread(i, pr, d1) | spread(j, pc, d2);
                hma_plan_send_set(p, t, x, y, me & ~held[x], held[x]);
            }
            for (int x = 0; x < n; x++)
                held[x] |= rh_horizontal(st, x, b, half) ? pc[b] : pr[b];
        }
    return t;
}

static int rh_mesh(hma_plan_t *p, const hma_seidel_t *st)
{
    uint32_t pr[16], pc[16]; /* piece bit of row bit b, column bit b */
    rh_bits(st, pr, pc);
    int s = rh_distribute(p, st, pr, pc);
    uint32_t *held = calloc((size_t)1 << (st->d1 + st->d2), sizeof *held);
    if (!held) {
        p->failed = 1;
        return s;
    }
    int t = rh_exchanges(p, st, pr, pc, held, s);
    free(held);
    return t;
}

static int rh_build(hm_setup_t *s, hma_seidel_t *st, int32_t *line, hma_seidel_built_t *out)
{
    const hm_machine_info_t *mi = s->machine;
    int e, pos, last = 0;
    double m = (double)st->bytes, a = mi->cost_a, b = mi->cost_b, rho = mi->cost_rho;
    const char *expr = NULL;
    double value = 0;
    if (hma_seidel_line(st, line, &e, &pos)) {
        int nu = st->nu = hma_seidel_nu(st, e);
        if (hma_seidel_plan(s, st, e) != 0)
            return -1;
        m = (double)st->mpad; /* the formulas' m (seidel.h) */
        /* 0. The root's permutation. */
        hma_plan_busy(st->plan, 0, st->root, hma_seidel_slots(rho * (double)st->bytes));
        last = rh_line(st->plan, line, e, pos);
        expr = "(2+(d-nu-2)/2^(nu+1)-1/2^d)*m*a+2*d*b+m*rho";
        value = e == 0 ? hma_seidel_slots(rho * (double)st->bytes)
                       : (2.0 + (double)(e - nu - 2) / (2 << nu) - 1.0 / (1 << e)) * m * a +
                             2 * e * b + hma_seidel_slots(rho * (double)st->bytes);
    } else {
        int d1 = st->d1, d2 = st->d2, D = d1 < d2 ? d1 : d2;
        st->nu = hma_seidel_nu(st, D);
        if (hma_seidel_plan(s, st, d1 + d2) != 0)
            return -1;
        m = (double)st->mpad; /* the formulas' m (seidel.h) */
        hma_plan_busy(st->plan, 0, st->root, hma_seidel_slots(rho * (double)st->bytes));
        last = rh_mesh(st->plan, st);
        /* Section 3.6, the sum of the exchanges with the link capacity itself (it is
         * Table I's closed form whenever nu < min(d1, d2)): the distribution, then
         * step i (from the last) carries m/2^(i+1) bytes over 2^(floor(i/2)-1)
         * circuits a link in the interleaved pairs, 2^(i-D) in the first X steps. */
        double abar = mi->cost_abar, tot = (1 - 1.0 / (1 << (d1 + d2))) * m * a + (d1 + d2) * b +
                                           hma_seidel_slots(rho * (double)st->bytes);
        for (int i = 0; i < d1 + d2; i++) {
            double k = i < 2 * D ? (i / 2 >= 1 ? (double)(1 << (i / 2 - 1)) : 0.5)
                                 : (double)(1 << (i - D));
            double f = k * abar > a ? k * abar : a;
            tot += m / (2 << i) * f + b;
        }
        expr = "(2+(2(d2-d1)-3)/2^(d1+nu+2)+1/2^(2nu+3)-1/2^(d1+d2))*m*a+2(d1+d2)*b+m*rho";
        value = tot;
    }
    out->last = last;
    out->expr = expr;
    out->value = value;
    return 0;
}

static int rh_setup(hm_setup_t *s)
{
    return hma_seidel_setup_with(s, "rh-broadcast", 0, 0, rh_build);
}

const hm_algorithm_t hm_algo_rh_broadcast = {
    .name = "rh-broadcast",
    .description = "recursive halving broadcast of m bytes: distribute, then exchange "
                   "farthest first (link contention by design)",
    .paper = "Seidel 1993, sections 3.5, 3.6, 4.4, 5.2",
    .topologies = HM_BIT(HM_TOPO_LINEAR) | HM_BIT(HM_TOPO_MESH),
    .ports = HM_BIT(HM_PORTS_ONE_PORT_FULL),
    .default_ports = HM_PORTS_ONE_PORT_FULL,
    .specs = rh_specs,
    .needs = HMA_SEIDEL_NEEDS,
    .problem = HM_PROBLEM_BROADCAST,
    .setup = rh_setup,
    .node_main = hma_seidel_node,
    .verify = hma_seidel_verify,
    .teardown = hma_seidel_teardown,
};
