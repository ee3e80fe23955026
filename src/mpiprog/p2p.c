/* SPDX-License-Identifier: MIT */
/*
 * p2p.c — the MPI library's ranks, messages and point-to-point calls (doc/mpi-programs.md,
 * "Semantics"). One rank per node; a message travels as packets of at most HM_MPI_PACKET
 * bytes of payload, each sent with hm_send_routed (a neighbour directly, another node hop by
 * hop through the engine). MPI_Send is eager: it returns once its packets are handed to the
 * engine. Packets between two nodes follow one route and keep their order, so messages are
 * matched by source and tag in the order sent. A packet carries the MPI tag in .msg, the
 * message's length in .value, its index in .aux and its own bytes in .tag; an element narrower
 * than 8 bytes travels padded to 8 (README "What verified means": a payload counts as
 * ceil(len / 8) words).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpiprog.h"

static _Thread_local hm_mpi_rank_t *self;

hm_mpi_rank_t *hm_mpi__self(void)
{
    return self;
}

size_t hm_mpi__size(MPI_Datatype t)
{
    static const size_t sizes[] = {0,
                                   sizeof(char),
                                   sizeof(signed char),
                                   sizeof(unsigned char),
                                   1,
                                   sizeof(short),
                                   sizeof(unsigned short),
                                   sizeof(int),
                                   sizeof(unsigned),
                                   sizeof(long),
                                   sizeof(unsigned long),
                                   sizeof(long long),
                                   sizeof(unsigned long long),
                                   sizeof(float),
                                   sizeof(double),
                                   sizeof(int64_t),
                                   sizeof(int32_t)};
    return t > 0 && (size_t)t < sizeof sizes / sizeof *sizes ? sizes[t] : 0;
}

/* The run is stopping, or the rank ends: back to the node program's entry. */
_Noreturn static void leave(void)
{
    longjmp(*self->out, 1);
}

static int bad(const char *call, const char *what)
{
    char buf[200];
    snprintf(buf, sizeof buf, "rank %d: %s: %s", self ? self->rank : -1, call, what);
    if (self)
        hm_fail(self->n, buf);
    if (self)
        leave();
    return MPI_ERR_OTHER;
}

static int matches(int src, int tag, const hm_mpi_msg_t *m)
{
    return (src == MPI_ANY_SOURCE || src == m->src) &&
           (tag == MPI_ANY_TAG ? m->tag >= 0 : tag == m->tag);
}

static void fill(struct hm_mpi_request_s *q, const hm_mpi_msg_t *m)
{
    hm_mpi__copy(q->buf, m->data, m->bytes < q->cap ? m->bytes : q->cap);
    q->st = (MPI_Status){m->src, m->tag, m->bytes > q->cap ? MPI_ERR_OTHER : MPI_SUCCESS,
                         (int)(m->bytes < q->cap ? m->bytes : q->cap)};
    q->done = 1;
}

/* A whole message: to the first posted receive it matches, else the unexpected ones. */
static void complete(hm_mpi_msg_t *m)
{
    for (struct hm_mpi_request_s **pq = &self->posted, *prev = NULL; *pq;
         prev = *pq, pq = &(*pq)->next)
        if (matches((*pq)->src, (*pq)->tag, m)) {
            struct hm_mpi_request_s *q = *pq;
            fill(q, m);
            *pq = q->next;
            if (self->posted_tail == q)
                self->posted_tail = prev;
            free(m->data);
            free(m);
            return;
        }
    m->next = NULL;
    if (self->unexp_tail)
        self->unexp_tail->next = m;
    else
        self->unexp = m;
    self->unexp_tail = m;
}

/* Whether elements of type t are signed integers, sign-extended on the way (MPI_CHAR as the
 * compiler's char). */
static int is_signed(MPI_Datatype t)
{
    return t == MPI_SIGNED_CHAR || t == MPI_SHORT || t == MPI_INT || t == MPI_INT32_T ||
           t == MPI_LONG || t == MPI_LONG_LONG || t == MPI_INT64_T ||
           (t == MPI_CHAR && CHAR_MIN < 0);
}

/* One element of elsize bytes (1, 2 or 4) as its 8-byte word: sign-extended when sgn, else
 * zero-extended (an unsigned integer, a float's bits). */
static uint64_t widen(const unsigned char *src, size_t elsize, int sgn)
{
    int8_t s1;
    int16_t s2;
    int32_t s4;
    uint8_t u1;
    uint16_t u2;
    uint32_t u4;
    if (elsize == 1)
        return sgn ? (memcpy(&s1, src, 1), (uint64_t)(int64_t)s1) : (memcpy(&u1, src, 1), u1);
    if (elsize == 2)
        return sgn ? (memcpy(&s2, src, 2), (uint64_t)(int64_t)s2) : (memcpy(&u2, src, 2), u2);
    return sgn ? (memcpy(&s4, src, 4), (uint64_t)(int64_t)s4) : (memcpy(&u4, src, 4), u4);
}

/* A packet's payload from real bytes of elements of elsize bytes at src, each narrower
 * than 8 in a word of its own (doc/mpi-programs.md, "Messages"); its length. */
static size_t pack(unsigned char *pad, const unsigned char *src, size_t real, size_t elsize,
                   int sgn)
{
    if (elsize >= 8) {
        hm_mpi__copy(pad, src, real);
        return real;
    }
    for (size_t i = 0; i < real / elsize; i++) {
        uint64_t w = widen(src + i * elsize, elsize, sgn);
        memcpy(pad + 8 * i, &w, 8);
    }
    return real / elsize * 8;
}

/* The inverse of pack: real bytes at dst from a payload of len bytes (words of elements of
 * real * 8 / len bytes when len differs from real), each element its word's low bytes. */
static void unpack(unsigned char *dst, const unsigned char *pad, size_t real, size_t len)
{
    if (len == real || real == 0) {
        hm_mpi__copy(dst, pad, real);
        return;
    }
    size_t elsize = real * 8 / len;
    for (size_t i = 0; i < real / elsize; i++) {
        uint64_t w;
        memcpy(&w, pad + 8 * i, 8);
        uint8_t u1 = (uint8_t)w;
        uint16_t u2 = (uint16_t)w;
        uint32_t u4 = (uint32_t)w;
        memcpy(dst + i * elsize,
               elsize == 1   ? (void *)&u1
               : elsize == 2 ? (void *)&u2
                             : (void *)&u4,
               elsize);
    }
}

static void take(const hm_packet_t *p)
{
    int src = p->from;
    hm_mpi_msg_t *m = self->building[src];
    if (p->aux == 0) {
        m = calloc(1, sizeof *m);
        if (m)
            m->data = malloc(p->value > 0 ? (size_t)p->value : 1);
        if (!m || !m->data)
            bad("receiving", "out of memory");
        *m = (hm_mpi_msg_t){src, p->msg, (size_t)p->value, 0, m->data, NULL};
        self->building[src] = m;
    }
    size_t real = (size_t)p->tag;
    unpack(m->data + m->got, p->data, real, p->len);
    m->got += real;
    if (m->got == m->bytes) {
        self->building[src] = NULL;
        complete(m);
    }
}

static void drain(void)
{
    hm_packet_t p;
    while (hm_recv(self->n, &p) == HM_OK)
        take(&p);
}

/* End the slot until a packet comes; the deadlock report names call. */
static void block(const char *call)
{
    char note[160];
    snprintf(note, sizeof note, "rank %d waits in %s", self->rank, call);
    hm_wait_note(self->n, note);
    int rc = hm_wait_packet(self->n, NULL);
    hm_wait_note(self->n, NULL);
    if (rc < 0)
        leave();
    drain();
}

/* A test or probe found nothing: the rank's slot ends, so that a polling loop moves time on
 * (and lets the others run) instead of holding the slot open. */
static void idle(void)
{
    if (hm_next_slot(self->n) < 0)
        leave();
}

int hm_mpi__send(const void *buf, size_t bytes, size_t elsize, MPI_Datatype type, int dest, int tag)
{
    if (dest == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (dest < 0 || dest >= self->size)
        return bad("MPI_Send", "destination out of range");
    if (dest == self->rank) {
        hm_mpi_msg_t *m = calloc(1, sizeof *m);
        unsigned char *d = malloc(bytes ? bytes : 1);
        if (!m || !d)
            return bad("MPI_Send", "out of memory");
        hm_mpi__copy(d, buf, bytes);
        *m = (hm_mpi_msg_t){dest, tag, bytes, bytes, d, NULL};
        complete(m);
        return MPI_SUCCESS;
    }
    size_t wide = elsize < 8 ? 8 : elsize, per = HM_MPI_PACKET / wide * elsize, off = 0;
    unsigned char pad[HM_MPI_PACKET];
    int sgn = hm_mpi__size(type) == elsize && is_signed(type);
    int32_t k = 0;
    do {
        size_t real = bytes - off < per ? bytes - off : per;
        size_t len = pack(pad, (const unsigned char *)buf + off, real, elsize, sgn);
        hm_packet_t p = {.msg = tag,
                         .origin = self->rank,
                         .value = (int64_t)bytes,
                         .tag = (int32_t)real,
                         .aux = k++,
                         .data = pad,
                         .len = (uint32_t)len};
        int rc = hm_send_routed(self->n, dest, &p);
        if (rc == HM_EINVAL) /* refused: the local or free clock routes nothing */
            bad("MPI_Send", "the engine refused to route the message (see the refused call)");
        if (rc < 0)
            leave();
        off += real;
    } while (off < bytes);
    return MPI_SUCCESS;
}

static struct hm_mpi_request_s *post(void *buf, size_t bytes, int src, int tag)
{
    struct hm_mpi_request_s *q = calloc(1, sizeof *q);
    if (!q) {
        bad("MPI_Irecv", "out of memory");
        return NULL;
    }
    *q = (struct hm_mpi_request_s){.recv = 1, .buf = buf, .cap = bytes, .src = src, .tag = tag};
    if (src == MPI_PROC_NULL) {
        q->done = 1;
        q->st = (MPI_Status){MPI_PROC_NULL, MPI_ANY_TAG, MPI_SUCCESS, 0};
        return q;
    }
    drain();
    for (hm_mpi_msg_t **pm = &self->unexp, *prev = NULL; *pm; prev = *pm, pm = &(*pm)->next)
        if (matches(src, tag, *pm)) {
            hm_mpi_msg_t *m = *pm;
            *pm = m->next;
            if (self->unexp_tail == m)
                self->unexp_tail = prev;
            fill(q, m);
            free(m->data);
            free(m);
            return q;
        }
    if (self->posted_tail)
        self->posted_tail->next = q;
    else
        self->posted = q;
    self->posted_tail = q;
    return q;
}

static void wait_one(struct hm_mpi_request_s *q, const char *call)
{
    while (!q->done)
        block(call);
}

static void finish(struct hm_mpi_request_s *q, MPI_Status *st)
{
    if (st)
        *st = q->st;
    free(q);
}

/* A source that names no rank stops the run, naming the call (as a destination does):
 * waiting for it would be a deadlock with no cause in the report. */
static void check_source(int src, const char *call)
{
    if (src != MPI_ANY_SOURCE && src != MPI_PROC_NULL && (src < 0 || src >= self->size))
        bad(call, "source out of range");
}

int hm_mpi__recv(void *buf, size_t bytes, int src, int tag, MPI_Status *st, const char *call)
{
    check_source(src, call);
    struct hm_mpi_request_s *q = post(buf, bytes, src, tag);
    wait_one(q, call);
    finish(q, st);
    return MPI_SUCCESS;
}

/* ---- the MPI calls ------------------------------------------------------------------- */

static void name_source(char *buf, size_t len, const char *call, int src, int tag)
{
    char s[24], t[24];
    snprintf(s, sizeof s, "%d", src);
    snprintf(t, sizeof t, "%d", tag);
    snprintf(buf, len, "%s(source %s, tag %s)", call, src == MPI_ANY_SOURCE ? "MPI_ANY_SOURCE" : s,
             tag == MPI_ANY_TAG ? "MPI_ANY_TAG" : t);
}

static size_t bytes_of(int count, MPI_Datatype type, const char *call)
{
    size_t size = hm_mpi__size(type);
    if (!size || count < 0)
        bad(call, size ? "negative count" : "unknown datatype");
    return (size_t)count * size;
}

int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    (void)comm;
    if (tag < 0)
        return bad("MPI_Send", "negative tag");
    return hm_mpi__send(buf, bytes_of(count, type, "MPI_Send"), hm_mpi__size(type), type, dest,
                        tag);
}

int MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
             MPI_Status *status)
{
    (void)comm;
    char call[96];
    name_source(call, sizeof call, "MPI_Recv", source, tag);
    return hm_mpi__recv(buf, bytes_of(count, type, "MPI_Recv"), source, tag, status, call);
}

int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                 MPI_Comm comm, MPI_Status *status)
{
    MPI_Send(sendbuf, sendcount, sendtype, dest, sendtag, comm);
    char call[96];
    name_source(call, sizeof call, "MPI_Sendrecv", source, recvtag);
    return hm_mpi__recv(recvbuf, bytes_of(recvcount, recvtype, "MPI_Sendrecv"), source, recvtag,
                        status, call);
}

int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype type, int dest, int sendtag, int source,
                         int recvtag, MPI_Comm comm, MPI_Status *status)
{
    MPI_Send(buf, count, type, dest, sendtag, comm); /* eager: buf is free at once */
    char call[96];
    name_source(call, sizeof call, "MPI_Sendrecv_replace", source, recvtag);
    return hm_mpi__recv(buf, bytes_of(count, type, "MPI_Sendrecv_replace"), source, recvtag, status,
                        call);
}

int MPI_Isend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
              MPI_Request *request)
{
    MPI_Send(buf, count, type, dest, tag, comm);
    struct hm_mpi_request_s *q = calloc(1, sizeof *q);
    if (!q)
        return bad("MPI_Isend", "out of memory");
    q->done = 1;
    q->st = (MPI_Status){self->rank, tag, MPI_SUCCESS, 0};
    *request = q;
    return MPI_SUCCESS;
}

int MPI_Irecv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
              MPI_Request *request)
{
    (void)comm;
    check_source(source, "MPI_Irecv");
    *request = post(buf, bytes_of(count, type, "MPI_Irecv"), source, tag);
    return MPI_SUCCESS;
}

int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    if (!*request) {
        if (status)
            *status = (MPI_Status){MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS, 0};
        return MPI_SUCCESS;
    }
    char call[96];
    name_source(call, sizeof call, "MPI_Wait", (*request)->src, (*request)->tag);
    wait_one(*request, call);
    finish(*request, status);
    *request = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
}

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[])
{
    for (int i = 0; i < count; i++)
        MPI_Wait(&requests[i], statuses ? &statuses[i] : MPI_STATUS_IGNORE);
    return MPI_SUCCESS;
}

/* The first done request among them, -1 if none is; *active: some is not NULL. */
static int first_done(int count, MPI_Request requests[], int *active)
{
    *active = 0;
    for (int i = 0; i < count; i++) {
        *active |= requests[i] != MPI_REQUEST_NULL;
        if (requests[i] && requests[i]->done)
            return i;
    }
    return -1;
}

int MPI_Waitany(int count, MPI_Request requests[], int *index, MPI_Status *status)
{
    int active, i;
    drain();
    while ((i = first_done(count, requests, &active)) < 0 && active)
        block("MPI_Waitany");
    *index = i < 0 ? MPI_UNDEFINED : i;
    if (i >= 0) {
        finish(requests[i], status);
        requests[i] = MPI_REQUEST_NULL;
    }
    return MPI_SUCCESS;
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    drain();
    *flag = !*request || (*request)->done;
    if (*flag && *request) {
        finish(*request, status);
        *request = MPI_REQUEST_NULL;
    }
    if (!*flag)
        idle();
    return MPI_SUCCESS;
}

int MPI_Testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[])
{
    drain();
    *flag = 1;
    for (int i = 0; i < count; i++)
        *flag &= !requests[i] || requests[i]->done;
    if (*flag)
        MPI_Waitall(count, requests, statuses);
    else
        idle();
    return MPI_SUCCESS;
}

static const hm_mpi_msg_t *find(int source, int tag)
{
    for (const hm_mpi_msg_t *m = self->unexp; m; m = m->next)
        if (matches(source, tag, m))
            return m;
    return NULL;
}

static int probe(int source, int tag, MPI_Status *status)
{
    check_source(source, "MPI_Probe");
    drain();
    const hm_mpi_msg_t *m = find(source, tag);
    if (m && status)
        *status = (MPI_Status){m->src, m->tag, MPI_SUCCESS, (int)m->bytes};
    return m != NULL;
}

int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    (void)comm;
    if (!(*flag = probe(source, tag, status)))
        idle();
    return MPI_SUCCESS;
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    (void)comm;
    char call[96];
    name_source(call, sizeof call, "MPI_Probe", source, tag);
    while (!probe(source, tag, status))
        block(call);
    return MPI_SUCCESS;
}

int MPI_Get_count(const MPI_Status *status, MPI_Datatype type, int *count)
{
    size_t size = hm_mpi__size(type);
    *count =
        size && status->hm_bytes % (int)size == 0 ? status->hm_bytes / (int)size : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

int MPI_Type_size(MPI_Datatype type, int *size)
{
    *size = (int)hm_mpi__size(type);
    return MPI_SUCCESS;
}

/* ---- the rank's life ------------------------------------------------------------------ */

int MPI_Init(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    self->init = 1;
    return MPI_SUCCESS;
}

int MPI_Finalize(void)
{
    self->fin = 1;
    return MPI_SUCCESS;
}

int MPI_Initialized(int *flag)
{
    *flag = self && self->init;
    return MPI_SUCCESS;
}

int MPI_Finalized(int *flag)
{
    *flag = self && self->fin;
    return MPI_SUCCESS;
}

int MPI_Abort(MPI_Comm comm, int errorcode)
{
    (void)comm;
    char buf[96];
    snprintf(buf, sizeof buf, "rank %d called MPI_Abort(MPI_COMM_WORLD, %d)", self->rank,
             errorcode);
    hm_abort(self->n, buf);
    leave();
}

int MPI_Comm_rank(MPI_Comm comm, int *rank)
{
    (void)comm;
    *rank = self->rank;
    return MPI_SUCCESS;
}

int MPI_Comm_size(MPI_Comm comm, int *size)
{
    (void)comm;
    *size = self->size;
    return MPI_SUCCESS;
}

int MPI_Get_processor_name(char *name, int *resultlen)
{
    *resultlen = snprintf(name, MPI_MAX_PROCESSOR_NAME, "hypemu node %d", self->rank);
    return MPI_SUCCESS;
}

/* Time is the slot: one slot is one second of MPI_Wtime (doc/mpi-programs.md). */
double MPI_Wtime(void)
{
    return (double)hm_now(self->n);
}

double MPI_Wtick(void)
{
    return 1.0;
}

const int64_t *hm_mpi_input(int *count)
{
    size_t c = 0;
    const int64_t *in = hm_input(self->n, &c);
    *count = (int)c;
    return in;
}

#define HM_MPI_STORE(ctype)                                                                        \
    for (int i = 0; i < count; i++)                                                                \
        hm_store(self->n, (int64_t)((const ctype *)buf)[i]);                                       \
    break

int hm_mpi_result(const void *buf, int count, MPI_Datatype type)
{
    switch (type) {
    case MPI_CHAR:
        HM_MPI_STORE(char);
    case MPI_SIGNED_CHAR:
        HM_MPI_STORE(signed char);
    case MPI_UNSIGNED_CHAR:
    case MPI_BYTE:
        HM_MPI_STORE(unsigned char);
    case MPI_SHORT:
        HM_MPI_STORE(short);
    case MPI_UNSIGNED_SHORT:
        HM_MPI_STORE(unsigned short);
    case MPI_INT:
    case MPI_INT32_T:
        HM_MPI_STORE(int);
    case MPI_UNSIGNED:
        HM_MPI_STORE(unsigned);
    case MPI_LONG:
        HM_MPI_STORE(long);
    case MPI_UNSIGNED_LONG:
        HM_MPI_STORE(unsigned long);
    case MPI_LONG_LONG:
    case MPI_INT64_T:
        HM_MPI_STORE(long long);
    case MPI_UNSIGNED_LONG_LONG:
        HM_MPI_STORE(unsigned long long);
    case MPI_FLOAT:
        HM_MPI_STORE(float);
    case MPI_DOUBLE:
        HM_MPI_STORE(double);
    default:
        return bad("hm_mpi_result", "unknown datatype");
    }
    return MPI_SUCCESS;
}

/* ---- the node program: the rank runs the program's main ------------------------------- */

int hm_mpi_main__(int argc, char **argv);
void hm_mpi__rank(hm_node_t *n);
void hm_mpi_exit__(int code);
int hm_mpi__setup(hm_setup_t *s);

void *hm_mpi__scratch(size_t bytes, const char *call)
{
    size_t k = 0;
    while (k < sizeof self->scratch / sizeof *self->scratch && self->scratch[k])
        k++;
    void *p = k < sizeof self->scratch / sizeof *self->scratch ? malloc(bytes ? bytes : 1) : NULL;
    if (!p)
        bad(call, "out of memory");
    return self->scratch[k] = p;
}

void hm_mpi__unscratch(void *p)
{
    for (size_t k = 0; k < sizeof self->scratch / sizeof *self->scratch; k++)
        if (self->scratch[k] == p)
            self->scratch[k] = NULL;
    free(p);
}

static void rank_free(hm_mpi_rank_t *r)
{
    for (size_t k = 0; k < sizeof r->scratch / sizeof *r->scratch; k++)
        free(r->scratch[k]);
    while (r->posted) { /* receives the rank still waited for when it left */
        struct hm_mpi_request_s *q = r->posted;
        r->posted = q->next;
        free(q);
    }
    while (r->unexp) {
        hm_mpi_msg_t *m = r->unexp;
        r->unexp = m->next;
        free(m->data);
        free(m);
    }
    for (int i = 0; i < r->size; i++)
        if (r->building[i]) {
            free(r->building[i]->data);
            free(r->building[i]);
        }
    free(r->building);
}

/* main returned code: 0 ends the rank normally; another code, as exit(code) in C, is a failure
 * of the run as exit(code) is (hm_mpi_exit__), named as the return. */
static void returned(int code)
{
    if (code != 0) {
        char buf[64];
        snprintf(buf, sizeof buf, "rank %d returned %d from main", self->rank, code);
        hm_abort(self->n, buf);
    }
}

/* The rank's life in this copy of the program (private.c loads one per rank). */
void hm_mpi__rank(hm_node_t *n)
{
    jmp_buf out;
    hm_mpi_rank_t r = {.n = n, .rank = hm_id(n), .size = hm_nodes(n), .out = &out};
    r.building = calloc((size_t)r.size, sizeof *r.building);
    if (!r.building) {
        hm_fail(n, "the MPI library: out of memory");
        return;
    }
    self = &r;
    char name[] = "mpi-program", *argv[] = {name, NULL};
    if (setjmp(out) == 0)
        returned(hm_mpi_main__(1, argv));
    self = NULL;
    rank_free(&r);
}

/* exit() in the program (hypemu-mpicc defines exit as this): the rank ends; a code other
 * than 0 is a failure of the run, as MPI_Abort (hm_abort: exit 1), naming the rank. */
void hm_mpi_exit__(int code)
{
    if (!self)
        exit(code);
    if (code != 0) {
        char buf[64];
        snprintf(buf, sizeof buf, "rank %d called exit(%d)", self->rank, code);
        hm_abort(self->n, buf);
    }
    leave();
}

/* The program's own setup: no state; the algorithms chosen for the collectives checked
 * against the machine (choice.c). A program bound to a problem runs it before the
 * problem's (cli/plugin.c). */
int hm_mpi__setup(hm_setup_t *s)
{
    return hm_mpi__check_choices(s);
}
