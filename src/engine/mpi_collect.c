/* SPDX-License-Identifier: MIT */
/*
 * mpi_collect.c — the end of a run of hypemu-mpi (doc/mpi.md): every rank's nodes (logs,
 * stores, output areas, what they read and showed, their refused calls) and the slot
 * judge's figures gathered into rank 0's machine, which then looks exactly like that of
 * one process; HM_MPI_STATS=1's figures of each rank.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_dist.h"

/* What a node heard (engine/causal.c): the counts, then the reads and the words. */
static void pack_heard(hm__bytes_t *b, const hm__heard_t *h)
{
    int64_t k[2] = {h ? (int64_t)h->reads.n : 0, h ? (int64_t)h->words.n : 0};
    hm__dist_put(b, k, sizeof k);
    if (k[0])
        hm__dist_put(b, h->reads.v, (size_t)k[0] * sizeof *h->reads.v);
    if (k[1])
        hm__dist_put(b, h->words.v, (size_t)k[1] * sizeof *h->words.v);
}

static void unpack_heard(const unsigned char **p, hm_node_t *n)
{
    int64_t k[2];
    hm__dist_get(p, k, sizeof k);
    if (!n->heard && !(n->heard = calloc(1, sizeof *n->heard)))
        hm__dist_abort_all("out of memory gathering what the nodes read");
    hm__heard_t *h = n->heard;
    h->reads.n = h->words.n = 0;
    if (hm__grow((void **)&h->reads.v, &h->reads.cap, (size_t)k[0] + 1, sizeof *h->reads.v) ||
        hm__grow((void **)&h->words.v, &h->words.cap, (size_t)k[1] + 1, sizeof *h->words.v))
        hm__dist_abort_all("out of memory gathering what the nodes read");
    hm__dist_get(p, h->reads.v, (size_t)k[0] * sizeof *h->reads.v);
    hm__dist_get(p, h->words.v, (size_t)k[1] * sizeof *h->words.v);
    h->reads.n = (size_t)k[0];
    h->words.n = (size_t)k[1];
}

static void pack_node(hm__bytes_t *b, const hm__machine_t *m, const hm_node_t *n, size_t out_size)
{
    int64_t head[5] = {n->busy_last, n->failed + 2 * (int64_t)n->aborted, (int64_t)n->stores.n,
                       (int64_t)n->log.n, n->inbox.words};
    hm__dist_put(b, head, sizeof head);
    hm__dist_put(b, n->fail_what, sizeof n->fail_what);
    int64_t kept[2] = {n->refused, n->refusals ? n->refused : 0};
    if (kept[1] > HM__REFUSED_KEEP)
        kept[1] = HM__REFUSED_KEEP;
    hm__dist_put(b, kept, sizeof kept);
    if (kept[1])
        hm__dist_put(b, n->refusals, (size_t)kept[1] * sizeof *n->refusals);
    if (n->stores.n) {
        hm__dist_put(b, n->stores.v, n->stores.n * sizeof *n->stores.v);
        hm__dist_put(b, n->store_slots.v, n->stores.n * sizeof *n->store_slots.v);
    }
    if (out_size)
        hm__dist_put(b, m->out + (size_t)n->id * out_size, out_size);
    if (m->opt.record_reads)
        pack_heard(b, n->heard);
    for (size_t k = 0; k < n->log.n; k++) {
        hm__event_t e = n->log.v[k];
        uint32_t len = e.text ? (uint32_t)strlen(e.text) : UINT32_MAX;
        e.text = NULL;
        e.pay = NULL;
        hm__dist_put(b, &e, sizeof e);
        hm__dist_put(b, &len, sizeof len);
        if (len != UINT32_MAX)
            hm__dist_put(b, n->log.v[k].text, len);
        if (e.pay_n) /* a recv's payload, for the player (out/html.c) */
            hm__dist_put(b, n->log.v[k].pay, e.pay_n * sizeof *e.pay);
    }
    /* What it showed (hm_show), for the player. */
    int64_t shows = (int64_t)n->shows.n;
    hm__dist_put(b, &shows, sizeof shows);
    if (shows)
        hm__dist_put(b, n->shows.v, n->shows.n * sizeof *n->shows.v);
}

/* One event as pack_node put it: the record, its text, its payload's first words. */
static void get_event(const unsigned char **p, hm_node_t *n)
{
    hm__event_t e;
    uint32_t len;
    hm__dist_get(p, &e, sizeof e);
    hm__dist_get(p, &len, sizeof len);
    if (len != UINT32_MAX) {
        e.text = malloc((size_t)len + 1);
        if (!e.text)
            hm__dist_abort_all("out of memory gathering the logs");
        hm__dist_get(p, e.text, len);
        e.text[len] = 0;
    }
    if (e.pay_n) {
        e.pay = malloc(e.pay_n * sizeof *e.pay);
        if (!e.pay)
            hm__dist_abort_all("out of memory gathering the logs");
        hm__dist_get(p, e.pay, e.pay_n * sizeof *e.pay);
    }
    if (HM__PUSH(n->log, e) != 0)
        hm__dist_abort_all("out of memory gathering the logs");
}

static void get_shows(const unsigned char **p, hm_node_t *n)
{
    int64_t shows;
    hm__dist_get(p, &shows, sizeof shows);
    n->shows.n = 0;
    for (int64_t k = 0; k < shows; k++) {
        int64_t v;
        hm__dist_get(p, &v, sizeof v);
        if (HM__PUSH(n->shows, v) != 0)
            hm__dist_abort_all("out of memory gathering the logs");
    }
}

/* Its refused calls (README "Refused calls"): the count, the first in full. */
static void get_refusals(const unsigned char **p, hm_node_t *n)
{
    int64_t kept[2];
    hm__dist_get(p, kept, sizeof kept);
    n->refused = kept[0];
    if (kept[1] > 0 && !n->refusals &&
        !(n->refusals = calloc(HM__REFUSED_KEEP, sizeof *n->refusals)))
        hm__dist_abort_all("out of memory gathering the refused calls");
    if (kept[1] > 0)
        hm__dist_get(p, n->refusals, (size_t)kept[1] * sizeof *n->refusals);
}

static void unpack_node(const unsigned char **p, hm__machine_t *m, hm_node_t *n, size_t out_size)
{
    int64_t head[5];
    hm__dist_get(p, head, sizeof head);
    n->busy_last = head[0];
    n->failed = (int)(head[1] & 1);
    n->aborted = (int)(head[1] >> 1);
    n->inbox.words = head[4];
    hm__dist_get(p, n->fail_what, sizeof n->fail_what);
    get_refusals(p, n);
    n->stores.n = n->store_slots.n = 0;
    for (int64_t k = 0; k < head[2]; k++) {
        int64_t v;
        hm__dist_get(p, &v, sizeof v);
        if (HM__PUSH(n->stores, v) != 0)
            hm__dist_abort_all("out of memory gathering the stores");
    }
    for (int64_t k = 0; k < head[2]; k++) {
        int64_t v;
        hm__dist_get(p, &v, sizeof v);
        if (HM__PUSH(n->store_slots, v) != 0)
            hm__dist_abort_all("out of memory gathering the stores");
    }
    if (out_size)
        hm__dist_get(p, m->out + (size_t)n->id * out_size, out_size);
    if (m->opt.record_reads)
        unpack_heard(p, n);
    for (int64_t k = 0; k < head[3]; k++)
        get_event(p, n);
    get_shows(p, n);
}

/* HM_MPI_STATS=1 (doc/mpi.md, "What crossing ranks costs"): each rank's own figures, one
 * line per rank, then the totals, on rank 0's standard error. */
enum {
    S_EXCHANGES,
    S_ROUNDS,
    S_MSGS_SENT,
    S_BYTES_SENT,
    S_MSGS_RECV,
    S_BYTES_RECV,
    S_FOREIGN,
    S_DELIVERED,
    S_USEC,
    S_COUNT
};

static void stats_line(const char *who, const int64_t *f)
{
    dprintf(2,
            "hypemu-mpi: %s: %lld slot exchanges, %lld trading steps, %lld messages sent, %lld "
            "bytes sent, %lld messages received, %lld bytes received, %lld copies from other "
            "ranks (%lld to this rank's nodes), %lld us in MPI\n",
            who, (long long)f[S_EXCHANGES], (long long)f[S_ROUNDS], (long long)f[S_MSGS_SENT],
            (long long)f[S_BYTES_SENT], (long long)f[S_MSGS_RECV], (long long)f[S_BYTES_RECV],
            (long long)f[S_FOREIGN], (long long)f[S_DELIVERED], (long long)f[S_USEC]);
}

static void print_stats(const hm__dist_t *D)
{
    const char *env = getenv("HM_MPI_STATS");
    if (!env || strcmp(env, "1") != 0)
        return;
    int64_t mine[S_COUNT] = {D->exchanges,  D->rounds,    D->msgs_sent,
                             D->bytes_sent, D->msgs_recv, D->bytes_recv,
                             D->foreign,    D->delivered, (int64_t)(D->mpi_seconds * 1e6)};
    int64_t *all = D->rank == 0 ? calloc((size_t)D->size, sizeof mine) : NULL;
    if (D->rank == 0 && !all)
        hm__dist_abort_all("out of memory gathering the figures");
    MPI_Gather(mine, S_COUNT, MPI_INT64_T, all, S_COUNT, MPI_INT64_T, 0, MPI_COMM_WORLD);
    if (D->rank != 0)
        return;
    int64_t sum[S_COUNT] = {0};
    for (int r = 0; r < D->size; r++) {
        char who[32];
        snprintf(who, sizeof who, "rank %d", r);
        stats_line(who, &all[r * S_COUNT]);
        for (int k = 0; k < S_COUNT; k++)
            sum[k] += all[r * S_COUNT + k];
    }
    char who[48];
    snprintf(who, sizeof who, "all ranks: %d ranks", D->size);
    stats_line(who, sum);
    free(all);
}

/* The figures of the slot judge: each rank counted the copies to its own nodes (their
 * transmissions, delays, conflicts, stalls, hops); the mailboxes' depth is the deepest. */
static void reduce_figures(hm__machine_t *m, const hm__dist_t *D)
{
    hm__stats_t *s = &m->stats;
    int64_t sum[6] = {s->transmissions, s->conflicts, s->delayed_packets,
                      s->delay_slots,   s->stalls,    s->routed_hops};
    int64_t max[2] = {s->max_mailbox_depth, s->last_activity}, tsum[6], tmax[2];
    MPI_Reduce(sum, tsum, 6, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(max, tmax, 2, MPI_INT64_T, MPI_MAX, 0, MPI_COMM_WORLD);
    if (D->rank != 0)
        return;
    s->transmissions = tsum[0];
    s->conflicts = tsum[1];
    s->delayed_packets = tsum[2];
    s->delay_slots = tsum[3];
    s->stalls = tsum[4];
    s->routed_hops = tsum[5];
    s->max_mailbox_depth = tmax[0];
    s->last_activity = tmax[1];
}

/* Every rank's nodes (logs, stores, output areas, figures) into rank 0's machine. */
void hm__dist_collect(hm__machine_t *m)
{
    hm__dist_t *D = m->dist;
    print_stats(D);
    reduce_figures(m, D);
    if (D->dc)
        hm__dcirc_collect(m);
    size_t out_size = hm__out_size(&m->opt, m->algo);
    D->out.n = 0;
    for (int i = m->lo; i < m->hi; i++)
        pack_node(&D->out, m, &m->nodes[i], out_size);
    int mine = (int)D->out.n;
    MPI_Gather(&mine, 1, MPI_INT, D->counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    size_t total = 0;
    if (D->rank == 0)
        for (int r = 0; r < D->size; r++) {
            D->displs[r] = (int)total;
            total += (size_t)D->counts[r];
        }
    if (hm__grow((void **)&D->in.v, &D->in.cap, total ? total : 1, 1) != 0)
        hm__dist_abort_all("out of memory gathering the run");
    MPI_Gatherv(D->out.v, mine, MPI_BYTE, D->in.v, D->counts, D->displs, MPI_BYTE, 0,
                MPI_COMM_WORLD);
    if (D->rank != 0)
        return;
    for (int r = 1; r < D->size; r++) {
        const unsigned char *p = D->in.v + D->displs[r];
        for (int i = D->first[r]; i < D->first[r + 1]; i++)
            unpack_node(&p, m, &m->nodes[i], out_size);
    }
}
