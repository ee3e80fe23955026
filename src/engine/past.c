/* SPDX-License-Identifier: MIT */
/*
 * past.c — every node's causal past, slot by slot, from the packets the nodes read
 * (README "What verified means"; the judge in engine/causal.c reads it):
 *
 *   K(x, t) = {x} ∪ ⋃ K(y, s) over every packet x took in by slot t, y its transmitter
 *             and s the slot it was sent in.
 *
 * A packet carries what its sender had heard when it sent it, reads of that slot
 * included (a node reads, then sends); a node knows what reached it through a chain of
 * packets it read, and nothing else. Routed messages and circuits count as one packet
 * from their sender: the nodes on the way do not read them.
 *
 * The sweep keeps one row of p bits per node and walks the slots in which something
 * happens: at slot t it adds to each reader the row its packet carries, calls back at
 * the slots asked for, then takes a snapshot of each sender's row for the packets sent
 * in t (one snapshot per sender and slot, kept until its last packet is read, shared
 * while the row does not change). Rows cost p^2/8 bytes: the sweep is refused above
 * HM__PAST_NODES nodes or HM__PAST_BYTES of snapshots, and the judge falls back to the
 * light cone of distances. Where asked, it also notes the slot in which each node first
 * hears of each other (the arrival matrix the judge reads).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hm_internal.h"

/* One read, flattened: its reader, the slot it was read in (at least its send slot +
 * 1), its sender's snapshot. */
typedef struct flat_s {
    int32_t x, y;
    int64_t sent, slot;
    int32_t snap;
} flat_t;

typedef struct past_s {
    const hm__outcome_t *o;
    int p;
    size_t w;           /* 64-bit words a row */
    uint64_t *rows;     /* p rows */
    uint32_t *version;  /* per node: bumped when its row grows */
    int32_t *last_snap; /* per node: its latest snapshot, -1 */
    uint32_t *snap_ver; /* per node: the version that snapshot holds */
    flat_t *f;          /* every read */
    size_t nf;
    flat_t **by_read; /* f in read-slot order */
    flat_t **by_sent; /* f in (send slot, sender) order */
    uint64_t *pool;   /* snapshots, w words each */
    int32_t *refs;    /* per snapshot: reads still to apply, 0: free */
    int32_t *owner;   /* per snapshot: the node whose row it copies */
    int32_t *free_list;
    size_t nsnap, capsnap, nfree;
    int64_t *arrival; /* p x p, or NULL: hm__causal_past */
} past_t;

static int cmp_read(const void *a, const void *b)
{
    const flat_t *x = *(flat_t *const *)a, *y = *(flat_t *const *)b;
    if (x->slot != y->slot)
        return x->slot < y->slot ? -1 : 1;
    return (x > y) - (x < y);
}

static int cmp_sent(const void *a, const void *b)
{
    const flat_t *x = *(flat_t *const *)a, *y = *(flat_t *const *)b;
    if (x->sent != y->sent)
        return x->sent < y->sent ? -1 : 1;
    if (x->y != y->y)
        return x->y < y->y ? -1 : 1;
    return (x > y) - (x < y);
}

static void past_free(past_t *P)
{
    free(P->rows);
    free(P->version);
    free(P->last_snap);
    free(P->snap_ver);
    free(P->f);
    free(P->by_read);
    free(P->by_sent);
    free(P->pool);
    free(P->refs);
    free(P->owner);
    free(P->free_list);
}

/* Every read of the outcome, flattened and sorted both ways. 0, or -1. */
static int flatten(past_t *P)
{
    const hm__outcome_t *o = P->o;
    for (int x = 0; x < P->p; x++)
        P->nf += o->heard[x].reads.n;
    size_t n = P->nf ? P->nf : 1;
    P->f = malloc(n * sizeof *P->f);
    P->by_read = malloc(n * sizeof *P->by_read);
    P->by_sent = malloc(n * sizeof *P->by_sent);
    if (!P->f || !P->by_read || !P->by_sent)
        return -1;
    size_t k = 0;
    for (int x = 0; x < P->p; x++)
        for (size_t i = 0; i < o->heard[x].reads.n; i++) {
            const hm__read_t *r = &o->heard[x].reads.v[i];
            int64_t slot = r->slot > r->sent_slot ? r->slot : r->sent_slot + 1;
            int y = r->from >= 0 && r->from < P->p ? r->from : x;
            P->f[k] = (flat_t){x, y, r->sent_slot, slot, -1};
            P->by_read[k] = P->by_sent[k] = &P->f[k];
            k++;
        }
    qsort(P->by_read, P->nf, sizeof *P->by_read, cmp_read);
    qsort(P->by_sent, P->nf, sizeof *P->by_sent, cmp_sent);
    return 0;
}

static int past_init(past_t *P, const hm__outcome_t *o, int64_t *arrival)
{
    memset(P, 0, sizeof *P);
    P->o = o;
    P->arrival = arrival;
    P->p = o->info.nodes;
    P->w = ((size_t)P->p + 63) / 64;
    size_t p = (size_t)P->p;
    P->rows = calloc(p * P->w, sizeof *P->rows);
    P->version = calloc(p, sizeof *P->version);
    P->last_snap = malloc(p * sizeof *P->last_snap);
    P->snap_ver = calloc(p, sizeof *P->snap_ver);
    if (!P->rows || !P->version || !P->last_snap || !P->snap_ver || flatten(P) != 0)
        return -1;
    for (size_t x = 0; x < p; x++) {
        P->rows[x * P->w + x / 64] |= (uint64_t)1 << (x % 64);
        P->last_snap[x] = -1;
        for (size_t u = 0; arrival && u < p; u++)
            arrival[x * p + u] = u == x ? INT64_MIN : INT64_MAX;
    }
    return 0;
}

/* A free snapshot's index, or -1 (out of memory) or -2 (over HM__PAST_BYTES). */
static int32_t snap_alloc(past_t *P)
{
    if (P->nfree)
        return P->free_list[--P->nfree];
    if (P->nsnap == P->capsnap) {
        size_t cap = P->capsnap ? 2 * P->capsnap : 64;
        if (cap * P->w * sizeof *P->pool > HM__PAST_BYTES)
            return -2;
        uint64_t *pool = realloc(P->pool, cap * P->w * sizeof *pool);
        if (!pool)
            return -1;
        P->pool = pool;
        int32_t *refs = realloc(P->refs, cap * sizeof *refs);
        if (refs)
            P->refs = refs;
        int32_t *ow = realloc(P->owner, cap * sizeof *ow);
        if (ow)
            P->owner = ow;
        int32_t *fl = realloc(P->free_list, cap * sizeof *fl);
        if (fl)
            P->free_list = fl;
        if (!refs || !ow || !fl)
            return -1;
        P->capsnap = cap;
    }
    return (int32_t)P->nsnap++;
}

/* The snapshot of sender y's row for `count` packets: its latest if the row has not
 * grown since and it is still held, else a new one. 0, or -1 / -2 as snap_alloc. */
static int snapshot(past_t *P, int y, int32_t count, int32_t *id)
{
    int32_t s = P->last_snap[y];
    if (s >= 0 && P->snap_ver[y] == P->version[y]) {
        P->refs[s] += count;
        *id = s;
        return 0;
    }
    if ((s = snap_alloc(P)) < 0)
        return s;
    memcpy(P->pool + (size_t)s * P->w, P->rows + (size_t)y * P->w, P->w * sizeof *P->pool);
    P->refs[s] = count;
    P->owner[s] = y;
    P->last_snap[y] = s;
    P->snap_ver[y] = P->version[y];
    *id = s;
    return 0;
}

/* Reader f->x takes in its packet's snapshot in slot t; a node it hears of for the first
 * time gets its arrival. */
static void apply(past_t *P, flat_t *f, int64_t t)
{
    uint64_t *row = P->rows + (size_t)f->x * P->w;
    const uint64_t *add = P->pool + (size_t)f->snap * P->w;
    uint64_t grew = 0;
    for (size_t k = 0; k < P->w; k++) {
        uint64_t fresh = add[k] & ~row[k];
        grew |= fresh;
        row[k] |= add[k];
        for (; P->arrival && fresh; fresh &= fresh - 1)
            P->arrival[(size_t)f->x * (size_t)P->p + k * 64 + (size_t)__builtin_ctzll(fresh)] = t;
    }
    P->version[f->x] += grew != 0;
    if (--P->refs[f->snap] == 0) { /* free: no longer its owner's latest */
        if (P->last_snap[P->owner[f->snap]] == f->snap)
            P->last_snap[P->owner[f->snap]] = -1;
        P->free_list[P->nfree++] = f->snap;
    }
}

/* The snapshots of the packets sent in slot t, from *i on in by_sent. */
static int snapshots_of(past_t *P, int64_t t, size_t *i)
{
    while (*i < P->nf && P->by_sent[*i]->sent == t) {
        size_t j = *i;
        int y = P->by_sent[j]->y;
        while (j < P->nf && P->by_sent[j]->sent == t && P->by_sent[j]->y == y)
            j++;
        int32_t id;
        int rc = snapshot(P, y, (int32_t)(j - *i), &id);
        if (rc < 0)
            return rc;
        for (size_t k = *i; k < j; k++)
            P->by_sent[k]->snap = id;
        *i = j;
    }
    return 0;
}

static int64_t next_slot(const past_t *P, size_t r, size_t s, const int64_t *at, size_t nat,
                         size_t a)
{
    int64_t t = INT64_MAX;
    if (r < P->nf && P->by_read[r]->slot < t)
        t = P->by_read[r]->slot;
    if (s < P->nf && P->by_sent[s]->sent < t)
        t = P->by_sent[s]->sent;
    if (a < nat && at[a] < t)
        t = at[a];
    return t;
}

static int sweep(past_t *P, const int64_t *at, size_t nat, hm__past_fn fn, void *ctx)
{
    size_t r = 0, s = 0, a = 0;
    for (;;) {
        int64_t t = next_slot(P, r, s, at, nat, a);
        if (t == INT64_MAX)
            return 0;
        for (; r < P->nf && P->by_read[r]->slot == t; r++)
            apply(P, P->by_read[r], t);
        for (; a < nat && at[a] == t; a++)
            if (fn(ctx, t, P->rows, P->w) != 0)
                return 1;
        int rc = snapshots_of(P, t, &s);
        if (rc < 0)
            return rc;
    }
}

int hm__causal_past(const hm__outcome_t *o, const int64_t *at, size_t nat, hm__past_fn fn,
                    void *ctx, int64_t *arrival)
{
    if (!o->heard || o->info.nodes > HM__PAST_NODES)
        return -2;
    past_t P;
    int rc = past_init(&P, o, arrival) != 0 ? -1 : sweep(&P, at, nat, fn, ctx);
    past_free(&P);
    return rc;
}
