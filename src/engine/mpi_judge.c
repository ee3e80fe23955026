/* SPDX-License-Identifier: MIT */
/*
 * mpi_judge.c — a slot's decisions across MPI ranks (doc/mpi.md, "How the ranks share a
 * slot"), the same as one process takes them (engine/slot_judge.c, README "Port models").
 *
 * Each rank holds the candidates on the links that touch its nodes (the copies its nodes
 * send, and those sent to them), and the ports of its own nodes. One process judges the
 * candidates one by one in candidate order, and a candidate's verdict depends on its link
 * and on the ports of its two ends, that is on the earlier candidates that touch the same
 * nodes. So a rank decides a candidate whose ends both run here as soon as every earlier
 * candidate touching them is decided; for one whose other end runs elsewhere it finds the
 * rules of its own end (hm__port_check with the other node's ports left out,
 * hm__use_t.remote) and trades them with the other end's rank; the first rule that refuses,
 * in the order the model checks them, is the verdict, as one process finds it. The earliest
 * undecided candidate of the whole machine can always be judged on both sides, so the trades
 * end; two ranks trade while they share an undecided candidate, and both learn the two sides
 * of a candidate in the same step, so both know when to stop. Under all-port a verdict
 * depends on the link alone (both ranks know it): no trade at all. Under the bus port model
 * every rank holds every candidate and judges them all (D->all).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_dist.h"

enum { TAG_SIDES = 2 };

static int grow(hm__dist_t *D, size_t n)
{
    if (n <= D->cap && D->cap > 0) /* allocated once at least: memset's pointer is never NULL */
        return 0;
    size_t cap = n < 64 ? 64 : n;
    unsigned char *done = realloc(D->done, cap);
    if (done)
        D->done = done;
    hm__side_t *mine = realloc(D->mine, cap * sizeof *mine);
    if (mine)
        D->mine = mine;
    hm__side_t *theirs = realloc(D->theirs, cap * sizeof *theirs);
    if (theirs)
        D->theirs = theirs;
    uint32_t *ord = realloc(D->ord, cap * sizeof *ord);
    if (ord)
        D->ord = ord;
    if (!done || !mine || !theirs || !ord)
        return -1;
    D->cap = cap;
    return 0;
}

static int is_blocked(const hm__dist_t *D, int x)
{
    return D->blocked[x] == D->pass;
}

/* The rank of candidate c's other end (c has one end here and one elsewhere). */
static hm__peer_t *peer_for(hm__dist_t *D, const hm__copy_t *c)
{
    int other = D->remote[c->src] ? c->src : c->dst;
    return &D->peers[D->peer_of[hm__dist_rank_of(D, other)]];
}

/* A side on the wire: the candidate, as its place among the slot's candidates on links
 * between the two ranks (both hold the same ones, in the same order), the rule and, when
 * the rule refuses, the why's length and bytes. */
static void send_side(hm__dist_t *D, hm__peer_t *p, size_t i, const hm__side_t *s)
{
    hm__dist_put_u(&p->out, D->ord[i]);
    hm__dist_put_u(&p->out, (uint64_t)s->rule);
    if (s->rule != 0) {
        size_t n = strlen(s->why);
        hm__dist_put_u(&p->out, n);
        hm__dist_put(&p->out, s->why, n);
    }
}

/* The verdict of a candidate from its two sides: the first rule that refuses it. */
static const hm__side_t *verdict(const hm__side_t *a, const hm__side_t *b)
{
    if (a->rule == 0)
        return b;
    if (b->rule == 0)
        return a;
    return b->rule < a->rule ? b : a;
}

static int link_of(const hm__machine_t *m, const hm__copy_t *c)
{
    return c->src * m->maxdeg + c->sport;
}

/* Candidate i has both ends here (or the judge needs no other rank): judged at once,
 * when no earlier undecided candidate touches its ends. */
static int judge_here(hm__machine_t *m, hm__dist_t *D, size_t i, int64_t t)
{
    hm__judge_t *J = &D->judge;
    const hm__copy_t *c = &J->cand.v[i];
    if (is_blocked(D, c->src) || is_blocked(D, c->dst)) {
        D->blocked[c->src] = D->blocked[c->dst] = D->pass;
        return 0;
    }
    char why[256];
    int rule =
        hm__port_check(&J->use, &m->info, J->cand.v, (int)i, link_of(m, c), t, why, sizeof why);
    D->done[i] = 1;
    return hm__judge_apply(J, m, i, t, rule, why);
}

/* Candidate i has one end here: its side, found once no earlier undecided candidate
 * touches that end and sent in this pass's trade; decided in a later pass, once the
 * other side is here too (the other rank decides it in the same pass). */
static int judge_shared(hm__machine_t *m, hm__dist_t *D, size_t i, int64_t t)
{
    hm__judge_t *J = &D->judge;
    const hm__copy_t *c = &J->cand.v[i];
    int x = D->remote[c->src] ? c->dst : c->src;
    hm__peer_t *p = peer_for(D, c);
    hm__side_t *mine = &D->mine[i];
    if (mine->rule < 0 && !is_blocked(D, x)) {
        mine->rule = hm__port_check(&J->use, &m->info, J->cand.v, (int)i, link_of(m, c), t,
                                    mine->why, sizeof mine->why);
        send_side(D, p, i, mine);
        D->blocked[x] = D->pass;
        p->undecided++;
        return 0; /* the other rank learns it in this pass's trade */
    }
    if (mine->rule >= 0 && D->theirs[i].rule >= 0) {
        const hm__side_t *v = verdict(mine, &D->theirs[i]);
        D->done[i] = 1;
        return hm__judge_apply(J, m, i, t, v->rule, v->why);
    }
    D->blocked[x] = D->pass;
    p->undecided++;
    return 0;
}

/* One pass over the candidates in order: decide what can be decided. */
static int judge_pass(hm__machine_t *m, hm__dist_t *D, int64_t t, int split)
{
    hm__judge_t *J = &D->judge;
    D->pass++;
    for (int k = 0; k < D->npeers; k++) {
        D->peers[k].out.n = 0;
        D->peers[k].undecided = 0;
    }
    int left = 0;
    for (size_t i = 0; i < J->cand.n; i++) {
        if (D->done[i])
            continue;
        const hm__copy_t *c = &J->cand.v[i];
        int shared = split && (D->remote[c->src] || D->remote[c->dst]);
        int rc = shared ? judge_shared(m, D, i, t) : judge_here(m, D, i, t);
        if (rc != 0)
            return -1;
        left += !D->done[i];
    }
    return left;
}

/* The sides the other ranks sent, each to its candidate. */
static void take_sides(hm__dist_t *D)
{
    for (int k = 0; k < D->npeers; k++) {
        hm__peer_t *p = &D->peers[k];
        if (!p->undecided)
            continue;
        const unsigned char *q = p->in.v, *end = p->in.v + p->in.n;
        while (q < end) {
            uint64_t at = hm__dist_get_u(&q), rule = hm__dist_get_u(&q);
            uint64_t whylen = rule ? hm__dist_get_u(&q) : 0;
            if (at >= p->shared.n || whylen > 255 || rule > INT32_MAX)
                hm__dist_abort_all("a side of a verdict for no candidate of the slot");
            hm__side_t *s = &D->theirs[p->shared.v[at]];
            s->rule = (int)rule;
            hm__dist_get(&q, s->why, (size_t)whylen);
            s->why[whylen] = 0;
        }
    }
}

/* Each peer's candidates, in candidate order, and each one's place among them. */
static int share(hm__dist_t *D)
{
    hm__judge_t *J = &D->judge;
    for (int k = 0; k < D->npeers; k++)
        D->peers[k].shared.n = 0;
    for (size_t i = 0; i < J->cand.n; i++) {
        const hm__copy_t *c = &J->cand.v[i];
        if (!D->remote[c->src] && !D->remote[c->dst])
            continue;
        hm__peer_t *p = peer_for(D, c);
        D->ord[i] = (uint32_t)p->shared.n;
        if (HM__PUSH(p->shared, (int32_t)i) != 0)
            return -1;
    }
    return 0;
}

int hm__dist_decide(hm__machine_t *m, hm__dist_t *D, int64_t t)
{
    hm__judge_t *J = &D->judge;
    hm__judge_sort(J);
    if (grow(D, J->cand.n) != 0)
        return -1;
    memset(D->done, 0, J->cand.n);
    for (size_t i = 0; i < J->cand.n; i++)
        D->mine[i].rule = D->theirs[i].rule = -1;
    int split = !D->all && m->info.ports != HM_PORTS_ALL_PORT;
    if (split && share(D) != 0)
        return -1;
    for (;;) {
        int left = judge_pass(m, D, t, split);
        if (left <= 0)
            return left;
        /* Ranks that share an undecided candidate trade their sides (both know it). */
        hm__dist_exchange(D, 0, TAG_SIDES);
        D->rounds++;
        take_sides(D);
    }
}
