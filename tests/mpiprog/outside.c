/* SPDX-License-Identifier: MIT */
/*
 * outside.c — a call outside the subset (MPI_Comm_split): hypemu-mpicc refuses to build it,
 * naming the call (doc/mpi-programs.md).
 */
#include <mpi.h>

int main(int argc, char **argv)
{
    MPI_Comm half;
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Finalize();
    return 0;
}
