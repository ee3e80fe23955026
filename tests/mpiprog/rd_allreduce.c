/* SPDX-License-Identifier: MIT */
/*
 * rd_allreduce.c — a recursive-doubling allreduce (sum) for a power-of-two number of ranks
 * (doc/mpi-programs.md): in step k each rank exchanges its partial sums with rank ^ 2^k, a
 * neighbour on a hypercube, a node further away (routed) on a ring.
 */
#include "io.h"

int main(int argc, char **argv)
{
    int rank, size;
    long long sum[MAXV], got[MAXV];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int b = read_input(rank, sum, argv);
    for (int mask = 1; mask < size; mask <<= 1) {
        MPI_Sendrecv(sum, b, MPI_LONG_LONG, rank ^ mask, 0, got, b, MPI_LONG_LONG, rank ^ mask, 0,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 0; i < b; i++)
            sum[i] += got[i];
    }
    write_result(rank, sum, b);
    MPI_Finalize();
    return 0;
}
