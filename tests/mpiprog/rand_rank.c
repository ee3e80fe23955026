/* SPDX-License-Identifier: MIT */
/*
 * rand_rank.c — the C library's random numbers are each rank's own, as under real MPI
 * (doc/mpi-programs.md, "Globals"): rank r seeds srand(17 + r) and draws 500 rand(), then
 * srandom(99 + r) and 500 random(); rank 0 prints every rank's sum of the draws mod 1000.
 * With one generator shared by the ranks, the sums would mix and change from run to run.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long long sum = 0, all[64];
    srand(17u + (unsigned)rank);
    for (int i = 0; i < 500; i++) {
        sum += rand() % 1000;
        MPI_Barrier(MPI_COMM_WORLD); /* the ranks draw in turns */
    }
    srandom(99u + (unsigned)rank);
    for (int i = 0; i < 500; i++)
        sum += random() % 1000;
    MPI_Gather(&sum, 1, MPI_LONG_LONG, all, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    if (rank == 0 && size <= 64) {
        printf("sums:");
        for (int r = 0; r < size; r++)
            printf(" %lld", all[r]);
        printf("\n");
    }
    MPI_Finalize();
    return 0;
}
