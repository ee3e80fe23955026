/* SPDX-License-Identifier: MIT */
/*
 * registry.c — the algorithm catalogue. One list: adding an algorithm means adding
 * its descriptor's symbol here (and its file to Makefile.am). --list, config
 * validation and the lookup all read this table.
 */
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
    XX(rh_broadcast)                                                                               \
    XX(bcast_binomial)                                                                             \
    XX(bcast_chain)                                                                                \
    XX(bcast_scatter_allgather)                                                                    \
    XX(bcast_msbt)                                                                                 \
    XX(scatter_binomial)                                                                           \
    XX(scatter_linear)                                                                             \
    XX(scatter_bst)                                                                                \
    XX(gather_binomial)                                                                            \
    XX(gather_linear)                                                                              \
    XX(reduce_binomial)                                                                            \
    XX(reduce_rabenseifner)                                                                        \
    XX(allreduce_recursive_doubling)                                                               \
    XX(allreduce_ring)                                                                             \
    XX(allreduce_rabenseifner)                                                                     \
    XX(allgather_recursive_doubling)                                                               \
    XX(allgather_ring)                                                                             \
    XX(allgather_bruck)                                                                            \
    XX(reduce_scatter_recursive_halving)                                                           \
    XX(reduce_scatter_pairwise)                                                                    \
    XX(reduce_scatter_ring)                                                                        \
    XX(alltoall_pairwise)                                                                          \
    XX(alltoall_dimension_exchange)                                                                \
    XX(alltoall_bruck)                                                                             \
    XX(traffic)

#define XX(sym) extern const hm_algorithm_t hm_algo_##sym;
HM_ALGORITHM_MAP(XX)
#undef XX

const hm_algorithm_t *const hm_algorithms[] = {
#define XX(sym) &hm_algo_##sym,
    HM_ALGORITHM_MAP(XX)
#undef XX
        NULL,
};

/* hm_algorithm_find searches this list and the plugins' (cli/plugin.c). */
