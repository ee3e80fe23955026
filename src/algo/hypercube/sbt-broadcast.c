/* SPDX-License-Identifier: MIT */
/*
 * sbt-broadcast — broadcast along a rotated spanning binomial tree of Q_d.
 *
 * Algorithm (Desprez-Fraigniaud-Tourancheau 1993, section 3, after Johnsson-Ho):
 *   The tree is root XOR R^rotation(SBT(0)). The root sends the message to its d
 *   children; a node that receives it in slot t forwards it in slot t + 1 to its
 *   children in the tree. A node at distance l from the root receives in slot l - 1.
 *
 * Cost = d slots under every port model:
 *   all-port, shout   each node reaches all its children in one slot: level by level,
 *                     d slots.
 *   one-port-full,    a node sends to one child per slot, highest tree dimension
 *   one-port-half     first. The root's child across tree dimension j receives in slot
 *                     d - 1 - j and has children across dimensions j - 1 .. 0, which it
 *                     serves in slots d - j .. d - 1: recursive doubling, still d slots,
 *                     and no node ever sends and receives in the same slot.
 */
#include <stdlib.h>
#include <string.h>

#include "../common/trees.h"
#include "hypemu.h"

typedef struct sbt_state_s {
    int d, rot, one_port;
    uint32_t root;
} sbt_state_t;

static const hm_param_spec_t sbt_specs[] = {
    {.name = "root",
     .type = HM_PARAM_INT,
     .max_of = HM_QTY_NODES_MINUS_1,
     .help = "the node that broadcasts"},
    {.name = "rotation",
     .type = HM_PARAM_INT,
     .max_of = HM_QTY_DIM_MINUS_1,
     .help = "use R^rotation(SBT(root))"},
    HM_PARAM_END,
};

static int sbt_setup(hm_setup_t *s)
{
    const hm_machine_info_t *mi = s->machine;
    int64_t root = hm_param_get_int(s, "root"), rot = hm_param_get_int(s, "rotation");
    sbt_state_t *st = calloc(1, sizeof *st);
    if (!st)
        return -1;
    st->d = mi->dim;
    st->root = (uint32_t)root;
    st->rot = (int)rot;
    st->one_port = mi->ports == HM_PORTS_ONE_PORT_FULL || mi->ports == HM_PORTS_ONE_PORT_HALF;
    s->state = st;
    return 0;
}

/* The descriptor's .root: node programs read it with hm_root(n). */
static int sbt_root(const void *state)
{
    return (int)((const sbt_state_t *)state)->root;
}

static void sbt_node(hm_node_t *n, void *state)
{
    const sbt_state_t *st = state;
    uint32_t me = (uint32_t)hm_id(n), root = (uint32_t)hm_root(n);
    hm_packet_t p = {.msg = 1, .origin = (int32_t)root, .value = 1000 + root};

    /* Interior and leaves: wait for the message. */
    if (me != root && hm_wait_packet(n, &p) != HM_OK)
        return;
    hm_store(n, p.value);
    hm_show(n, &p.value, 1); /* the message, once it has it */

    uint64_t children = hma_sbt_children(st->d, root, st->rot, me);
    if (!children)
        return;
    if (!st->one_port) {
        hm_shout(n, children, &p);
        return;
    }
    /* One port: one child per slot, highest tree dimension first. */
    int first = 1;
    for (int j = st->d - 1; j >= 0; j--) {
        int port = (j + st->rot) % st->d;
        if (!(children >> port & 1))
            continue;
        if (!first && hm_next_slot(n) != HM_OK)
            return;
        first = 0;
        hm_send(n, port, &p);
    }
}

static void sbt_verify(hm_report_t *r)
{
    const sbt_state_t *st = r->state;
    int p = r->machine->nodes, bad = -1;
    for (int x = 0; x < p && bad < 0; x++) {
        size_t k;
        const int64_t *v = hm_report_stores(r, x, &k);
        if (k != 1 || v[0] != 1000 + (int64_t)st->root)
            bad = x;
    }
    r->verified = bad < 0;
    for (int x = 0; x < p && bad < 0; x++)
        hm_report_from(r, x, 0, 1, (int)st->root);
    if (bad < 0)
        snprintf(r->verification, sizeof r->verification,
                 "every node stored the message of node %u exactly once", st->root);
    else
        snprintf(r->verification, sizeof r->verification,
                 "node %d did not store the message of node %u exactly once", bad, st->root);
    r->bound_expr = "log2(p)";
    r->bound = st->d;
    r->lower_expr = "log2(p)";
    r->lower = st->d;
    json_object_set_new(r->extra, "root", json_integer(st->root));
    json_object_set_new(r->extra, "rotation", json_integer(st->rot));
}

const hm_algorithm_t hm_algo_sbt_broadcast = {
    .name = "sbt-broadcast",
    .description = "broadcast along the rotated spanning binomial tree root XOR R^r(SBT(0))",
    .paper = "Desprez-Fraigniaud-Tourancheau 1993, section 3 (Johnsson-Ho 1989)",
    .topologies = HM_BIT(HM_TOPO_HYPERCUBE),
    .ports = HM_BIT(HM_PORTS_ALL_PORT) | HM_BIT(HM_PORTS_ONE_PORT_FULL) |
             HM_BIT(HM_PORTS_ONE_PORT_HALF) | HM_BIT(HM_PORTS_SHOUT),
    .default_ports = HM_PORTS_SHOUT,
    .specs = sbt_specs,
    .problem = HM_PROBLEM_BROADCAST,
    .setup = sbt_setup,
    .node_main = sbt_node,
    .verify = sbt_verify,
    .teardown = free,
    .root = sbt_root,
};
