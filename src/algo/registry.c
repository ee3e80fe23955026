/*
 * registry.c — the algorithm catalogue. One list: adding an algorithm means adding
 * its descriptor's symbol here (and its file to Makefile.am). --list, config
 * validation and the lookup all read this table.
 */
#include <string.h>

#include "hypercube/esbt.h"
#include "hypemu.h"

#define HM_ALGORITHM_MAP(XX)                                                             \
    XX(sbt_broadcast)                                                                    \
    XX(successive_broadcast)                                                             \
    XX(multinode_broadcast)

/* TEMPORARY (branch issue3b): multinode-broadcast with only its "esbt" variant, so
 * that esbt.c can be run and tested. At merge the lead replaces this descriptor with
 * the one of src/algo/hypercube/multinode-broadcast.c (branch issue3a), which
 * dispatches "esbt" to the same hm_esbt_* functions and accepts hm_esbt_params. */
static const hm_param_t multinode_esbt_params[] = {
    {"variant", HM_PARAM_STRING, "esbt", "esbt", "which multinode broadcast"},
    {"construction", HM_PARAM_STRING, "searched|literal", "searched",
     "esbt trees: the shipped search, or the lecture notes read literally"},
    {NULL, 0, NULL, NULL, NULL},
};

const hm_algorithm_t hm_algo_multinode_broadcast = {
    .name = "multinode-broadcast",
    .description = "every node broadcasts at once (esbt: collision-avoiding spanning trees)",
    .paper = "lecture notes 'Distributed Memory Systems III', collision avoiding spanning "
             "trees",
    .topologies = HM_BIT(HM_TOPO_HYPERCUBE),
    .ports = HM_BIT(HM_PORTS_ALL_PORT),
    .default_ports = HM_PORTS_ALL_PORT,
    .params = multinode_esbt_params,
    .setup = hm_esbt_setup,
    .node_main = hm_esbt_node,
    .verify = hm_esbt_verify,
    .teardown = hm_esbt_teardown,
};

#define XX(sym) extern const hm_algorithm_t hm_algo_##sym;
HM_ALGORITHM_MAP(XX)
#undef XX

const hm_algorithm_t *const hm_algorithms[] = {
#define XX(sym) &hm_algo_##sym,
    HM_ALGORITHM_MAP(XX)
#undef XX
        NULL,
};

const hm_algorithm_t *hm_algorithm_find(const char *name)
{
    for (size_t i = 0; hm_algorithms[i]; i++)
        if (strcmp(hm_algorithms[i]->name, name) == 0)
            return hm_algorithms[i];
    return NULL;
}
