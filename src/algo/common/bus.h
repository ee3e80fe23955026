/*
 * bus.h — helpers shared by the broadcast-channel algorithms (Dechter-Kleinrock 1981):
 * the channel mask, the order on elements, and the `values | n` input parameters.
 *
 * On the bus topology node x has a port to every other node (topo/topology.c), so a
 * broadcast is hm_shout(n, hma_bus_everyone(n), &p): one emission heard by all.
 */
#ifndef HMA_ALGO_BUS_H
#define HMA_ALGO_BUS_H

#include <stdint.h>

#include "hypemu.h"
#include "rng.h"

/* Every port of this node: a broadcast on the channel. */
uint64_t hma_bus_everyone(const hm_node_t *n);

/* The paper assumes distinct elements; equal values are ordered by processor, the
 * lower-numbered first, so that every comparison has one winner. Does element
 * (va of processor pa) come before (vb of processor pb) in nonincreasing order? */
static inline int hma_bus_beats(int64_t va, int pa, int64_t vb, int pb)
{
    return va > vb || (va == vb && pa < pb);
}

/* The input list: the parameter "values" if given, else "n" values drawn with the
 * seed: a random permutation of 1..n, so all elements are distinct. The algorithm's
 * specs declare both (their lengths, ranges and n's default); this checks only that
 * an n given with values is their number. *out is malloc'd. Returns 0 or -1 with
 * s->error set. */
int hma_bus_read_values(hm_setup_t *s, hma_rng_t *rng, int64_t **out, int64_t *n);

/* Fisher-Yates shuffle of v[0..n-1]. */
void hma_bus_shuffle(hma_rng_t *rng, int64_t *v, int64_t n);

#endif
