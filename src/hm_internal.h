/* SPDX-License-Identifier: MIT */
/*
 * hm_internal.h — the engine's private structures. Nothing in src/algo may include
 * this file: algorithms see include/hypemu.h only.
 *
 * Data flows one way: config (cli/config.c) -> machine (engine/machine.c) -> node
 * threads (engine/node.c, the machine's transport) -> the run's outcome
 * (engine/outcome.c: end cause, figures, stores, the merged timeline) -> writers
 * (out/writers.h) and the summary (cli/summary.c). The machine is destroyed before the
 * writers run.
 *
 * A transport is how packets move and time passes: the slotted clock with packet
 * routing (engine/packet.c) or circuit routing (engine/circuit.c), both driven by the
 * barrier clock (engine/clock.c), the local clock (engine/local.c: the same slots
 * without the barrier), or the free-running clock (engine/free.c). Under packet
 * routing one slot judge (engine/slot_judge.c) takes every slot's decisions, for the
 * whole machine (barrier) or one group of nodes (local). The
 * machine picks one at creation (hm__transport_for); the node API (engine/node.c)
 * calls it through hm__transport_t and has no mode branches.
 */
#ifndef HM_INTERNAL_H
#define HM_INTERNAL_H

#include <pthread.h>
#include <semaphore.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>

#include "hypemu.h"

/* Exit codes of README "Exit codes". Only the command line (cli/run.c, cli/main.c)
 * turns a run's end cause (hm__end_t) into one of them; the engine never does. */
enum {
    HM_EXIT_OK = 0,
    HM_EXIT_VERIFY = 1,        /* verification failed or strict port-model violation */
    HM_EXIT_USAGE = 2,         /* bad usage or config */
    HM_EXIT_STUCK = 3,         /* deadlock or clock.max_slots reached */
    HM_EXIT_SYSTEM = 4,        /* thread creation, memory, I/O */
    HM_EXIT_RULES = 5,         /* a node program broke the rules of the node API */
    HM_EXIT_INTERRUPTED = 130, /* SIGINT (128 + 2); the signal handler may pick 143 */
};

typedef enum { HM__CONTENTION_STRICT, HM__CONTENTION_QUEUE } hm__contention_t;

/* The clock modes an algorithm runs under (hm_needs_t.clock_modes, 0: every mode): the
 * local clock has the slotted clock's semantics, so a mask with HM_CLOCK_SLOTTED allows
 * it too, and masks written before it was a mode keep their meaning. */
static inline unsigned hm__clock_modes(unsigned mask)
{
    return mask & HM_BIT(HM_CLOCK_SLOTTED) ? mask | HM_BIT(HM_CLOCK_LOCAL) : mask;
}

/* ---- growable arrays ---------------------------------------------------- */

#define HM__VEC(T)                                                                                 \
    struct {                                                                                       \
        T *v;                                                                                      \
        size_t n, cap;                                                                             \
    }
/* Make room for `need` elements (no realloc when there is room); 0, or -1 on failure. */
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
    XX(LOG, "log")                                                                                 \
    XX(REFUSED, "refused")

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
    int32_t depth; /* recv: the receiver's unread packets just after it (0: not known) */
    int64_t value;
    int64_t dur;   /* slots the transmission or busy period lasts */
    uint64_t flow; /* send<->recv pairing id for traces (0: none) */
    char *text;    /* owned; algorithm log text or conflict explanation */
    int64_t ns;    /* free-running clock: CLOCK_MONOTONIC ns of the event (0: slotted) */
    /* Free mode under circuit routing, a send: its transfer, from its circuit held to
     * just before it is given back (0: none). */
    int64_t start_ns, end_ns;
    /* A slotted recv whose packet had a payload, when a page is written (record_page), for
     * the player (out/html.c): its first pay_n words (at most HM__PAY_WORDS, owned) of
     * pay_words in all. */
    int64_t *pay;
    uint32_t pay_n, pay_words;
} hm__event_t;
#define HM__PAY_WORDS 64

typedef HM__VEC(hm__event_t) hm__log_t;

/* ---- packets in the engine ----------------------------------------------- */

/* A byte payload shared by all copies of one emission. */
typedef struct hm__blob_s {
    atomic_int refs;
    uint32_t len;
    unsigned char bytes[];
} hm__blob_t;

/* A blob holding p's bytes for `refs` copies; NULL when p has none (*fail = 0) or
 * when the allocation fails (*fail = 1). */
hm__blob_t *hm__blob_new(const hm_packet_t *p, int refs, int *fail);
void hm__blob_release(hm__blob_t *b);

/* One packet on one directed link: the unit the port model judges. */
typedef struct hm__copy_s {
    hm_packet_t pkt; /* data points into blob (or NULL) */
    hm__blob_t *blob;
    int32_t src, dst;  /* sending and receiving node */
    int32_t sport;     /* sender's port */
    int32_t dport;     /* receiver's port */
    uint32_t emission; /* sender-local emission number (a shout is one emission) */
    uint32_t idx;      /* its place in its sender's outbox in its send slot */
    int64_t sent_slot;
    uint64_t flow;   /* unique id pairing the send and recv events */
    int64_t dur;     /* slots the transmission lasts (1 in packet routing) */
    int16_t delayed; /* already counted as delayed */
    int16_t cls;     /* 0: out of a stall in slot cslot, 1: new in slot cslot */
    int64_t cslot;   /* the slot it first competed in */
    int64_t sent_ns; /* free-running clock: CLOCK_MONOTONIC ns it entered the mailbox */
    int32_t far;     /* hm_send_routed under packet routing: its receiver + 1; 0: none */
    int32_t first;   /* routed: the node that sent it (src is the hop's) */
} hm__copy_t;

typedef HM__VEC(hm__copy_t) hm__copyvec_t;

/* A node's received, unread copies: a ring of cap entries (0 or a power of two)
 * from head, n of them. */
typedef struct hm__inbox_s {
    hm__copy_t *v;
    size_t head, n, cap;
    /* Words delivered here over the whole run: 1 per copy (its value) and ceil(len / 8)
     * for its payload, the volume of README "What verified means" (engine/causal.c). */
    int64_t words;
} hm__inbox_t;

/* The largest machine, in nodes (doc/config.md "Config ranges"): 2^24, which the flow id below
 * holds in its top 24 bits, so that two copies never share one. A process holds fewer
 * threads still (kernel.pid_max is at most 2^22 on 64-bit Linux): the host's limits,
 * which --validate reads, bite long before this one. */
#define HM__NODES_MAX (1 << 24)
#define HM__DIM_MAX 24

/* The id pairing a copy's send and receive events in the trace: sender, its emission
 * number, its port (0xff for a routed message). */
static inline uint64_t hm__flow_id(int node, uint32_t emission, int port)
{
    return ((uint64_t)(uint32_t)node << 40) ^ ((uint64_t)emission << 8) ^ (uint64_t)(port & 0xff);
}

/* ---- nodes --------------------------------------------------------------- */

typedef enum {
    HM__WAIT_NONE,   /* running in the current slot */
    HM__WAIT_TIMER,  /* sleeps until wake_at */
    HM__WAIT_PACKET, /* sleeps until a packet arrives, or wake_at if >= 0 */
    HM__WAIT_DONE,   /* node program returned */
} hm__wait_t;

typedef struct hm__machine_s hm__machine_t;
typedef HM__VEC(int64_t) hm__int64vec_t;

/* What one node heard (engine/node.c records it as the node reads packets; the judge,
 * engine/causal.c, reads it): each packet it took in, and the int64 words each carried
 * (its value and its payload's whole words, opt.record_words), read by read. */
typedef struct hm__read_s {
    int32_t from;      /* the packet's transmitter */
    uint32_t nwords;   /* its words in hm__heard_t.words, after the earlier reads' */
    int64_t sent_slot; /* the slot it was sent in */
    int64_t slot;      /* the slot this node took it in */
} hm__read_t;
typedef struct hm__heard_s {
    HM__VEC(hm__read_t) reads;
    HM__VEC(int64_t) words;
} hm__heard_t;

/* A refused call (README "Refused calls"): a send the model does not allow returns
 * HM_EINVAL and the run goes on. Each node counts its own and keeps the first
 * HM__REFUSED_KEEP in full (allocated at the first), also when no events are recorded, for
 * the deadlock report, the summary's refused_calls and the report on stderr. */
#define HM__REFUSED_KEEP 5
typedef struct hm__refusal_s {
    int64_t slot;
    int32_t node;
    char text[244]; /* "hm_send_to(n, 5, p): node 5 is not a neighbour of node 0 ..." */
} hm__refusal_t;

struct hm_node_s {
    int id;
    hm__machine_t *m;
    int64_t now; /* the slot this node is in (copy of the clock) */
    pthread_t thread;
    int started;
    /* Its thread's stack [stack_lo, stack_hi) and the guard below it, bytes; 0 until the
     * thread runs (engine/machine.c; the crash report, README "Exit codes"). */
    uintptr_t stack_lo, stack_hi;
    size_t stack_guard;
    atomic_int crashed; /* its thread is in the crash report's handler (cli/crash.c) */
    /* The watchdog (engine/watchdog.c). Written by the node's own thread: the slot it runs
     * in (-1 while it sleeps in a wait, or once its program ended) and how many times it
     * came back from a wait (release, after wd_slot). `left`: its thread ended, or will
     * never come back (exit() called in it, engine/rules.c). Read by the thread that
     * waits for the run, which alone keeps wd_seen and wd_since: the beat it saw last and
     * since when (CLOCK_MONOTONIC ns). */
    _Atomic int64_t wd_slot;
    atomic_uint wd_beat;
    atomic_int left;
    unsigned wd_seen;
    int64_t wd_since;
    sem_t wake;

    /* What the node asked for when it ended its slot. */
    hm__wait_t wait;
    int64_t wake_at;
    uint32_t wake_gen;   /* invalidates stale timer entries */
    int woke_by_packet;  /* set by the clock: 1 packet, 0 deadline */
    int stalled;         /* copies of this node held back by full mailboxes */
    size_t active_index; /* place in the clock's `posted` list (wake-up tree) */
    int sleep_shared;    /* sleeps on the clock's shared word, not on `wake` (clock.c) */
    atomic_int go;       /* set by the clock: run in the slot just opened (shared word) */

    uint32_t emissions;   /* emission counter */
    hm__copyvec_t outbox; /* copies sent in the current slot */

    hm__inbox_t inbox; /* received packets, oldest first */
    hm__blob_t *held;  /* payload of the last packet handed out */

    hm__log_t log;
    uint32_t seq;
    hm__int64vec_t stores;
    hm__int64vec_t store_slots; /* the slot (free clock: logical clock) of each store */
    hm__heard_t *heard;         /* what it read (opt.record_reads), or NULL */
    void *out;                  /* the node's output area (descriptor's out_size), or NULL */
    int64_t busy_last;          /* last slot of hm_busy work, -1 */
    int failed;                 /* an allocation failed in this node's thread, or hm_fail */
    char fail_what[256];        /* hm_fail's reason, copied (the caller's may be on its stack) */
    int aborted;                /* hm_abort: the run stops, not verified (exit 1) */
    char wait_note[160];        /* hm_wait_note: what a deadlock report says it waits in, or "" */
    int64_t refused;            /* refused calls made (engine/refused.c) */
    hm__refusal_t *refusals;    /* the first min(refused, HM__REFUSED_KEEP), or NULL */
    /* hm_show, when a page is written (record_page): the changes (slot, length, start, n, then n
     * values: engine/node.c), and the buffer as last shown, to diff the next one, with
     * its length. */
    hm__int64vec_t shows;
    hm__int64vec_t shown; /* its first HM__SHOW_KEEP values */
    int64_t shown_len;
};
#define HM__SHOW_KEEP 64

/* The inbox is a ring: no allocation once it has grown to its largest backlog, and
 * no copying of what is left when the oldest packet is read. */
int hm__inbox_push(hm__inbox_t *q, const hm__copy_t *c); /* 0 or -1 */
hm__copy_t hm__inbox_take(hm__inbox_t *q);               /* the oldest; q->n > 0 */
void hm__inbox_free(hm__inbox_t *q);                     /* releases the payloads */

/* ---- how a run ends ------------------------------------------------------- */

#define HM__END_MAP(XX)                                                                            \
    XX(DONE, "done")               /* every node program returned */                               \
    XX(CONFLICT, "conflict")       /* a strict port-model or circuit violation */                  \
    XX(DEADLOCK, "deadlock")       /* every node blocked, nothing in flight */                     \
    XX(MAX_SLOTS, "max_slots")     /* clock.max_slots reached */                                   \
    XX(INTERRUPTED, "interrupted") /* the interrupt flag was raised (a signal) */                  \
    XX(SYSTEM, "system")           /* thread creation, memory, hm_fail */                          \
    XX(RULES, "rules") /* a node program broke the node API's rules (engine/rules.c) */            \
    XX(SLOT_TIMEOUT, "slot_timeout") /* a node did not end its slot in clock.slot_timeout */       \
    XX(ABORTED, "aborted")           /* a node program ended the run as failed (hm_abort) */

typedef enum {
#define XX(id, name) HM__END_##id,
    HM__END_MAP(XX)
#undef XX
        HM__END_COUNT
} hm__end_t;

const char *hm__end_name(hm__end_t e);
/* engine/outcome.c: the exit code of a run that ended so (verified or not aside;
 * README "Exit codes"). */
int hm__exit_code_of(hm__end_t end);

/* ---- the machine ---------------------------------------------------------- */

typedef struct hm__timer_s {
    int64_t slot;
    int32_t node;
    uint32_t gen;
} hm__timer_t;

typedef struct hm__stats_s {
    int64_t transmissions; /* copies delivered */
    int64_t conflicts;
    int64_t delayed_packets; /* copies delayed at least once */
    int64_t delay_slots;     /* slots of delay added up */
    int64_t stalls;          /* copies held back by a full mailbox */
    int64_t max_mailbox_depth;
    int64_t last_activity; /* last slot with a transmission or busy slot, -1 */
    int64_t slots_run;     /* slots the clock actually opened */
    int64_t routed_hops;   /* hops of routed packets through nodes that are not their receiver */
} hm__stats_t;

/* clock.affinity: none, compact, scatter or a CPU list (doc/clocks.md). */
enum { HM__AFFINITY_NONE, HM__AFFINITY_COMPACT, HM__AFFINITY_SCATTER, HM__AFFINITY_LIST };
#define HM__AFFINITY_MAX 1024 /* CPUs 0..1023 (CPU_SETSIZE) */

typedef struct hm__options_s {
    hm_machine_info_t info;
    int mailbox_capacity;
    hm__contention_t contention;
    int64_t max_slots;
    double slot_timeout; /* clock.slot_timeout: seconds of wall time a slot may take, 0: off */
    int record_events;
    /* Record what each node reads (hm__heard_t) for the judge's causal past: the packets
     * (record_reads) and the words they carry (record_words). engine/causal.c. */
    int record_reads, record_words;
    int record_page; /* output.html: payloads and hm_show kept for the player (out/html.c) */
    size_t stack_size;
    hm_clock_mode_t clock; /* clock.mode (HM_CLOCK_MAP): slotted (engine/clock.c), free
                              (engine/free.c) or local (engine/local.c) */
    size_t out_size;       /* bytes of each node's output area from the setup (hm_setup_t),
                              0: the descriptor's */
    /* Interrupt flag, or NULL. Storing a nonzero value (atomic_store, which is
     * async-signal-safe on a lock-free atomic_int: a SIGINT handler may do it) stops
     * the run at the end of the current slot (free-running clock: at the next send,
     * receive or wait of any node) with the end cause HM__END_INTERRUPTED; the
     * outcome holds everything done until then. The flag is only read. */
    atomic_int *interrupt;
    /* clock.affinity (engine/host.c): how node threads are pinned to CPUs. */
    int affinity;   /* HM__AFFINITY_NONE, _COMPACT, _SCATTER or _LIST */
    int affinity_n; /* _LIST: the CPUs, in order */
    uint16_t affinity_cpus[HM__AFFINITY_MAX];
    /* The transport to use instead of the mode's (hm__transport_for), or NULL:
     * hypemu-mpi sets the MPI transport (engine/mpi.c, doc/mpi.md). */
    const struct hm__transport_s *transport;
} hm__options_t;

/* The ports of one emission: one port (hm_send: `one` is the port + 1, so that 0 says
 * none, any port of the node, also past 63), those of the mask (hm_shout), or every
 * port that leads to a neighbour (hm_shout_all). */
typedef struct hm__ports_s {
    uint64_t mask;
    int all;
    int one;
} hm__ports_t;

static inline int hm__port_in(const hm__ports_t *s, int port)
{
    if (s->one)
        return port == s->one - 1;
    return s->all || (port < 64 && (s->mask >> port & 1));
}

/* A transport: how packets move and time passes. One is chosen at machine creation
 * (hm__transport_for); the node API calls it and knows no mode. Node-side functions
 * run in the calling node's thread; emit and send_to get arguments already checked
 * (ports lead to neighbours, dest is another node). The clock-side hooks exist for
 * transports driven by the barrier clock (engine/clock.c): commit runs while every
 * node sleeps. A new transport (MPI, a locally synchronised clock) is one new file
 * and one line in hm__transport_for. */
typedef struct hm__transport_s {
    const char *name;
    int (*create)(hm__machine_t *m); /* 0 or -1 (out of memory) */
    void (*destroy)(hm__machine_t *m);
    /* Node side. */
    int (*emit)(hm_node_t *n, const hm__ports_t *ports, const hm_packet_t *p); /* one emission */
    int (*send_to)(hm_node_t *n, int dest, const hm_packet_t *p);              /* routed message */
    int (*pending)(const hm_node_t *n);
    int (*recv)(hm_node_t *n, hm_packet_t *out);
    int (*wait_packet)(hm_node_t *n, hm_packet_t *out, int64_t deadline);
    int (*wait_until)(hm_node_t *n, int64_t slot); /* slot > n->now */
    void (*finish)(hm_node_t *n);                  /* the node program returned */
    /* From the main thread, while nodes may run but no slot can end: stop the run (end
     * cause system, takes reason; after an hm__stop, reason NULL only wakes) and make
     * every node that sleeps see it (engine/watchdog.c). */
    void (*abort)(hm__machine_t *m, char *reason);
    /* Clock side (slotted transports; NULL otherwise). */
    int (*commit)(hm__machine_t *m, int64_t t);          /* the slot's outboxes; 0 or -1 */
    int64_t (*next)(hm__machine_t *m, int64_t t);        /* next slot > t with work, INT64_MAX */
    int (*stalled_on)(const hm__machine_t *m, int node); /* receiver a stalled node waits on */
    /* After the node threads are joined. */
    void (*collect)(hm__machine_t *m);          /* fold the transport's figures into m->stats */
    json_t *(*summary)(const hm__machine_t *m); /* its summary object, or NULL */
    /* Progress (README "Progress"), from another thread while the run goes on: the
     * last slot every node has completed and the copies delivered by then; NULL for a
     * transport without a machine-wide slot (the free-running clock). */
    void (*progress)(hm__machine_t *m, int64_t *slot, int64_t *packets);
    const char *summary_key; /* the summary key of that object */
    /* Distributed transports (engine/mpi.c; NULL otherwise), a collective step after
     * each commit: takes this process's next slot, done nodes and interrupt flag,
     * returns the next slot agreed by every process and sets *done and *interrupted
     * to the machine-wide values; a process that stopped the run stops them all. */
    int64_t (*agree)(hm__machine_t *m, int64_t next, int *done, int *interrupted);
} hm__transport_t;

extern const hm__transport_t hm__transport_packet;        /* engine/packet.c */
extern const hm__transport_t hm__transport_circuit;       /* engine/circuit.c */
extern const hm__transport_t hm__transport_free;          /* engine/free.c */
extern const hm__transport_t hm__transport_free_circuit;  /* engine/free.c, circuit routing */
extern const hm__transport_t hm__transport_local;         /* engine/local.c */
extern const hm__transport_t hm__transport_local_circuit; /* engine/local.c, circuit routing */

/* The node whose program this thread runs (NULL outside node threads): the crash report
 * of cli/plugin.c names it, and every node API call compares its handle with it
 * (engine/node.c). Initial-exec: one load, also in the shared library (which the
 * program links, so the variable is in the static TLS block). */
extern _Thread_local hm_node_t *hm__self __attribute__((tls_model("initial-exec")));
const hm__transport_t *hm__transport_for(const hm__options_t *opt);

/* The topology of one machine: maxdeg ports per node; nbr[node*maxdeg+port] = the
 * neighbour or -1, rport[...] = the neighbour's port back (topo/). */
typedef struct hm__links_s {
    int maxdeg;
    int *deg;
    int32_t *nbr, *rport;
} hm__links_t;

struct hm__machine_s {
    hm__options_t opt;
    hm_machine_info_t info; /* = opt.info */
    const hm_algorithm_t *algo;
    void *state;
    const hm__transport_t *tp;
    void *tp_priv; /* the transport's own state */

    /* Topology (the fields of hm__links_t, built by topo/). */
    int maxdeg;
    int *deg;
    int32_t *nbr, *rport;

    hm_node_t *nodes;
    unsigned char *out; /* the nodes' output areas, out_size bytes each */
    /* The nodes whose threads run in this process: [lo, hi), every node unless a
     * distributed transport splits the machine (engine/mpi.c); and its own state. */
    int lo, hi;
    void *dist;

    /* The barrier clock (engine/clock.c). The pads keep the words that every node
     * writes or reads each slot (active_left; aborted) off the cache lines of the
     * read-only fields above and of what the committer writes (doc/performance.md). */
    char pad_clock[64];
    atomic_int active_left; /* nodes still running in the current slot */
    int64_t now;
    HM__VEC(int32_t) active;     /* nodes running in the current slot, ascending */
    HM__VEC(int32_t) posted;     /* those of them woken by their semaphore */
    atomic_uint wake_word;       /* the shared wake-up word (a futex) */
    HM__VEC(hm__timer_t) timers; /* min-heap on (slot, node) */
    int done_nodes;
    HM__VEC(int32_t) woken; /* scratch: nodes woken by a packet */

    /* Mailboxes: occupancy per directed link (delayed + received-unread copies). */
    int32_t *occ;

    hm__stats_t stats;

    /* Progress (README "Progress"): the last slot committed and the copies delivered by
     * then, published by the barrier clock for a reader on another thread; -1 while
     * none (and always under the free-running clock, which has no global slot). */
    _Atomic int64_t progress_slot, progress_packets;

    /* Stopping. `stopping` elects the one hm__stop that writes end and stop_reason;
     * `aborted`, stored after them, publishes the stop. */
    char pad_stop[64];
    atomic_int aborted;
    atomic_int stopping;
    hm__end_t end;
    char *stop_reason; /* conflict report, deadlock report... (owned) */

    /* The thread that waits for the run (engine/watchdog.c): posted by every node thread
     * that ends and by a stop from a node's thread; the node threads ended; those left
     * running when the run was given up (their machine is then never freed). */
    sem_t waiter;
    atomic_int exited;
    int abandoned;
    struct hm__machine_s *next_abandoned;
};

/* engine/machine.c */
int hm__machine_create(hm__machine_t **out, const hm__options_t *opt, const hm_algorithm_t *algo,
                       void *state, char *err, size_t errlen);
/* Runs the node threads to the end. Returns how the run ended (0: HM__END_DONE). */
hm__end_t hm__machine_run(hm__machine_t *m);
void hm__machine_destroy(hm__machine_t *m);

/* From any thread while the run goes on: the last slot every node has completed (-1 if
 * none yet) and the copies delivered until then, from the transport's progress hook;
 * hm__machine_has_progress says whether the transport has one. */
void hm__machine_progress(hm__machine_t *m, int64_t *slot, int64_t *packets);
int hm__machine_has_progress(const hm__machine_t *m);
/* engine/clock.c: the barrier clock's progress, the slot it committed last. */
void hm__clock_progress(hm__machine_t *m, int64_t *slot, int64_t *packets);

/* The first reason wins; takes reason (may be NULL: out of memory). Any thread. */
void hm__stop(hm__machine_t *m, hm__end_t end, char *reason);
/* engine/rules.c: stop the run with the end cause rules (exit 5), from any thread; takes
 * reason (the line that names the node; cli/sandbox.c's node processes). */
void hm__rules_stop(hm__machine_t *m, char *reason);
static inline int hm__aborted(const hm__machine_t *m)
{
    return atomic_load(&((hm__machine_t *)m)->aborted);
}
static inline int hm__local(const hm__machine_t *m, int node)
{
    return node >= m->lo && node < m->hi;
}
static inline int hm__interrupted(const hm__machine_t *m)
{
    return m->opt.interrupt && atomic_load(m->opt.interrupt);
}

/* Why the machine cannot start more threads: names the host limit that is reached
 * (kernel.pid_max, kernel.threads-max, vm.max_map_count, RLIMIT_NPROC, memory) with
 * its value, into buf. `want` threads of `stack` bytes; returns the number of threads
 * the tightest limit allows (INT64_MAX if none is known). A `--validate` check can
 * call it with buf NULL. */
int64_t hm__host_thread_limit(int64_t want, size_t stack, char *buf, size_t len);
/* Give the process's futex hash (Linux 6.16 and later) at least one bucket per node
 * thread, so that a wake-up walks a short chain however many nodes sleep (README "Many
 * nodes"); does nothing where the kernel has no such hash. */
void hm__host_futex_hash(int64_t threads);
/* engine/watchdog.c: what node threads tell the watchdog, two relaxed stores and a
 * release one per wait. */
static inline void hm__wd_sleep(hm_node_t *n)
{
    atomic_store_explicit(&n->wd_slot, -1, memory_order_relaxed);
}
static inline void hm__wd_run(hm_node_t *n)
{
    atomic_store_explicit(&n->wd_slot, n->now, memory_order_relaxed);
    unsigned b = atomic_load_explicit(&n->wd_beat, memory_order_relaxed);
    atomic_store_explicit(&n->wd_beat, b + 1, memory_order_release);
}
/* Wait for the `created` node threads of m (from m->lo), watching them (clock.slot_timeout,
 * an interrupt that a node's slot holds up), until each has ended or is given up. */
void hm__wait_nodes(hm__machine_t *m, int created);
/* Keep m, whose threads were given up, reachable until the process ends. */
void hm__keep_abandoned(hm__machine_t *m);
/* 1 once a run of this process has left a node's thread running (hm__keep_abandoned). */
int hm__threads_left_running(void);

/* engine/rules.c (README "Rules of the node API"): a node API call whose handle is not
 * the calling thread's node (engine/node.c's check) stops the run with the end cause
 * rules; the node thread's hooks catch a program that calls pthread_exit or exit(). */
void hm__rules_call(const hm_node_t *n, const char *fn);
void hm__rules_thread_left(void *n); /* pthread_cleanup handler: pthread_exit in node_main */
/* The machines that run now, for a call from a thread that is not a node's. */
void hm__rules_enter(hm__machine_t *m);
void hm__rules_leave(hm__machine_t *m);
/* The node thread ended (or will never come back): tell the waiting thread. */
void hm__node_left(hm_node_t *n, int how);

/* engine/machine.c: the bytes of each node's output area (hm_out): the setup's, else
 * the descriptor's. */
size_t hm__out_size(const hm__options_t *opt, const hm_algorithm_t *algo);
/* engine/machine.c: the stack size of a node thread (opt.stack_size, 64 KiB by default). */
size_t hm__stack_size(const hm__options_t *opt);
/* engine/machine.c: the bytes of a node thread's alternate signal stack, taken from the
 * bottom of its stack and added to its size. */
size_t hm__altstack_size(void);
/* engine/machine.c, for the crash report: whether a node of m that has not crashed
 * (crashed) nor left may still crash in a slot before or at `slot`: 0 when one runs
 * there (or has not started), 2 when none but some sleep in a wait (one may have been
 * woken into that slot and not run yet), 1 when none can. Async-signal-safe. */
int hm__nodes_settled(const hm__machine_t *m, int64_t slot);

/* The CPU node `node` of `nodes` is pinned to under opt's clock.affinity, given the
 * CPUs this process may use (cpus[0..n-1], ascending); -1: not pinned. */
int hm__affinity_cpu(const hm__options_t *opt, const int *cpus, int n, int node, int nodes);
/* The CPUs this process may use (sched_getaffinity), ascending, into cpus (room for
 * HM__AFFINITY_MAX); returns how many. */
int hm__allowed_cpus(int *cpus);
/* The host, for the free-running clock's summary: CPUs, CPU model, kernel, affinity. */
json_t *hm__host_json(const hm__machine_t *m);

/* engine/clock.c: the barrier clock of the slotted transports. */
void hm__clock_commit(hm__machine_t *m);
/* Register what node n asked for when it ended its slot (timer, packet, done). */
int hm__register_wait(hm__machine_t *m, hm_node_t *n);
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
} hm__use_t;
int hm__use_init(hm__use_t *u, size_t nodes, size_t links);
void hm__use_free(hm__use_t *u);
/* Can cand[idx] (on directed link `link`) be transmitted in slot t, given what the
 * slot already carries? Returns 1 and records the use, or 0 and writes why. */
int hm__port_admit(hm__use_t *u, const hm_machine_info_t *info, const hm__copy_t *cand, int idx,
                   int link, int64_t t, char *why, size_t whylen);

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

/* engine/refused.c: record a refused call of node n (its count, the first in full, the
 * event) and return HM_EINVAL; the node API calls them where it refuses. */
int hm__refuse_send(hm_node_t *n, int port, const hm_packet_t *p);
int hm__refuse_emit(hm_node_t *n, const hm__ports_t *ports, const hm_packet_t *p);
int hm__refuse_send_to(hm_node_t *n, int dest, const hm_packet_t *p);
int hm__refuse_send_routed(hm_node_t *n, int dest, const hm_packet_t *p);
int hm__refuse_wait_until(hm_node_t *n, int64_t slot);
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

#endif /* HM_INTERNAL_H */
