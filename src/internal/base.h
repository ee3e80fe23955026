/* SPDX-License-Identifier: MIT */
/*
 * internal/base.h — the engine's basics: exit codes, growable arrays, events, the copies of packets
 * in the engine and the limits of a machine. Part of the engine's private structures
 * (hm_internal.h, which includes every part in this order); nothing in src/algo includes it.
 */
#ifndef HM_INTERNAL_BASE_H
#define HM_INTERNAL_BASE_H

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
    /* A recv whose packet had a payload, when a page is written (record_page), for
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

#endif /* HM_INTERNAL_BASE_H */
