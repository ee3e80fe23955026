/* SPDX-License-Identifier: MIT */
/*
 * coll_prob.c — the catalogue's transport of the shared collective schedules (coll_core.h,
 * problem.h: hma_coll_prob): int64 values in the problem's packets, the problem's op.
 */
#include "coll_core.h"
#include "problem.h"

static int port_of(const hma_coll_prob_t *c, int peer)
{
    if (c->ring == 2)
        return peer > c->me ? hma_prob_next(c->pb, c->me, c->root)
                            : hma_prob_prev(c->pb, c->me, c->root);
    if (c->ring)
        return hma_prob_next(c->pb, c->me, -1);
    if (c->pb->full && c->fold)
        peer = hma_prob_fold_old(c->pb, peer, c->fold - 1);
    return c->pb->full ? hma_prob_port_rel(c->n, c->pb, peer)
                       : __builtin_ctz((unsigned)(peer ^ c->me));
}

static int prob_send(void *ctx, int peer, int step, const void *buf, size_t count)
{
    hma_coll_prob_t *c = ctx;
    return hma_prob_send(c->n, c->pb, port_of(c, peer), step, buf, count);
}

static int prob_recv(void *ctx, int peer, int step, void *buf, size_t count)
{
    (void)peer, (void)step;
    hma_coll_prob_t *c = ctx;
    size_t k;
    return hma_prob_recv(c->n, buf, count, &k, NULL);
}

static int prob_combine(void *ctx, void *acc, const void *in, size_t count)
{
    hma_coll_prob_t *c = ctx;
    hma_prob_combine(c->pb, acc, in, count);
    return HM_OK;
}

static void prob_show(void *ctx, const void *buf, size_t count)
{
    hma_coll_prob_t *c = ctx;
    hm_show(c->n, buf, count);
}

static void prob_show_parts(void *ctx, const void *buf, size_t total, int lo, int parts)
{
    (void)total;
    hma_coll_prob_t *c = ctx;
    if (c->off)
        hma_prob_show_parts(c->n, c->pb, buf, c->off, lo, parts);
}

static int prob_next(void *ctx)
{
    hma_coll_prob_t *c = ctx;
    return hm_next_slot(c->n);
}

static int prob_wait(void *ctx, int step)
{
    hma_coll_prob_t *c = ctx;
    return hma_prob_wait(c->n, c->pb->step_at[step]);
}

int hma_coll_prob_pairwise(void *ctx, int to, int from, int step, const void *v, void *out,
                           size_t count)
{
    (void)from, (void)step;
    const hma_coll_prob_t *c = ctx;
    if (c->pb->full || c->pb->direct)
        return hma_prob_exchange(c->n, c->pb, to, step, v, count, out, count);
    return hma_prob_xor_route(c->n, c->pb, to ^ c->me, v, out, count);
}

int hma_coll_prob_bruck(void *ctx, int to, int from, int step, const void *v, void *out,
                        size_t count)
{
    (void)from;
    const hma_coll_prob_t *c = ctx;
    int dist = (to - c->me + c->pb->p) % c->pb->p;
    return hma_prob_bruck_step(c->n, c->pb, c->me, dist, step, v, out, count);
}

const hma_coll_io_t *hma_coll_prob(hma_coll_prob_t *c, hm_node_t *n, const hma_prob_t *pb, int me,
                                   int ring)
{
    *c = (hma_coll_prob_t){.n = n, .pb = pb, .me = me, .ring = ring};
    c->io = (hma_coll_io_t){.ctx = c,
                            .elem = sizeof(int64_t),
                            .send = prob_send,
                            .recv = prob_recv,
                            .combine = prob_combine,
                            .show = prob_show,
                            .show_parts = prob_show_parts,
                            .next = prob_next,
                            .wait = prob_wait};
    return &c->io;
}
