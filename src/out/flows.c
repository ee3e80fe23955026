/* SPDX-License-Identifier: MIT */
/*
 * flows.c — a transmission's two ends: the send and the receive events of one copy
 * carry the same flow id, and the writers (trace, svg, otf2) find one end from the
 * other through a sorted index of one kind of event.
 */
#include <stdlib.h>

#include "hm_internal.h"

static int cmp_flow(const void *a, const void *b)
{
    uint64_t x = (*(hm__event_t *const *)a)->flow, y = (*(hm__event_t *const *)b)->flow;
    return (x > y) - (x < y);
}

int hm__flow_index(const hm__timeline_t *tl, hm__event_kind_t kind, hm__flow_index_t *ix)
{
    ix->n = 0;
    ix->ev = malloc((tl->n ? tl->n : 1) * sizeof *ix->ev);
    if (!ix->ev)
        return -1;
    for (size_t i = 0; i < tl->n; i++)
        if (tl->ev[i].kind == kind && tl->ev[i].flow)
            ix->ev[ix->n++] = &tl->ev[i];
    qsort(ix->ev, ix->n, sizeof *ix->ev, cmp_flow);
    return 0;
}

const hm__event_t *hm__flow_find(const hm__flow_index_t *ix, uint64_t flow)
{
    size_t lo = 0, hi = ix->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ix->ev[mid]->flow < flow)
            lo = mid + 1;
        else
            hi = mid;
    }
    return flow && lo < ix->n && ix->ev[lo]->flow == flow ? ix->ev[lo] : NULL;
}

void hm__flow_index_free(hm__flow_index_t *ix)
{
    free(ix->ev);
    ix->ev = NULL;
    ix->n = 0;
}
