/* SPDX-License-Identifier: MIT */
/*
 * launcher.h — what differs between hypemu and hypemu-mpi (doc/mpi.md), behind one small
 * interface: cli/main.c is the one command line of both (README "Command line"), and
 * hypemu-mpi's launcher (cli/mpi_launch.c) fills the hooks that run it across MPI ranks.
 * A NULL hook does nothing.
 */
#ifndef HM_CLI_LAUNCHER_H
#define HM_CLI_LAUNCHER_H

#include "run.h"

typedef struct hm__launcher_s {
    const char *name; /* the program, in messages */
    int sandbox;      /* 1: --sandbox runs node programs in processes (hypemu only) */
    /* Before the command line is read: 0, or -1 when the program cannot start (it said
     * why). May change argc and argv. */
    int (*start)(int *argc, char ***argv);
    /* After the config is loaded (rc -1: loaded and going on, else the exit code this
     * process stops with): the code every process goes on with (-1) or stops with. */
    int (*agree)(int rc, const hm__config_t *cfg, int validate, int repeat);
    /* Before the run: HM_EXIT_OK, or the exit code of a refusal (named on stderr). */
    int (*prepare)(hm__config_t *cfg, int repeat);
    /* After the run: the exit code, the summary completed. */
    int (*finish)(int rc, hm__result_t *res);
} hm__launcher_t;

extern const hm__launcher_t hm__launcher_plain; /* hypemu: no hooks, the sandbox */

/* The command line under launcher l; hm_main is hm__main with hm__launcher_plain. */
int hm__main(int argc, char **argv, const hm__launcher_t *l);

#endif /* HM_CLI_LAUNCHER_H */
