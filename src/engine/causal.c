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

struct hm__causal_s {
    const hm__outcome_t *o;
    int64_t *from_others;     /* per node: declared values that come from other nodes */
    unsigned char **declared; /* per node: a bit per store, allocated on first use */
    int found;                /* a breach was recorded */
    int64_t first_possible;   /* the latest first slot a declared value could be stored in */
    breach_t first;
    int nomem;
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
        c->declared[node] = calloc((o->stores[node].n + 7) / 8, 1);
        if (!c->declared[node]) {
            c->nomem = 1;
            return HM_ENOMEM;
        }
    }
    int all = source == HM_FROM_ALL;
    int u = all ? hm__farthest(&o->info, node) : source;
    int64_t need = cone(&o->info, u, node);
    int other = all ? nodes > 1 : source != node;
    const int64_t *slot = o->store_slots[node].v;
    for (size_t i = first; i < first + count; i++) {
        unsigned char *bits = &c->declared[node][i / 8], bit = (unsigned char)(1u << (i % 8));
        if (*bits & bit)
            continue; /* declared before: counted once */
        *bits |= bit;
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
            if ((c->declared[x][i / 8] >> (i % 8) & 1) && o->store_slots[x].v[i] > last)
                last = o->store_slots[x].v[i];
    return last;
}

int64_t hm__causal_first_possible(const hm__causal_t *c)
{
    return c->first_possible;
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
    return 0;
}
