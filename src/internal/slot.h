/* SPDX-License-Identifier: MIT */
/*
 * internal/slot.h — the slotted transports' shared pieces (engine/clock.c, packet.c, node.c,
 * names.c, util.c). Part of the engine's private structures (hm_internal.h, which includes every
 * part in this order); nothing in src/algo includes it.
 */
#ifndef HM_INTERNAL_SLOT_H
#define HM_INTERNAL_SLOT_H

#include "internal/machine.h"

/* engine/clock.c: the barrier clock of the slotted transports. */
void hm__clock_commit(hm__machine_t *m);
/* Register what node n asked for when it ended its slot (timer, packet, done). */
int hm__register_wait(hm__machine_t *m, hm_node_t *n);
/* engine/packet.c, for the barrier clock's transports' slot judges (hm__judge_ops_t): a
 * delivery woke node r (it runs in the next slot); node n's first stall takes back the wait
 * it registered. */
int hm__slot_woke(hm__machine_t *m, hm_node_t *r);
void hm__slot_take_back(hm__machine_t *m, hm_node_t *n);
/* A copy reaches its receiver in slot t (its last slot): into its inbox, logged. */
int hm__deliver(hm__machine_t *m, hm__copy_t *c, int64_t t);
/* engine/packet.c: commit slot t of the packet transport, whose new copies are in the
 * outboxes of `senders` (ascending node numbers). */
int hm__packet_commit(hm__machine_t *m, int64_t t, const int32_t *senders, size_t count);
/* The node side shared by the slotted transports. */
int hm__slot_pending(const hm_node_t *n);
int hm__slot_recv(hm_node_t *n, hm_packet_t *out);
int hm__slot_wait_packet(hm_node_t *n, hm_packet_t *out, int64_t deadline);
int hm__slot_wait_until(hm_node_t *n, int64_t slot);
/* The one wait loop of the barrier and local clocks, with the clock's yield (end the
 * node's slot and sleep: HM_OK, or HM_EABORT when the run stops) as a parameter. */
typedef int (*hm__yield_fn)(hm_node_t *n);
int hm__slot_wait(hm_node_t *n, hm_packet_t *out, int64_t deadline, hm__yield_fn yield);
int hm__slot_sleep(hm_node_t *n, int64_t slot, hm__yield_fn yield);
/* The deadlock report's line for node i under either clock (the transport's stalled_on
 * names the receiver of a full mailbox). */
int hm__slot_blocked_wait(const hm__machine_t *m, int i, char *buf, size_t len);
void hm__slot_finish(hm_node_t *n);
void hm__slot_abort(hm__machine_t *m, char *reason);
/* Their rows in a transport's table. */
#define HM__SLOT_NODE_SIDE                                                                         \
    .pending = hm__slot_pending, .recv = hm__slot_recv, .wait_packet = hm__slot_wait_packet,       \
    .wait_until = hm__slot_wait_until, .finish = hm__slot_finish, .abort = hm__slot_abort

/* engine/node.c: one emission as a copy per port into n's outbox, sharing one payload. */
int hm__emit_copies(hm_node_t *n, const hm__ports_t *ports, const hm_packet_t *p);
/* hm_send_to without routing: hm_send on the port that leads to dest. */
int hm__send_to_neighbour(hm_node_t *n, int dest, const hm_packet_t *p);
/* hm_send_routed to a node that is not a neighbour under packet routing and the barrier
 * clock: the copy for the first hop of the route, marked with its receiver. */
int hm__send_routed(hm_node_t *n, int dest, const hm_packet_t *p);

/* engine/names.c: the lists' names, NULL-terminated, indexed by their enums (the
 * catalogue's in hypemu.h; hm__contention_t; HM__SVG_BY_* of out/writers.h). */
extern const char *const hm__topology_names[];
extern const char *const hm__ports_names[];
extern const char *const hm__routing_names[];
extern const char *const hm__clock_mode_names[];
extern const char *const hm__contention_names[];
extern const char *const hm__svg_colour_names[];

/* engine/util.c: append an event to node n's own log (its thread, or the clock while
 * every node sleeps). */
/* engine/node.c: a node holds its input (hm_show) from slot 0, when a page is written. */
void hm__show_input(hm_node_t *n);
/* engine/util.c: attach the first words of p's payload to e (a recv), when it has one. */
void hm__event_payload(hm__event_t *e, const hm_packet_t *p);
void hm__log_event(hm_node_t *n, hm__event_kind_t kind, int64_t slot, int port, int peer, int msg,
                   int64_t value, int64_t dur, uint64_t flow, char *text);

#endif /* HM_INTERNAL_SLOT_H */
