/* SPDX-License-Identifier: MIT */
/*
 * sendrecv_big.c — exchanges far larger than a mailbox complete, as under real MPI
 * (doc/mpi-programs.md, "Defaults"): on a ring, every rank passes 5,000 doubles to its right
 * with MPI_Sendrecv, 8,192 long longs both ways with MPI_Isend, MPI_Irecv and MPI_Waitall,
 * and ten small messages to its left before it receives any; rank 0 prints the number of
 * wrong values over all ranks.
 */
#include <mpi.h>
#include <stdio.h>

#define ND 5000
#define NL 8192

static double dout[ND], din[ND];
static long long lout[NL], lin[2][NL];

int main(int argc, char **argv)
{
    int rank, size, bad = 0, all = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int i = 0; i < ND; i++)
        dout[i] = rank * 100000.0 + i;
    MPI_Sendrecv(dout, ND, MPI_DOUBLE, right, 1, din, ND, MPI_DOUBLE, left, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    for (int i = 0; i < ND; i++)
        bad += din[i] != left * 100000.0 + i;
    for (int i = 0; i < NL; i++)
        lout[i] = (long long)rank * 1000000 + i;
    MPI_Request req[4];
    MPI_Irecv(lin[0], NL, MPI_LONG_LONG, left, 2, MPI_COMM_WORLD, &req[0]);
    MPI_Irecv(lin[1], NL, MPI_LONG_LONG, right, 2, MPI_COMM_WORLD, &req[1]);
    MPI_Isend(lout, NL, MPI_LONG_LONG, right, 2, MPI_COMM_WORLD, &req[2]);
    MPI_Isend(lout, NL, MPI_LONG_LONG, left, 2, MPI_COMM_WORLD, &req[3]);
    MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
    for (int i = 0; i < NL; i++)
        bad += (lin[0][i] != (long long)left * 1000000 + i) +
               (lin[1][i] != (long long)right * 1000000 + i);
    for (int k = 0; k < 10; k++)
        MPI_Send(&k, 1, MPI_INT, left, 3, MPI_COMM_WORLD);
    for (int k = 0; k < 10; k++) {
        int v = -1;
        MPI_Recv(&v, 1, MPI_INT, right, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        bad += v != k;
    }
    MPI_Reduce(&bad, &all, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("wrong values: %d\n", all);
    MPI_Finalize();
    return 0;
}
