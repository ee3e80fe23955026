/* SPDX-License-Identifier: MIT */
/*
 * ring_allreduce.c — an allreduce (sum) around the ring of ranks (doc/mpi-programs.md): p - 1
 * steps, each rank passing on to its right the block it received last, with MPI_Sendrecv.
 */
#include "io.h"

int main(int argc, char **argv)
{
    int rank, size;
    long long pass[MAXV], got[MAXV], sum[MAXV];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int b = read_input(rank, pass, argv);
    for (int i = 0; i < b; i++)
        sum[i] = pass[i];
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int step = 1; step < size; step++) {
        MPI_Sendrecv(pass, b, MPI_LONG_LONG, right, step, got, b, MPI_LONG_LONG, left, step,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 0; i < b; i++)
            sum[i] += pass[i] = got[i];
    }
    write_result(rank, sum, b);
    MPI_Finalize();
    return 0;
}
