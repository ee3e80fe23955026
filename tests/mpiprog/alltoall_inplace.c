/* SPDX-License-Identifier: MIT */
/*
 * alltoall_inplace.c — MPI_Alltoall with MPI_IN_PLACE (doc/mpi-programs.md, "Semantics"):
 * the blocks sent are the receive buffer's, recvcount elements of recvtype each; sendcount
 * and sendtype are ignored (here 0 and MPI_DATATYPE_NULL).
 */
#include "io.h"

int main(int argc, char **argv)
{
    int rank, size;
    long long v[MAXV];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int b = read_input(rank, v, argv) / size;
    MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, v, b, MPI_LONG_LONG, MPI_COMM_WORLD);
    write_result(rank, v, size * b);
    MPI_Finalize();
    return 0;
}
