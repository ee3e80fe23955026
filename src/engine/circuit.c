/* SPDX-License-Identifier: MIT */
/*
 * circuit.c — circuit routing and Seidel's message-length cost model (README "Port models", circuit
 * routing; Seidel 1993, section 2).
 *
 * This is the circuit transport (hm__transport_t): the barrier clock (engine/clock.c)
 * hands it each slot's outboxes through its commit hook and asks it for the next slot
 * in which a message starts or arrives. Under "routing": "circuit" a node may send a
 * message to any node (hm_send_to; a plain hm_send or hm_shout is one message per
 * neighbour). The message follows the
 * shortest path — along the row first, then the column, in a mesh; lowest dimension
 * first in a hypercube — holds every link of the path while it travels and does not
 * involve the nodes on the way. The model is Seidel's "transmit one and receive one":
 *
 *   transmit port   a node transmits one message at a time; its messages start in
 *                   the order it sent them (a later one waits for the earlier one).
 *   receive port    a node receives one message at a time. A message whose receiver
 *                   is busy receiving another is port contention: under "strict" the
 *                   run stops, under "queue" the message waits until the port is free
 *                   (the serialisation Seidel describes) and is counted as delayed.
 *   links           a message that starts in slot t lasts
 *                       ceil(k / 2^nu) * a * m + b   slots (rounded up, at least 1),
 *                   k being the largest number of circuits holding one of its links
 *                   in slot t (itself, those starting with it, those still in
 *                   flight) and 2^nu = link_capacity. k > 2^nu is link contention:
 *                   "strict" stops the run, "queue" lets the message run slower, as
 *                   the formula says, and counts it. A message's duration is fixed
 *                   when it starts: later circuits do not slow it down.
 *
 * A message that starts in slot t and lasts D slots is received in slot t + D - 1 and
 * read from slot t + D. The clock only opens slots in which a message starts or
 * arrives or a node wakes, so a long message costs two commits, not D barriers.
 *
 * Determinism: candidates are judged in the order of their sending (slot, then node,
 * then call order), and every decision is taken in commit, while every node sleeps.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hm_internal.h"

typedef struct circ_s {
    hm__copy_t c;
    int64_t start, end;    /* slots of its transmission (end = last slot) */
    int64_t blocked_since; /* first slot it waited for a busy receive port, -1 */
    int k;                 /* circuits on its busiest link when it started */
} circ_t;

struct hm__circuits_s {
    hm__links_t links;                /* the machine's, borrowed */
    HM__VEC(circ_t) pending;          /* sent, not started: in order of sending */
    HM__VEC(circ_t) flight;           /* started, not yet received */
    HM__VEC(size_t) picked;           /* scratch: pending entries starting now */
    int64_t *send_busy, *recv_busy;   /* last slot each port is busy, -1 */
    int64_t *send_stamp, *recv_stamp; /* "seen in the round of slot s" = s + 1 */
    int32_t *load;                    /* circuits holding each directed link */
    int32_t *path;                    /* scratch: links of one path */
    size_t maxpath;
    /* Figures for the summary. */
    int64_t started, link_contention, port_contention;
    int max_k;
    int hot_from, hot_to; /* the link where max_k was first seen */
};
typedef hm__circuits_t circuits_t;

circuits_t *hm__circuits_new(hm__machine_t *m)
{
    circuits_t *cs = calloc(1, sizeof *cs);
    if (!cs)
        return NULL;
    size_t n = (size_t)m->info.nodes, links = n * (size_t)m->maxdeg;
    cs->links = (hm__links_t){m->maxdeg, m->deg, m->nbr, m->rport};
    cs->maxpath = hm__route_max(&m->info);
    cs->send_busy = malloc(n * sizeof *cs->send_busy);
    cs->recv_busy = malloc(n * sizeof *cs->recv_busy);
    cs->send_stamp = calloc(n, sizeof *cs->send_stamp);
    cs->recv_stamp = calloc(n, sizeof *cs->recv_stamp);
    cs->load = calloc(links ? links : 1, sizeof *cs->load);
    cs->path = malloc((cs->maxpath ? cs->maxpath : 1) * sizeof *cs->path);
    cs->hot_from = cs->hot_to = -1;
    if (!cs->send_busy || !cs->recv_busy || !cs->send_stamp || !cs->recv_stamp || !cs->load ||
        !cs->path) {
        hm__circuits_free(cs);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        cs->send_busy[i] = cs->recv_busy[i] = -1;
    return cs;
}

void hm__circuits_free(circuits_t *cs)
{
    if (!cs)
        return;
    for (size_t i = 0; i < cs->pending.n; i++)
        hm__blob_release(cs->pending.v[i].c.blob);
    for (size_t i = 0; i < cs->flight.n; i++)
        hm__blob_release(cs->flight.v[i].c.blob);
    free(cs->pending.v);
    free(cs->flight.v);
    free(cs->picked.v);
    free(cs->send_busy);
    free(cs->recv_busy);
    free(cs->send_stamp);
    free(cs->recv_stamp);
    free(cs->load);
    free(cs->path);
    free(cs);
}

static int create(hm__machine_t *m)
{
    m->tp_priv = hm__circuits_new(m);
    return m->tp_priv ? 0 : -1;
}

static void destroy(hm__machine_t *m)
{
    hm__circuits_free(m->tp_priv);
    m->tp_priv = NULL;
}

/* The directed links of the message's path: the topology's route (topo/). */
static size_t route(const hm__machine_t *m, const circuits_t *cs, int s, int d, int32_t *links)
{
    return hm__route(&m->info, &cs->links, s, d, links);
}

/* ---- sending (node threads) ----------------------------------------------- */

int hm__circuit_copy(hm_node_t *n, int dest, const hm_packet_t *p, hm__copy_t *c)
{
    int fail;
    hm__blob_t *blob = hm__blob_new(p, 1, &fail);
    if (fail) {
        n->failed = 1; /* the clock stops the run: exit 4 */
        return HM_ENOMEM;
    }
    uint32_t em = ++n->emissions;
    *c = (hm__copy_t){.pkt = *p,
                      .blob = blob,
                      .src = n->id,
                      .dst = dest,
                      .sport = -1,
                      .dport = -1,
                      .emission = em,
                      .sent_slot = n->now,
                      .flow = hm__flow_id(n->id, em, 0xff),
                      .dur = 1};
    c->pkt.data = blob ? blob->bytes : NULL;
    return HM_OK;
}

int hm__circuit_send_to(hm_node_t *n, int dest, const hm_packet_t *p)
{
    hm__copy_t c;
    if (hm__circuit_copy(n, dest, p, &c) != HM_OK)
        return HM_ENOMEM;
    if (HM__PUSH(n->outbox, c) != 0) {
        hm__blob_release(c.blob);
        n->failed = 1;
        return HM_ENOMEM;
    }
    return HM_OK;
}

/* hm_send and hm_shout: one message per neighbour. */
int hm__circuit_emit(hm_node_t *n, const hm__ports_t *ports, const hm_packet_t *p)
{
    for (int port = 0; port < hm_degree(n); port++)
        if (hm__port_in(ports, port) && hm_neighbor(n, port) >= 0) {
            int rc = hm__circuit_send_to(n, hm_neighbor(n, port), p);
            if (rc != HM_OK)
                return rc;
        }
    return HM_OK;
}

/* ---- the clock's side ------------------------------------------------------ */

static void link_ends(const hm__machine_t *m, int32_t link, int *from, int *to)
{
    *from = link / m->maxdeg;
    *to = m->nbr[link];
}

void hm__circuit_port_why(char *buf, size_t len, const hm__copy_t *k, int64_t until)
{
    snprintf(buf, len,
             "port contention: msg %d %d->%d waits, node %d is receiving another message "
             "until slot %lld",
             k->pkt.msg, k->src, k->dst, k->dst, (long long)until);
}

void hm__circuit_link_why(char *buf, size_t len, int capacity, const hm__copy_t *k, int from,
                          int to, int kmax, int64_t factor)
{
    snprintf(buf, len,
             "link contention: link %d->%d carries %d circuits (link_capacity %d): "
             "msg %d %d->%d lasts %lld*a*m+b = %lld slots",
             from, to, kmax, capacity, k->pkt.msg, k->src, k->dst, (long long)factor,
             (long long)k->dur);
}

/* Port contention: c cannot start in slot t because its receiver is busy. */
static int port_busy(hm__machine_t *m, circuits_t *cs, circ_t *c, int64_t t)
{
    hm__copy_t *k = &c->c;
    char why[256];
    hm__circuit_port_why(why, sizeof why, k,
                         cs->recv_busy[k->dst] >= t ? cs->recv_busy[k->dst] : t);
    /* Across MPI ranks every rank takes every decision (engine/mpi.c): the rank of the
     * receiver counts it, that of the sender logs it. */
    int count = hm__local(m, k->dst), log = m->opt.record_events && hm__local(m, k->src);
    if (m->opt.contention == HM__CONTENTION_STRICT) {
        m->stats.conflicts += count;
        cs->port_contention++;
        if (log)
            hm__log_event(&m->nodes[k->src], HM__EV_CONFLICT, t, -1, k->dst, k->pkt.msg,
                          k->pkt.value, 1, 0, hm__strdup_printf("%s", why));
        hm__stop(m, HM__END_CONFLICT, hm__strdup_printf("slot %lld: %s", (long long)t, why));
        return 0;
    }
    if (c->blocked_since < 0) {
        c->blocked_since = t;
        m->stats.conflicts += count;
        m->stats.delayed_packets += count;
        cs->port_contention++;
        if (log)
            hm__log_event(&m->nodes[k->src], HM__EV_DELAY, t, -1, k->dst, k->pkt.msg, k->pkt.value,
                          1, 0, hm__strdup_printf("%s", why));
    }
    return 0;
}

/* Link contention: c's busiest link carries more than link_capacity circuits. */
static void link_contention(hm__machine_t *m, circuits_t *cs, const hm__copy_t *k, int64_t t,
                            int kmax, int64_t factor, int from, int to)
{
    char why[256];
    hm__circuit_link_why(why, sizeof why, m->info.link_capacity, k, from, to, kmax, factor);
    m->stats.conflicts += hm__local(m, k->dst);
    cs->link_contention++;
    int strict = m->opt.contention == HM__CONTENTION_STRICT;
    if (m->opt.record_events && hm__local(m, k->src))
        hm__log_event(&m->nodes[k->src], strict ? HM__EV_CONFLICT : HM__EV_DELAY, t, -1, k->dst,
                      k->pkt.msg, k->pkt.value, k->dur, 0, hm__strdup_printf("%s", why));
    if (strict)
        hm__stop(m, HM__END_CONFLICT, hm__strdup_printf("slot %lld: %s", (long long)t, why));
}

int64_t hm__circuit_slots(const hm_machine_info_t *in, int k, uint32_t len)
{
    int64_t factor = (k + in->link_capacity - 1) / in->link_capacity;
    double v = (double)factor * in->cost_a * (double)len + in->cost_b;
    int64_t dur = (int64_t)ceil(v - 1e-9);
    return dur < 1 ? 1 : dur;
}

/* Start circuit c in slot t, the loads of every circuit starting with it counted:
 * its k, its duration, its ports busy until its last slot. */
static void start_one(hm__machine_t *m, circuits_t *cs, circ_t *c, int64_t t)
{
    const hm_machine_info_t *in = &m->info;
    hm__copy_t *k = &c->c;
    size_t len = route(m, cs, k->src, k->dst, cs->path);
    int kmax = 0;
    int32_t hot = -1;
    for (size_t j = 0; j < len; j++)
        if (cs->load[cs->path[j]] > kmax) {
            kmax = cs->load[cs->path[j]];
            hot = cs->path[j];
        }
    int64_t factor = (kmax + in->link_capacity - 1) / in->link_capacity;
    int64_t dur = hm__circuit_slots(in, kmax, k->pkt.len);
    c->k = kmax;
    c->start = t;
    c->end = t + dur - 1;
    k->dur = dur;
    cs->send_busy[k->src] = c->end;
    cs->recv_busy[k->dst] = c->end;
    cs->started++;
    int from = -1, to = -1;
    if (hot >= 0)
        link_ends(m, hot, &from, &to);
    if (kmax > cs->max_k) {
        cs->max_k = kmax;
        cs->hot_from = from;
        cs->hot_to = to;
    }
    if (c->blocked_since >= 0 && hm__local(m, k->dst))
        m->stats.delay_slots += t - c->blocked_since;
    if (m->opt.record_events && hm__local(m, k->src))
        hm__log_event(&m->nodes[k->src], HM__EV_SEND, t, -1, k->dst, k->pkt.msg, k->pkt.value, dur,
                      k->flow, NULL);
    if (kmax > in->link_capacity)
        link_contention(m, cs, k, t, kmax, factor, from, to);
}

/* Start the picked circuits in slot t: loads first (they share their slot), then
 * each one's k and duration. */
static int start_picked(hm__machine_t *m, circuits_t *cs, int64_t t)
{
    for (size_t i = 0; i < cs->picked.n; i++) {
        circ_t *c = &cs->pending.v[cs->picked.v[i]];
        size_t len = route(m, cs, c->c.src, c->c.dst, cs->path);
        for (size_t j = 0; j < len; j++)
            cs->load[cs->path[j]]++;
    }
    for (size_t i = 0; i < cs->picked.n; i++)
        start_one(m, cs, &cs->pending.v[cs->picked.v[i]], t);
    /* Move them from pending to flight, keeping the order of the rest. */
    size_t keep = 0, pi = 0;
    int rc = 0;
    for (size_t i = 0; i < cs->pending.n; i++) {
        if (pi < cs->picked.n && cs->picked.v[pi] == i) {
            pi++;
            if (HM__PUSH(cs->flight, cs->pending.v[i]) != 0) {
                hm__blob_release(cs->pending.v[i].c.blob); /* the run stops */
                rc = -1;
            }
            continue;
        }
        cs->pending.v[keep++] = cs->pending.v[i];
    }
    cs->pending.n = keep;
    cs->picked.n = 0;
    return rc;
}

int hm__circuits_commit(hm__machine_t *m, circuits_t *cs, const int32_t *ran, size_t nran,
                        int64_t t)
{
    /* 1. The slot's new messages, in node order. */
    for (size_t i = 0; i < nran; i++) {
        hm_node_t *n = &m->nodes[ran[i]];
        for (size_t k = 0; k < n->outbox.n; k++) {
            circ_t c = {.c = n->outbox.v[k], .blocked_since = -1};
            if (HM__PUSH(cs->pending, c) != 0) {
                /* Out of memory: the messages taken so far are pending's now. */
                memmove(n->outbox.v, n->outbox.v + k, (n->outbox.n - k) * sizeof *n->outbox.v);
                n->outbox.n -= k;
                return -1;
            }
        }
        n->outbox.n = 0;
    }

    /* 2. Pick what starts now: each sender's oldest message, if its transmit port is
     *    free and its receiver's receive port too. */
    for (size_t i = 0; i < cs->pending.n; i++) {
        circ_t *c = &cs->pending.v[i];
        int s = c->c.src, d = c->c.dst;
        if (cs->send_stamp[s] == t + 1)
            continue; /* an older message of s comes first */
        cs->send_stamp[s] = t + 1;
        if (cs->send_busy[s] >= t)
            continue; /* s is still transmitting */
        if (cs->recv_busy[d] >= t || cs->recv_stamp[d] == t + 1) {
            port_busy(m, cs, c, t);
            if (atomic_load(&m->aborted))
                return 0;
            continue;
        }
        cs->recv_stamp[d] = t + 1;
        if (HM__PUSH(cs->picked, i) != 0)
            return -1;
    }
    if (cs->picked.n > 0 && start_picked(m, cs, t) != 0)
        return -1;
    if (atomic_load(&m->aborted))
        return 0;

    /* 3. What arrives in slot t: received now, read from t + 1. */
    size_t keep = 0;
    int rc = 0;
    for (size_t i = 0; i < cs->flight.n; i++) {
        circ_t *c = &cs->flight.v[i];
        if (c->end != t) {
            cs->flight.v[keep++] = *c;
            continue;
        }
        size_t len = route(m, cs, c->c.src, c->c.dst, cs->path);
        for (size_t j = 0; j < len; j++)
            cs->load[cs->path[j]]--;
        if (hm__deliver(m, &c->c, t) != 0)
            rc = -1; /* the run stops; the list stays whole for destroy */
    }
    cs->flight.n = keep;
    return rc;
}

int64_t hm__circuits_next(const hm__machine_t *m, circuits_t *cs, int64_t t)
{
    (void)m;
    int64_t next = INT64_MAX;
    for (size_t i = 0; i < cs->flight.n; i++)
        if (cs->flight.v[i].end < next)
            next = cs->flight.v[i].end;
    /* Each sender's oldest pending message may start once both its ports are free.
     * The stamp -(t + 1) marks "seen" without clashing with any round's t' + 1 > 0. */
    for (size_t i = 0; i < cs->pending.n; i++) {
        const circ_t *c = &cs->pending.v[i];
        int s = c->c.src, d = c->c.dst;
        if (cs->send_stamp[s] == -(t + 1))
            continue;
        cs->send_stamp[s] = -(t + 1);
        int64_t at = t + 1;
        if (cs->send_busy[s] + 1 > at)
            at = cs->send_busy[s] + 1;
        if (cs->recv_busy[d] + 1 > at)
            at = cs->recv_busy[d] + 1;
        if (at < next)
            next = at;
    }
    return next;
}

void hm__circuits_set_figures(circuits_t *cs, const int64_t *f)
{
    cs->started = f[0];
    cs->link_contention = f[1];
    cs->port_contention = f[2];
    cs->max_k = (int)f[3];
    cs->hot_from = (int)f[4];
    cs->hot_to = (int)f[5];
}

json_t *hm__circuits_summary(const hm__machine_t *m, const circuits_t *cs)
{
    json_t *o = json_object();
    json_object_set_new(o, "messages", json_integer(cs->started));
    json_object_set_new(o, "max_link_sharing", json_integer(cs->max_k));
    if (cs->hot_from >= 0) {
        char buf[48];
        snprintf(buf, sizeof buf, "%d->%d", cs->hot_from, cs->hot_to);
        json_object_set_new(o, "busiest_link", json_string(buf));
    }
    json_object_set_new(o, "link_contention", json_integer(cs->link_contention));
    json_object_set_new(o, "port_contention", json_integer(cs->port_contention));
    json_object_set_new(o, "a", json_real(m->info.cost_a));
    json_object_set_new(o, "b", json_real(m->info.cost_b));
    json_object_set_new(o, "rho", json_real(m->info.cost_rho));
    return o;
}

static int commit(hm__machine_t *m, int64_t t)
{
    return hm__circuits_commit(m, m->tp_priv, m->active.v, m->active.n, t);
}

static int64_t next(hm__machine_t *m, int64_t t)
{
    return hm__circuits_next(m, m->tp_priv, t);
}

static json_t *summary(const hm__machine_t *m)
{
    return hm__circuits_summary(m, m->tp_priv);
}

const hm__transport_t hm__transport_circuit = {
    .name = "the circuits",
    .create = create,
    .destroy = destroy,
    .emit = hm__circuit_emit,
    .send_to = hm__circuit_send_to,
    HM__SLOT_NODE_SIDE,
    .commit = commit,
    .next = next,
    .summary = summary,
    .summary_key = "circuits",
    .progress = hm__clock_progress,
};
