/*
 * multinode-broadcast — every node of Q_d broadcasts one packet at once.
 *
 *   stamoulis  Stamoulis-Tsitsiklis section 3.2 with K = 2^d: no prefix phase, since
 *              r_x = 2^d - x is known; phase 2 routes node x's packet to e_j,
 *              j = (2^d - x - 1) mod d + 1, along the reversed T^(j); phase 3
 *              broadcasts along the d edge-disjoint trees (src/algo/common/stamoulis.c).
 *              At most 2 ceil(2^d/d) + 2d - 1 slots, all-port, no conflict.
 *   esbt       the lecture notes' collision-avoiding trees, ceil((2^d - 1)/d) slots:
 *              src/algo/hypercube/esbt.c (hm_esbt_setup, hm_esbt_node,
 *              hm_esbt_verify), wired in through the table below; its parameter
 *              "construction" (searched | literal) is listed here too.
 *
 * The descriptor dispatches on the variant: setup keeps the chosen row of the table
 * next to that variant's own state.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/stamoulis.h"
#include "esbt.h"

static int stamoulis_setup(hm_setup_t *s)
{
    const hm_machine_info_t *mi = s->machine;
    if (json_object_get(s->params, "construction"))
        return hm_setup_fail(s, "construction", "a construction for variant stamoulis",
                             "construction only with variant esbt");
    if (mi->dim < 1) {
        char found[64];
        snprintf(found, sizeof found, "a hypercube of dimension %d", mi->dim);
        return hm_setup_fail(s, "name", found, "topology.dim >= 1");
    }
    int *a = malloc((size_t)mi->nodes * sizeof *a);
    if (!a)
        return -1;
    for (int x = 0; x < mi->nodes; x++)
        a[x] = 1;
    s->state = hm_st_state_new(mi, HM_ST_MULTINODE, a, 1);
    free(a);
    return s->state ? 0 : -1;
}

typedef struct mnb_variant_s {
    const char *name;
    int (*setup)(hm_setup_t *s);
    void (*node_main)(hm_node_t *n, void *state);
    void (*verify)(hm_report_t *r);
    void (*teardown)(void *state);
} mnb_variant_t;

static const mnb_variant_t mnb_variants[] = {
    {"stamoulis", stamoulis_setup, hm_st_three_phase_node, hm_st_three_phase_verify,
     hm_st_state_free},
    {"esbt", hm_esbt_setup, hm_esbt_node, hm_esbt_verify, hm_esbt_teardown},
};

typedef struct mnb_state_s {
    const mnb_variant_t *v;
    void *inner;
} mnb_state_t;

static const hm_param_t mnb_params[] = {
    {"variant", HM_PARAM_STRING, "stamoulis|esbt", "stamoulis", "which multinode broadcast"},
    {"construction", HM_PARAM_STRING, "searched|literal", "searched",
     "esbt only: the shipped searched trees, or the lecture notes read literally"},
    {NULL, 0, NULL, NULL, NULL},
};

static int mnb_setup(hm_setup_t *s)
{
    const char *name;
    if (hm_param_string(s, "variant", "stamoulis", &name))
        return -1;
    const mnb_variant_t *v = &mnb_variants[0];
    for (size_t i = 0; i < sizeof mnb_variants / sizeof mnb_variants[0]; i++)
        if (strcmp(name, mnb_variants[i].name) == 0)
            v = &mnb_variants[i];
    mnb_state_t *st = calloc(1, sizeof *st);
    if (!st)
        return -1;
    st->v = v;
    s->state = NULL;
    if (v->setup(s) != 0) {
        free(st);
        return -1;
    }
    st->inner = s->state;
    s->state = st;
    return 0;
}

static void mnb_node(hm_node_t *n, void *state)
{
    const mnb_state_t *st = state;
    st->v->node_main(n, st->inner);
}

static void mnb_verify(hm_report_t *r)
{
    mnb_state_t *st = r->state;
    r->state = st->inner;
    st->v->verify(r);
    r->state = st;
}

static void mnb_teardown(void *state)
{
    mnb_state_t *st = state;
    if (!st)
        return;
    if (st->v->teardown)
        st->v->teardown(st->inner);
    free(st);
}

const hm_algorithm_t hm_algo_multinode_broadcast = {
    .name = "multinode-broadcast",
    .description = "every node broadcasts at once: stamoulis (3.2 with K = 2^d), esbt",
    .paper = "Stamoulis-Tsitsiklis section 3.2; lecture notes on hypercube spanning trees",
    .topologies = HM_BIT(HM_TOPO_HYPERCUBE),
    .ports = HM_BIT(HM_PORTS_ALL_PORT),
    .default_ports = HM_PORTS_ALL_PORT,
    .params = mnb_params,
    .setup = mnb_setup,
    .node_main = mnb_node,
    .verify = mnb_verify,
    .teardown = mnb_teardown,
};
