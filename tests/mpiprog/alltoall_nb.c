/* SPDX-License-Identifier: MIT */
/*
 * alltoall_nb.c — an alltoall with non-blocking calls (doc/mpi-programs.md): every rank posts
 * an MPI_Irecv for each other rank, sends block y to rank y with MPI_Isend, takes the
 * receives as they complete with MPI_Waitany and ends the sends with MPI_Waitall.
 */
#include "io.h"

int main(int argc, char **argv)
{
    int rank, size;
    long long mine[MAXV], out[MAXV];
    MPI_Request recv[64], send[64];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int b = read_input(rank, mine, argv) / size;
    for (int y = 0; y < size; y++)
        if (y == rank) {
            recv[y] = send[y] = MPI_REQUEST_NULL;
            for (int i = 0; i < b; i++)
                out[y * b + i] = mine[y * b + i];
        } else {
            MPI_Irecv(&out[y * b], b, MPI_LONG_LONG, y, 9, MPI_COMM_WORLD, &recv[y]);
        }
    for (int y = 0; y < size; y++)
        if (y != rank)
            MPI_Isend(&mine[y * b], b, MPI_LONG_LONG, y, 9, MPI_COMM_WORLD, &send[y]);
    for (int k = 1; k < size; k++) {
        int index;
        MPI_Status st;
        MPI_Waitany(size, recv, &index, &st);
        if (index == MPI_UNDEFINED || st.MPI_SOURCE != index)
            MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Waitall(size, send, MPI_STATUSES_IGNORE);
    write_result(rank, out, size * b);
    MPI_Finalize();
    return 0;
}
