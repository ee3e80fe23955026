/* SPDX-License-Identifier: MIT */
/*
 * poll.c — a broadcast from rank 0 taken by polling (doc/mpi-programs.md): rank 0 sends its
 * block to every rank with MPI_Isend and polls MPI_Testall; even ranks post an MPI_Irecv and
 * poll MPI_Test, odd ranks poll MPI_Iprobe and then receive. A test or probe that finds
 * nothing ends the rank's slot, so the polls move time on.
 */
#include "io.h"

int main(int argc, char **argv)
{
    int rank, size, flag = 0;
    long long v[MAXV];
    MPI_Request reqs[64];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int b = read_input(rank, v, argv);
    MPI_Bcast(&b, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        for (int x = 1; x < size; x++)
            MPI_Isend(v, b, MPI_LONG_LONG, x, 1, MPI_COMM_WORLD, &reqs[x - 1]);
        while (!flag)
            MPI_Testall(size - 1, reqs, &flag, MPI_STATUSES_IGNORE);
    } else if (rank % 2 == 0) {
        MPI_Request r;
        MPI_Irecv(v, b, MPI_LONG_LONG, 0, 1, MPI_COMM_WORLD, &r);
        while (!flag)
            MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
    } else {
        MPI_Status st;
        while (!flag)
            MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
        MPI_Recv(v, b, MPI_LONG_LONG, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    write_result(rank, v, b);
    MPI_Finalize();
    return 0;
}
