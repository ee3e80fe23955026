/* SPDX-License-Identifier: MIT */
/*
 * knows.c — what each node knows, slot by slot, for the player (doc/pictures.md, "What
 * each node knows"): the nodes whose information has reached it through the packets it
 * read, itself included — the causal past the judge reads (engine/past.c), computed once
 * for both. Kept as changes: for each node the slots in which the count grows, and for
 * machines of at most 64 nodes the set itself, one bit per node.
 */
#include <stdlib.h>

#include "out/writers.h"

typedef struct walk_s {
    hm__knows_t *k;
    int64_t *last; /* per node: the count last recorded */
    int nomem;
} walk_t;

static int count_row(const uint64_t *row, size_t words)
{
    int n = 0;
    for (size_t w = 0; w < words; w++)
        n += __builtin_popcountll(row[w]);
    return n;
}

static int at_slot(void *ctx, int64_t slot, const uint64_t *rows, size_t words)
{
    walk_t *w = ctx;
    hm__knows_t *k = w->k;
    for (int x = 0; x < k->p; x++) {
        const uint64_t *row = rows + (size_t)x * words;
        int64_t n = count_row(row, words);
        if (n == w->last[x])
            continue;
        w->last[x] = n;
        hm__knows_change_t c = {slot, n, k->p <= 64 ? row[0] : 0};
        if (HM__PUSH(k->changes[x], c) != 0) {
            w->nomem = 1;
            return 1;
        }
    }
    return 0;
}

int hm__knows(const hm__outcome_t *o, int64_t last, hm__knows_t *k)
{
    *k = (hm__knows_t){.p = o->info.nodes};
    if (!o->heard || k->p > HM__KNOWS_NODES || last < 0)
        return -2;
    size_t n = (size_t)last + 1;
    int64_t *at = malloc(n * sizeof *at);
    walk_t w = {k, calloc((size_t)k->p, sizeof *w.last), 0};
    k->changes = calloc((size_t)k->p, sizeof *k->changes);
    int rc = -1;
    if (at && w.last && k->changes) {
        for (size_t t = 0; t < n; t++)
            at[t] = (int64_t)t;
        rc = hm__causal_past(o, at, n, at_slot, &w, NULL);
        rc = w.nomem ? -1 : rc;
    }
    free(at);
    free(w.last);
    if (rc != 0)
        hm__knows_free(k);
    return rc;
}

void hm__knows_free(hm__knows_t *k)
{
    for (int x = 0; k->changes && x < k->p; x++)
        free(k->changes[x].v);
    free(k->changes);
    k->changes = NULL;
}
