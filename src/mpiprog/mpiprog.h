/* SPDX-License-Identifier: MIT */
/*
 * mpiprog.h — the inside of the MPI library of hypemu's MPI programs (doc/mpi-programs.md),
 * shared by its point-to-point part (p2p.c) and its collectives (coll.c). It uses the public
 * node API of include/hypemu.h only.
 */
#ifndef HM_MPIPROG_H
#define HM_MPIPROG_H

#include <hypemu.h>
#include <setjmp.h>
#include <stddef.h>
#include <string.h>

#include "mpi.h"

typedef struct hm_mpi_msg_s {
    int src, tag;
    size_t bytes, got;
    unsigned char *data;
    struct hm_mpi_msg_s *next;
} hm_mpi_msg_t;

struct hm_mpi_request_s {
    int recv, done;
    void *buf;
    size_t cap; /* bytes the receive buffer holds */
    int src, tag;
    MPI_Status st;
    struct hm_mpi_request_s *next; /* the posted receives, in order */
};

typedef struct hm_mpi_rank_s {
    hm_node_t *n;
    int rank, size, init, fin;
    hm_mpi_msg_t *unexp, *unexp_tail; /* complete messages no receive matched, in order */
    hm_mpi_msg_t **building;          /* per source: the message its packets are filling */
    struct hm_mpi_request_s *posted, *posted_tail;
    jmp_buf *out;       /* back to the node program's entry: the run stops, or the rank ends */
    void *scratch[8];   /* the collectives' buffers now in use, freed if the rank leaves */
    MPI_Datatype etype; /* the element type of the collective in progress (its check) */
} hm_mpi_rank_t;

/* Bytes of payload a packet carries at most (doc/mpi-programs.md, "Semantics"). */
#define HM_MPI_PACKET 4096

/* The calling node's rank (thread-local), NULL outside an MPI program's node. */
hm_mpi_rank_t *hm_mpi__self(void);

/* Internal tags of the collectives: below 0, never matched by MPI_ANY_TAG. */
enum {
    HM_MPI_TAG_BARRIER = -10,
    HM_MPI_TAG_BCAST,
    HM_MPI_TAG_REDUCE,
    HM_MPI_TAG_GATHER,
    HM_MPI_TAG_SCATTER,
    HM_MPI_TAG_ALLTOALL,
    HM_MPI_TAG_ALLREDUCE,
    HM_MPI_TAG_ALLGATHER
};

/* The collectives whose algorithm the config chooses (choice.c, doc/mpi-programs.md,
 * "Collectives"), in the order of their parameters in hm_mpi__specs. */
enum {
    HM_MPI_BCAST,
    HM_MPI_REDUCE,
    HM_MPI_ALLREDUCE,
    HM_MPI_ALLGATHER,
    HM_MPI_GATHER,
    HM_MPI_SCATTER,
    HM_MPI_ALLTOALL,
    HM_MPI_REDUCE_SCATTER
};
extern const hm_param_spec_t hm_mpi__specs[];
/* The algorithm the config chose for collective coll ("auto" when it gave none), and
 * whether it is algo. */
const char *hm_mpi__algo(int coll);
int hm_mpi__algo_is(int coll, const char *algo);
/* The program's setup: a choice the machine cannot run is a config error (hm_setup_fail,
 * naming the parameter); 0 or -1. */
int hm_mpi__check_choices(hm_setup_t *s);

/* memmove of n bytes, nothing when n is 0 (an empty message's buffers may be NULL). */
static inline void hm_mpi__copy(void *dst, const void *src, size_t n)
{
    if (n)
        memmove(dst, src, n);
}

size_t hm_mpi__size(MPI_Datatype t); /* bytes of one element, 0 for an unknown type */
/* Point to point with any tag (the collectives' own below 0); call names the MPI call a
 * deadlock report gives. Elements of elsize bytes narrower than 8 travel one to a word,
 * sign-extended when type is a signed integer type of that size (doc/mpi-programs.md,
 * "Messages"). */
int hm_mpi__send(const void *buf, size_t bytes, size_t elsize, MPI_Datatype type, int dest,
                 int tag);
int hm_mpi__recv(void *buf, size_t bytes, int src, int tag, MPI_Status *st, const char *call);
/* A collective's buffer of bytes (at least 1), held by the rank until hm_mpi__unscratch, or
 * freed when the rank leaves its program (the run stops in the collective). */
void *hm_mpi__scratch(size_t bytes, const char *call);
void hm_mpi__unscratch(void *p);
/* inout[i] = inout[i] op in[i], for count elements of type t; -1 for an unknown op or type. */
int hm_mpi__apply(void *inout, const void *in, int count, MPI_Datatype t, MPI_Op op);

#endif /* HM_MPIPROG_H */
