/* SPDX-License-Identifier: MIT */
/*
 * esbt.h — the "esbt" variant of multinode-broadcast: every node of Q_d broadcasts at
 * once along collision-avoiding spanning trees (lecture notes "Distributed Memory
 * Systems, Part III", section "Collision Avoiding Spanning Trees for Multi-Broadcast
 * Operations"), in ceil((2^d - 1)/d) slots under all-port. See esbt.c.
 *
 * The registered algorithm "multinode-broadcast" dispatches its variant "esbt" to
 * these functions; its descriptor declares the parameter "construction", whose
 * choices are HM_ESBT_CONSTRUCTION_MAP, and hm_esbt_setup reads it.
 */
#ifndef HM_ALGO_ESBT_H
#define HM_ALGO_ESBT_H

#include "hypemu.h"

/* The constructions of the trees: the shipped search, or the lecture notes read
 * literally (esbt.c). */
#define HM_ESBT_CONSTRUCTION_MAP(XX)                                                               \
    XX(HM_ESBT_SEARCHED, "searched")                                                               \
    XX(HM_ESBT_LITERAL, "literal")

enum { HM_ESBT_CONSTRUCTION_MAP(HM_ENUM_ID) };
/* Their names, NULL-terminated: the parameter's choices. */
extern const char *const hm_esbt_construction_names[];

int hm_esbt_setup(hm_setup_t *s);
void hm_esbt_node(hm_node_t *n, void *state);
void hm_esbt_verify(hm_report_t *r);
void hm_esbt_teardown(void *state);

/* The construction's own check, for tests that cannot afford 2^d threads: the number
 * of conflicts (nodes of T_0 reached no later than their parent, steps using a bit
 * twice), nodes with no path to the root, and the backtracks of the search. */
int hm_esbt_conflicts(const void *state, int *unreached, long *backtracks);

#endif
