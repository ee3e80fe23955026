/*
 * st-broadcast — spanning tree broadcast on circuit-switched linear arrays and meshes
 * (Seidel 1993, sections 3.1, 3.2, 4.1, 4.2, 5).
 *
 * One file per registered name, for both topologies: the mesh algorithms are built
 * from the linear ones (a column, then rows) and share their code, and the three
 * Seidel broadcasts share their parameters, sizing and node program through
 * src/algo/common/seidel.c and circuit_plan.c. This is why they live in
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
 *   the message goes down the root's column, then along every row; with nu > 0 the
 *   column phase stops before its exchange, the rows carry m/2^(2nu) pieces and a
 *   final exchange in every 2^nu x 2^nu block rebuilds the message. Cost
 *   (1-2^-nu)ma + nu*b + (d1-nu)(ma/2^nu+b) + (1-2^-nu)ma/2^nu + nu*b
 *   + (d2-nu)(ma/2^(2nu)+b) + (1-2^-2nu)ma + 2nu*b; the paper's sum (4) is larger by
 *   (1-2^-nu)^2 ma (its phases add up to this, see NOTES-issue4.md); nu = 0:
 *   (d1+d2)(ma+b).
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
 */
#include <stdlib.h>

#include "../common/seidel.h"

static const hm_param_t st_params[] = {
    HM_SEIDEL_PARAMS_COMMON,
    {"variant", HM_PARAM_STRING, "simple|better", "better",
     "mesh only: column-then-rows (simple) or the interleaved submeshes (better)"},
    {NULL, 0, NULL, NULL, NULL},
};

/* Linear ST with nu on a line of 2^e logical nodes, pieces [first, first + count),
 * count a multiple of 2^nu. Returns the last step. */
static int st_line(hm_plan_t *p, int step0, const int32_t *line, int e, int root, int nu,
                   int first, int count)
{
    int b = 1 << nu, unit = count / b, j0 = root >> nu, o = root & (b - 1);
    int32_t *sub = malloc(sizeof *sub << (e > nu ? e : nu));
    if (!sub) {
        p->failed = 1;
        return step0;
    }
    /* 1. Distribute in the root's metanode. */
    for (int i = 0; i < b; i++)
        sub[i] = line[j0 * b + i];
    int s = hm_plan_scatter(p, step0, sub, nu, o, first, unit, 0);
    /* 2. ST on each interleaved subarray, rooted at the root's metanode. */
    int s2 = s;
    for (int i = 0; i < b; i++) {
        for (int j = 0; j < (1 << (e - nu)); j++)
            sub[j] = line[j * b + i];
        s2 = hm_plan_st(p, s, sub, e - nu, j0, first + i * unit, unit);
    }
    /* 3. Exchange in every metanode. */
    int s3 = s2;
    for (int j = 0; j < (1 << (e - nu)); j++) {
        for (int i = 0; i < b; i++)
            sub[i] = line[j * b + i];
        s3 = hm_plan_gather(p, s2, sub, nu, first, unit);
    }
    free(sub);
    return s3;
}

static int st_setup(hm_setup_t *s)
{
    hm_seidel_t *st;
    if (hm_seidel_setup(s, "st-broadcast", 1, 1, &st) != 0) {
        hm_seidel_teardown(st);
        return -1;
    }
    const hm_machine_info_t *mi = s->machine;
    int32_t *line = malloc(sizeof *line << 15);
    int e, pos, last = 0;
    double m = (double)st->bytes, a = mi->cost_a, b = mi->cost_b;
    const char *expr = NULL;
    double value = 0;
    if (!line)
        goto fail;
    if (hm_seidel_line(st, line, &e, &pos)) {
        int nu = st->nu = hm_seidel_nu(st, e);
        if (hm_seidel_plan(s, st, nu) != 0)
            goto fail;
        last = st_line(st->plan, 0, line, e, pos, nu, 0, 1 << nu);
        expr = "(2+(d-nu-2)/2^nu)*m*a+(d+nu)*b";
        value = (2.0 + (double)(e - nu - 2) / (1 << nu)) * m * a + (e + nu) * b;
    } else {
        snprintf(s->error, sizeof s->error, "%s: topology: st-broadcast on a mesh with "
                 "more than one row and column is not implemented yet",
                 s->file ? s->file : "(config)");
        goto fail;
    }
    if (hm_seidel_finish(s, st, last) != 0)
        goto fail;
    hm_seidel_bound(st, mi, expr, value);
    free(line);
    s->state = st;
    return 0;
fail:
    free(line);
    hm_seidel_teardown(st);
    return -1;
}

const hm_algorithm_t hm_algo_st_broadcast = {
    .name = "st-broadcast",
    .description = "spanning tree broadcast of m bytes, circuit-switched (interleaved "
                   "subarrays when link_capacity = 2^nu > 1)",
    .paper = "Seidel 1993, sections 3.1, 3.2, 4.1, 4.2, 5",
    .topologies = HM_BIT(HM_TOPO_LINEAR) | HM_BIT(HM_TOPO_MESH),
    .ports = HM_BIT(HM_PORTS_ONE_PORT_FULL),
    .default_ports = HM_PORTS_ONE_PORT_FULL,
    .params = st_params,
    .setup = st_setup,
    .node_main = hm_seidel_node,
    .verify = hm_seidel_verify,
    .teardown = hm_seidel_teardown,
};
