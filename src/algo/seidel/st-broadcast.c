/* SPDX-License-Identifier: MIT */
/*
 * st-broadcast — spanning tree broadcast on circuit-switched linear arrays and meshes
 * (Seidel 1993, sections 3.1, 3.2, 4.1, 4.2, 5).
 *
 * One file per registered name, for both topologies: the mesh algorithms are built
 * from the linear ones (a column, then rows) and share their code, and the three
 * Seidel broadcasts share their parameters, sizing and node program through
 * src/algo/seidel/seidel.c and circuit_plan.c. This is why they live in
 * src/algo/seidel/ rather than under one topology.
 *
 * Linear array of 2^d nodes, nu = min(log2 link_capacity, d - 1):
 *   1. distribute the message to the 2^nu nodes of the root's metanode (its block of
 *      2^nu consecutive nodes), spanning tree rooted at the root; (1-2^-nu)ma + nu*b
 *   2. each of them broadcasts its packet of m/2^nu bytes over its interleaved
 *      subarray (nodes = i mod 2^nu) with a spanning tree whose positions are XOR-ed
 *      with the root's metanode (section 4.2); (d-nu)(ma/2^nu + b)
 *   3. dimensional exchange, nearest first, in every metanode; (1-2^-nu)ma + nu*b
 *   Cost (2): (2 + (d-nu-2)/2^nu)ma + (d+nu)b; nu = 0 gives (1): d(ma+b).
 *   No link or port contention from any root (section 4.1): the tests run it under
 *   "strict".
 *
 * Mesh 2^d1 x 2^d2, variant "simple" (section 3.2.1 and the five phases of 3.2.2):
 *   the message goes down the root's column, then along every row (along the root's
 *   row first, then the columns, when d1 > d2, as the paper advises); with nu > 0 the
 *   column phase stops before its exchange, the rows carry m/2^(2nu) pieces and a
 *   final exchange in every 2^nu x 2^nu block rebuilds the message. Cost
 *   (1-2^-nu)ma + nu*b + (d1-nu)(ma/2^nu+b) + (1-2^-nu)ma/2^nu + nu*b
 *   + (d2-nu)(ma/2^(2nu)+b) + (1-2^-2nu)ma + 2nu*b; the paper's sum (4) is larger by
 *   (1-2^-nu)^2 ma (its phases add up to this; doc/seidel.md, "Equation (4)"); nu = 0:
 *   (d1+d2)(ma+b).
 * Mesh, variant "column-row" (section 3.2.2, equation (3)): the linear ST above, with
 *   its distribution and its collection, down the root's column, then the same along
 *   every row from the root's column: (2) on 2^d1 nodes plus (2) on 2^d2,
 *   (4 + (d1+d2-2nu-4)/2^nu)ma + (d1+d2+2nu)b; nu = 0: (d1+d2)(ma+b), as "simple".
 *   Equation (4)'s five phases ("simple") are cheaper for nu > 0.
 * Mesh, variant "better" (sections 3.2.1 and 3.2.2, Table I):
 *   1. distribute to the 2^nu x 2^nu block of the root: m/2^(2nu) to each;
 *   2. each of them runs, on its interleaved submesh of 2^(d1-nu) x 2^(d2-nu) nodes,
 *      the "better" ST: distribute to the 2 x 2 corner block of the submesh, ST
 *      broadcasts of the four quarters with alternating orientation (red cells column
 *      first, black cells row first, the shorter axis delayed by |d1-d2| steps), then
 *      two exchanges inside every 2 x 2 block;
 *   3. dimensional exchange in every 2^nu x 2^nu block.
 *   Table I: (2 + (max(d1,d2)-nu-2)/2^(2nu+1))ma + (2max(d1,d2)+2nu+2)b.
 *   From a root other than (0,0) the trees are XOR-ed with the root's block and
 *   submesh coordinates (the paper's conjecture, section 4).
 *
 * Every cost above assumes that the P pieces (the summary's "pieces") divide m. For
 * any other m the plan is step-synchronous with pieces of ceil(m/P) bytes and costs
 * the same formula at m' = P*ceil(m/P), m itself in m*rho and in the companions'
 * steps, minus (m'/2 - m)*a when m < P/2 (seidel.h, doc/seidel.md "Message lengths").
 */
#include <stdlib.h>

#include "seidel.h"

static const hm_param_spec_t st_specs[] = {
    HMA_SEIDEL_SPECS_COMMON,
    HMA_SEIDEL_SPEC_VARIANT(
        "mesh only: column-then-rows (simple), the interleaved submeshes (better), or a "
        "full linear broadcast down the root's column, then along every row (column-row, "
        "equation (3))"),
    HM_PARAM_END,
};

/* Linear ST with nu on a line of 2^e logical nodes, pieces [first, first + count),
 * count a multiple of 2^nu. Returns the last step. */
static int st_line(hma_plan_t *p, int step0, const int32_t *line, int e, int root, int nu,
                   int first, int count)
{
    int b = 1 << nu, unit = count / b, j0 = root >> nu;
    int32_t *sub = calloc((size_t)1 << (e > nu ? e : nu), sizeof *sub);
    if (!sub) {
        p->failed = 1;
        return step0;
    }
    /* 1. Distribute in the root's metanode. */
    int s = hma_plan_metanode_scatter(p, step0, line, sub, nu, root, first, unit);
    /* 2. ST on each interleaved subarray, rooted at the root's metanode. */
    int s2 = s;
    for (int i = 0; i < b; i++) {
        hma_plan_subarray(sub, line, e, nu, i);
        s2 = hma_plan_st(p, s, sub, e - nu, j0, first + i * unit, unit);
    }
    /* 3. Exchange in every metanode. */
    int s3 = hma_plan_metanodes_gather(p, s2, line, sub, e, nu, first, unit);
    free(sub);
    return s3;
}

/* Node (x, y) of the mesh seen with its first broadcast axis first: x along the
 * first axis (a row index when columns go first), y along the second. */
static int at(const hma_seidel_t *st, int rows_first, int x, int y)
{
    return rows_first ? hma_seidel_lid(st, y, x) : hma_seidel_lid(st, x, y);
}

/* Mesh, variant "simple" (section 3.2.1; with nu > 0 the five phases of 3.2.2). The
 * first axis carries packets of m/2^nu bytes, the second m/2^(2nu): the root's column
 * goes first, or its row when d1 > d2 (the paper's remark after equation (4)). */
static int st_mesh_simple(hma_seidel_t *st, int nu, int rf)
{
    hma_plan_t *p = st->plan;
    int dx = rf ? st->d2 : st->d1, dy = rf ? st->d1 : st->d2;
    int rx = rf ? st->lj : st->li, ry = rf ? st->li : st->lj;
    int B = 1 << nu, x0 = rx >> nu, y0 = ry >> nu;
    int32_t *line = calloc((size_t)1 << 15, sizeof *line);
    if (!line) {
        p->failed = 1;
        return 0;
    }
    /* 1. Distribute in the root's block of the first axis; 2. ST along its
     *    subarrays. */
    for (int xx = 0; xx < B; xx++)
        line[xx] = at(st, rf, x0 * B + xx, ry);
    int s = hma_plan_scatter(p, 0, line, nu, rx & (B - 1), 0, B, 0), s2 = s;
    for (int xx = 0; xx < B; xx++) {
        for (int j = 0; j < (1 << (dx - nu)); j++)
            line[j] = at(st, rf, j * B + xx, ry);
        s2 = hma_plan_st(p, s, line, dx - nu, x0, xx * B, B);
    }
    /* 3. Each node of that line distributes along its second-axis block; 4. ST along
     *    the second-axis subarrays. */
    int s3 = s2, s4 = s2;
    for (int x = 0; x < (1 << dx); x++) {
        for (int yy = 0; yy < B; yy++)
            line[yy] = at(st, rf, x, y0 * B + yy);
        s3 = hma_plan_scatter(p, s2, line, nu, ry & (B - 1), (x & (B - 1)) * B, 1, 0);
    }
    for (int x = 0; x < (1 << dx); x++)
        for (int yy = 0; yy < B; yy++) {
            for (int j = 0; j < (1 << (dy - nu)); j++)
                line[j] = at(st, rf, x, j * B + yy);
            s4 = hma_plan_st(p, s3, line, dy - nu, y0, (x & (B - 1)) * B + yy, 1);
        }
    /* 5. Exchange in every 2^nu x 2^nu block: node (xx, yy) of a block holds piece
     *    xx*2^nu + yy; nearest first along the second axis, then the first. */
    int last = s4, s5 = s4;
    for (int bx = 0; bx < (1 << (dx - nu)); bx++)
        for (int by = 0; by < (1 << (dy - nu)); by++) {
            for (int xx = 0; xx < B; xx++) {
                for (int yy = 0; yy < B; yy++)
                    line[yy] = at(st, rf, bx * B + xx, by * B + yy);
                s5 = hma_plan_gather(p, s4, line, nu, xx * B, 1);
            }
            for (int yy = 0; yy < B; yy++) {
                for (int xx = 0; xx < B; xx++)
                    line[xx] = at(st, rf, bx * B + xx, by * B + yy);
                last = hma_plan_gather(p, s5, line, nu, 0, B);
            }
        }
    free(line);
    return last;
}

/* The "better" ST of section 3.2.1 on grid g (e1, e2 >= 1) from (r1, r2): the four
 * quarters [first, first + 4) to the 2 x 2 block of the root, four class broadcasts,
 * two exchanges in every 2 x 2 block. Returns the last step. */
static int st_better_grid(hma_plan_t *p, int step0, const hma_grid_t *g, int r1, int r2, int first)
{
    int c1 = r1 >> 1, c2 = r2 >> 1, sa = r1 & 1, sb = r2 & 1;
    /* Node (a, b) of the root's 2 x 2 block gets quarter 2a + b. */
    hma_plan_send(p, step0 + 1, hma_grid_id(g, 2 * c1 + sa, 2 * c2 + sb),
                  hma_grid_id(g, 2 * c1 + (sa ^ 1), 2 * c2 + sb), first + 2 * (sa ^ 1), 2, 1);
    for (int a = 0; a < 2; a++)
        hma_plan_send(p, step0 + 2, hma_grid_id(g, 2 * c1 + a, 2 * c2 + sb),
                      hma_grid_id(g, 2 * c1 + a, 2 * c2 + (sb ^ 1)), first + 2 * a + (sb ^ 1), 1,
                      1);
    int last = step0 + 2;
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++)
            last = hma_grid_rb(p, step0 + 2, g, a, b, c1, c2, first + 2 * a + b, 1);
    return hma_grid_blocks_gather(p, last, g, first, 1);
}

static int st_build(hm_setup_t *s, hma_seidel_t *st, int32_t *line, hma_seidel_built_t *out)
{
    const hm_machine_info_t *mi = s->machine;
    int e, pos, last = 0;
    double m = (double)st->bytes, a = mi->cost_a, b = mi->cost_b;
    const char *expr = NULL;
    double value = 0;
    if (hma_seidel_line(st, line, &e, &pos)) {
        int nu = st->nu = hma_seidel_nu(st, e);
        if (hma_seidel_plan(s, st, nu) != 0)
            return -1;
        m = (double)st->mpad; /* the formulas' m (seidel.h) */
        last = st_line(st->plan, 0, line, e, pos, nu, 0, 1 << nu);
        expr = "(2+(d-nu-2)/2^nu)*m*a+(d+nu)*b";
        value = (2.0 + (double)(e - nu - 2) / (1 << nu)) * m * a + (e + nu) * b;
    } else if (st->colrow) {
        int d1 = st->d1, d2 = st->d2;
        int nu = st->nu = hma_seidel_nu(st, d1 < d2 ? d1 : d2);
        if (hma_seidel_plan(s, st, nu) != 0)
            return -1;
        m = (double)st->mpad; /* the formulas' m (seidel.h) */
        /* Down the root's column, then along every row from it. */
        for (int i = 0; i < (1 << d1); i++)
            line[i] = hma_seidel_lid(st, i, st->lj);
        int s1 = st_line(st->plan, 0, line, d1, st->li, nu, 0, 1 << nu);
        for (int i = 0; i < (1 << d1); i++) {
            for (int j = 0; j < (1 << d2); j++)
                line[j] = hma_seidel_lid(st, i, j);
            last = st_line(st->plan, s1, line, d2, st->lj, nu, 0, 1 << nu);
        }
        expr = "(4+(d1+d2-2nu-4)/2^nu)*m*a+(d1+d2+2nu)*b";
        value = (4.0 + (double)(d1 + d2 - 2 * nu - 4) / (1 << nu)) * m * a + (d1 + d2 + 2 * nu) * b;
    } else if (!st->better) {
        int d1 = st->d1, d2 = st->d2;
        int nu = st->nu = hma_seidel_nu(st, d1 < d2 ? d1 : d2);
        double q = 1 << nu;
        if (hma_seidel_plan(s, st, 2 * nu) != 0)
            return -1;
        m = (double)st->mpad; /* the formulas' m (seidel.h) */
        int rf = d1 > d2;     /* the shorter axis first */
        last = st_mesh_simple(st, nu, rf);
        if (rf) {
            d1 = st->d2;
            d2 = st->d1;
        }
        expr = rf ? "(1-2^-nu)ma+nu*b+(d2-nu)(ma/2^nu+b)+(1-2^-nu)ma/2^nu+nu*b"
                    "+(d1-nu)(ma/4^nu+b)+(1-4^-nu)ma+2nu*b"
                  : "(1-2^-nu)ma+nu*b+(d1-nu)(ma/2^nu+b)+(1-2^-nu)ma/2^nu+nu*b"
                    "+(d2-nu)(ma/4^nu+b)+(1-4^-nu)ma+2nu*b";
        value = (1 - 1 / q) * m * a + nu * b + (d1 - nu) * (m * a / q + b) +
                (1 - 1 / q) * m * a / q + nu * b + (d2 - nu) * (m * a / (q * q) + b) +
                (1 - 1 / (q * q)) * m * a + 2 * nu * b;
    } else {
        int d1 = st->d1, d2 = st->d2, mx = d1 > d2 ? d1 : d2;
        int nu = st->nu = hma_seidel_nu(st, d1 < d2 ? d1 : d2);
        if (hma_seidel_plan(s, st, 2 * nu + 2) != 0)
            return -1;
        m = (double)st->mpad; /* the formulas' m (seidel.h) */
        last = hma_seidel_mesh_better(st, nu, 4, st_better_grid);
        expr = "(2+(max(d1,d2)-nu-2)/2^(2nu+1))*m*a+(2max(d1,d2)+2nu+2)*b";
        value = (2.0 + (double)(mx - nu - 2) / (2 << (2 * nu))) * m * a + (2 * mx + 2 * nu + 2) * b;
    }
    out->last = last;
    out->expr = expr;
    out->value = value;
    return 0;
}

static int st_setup(hm_setup_t *s)
{
    return hma_seidel_setup_with(s, "st-broadcast", 1, 1, st_build);
}

const hm_algorithm_t hm_algo_st_broadcast = {
    .name = "st-broadcast",
    .description = "spanning tree broadcast of m bytes, circuit-switched (interleaved "
                   "subarrays when link_capacity = 2^nu > 1)",
    .paper = "Seidel 1993, sections 3.1, 3.2, 4.1, 4.2, 5",
    .topologies = HM_BIT(HM_TOPO_LINEAR) | HM_BIT(HM_TOPO_MESH),
    .ports = HM_BIT(HM_PORTS_ONE_PORT_FULL),
    .default_ports = HM_PORTS_ONE_PORT_FULL,
    .specs = st_specs,
    .needs = HMA_SEIDEL_NEEDS,
    .problem = HM_PROBLEM_BROADCAST,
    .setup = st_setup,
    .node_main = hma_seidel_node,
    .verify = hma_seidel_verify,
    .teardown = hma_seidel_teardown,
};
