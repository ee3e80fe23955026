/* SPDX-License-Identifier: MIT */
/*
 * internal/outcome.h — the run's outcome (engine/outcome.c), the causal judge (engine/causal.c,
 * past.c) and flow indexes. Part of the engine's private structures (hm_internal.h, which includes
 * every part in this order); nothing in src/algo includes it.
 */
#ifndef HM_INTERNAL_OUTCOME_H
#define HM_INTERNAL_OUTCOME_H

#include "internal/judge.h"

/* ---- the outcome ---------------------------------------------------------------- */

/* Every node's events merged by (slot, node, seq); owns the events and their text. */
typedef struct hm__timeline_s {
    hm__event_t *ev;
    size_t n;
} hm__timeline_t;

/* What a run leaves once its machine is gone: immutable, read by verify (through
 * hm_report_t.priv), the writers and the summary. */
typedef struct hm__outcome_s {
    hm__end_t end;
    char *reason; /* why the run stopped, NULL when done */
    hm_machine_info_t info;
    const char *algorithm; /* the descriptor's name (static) */
    hm__stats_t stats;
    hm__int64vec_t *stores;      /* per node */
    hm__int64vec_t *store_slots; /* per node: the slot of each store */
    int64_t *words;              /* per node: the words delivered to it (hm__inbox_t) */
    hm__heard_t *heard;          /* per node: what it read, or NULL (not recorded) */
    hm__int64vec_t *shows;       /* per node: hm_show's changes (hm_node_s), or NULL */
    unsigned char *out;          /* per-node output areas, out_size bytes each, or NULL */
    size_t out_size;
    hm__timeline_t timeline;
    const char *transport_key; /* summary key of `transport`, or NULL */
    json_t *transport;         /* the transport's summary object, or NULL */
    json_t *threads;           /* opt.thread_figures: the threads' kernel figures, or NULL */
    int64_t refused;           /* refused calls (README "Refused calls") */
    int nrefusals;             /* the first of them, in full */
    hm__refusal_t refusals[HM__REFUSED_KEEP];
} hm__outcome_t;

/* engine/outcome.c: move what the run produced out of m (logs, stores, output areas,
 * figures) into a new outcome. Returns 0, or -1 when out of memory (m keeps it). */
int hm__outcome_take(hm__machine_t *m, hm__outcome_t **out);
void hm__outcome_free(hm__outcome_t *o);
/* What a plugin's own verify reads, copied from o (the machine, the figures, the stores
 * and their slots, the words delivered, the output areas; no timeline): nothing it
 * reaches through hm_report_t is what hypemu's check and judge read (README "What
 * verified means"). NULL when out of memory; freed by hm__outcome_free. */
hm__outcome_t *hm__outcome_copy(const hm__outcome_t *o);

/* What hm_report_t.priv points to while verify runs: the outcome, and the ledger of
 * what verify declared with hm_report_from (engine/causal.c). */
typedef struct hm__causal_s hm__causal_t;
typedef struct hm__report_priv_s {
    const hm__outcome_t *o;
    hm__causal_t *causal;
} hm__report_priv_t;

/* engine/causal.c: the ledger for outcome o (NULL: out of memory), freed by
 * hm__causal_free. After verify, hm__causal_judge checks what was declared against the
 * light cone and the volume delivered (README "What verified means"): 0 when it
 * holds, 1 after writing the verdict into why, -1 when out of memory. */
hm__causal_t *hm__causal_new(const hm__outcome_t *o);
void hm__causal_free(hm__causal_t *c);
int hm__causal_judge(const hm__causal_t *c, char *why, size_t len);
/* The slot of the last store declared in c, -1 if none: a plugin's completion_slots is
 * never less (README "What verified means"). */
int64_t hm__causal_last_slot(const hm__causal_t *c);
/* A lower bound no run can beat, from the judge itself (README "What verified means"):
 * the latest first slot in which a value verify declared could be stored, its source's
 * light cone at its node (0 for a node's own values), or -1 when none was declared. */
int64_t hm__causal_first_possible(const hm__causal_t *c);

/* engine/past.c: every node's causal past from the packets the nodes read (README "What
 * verified means"). Walks the run's slots and calls fn at each slot of `at` (sorted,
 * ascending) with the p rows of `words` 64-bit words each: bit u of row x is set when
 * something of node u has reached x by that slot (the reads of that slot included).
 * Returns 0; 1 when fn returned nonzero (the walk stops); -1 when out of memory; -2 when
 * the outcome holds no reads (opt.record_reads off) or the machine is larger than the
 * walk takes (HM__PAST_NODES nodes, HM__PAST_BYTES of snapshots). With arrival (p x p
 * slots) not NULL, arrival[x * p + u] gets the slot in which something of u first reached
 * x (INT64_MIN for u = x, INT64_MAX for never). */
#define HM__PAST_NODES 4096
#define HM__PAST_BYTES ((size_t)256 << 20)
typedef int (*hm__past_fn)(void *ctx, int64_t slot, const uint64_t *rows, size_t words);
int hm__causal_past(const hm__outcome_t *o, const int64_t *at, size_t nat, hm__past_fn fn,
                    void *ctx, int64_t *arrival);
/* What the judge checks besides the light cone of distances and the volume: the causal
 * past of every declared value (exact_cone, where silence carries no information) and
 * that every value a node stores as another node's reached it in a packet's words
 * (forwarded: problems that pass values on unchanged). */
void hm__causal_rules(hm__causal_t *c, int exact_cone, int forwarded);

/* The events of one kind that carry a flow id (the send<->recv pairing), sorted by
 * it, to find a transmission's other end. */
typedef struct hm__flow_index_s {
    hm__event_t **ev;
    size_t n;
} hm__flow_index_t;
int hm__flow_index(const hm__timeline_t *tl, hm__event_kind_t kind, hm__flow_index_t *ix);
const hm__event_t *hm__flow_find(const hm__flow_index_t *ix, uint64_t flow); /* or NULL */
void hm__flow_index_free(hm__flow_index_t *ix);

#endif /* HM_INTERNAL_OUTCOME_H */
