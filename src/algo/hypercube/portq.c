/* SPDX-License-Identifier: MIT */
/*
 * portq.c — per-port output queues (see portq.h).
 */
#include <stdlib.h>
#include <string.h>

#include "portq.h"

int hma_portq_init(hma_portq_t *q, int nports)
{
    q->nports = nports;
    q->total = 0;
    q->q = calloc(nports > 0 ? (size_t)nports : 1, sizeof *q->q);
    return q->q ? HM_OK : HM_ENOMEM;
}

void hma_portq_free(hma_portq_t *q)
{
    if (!q->q)
        return;
    for (int i = 0; i < q->nports; i++)
        free(q->q[i].v);
    free(q->q);
    q->q = NULL;
}

/* Each port's queue is a ring of cap entries (a power of two) from head, n of them:
 * a push or a send moves no other item, except past items of a greater key (and the
 * ring's wrapped part, once, when it doubles). */
static int grow(hma_portq_one_t *o)
{
    size_t cap = o->cap ? 2 * o->cap : 8;
    hma_portq_item_t *v = realloc(o->v, cap * sizeof *v);
    if (!v)
        return HM_ENOMEM;
    /* Full, so wrapped unless head is 0: its front part follows its back part. */
    if (o->head > 0)
        memcpy(v + o->cap, v, o->head * sizeof *v);
    o->v = v;
    o->cap = cap;
    return HM_OK;
}

int hma_portq_push(hma_portq_t *q, int port, const hm_packet_t *p, int key)
{
    if (port < 0 || port >= q->nports)
        return HM_EINVAL;
    hma_portq_one_t *o = &q->q[port];
    if (o->n == o->cap && grow(o) != HM_OK)
        return HM_ENOMEM;
    size_t mask = o->cap - 1, i = o->n;
    while (i > 0 && o->v[(o->head + i - 1) & mask].key > key) {
        o->v[(o->head + i) & mask] = o->v[(o->head + i - 1) & mask];
        i--;
    }
    hma_portq_item_t *it = &o->v[(o->head + i) & mask];
    it->pkt = *p;
    it->pkt.data = NULL;
    it->pkt.len = 0;
    it->key = key;
    o->n++;
    q->total++;
    return HM_OK;
}

int hma_portq_send(hma_portq_t *q, hm_node_t *n, int per_port)
{
    int sent = 0;
    for (int port = 0; port < q->nports; port++) {
        hma_portq_one_t *o = &q->q[port];
        for (int k = 0; k < per_port && o->n > 0; k++) {
            int rc = hm_send(n, port, &o->v[o->head].pkt);
            if (rc != HM_OK)
                return rc;
            o->head = (o->head + 1) & (o->cap - 1);
            o->n--;
            q->total--;
            sent++;
        }
    }
    return sent;
}
