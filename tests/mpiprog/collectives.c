/* SPDX-License-Identifier: MIT */
/*
 * collectives.c — each of the library's collectives on its problem (doc/mpi-programs.md):
 * the environment variable COLLECTIVE names the one to call (bcast, reduce, allreduce,
 * scatter, gather, allgather, alltoall, reduce_scatter_block), with root 0 where there is
 * one, MPI_SUM, and doubles for reduce to try a type other than the problem's integers.
 */
#include <string.h>

#include "io.h"

static long long v[MAXV], out[MAXV];

static int is(const char *name)
{
    const char *c = getenv("COLLECTIVE");
    return c && strcmp(c, name) == 0;
}

static void reduce_doubles(int rank, int b)
{
    double d[MAXV] = {0}, r[MAXV];
    for (int i = 0; i < b; i++)
        d[i] = (double)v[i];
    MPI_Reduce(d, r, b, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    for (int i = 0; i < b; i++)
        out[i] = (long long)r[i];
    if (rank == 0)
        write_result(rank, out, b);
}

static void rooted(int rank, int size, int b)
{
    if (is("bcast")) {
        MPI_Bcast(&b, 1, MPI_INT, 0, MPI_COMM_WORLD);
        MPI_Bcast(v, b, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
        write_result(rank, v, b);
    } else if (is("reduce")) {
        reduce_doubles(rank, b);
    } else if (is("scatter")) {
        int each = b / size;
        MPI_Bcast(&each, 1, MPI_INT, 0, MPI_COMM_WORLD);
        MPI_Scatter(v, each, MPI_LONG_LONG, out, each, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
        write_result(rank, out, each);
    } else if (is("gather")) {
        MPI_Gather(v, b, MPI_LONG_LONG, out, b, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
        if (rank == 0)
            write_result(rank, out, b * size);
    }
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int b = read_input(rank, v, argv);
    rooted(rank, size, b);
    if (is("allreduce")) {
        MPI_Allreduce(v, out, b, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
        write_result(rank, out, b);
    } else if (is("allgather")) {
        MPI_Allgather(v, b, MPI_LONG_LONG, out, b, MPI_LONG_LONG, MPI_COMM_WORLD);
        write_result(rank, out, b * size);
    } else if (is("alltoall")) {
        MPI_Alltoall(v, b / size, MPI_LONG_LONG, out, b / size, MPI_LONG_LONG, MPI_COMM_WORLD);
        write_result(rank, out, b);
    } else if (is("reduce_scatter_block")) {
        MPI_Reduce_scatter_block(v, out, b / size, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
        write_result(rank, out, b / size);
    }
    MPI_Finalize();
    return 0;
}
