/* SPDX-License-Identifier: MIT */
/*
 * internal/node.h — a node as the engine keeps it (hm_node_t), and how a run ends.
 * Part of the engine's private structures (hm_internal.h, which includes every part in
 * this order); nothing in src/algo includes it.
 */
#ifndef HM_INTERNAL_NODE_H
#define HM_INTERNAL_NODE_H

#include "internal/base.h"

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
    int64_t thread_fig[3]; /* opt.thread_figures: its thread's switches and migrations */
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

#endif /* HM_INTERNAL_NODE_H */
