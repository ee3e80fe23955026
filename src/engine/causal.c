/* SPDX-License-Identifier: MIT */
/*
 * causal.c — the two rules no result may break (README "What verified means"),
 * checked after the run from the outcome, for every value verify vouches for with
 * hm_report_from:
 *
 *   Light cone. Information from node u reaches node x no earlier than the model
 *   allows. Under packet routing a packet crosses one link per slot and is read in
 *   the slot after it was received, and so does silence (a node learns that u did not
 *   send only when the packet would have arrived), so the cone is the graph distance:
 *   a value stored by x in slot t can depend on u only if t >= dist(u, x) (topo/:
 *   closed forms per topology; on the bus every other node is one link away). Under
 *   circuit routing a message of any length between any two nodes lasts at least
 *   D = hm__circuit_slots(info, 1, 0) = max(1, ceil(b)) slots, so the cone is D for
 *   every x != u. The free-running clock's logical clocks obey the same rule: reading
 *   a packet sent at t moves the reader's clock to t + its duration at least.
 *
 *   Volume. A node cannot store more values that come from other nodes than the words
 *   delivered to it: a delivered copy counts its value as one word and its payload as
 *   ceil(len / 8) (hm__inbox_t.words). A pointer passed in a packet's value is one
 *   word, however much it lets the receiver read.
 *
 * Neither rule is on the hot path: the engine records each store's slot and counts
 * the words delivered; the judgement costs O(values declared).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hm_internal.h"

/* The first value found outside its cone. */
typedef struct breach_s {
    int node, source;
    size_t index;
    int64_t slot, value, cone;
    int all; /* declared HM_FROM_ALL: source is the farthest node */
} breach_t;

#define UNDECLARED INT32_MIN

struct hm__causal_s {
    const hm__outcome_t *o;
    int64_t *from_others;   /* per node: declared values that come from other nodes */
    int32_t **declared;     /* per node: each store's declared source, UNDECLARED or a
                               node or HM_FROM_ALL; allocated on first use */
    int found;              /* a breach was recorded */
    int64_t first_possible; /* the latest first slot a declared value could be stored in */
    breach_t first;
    int nomem;
    int exact_cone, forwarded; /* hm__causal_rules */
};

hm__causal_t *hm__causal_new(const hm__outcome_t *o)
{
    hm__causal_t *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->o = o;
    c->first_possible = -1;
    c->from_others = calloc((size_t)o->info.nodes, sizeof *c->from_others);
    c->declared = calloc((size_t)o->info.nodes, sizeof *c->declared);
    if (!c->from_others || !c->declared) {
        hm__causal_free(c);
        return NULL;
    }
    return c;
}

void hm__causal_free(hm__causal_t *c)
{
    if (!c)
        return;
    if (c->declared)
        for (int i = 0; i < c->o->info.nodes; i++)
            free(c->declared[i]);
    free(c->declared);
    free(c->from_others);
    free(c);
}

/* The earliest slot in which x may store a value that depends on u. */
static int64_t cone(const hm_machine_info_t *in, int u, int x)
{
    if (u == x)
        return 0;
    if (in->circuit)
        return hm__circuit_slots(in, 1, 0);
    return hm__distance(in, u, x);
}

int hm_report_from(hm_report_t *r, int node, size_t first, size_t count, int source)
{
    const hm__report_priv_t *p = r ? r->priv : NULL;
    hm__causal_t *c = p ? p->causal : NULL;
    if (!c)
        return HM_EINVAL;
    const hm__outcome_t *o = c->o;
    int nodes = o->info.nodes;
    if (node < 0 || node >= nodes || source < HM_FROM_ALL || source >= nodes ||
        first > o->stores[node].n || count > o->stores[node].n - first)
        return HM_EINVAL;
    if (count && !c->declared[node]) {
        size_t n = o->stores[node].n;
        c->declared[node] = malloc(n * sizeof **c->declared);
        if (!c->declared[node]) {
            c->nomem = 1;
            return HM_ENOMEM;
        }
        for (size_t i = 0; i < n; i++)
            c->declared[node][i] = UNDECLARED;
    }
    int all = source == HM_FROM_ALL;
    int u = all ? hm__farthest(&o->info, node) : source;
    int64_t need = cone(&o->info, u, node);
    int other = all ? nodes > 1 : source != node;
    const int64_t *slot = o->store_slots[node].v;
    for (size_t i = first; i < first + count; i++) {
        if (c->declared[node][i] != UNDECLARED)
            continue; /* declared before: counted once */
        c->declared[node][i] = source;
        c->from_others[node] += other;
        if (need > c->first_possible)
            c->first_possible = need;
        if (slot[i] < need && !c->found) {
            c->found = 1;
            c->first = (breach_t){node, u, i, slot[i], o->stores[node].v[i], need, all};
        }
    }
    return HM_OK;
}

/* "node 5 stored value #3 (1012) in slot 2, but it comes from node 12, 4 links away:
 * nothing of node 12 reaches node 5 before slot 4 (one link per slot)" */
static void explain(const hm_machine_info_t *in, const breach_t *b, char *buf, size_t len)
{
    char whence[96], rule[64];
    if (in->circuit) {
        snprintf(whence, sizeof whence, "%s node %d",
                 b->all ? "depends on every node, and" : "comes from", b->source);
        snprintf(rule, sizeof rule, "the shortest circuit lasts %lld slots", (long long)b->cone);
    } else {
        snprintf(whence, sizeof whence, "%s node %d, %lld link%s away",
                 b->all ? "depends on every node, and" : "comes from", b->source,
                 (long long)b->cone, b->cone == 1 ? "" : "s");
        snprintf(rule, sizeof rule, "one link per slot");
    }
    snprintf(buf, len,
             "node %d stored value #%zu (%lld) in slot %lld, but it %s: nothing of node %d "
             "reaches node %d before slot %lld (%s)",
             b->node, b->index + 1, (long long)b->value, (long long)b->slot, whence, b->source,
             b->node, (long long)b->cone, rule);
}

int64_t hm__causal_last_slot(const hm__causal_t *c)
{
    const hm__outcome_t *o = c->o;
    int64_t last = -1;
    for (int x = 0; x < o->info.nodes; x++)
        for (size_t i = 0; c->declared[x] && i < o->stores[x].n; i++)
            if (c->declared[x][i] != UNDECLARED && o->store_slots[x].v[i] > last)
                last = o->store_slots[x].v[i];
    return last;
}

int64_t hm__causal_first_possible(const hm__causal_t *c)
{
    return c->first_possible;
}

void hm__causal_rules(hm__causal_t *c, int exact_cone, int forwarded)
{
    c->exact_cone = exact_cone;
    c->forwarded = forwarded;
}

/* ---- the causal past and the words delivered ----------------------------------- */

/* The first breach of a rule in (slot, node, index) order: the same every run. */
typedef struct first_s {
    int found, node, source, missing;
    size_t index;
    int64_t slot;
} first_t;

static void note(first_t *f, int node, size_t index, int64_t slot, int source, int missing)
{
    if (f->found &&
        (slot > f->slot ||
         (slot == f->slot && (node > f->node || (node == f->node && index >= f->index)))))
        return;
    *f = (first_t){1, node, source, missing, index, slot};
}

/* The node whose information reached x last, or first missing at slot t, for a value
 * that depends on every node: its arrival, and *who. */
static int64_t latest_arrival(const int64_t *row, int p, int64_t t, int *who)
{
    int64_t last = INT64_MIN;
    for (int u = 0; u < p; u++)
        if (row[u] > t) {
            *who = u;
            return row[u];
        } else if (row[u] > last) {
            last = row[u];
            *who = u;
        }
    return last;
}

/* Node x's store i, declared from u (not x), against x's row of arrivals. */
static void cone_of(const hm__causal_t *c, int x, size_t i, int u, const int64_t *row, first_t *f)
{
    const hm__outcome_t *o = c->o;
    int64_t t = o->store_slots[x].v[i];
    int missing = u;
    int64_t need = u == HM_FROM_ALL ? latest_arrival(row, o->info.nodes, t, &missing) : row[u];
    if (t < need)
        note(f, x, i, t, u, missing);
}

static void explain_past(const hm__outcome_t *o, const first_t *k, char *why, size_t len)
{
    long long v = o->stores[k->node].v[k->index], t = k->slot;
    if (k->source == HM_FROM_ALL)
        snprintf(why, len,
                 "node %d stored value #%zu (%lld) in slot %lld, which depends on every node, "
                 "but nothing of node %d had reached it by then through the packets it read (a "
                 "packet carries what its sender had read when it sent it)",
                 k->node, k->index + 1, v, t, k->missing);
    else
        snprintf(why, len,
                 "node %d stored value #%zu (%lld) in slot %lld, but it comes from node %d, and "
                 "no chain of packets node %d read by then leads from node %d (a packet carries "
                 "what its sender had read when it sent it)",
                 k->node, k->index + 1, v, t, k->missing, k->node, k->missing);
}

/* A table of the words a node read: value -> the first slot it came in (open addressing,
 * a power of two of slots, EMPTY never a key's slot). */
typedef struct carried_s {
    int64_t *key, *slot;
    size_t cap;
} carried_t;

#define EMPTY INT64_MAX

static size_t hash_of(int64_t v, size_t cap)
{
    uint64_t h = (uint64_t)v * UINT64_C(0x9E3779B97F4A7C15);
    return (size_t)(h >> 17) & (cap - 1);
}

static int64_t *carried_at(carried_t *t, int64_t v)
{
    size_t i = hash_of(v, t->cap);
    while (t->slot[i] != EMPTY && t->key[i] != v)
        i = (i + 1) & (t->cap - 1);
    t->key[i] = v;
    return &t->slot[i];
}

/* Fill t with what h holds; 0, or -1 out of memory. */
static int carried_fill(carried_t *t, const hm__heard_t *h)
{
    size_t cap = 16;
    while (cap < 2 * h->words.n)
        cap *= 2;
    if (cap > t->cap) {
        free(t->key);
        free(t->slot);
        t->key = malloc(cap * sizeof *t->key);
        t->slot = malloc(cap * sizeof *t->slot);
        t->cap = t->key && t->slot ? cap : 0;
        if (!t->cap)
            return -1;
    }
    t->cap = cap;
    for (size_t i = 0; i < cap; i++)
        t->slot[i] = EMPTY;
    size_t w = 0;
    for (size_t r = 0; r < h->reads.n; r++)
        for (uint32_t k = 0; k < h->reads.v[r].nwords && w < h->words.n; k++, w++) {
            int64_t *s = carried_at(t, h->words.v[w]);
            if (h->reads.v[r].slot < *s)
                *s = h->reads.v[r].slot;
        }
    return 0;
}

/* Node by node: the arrivals (engine/past.c) and the words each node read (where the
 * problem passes values on), against its declared values from other nodes. */
static int judge_nodes(const hm__causal_t *c, const int64_t *arrival, first_t *cone, first_t *word)
{
    const hm__outcome_t *o = c->o;
    size_t p = (size_t)o->info.nodes;
    carried_t t = {0};
    int rc = 0;
    for (int x = 0; x < (int)p && rc == 0; x++) {
        int filled = 0;
        for (size_t i = 0; c->declared[x] && i < o->stores[x].n && rc == 0; i++) {
            int u = c->declared[x][i];
            if (u == UNDECLARED || u == x)
                continue;
            if (arrival)
                cone_of(c, x, i, u, arrival + (size_t)x * p, cone);
            if (!c->forwarded || u == HM_FROM_ALL)
                continue;
            if (!filled && (rc = carried_fill(&t, &o->heard[x])) != 0)
                break;
            filled = 1;
            if (*carried_at(&t, o->stores[x].v[i]) > o->store_slots[x].v[i])
                note(word, x, i, o->store_slots[x].v[i], u, u);
        }
    }
    free(t.key);
    free(t.slot);
    return rc;
}

/* The rules that need what the nodes read (hm__causal_rules): 0, 1 (why written), -1
 * out of memory. A machine too large for the walk keeps the light cone of distances. */
static int judge_heard(const hm__causal_t *c, char *why, size_t len)
{
    const hm__outcome_t *o = c->o;
    if (!o->heard || (!c->exact_cone && !c->forwarded))
        return 0;
    size_t p = (size_t)o->info.nodes;
    int64_t *arrival = NULL;
    int nomem = 0;
    if (c->exact_cone && p <= HM__PAST_NODES) {
        arrival = malloc(p * p * sizeof *arrival);
        int rc = arrival ? hm__causal_past(o, NULL, 0, NULL, NULL, arrival) : -1;
        if (rc != 0) {
            free(arrival);
            arrival = NULL;
            nomem = rc == -1;
        }
    }
    first_t cone = {0}, word = {0};
    if (!nomem)
        nomem = judge_nodes(c, arrival, &cone, &word) != 0;
    free(arrival);
    if (nomem)
        return -1;
    if (cone.found)
        explain_past(o, &cone, why, len);
    else if (word.found)
        snprintf(why, len,
                 "node %d stored value #%zu (%lld) in slot %lld as node %d's, but no packet "
                 "it had read by then carried that value (the problem passes values on "
                 "unchanged: each arrives as a packet's value or a whole int64 word of its "
                 "payload)",
                 word.node, word.index + 1, (long long)o->stores[word.node].v[word.index],
                 (long long)word.slot, word.source);
    return cone.found || word.found;
}

int hm__causal_judge(const hm__causal_t *c, char *why, size_t len)
{
    if (c->nomem)
        return -1;
    const hm__outcome_t *o = c->o;
    if (c->found) {
        explain(&o->info, &c->first, why, len);
        return 1;
    }
    for (int x = 0; x < o->info.nodes; x++)
        if (c->from_others[x] > o->words[x]) {
            long long v = c->from_others[x], w = o->words[x];
            snprintf(why, len,
                     "node %d stored %lld value%s from other nodes but was delivered only %lld "
                     "word%s (a packet's value counts 1, its payload ceil(len/8)): values "
                     "cannot travel outside the packets",
                     x, v, v == 1 ? "" : "s", w, w == 1 ? "" : "s");
            return 1;
        }
    return judge_heard(c, why, len);
}
