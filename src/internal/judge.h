/* SPDX-License-Identifier: MIT */
/*
 * internal/judge.h — the port models' admission rules (ports/ports.c), the slot judge
 * (engine/slot_judge.c) and circuits (engine/circuit.c). Part of the engine's private structures
 * (hm_internal.h, which includes every part in this order); nothing in src/algo includes it.
 */
#ifndef HM_INTERNAL_JUDGE_H
#define HM_INTERNAL_JUDGE_H

#include "internal/slot.h"

/* ports/ports.c: the port models as pure admission rules. Per-slot use of ports and
 * links: entries are valid when their stamp equals the current slot + 1, so nothing
 * is cleared between slots. */
typedef struct hm__use_s {
    int64_t *send_stamp, *recv_stamp, *link_stamp;
    int32_t *send_count, *recv_count, *link_count;
    uint32_t *send_emission;
    int32_t *send_copy, *recv_copy; /* index in the slot's candidate list, for reports */
    /* The bus port model's one channel: who holds it in the slot stamped. */
    int64_t bus_stamp;
    int32_t bus_src, bus_copy;
    uint32_t bus_emission;
    /* Nodes whose ports another process judges (engine/mpi_judge.c), or NULL: their rules
     * pass here and their use is not recorded. */
    const unsigned char *remote;
} hm__use_t;
int hm__use_init(hm__use_t *u, size_t nodes, size_t links);
void hm__use_free(hm__use_t *u);
/* Can cand[idx] (on directed link `link`) be transmitted in slot t, given what the slot
 * already carries? hm__port_check returns 0 when it can, else the first rule that refuses
 * it (1 the link's capacity, then 2..5 the model's own, checked alternately at the sender
 * and the receiver; engine/mpi_judge.c combines the two sides' answers by it) and writes
 * why; hm__port_record records an admitted copy's use. */
int hm__port_check(const hm__use_t *u, const hm_machine_info_t *info, const hm__copy_t *cand,
                   int idx, int link, int64_t t, char *why, size_t whylen);
void hm__port_record(hm__use_t *u, const hm_machine_info_t *info, const hm__copy_t *c, int idx,
                     int link, int64_t t);

/* engine/slot_judge.c: one slot's decisions under packet routing (candidate order,
 * mailboxes and stalls, the port model, hold and delivery), for the whole machine
 * (packet.c) or one group of nodes (local.c). What the clock does differently: */
typedef struct hm__judge_ops_s {
    /* Where node src's copies wait: refused under "queue", or stalled on a full mailbox. */
    hm__copyvec_t *(*held)(void *ctx, int src);
    hm__copyvec_t *(*stalled)(void *ctx, int src);
    /* A delivery in slot t woke node r (it runs in t + 1). 0 or -1. */
    int (*woke)(void *ctx, hm_node_t *r, int64_t t);
    /* Node n's first stall in slot t: the wait it registered no longer counts. */
    void (*take_back)(void *ctx, hm_node_t *n, int64_t t);
    /* Its backlog left in slot t: its wait counts again. 0 or -1. */
    int (*wait_again)(void *ctx, hm_node_t *n, int64_t t);
    /* A strict conflict at copy c in slot t: the run stops (reason is the clock's). */
    void (*conflict)(void *ctx, const hm__copy_t *c, int64_t t, char *reason);
} hm__judge_ops_t;
typedef struct hm__judge_s {
    int32_t *stall_count; /* copies stalled per link, to keep FIFO order */
    hm__use_t use;        /* the port model's use of ports and links */
    hm__copyvec_t cand;   /* the slot's candidates */
    hm__stats_t *stats;   /* the figures the decisions count into */
    const hm__judge_ops_t *ops;
    void *ctx;
    int32_t *path; /* scratch: a route (hm_send_routed's hops) */
} hm__judge_t;
int hm__judge_init(hm__judge_t *J, const hm__machine_t *m, const hm__judge_ops_t *ops, void *ctx);
void hm__judge_free(hm__judge_t *J);
/* A slot's decisions: begin, take the candidates (held copies, those a mailbox has
 * room for again, the new copies of each node that ran the slot), decide. */
void hm__judge_begin(hm__judge_t *J, hm__stats_t *stats);
int hm__judge_take_held(hm__judge_t *J, hm__copyvec_t *held);
int hm__judge_take_unstalled(hm__judge_t *J, hm__machine_t *m, hm__copyvec_t *stalled, int64_t t);
int hm__judge_take_new(hm__judge_t *J, hm__machine_t *m, hm_node_t *n, int64_t t);
int hm__judge_decide(hm__judge_t *J, hm__machine_t *m, int64_t t);
/* hm__judge_decide in parts, for a judge that gets some answers from another process
 * (engine/mpi_judge.c): the candidates in order (hm__cand_cmp, a total order), then each
 * candidate's verdict applied: rule 0 (hm__port_check) transmits it, another holds it. */
int hm__cand_cmp(const void *a, const void *b);
void hm__judge_sort(hm__judge_t *J);
int hm__judge_apply(hm__judge_t *J, hm__machine_t *m, size_t i, int64_t t, int rule,
                    const char *why);
/* Copy c reaches its receiver in slot t: counted in stats, into its inbox, logged.
 * Returns 1 when that wakes the receiver (its wait, now NONE, is the clock's to
 * register), 0, or -1. The payload passes to the inbox (released on failure). */
int hm__deliver_copy(hm__machine_t *m, hm__copy_t *c, int64_t t, hm__stats_t *stats);
/* Release the payloads of a vector of copies and free it. */
void hm__copies_free(hm__copyvec_t *v);

/* topo/topology.c: the neighbour tables of info's topology. */
int hm__topology_build(const hm_machine_info_t *info, hm__links_t *l, char *err, size_t errlen);
void hm__links_free(hm__links_t *l);
/* The directed links (node * maxdeg + port) of the route from s to d, in order, into
 * links (room for hm__route_max); returns how many (circuit routing). */
size_t hm__route(const hm_machine_info_t *info, const hm__links_t *l, int s, int d, int32_t *links);
size_t hm__route_max(const hm_machine_info_t *info);
/* The graph distance from u to x in links, and a node farthest from x. */
int hm__distance(const hm_machine_info_t *info, int u, int x);
int hm__farthest(const hm_machine_info_t *info, int x);

/* engine/circuit.c: the circuits of Seidel's model, their state and their decisions,
 * shared by the circuit transport (driven by the barrier clock) and the local clock
 * under circuit routing (engine/local.c), which call them in the same slots. */
typedef struct hm__circuits_s hm__circuits_t;
hm__circuits_t *hm__circuits_new(hm__machine_t *m); /* NULL: out of memory */
void hm__circuits_free(hm__circuits_t *cs);
/* Slot t: the new messages of the nodes ran[0..nran) (ascending: those that ran slot
 * t), the circuits that start, those that arrive (hm__deliver). 0 or -1. */
int hm__circuits_commit(hm__machine_t *m, hm__circuits_t *cs, const int32_t *ran, size_t nran,
                        int64_t t);
/* The next slot > t in which a message may start or arrives, INT64_MAX if none. */
int64_t hm__circuits_next(const hm__machine_t *m, hm__circuits_t *cs, int64_t t);
json_t *hm__circuits_summary(const hm__machine_t *m, const hm__circuits_t *cs);
/* Node side: hm_send and hm_shout (one message per neighbour), hm_send_to. */
int hm__circuit_emit(hm_node_t *n, const hm__ports_t *ports, const hm_packet_t *p);
int hm__circuit_send_to(hm_node_t *n, int dest, const hm_packet_t *p);
/* A circuit message's copy of p to dest (its payload allocated, the emission counted),
 * for the slotted and the free circuit transports; HM_ENOMEM marks the node failed. */
int hm__circuit_copy(hm_node_t *n, int dest, const hm_packet_t *p, hm__copy_t *c);
/* Slots a message of len bytes lasts when k circuits share its busiest link:
 * ceil(ceil(k / link_capacity) * a * len + b), at least 1. */
int64_t hm__circuit_slots(const hm_machine_info_t *in, int k, uint32_t len);
/* The reports of a message k's port contention (its receiver busy until slot until) and
 * link contention (kmax circuits on link from->to, the duration's factor). */
void hm__circuit_port_why(char *buf, size_t len, const hm__copy_t *k, int64_t until);
void hm__circuit_link_why(char *buf, size_t len, int capacity, const hm__copy_t *k, int from,
                          int to, int kmax, int64_t factor);
/* The summary's figures of a run decided elsewhere (engine/mpi_circuit.c): messages
 * started, link and port contention, max_link_sharing, the busiest link's ends. */
void hm__circuits_set_figures(hm__circuits_t *cs, const int64_t *f);

/* engine/refused.c: record a refused call of node n (its count, the first in full, the
 * event) and return HM_EINVAL; the node API calls them where it refuses. */
int hm__refuse_send(hm_node_t *n, int port, const hm_packet_t *p);
int hm__refuse_emit(hm_node_t *n, const hm__ports_t *ports, const hm_packet_t *p);
int hm__refuse_send_to(hm_node_t *n, int dest, const hm_packet_t *p);
int hm__refuse_send_routed(hm_node_t *n, int dest, const hm_packet_t *p);
int hm__refuse_wait_until(hm_node_t *n, int64_t slot);
int hm__refuse_wait_ns(hm_node_t *n, int64_t deadline_ns); /* not under the free clock */
/* " (made N refused calls; first: slot S CALL: REASON)" for a deadlock report's line of
 * node n, "" when it made none. */
void hm__refused_note(const hm_node_t *n, char *buf, size_t len);
/* The run's first refusals (by slot, then node), at most HM__REFUSED_KEEP, from every
 * node's own; returns how many. */
int hm__refused_first(const hm__machine_t *m, hm__refusal_t *out);

/* util */
int64_t hm__now_ns(void); /* CLOCK_MONOTONIC in ns (the free-running clock's stamps) */
char *hm__fail_message(const hm_node_t *n); /* why node n failed (allocated) */
char *hm__strdup_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *hm__vstrdup_printf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
/* A report of blocked nodes: head, then one line per node of m for which wait() writes
 * who it waits on (returns 1), with the node's refused calls, which are often why
 * (README "Refused calls"), at most 20, then "... and N more blocked nodes". */
char *hm__blocked_report(const char *head, const hm__machine_t *m,
                         int (*wait)(const hm__machine_t *m, int node, char *buf, size_t len));

#endif /* HM_INTERNAL_JUDGE_H */
