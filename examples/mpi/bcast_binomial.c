/* SPDX-License-Identifier: MIT */
/*
 * bcast_binomial.c — a binomial broadcast written with MPI_Send and MPI_Recv
 * (doc/mpi-programs.md): relative rank v receives from v - 2^k, its highest bit, and sends to
 * v + 2^j for every j below it. On a hypercube from root 0 every partner is a neighbour; on a
 * ring most are not, and the engine routes the messages hop by hop.
 */
#include "io.h"

int main(int argc, char **argv)
{
    int rank, size, root = 0, b;
    long long v[MAXV];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    b = read_input(rank, v, argv);
#ifdef HYPEMU
    /* Under hypemu only the problem's root has an input: find it. */
    int me = b > 0 ? rank : -1;
    MPI_Allreduce(&me, &root, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
#endif
    MPI_Bcast(&b, 1, MPI_INT, root, MPI_COMM_WORLD); /* under mpirun: rank 0's line */
    int rel = (rank - root + size) % size, mask = 1;
    for (; mask < size; mask <<= 1)
        if (rel & mask) {
            MPI_Recv(v, b, MPI_LONG_LONG, (rel - mask + root) % size, 0, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            break;
        }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (rel + mask < size)
            MPI_Send(v, b, MPI_LONG_LONG, (rel + mask + root) % size, 0, MPI_COMM_WORLD);
    write_result(rank, v, b);
    MPI_Finalize();
    return 0;
}
