/* SPDX-License-Identifier: MIT */
/*
 * bst-broadcast — bidirectional spanning tree broadcast on circuit-switched linear
 * arrays and meshes (Seidel 1993, sections 3.3, 3.4, 4.3, 5). In src/algo/seidel/
 * with st-broadcast and rh-broadcast: see st-broadcast.c for why.
 *
 * Linear array of 2^d nodes, nu = min(log2 link_capacity, d - 1), M = 2^(d-nu)
 * metanodes of 2^nu consecutive nodes:
 *   1. distribute to the root's metanode j: m/2^nu to each;      (1-2^-nu)ma + nu*b
 *   2. on each interleaved subarray i (nodes = i mod 2^nu) a BST broadcast of the
 *      m/2^nu packet: its node in metanode j sends the second half to its node in
 *      metanode j XOR (M-1) (the far end: Seidel's bit-wise complement, section 4.3);
 *      both halves then go down two spanning trees, one on the metanodes of j's
 *      parity, the other on the rest, with messages of the two trees always moving
 *      in opposite directions; a last step swaps halves between metanodes 2h and
 *      2h+1;                                              (d-nu+1)(ma/2^(nu+1) + b)
 *   3. dimensional exchange, nearest first, in every metanode.  (1-2^-nu)ma + nu*b
 *   Cost (8): (2 + (d-nu-3)/2^(nu+1))ma + (d+nu+1)b; nu = 0 gives (7): (d+1)(ma/2+b).
 *
 * Mesh: variant "simple" is the linear BST on the mesh seen as a linear array of
 * 2^(d1+d2) nodes in row-major order (section 3.4.1, (9): (d1+d2+1)(ma/2+b) for
 * nu = 0). Variant "column-row" (section 3.4.1, first algorithm) is the linear BST
 * down the root's column, then along every row from the root's column: (8) on 2^d1
 * nodes plus (8) on 2^d2, for nu = 0 (d1+d2+2)(ma/2+b). Variant "better" (section
 * 3.4.1, Figures 9 and 10; 3.4.2 for nu > 0, Table I): bst_better_grid below.
 *
 * Every cost above assumes that the P pieces (the summary's "pieces") divide m. For
 * any other m the plan is step-synchronous with pieces of ceil(m/P) bytes and costs
 * the same formula at m' = P*ceil(m/P), m itself in m*rho and in the companions'
 * steps, minus (m'/2 - m)*a when m < P/2 (seidel.h, doc/seidel.md "Message lengths").
 */
#include <stdlib.h>

#include "seidel.h"

static const hm_param_spec_t bst_specs[] = {
    HMA_SEIDEL_SPECS_COMMON,
    HMA_SEIDEL_SPEC_VARIANT(
        "mesh only: the mesh as one linear array (simple), the interleaved submeshes "
        "(better), or a full linear broadcast down the root's column, then along every row "
        "(column-row, section 3.4.1: (d1+d2+2)(ma/2+b))"),
    HM_PARAM_END,
};

/* Linear BST with nu on a line of 2^e logical nodes (e > nu), pieces
 * [first, first + count), count a multiple of 2^(nu+1). Returns the last step. */
static int bst_line(hma_plan_t *p, int step0, const int32_t *line, int e, int root, int nu,
                    int first, int count)
{
    int b = 1 << nu, unit = count / b, half = unit / 2, big = 1 << (e - nu);
    int j0 = root >> nu, jc = j0 ^ (big - 1);
    int32_t *sub = calloc((size_t)1 << (e > nu ? e : nu), sizeof *sub);
    int32_t *cls = malloc(sizeof *cls << (e - nu));
    if (!sub || !cls) {
        free(sub);
        free(cls);
        p->failed = 1;
        return step0;
    }
    /* 1. Distribute in the root's metanode. */
    int s1 = hma_plan_metanode_scatter(p, step0, line, sub, nu, root, first, unit);
    int s2 = s1;
    for (int i = 0; i < b; i++) {
        int f = first + i * unit;
        hma_plan_subarray(sub, line, e, nu, i);
        /* 2a. Second half to the far end. */
        hma_plan_send(p, s1 + 1, sub[j0], sub[jc], f + half, half, 1);
        /* 2b. Two spanning trees on the metanodes of each parity. */
        int s = s1 + 1;
        for (int par = 0; par < 2; par++) {
            int from = par == (j0 & 1) ? j0 : jc;
            for (int h = 0; h < big / 2; h++)
                cls[h] = sub[2 * h + par];
            s = hma_plan_st(p, s1 + 1, cls, e - nu - 1, from >> 1, from == j0 ? f : f + half, half);
        }
        /* 2c. Neighbouring metanodes swap halves. */
        for (int j = 0; j < big; j++) {
            int mine = (j & 1) == (j0 & 1) ? f : f + half;
            hma_plan_send(p, s + 1, sub[j], sub[j ^ 1], mine, half, 1);
        }
        s2 = s + 1;
    }
    /* 3. Exchange in every metanode. */
    int s3 = hma_plan_metanodes_gather(p, s2, line, sub, e, nu, first, unit);
    free(sub);
    free(cls);
    return s3;
}

/* The "better" BST of section 3.4.1 on grid g (e1, e2 >= 1) from (r1, r2), pieces
 * [first, first + 8): the root's 2 x 2 block keeps the even pieces and the block at
 * the opposite corner (block coordinates XOR-ed with all ones, section 4) gets the odd
 * ones, node (a, b) of each holding piece 2(2a + b) (+1 at the far block, Figure 10);
 * each of the eight broadcasts its piece over its class submesh, the two broadcasts of
 * a class running in opposite directions; two exchanges in every 2 x 2 block.
 * Returns the last step. */
static int bst_better_grid(hma_plan_t *p, int step0, const hma_grid_t *g, int r1, int r2, int first)
{
    if (g->e1 == 1 && g->e2 == 1) {
        /* A 2 x 2 grid has no opposite block: the linear BST on its four nodes in
         * snake order, 3(m'a/2 + b) (section 5.2 uses the same on 2 x 2 meshes). */
        int32_t snake[4] = {hma_grid_id(g, 0, 0), hma_grid_id(g, 0, 1), hma_grid_id(g, 1, 1),
                            hma_grid_id(g, 1, 0)};
        int pos = r1 == 0 ? r2 : 3 - r2;
        return bst_line(p, step0, snake, 2, pos, 0, first, 8);
    }
    int c1 = r1 >> 1, c2 = r2 >> 1, sa = r1 & 1, sb = r2 & 1;
    int o1 = c1 ^ ((1 << (g->e1 - 1)) - 1), o2 = c2 ^ ((1 << (g->e2 - 1)) - 1);
    int bc[2][2] = {{c1, c2}, {o1, o2}};
    /* Step 1: the odd pieces to the far block; steps 2 and 3: within both blocks. */
    hma_plan_send(p, step0 + 1, hma_grid_id(g, 2 * c1 + sa, 2 * c2 + sb),
                  hma_grid_id(g, 2 * o1 + sa, 2 * o2 + sb), first + 1, 4, 2);
    for (int f = 0; f < 2; f++) {
        int b1 = 2 * bc[f][0], b2 = 2 * bc[f][1];
        hma_plan_send(p, step0 + 2, hma_grid_id(g, b1 + sa, b2 + sb),
                      hma_grid_id(g, b1 + (sa ^ 1), b2 + sb), first + 4 * (sa ^ 1) + f, 2, 2);
        for (int a = 0; a < 2; a++)
            hma_plan_send(p, step0 + 3, hma_grid_id(g, b1 + a, b2 + sb),
                          hma_grid_id(g, b1 + a, b2 + (sb ^ 1)), first + 2 * (2 * a + (sb ^ 1)) + f,
                          1, 1);
    }
    int last = step0 + 3;
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++)
            for (int f = 0; f < 2; f++)
                last = hma_grid_rb(p, step0 + 3, g, a, b, bc[f][0], bc[f][1],
                                   first + 2 * (2 * a + b) + f, 1);
    return hma_grid_blocks_gather(p, last, g, first, 2);
}

static int bst_build(hm_setup_t *s, hma_seidel_t *st, int32_t *line, hma_seidel_built_t *out)
{
    const hm_machine_info_t *mi = s->machine;
    int e, pos, last = 0;
    double m = (double)st->bytes, a = mi->cost_a, b = mi->cost_b;
    const char *expr = NULL;
    double value = 0;
    int is_line = hma_seidel_line(st, line, &e, &pos);
    if (!is_line && st->colrow) {
        int d1 = st->d1, d2 = st->d2;
        int nu = st->nu = hma_seidel_nu(st, d1 < d2 ? d1 : d2);
        if (hma_seidel_plan(s, st, nu + 1) != 0)
            return -1;
        m = (double)st->mpad; /* the formulas' m (seidel.h) */
        for (int i = 0; i < (1 << d1); i++)
            line[i] = hma_seidel_lid(st, i, st->lj);
        int s1 = bst_line(st->plan, 0, line, d1, st->li, nu, 0, 2 << nu);
        for (int i = 0; i < (1 << d1); i++) {
            for (int j = 0; j < (1 << d2); j++)
                line[j] = hma_seidel_lid(st, i, j);
            last = bst_line(st->plan, s1, line, d2, st->lj, nu, 0, 2 << nu);
        }
        out->last = last;
        out->expr = "(4+(d1+d2-2nu-6)/2^(nu+1))*m*a+(d1+d2+2nu+2)*b";
        out->value =
            (4.0 + (double)(d1 + d2 - 2 * nu - 6) / (2 << nu)) * m * a + (d1 + d2 + 2 * nu + 2) * b;
        return 0;
    }
    if (!is_line && !st->better) {
        /* The mesh as one linear array of 2^(d1+d2) nodes, row-major (section 3.4.1). */
        e = st->d1 + st->d2;
        pos = hma_seidel_lid(st, st->li, st->lj);
        for (int x = 0; x < (1 << e); x++)
            line[x] = x;
        is_line = 1;
    }
    if (is_line) {
        if (e == 0) {
            st->nu = 0;
            if (hma_seidel_plan(s, st, 0) != 0)
                return -1;
            m = (double)st->mpad; /* the formulas' m (seidel.h) */
            expr = "0";
        } else {
            int nu = st->nu = hma_seidel_nu(st, e);
            if (hma_seidel_plan(s, st, nu + 1) != 0)
                return -1;
            m = (double)st->mpad; /* the formulas' m (seidel.h) */
            last = bst_line(st->plan, 0, line, e, pos, nu, 0, 2 << nu);
            expr = "(2+(d-nu-3)/2^(nu+1))*m*a+(d+nu+1)*b";
            value = (2.0 + (double)(e - nu - 3) / (2 << nu)) * m * a + (e + nu + 1) * b;
        }
    } else {
        int d1 = st->d1, d2 = st->d2, mx = d1 > d2 ? d1 : d2;
        int nu = st->nu = hma_seidel_nu(st, d1 < d2 ? d1 : d2);
        if (hma_seidel_plan(s, st, 2 * nu + 3) != 0)
            return -1;
        m = (double)st->mpad; /* the formulas' m (seidel.h) */
        last = hma_seidel_mesh_better(st, nu, 8, bst_better_grid);
        expr = "(2+(2max(d1,d2)-2nu-5)/2^(2nu+3))*m*a+(2max(d1,d2)+2nu+3)*b";
        value = (2.0 + (double)(2 * mx - 2 * nu - 5) / (8 << (2 * nu))) * m * a +
                (2 * mx + 2 * nu + 3) * b;
        if (mx - nu == 1) { /* 2 x 2 submeshes: see bst_better_grid */
            double q = (double)(1 << (2 * nu));
            expr = "2(1-4^-nu)*m*a+4nu*b+3(m*a/2^(2nu+1)+b)";
            value = 2 * (1 - 1 / q) * m * a + 4 * nu * b + 3 * (m * a / (2 * q) + b);
        }
    }
    out->last = last;
    out->expr = expr;
    out->value = value;
    return 0;
}

static int bst_setup(hm_setup_t *s)
{
    return hma_seidel_setup_with(s, "bst-broadcast", 1, 1, bst_build);
}

const hm_algorithm_t hm_algo_bst_broadcast = {
    .name = "bst-broadcast",
    .description = "bidirectional spanning tree broadcast of m bytes, circuit-switched",
    .paper = "Seidel 1993, sections 3.3, 3.4, 4.3, 5",
    .topologies = HM_BIT(HM_TOPO_LINEAR) | HM_BIT(HM_TOPO_MESH),
    .ports = HM_BIT(HM_PORTS_ONE_PORT_FULL),
    .default_ports = HM_PORTS_ONE_PORT_FULL,
    .specs = bst_specs,
    .needs = HMA_SEIDEL_NEEDS,
    .problem = HM_PROBLEM_BROADCAST,
    .setup = bst_setup,
    .node_main = hma_seidel_node,
    .verify = hma_seidel_verify,
    .teardown = hma_seidel_teardown,
};
