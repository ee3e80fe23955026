/* SPDX-License-Identifier: MIT */
/*
 * prefix.h — parallel prefix (suffix sums) over Q_d as real communication.
 *
 * Stamoulis-Tsitsiklis section 2.2: node x holds a_x and must learn
 * r_x = sum_{y >= x} a_y in 2d slots. The complete binary tree of [LeL90] is embedded
 * as the binomial tree of Q_d (a node's children differ from it in one bit below its
 * lowest set bit):
 *
 *   up-sweep, slot t0 + i (i = 0..d-1): the node whose lowest set bit is i sends
 *     B_i(x) = a_x + ... + a_(x + 2^i - 1), the sum of its subcube block, to x - 2^i,
 *     which adds it to its own block: B_(i+1) = B_i + received. Node 0 ends with the
 *     total B_d(0).
 *   down-sweep, slot t0 + 2d - 1 - i (i = d-1..0): every node whose low i + 1 bits are
 *     zero and which knows r_x sends r_x - B_i(x) = r_(x + 2^i) to x + 2^i.
 *
 * Each slot carries at most one packet per link: all-port, one-port and shout legal.
 */
#ifndef HMA_ALGO_PREFIX_H
#define HMA_ALGO_PREFIX_H

#include <stdint.h>

#include "hypemu.h"

/* Every node calls this in the same slot t0, before sending anything in it, with no
 * other traffic until t0 + 2d. On return the node is in slot t0 + 2d, *suffix holds
 * r_x and *total the sum of every a_y (node 0 only; -1 elsewhere). Packets carry
 * `tag`. Returns HM_OK or the negative code of a stopped run. */
int hma_prefix_suffix(hm_node_t *n, int d, int64_t a, int32_t tag, int64_t *suffix, int64_t *total);

#endif
