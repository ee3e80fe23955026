/*
 * portq.h — per-port output queues of a node, for store-and-forward algorithms in
 * which several packets may want the same link in one slot.
 *
 * Each port has its own queue ordered by a key (lower first) and, among equal keys,
 * by arrival (FIFO). hm_portq_send sends the heads, at most `per_port` per port (the
 * link capacity), so a node program that drains its queues this way never offers a
 * link more than it carries in a slot. The queues live on the node thread's stack or
 * heap and are touched by that thread only.
 */
#ifndef HM_ALGO_PORTQ_H
#define HM_ALGO_PORTQ_H

#include <stddef.h>

#include "hypemu.h"

typedef struct hm_portq_item_s {
    hm_packet_t pkt;
    int key;
} hm_portq_item_t;

typedef struct hm_portq_one_s {
    hm_portq_item_t *v;
    size_t head, n, cap;
} hm_portq_one_t;

typedef struct hm_portq_s {
    int nports;
    size_t total;
    hm_portq_one_t *q;
} hm_portq_t;

/* 0, or HM_ENOMEM. */
int hm_portq_init(hm_portq_t *q, int nports);
void hm_portq_free(hm_portq_t *q);

/* Queue a copy of p (without payload bytes) on port, behind every item whose key is
 * not greater. 0, or HM_ENOMEM. */
int hm_portq_push(hm_portq_t *q, int port, const hm_packet_t *p, int key);

/* Send up to per_port heads on every port. Returns the number sent or a negative
 * HM_E* code. */
int hm_portq_send(hm_portq_t *q, hm_node_t *n, int per_port);

static inline size_t hm_portq_size(const hm_portq_t *q)
{
    return q->total;
}

#endif
