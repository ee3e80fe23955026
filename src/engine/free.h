/* SPDX-License-Identifier: MIT */
/*
 * free.h — the free-running clock's state (engine/free.c), shared with its figures
 * (engine/free_figures.c, doc/clocks.md "Free-running mode", doc/contention.md).
 */
#ifndef HM_ENGINE_FREE_H
#define HM_ENGINE_FREE_H

#include <stdint.h>

#include "hm_internal.h"

typedef struct hm__free_s hm__free_t;
typedef struct fres_s fres_t;

enum { FB_NONE, FB_RECV, FB_SEND, FB_PORT, FB_DONE };

/* The locks the clock takes, by kind: a node's mailbox, the machine-wide lock of the
 * deadlock detection, a circuit's counting locks (links and receive ports). */
enum { FL_MAILBOX, FL_GLOBAL, FL_CIRCUIT, FL_COUNT };

/* One kind of lock, as one thread took it: times taken, times found taken and the time
 * waited for it, time held (without the waits on a condition variable, when the lock is
 * released) and the longest hold. */
typedef struct lockfig_s {
    int64_t taken, waits, wait_ns, hold_ns, hold_max;
} lockfig_t;

/* One directed link (src * maxdeg + sport). */
typedef struct flink_s {
    /* The sender's thread: */
    int64_t packets, bytes;
    int64_t port_waits, port_ns; /* asleep until the port was free for this link */
    int64_t full_waits, full_ns; /* asleep on this link's full mailbox */
    int64_t lock_waits, lock_ns; /* the receiver's mailbox lock found taken */
    /* Under the sender's lock: its packets on this link not yet read. */
    int32_t inflight;
    /* The receiver's thread: send -> receive latency of every packet read, in ns. */
    hm__int64vec_t lat;
    int64_t lat_sum;
} flink_t;

typedef struct fnode_s {
    pthread_mutex_t lock; /* this node's mailbox: its inbox, the occupancy of its in-links,
                             and its own port (packets in flight) */
    pthread_cond_t cv;    /* only this node's thread waits on it */
    int recv_blocked;     /* under lock: the node sleeps until a packet comes */
    int recv_timed;       /* under lock: it sleeps until a packet or its deadline
                             (hm_wait_packet_ns), not counted as blocked */
    int port_blocked;     /* under lock: the node sleeps until its port is free */
    int32_t inflight;     /* under lock: its packets sent and not yet read */
    uint32_t inflight_em; /* under lock: the emission the last of them belongs to */
    int32_t wait_link;    /* under lock, port_blocked: the link it waits to send on */
    uint32_t wait_em;     /* and the emission */
    int64_t max_depth;    /* under lock: most unread copies on one in-link */
    /* The owner thread's own figures. */
    int64_t lock_waits, lock_ns; /* mailbox locks found taken (trylock failed), time waited */
    int64_t blocked_sends, blocked_receives, port_waits;
    int64_t full_ns, recv_ns, port_ns; /* wall time asleep, by cause */
    int64_t sends, bytes;              /* copies delivered to a mailbox, their bytes */
    int64_t last_send;                 /* largest logical slot of a send (a circuit: its
                                          last slot), -1 */
    lockfig_t locks[FL_COUNT];         /* every lock it took, by kind */
    int64_t held_since[FL_COUNT];      /* when it took the one of each kind it holds */
    /* Latency of the packets it read, split: read at once after they woke it from a
     * blocked receive (the wake-up), or found waiting in the mailbox (waiting for it). */
    int64_t woken, woken_ns, queued, queued_ns;
    int woke; /* its next packet read is the one that woke it */
    /* Its thread, as the kernel counts it, when its program returned (getrusage
     * RUSAGE_THREAD, /proc/self/task/TID/sched; -1: not readable). */
    int64_t vcsw, ivcsw, migrations;
    /* Under g: what the node waits for, for the deadlock report. */
    int state, peer;
    int64_t slot;
} __attribute__((aligned(64))) fnode_t;

/* A circuit's counting lock (engine/free.c, circuit routing). */
struct fres_s {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int32_t load, cap, waiters; /* under mu */
} __attribute__((aligned(64)));

struct hm__free_s {
    fnode_t *nodes;
    flink_t *links;
    unsigned char *link_blocked; /* per link src*maxdeg+sport, under the receiver's lock */
    pthread_mutex_t g;
    int running, done; /* under g */
    /* After the run (collect): every latency, sorted. */
    hm__int64vec_t all_lat;
    /* Circuit routing: a counting lock per directed link, then one per node (its
     * receive port); each node's route. */
    fres_t *res;
    size_t nres, maxpath;
    int32_t *paths;
};

/* In the node's thread, as its program returned: its context switches and migrations. */
void hm__free_thread_figures(fnode_t *f);
/* After the run: fold the figures into m->stats; the summary's "free" object. */
void hm__free_collect(hm__machine_t *m);
json_t *hm__free_summary(const hm__machine_t *m);

#endif
