/*
 * rh-broadcast — recursive halving broadcast on circuit-switched linear arrays and
 * meshes (Seidel 1993, sections 3.5, 3.6, 4.4, 5.2; after van de Geijn). In
 * src/algo/seidel/ with st-broadcast and bst-broadcast: see st-broadcast.c for why.
 *
 * Linear array of n = 2^d nodes, the message in n pieces:
 *   0. the root permutes its message into bit-reversed piece order (rho*m, charged
 *      as hm_busy): the distribution then sends contiguous ranges and every exchange
 *      below concatenates contiguous ranges of the original order (Seidel: "permuted
 *      in node 0 before the first phase");
 *   1. distribute along the spanning tree of the root (XOR-ed, section 4.4): node x
 *      gets piece bitrev(x);                                    (1-2^-d)ma + db
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
 * Mesh: not implemented yet (see NOTES-issue4.md); meshes of one logical row or
 * column run the linear algorithm.
 */
#include <stdlib.h>

#include "../common/seidel.h"

static const hm_param_t rh_params[] = {
    HM_SEIDEL_PARAMS_COMMON,
    {NULL, 0, NULL, NULL, NULL},
};

/* RH on a line of 2^e logical nodes; pieces 0..2^e-1. Returns the last step. */
static int rh_line(hm_plan_t *p, const int32_t *line, int e, int root)
{
    int s = hm_plan_scatter(p, 0, line, e, root, 0, 1, 1);
    for (int t = 1; t <= e; t++) {
        int h = 1 << (e - t), held = 1 << (t - 1);
        for (int x = 0; x < (1 << e); x++) {
            int base = (int)(hm_bitrev((uint32_t)x, e) >> (t - 1)) << (t - 1);
            hm_plan_send(p, s + t, line[x], line[x ^ h], base, held, 1);
        }
    }
    return s + e;
}

static int rh_setup(hm_setup_t *s)
{
    hm_seidel_t *st;
    if (hm_seidel_setup(s, "rh-broadcast", 0, 0, &st) != 0) {
        hm_seidel_teardown(st);
        return -1;
    }
    const hm_machine_info_t *mi = s->machine;
    int32_t *line = malloc(sizeof *line << 15);
    int e, pos, last = 0;
    double m = (double)st->bytes, a = mi->cost_a, b = mi->cost_b, rho = mi->cost_rho;
    const char *expr = NULL;
    double value = 0;
    if (!line)
        goto fail;
    if (hm_seidel_line(st, line, &e, &pos)) {
        int nu = st->nu = hm_seidel_nu(st, e);
        if (hm_seidel_plan(s, st, e) != 0)
            goto fail;
        /* 0. The root's permutation. */
        hm_plan_busy(st->plan, 0, st->root, hm_seidel_slots(rho * m));
        last = rh_line(st->plan, line, e, pos);
        expr = "(2+(d-nu-2)/2^(nu+1)-1/2^d)*m*a+2*d*b+m*rho";
        value = e == 0 ? hm_seidel_slots(rho * m)
                       : (2.0 + (double)(e - nu - 2) / (2 << nu) - 1.0 / (1 << e)) * m * a +
                             2 * e * b + hm_seidel_slots(rho * m);
    } else {
        snprintf(s->error, sizeof s->error, "%s: topology: rh-broadcast on a mesh with more "
                 "than one row and column is not implemented yet",
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

const hm_algorithm_t hm_algo_rh_broadcast = {
    .name = "rh-broadcast",
    .description = "recursive halving broadcast of m bytes: distribute, then exchange "
                   "farthest first (link contention by design)",
    .paper = "Seidel 1993, sections 3.5, 3.6, 4.4, 5.2",
    .topologies = HM_BIT(HM_TOPO_LINEAR) | HM_BIT(HM_TOPO_MESH),
    .ports = HM_BIT(HM_PORTS_ONE_PORT_FULL),
    .default_ports = HM_PORTS_ONE_PORT_FULL,
    .params = rh_params,
    .setup = rh_setup,
    .node_main = hm_seidel_node,
    .verify = hm_seidel_verify,
    .teardown = hm_seidel_teardown,
};
