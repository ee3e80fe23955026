/*
 * registry.c — the algorithm catalogue. One list: adding an algorithm means adding
 * its descriptor's symbol here (and its file to Makefile.am). --list, config
 * validation and the lookup all read this table.
 */
#include <string.h>

#include "hypemu.h"

#define HM_ALGORITHM_MAP(XX)                                                                       \
    XX(sbt_broadcast)                                                                              \
    XX(successive_broadcast)                                                                       \
    XX(simultaneous_broadcast)                                                                     \
    XX(multinode_broadcast)                                                                        \
    XX(max)                                                                                        \
    XX(merge_sort)                                                                                 \
    XX(st_broadcast)                                                                               \
    XX(bst_broadcast)                                                                              \
    XX(rh_broadcast)

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
