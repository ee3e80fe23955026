/* SPDX-License-Identifier: MIT */
/*
 * mpi_transport.h — the MPI transport of hypemu-mpi (engine/mpi.c, doc/mpi.md), as
 * hypemu-mpi's launcher (cli/mpi_launch.c) sees it.
 */
#ifndef HM_MPI_TRANSPORT_H
#define HM_MPI_TRANSPORT_H

#include "hm_internal.h"

/* MPI_Init_thread (MPI_THREAD_SERIALIZED) and MPI_Finalize at exit; ranks other than
 * 0 write their standard output and error to /dev/null. 0, or -1 if MPI cannot run. */
int hm__mpi_start(int *argc, char ***argv);
int hm__mpi_rank(void);
int hm__mpi_size(void);
/* The transport across the ranks (for hm__options_t.transport): packet or circuit routing. */
const hm__transport_t *hm__mpi_transport(int circuit);
/* Before the run (doc/mpi.md, "Every rank runs the same config"). A rank other than
 * 0 gets the first line it wrote on its standard error until now (the reason it stops
 * before the run, if it does), rank 0 an empty string; from then on the standard error
 * of the ranks other than 0 goes to /dev/null. */
void hm__mpi_early_message(char *buf, size_t len);

/* Every rank gives the description of the run it is about to make (text, its digest;
 * NULL when out of memory) and stop: -1 if it goes on, else the exit code it stops
 * with before the run. Returns HM__AGREE_SAME when every description is the same,
 * HM__AGREE_STOP when every rank stops (each with its own code), else
 * HM__AGREE_DIFFER with *rank the lowest rank whose description differs from rank
 * 0's (rank 0 gets its text in *theirs, malloc'd) and *stop0 rank 0's stop. */
enum { HM__AGREE_SAME, HM__AGREE_STOP, HM__AGREE_DIFFER };
int hm__mpi_agree(const char *text, uint64_t digest, int stop, char **theirs, int *rank,
                  int *stop0);

/* Rank 0's exit code, on every rank. */
int hm__mpi_agree_exit(int code);

#endif
