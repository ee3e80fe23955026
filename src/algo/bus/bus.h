/* SPDX-License-Identifier: MIT */
/*
 * bus.h — helpers shared by the broadcast-channel algorithms (Dechter-Kleinrock 1981):
 * the channel mask, the order on elements, the `values | n | silent_slots` parameters,
 * a round of turns on the channel (hma_bus_round) and its summary keys.
 *
 * On the bus topology node x has a port to every other node (topo/topology.c), so a
 * broadcast is hm_shout(n, hma_bus_everyone(n), &p): one emission heard by all.
 */
#ifndef HMA_ALGO_BUS_H
#define HMA_ALGO_BUS_H

#include <stdint.h>

#include "../common/rng.h"
#include "hypemu.h"

/* The parameters that hma_bus_read_values reads: the list "values", its length bounds
 * given as constants (lo, hi) or machine quantities (lo_of, hi_of, HM_QTY_NONE for
 * none), and its length "n", with its range and default likewise; and "silent_slots",
 * what an empty turn takes (hma_bus_round). */
#define HMA_BUS_SPEC_VALUES(help_text, lo, hi, lo_of, hi_of)                                       \
    {                                                                                              \
        .name = "values", .type = HM_PARAM_INT_LIST, .min = INT64_MIN, .max = INT64_MAX,           \
        .len_min = lo, .len_max = hi, .len_min_of = lo_of, .len_max_of = hi_of,                    \
        .flags = HM_PARAM_OPTIONAL, .default_text = "drawn", .help = help_text                     \
    }
#define HMA_BUS_SPEC_N(default_txt, help_text, lo, hi, lo_of, hi_of, def_q)                        \
    {                                                                                              \
        .name = "n", .type = HM_PARAM_INT, .min = lo, .max = hi, .min_of = lo_of, .max_of = hi_of, \
        .def_of = def_q, .flags = HM_PARAM_OPTIONAL, .default_text = default_txt,                  \
        .help = help_text                                                                          \
    }
#define HMA_BUS_SPEC_SILENT_SLOTS                                                                  \
    {                                                                                              \
        .name = "silent_slots", .type = HM_PARAM_INT, .min = 0, .max = 1, .def = 1,                \
        .help = "slots an empty turn takes"                                                        \
    }

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

/* One round of turns on the channel, as one node plays it (Dechter-Kleinrock 1981,
 * section 1, the MAX algorithm; every cycle of MERGE-SORT's phase 2, section 2, is such
 * a round). The node reads the broadcasts sent before its turn; in its turn it either
 * broadcasts, heard by every other node, or stays silent, keeping the channel for
 * silent_slots slots (0: the paper's negligible empty slot); then it reads the channel
 * until the round ends. A node without a turn (the output processor) only reads. */
typedef struct hma_bus_round_s {
    int64_t turn;     /* the slot of this node's turn; -1: none */
    int64_t end;      /* read the channel until this slot; -1: until `expect` broadcasts */
    int64_t expect;   /* with end = -1: how many broadcasts to read after the turn */
    int silent_slots; /* slots an empty turn takes */
} hma_bus_round_t;

/* What the algorithm does in the round; ctx is its own. NULL members do nothing. */
typedef struct hma_bus_ops_s {
    /* A broadcast read before this node's turn, and one read after it. */
    void (*before)(void *ctx, const hm_packet_t *p);
    void (*after)(void *ctx, const hm_packet_t *p);
    /* The turn: fill *p and return 1 to broadcast it, 0 to stay silent, or a negative
     * HM_E* code to leave the round. NULL: always silent. */
    int (*speak)(void *ctx, hm_node_t *n, hm_packet_t *p);
    /* After this node's broadcast *p: record it (hm_store, hm_out). */
    void (*spoke)(void *ctx, hm_node_t *n, const hm_packet_t *p);
} hma_bus_ops_t;

/* Play one round. Returns HM_OK, HM_EABORT when the run stops, or speak's code. */
int hma_bus_round(hm_node_t *n, const hma_bus_round_t *r, const hma_bus_ops_t *ops, void *ctx);

/* The summary's channel keys (doc/bus.md): silent_turns, silent_slots and
 * channel_slots = broadcasts + silent_slots * silent turns, the channel time. */
void hma_bus_channel_extra(json_t *x, int64_t broadcasts, int64_t silent, int silent_slots);

#endif
