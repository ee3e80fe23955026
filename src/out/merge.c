/*
 * merge.c — the per-node logs merged into one timeline, ordered by (slot, node,
 * sequence). Each node's log is already in sequence order and nearly in slot order
 * (the clock appends a receive at the slot it happened), so a stable sort of
 * pointers on (slot, node, seq) is enough.
 */
#include <stdlib.h>

#include "hm_internal.h"

static int cmp_event(const void *a, const void *b)
{
    const hm__event_t *x = *(hm__event_t *const *)a, *y = *(hm__event_t *const *)b;
    if (x->slot != y->slot)
        return x->slot < y->slot ? -1 : 1;
    if (x->node != y->node)
        return x->node < y->node ? -1 : 1;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

int hm__timeline_merge(const hm__machine_t *m, hm__timeline_t *tl)
{
    size_t total = 0;
    for (int i = 0; i < m->info.nodes; i++)
        total += m->nodes[i].log.n;
    tl->n = total;
    tl->ev = malloc((total ? total : 1) * sizeof *tl->ev);
    if (!tl->ev)
        return -1;
    size_t k = 0;
    for (int i = 0; i < m->info.nodes; i++)
        for (size_t j = 0; j < m->nodes[i].log.n; j++)
            tl->ev[k++] = &m->nodes[i].log.v[j];
    qsort(tl->ev, total, sizeof *tl->ev, cmp_event);
    return 0;
}

void hm__timeline_free(hm__timeline_t *tl)
{
    free(tl->ev);
    tl->ev = NULL;
    tl->n = 0;
}
