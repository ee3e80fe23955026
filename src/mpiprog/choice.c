/* SPDX-License-Identifier: MIT */
/*
 * choice.c — the algorithm of each collective, chosen in the config (doc/mpi-programs.md,
 * "Collectives"): one enum parameter per collective, "auto" (the library's default for the
 * machine and the vector) or one of the catalogue's algorithms whose schedule the library
 * runs (src/algo/common/coll_core.c). The descriptor (src/mpiprog/plugin.c) declares them, so
 * the config loader checks them; a program bound to a problem (algorithm.problem) has them
 * after the problem's parameters. The ranks read the choice with hm_param_string (hypemu(3)),
 * in threads and in the sandbox's node processes alike.
 */
#include <stdio.h>

#include "mpiprog.h"

static const char *const bcast_algos[] = {"auto",
                                          "bcast-binomial",
                                          "bcast-chain",
                                          "bcast-scatter-allgather",
                                          "alltoall-dimension-exchange",
                                          NULL};
static const char *const reduce_algos[] = {"auto", "reduce-binomial", "reduce-rabenseifner", NULL};
static const char *const allreduce_algos[] = {"auto", "allreduce-recursive-doubling",
                                              "allreduce-ring", "allreduce-rabenseifner", NULL};
static const char *const allgather_algos[] = {"auto", "allgather-recursive-doubling",
                                              "allgather-ring", "allgather-bruck", NULL};
static const char *const gather_algos[] = {"auto", "gather-binomial", "gather-linear", NULL};
static const char *const scatter_algos[] = {"auto", "scatter-binomial", "scatter-linear", NULL};
static const char *const alltoall_algos[] = {"auto", "alltoall-pairwise", "alltoall-bruck",
                                             "alltoall-dimension-exchange", NULL};
static const char *const reduce_scatter_algos[] = {"auto", "reduce-scatter-ring",
                                                   "reduce-scatter-recursive-halving",
                                                   "reduce-scatter-pairwise", NULL};

#define CHOICE(key, list, what)                                                                    \
    {                                                                                              \
        .name = key, .type = HM_PARAM_ENUM, .choices = list,                                       \
        .help = "the catalogue algorithm " what " runs (auto: the library's default for the "      \
                "machine and the vector, doc/mpi-programs.md)"                                     \
    }

/* In the order of HM_MPI_BCAST .. HM_MPI_REDUCE_SCATTER (mpiprog.h). */
const hm_param_spec_t hm_mpi__specs[] = {
    CHOICE("bcast", bcast_algos, "MPI_Bcast"),
    CHOICE("reduce", reduce_algos, "MPI_Reduce"),
    CHOICE("allreduce", allreduce_algos, "MPI_Allreduce"),
    CHOICE("allgather", allgather_algos, "MPI_Allgather"),
    CHOICE("gather", gather_algos, "MPI_Gather"),
    CHOICE("scatter", scatter_algos, "MPI_Scatter"),
    CHOICE("alltoall", alltoall_algos, "MPI_Alltoall"),
    CHOICE("reduce_scatter_block", reduce_scatter_algos, "MPI_Reduce_scatter_block"),
    HM_PARAM_END,
};

const char *hm_mpi__algo(int coll)
{
    const hm_mpi_rank_t *r = hm_mpi__self();
    const char *name = hm_param_string(r->n, hm_mpi__specs[coll].name);
    return name ? name : "auto";
}

int hm_mpi__algo_is(int coll, const char *algo)
{
    return strcmp(hm_mpi__algo(coll), algo) == 0;
}

/* The catalogue's algorithms that need a power of two of nodes. */
static const char *const pow2_only[] = {"allgather-recursive-doubling",
                                        "allreduce-rabenseifner",
                                        "reduce-rabenseifner",
                                        "reduce-scatter-recursive-halving",
                                        "bcast-scatter-allgather",
                                        "alltoall-dimension-exchange",
                                        NULL};

/* Whether algo is one of list. */
static int among(const char *const *list, const char *algo)
{
    for (size_t i = 0; list[i]; i++)
        if (strcmp(list[i], algo) == 0)
            return 1;
    return 0;
}

int hm_mpi__check_choices(hm_setup_t *s)
{
    int p = s->machine->nodes;
    for (const hm_param_spec_t *sp = hm_mpi__specs; sp->name && (p & (p - 1)); sp++) {
        const char *algo = sp->choices[hm_param_get_enum(s, sp->name)];
        if (!among(pow2_only, algo))
            continue;
        char found[160], allowed[160];
        snprintf(found, sizeof found, "\"%s\" on %d nodes", algo, p);
        snprintf(allowed, sizeof allowed, "%s on a power of two of nodes only", algo);
        return hm_setup_fail(s, sp->name, found, allowed);
    }
    return 0;
}
