/*
 * hm_internal.h — the engine's private structures. Nothing in src/algo may include
 * this file: algorithms see include/hypemu.h only.
 *
 * Data flows one way: config (cli/config.c) -> machine (engine/machine.c) -> node
 * threads (engine/clock.c, engine/node.c) -> per-node logs -> merged timeline
 * (out/merge.c) -> writers (out/) and the summary (cli/summary.c).
 */
#ifndef HM_INTERNAL_H
#define HM_INTERNAL_H

#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdio.h>

#include "hypemu.h"

/* Exit codes of SPEC section 1. */
enum {
    HM_EXIT_OK = 0,
    HM_EXIT_VERIFY = 1, /* verification failed or strict port-model violation */
    HM_EXIT_USAGE = 2,  /* bad usage or config */
    HM_EXIT_STUCK = 3,  /* deadlock or clock.max_slots reached */
    HM_EXIT_SYSTEM = 4, /* thread creation, memory, I/O */
};

typedef enum { HM__CONTENTION_STRICT, HM__CONTENTION_QUEUE } hm__contention_t;

/* ---- growable arrays ---------------------------------------------------- */

#define HM__VEC(T)                                                                                 \
    struct {                                                                                       \
        T *v;                                                                                      \
        size_t n, cap;                                                                             \
    }
/* Make room for one more element; returns 0 or -1 on allocation failure. */
int hm__grow(void **v, size_t *cap, size_t need, size_t elem);
#define HM__PUSH(vec, x)                                                                           \
    (((vec).n < (vec).cap ||                                                                       \
      hm__grow((void **)&(vec).v, &(vec).cap, (vec).n + 1, sizeof(*(vec).v)) == 0)                 \
         ? ((vec).v[(vec).n++] = (x), 0)                                                           \
         : -1)

/* ---- events -------------------------------------------------------------- */

#define HM__EVENT_MAP(XX)                                                                          \
    XX(SEND, "send")                                                                               \
    XX(RECV, "recv")                                                                               \
    XX(STORE, "store")                                                                             \
    XX(STALL, "stall")                                                                             \
    XX(DELAY, "delay")                                                                             \
    XX(CONFLICT, "conflict")                                                                       \
    XX(BUSY, "busy")                                                                               \
    XX(LOG, "log")

typedef enum {
#define XX(id, name) HM__EV_##id,
    HM__EVENT_MAP(XX)
#undef XX
        HM__EV_COUNT
} hm__event_kind_t;

const char *hm__event_name(hm__event_kind_t k);

typedef struct hm__event_s {
    int64_t slot;
    int32_t node;
    uint32_t seq; /* per-node sequence number: the merge key after (slot, node) */
    uint8_t kind;
    int32_t port; /* port used or -1 */
    int32_t peer; /* the other node (to / from), -1 if none */
    int32_t msg;
    int64_t value;
    int64_t dur;   /* slots the transmission or busy period lasts */
    uint64_t flow; /* send<->recv pairing id for traces (0: none) */
    char *text;    /* owned; algorithm log text or conflict explanation */
} hm__event_t;

typedef HM__VEC(hm__event_t) hm__log_t;

/* ---- packets in the engine ----------------------------------------------- */

/* A byte payload shared by all copies of one emission. */
typedef struct hm__blob_s {
    atomic_int refs;
    uint32_t len;
    unsigned char bytes[];
} hm__blob_t;

void hm__blob_release(hm__blob_t *b);

/* One packet on one directed link: the unit the port model judges. */
typedef struct hm__copy_s {
    hm_packet_t pkt; /* data points into blob (or NULL) */
    hm__blob_t *blob;
    int32_t src, dst;  /* sending and receiving node */
    int32_t sport;     /* sender's port */
    int32_t dport;     /* receiver's port */
    uint32_t emission; /* sender-local emission number (a shout is one emission) */
    int64_t sent_slot;
    uint64_t flow; /* unique id pairing the send and recv events */
    int64_t dur;   /* slots the transmission lasts (1 in packet routing) */
    int delayed;   /* already counted as delayed */
} hm__copy_t;

typedef HM__VEC(hm__copy_t) hm__copyvec_t;

/* ---- nodes --------------------------------------------------------------- */

typedef enum {
    HM__WAIT_NONE,   /* running in the current slot */
    HM__WAIT_TIMER,  /* sleeps until wake_at */
    HM__WAIT_PACKET, /* sleeps until a packet arrives, or wake_at if >= 0 */
    HM__WAIT_DONE,   /* node program returned */
} hm__wait_t;

typedef struct hm__machine_s hm__machine_t;

struct hm_node_s {
    int id;
    hm__machine_t *m;
    int64_t now; /* the slot this node is in (copy of the clock) */
    pthread_t thread;
    int started;
    sem_t wake;

    /* What the node asked for when it ended its slot. */
    hm__wait_t wait;
    int64_t wake_at;
    uint32_t wake_gen;   /* invalidates stale timer entries */
    int woke_by_packet;  /* set by the clock: 1 packet, 0 deadline */
    int stalled;         /* copies of this node held back by full mailboxes */
    size_t active_index; /* place in the active list of its slot (wake-up tree) */

    uint32_t emissions;   /* emission counter */
    hm__copyvec_t outbox; /* copies sent in the current slot */

    hm__copyvec_t inbox; /* received packets, read from head */
    size_t inbox_head;
    hm__blob_t *held; /* payload of the last packet handed out */

    hm__log_t log;
    uint32_t seq;
    HM__VEC(int64_t) stores;
    int64_t busy_last;     /* last slot of hm_busy work, -1 */
    int failed;            /* an allocation failed in this node's thread, or hm_fail */
    const char *fail_what; /* hm_fail's reason (the caller's string), or NULL */
};

/* ---- the machine ---------------------------------------------------------- */

typedef struct hm__timer_s {
    int64_t slot;
    int32_t node;
    uint32_t gen;
} hm__timer_t;

/* Per-slot use of ports and links, judged by the port model. Entries are valid when
 * their stamp equals the current slot + 1, so nothing is cleared between slots. */
typedef struct hm__use_s {
    int64_t *send_stamp, *recv_stamp, *link_stamp;
    int32_t *send_count, *recv_count, *link_count;
    uint32_t *send_emission;
    int32_t *send_copy, *recv_copy; /* index in the slot's candidate list, for reports */
    /* The bus port model's one channel: who holds it in the slot stamped. */
    int64_t bus_stamp;
    int32_t bus_src, bus_copy;
    uint32_t bus_emission;
} hm__use_t;

typedef struct hm__stats_s {
    int64_t transmissions; /* copies delivered */
    int64_t conflicts;
    int64_t delayed_packets; /* copies delayed at least once */
    int64_t delay_slots;     /* slots of delay added up */
    int64_t stalls;          /* copies held back by a full mailbox */
    int64_t max_mailbox_depth;
    int64_t last_activity; /* last slot with a transmission or busy slot, -1 */
    int64_t slots_run;     /* slots the clock actually opened */
} hm__stats_t;

typedef struct hm__options_s {
    hm_machine_info_t info;
    int mailbox_capacity;
    hm__contention_t contention;
    int64_t max_slots;
    int record_events;
    size_t stack_size;
    int free_mode; /* clock.mode "free": no barrier, logical clocks (engine/free.c) */
} hm__options_t;

struct hm__machine_s {
    hm__options_t opt;
    hm_machine_info_t info; /* = opt.info */
    const hm_algorithm_t *algo;
    void *state;

    /* Topology: maxdeg ports per node; nbr[node*maxdeg+port] = neighbour or -1,
     * rport[...] = the neighbour's port back. */
    int maxdeg;
    int *deg;
    int32_t *nbr, *rport;

    hm_node_t *nodes;

    /* Clock. */
    atomic_int active_left; /* nodes still running in the current slot */
    int64_t now;
    HM__VEC(int32_t) active;     /* nodes running in the current slot, ascending */
    HM__VEC(hm__timer_t) timers; /* min-heap on (slot, node) */
    int done_nodes;
    uint64_t next_flow;

    /* Mailboxes: occupancy per directed link (delayed + received-unread copies). */
    int32_t *occ;
    int32_t *stall_count;   /* copies stalled per link, to keep FIFO order */
    hm__copyvec_t pending;  /* sent, not yet transmitted (queue policy) */
    hm__copyvec_t stalled;  /* waiting for room in a mailbox */
    hm__copyvec_t cand;     /* scratch: this slot's candidates */
    HM__VEC(int32_t) woken; /* scratch: nodes woken by a packet */
    hm__use_t use;

    hm__stats_t stats;

    /* Circuit routing (ports/circuit.c), NULL under packet routing. */
    struct hm__circuits_s *circ;

    /* The free-running clock (engine/free.c), NULL in slotted mode. */
    struct hm__free_s *free;

    /* Stopping. */
    atomic_int aborted;
    int exit_code;
    char *stop_reason; /* conflict report, deadlock report... (owned) */
};

/* engine/machine.c */
int hm__machine_create(hm__machine_t **out, const hm__options_t *opt, const hm_algorithm_t *algo,
                       void *state, char *err, size_t errlen);
/* Runs the node threads to the end. Returns an HM_EXIT_* code. */
int hm__machine_run(hm__machine_t *m);
void hm__machine_destroy(hm__machine_t *m);

/* engine/clock.c */
int hm__yield(hm_node_t *n);          /* end the node's slot and sleep as n->wait says */
void hm__wake_children(hm_node_t *n); /* pass the wake-up on (wake-up tree) */
void hm__finish(hm_node_t *n);        /* the node program returned */
void hm__commit(hm__machine_t *m);
void hm__stop(hm__machine_t *m, int code, char *reason); /* takes reason */

/* engine/log.c */
void hm__log_event(hm_node_t *n, hm__event_kind_t kind, int64_t slot, int port, int peer, int msg,
                   int64_t value, int64_t dur, uint64_t flow, char *text);

/* ports/ports.c: can copy c be transmitted now, given what the slot already carries?
 * Returns 1 and records the use, or 0 and writes why into `why`. */
int hm__port_admit(hm__machine_t *m, int idx, char *why, size_t whylen);

/* ports/circuit.c: circuit routing and Seidel's cost model (SPEC section 5). Under
 * circuit routing the clock hands the slot's new messages to hm__circuit_commit
 * instead of the port model; messages then travel for several slots, and the clock
 * asks hm__circuit_next for the next slot in which one starts or arrives. */
int hm__circuit_create(hm__machine_t *m);
void hm__circuit_destroy(hm__machine_t *m);
/* Queue a message of node n (called from n's thread, into n's outbox). */
int hm__circuit_send(hm_node_t *n, int dest, const hm_packet_t *p);
/* In commit of slot t: take the outboxes of the slot's active nodes (active may be
 * NULL), start what can start in slot t, deliver what arrives in slot t. */
int hm__circuit_commit(hm__machine_t *m, int64_t t);
/* The next slot after t in which a message may start or arrives; INT64_MAX if none. */
int64_t hm__circuit_next(hm__machine_t *m, int64_t t);
/* Circuit figures for the summary (a new object), NULL under packet routing. */
json_t *hm__circuit_summary(const hm__machine_t *m);

/* engine/free.c: the free-running clock (clock.mode "free"). No barrier: every node
 * thread runs as fast as it can, keeps its own logical (Lamport) clock in n->now and
 * sends straight into the receiver's mailbox, a mutex and condition variable per
 * receiving node, bounded per directed link by mailbox.capacity. The node API in
 * node.c calls these instead of the slotted clock when m->free is set. */
int hm__free_create(hm__machine_t *m);
void hm__free_destroy(hm__machine_t *m);
int hm__free_post(hm_node_t *n); /* deliver n's outbox now (may block: backpressure) */
int hm__free_pending(const hm_node_t *n);
int hm__free_recv(hm_node_t *n, hm_packet_t *out);
int hm__free_wait_packet(hm_node_t *n, hm_packet_t *out, int64_t deadline);
int hm__free_wait_until(hm_node_t *n, int64_t slot); /* slot > n->now */
void hm__free_finish(hm_node_t *n);                  /* the node program returned */
void hm__free_collect(hm__machine_t *m);             /* after the join: fold the figures */
json_t *hm__free_summary(const hm__machine_t *m);    /* NULL in slotted mode */

/* engine/clock.c: a copy reaches its receiver in slot t (its last slot). */
int hm__deliver(hm__machine_t *m, hm__copy_t *c, int64_t t);

/* topo/topology.c */
int hm__topology_build(hm__machine_t *m, char *err, size_t errlen);

/* util */
char *hm__fail_message(const hm_node_t *n); /* why node n failed (allocated) */
char *hm__strdup_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* out/merge.c: every node's log merged by (slot, node, seq). */
typedef struct hm__timeline_s {
    hm__event_t **ev;
    size_t n;
} hm__timeline_t;
int hm__timeline_merge(const hm__machine_t *m, hm__timeline_t *tl);
void hm__timeline_free(hm__timeline_t *tl);

#endif /* HM_INTERNAL_H */
