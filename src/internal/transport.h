/* SPDX-License-Identifier: MIT */
/*
 * internal/transport.h — the machine's options and figures, the ports of an emission, a transport
 * (how packets move and time passes) and the topology's links. Part of the engine's private
 * structures (hm_internal.h, which includes every part in this order); nothing in src/algo includes
 * it.
 */
#ifndef HM_INTERNAL_TRANSPORT_H
#define HM_INTERNAL_TRANSPORT_H

#include "internal/node.h"

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
    /* HM_THREAD_FIGURES=1 (doc/contention.md, "The sweep"): each node thread's and the main
     * thread's switches and migrations, in the summary's "threads", in every clock mode. */
    int thread_figures;
    /* The config's "algorithm" object, read by hm_param_string (NULL: none); borrowed. */
    const json_t *params;
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
    /* A packet, or none by the wall time deadline_ns (hm_clock_ns's scale): the free clock
     * only (NULL: hm_wait_packet_ns is refused). */
    int (*wait_packet_ns)(hm_node_t *n, hm_packet_t *out, int64_t deadline_ns);
    void (*finish)(hm_node_t *n); /* the node program returned */
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
    /* hm_send_routed to a node that is not a neighbour: routed hop by hop by the slot judge
     * (engine/slot_judge.c; the barrier clock's packet transports), else refused. */
    int routes;
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

#endif /* HM_INTERNAL_TRANSPORT_H */
