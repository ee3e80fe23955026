/* SPDX-License-Identifier: MIT */
/*
 * io.h — a rank's input and result in the example and test programs written for real MPI
 * (doc/mpi-programs.md, "Testing against real MPI"): under hypemu (hypemu-mpicc defines
 * HYPEMU) the problem's input (hm_mpi_input) and its check (hm_mpi_result); under mpirun the
 * file named by argv[1], line r + 1 holding rank r's values (the format of hypemu's
 * algorithm.inputs file), and the result printed as "rank R: v0 v1 ...".
 */
#ifndef MPIPROG_IO_H
#define MPIPROG_IO_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define MAXV 4096

#ifdef HYPEMU
static int read_input(int rank, long long *v, char **argv)
{
    (void)rank;
    (void)argv;
    int count;
    const int64_t *in = hm_mpi_input(&count);
    for (int i = 0; i < count && i < MAXV; i++)
        v[i] = in[i];
    return count;
}

static void write_result(int rank, const long long *v, int count)
{
    (void)rank;
    hm_mpi_result(v, count, MPI_LONG_LONG);
}
#else
static int read_input(int rank, long long *v, char **argv)
{
    FILE *f = argv[1] ? fopen(argv[1], "r") : NULL;
    char line[8192];
    int count = 0;
    for (int r = 0; f && fgets(line, sizeof line, f); r++)
        for (char *s = line, *e; r == rank && count < MAXV; s = e) {
            long long x = strtoll(s, &e, 10);
            if (e == s)
                break;
            v[count++] = x;
        }
    if (f)
        fclose(f);
    return count;
}

static void write_result(int rank, const long long *v, int count)
{
    printf("rank %d:", rank);
    for (int i = 0; i < count; i++)
        printf(" %lld", v[i]);
    printf("\n");
}
#endif
#endif /* MPIPROG_IO_H */
