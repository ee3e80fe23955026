/* SPDX-License-Identifier: MIT */
/*
 * one_call.c — one call of the library collective that solves the run's problem, and
 * nothing else, so that its slots are the algorithm's (doc/mpi-programs.md, "Collectives":
 * the algorithm chosen in the config): COLLECTIVE names it (bcast, reduce, allreduce,
 * scatter, gather, allgather, alltoall, reduce_scatter_block), BLOCK the problem's block;
 * root 0, MPI_SUM.
 */
#include <string.h>

#include "io.h"

static long long v[MAXV], out[MAXV];

static int is(const char *name)
{
    const char *c = getenv("COLLECTIVE");
    return c && strcmp(c, name) == 0;
}

/* The rooted collectives; the count of the result, -1 where this rank has none. */
static int rooted(int rank, int size, int b)
{
    if (is("bcast")) {
        MPI_Bcast(v, b, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
        memcpy(out, v, (size_t)b * sizeof *v);
        return b;
    }
    if (is("reduce")) {
        MPI_Reduce(v, out, b, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
        return rank == 0 ? b : -1;
    }
    if (is("scatter")) {
        MPI_Scatter(v, b, MPI_LONG_LONG, out, b, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
        return b;
    }
    MPI_Gather(v, b, MPI_LONG_LONG, out, b, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    return rank == 0 ? b * size : -1;
}

static int rootless(int size, int b)
{
    if (is("allreduce")) {
        MPI_Allreduce(v, out, b, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
        return b;
    }
    if (is("allgather")) {
        MPI_Allgather(v, b, MPI_LONG_LONG, out, b, MPI_LONG_LONG, MPI_COMM_WORLD);
        return b * size;
    }
    if (is("alltoall")) {
        MPI_Alltoall(v, b, MPI_LONG_LONG, out, b, MPI_LONG_LONG, MPI_COMM_WORLD);
        return b * size;
    }
    MPI_Reduce_scatter_block(v, out, b, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    return b;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    read_input(rank, v, argv); /* the problem's input under hypemu */
    int b = atoi(getenv("BLOCK") ? getenv("BLOCK") : "1");
    int k = is("bcast") || is("reduce") || is("scatter") || is("gather") ? rooted(rank, size, b)
                                                                         : rootless(size, b);
    if (k >= 0)
        write_result(rank, out, k);
    MPI_Finalize();
    return 0;
}
