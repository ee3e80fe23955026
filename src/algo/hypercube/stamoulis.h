/* SPDX-License-Identifier: MIT */
/*
 * stamoulis.h — what simultaneous-broadcast and multinode-broadcast share: the
 * description of who broadcasts what, the three-phase algorithm of Stamoulis and
 * Tsitsiklis section 3.2 as a node program, and the checks run after the run.
 *
 * The state is built by setup and only read by the nodes. What each node observes
 * (hma_st_obs_t) goes into its own output area (hm_out; the descriptors declare
 * out_size = sizeof(hma_st_obs_t)), and verify reads it with hma_st_obs.
 */
#ifndef HMA_ALGO_STAMOULIS_H
#define HMA_ALGO_STAMOULIS_H

#include <stddef.h>
#include <stdint.h>

#include "hypemu.h"

typedef enum {
    HMA_ST_PREFIX,       /* 3.2: parallel prefix, routing to the roots, broadcasts */
    HMA_ST_RANDOMIZED,   /* 3.2, last paragraphs: random roots, no prefix phase */
    HMA_ST_RANDOM_FIXED, /* 3.2, the same with fixed windows (correct w.h.p. only) */
    HMA_ST_MULTINODE,    /* 3.2 with K = 2^d: r_x = 2^d - x known, no prefix phase */
    HMA_ST_SAME_ORDER,   /* 3.3.1 */
    HMA_ST_PRIORITY,     /* 3.3.2 */
    HMA_ST_RANK_ROTATED, /* 3.3.3 */
} hma_st_variant_t;

/* What one node saw: its output area (hm_out), written by that node only. */
typedef struct hma_st_obs_s {
    int64_t root_count;   /* root e_j: packets it received for T^(j) (N_j) */
    int64_t root_last;    /* root e_j: slot of the last one, -1 if none */
    int64_t root_start;   /* root e_j: slot of its first phase-3 emission */
    int overrun;          /* root e_j: phase 2 was not over when it should have been */
    int64_t go_slot;      /* node 0, randomized: slot it told the roots to go, -1 */
    int64_t prefix_total; /* node 0, prefix: K as computed by the parallel prefix */
    int64_t rank;         /* rank r_x as the node knew or computed it, -1 if none */
    int64_t emitted;      /* root e_j: data packets it broadcast in phase 3 */
    int64_t dropped;      /* randomized-window: routing packets dropped at the end of
                             phase 2 */
} hma_st_obs_t;

typedef struct hma_st_state_s {
    int d, p, cap;
    hma_st_variant_t variant;
    int packets;      /* packets per broadcasting node */
    int64_t K;        /* total number of packets */
    int *a;           /* a[x]: packets of node x (0 or packets) */
    int64_t *rank;    /* r_x = sum_{y >= x} a_y, for variants allowed to know it */
    int64_t *ids;     /* the K packet identifiers, ascending */
    int ranks_prefix; /* rank-rotated: compute the ranks with the prefix phase */
    int c_star;       /* randomized: the paper's C* > e */
    int64_t window;   /* randomized: slot at which phase 3 starts when every N_j fits
                         the window; randomized-window: length of phase 2 */
    uint64_t seed;
} hma_st_state_t;

/* The calling node's observations, set to "nothing seen" (-1): call it once. */
hma_st_obs_t *hma_st_obs_open(hm_node_t *n);

/* Node x's observations after the run (verify). */
static inline const hma_st_obs_t *hma_st_obs(const hm_report_t *r, int x)
{
    return (const hma_st_obs_t *)hm_report_out(r, x);
}

/* The identifier of node x's m-th packet (m = 1..packets). */
static inline int64_t hma_st_packet_id(const hma_st_state_t *st, int x, int m)
{
    return (int64_t)x * st->packets + m - 1;
}

/* A state for the machine with a[x] packets at node x (a is copied). NULL on
 * allocation failure. */
hma_st_state_t *hma_st_state_new(const hm_machine_info_t *mi, hma_st_variant_t variant,
                                 const int *a, int packets);
void hma_st_state_free(void *state);

/* Section 3.2 (variants prefix, randomized, randomized-window, multinode) as a node
 * program. */
void hma_st_three_phase_node(hm_node_t *n, void *state);

/* Section 3.2's report: delivery, bound, phases, N_j (and the randomized window). */
void hma_st_three_phase_verify(hm_report_t *r);

/* Did every node store every packet identifier exactly once? 1 if so; otherwise 0
 * and a sentence in why. */
int hma_st_check_delivery(hm_report_t *r, const hma_st_state_t *st, char *why, size_t len);

/* Lower bound of section 3.1: max(d, ceil((2^d - 1) K / (d 2^d))). */
int64_t hma_st_lower_bound(int d, int64_t K);

/* Fill the summary keys every variant reports (K, sources, packets). */
void hma_st_report_common(hm_report_t *r, const hma_st_state_t *st);

#endif
