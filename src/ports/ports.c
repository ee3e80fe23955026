/* SPDX-License-Identifier: MIT */
/*
 * ports.c — the port models of README "Port models", enforced by the engine.
 *
 * The slot judge (engine/slot_judge.c) offers the slot's candidate copies one by
 * one, oldest first; a copy is admitted when the links and ports it needs still have
 * room in this slot. These are pure rules: hm__port_check reads the candidates and the
 * slot's use of ports and links (hm__use_t), which hm__port_record records, and they
 * call nothing in the engine. Across MPI ranks (engine/mpi_judge.c) a rank checks only
 * the rules about its own nodes (hm__use_t.remote), in the same order.
 *
 *   all-port       every directed link carries link_capacity packets per slot, in
 *                  and out at once (Stamoulis-Tsitsiklis).
 *   one-port-full  a node sends on one link and receives on one link per slot
 *                  (Seidel: "transmit one and receive one").
 *   one-port-half  a node sends one packet or receives one, not both.
 *   shout          a node makes one emission, to any set of neighbours, or receives
 *                  one packet; never both (Desprez-Fraigniaud-Tourancheau: shouting
 *                  emission, whispering reception).
 *   bus            one shared channel (Dechter-Kleinrock): in each slot at most one
 *                  emission, by one node, uses it; on the bus topology a broadcast
 *                  is one hm_shout over every port, so every other node hears it (a
 *                  node may also address fewer nodes: that still takes the channel).
 *                  A second transmitter in the same slot is a collision: strict
 *                  stops the run naming the slot and both nodes, queue holds the
 *                  later emission for a later slot, oldest first, which serialises
 *                  the transmitters. Turn order belongs to the algorithm.
 *
 * In every model a directed link carries at most link_capacity packets per slot.
 */
#include <stdio.h>
#include <stdlib.h>

#include "hm_internal.h"

static int fresh(const int64_t *stamp, int i, int64_t t)
{
    return stamp[i] != t + 1;
}

static int32_t count(const int64_t *stamp, const int32_t *cnt, int i, int64_t t)
{
    return fresh(stamp, i, t) ? 0 : cnt[i];
}

static void describe(const hm__copy_t *cand, int idx, char *buf, size_t len)
{
    const hm__copy_t *c = &cand[idx];
    snprintf(buf, len, "msg %d on link %d->%d (port %d)", c->pkt.msg, c->src, c->dst, c->sport);
}

/* What one rule needs to judge candidate cand[idx] in slot t. */
typedef struct judge_s {
    const hm__use_t *u;
    const hm__copy_t *cand;
    int idx, s, d;
    int64_t t;
    const char *model;
    char self[96]; /* this copy, described only when it is refused (describe) */
    char *why;
    size_t whylen;
} judge_t;

/* Refuse by rule `rule` (hm__port_check): why = fmt with the node, the model's name, then
 * the two copies (this one first if self_first, else the one already admitted,
 * cand[other_idx]). Returns the rule. */
static int refuse(judge_t *j, int rule, const char *fmt, int node, int other_idx, int self_first)
{
    char other[96];
    describe(j->cand, other_idx, other, sizeof other);
    describe(j->cand, j->idx, j->self, sizeof j->self);
    const char *a = self_first ? j->self : other, *b = self_first ? other : j->self;
    snprintf(j->why, j->whylen, fmt, node, j->model, a, b);
    return rule;
}

/* A node whose ports another process judges (hm__use_t.remote) has used none here. */
static int32_t sends_of(const judge_t *j, int x)
{
    return j->u->remote && j->u->remote[x] ? 0 : count(j->u->send_stamp, j->u->send_count, x, j->t);
}

static int32_t recvs_of(const judge_t *j, int x)
{
    return j->u->remote && j->u->remote[x] ? 0 : count(j->u->recv_stamp, j->u->recv_count, x, j->t);
}

/* The rules, numbered in the order they are checked (hm__port_check): 1 the link's
 * capacity, then 2..5 the model's own, alternately about the sender and the receiver. */
enum { R_LINK = 1, R_2, R_3, R_4, R_5 };

/* one-port-full: one send and one receive per node; one-port-half: not both. */
static int admit_one_port(judge_t *j, int half)
{
    const hm__use_t *u = j->u;
    if (half && recvs_of(j, j->s) > 0)
        return refuse(j, R_2,
                      "node %d cannot send and receive in one slot under %s: sends %s, receives %s",
                      j->s, u->recv_copy[j->s], 1);
    if (half && sends_of(j, j->d) > 0)
        return refuse(j, R_3,
                      "node %d cannot send and receive in one slot under %s: receives %s, sends %s",
                      j->d, u->send_copy[j->d], 1);
    if (sends_of(j, j->s) > 0)
        return refuse(j, R_4, "node %d sends twice in one slot under %s: %s and %s", j->s,
                      u->send_copy[j->s], 0);
    if (recvs_of(j, j->d) > 0)
        return refuse(j, R_5, "node %d receives twice in one slot under %s: %s and %s", j->d,
                      u->recv_copy[j->d], 0);
    return 0;
}

/* shout: one emission (any set of neighbours) or one reception per node. */
static int admit_shout(judge_t *j)
{
    const hm__use_t *u = j->u;
    const hm__copy_t *c = &j->cand[j->idx];
    if (sends_of(j, j->s) > 0 && u->send_emission[j->s] != c->emission)
        return refuse(j, R_2, "node %d makes two emissions in one slot under %s: %s and %s", j->s,
                      u->send_copy[j->s], 0);
    if (recvs_of(j, j->d) > 0)
        return refuse(j, R_3, "node %d receives two packets in one slot under %s: %s and %s", j->d,
                      u->recv_copy[j->d], 0);
    if (recvs_of(j, j->s) > 0)
        return refuse(j, R_4,
                      "node %d cannot emit and receive in one slot under %s: emits %s, "
                      "receives %s",
                      j->s, u->recv_copy[j->s], 1);
    if (sends_of(j, j->d) > 0)
        return refuse(j, R_5,
                      "node %d cannot emit and receive in one slot under %s: receives %s, "
                      "emits %s",
                      j->d, u->send_copy[j->d], 1);
    return 0;
}

/* bus: one emission, by one node, holds the channel in a slot. */
static int admit_bus(judge_t *j)
{
    const hm__use_t *u = j->u;
    const hm__copy_t *c = &j->cand[j->idx];
    if (fresh(&u->bus_stamp, 0, j->t) || (u->bus_src == j->s && u->bus_emission == c->emission))
        return 0;
    if (u->bus_src == j->s)
        return refuse(j, R_2, "node %d makes two emissions in one slot on the %s: %s and %s", j->s,
                      u->bus_copy, 0);
    char other[96];
    describe(j->cand, u->bus_copy, other, sizeof other);
    describe(j->cand, j->idx, j->self, sizeof j->self);
    snprintf(j->why, j->whylen,
             "bus collision: nodes %d and %d both transmit in one slot: %s and %s", u->bus_src,
             j->s, other, j->self);
    return R_2;
}

/* The use of node x's ports in slot t, from its first admitted copy (idx) on. */
static void record_node(int64_t *stamp, int32_t *cnt, int32_t *first, int x, int idx, int64_t t)
{
    if (fresh(stamp, x, t)) {
        stamp[x] = t + 1;
        cnt[x] = 0;
        first[x] = idx;
    }
    cnt[x]++;
}

void hm__port_record(hm__use_t *u, const hm_machine_info_t *info, const hm__copy_t *c, int idx,
                     int l, int64_t t)
{
    int s = c->src, d = c->dst;
    if (info->ports == HM_PORTS_BUS && fresh(&u->bus_stamp, 0, t)) {
        u->bus_stamp = t + 1;
        u->bus_src = s;
        u->bus_emission = c->emission;
        u->bus_copy = idx;
    }
    if (fresh(u->link_stamp, l, t)) {
        u->link_stamp[l] = t + 1;
        u->link_count[l] = 0;
    }
    u->link_count[l]++;
    if (!u->remote || !u->remote[s]) {
        if (fresh(u->send_stamp, s, t))
            u->send_emission[s] = c->emission;
        record_node(u->send_stamp, u->send_count, u->send_copy, s, idx, t);
    }
    if (!u->remote || !u->remote[d])
        record_node(u->recv_stamp, u->recv_count, u->recv_copy, d, idx, t);
}

int hm__port_check(const hm__use_t *u, const hm_machine_info_t *info, const hm__copy_t *cand,
                   int idx, int l, int64_t t, char *why, size_t whylen)
{
    const hm__copy_t *c = &cand[idx];
    int full = count(u->link_stamp, u->link_count, l, t) >= info->link_capacity;
    if (info->ports == HM_PORTS_ALL_PORT && !full)
        return 0; /* the common case, judged without building the refusal context */
    judge_t j = {.u = u,
                 .cand = cand,
                 .idx = idx,
                 .s = c->src,
                 .d = c->dst,
                 .t = t,
                 .model = hm_ports_name(info->ports),
                 .why = why,
                 .whylen = whylen};
    if (full) {
        describe(cand, idx, j.self, sizeof j.self);
        snprintf(why, whylen, "link %d->%d already carries %d packet(s) (link_capacity %d): %s",
                 j.s, j.d, info->link_capacity, info->link_capacity, j.self);
        return R_LINK;
    }
    switch (info->ports) {
    case HM_PORTS_ALL_PORT:
        return 0;
    case HM_PORTS_ONE_PORT_HALF:
    case HM_PORTS_ONE_PORT_FULL:
        return admit_one_port(&j, info->ports == HM_PORTS_ONE_PORT_HALF);
    case HM_PORTS_SHOUT:
        return admit_shout(&j);
    case HM_PORTS_BUS:
        return admit_bus(&j);
    default:
        snprintf(why, whylen, "port model %s is not available on this topology", j.model);
        return R_2;
    }
}

int hm__use_init(hm__use_t *u, size_t nodes, size_t links)
{
    *u = (hm__use_t){0};
    links = links ? links : 1;
    u->send_stamp = calloc(nodes, sizeof *u->send_stamp);
    u->recv_stamp = calloc(nodes, sizeof *u->recv_stamp);
    u->link_stamp = calloc(links, sizeof *u->link_stamp);
    u->send_count = calloc(nodes, sizeof *u->send_count);
    u->recv_count = calloc(nodes, sizeof *u->recv_count);
    u->link_count = calloc(links, sizeof *u->link_count);
    u->send_emission = calloc(nodes, sizeof *u->send_emission);
    u->send_copy = calloc(nodes, sizeof *u->send_copy);
    u->recv_copy = calloc(nodes, sizeof *u->recv_copy);
    if (!u->send_stamp || !u->recv_stamp || !u->link_stamp || !u->send_count || !u->recv_count ||
        !u->link_count || !u->send_emission || !u->send_copy || !u->recv_copy)
        return -1;
    return 0;
}

void hm__use_free(hm__use_t *u)
{
    free(u->send_stamp);
    free(u->recv_stamp);
    free(u->link_stamp);
    free(u->send_count);
    free(u->recv_count);
    free(u->link_count);
    free(u->send_emission);
    free(u->send_copy);
    free(u->recv_copy);
}
