/* SPDX-License-Identifier: MIT */
/*
 * mpi_launch.c — hypemu-mpi's launcher (doc/mpi.md; cli/launcher.h): MPI started before
 * the command line is read, the ranks' configs compared before anything runs, the refusals
 * of what cannot run across ranks, rank 0 alone writing the outputs, and every rank
 * exiting with rank 0's code. The transport that runs a machine across the ranks is the
 * engine's (engine/mpi.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/agree.h"
#include "engine/mpi_transport.h"
#include "launcher.h"

static int mpi_start(int *argc, char ***argv)
{
    if (hm__mpi_start(argc, argv) != 0) {
        fprintf(stderr, "hypemu-mpi: MPI cannot start (MPI_Init_thread)\n");
        return -1;
    }
    return 0;
}

/* hypemu-mpi (doc/mpi.md): on more than one rank the packet transport runs across
 * them; rank 0 alone writes the outputs. The free-running clock runs on one rank only. Returns
 * HM_EXIT_OK or the exit code of a refusal. */
static int mpi_prepare(hm__config_t *cfg, int repeat)
{
    int size = hm__mpi_size();
    if (size == 1)
        return HM_EXIT_OK;
    if (repeat) {
        fprintf(stderr,
                "hypemu-mpi: --repeat runs on one rank only; found %d ranks (repeat with "
                "mpirun -np 1, or with hypemu)\n",
                size);
        return HM_EXIT_USAGE;
    }
    /* What the MPI transport cannot do (doc/mpi.md "What runs across ranks"). */
    const char *what = NULL, *why = NULL;
    if (cfg->opt.clock == HM_CLOCK_FREE) {
        what = "clock.mode \"free\"";
        why = "the free-running clock has no slots, and the ranks exchange their packets "
              "at the end of each slot";
    }
    if (what) {
        fprintf(stderr,
                "hypemu-mpi: %s: %s cannot run across ranks (found %d): %s; allowed on more "
                "than one rank: clock.mode \"slotted\" or \"local\"; run this config on one rank "
                "(mpirun -np 1, or hypemu)\n",
                cfg->file, what, size, why);
        return HM_EXIT_USAGE;
    }
    if (size > cfg->opt.info.nodes) {
        fprintf(stderr,
                "hypemu-mpi: %s: %d ranks for %d nodes; allowed: at most one rank per node\n",
                cfg->file, size, cfg->opt.info.nodes);
        return HM_EXIT_USAGE;
    }
    cfg->opt.transport = hm__mpi_transport(cfg->opt.info.circuit);
    if (hm__mpi_rank() != 0) {
        char **paths[] = {&cfg->out_timeline, &cfg->out_trace, &cfg->out_events,
                          &cfg->out_svg,      &cfg->out_otf2,  &cfg->out_html};
        for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
            free(*paths[i]);
            *paths[i] = NULL;
        }
    }
    return HM_EXIT_OK;
}

/* Before anything runs, every rank compares the run it is about to make with the
 * others' (doc/mpi.md, "Every rank runs the same config"): rc is -1 when this rank
 * goes on (cfg loaded), else the code it stops with. On a difference rank 0 names the
 * first one and every rank exits 2 (or with rank 0's own code when rank 0 stops, having
 * said why). Returns rc, or the code every rank stops with. */
static int mpi_agree(int rc, const hm__config_t *cfg, int validate, int repeat)
{
    if (hm__mpi_size() == 1)
        return rc;
    char why[1024];
    hm__mpi_early_message(why, sizeof why);
    hm__agree_t a = {validate, repeat, rc, why[0] ? why : NULL, getenv("HM_MPI_STATS")};
    char *text = hm__agree_text(rc < 0 ? cfg : NULL, &a), *theirs = NULL;
    int rank = 0, stop0 = -1;
    int v = hm__mpi_agree(text, text ? hm__fnv1a(text, strlen(text), HM__FNV_BASIS) : 0, rc,
                          &theirs, &rank, &stop0);
    if (v == HM__AGREE_DIFFER && hm__mpi_rank() == 0 && stop0 <= 0) {
        char *msg = text && theirs ? hm__agree_difference(text, theirs, rank) : NULL;
        fprintf(stderr, "hypemu-mpi: %s\n",
                msg ? msg : "the ranks' configs cannot be compared (out of memory)");
        free(msg);
    }
    free(text);
    free(theirs);
    if (v != HM__AGREE_DIFFER)
        return rc;
    return stop0 > 0 ? stop0 : HM_EXIT_USAGE;
}

/* Every rank exits with rank 0's code; the summary says how many ranks ran. */
static int mpi_finish(int rc, hm__result_t *res)
{
    rc = hm__mpi_agree_exit(rc);
    if (res->summary) {
        json_object_set_new(res->summary, "ranks", json_integer(hm__mpi_size()));
        json_object_set_new(res->summary, "exit_code", json_integer(rc));
    }
    return rc;
}

const hm__launcher_t hm__launcher_mpi = {.name = "hypemu-mpi",
                                         .start = mpi_start,
                                         .agree = mpi_agree,
                                         .prepare = mpi_prepare,
                                         .finish = mpi_finish};
