/* SPDX-License-Identifier: MIT */
/*
 * portq.h — per-port output queues of a node, for store-and-forward algorithms in
 * which several packets may want the same link in one slot.
 *
 * Each port has its own queue ordered by a key (lower first) and, among equal keys,
 * by arrival (FIFO). hma_portq_send sends the heads, at most `per_port` per port (the
 * link capacity), so a node program that drains its queues this way never offers a
 * link more than it carries in a slot. The queues live on the node thread's stack or
 * heap and are touched by that thread only.
 */
#ifndef HMA_ALGO_PORTQ_H
#define HMA_ALGO_PORTQ_H

#include <stddef.h>

#include "hypemu.h"

typedef struct hma_portq_item_s {
    hm_packet_t pkt;
    int key;
} hma_portq_item_t;

/* A ring: n items from v[head], wrapping at cap (0 or a power of two). */
typedef struct hma_portq_one_s {
    hma_portq_item_t *v;
    size_t head, n, cap;
} hma_portq_one_t;

typedef struct hma_portq_s {
    int nports;
    size_t total;
    hma_portq_one_t *q;
} hma_portq_t;

/* 0, or HM_ENOMEM. */
int hma_portq_init(hma_portq_t *q, int nports);
void hma_portq_free(hma_portq_t *q);

/* Queue a copy of p (without payload bytes) on port, behind every item whose key is
 * not greater. 0, or HM_ENOMEM. */
int hma_portq_push(hma_portq_t *q, int port, const hm_packet_t *p, int key);

/* Send up to per_port heads on every port. Returns the number sent or a negative
 * HM_E* code. */
int hma_portq_send(hma_portq_t *q, hm_node_t *n, int per_port);

static inline size_t hma_portq_size(const hma_portq_t *q)
{
    return q->total;
}

#endif
