/* SPDX-License-Identifier: MIT */
/*
 * abort.c — rank 1 calls MPI_Abort with code 7 while the others wait in a barrier
 * (doc/mpi-programs.md): the run ends naming the rank and the code.
 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1)
        MPI_Abort(MPI_COMM_WORLD, 7);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
