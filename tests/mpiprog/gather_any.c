/* SPDX-License-Identifier: MIT */
/*
 * gather_any.c — a gather to rank 0 in the order messages arrive (doc/mpi-programs.md): every
 * other rank sends its block with MPI_Isend and MPI_Wait; the root takes them with
 * MPI_Recv(MPI_ANY_SOURCE) and puts each where its status's MPI_SOURCE says, checking its
 * length with MPI_Get_count.
 */
#include "io.h"

int main(int argc, char **argv)
{
    int rank, size;
    long long mine[MAXV], all[MAXV], got[MAXV];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int b = read_input(rank, mine, argv);
    if (rank != 0) {
        MPI_Request req;
        MPI_Isend(mine, b, MPI_LONG_LONG, 0, 3, MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else {
        for (int i = 0; i < b; i++)
            all[i] = mine[i];
        for (int k = 1; k < size; k++) {
            MPI_Status st;
            int count;
            MPI_Recv(got, MAXV, MPI_LONG_LONG, MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, &st);
            MPI_Get_count(&st, MPI_LONG_LONG, &count);
            if (count != b || st.MPI_TAG != 3)
                MPI_Abort(MPI_COMM_WORLD, 1);
            for (int i = 0; i < b && st.MPI_SOURCE * b + i < MAXV; i++)
                all[st.MPI_SOURCE * b + i] = got[i];
        }
        write_result(rank, all, size * b);
    }
    MPI_Finalize();
    return 0;
}
