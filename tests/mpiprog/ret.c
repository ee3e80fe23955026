/* SPDX-License-Identifier: MIT */
/*
 * ret.c — rank 1 returns 3 from main after MPI_Finalize, the others 0 (doc/mpi-programs.md,
 * "Building"): as exit(3) in C, a failure of the run naming the rank and the code.
 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Finalize();
    return rank == 1 ? 3 : 0;
}
