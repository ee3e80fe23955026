/* SPDX-License-Identifier: MIT */
/*
 * multinode-broadcast — every node of Q_d broadcasts one packet at once.
 *
 *   stamoulis  Stamoulis-Tsitsiklis section 3.2 with K = 2^d: no prefix phase, since
 *              r_x = 2^d - x is known; phase 2 routes node x's packet to e_j,
 *              j = (2^d - x - 1) mod d + 1, along the reversed T^(j); phase 3
 *              broadcasts along the d edge-disjoint trees (src/algo/hypercube/stamoulis.c).
 *              At most 2 ceil(2^d/d) + 2d - 1 slots, all-port, no conflict.
 *   esbt       the lecture notes' collision-avoiding trees, ceil((2^d - 1)/d) slots:
 *              src/algo/hypercube/esbt.c (hm_esbt_setup, hm_esbt_node,
 *              hm_esbt_verify), wired in through MNB_VARIANT_MAP below; its parameter
 *              "construction" (searched | literal, HM_ESBT_CONSTRUCTION_MAP) is
 *              declared here with only_if "variant=esbt".
 *
 * The descriptor dispatches on the variant: setup keeps the chosen row of the table
 * next to that variant's own state.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "esbt.h"
#include "stamoulis.h"

static int stamoulis_setup(hm_setup_t *s)
{
    const hm_machine_info_t *mi = s->machine;
    if (mi->dim < 1) {
        char found[64];
        snprintf(found, sizeof found, "a hypercube of dimension %d", mi->dim);
        return hm_setup_fail(s, "variant", found, "topology.dim >= 1 for variant stamoulis");
    }
    int *a = malloc((size_t)mi->nodes * sizeof *a);
    if (!a)
        return -1;
    for (int x = 0; x < mi->nodes; x++)
        a[x] = 1;
    s->state = hma_st_state_new(mi, HMA_ST_MULTINODE, a, 1);
    free(a);
    return s->state ? 0 : -1;
}

/* The variants: one row each, the only list of them. --list shows the names (the
 * "variant" parameter's choices); setup picks the row's functions. */
#define MNB_VARIANT_MAP(XX)                                                                        \
    XX(STAMOULIS, "stamoulis", stamoulis_setup, hma_st_three_phase_node,                           \
       hma_st_three_phase_verify, hma_st_state_free)                                               \
    XX(ESBT, "esbt", hm_esbt_setup, hm_esbt_node, hm_esbt_verify, hm_esbt_teardown)

enum { MNB_VARIANT_MAP(HM_ENUM_ID) };
static const char *const mnb_variant_names[] = {MNB_VARIANT_MAP(HM_ENUM_NAME) NULL};

typedef struct mnb_variant_s {
    int (*setup)(hm_setup_t *s);
    void (*node_main)(hm_node_t *n, void *state);
    void (*verify)(hm_report_t *r);
    void (*teardown)(void *state);
} mnb_variant_t;

static const mnb_variant_t mnb_variants[] = {
#define XX(id, name, setup, node, verify, teardown) {setup, node, verify, teardown},
    MNB_VARIANT_MAP(XX)
#undef XX
};

typedef struct mnb_state_s {
    const mnb_variant_t *v;
    void *inner;
} mnb_state_t;

static const hm_param_spec_t mnb_specs[] = {
    {.name = "variant",
     .type = HM_PARAM_ENUM,
     .choices = mnb_variant_names,
     .def = STAMOULIS,
     .help = "which multinode broadcast: stamoulis (section 3.2, K = 2^d) or esbt (the "
             "lecture notes' collision-avoiding trees)"},
    {.name = "construction",
     .type = HM_PARAM_ENUM,
     .choices = hm_esbt_construction_names,
     .def = HM_ESBT_SEARCHED,
     .only_if = "variant=esbt",
     .help = "the shipped searched trees, or the lecture notes read literally"},
    HM_PARAM_END,
};

static int mnb_setup(hm_setup_t *s)
{
    const mnb_variant_t *v = &mnb_variants[hm_param_get_enum(s, "variant")];
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
    .specs = mnb_specs,
    /* Both variants time their packets by the global slot (section 3.2's phases, the
     * esbt schedule's steps). */
    .needs = {.routing = HM_BIT(HM_ROUTING_PACKET),
              .clock_modes = HM_BIT(HM_CLOCK_SLOTTED),
              .clock_why = "its phases and tree steps are timed by the global slot"},
    .problem = HM_PROBLEM_ALLGATHER,
    .setup = mnb_setup,
    .node_main = mnb_node,
    .verify = mnb_verify,
    .teardown = mnb_teardown,
    .out_size = sizeof(hma_st_obs_t), /* the stamoulis variant's observations */
};
