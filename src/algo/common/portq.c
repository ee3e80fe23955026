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

int hma_portq_push(hma_portq_t *q, int port, const hm_packet_t *p, int key)
{
    if (port < 0 || port >= q->nports)
        return HM_EINVAL;
    hma_portq_one_t *o = &q->q[port];
    if (o->head > 0 && o->head == o->n)
        o->head = o->n = 0;
    if (o->n == o->cap) {
        /* Reuse the consumed front before growing. */
        if (o->head > 0) {
            memmove(o->v, o->v + o->head, (o->n - o->head) * sizeof *o->v);
            o->n -= o->head;
            o->head = 0;
        } else {
            size_t cap = o->cap ? 2 * o->cap : 8;
            hma_portq_item_t *v = realloc(o->v, cap * sizeof *v);
            if (!v)
                return HM_ENOMEM;
            o->v = v;
            o->cap = cap;
        }
    }
    size_t i = o->n;
    while (i > o->head && o->v[i - 1].key > key) {
        o->v[i] = o->v[i - 1];
        i--;
    }
    o->v[i].pkt = *p;
    o->v[i].pkt.data = NULL;
    o->v[i].pkt.len = 0;
    o->v[i].key = key;
    o->n++;
    q->total++;
    return HM_OK;
}

int hma_portq_send(hma_portq_t *q, hm_node_t *n, int per_port)
{
    int sent = 0;
    for (int port = 0; port < q->nports; port++) {
        hma_portq_one_t *o = &q->q[port];
        for (int k = 0; k < per_port && o->head < o->n; k++) {
            int rc = hm_send(n, port, &o->v[o->head].pkt);
            if (rc != HM_OK)
                return rc;
            o->head++;
            q->total--;
            sent++;
        }
    }
    return sent;
}
