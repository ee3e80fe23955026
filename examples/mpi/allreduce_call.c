/* SPDX-License-Identifier: MIT */
/*
 * allreduce_call.c — the library's MPI_Allreduce (sum) on each rank's block, as ints, in
 * place (doc/mpi-programs.md): an element narrower than the problem's 64-bit values.
 */
#include "io.h"

int main(int argc, char **argv)
{
    int rank, v[MAXV];
    long long in[MAXV];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int b = read_input(rank, in, argv);
    for (int i = 0; i < b; i++)
        v[i] = (int)in[i];
    MPI_Allreduce(MPI_IN_PLACE, v, b, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < b; i++)
        in[i] = v[i];
    write_result(rank, in, b);
    MPI_Finalize();
    return 0;
}
