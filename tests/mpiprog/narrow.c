/* SPDX-License-Identifier: MIT */
/*
 * narrow.c — a broadcast from rank 0 of values of a type narrower than 8 bytes
 * (doc/mpi-programs.md, "Messages"): TYPE names it (int, short, schar, char, uchar, ushort,
 * unsigned, float); rank 0's three values (the broadcast's block 3) are converted to it, sent with
 * MPI_Bcast, or with MPI_Send to each rank and MPI_Recv when P2P is set, and stored converted back.
 */
#include <stdlib.h>
#include <string.h>

#include "io.h"

#define NARROW(ctype, mpitype)                                                                     \
    do {                                                                                           \
        static ctype a[MAXV];                                                                      \
        for (int i = 0; i < n; i++)                                                                \
            a[i] = (ctype)v[i];                                                                    \
        if (!p2p)                                                                                  \
            MPI_Bcast(a, n, mpitype, 0, MPI_COMM_WORLD);                                           \
        for (int y = 1; p2p && rank == 0 && y < size; y++)                                         \
            MPI_Send(a, n, mpitype, y, 5, MPI_COMM_WORLD);                                         \
        if (p2p && rank != 0)                                                                      \
            MPI_Recv(a, n, mpitype, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);                      \
        for (int i = 0; i < n; i++)                                                                \
            v[i] = (long long)a[i];                                                                \
    } while (0)

int main(int argc, char **argv)
{
    int rank, size;
    long long v[MAXV] = {0};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int n = 3, p2p = getenv("P2P") != NULL;
    read_input(rank, v, argv);
    const char *t = getenv("TYPE") ? getenv("TYPE") : "int";
    if (strcmp(t, "short") == 0)
        NARROW(short, MPI_SHORT);
    else if (strcmp(t, "schar") == 0)
        NARROW(signed char, MPI_SIGNED_CHAR);
    else if (strcmp(t, "char") == 0)
        NARROW(char, MPI_CHAR);
    else if (strcmp(t, "uchar") == 0)
        NARROW(unsigned char, MPI_UNSIGNED_CHAR);
    else if (strcmp(t, "ushort") == 0)
        NARROW(unsigned short, MPI_UNSIGNED_SHORT);
    else if (strcmp(t, "unsigned") == 0)
        NARROW(unsigned, MPI_UNSIGNED);
    else if (strcmp(t, "float") == 0)
        NARROW(float, MPI_FLOAT);
    else
        NARROW(int, MPI_INT);
    write_result(rank, v, n);
    MPI_Finalize();
    return 0;
}
