/* SPDX-License-Identifier: MIT */
/*
 * progress.h — the progress line on stderr during a run (README "Progress").
 */
#ifndef HM_PROGRESS_H
#define HM_PROGRESS_H

#include "config.h"

typedef struct hm__progress_s hm__progress_t;

/* Start the progress line for machine m about to run: mode 1 (--progress) always, 0
 * when stderr is a terminal, -1 (--quiet) never; none when m's transport has no
 * machine-wide slot to report (the free-running clock).
 * The first line comes after 2 s, then one a second (HYPEMU_PROGRESS_PERIOD seconds
 * for both, when set). Returns NULL when there is none. */
hm__progress_t *hm__progress_start(hm__machine_t *m, int mode);

/* Stop it (erasing the line on a terminal) and free it; NULL is fine. */
void hm__progress_stop(hm__progress_t *p);

#endif
