/* SPDX-License-Identifier: MIT */
/*
 * reduce_scatter_call.c — the library's MPI_Reduce_scatter_block (sum) and MPI_Barrier
 * (doc/mpi-programs.md): rank x gets the sum over all ranks of their block x.
 */
#include "io.h"

int main(int argc, char **argv)
{
    int rank, size;
    long long in[MAXV], out[MAXV];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int b = read_input(rank, in, argv) / size;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Reduce_scatter_block(in, out, b, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    write_result(rank, out, b);
    MPI_Finalize();
    return 0;
}
