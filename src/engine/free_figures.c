/* SPDX-License-Identifier: MIT */
/*
 * free_figures.c — the free-running clock's figures (engine/free.c; doc/clocks.md
 * "Free-running mode", doc/contention.md): after the run, the counters each node thread kept folded
 * into the summary's "free" object — per link and per node, the hottest links, the latency
 * quantiles and log2 histogram, the latency split into wake-ups and waits in the mailbox,
 * every lock the clock took (waits and holds, by kind), and the node threads' context
 * switches and CPU migrations as the kernel counts them.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "free.h"

void hm__free_thread_figures(fnode_t *f)
{
    int64_t fig[3];
    hm__thread_figures(fig);
    f->vcsw = fig[0];
    f->ivcsw = fig[1];
    f->migrations = fig[2];
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Nearest rank: the smallest sample with at least q percent of the samples at or
 * below it. */
static int64_t rank(const int64_t *v, size_t n, int q)
{
    size_t k = ((size_t)q * n + 99) / 100;
    return v[k ? k - 1 : 0];
}

/* {min, p50, p99, max} of n sorted samples, or null. */
static json_t *latency_json(const int64_t *v, size_t n)
{
    if (n == 0)
        return json_null();
    return json_pack("{s:I, s:I, s:I, s:I}", "min", (json_int_t)v[0], "p50",
                     (json_int_t)rank(v, n, 50), "p99", (json_int_t)rank(v, n, 99), "max",
                     (json_int_t)v[n - 1]);
}

void hm__free_collect(hm__machine_t *m)
{
    hm__free_t *F = m->tp_priv;
    hm__stats_t *st = &m->stats;
    int64_t top = -1;
    size_t links = (size_t)m->info.nodes * (size_t)m->maxdeg, all = 0;
    for (size_t l = 0; l < links; l++) {
        flink_t *lk = &F->links[l];
        if (lk->lat.n) /* qsort's base may not be NULL, even for 0 elements */
            qsort(lk->lat.v, lk->lat.n, sizeof *lk->lat.v, cmp_i64);
        all += lk->lat.n;
    }
    F->all_lat.v = malloc((all ? all : 1) * sizeof *F->all_lat.v);
    if (F->all_lat.v) {
        for (size_t l = 0; l < links; l++)
            for (size_t k = 0; k < F->links[l].lat.n; k++)
                F->all_lat.v[F->all_lat.n++] = F->links[l].lat.v[k];
        qsort(F->all_lat.v, F->all_lat.n, sizeof *F->all_lat.v, cmp_i64);
    }
    for (int i = 0; i < m->info.nodes; i++) {
        fnode_t *f = &F->nodes[i];
        st->transmissions += f->sends;
        if (f->last_send > st->last_activity)
            st->last_activity = f->last_send;
        if (f->max_depth > st->max_mailbox_depth)
            st->max_mailbox_depth = f->max_depth;
        if (m->nodes[i].now > top)
            top = m->nodes[i].now;
        st->stalls += f->blocked_sends;
    }
    st->slots_run = top + 1; /* the highest logical slot a node reached, + 1 */
}

/* The figures one node or link has, added into t (a node's own fields, or a link's:
 * lock waits for links count the receiver's mailbox lock only). */
typedef struct figs_s {
    int64_t packets, bytes, port_waits, port_ns, full_waits, full_ns, lock_waits, lock_ns;
    int64_t recv_waits, recv_ns;
} figs_t;

static json_t *figs_json(const figs_t *g, json_t *lat)
{
    return json_pack("{s:I, s:I, s:o, s:I, s:I, s:I, s:I, s:I, s:I}", "packets",
                     (json_int_t)g->packets, "bytes", (json_int_t)g->bytes, "latency_ns", lat,
                     "port_waits", (json_int_t)g->port_waits, "port_wait_ns",
                     (json_int_t)g->port_ns, "mailbox_full_waits", (json_int_t)g->full_waits,
                     "mailbox_full_ns", (json_int_t)g->full_ns, "lock_waits",
                     (json_int_t)g->lock_waits, "lock_wait_ns", (json_int_t)g->lock_ns);
}

static figs_t link_figs(const flink_t *lk)
{
    return (figs_t){.packets = lk->packets,
                    .bytes = lk->bytes,
                    .port_waits = lk->port_waits,
                    .port_ns = lk->port_ns,
                    .full_waits = lk->full_waits,
                    .full_ns = lk->full_ns,
                    .lock_waits = lk->lock_waits,
                    .lock_ns = lk->lock_ns};
}

static figs_t node_figs(const fnode_t *f)
{
    return (figs_t){f->sends,   f->bytes,      f->port_waits, f->port_ns,          f->blocked_sends,
                    f->full_ns, f->lock_waits, f->lock_ns,    f->blocked_receives, f->recv_ns};
}

/* One node: its figures, and the latency of the packets it sent. */
static json_t *node_json(const hm__machine_t *m, int i, figs_t *tot)
{
    const hm__free_t *F = m->tp_priv;
    figs_t g = node_figs(&F->nodes[i]);
    size_t n = 0, base = (size_t)i * (size_t)m->maxdeg;
    for (int p = 0; p < m->maxdeg; p++)
        n += F->links[base + (size_t)p].lat.n;
    int64_t *v = malloc((n ? n : 1) * sizeof *v);
    if (!v)
        return NULL;
    n = 0;
    for (int p = 0; p < m->maxdeg; p++)
        for (size_t k = 0; k < F->links[base + (size_t)p].lat.n; k++)
            v[n++] = F->links[base + (size_t)p].lat.v[k];
    if (n > 1)
        qsort(v, n, sizeof *v, cmp_i64);
    json_t *o = figs_json(&g, latency_json(v, n));
    free(v);
    if (o && json_object_set_new(o, "node", json_integer(i)) == 0 &&
        json_object_set_new(o, "blocked_receives", json_integer(g.recv_waits)) == 0 &&
        json_object_set_new(o, "blocked_receive_ns", json_integer(g.recv_ns)) == 0 &&
        json_object_set_new(o, "voluntary_switches", json_integer(F->nodes[i].vcsw)) == 0 &&
        json_object_set_new(o, "involuntary_switches", json_integer(F->nodes[i].ivcsw)) == 0 &&
        json_object_set_new(o, "migrations", json_integer(F->nodes[i].migrations)) == 0) {
        figs_t *t = tot;
        t->packets += g.packets, t->bytes += g.bytes, t->port_waits += g.port_waits;
        t->port_ns += g.port_ns, t->full_waits += g.full_waits, t->full_ns += g.full_ns;
        t->lock_waits += g.lock_waits, t->lock_ns += g.lock_ns, t->recv_waits += g.recv_waits;
        t->recv_ns += g.recv_ns;
        return o;
    }
    json_decref(o);
    return NULL;
}

/* A link's contention: the time senders waited to put packets on it (port, full
 * mailbox, the receiver's lock) and the time its packets waited to be read. */
static int64_t contention_ns(const flink_t *lk)
{
    return lk->port_ns + lk->full_ns + lk->lock_ns + lk->lat_sum;
}

static json_t *link_json(const hm__machine_t *m, size_t l)
{
    const flink_t *lk = &((const hm__free_t *)m->tp_priv)->links[l];
    figs_t g = link_figs(lk);
    json_t *o = figs_json(&g, latency_json(lk->lat.v, lk->lat.n));
    json_t *head = json_pack("{s:i, s:i, s:i, s:I}", "from", (int)(l / (size_t)m->maxdeg), "port",
                             (int)(l % (size_t)m->maxdeg), "to", (int)m->nbr[l], "contention_ns",
                             (json_int_t)contention_ns(lk));
    if (!o || !head || json_object_update(head, o) != 0) {
        json_decref(o);
        json_decref(head);
        return NULL;
    }
    json_decref(o);
    return head;
}

/* The 5 links of most contention (ties: the lower link number), as an array. */
static json_t *hottest(const hm__machine_t *m)
{
    const hm__free_t *F = m->tp_priv;
    size_t links = (size_t)m->info.nodes * (size_t)m->maxdeg, top[5];
    int k = 0;
    for (size_t l = 0; l < links; l++) {
        if (m->nbr[l] < 0 || (F->links[l].packets == 0 && contention_ns(&F->links[l]) == 0))
            continue;
        int j = k < 5 ? k++ : 5;
        while (j > 0 && contention_ns(&F->links[top[j - 1]]) < contention_ns(&F->links[l])) {
            if (j < 5)
                top[j] = top[j - 1];
            j--;
        }
        if (j < 5)
            top[j] = l;
    }
    json_t *a = json_array();
    for (int j = 0; a && j < k; j++)
        if (json_array_append_new(a, link_json(m, top[j])) != 0) {
            json_decref(a);
            return NULL;
        }
    return a;
}

/* Every link that carried a packet or made a sender wait, and every node. */
static int per_link_node(const hm__machine_t *m, json_t *links, json_t *nodes, figs_t *tot)
{
    const hm__free_t *F = m->tp_priv;
    size_t nl = (size_t)m->info.nodes * (size_t)m->maxdeg;
    for (size_t l = 0; l < nl; l++) {
        const flink_t *lk = &F->links[l];
        if (m->nbr[l] >= 0 && (lk->packets || contention_ns(lk)) &&
            json_array_append_new(links, link_json(m, l)) != 0)
            return -1;
    }
    for (int i = 0; i < m->info.nodes; i++)
        if (json_array_append_new(nodes, node_json(m, i, tot)) != 0)
            return -1;
    return 0;
}

static json_t *summary_base(const hm__machine_t *m)
{
    const hm__free_t *F = m->tp_priv;
    json_t *links = json_array(), *nodes = json_array();
    figs_t t = {0};
    if (!links || !nodes || per_link_node(m, links, nodes, &t) != 0) {
        json_decref(links);
        json_decref(nodes);
        return NULL;
    }
    json_t *tot = figs_json(&t, latency_json(F->all_lat.v, F->all_lat.n));
    if (tot) {
        /* packets counts the copies put into mailboxes, the latencies those read: the rest
         * were never read (credits to a node that had returned), so the two add up. */
        int64_t unread = 0;
        for (int i = 0; i < m->info.nodes; i++)
            unread += (int64_t)m->nodes[i].inbox.n;
        json_object_set_new(tot, "blocked_receives", json_integer(t.recv_waits));
        json_object_set_new(tot, "blocked_receive_ns", json_integer(t.recv_ns));
        json_object_set_new(tot, "unread_packets", json_integer(unread));
    }
    int64_t max_blocked = 0;
    for (int i = 0; i < m->info.nodes; i++) {
        const fnode_t *f = &F->nodes[i];
        if (f->full_ns + f->recv_ns + f->port_ns > max_blocked)
            max_blocked = f->full_ns + f->recv_ns + f->port_ns;
    }
    return json_pack("{s:b, s:b, s:I, s:I, s:I, s:f, s:f, s:o, s:o, s:o, s:o, s:o}",
                     "port_model_enforced", 1, "deterministic", 0, "lock_waits",
                     (json_int_t)t.lock_waits, "blocked_sends", (json_int_t)t.full_waits,
                     "blocked_receives", (json_int_t)t.recv_waits, "blocked_seconds",
                     (double)(t.full_ns + t.recv_ns + t.port_ns) * 1e-9, "max_node_blocked_seconds",
                     (double)max_blocked * 1e-9, "host", hm__host_json(m), "totals", tot,
                     "hottest_links", hottest(m), "links", links, "nodes", nodes);
}

/* The log2 histogram of every latency: [from_ns, packets] for each non-empty bucket
 * [2^b, 2^(b+1)) (from_ns 0 for the latencies under 2 ns). */
static json_t *histogram_json(const hm__int64vec_t *lat)
{
    int64_t count[64] = {0};
    for (size_t k = 0; k < lat->n; k++) {
        uint64_t v = lat->v[k] > 1 ? (uint64_t)lat->v[k] : 1;
        count[63 - __builtin_clzll(v)]++;
    }
    json_t *a = json_array();
    for (int b = 0; a && b < 64; b++)
        if (count[b] > 0)
            json_array_append_new(a, json_pack("[I, I]", (json_int_t)(b ? INT64_C(1) << b : 0),
                                               (json_int_t)count[b]));
    return a;
}

/* Every lock the node threads took, by kind, summed over the threads. */
static json_t *locks_json(const hm__machine_t *m)
{
    static const char *const kinds[FL_COUNT] = {"mailbox", "deadlock_detection", "circuit"};
    const hm__free_t *F = m->tp_priv;
    json_t *o = json_object();
    for (int k = 0; o && k < FL_COUNT; k++) {
        lockfig_t t = {0};
        for (int i = 0; i < m->info.nodes; i++) {
            const lockfig_t *x = &F->nodes[i].locks[k];
            t.taken += x->taken, t.waits += x->waits, t.wait_ns += x->wait_ns;
            t.hold_ns += x->hold_ns;
            t.hold_max = x->hold_max > t.hold_max ? x->hold_max : t.hold_max;
        }
        json_object_set_new(o, kinds[k],
                            json_pack("{s:I, s:I, s:I, s:I, s:I}", "taken", (json_int_t)t.taken,
                                      "waits", (json_int_t)t.waits, "wait_ns",
                                      (json_int_t)t.wait_ns, "hold_ns", (json_int_t)t.hold_ns,
                                      "max_hold_ns", (json_int_t)t.hold_max));
    }
    return o;
}

/* Sum over the node threads of a kernel figure; -1 if one thread could not read it. */
static json_int_t thread_sum(const hm__free_t *F, int nodes, size_t off)
{
    json_int_t t = 0;
    for (int i = 0; i < nodes; i++) {
        int64_t v = *(const int64_t *)((const char *)&F->nodes[i] + off);
        if (v < 0)
            return -1;
        t += v;
    }
    return t;
}

/* The node threads as the kernel counts them, and the latency split. */
static json_t *threads_json(const hm__machine_t *m)
{
    const hm__free_t *F = m->tp_priv;
    int n = m->info.nodes;
    json_int_t mig = thread_sum(F, n, offsetof(fnode_t, migrations));
    return json_pack("{s:I, s:I, s:I, s:s?}", "voluntary_switches",
                     thread_sum(F, n, offsetof(fnode_t, vcsw)), "involuntary_switches",
                     thread_sum(F, n, offsetof(fnode_t, ivcsw)), "migrations", mig,
                     "migrations_from", mig >= 0 ? "/proc/self/task/TID/sched" : NULL);
}

static json_t *split_json(const hm__machine_t *m)
{
    const hm__free_t *F = m->tp_priv;
    int64_t w = 0, wn = 0, q = 0, qn = 0;
    for (int i = 0; i < m->info.nodes; i++) {
        const fnode_t *f = &F->nodes[i];
        w += f->woken, wn += f->woken_ns, q += f->queued, qn += f->queued_ns;
    }
    return json_pack("{s:I, s:I, s:I, s:I}", "woken_packets", (json_int_t)w, "woken_ns",
                     (json_int_t)wn, "queued_packets", (json_int_t)q, "queued_ns", (json_int_t)qn);
}

json_t *hm__free_summary(const hm__machine_t *m)
{
    const hm__free_t *F = m->tp_priv;
    json_t *o = summary_base(m);
    if (!o)
        return NULL;
    if (json_object_set_new(o, "latency_log2_histogram", histogram_json(&F->all_lat)) != 0 ||
        json_object_set_new(o, "latency_split", split_json(m)) != 0 ||
        json_object_set_new(o, "locks", locks_json(m)) != 0 ||
        json_object_set_new(o, "threads", threads_json(m)) != 0) {
        json_decref(o);
        return NULL;
    }
    return o;
}
