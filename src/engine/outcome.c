/* SPDX-License-Identifier: MIT */
/*
 * outcome.c — what a run leaves once its machine is gone (hm__outcome_t): how it
 * ended, its figures, every node's stores and output area, and the merged timeline,
 * which owns the events moved out of the per-node logs. Verify (through
 * hm_report_t.priv), the writers (out/writers.h) and the summary read it; nothing
 * changes it.
 *
 * The timeline is ordered by (slot, node, sequence): each node's log is already in
 * sequence order and nearly in slot order (the clock appends a receive at the slot
 * it happened), and the key is unique, so the order does not depend on the sort.
 */
#include <stdlib.h>
#include <string.h>

#include "hm_internal.h"

static int cmp_event(const void *a, const void *b)
{
    const hm__event_t *x = a, *y = b;
    if (x->slot != y->slot)
        return x->slot < y->slot ? -1 : 1;
    if (x->node != y->node)
        return x->node < y->node ? -1 : 1;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

/* Every node's log, moved into one array and sorted. */
static int merge_logs(hm__machine_t *m, hm__timeline_t *tl)
{
    size_t total = 0;
    for (int i = 0; i < m->info.nodes; i++)
        total += m->nodes[i].log.n;
    tl->ev = malloc((total ? total : 1) * sizeof *tl->ev);
    if (!tl->ev)
        return -1;
    tl->n = 0;
    for (int i = 0; i < m->info.nodes; i++) {
        hm__log_t *log = &m->nodes[i].log;
        if (log->n)
            memcpy(tl->ev + tl->n, log->v, log->n * sizeof *log->v);
        tl->n += log->n;
        free(log->v); /* the texts now belong to the timeline */
        *log = (hm__log_t){0};
    }
    qsort(tl->ev, tl->n, sizeof *tl->ev, cmp_event);
    return 0;
}

/* What each node heard, moved out of m (engine/causal.c reads it). */
static int take_heard(hm__machine_t *m, hm__outcome_t *o)
{
    o->heard = calloc((size_t)m->info.nodes, sizeof *o->heard);
    if (!o->heard)
        return -1;
    for (int i = 0; i < m->info.nodes; i++) {
        hm_node_t *nd = &m->nodes[i];
        if (nd->heard) {
            o->heard[i] = *nd->heard;
            free(nd->heard);
            nd->heard = NULL;
        }
    }
    return 0;
}

static void free_heard(hm__heard_t *h, int n)
{
    for (int i = 0; h && i < n; i++) {
        free(h[i].reads.v);
        free(h[i].words.v);
    }
    free(h);
}

/* A copy of n nodes' hm__heard_t, or NULL. */
static hm__heard_t *copy_heard(const hm__heard_t *h, int n)
{
    hm__heard_t *c = calloc((size_t)n, sizeof *c);
    for (int i = 0; c && i < n; i++) {
        size_t r = h[i].reads.n, w = h[i].words.n;
        c[i].reads.v = malloc((r ? r : 1) * sizeof *c[i].reads.v);
        c[i].words.v = malloc((w ? w : 1) * sizeof *c[i].words.v);
        if (!c[i].reads.v || !c[i].words.v) {
            free_heard(c, i + 1);
            return NULL;
        }
        if (r)
            memcpy(c[i].reads.v, h[i].reads.v, r * sizeof *c[i].reads.v);
        if (w)
            memcpy(c[i].words.v, h[i].words.v, w * sizeof *c[i].words.v);
        c[i].reads.n = c[i].reads.cap = r;
        c[i].words.n = c[i].words.cap = w;
    }
    return c;
}

/* The node threads' switches and migrations added up (a -1, unreadable, leaves -1), and
 * the calling thread's own, the one that ran the machine ("main"). */
static json_t *threads_json(const hm__machine_t *m)
{
    int64_t sum[3] = {0, 0, 0}, mine[3];
    for (int i = 0; i < m->info.nodes; i++)
        for (int k = 0; k < 3; k++)
            sum[k] = sum[k] < 0 || m->nodes[i].thread_fig[k] < 0
                         ? -1
                         : sum[k] + m->nodes[i].thread_fig[k];
    hm__thread_figures(mine);
    return json_pack("{s:I, s:I, s:I, s:{s:I, s:I, s:I}}", "voluntary_switches", (json_int_t)sum[0],
                     "involuntary_switches", (json_int_t)sum[1], "migrations", (json_int_t)sum[2],
                     "main", "voluntary_switches", (json_int_t)mine[0], "involuntary_switches",
                     (json_int_t)mine[1], "migrations", (json_int_t)mine[2]);
}

int hm__outcome_take(hm__machine_t *m, hm__outcome_t **out)
{
    hm__outcome_t *o = calloc(1, sizeof *o);
    *out = NULL;
    if (!o)
        return -1;
    o->stores = calloc((size_t)m->info.nodes, sizeof *o->stores);
    o->store_slots = calloc((size_t)m->info.nodes, sizeof *o->store_slots);
    o->words = calloc((size_t)m->info.nodes, sizeof *o->words);
    o->shows = calloc((size_t)m->info.nodes, sizeof *o->shows);
    if (m->tp->summary) {
        o->transport = m->tp->summary(m);
        o->transport_key = m->tp->summary_key;
    }
    if (m->opt.thread_figures)
        o->threads = threads_json(m);
    if (!o->stores || !o->store_slots || !o->words || !o->shows ||
        (m->tp->summary && !o->transport) || merge_logs(m, &o->timeline) != 0 ||
        (m->opt.record_reads && take_heard(m, o) != 0)) {
        hm__outcome_free(o);
        return -1;
    }
    o->end = m->end;
    o->reason = m->stop_reason;
    m->stop_reason = NULL;
    o->info = m->info;
    o->algorithm = m->algo ? m->algo->name : "?";
    o->stats = m->stats;
    for (int i = 0; i < m->info.nodes; i++)
        o->refused += m->nodes[i].refused;
    o->nrefusals = hm__refused_first(m, o->refusals);
    for (int i = 0; i < m->info.nodes; i++) {
        o->stores[i] = m->nodes[i].stores;
        m->nodes[i].stores = (hm__int64vec_t){0};
        o->store_slots[i] = m->nodes[i].store_slots;
        m->nodes[i].store_slots = (hm__int64vec_t){0};
        o->shows[i] = m->nodes[i].shows;
        m->nodes[i].shows = (hm__int64vec_t){0};
        o->words[i] = m->nodes[i].inbox.words;
    }
    o->out = m->out;
    o->out_size = hm__out_size(&m->opt, m->algo);
    m->out = NULL;
    for (int i = 0; i < m->info.nodes; i++)
        m->nodes[i].out = NULL;
    *out = o;
    return 0;
}

void hm__outcome_free(hm__outcome_t *o)
{
    if (!o)
        return;
    for (size_t i = 0; i < o->timeline.n; i++)
        free(o->timeline.ev[i].text), free(o->timeline.ev[i].pay);
    free(o->timeline.ev);
    for (int i = 0; i < o->info.nodes; i++) {
        if (o->stores)
            free(o->stores[i].v);
        if (o->store_slots)
            free(o->store_slots[i].v);
        if (o->shows)
            free(o->shows[i].v);
    }
    free(o->shows);
    free(o->stores);
    free(o->store_slots);
    free(o->words);
    free_heard(o->heard, o->info.nodes);
    free(o->out);
    free(o->reason);
    json_decref(o->transport);
    json_decref(o->threads);
    free(o);
}

/* A copy of n vectors v (n values each), or NULL with *bad set. */
static hm__int64vec_t *copy_vecs(const hm__int64vec_t *v, int n, int *bad)
{
    hm__int64vec_t *c = calloc((size_t)n, sizeof *c);
    for (int i = 0; c && i < n; i++) {
        c[i].v = malloc((v[i].n ? v[i].n : 1) * sizeof *c[i].v);
        if (!c[i].v) {
            *bad = 1;
            break;
        }
        if (v[i].n)
            memcpy(c[i].v, v[i].v, v[i].n * sizeof *c[i].v);
        c[i].n = c[i].cap = v[i].n;
    }
    *bad |= !c;
    return c;
}

hm__outcome_t *hm__outcome_copy(const hm__outcome_t *o)
{
    hm__outcome_t *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    *c = *o;
    c->timeline = (hm__timeline_t){0};
    c->reason = NULL;
    c->transport = NULL;
    c->threads = NULL;
    c->shows = NULL; /* what verify may read has no hm_show record */
    int n = o->info.nodes, bad = 0;
    size_t out = o->out ? (size_t)n * o->out_size : 0;
    c->stores = copy_vecs(o->stores, n, &bad);
    c->store_slots = copy_vecs(o->store_slots, n, &bad);
    c->words = malloc((size_t)n * sizeof *c->words + 1);
    c->out = out ? malloc(out) : NULL;
    c->heard = o->heard ? copy_heard(o->heard, n) : NULL;
    if (bad || !c->words || (out && !c->out) || (o->heard && !c->heard)) {
        hm__outcome_free(c);
        return NULL;
    }
    memcpy(c->words, o->words, (size_t)n * sizeof *c->words);
    if (out)
        memcpy(c->out, o->out, out);
    return c;
}

/* ---- what verify may read (include/hypemu.h) ---------------------------------- */

static const hm__outcome_t *outcome_of(const hm_report_t *r)
{
    const hm__report_priv_t *p = r->priv;
    return p ? p->o : NULL;
}

const int64_t *hm_report_stores(const hm_report_t *r, int node, size_t *count)
{
    const hm__outcome_t *o = outcome_of(r);
    if (!o || node < 0 || node >= o->info.nodes) {
        *count = 0;
        return NULL;
    }
    *count = o->stores[node].n;
    return o->stores[node].v;
}

const void *hm_report_out(const hm_report_t *r, int node)
{
    const hm__outcome_t *o = outcome_of(r);
    if (!o || !o->out || node < 0 || node >= o->info.nodes)
        return NULL;
    return o->out + (size_t)node * o->out_size;
}

int hm__exit_code_of(hm__end_t end)
{
    switch (end) {
    case HM__END_DONE:
        return HM_EXIT_OK;
    case HM__END_CONFLICT:
        return HM_EXIT_VERIFY;
    case HM__END_DEADLOCK:
    case HM__END_MAX_SLOTS:
    case HM__END_SLOT_TIMEOUT:
        return HM_EXIT_STUCK;
    case HM__END_INTERRUPTED:
        return HM_EXIT_INTERRUPTED;
    case HM__END_RULES:
        return HM_EXIT_RULES;
    case HM__END_ABORTED:
        return HM_EXIT_VERIFY;
    default:
        return HM_EXIT_SYSTEM;
    }
}
