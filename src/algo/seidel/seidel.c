/* SPDX-License-Identifier: MIT */
/*
 * seidel.c — see seidel.h.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "seidel.h"

int64_t hma_seidel_slots(double x)
{
    return hma_plan_slots(x);
}

int64_t hma_seidel_msg_cost(const hm_machine_info_t *mi, int k, double bytes)
{
    int64_t factor = ((int64_t)k + mi->link_capacity - 1) / mi->link_capacity;
    int64_t v = hma_seidel_slots((double)factor * mi->cost_a * bytes + mi->cost_b);
    return v < 1 ? 1 : v;
}

static int floor_lg(int n)
{
    int d = 0;
    while ((2 << d) <= n)
        d++;
    return d;
}

/* One axis of n physical positions onto 2^d logical ones (seidel.h). rc is the
 * root's physical position on this axis; *lr gets its logical one. */
static int map_axis(int n, int rc, hma_sizing_t sz, int *d, int32_t **map, int32_t **comp, int *lr)
{
    int f = floor_lg(n), pow2 = (1 << f) == n;
    *d = pow2 || sz == HMA_SIZING_COMPANIONS ? f : f + 1;
    int len = 1 << *d;
    *map = malloc((size_t)len * sizeof **map);
    *comp = malloc((size_t)len * sizeof **comp);
    if (!*map || !*comp)
        return -1;
    int c = pow2 || sz == HMA_SIZING_VIRTUAL ? 0 : n - len;
    for (int v = 0; v < len; v++) {
        (*comp)[v] = -1;
        if (v < c) {
            int a = 2 * v, b = 2 * v + 1;
            (*map)[v] = rc == b ? b : a;
            (*comp)[v] = rc == b ? a : b;
            if (rc == a || rc == b)
                *lr = v;
        } else {
            int x = v + c;
            (*map)[v] = x < n ? x : n - 1; /* virtual positions: the last physical one */
            if (x == rc)
                *lr = v;
        }
    }
    return 0;
}

const char *const hma_seidel_sizings[] = {HMA_SEIDEL_SIZING_MAP(HM_ENUM_NAME) NULL};
const char *const hma_seidel_variants[] = {HMA_SEIDEL_VARIANT_MAP(HM_ENUM_NAME) NULL};

static int oom(hm_setup_t *s)
{
    snprintf(s->error, sizeof s->error, "%s: out of memory in setup",
             s->file ? s->file : "(config)");
    return -1;
}

int hma_seidel_setup(hm_setup_t *s, const char *algo, int allow_virtual, int with_variant,
                     hma_seidel_t **out)
{
    const hm_machine_info_t *mi = s->machine;
    *out = NULL;
    /* Packet routing is refused by the config check (HMA_SEIDEL_NEEDS); the ranges by
     * the specs (HMA_SEIDEL_SPECS_COMMON). */
    int64_t root = hm_param_get_int(s, "root"), bytes = hm_param_get_int(s, "message_bytes");
    hma_sizing_t sz = (hma_sizing_t)hm_param_get_enum(s, "sizing");
    int variant = with_variant ? hm_param_get_enum(s, "variant") : HMA_SEIDEL_BETTER;
    int better = variant == HMA_SEIDEL_BETTER;
    if ((double)bytes * mi->nodes > 512.0 * 1024 * 1024) {
        char found[96];
        snprintf(found, sizeof found, "%lld bytes on %d nodes", (long long)bytes, mi->nodes);
        return hm_setup_fail(s, "message_bytes", found,
                             "at most 512 MiB of buffers in all (bytes x nodes)");
    }
    int nu_cap = floor_lg(mi->link_capacity);
    int mesh = mi->topology == HM_TOPO_MESH;
    if (sz == HMA_SIZING_VIRTUAL) {
        char found[64];
        snprintf(found, sizeof found, "\"virtual-nodes\"");
        if (!allow_virtual)
            return hm_setup_fail(s, "sizing", found,
                                 "\"companions\" (virtual nodes would make the last node "
                                 "carry the exchanges of the ones it simulates, section 5.1)");
        if (nu_cap > 0)
            return hm_setup_fail(s, "sizing", found,
                                 "\"companions\" when link_capacity > 1 (virtual nodes apply "
                                 "to nu = 0 only, section 5.3)");
        if (mesh && variant != HMA_SEIDEL_SIMPLE)
            return hm_setup_fail(s, "sizing", found,
                                 "\"companions\" with a variant other than \"simple\" (virtual "
                                 "nodes apply to the simple mesh variants only, section 5.1)");
    }

    hma_seidel_t *st = calloc(1, sizeof *st);
    if (!st)
        return oom(s);
    *out = st;
    snprintf(st->algo, sizeof st->algo, "%s", algo);
    st->mesh = mesh;
    st->n1 = mesh ? mi->rows : 1;
    st->n2 = mesh ? mi->cols : mi->nodes;
    st->nu_cap = nu_cap;
    st->root = (int)root;
    st->bytes = bytes;
    st->sizing = sz;
    st->better = better;
    st->colrow = variant == HMA_SEIDEL_COLUMN_ROW;
    if (map_axis(st->n1, st->root / st->n2, sz, &st->d1, &st->rowmap, &st->rowcomp, &st->li) ||
        map_axis(st->n2, st->root % st->n2, sz, &st->d2, &st->colmap, &st->colcomp, &st->lj))
        return oom(s);
    if (st->d1 + st->d2 > 15) {
        snprintf(s->error, sizeof s->error,
                 "%s: algorithm.sizing: found \"virtual-nodes\" making %d x %d nodes a "
                 "logical 2^%d x 2^%d mesh; allowed: at most 2^15 logical nodes "
                 "(\"companions\")",
                 s->file ? s->file : "(config)", st->n1, st->n2, st->d1, st->d2);
        return -1;
    }
    st->msg = malloc((size_t)bytes);
    if (!st->msg)
        return oom(s);
    s->out_size = (size_t)bytes; /* each node's copy of the message: its output area */
    /* The message: xorshift64* bytes from the seed, so that a misplaced piece shows. */
    uint64_t x = mi->seed * UINT64_C(0x9E3779B97F4A7C15) + 0x1234567u;
    for (int64_t i = 0; i < bytes; i++) {
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        st->msg[i] = (unsigned char)((x * UINT64_C(2685821657736338717)) >> 56);
    }
    return 0;
}

int hma_seidel_plan(hm_setup_t *s, hma_seidel_t *st, int bits)
{
    int l1 = 1 << st->d1, l2 = 1 << st->d2, nodes = st->n1 * st->n2;
    /* Every node keeps one flag per piece while it runs. */
    if ((double)nodes * (double)(1 << bits) > (double)(1 << 27)) {
        snprintf(s->error, sizeof s->error,
                 "%s: topology: found %d nodes and a message cut into %d pieces; allowed: "
                 "nodes x pieces <= 2^27 (%s on fewer nodes)",
                 s->file ? s->file : "(config)", nodes, 1 << bits, st->algo);
        return -1;
    }
    int32_t *map = malloc((size_t)l1 * (size_t)l2 * sizeof *map);
    if (!map)
        return oom(s);
    for (int i = 0; i < l1; i++)
        for (int j = 0; j < l2; j++)
            map[(i << st->d2) + j] = st->rowmap[i] * st->n2 + st->colmap[j];
    st->plan = hma_plan_new(nodes, l1 * l2, map, st->bytes, bits, st->root);
    free(map);
    if (!st->plan)
        return oom(s);
    /* The length the formulas see: m padded to a multiple of the pieces (seidel.h). */
    int64_t P = st->plan->pieces;
    st->mpad = (st->bytes + P - 1) / P * P;
    /* Virtual nodes: the last node simulates many, and receives each piece once. */
    st->plan->dedup = st->sizing == HMA_SIZING_VIRTUAL;
    return 0;
}

/* Costs so large that the broadcast would last more than HMA_PLAN_MAX_SLOTS slots:
 * refused, so that no slot count overflows (doc/config.md "Config ranges"). */
static int too_long(hm_setup_t *s, const hma_seidel_t *st, const char *what)
{
    const hm_machine_info_t *mi = s->machine;
    snprintf(s->error, sizeof s->error,
             "%s: ports.cost: found a = %g, b = %g, rho = %g: %s of %lld bytes would last more "
             "than 2^53 slots (%s); allowed: costs and message_bytes for which the broadcast "
             "lasts at most 2^53 slots",
             s->file ? s->file : "(config)", mi->cost_a, mi->cost_b, mi->cost_rho, st->algo,
             (long long)st->bytes, what);
    return -1;
}

int hma_seidel_finish(hm_setup_t *s, hma_seidel_t *st, int last_step)
{
    int l1 = 1 << st->d1, l2 = 1 << st->d2, n2 = st->n2, all = st->plan->pieces;
    int rows = 0, cols = 0, both = 0;
    for (int i = 0; i < l1; i++)
        rows |= st->rowcomp[i] >= 0;
    for (int j = 0; j < l2; j++)
        cols |= st->colcomp[j] >= 0;
    /* Section 5.2: a full node with companions on both axes reaches its three with the
     * cheaper of a 2 x 2 ST broadcast, 2(ma + b), and a 2 x 2 BST broadcast,
     * 3(ma/2 + b), which wins when b < ma/2. */
    const hm_machine_info_t *mi = s->machine;
    double m = (double)st->bytes;
    both = rows && cols;
    st->companion_bst = both && all >= 2 && st->mpad == st->bytes &&
                        3 * hma_seidel_msg_cost(mi, 1, m / 2) < 2 * hma_seidel_msg_cost(mi, 1, m);
    for (int i = 0; i < l1; i++)
        for (int j = 0; j < l2; j++) {
            int r = st->rowmap[i], c = st->colmap[j], rc = st->rowcomp[i], cc = st->colcomp[j];
            int full = r * n2 + c, t = last_step;
            if (rc >= 0 && cc >= 0 && st->companion_bst) {
                /* BST on the snake full, right, diagonal, below (section 3.3.1 on 4
                 * nodes): the second half to the far end (below), each half to the
                 * middle of the other class, then the pairs swap. */
                int right = r * n2 + cc, diag = rc * n2 + cc, below = rc * n2 + c, h = all / 2;
                hma_plan_send_phys(st->plan, t + 1, full, below, h, h, 1);
                hma_plan_send_phys(st->plan, t + 2, full, diag, 0, h, 1);
                hma_plan_send_phys(st->plan, t + 2, below, right, h, h, 1);
                hma_plan_send_phys(st->plan, t + 3, full, right, 0, h, 1);
                hma_plan_send_phys(st->plan, t + 3, diag, below, 0, h, 1);
                hma_plan_send_phys(st->plan, t + 3, below, diag, h, h, 1);
            } else if (rc >= 0) {
                /* The 2 x 2 ST: the column companion first, then the row ones. */
                hma_plan_send_phys(st->plan, t + 1, full, rc * n2 + c, 0, all, 1);
                if (cc >= 0) {
                    hma_plan_send_phys(st->plan, t + 2, full, r * n2 + cc, 0, all, 1);
                    hma_plan_send_phys(st->plan, t + 2, rc * n2 + c, rc * n2 + cc, 0, all, 1);
                }
            } else if (cc >= 0) {
                hma_plan_send_phys(st->plan, t + 1, full, r * n2 + cc, 0, all, 1);
            }
        }
    st->companion_steps = st->companion_bst ? 3 : rows + cols;
    hma_plan_finish(st->plan);
    if (st->plan->failed)
        return oom(s);
    /* Every step of the paper's plan is timed (circuit_plan.h): the steps are
     * synchronous in the paper's analysis, and a node that ran ahead (a node simulating
     * virtual nodes has idle steps, section 5.1; the delayed classes of the "better"
     * mesh variants, section 3.2.1; a piece a byte shorter than its neighbour when the
     * pieces do not divide m) would meet another message at a receive port. */
    int rc = hma_plan_time(st->plan, s->machine, last_step);
    if (rc == -2)
        return too_long(s, st, "its plan's steps");
    if (rc == -3) {
        snprintf(s->error, sizeof s->error,
                 "%s: %s: internal error: its plan has a node sending or receiving twice in "
                 "one step (not step-synchronous); please report it",
                 s->file ? s->file : "(config)", st->algo);
        return -1;
    }
    if (rc != 0)
        return oom(s);
    return 0;
}

void hma_seidel_node(hm_node_t *n, void *state)
{
    hma_seidel_t *st = state;
    hma_plan_node(n, st->plan, st->msg, hm_out(n));
}

/* A lower bound for any broadcast of m bytes in the a*m+b model (doc/seidel.md, "Lower
 * bound"): a node transmits one message at a time and every message lasts ceil(a+b)
 * slots at least, so the nodes that hold the first byte at most double every ceil(a+b)
 * slots; and a node receives one message at a time, all m bytes, in messages that last
 * ceil(a*m+b) slots together at least (ceil(a*x+b) + ceil(a*y+b) >= ceil(a*(x+y)+b)). */
static void seidel_lower(hm_report_t *r, const hma_seidel_t *st)
{
    const hm_machine_info_t *mi = r->machine;
    int lg = 0;
    while ((1 << lg) < mi->nodes)
        lg++;
    int64_t doubling = lg * hma_seidel_msg_cost(mi, 1, 1);
    int64_t receive = hma_seidel_msg_cost(mi, 1, (double)st->bytes);
    r->lower = doubling > receive ? doubling : receive;
    r->lower_expr = doubling > receive ? "ceil(log2(p))*ceil(a+b)" : "ceil(a*m+b)";
}

void hma_seidel_verify(hm_report_t *r)
{
    const hma_seidel_t *st = r->state;
    int bad = -1;
    for (int x = 0; x < r->machine->nodes && bad < 0; x++) {
        size_t k;
        (void)hm_report_stores(r, x, &k);
        const void *buf = hm_report_out(r, x);
        if (k != 1 || !buf || memcmp(buf, st->msg, (size_t)st->bytes) != 0)
            bad = x;
    }
    r->verified = bad < 0;
    /* Each node's one store (its copy's checksum) says it holds the root's message. */
    for (int x = 0; x < r->machine->nodes && bad < 0; x++)
        hm_report_from(r, x, 0, 1, st->root);
    if (bad < 0)
        snprintf(r->verification, sizeof r->verification,
                 "every node holds the %lld bytes of node %d's message, byte for byte",
                 (long long)st->bytes, st->root);
    else
        snprintf(r->verification, sizeof r->verification,
                 "node %d does not hold node %d's message of %lld bytes", bad, st->root,
                 (long long)st->bytes);
    r->bound_expr = st->bound_expr;
    r->bound = st->bound_expr ? st->bound : -1;
    seidel_lower(r, st);
    json_t *e = r->extra;
    json_object_set_new(e, "root", json_integer(st->root));
    json_object_set_new(e, "message_bytes", json_integer(st->bytes));
    json_object_set_new(e, "nu", json_integer(st->nu));
    json_object_set_new(e, "d1", json_integer(st->d1));
    json_object_set_new(e, "d2", json_integer(st->d2));
    json_object_set_new(
        e, "sizing",
        json_string(st->sizing == HMA_SIZING_VIRTUAL ? "virtual-nodes" : "companions"));
    json_object_set_new(e, "companion_steps", json_integer(st->companion_steps));
    if (st->companion_bst)
        json_object_set_new(e, "companion_broadcast", json_string("bst 2x2"));
    json_object_set_new(e, "pieces", json_integer(st->plan->pieces));
    json_object_set_new(e, "steps", json_integer(st->plan->last_step));
}

void hma_seidel_teardown(void *state)
{
    hma_seidel_t *st = state;
    if (!st)
        return;
    hma_plan_free(st->plan);
    free(st->rowmap);
    free(st->colmap);
    free(st->rowcomp);
    free(st->colcomp);
    free(st->msg);
    free(st);
}

int hma_seidel_line(const hma_seidel_t *st, int32_t *line, int *e, int *pos)
{
    if (st->d1 != 0 && st->d2 != 0)
        return 0;
    int rows = st->d2 == 0;
    *e = rows ? st->d1 : st->d2;
    *pos = rows ? st->li : st->lj;
    for (int x = 0; x < (1 << *e); x++)
        line[x] = rows ? hma_seidel_lid(st, x, 0) : hma_seidel_lid(st, 0, x);
    return 1;
}

int hma_seidel_nu(const hma_seidel_t *st, int e)
{
    int nu = st->nu_cap < e - 1 ? st->nu_cap : e - 1;
    return nu > 0 ? nu : 0;
}

void hma_seidel_bound(hma_seidel_t *st, const hm_machine_info_t *mi, const char *expr, double value)
{
    /* For m the pieces do not divide, the formula is taken at m' (seidel.h): say so
     * next to it, before the companions' steps, which are at m. */
    char core[200];
    int P = st->plan->pieces;
    if (st->mpad != st->bytes) {
        int small = P >= 2 && 2 * st->bytes < P;
        snprintf(core, sizeof core, "[%s at m' = %lld = %d*ceil(m/%d)%s]", expr,
                 (long long)st->mpad, P, P, small ? ", - (m'/2-m)*a" : "");
        /* The pieces past m are empty: the last step, whose halves carry m'/2 bytes
         * when m >= P/2, carries m bytes (circuit_plan.h). */
        if (small)
            value -= ((double)st->mpad / 2 - (double)st->bytes) * mi->cost_a;
    } else {
        snprintf(core, sizeof core, "%s", expr);
    }
    st->bound = hma_seidel_slots(value);
    if (st->companion_bst) {
        st->bound += 3 * hma_seidel_msg_cost(mi, 1, (double)st->bytes / 2);
        snprintf(st->expr, sizeof st->expr, "%s + 3*(m*a/2+b)", core);
    } else if (st->companion_steps > 0) {
        st->bound += st->companion_steps * hma_seidel_msg_cost(mi, 1, (double)st->bytes);
        snprintf(st->expr, sizeof st->expr, "%s + %d*(m*a+b)", core, st->companion_steps);
    } else {
        snprintf(st->expr, sizeof st->expr, "%s", core);
    }
    st->bound_expr = st->expr;
}

/* ---- meshes ---------------------------------------------------------------------- */

static int grid_line_col(const hma_grid_t *g, int j, int32_t *line)
{
    for (int i = 0; i < (1 << g->e1); i++)
        line[i] = hma_grid_id(g, i, j);
    return g->e1;
}

static int grid_line_row(const hma_grid_t *g, int i, int32_t *line)
{
    for (int j = 0; j < (1 << g->e2); j++)
        line[j] = hma_grid_id(g, i, j);
    return g->e2;
}

int hma_grid_st(hma_plan_t *p, const hma_grid_t *g, int r1, int r2, int col_first, int step1,
                int step2, int first, int count)
{
    int32_t line[1 << 15];
    int last;
    if (col_first) {
        last = hma_plan_st(p, step1, line, grid_line_col(g, r2, line), r1, first, count);
        for (int i = 0; i < (1 << g->e1); i++)
            last = hma_plan_st(p, step2, line, grid_line_row(g, i, line), r2, first, count);
    } else {
        last = hma_plan_st(p, step1, line, grid_line_row(g, r1, line), r2, first, count);
        for (int j = 0; j < (1 << g->e2); j++)
            last = hma_plan_st(p, step2, line, grid_line_col(g, j, line), r1, first, count);
    }
    return last;
}

int hma_grid_rb(hma_plan_t *p, int base, const hma_grid_t *g, int a, int b, int r1, int r2,
                int first, int count)
{
    hma_grid_t t = {g->st,     g->o1 + g->s1 * a, 2 * g->s1, g->e1 - 1, g->o2 + g->s2 * b,
                    2 * g->s2, g->e2 - 1};
    int red = (a + b) % 2 == 0, E1 = t.e1, E2 = t.e2, L = E1 > E2 ? E1 : E2;
    /* The class whose first phase runs along the longer axis starts at once; the
     * other starts its shorter first phase |E1 - E2| steps late, so that both second
     * phases begin at step base + L + 1. */
    int first_len = red ? E1 : E2;
    int step1 = base + (L - first_len), step2 = base + L;
    hma_grid_st(p, &t, r1, r2, red, step1, step2, first, count);
    return base + 2 * L;
}

int hma_grid_scatter(hma_plan_t *p, int step0, const hma_grid_t *g, int r1, int r2, int first,
                     int unit)
{
    int32_t line[1 << 15];
    int s =
        hma_plan_scatter(p, step0, line, grid_line_col(g, r2, line), r1, first, unit << g->e2, 0);
    int last = s;
    for (int i = 0; i < (1 << g->e1); i++) {
        int32_t row[1 << 15];
        grid_line_row(g, i, row);
        /* The node of the root's column holds row i's pieces. */
        last = hma_plan_scatter(p, s, row, g->e2, r2, first + (i << g->e2) * unit, unit, 0);
    }
    return last;
}

int hma_grid_gather(hma_plan_t *p, int step0, const hma_grid_t *g, int first, int unit)
{
    int32_t line[1 << 15];
    int s = step0;
    for (int i = 0; i < (1 << g->e1); i++)
        s = hma_plan_gather(p, step0, line, grid_line_row(g, i, line), first + (i << g->e2) * unit,
                            unit);
    int last = s;
    for (int j = 0; j < (1 << g->e2); j++)
        last = hma_plan_gather(p, s, line, grid_line_col(g, j, line), first, unit << g->e2);
    return last;
}

int hma_grid_blocks_gather(hma_plan_t *p, int step0, const hma_grid_t *g, int first, int unit)
{
    int end = step0;
    for (int bi = 0; bi < (1 << (g->e1 - 1)); bi++)
        for (int bj = 0; bj < (1 << (g->e2 - 1)); bj++) {
            hma_grid_t blk = {
                g->st, g->o1 + 2 * bi * g->s1, g->s1, 1, g->o2 + 2 * bj * g->s2, g->s2, 1};
            end = hma_grid_gather(p, step0, &blk, first, unit);
        }
    return end;
}

int hma_seidel_mesh_better(hma_seidel_t *st, int nu, int pieces, hma_grid_bcast_fn bcast)
{
    hma_plan_t *p = st->plan;
    int B = 1 << nu, i0 = st->li >> nu, j0 = st->lj >> nu;
    hma_grid_t blk = {st, i0 * B, 1, nu, j0 * B, 1, nu};
    int s = hma_grid_scatter(p, 0, &blk, st->li & (B - 1), st->lj & (B - 1), 0, pieces);
    int s2 = s;
    for (int ii = 0; ii < B; ii++)
        for (int jj = 0; jj < B; jj++) {
            hma_grid_t sub = {st, ii, B, st->d1 - nu, jj, B, st->d2 - nu};
            s2 = bcast(p, s, &sub, i0, j0, (ii * B + jj) * pieces);
        }
    int last = s2;
    for (int bi = 0; bi < (1 << (st->d1 - nu)); bi++)
        for (int bj = 0; bj < (1 << (st->d2 - nu)); bj++) {
            hma_grid_t g = {st, bi * B, 1, nu, bj * B, 1, nu};
            last = hma_grid_gather(p, s2, &g, 0, pieces);
        }
    return last;
}

int hma_seidel_setup_with(hm_setup_t *s, const char *algo, int allow_virtual, int with_variant,
                          hma_seidel_build_fn build)
{
    hma_seidel_t *st;
    if (hma_seidel_setup(s, algo, allow_virtual, with_variant, &st) != 0) {
        hma_seidel_teardown(st);
        return -1;
    }
    int32_t *line = malloc(sizeof *line << 15);
    hma_seidel_built_t out = {0, NULL, 0};
    if (!line || build(s, st, line, &out) != 0 || hma_seidel_finish(s, st, out.last) != 0) {
        free(line);
        hma_seidel_teardown(st);
        return -1;
    }
    hma_seidel_bound(st, s->machine, out.expr, out.value);
    free(line);
    if (st->bound >= HMA_PLAN_MAX_SLOTS) {
        too_long(s, st, "its bound");
        hma_seidel_teardown(st);
        return -1;
    }
    s->state = st;
    return 0;
}
