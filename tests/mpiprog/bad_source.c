/* SPDX-License-Identifier: MIT */
/*
 * bad_source.c — a receive from a rank that does not exist stops the run at once, naming
 * the call (doc/mpi-programs.md, "Errors"), as a send to one does: rank 1 calls
 * MPI_Recv(source size); the others wait in MPI_Barrier.
 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, v = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 1)
        MPI_Recv(&v, 1, MPI_INT, size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return v;
}
