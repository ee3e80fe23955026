/*
 * mpi_transport.h — the MPI transport of hypemu-mpi (engine/mpi.c, doc/mpi.md), as
 * the command line (cli/main.c built with HM_MPI) sees it.
 */
#ifndef HM_MPI_TRANSPORT_H
#define HM_MPI_TRANSPORT_H

#include "hm_internal.h"

/* MPI_Init_thread (MPI_THREAD_SERIALIZED) and MPI_Finalize at exit; ranks other than
 * 0 write their standard output and error to /dev/null. 0, or -1 if MPI cannot run. */
int hm__mpi_start(int *argc, char ***argv);
int hm__mpi_rank(void);
int hm__mpi_size(void);
/* The packet transport across the ranks (for hm__options_t.transport). */
const hm__transport_t *hm__mpi_transport(void);
/* Rank 0's exit code, on every rank. */
int hm__mpi_agree_exit(int code);

#endif
