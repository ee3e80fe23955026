/* SPDX-License-Identifier: MIT */
/*
 * mpi_dist.h — what the files of the MPI transport share (engine/mpi.c: the slot's
 * exchange and the agreement; engine/mpi_judge.c: the slot's decisions across ranks;
 * engine/mpi_collect.c: the run gathered on rank 0). doc/mpi.md, "How the ranks share a
 * slot".
 */
#ifndef HM_MPI_DIST_H
#define HM_MPI_DIST_H

#include <mpi.h>

#include "hm_internal.h"

typedef HM__VEC(unsigned char) hm__bytes_t;
typedef HM__VEC(int32_t) hm__i32vec_t;

/* A rank whose nodes share a link with this rank's (under the bus port model: every
 * rank), and what goes to it and comes from it in one step. */
typedef struct hm__peer_s {
    int rank;
    hm__bytes_t out, in;
    int undecided;           /* candidates of the slot on links with it, not decided yet */
    int64_t nreads, ncopies; /* in `out` in the slot's exchange */
    hm__i32vec_t shared;     /* the slot's candidates on links with it, in candidate order */
} hm__peer_t;

/* A side of a candidate's verdict (hm__port_check's rule and why), as this rank found it
 * for its own node, or as the rank of the other end sent it. */
typedef struct hm__side_s {
    int rule; /* -1: not known yet */
    char why[256];
} hm__side_t;

typedef struct hm__dcirc_s hm__dcirc_t; /* engine/mpi_circuit.c */

typedef struct hm__dist_s {
    hm__machine_t *m;
    int rank, size;
    int *first;            /* first[r]: the first node of rank r; first[size] = nodes */
    int all;               /* every rank judges every link (the bus: one channel) */
    unsigned char *remote; /* per node: 1 when another rank runs it */
    hm__peer_t *peers;     /* in rank order */
    int npeers;
    int *peer_of;         /* per rank: its index in peers, or -1 */
    hm__i32vec_t *reads;  /* per own node: links of the packets it read in its slot */
    hm__i32vec_t senders; /* scratch: the slot's senders, ascending */
    hm__bytes_t out, in;  /* scratch for the collectives (deadlock, gathering) */
    int *counts, *displs;
    /* The barrier clock's lists (engine/packet.c), for the links this rank judges. */
    hm__copyvec_t pending, stalled;
    hm__judge_t judge;
    hm__dcirc_t *dc;    /* circuit routing: the messages this rank is concerned with */
    hm__circuits_t *cs; /* circuit routing: rank 0's summary figures */
    /* The slot's decisions: per candidate, done or not, and the two sides. */
    unsigned char *done;
    hm__side_t *mine, *theirs;
    uint32_t *ord;     /* per candidate on a link with a peer: its place in the peer's shared */
    uint32_t *blocked; /* per node: the pass that found it behind an undecided candidate */
    uint32_t pass;
    size_t cap;
    /* The slot's first strict conflict in candidate order (its key and report). */
    hm__copy_t conflict_at;
    char *conflict;
    /* After a deadlock: whom each other rank's stalled node waits on (-1: none). */
    int32_t *stalled_to;
    /* HM_MPI_STATS=1 (doc/mpi.md): this rank's cost of crossing ranks. */
    int64_t exchanges, rounds, msgs_sent, msgs_recv, bytes_sent, bytes_recv;
    int64_t foreign, delivered; /* copies received from other ranks; of them, to own nodes */
    double mpi_seconds;
} hm__dist_t;

/* engine/mpi.c */
int hm__dist_rank_of(const hm__dist_t *D, int node);
/* Abort every rank (what cannot be recovered on one rank alone). */
_Noreturn void hm__dist_abort_all(const char *what);
void hm__dist_put(hm__bytes_t *b, const void *p, size_t len);
void hm__dist_get(const unsigned char **p, void *to, size_t len);
/* The end of a copy on the wire (both transports): its packet's origin, tag, aux and
 * length, and its payload when whole (for the rank that runs its receiver). */
void hm__dist_put_tail(hm__bytes_t *b, const hm__copy_t *c, int whole);
/* Variable-length integers (LEB128; signed ones zigzagged): a slot's wire. */
void hm__dist_put_u(hm__bytes_t *b, uint64_t v);
void hm__dist_put_i(hm__bytes_t *b, int64_t v);
uint64_t hm__dist_get_u(const unsigned char **p);
int64_t hm__dist_get_i(const unsigned char **p);
/* One step with the peers whose `undecided` is nonzero (every peer when all is 1): each
 * gets its `out`, and what it sent is in its `in`. */
void hm__dist_exchange(hm__dist_t *D, int all, int tag);

/* engine/mpi_judge.c: the slot's candidates (in D->judge) decided as one process would,
 * each rank judging its own nodes' ports and trading its answers with the rank at the
 * other end of each link. 0 or -1 (out of memory). */
int hm__dist_decide(hm__machine_t *m, hm__dist_t *D, int64_t t);

/* engine/mpi_circuit.c: circuit routing across ranks, each decision where its state
 * lives: the transport's commit and next, the summary's figures on rank 0. */
hm__dcirc_t *hm__dcirc_new(hm__machine_t *m, hm__dist_t *D);
void hm__dcirc_free(hm__dcirc_t *C, int size);
int hm__dcirc_commit(hm__machine_t *m, int64_t t);
int64_t hm__dcirc_next(hm__machine_t *m, int64_t t);
void hm__dcirc_collect(hm__machine_t *m);

/* engine/mpi_collect.c: every rank's nodes and figures into rank 0's machine. */
void hm__dist_collect(hm__machine_t *m);

#endif
