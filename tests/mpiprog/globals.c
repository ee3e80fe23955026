/* SPDX-License-Identifier: MIT */
/*
 * globals.c — globals are private to each rank, as under real MPI (doc/mpi-programs.md,
 * "Globals"): every rank counts in a global the messages it received and keeps its rank in
 * another; with globals shared between ranks the counts would mix. A broadcast: the root's
 * block goes round the ring of ranks, one hop per rank, and each rank checks its globals.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define MAXB 64

static int received; /* messages this rank received */
static int my_rank = -1;
long long block[MAXB]; /* the broadcast's values */

int main(int argc, char **argv)
{
    int size, b = 0, root = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &my_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
#ifdef HYPEMU
    const int64_t *in = hm_mpi_input(&b);
    if (in)
        root = my_rank;
    for (int i = 0; i < b; i++)
        block[i] = in[i];
    MPI_Allreduce(MPI_IN_PLACE, &root, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
#else
    b = argc > 1 ? atoi(argv[1]) : 1;
    for (int i = 0; i < b && my_rank == root; i++)
        block[i] = 100 + i;
#endif
    MPI_Bcast(&b, 1, MPI_INT, root, MPI_COMM_WORLD);
    int me = (my_rank - root + size) % size;
    if (me > 0) {
        MPI_Recv(block, b, MPI_LONG_LONG, (my_rank + size - 1) % size, 7, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
        received++;
    }
    if (me < size - 1)
        MPI_Send(block, b, MPI_LONG_LONG, (my_rank + 1) % size, 7, MPI_COMM_WORLD);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (received != (me > 0) || my_rank != rank) {
        fprintf(stderr, "rank %d: globals shared: received %d, my_rank %d\n", rank, received,
                my_rank);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
#ifdef HYPEMU
    hm_mpi_result(block, b, MPI_LONG_LONG);
#else
    printf("rank %d:", rank);
    for (int i = 0; i < b; i++)
        printf(" %lld", block[i]);
    printf("\n");
#endif
    MPI_Finalize();
    return 0;
}
