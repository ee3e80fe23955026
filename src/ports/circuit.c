/*
 * circuit.c — circuit routing and Seidel's message-length cost model (SPEC section 5;
 * Seidel 1993, section 2).
 *
 * Under "routing": "circuit" a node may send a message to any node (hm_send_to; a
 * plain hm_send or hm_shout is one message per neighbour). The message follows the
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

int hm__circuit_create(hm__machine_t *m)
{
    if (!m->info.circuit)
        return 0;
    struct hm__circuits_s *cs = calloc(1, sizeof *cs);
    if (!cs)
        return -1;
    m->circ = cs;
    size_t n = (size_t)m->info.nodes, links = n * (size_t)m->maxdeg;
    cs->maxpath = (size_t)m->info.rows + (size_t)m->info.cols + (size_t)m->info.dim + 2;
    cs->send_busy = malloc(n * sizeof *cs->send_busy);
    cs->recv_busy = malloc(n * sizeof *cs->recv_busy);
    cs->send_stamp = calloc(n, sizeof *cs->send_stamp);
    cs->recv_stamp = calloc(n, sizeof *cs->recv_stamp);
    cs->load = calloc(links ? links : 1, sizeof *cs->load);
    cs->path = malloc(cs->maxpath * sizeof *cs->path);
    cs->hot_from = cs->hot_to = -1;
    if (!cs->send_busy || !cs->recv_busy || !cs->send_stamp || !cs->recv_stamp || !cs->load ||
        !cs->path)
        return -1;
    for (size_t i = 0; i < n; i++)
        cs->send_busy[i] = cs->recv_busy[i] = -1;
    return 0;
}

void hm__circuit_destroy(hm__machine_t *m)
{
    struct hm__circuits_s *cs = m->circ;
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
    m->circ = NULL;
}

/* ---- routes --------------------------------------------------------------- */

/* The directed links (node * maxdeg + port) from s to d, in order; returns how many.
 * Linear arrays and meshes: port 0 west (x - 1), 1 east (x + 1), 2 north, 3 south;
 * the message goes along its row to the destination's column, then along that
 * column. Hypercubes: e-cube, lowest dimension first. */
static size_t route(const hm__machine_t *m, int s, int d, int32_t *links)
{
    size_t k = 0;
    int deg = m->maxdeg;
    if (m->info.topology == HM_TOPO_HYPERCUBE) {
        int x = s;
        for (int i = 0; i < m->info.dim; i++)
            if (((x ^ d) >> i) & 1) {
                links[k++] = x * deg + i;
                x ^= 1 << i;
            }
        return k;
    }
    int c = m->info.cols;
    int r0 = s / c, c0 = s % c, r1 = d / c, c1 = d % c;
    int x = s;
    for (int j = c0; j != c1; j += c1 > c0 ? 1 : -1) {
        links[k++] = x * deg + (c1 > c0 ? 1 : 0);
        x += c1 > c0 ? 1 : -1;
    }
    for (int i = r0; i != r1; i += r1 > r0 ? 1 : -1) {
        links[k++] = x * deg + (r1 > r0 ? 3 : 2);
        x += r1 > r0 ? c : -c;
    }
    return k;
}

/* ---- sending (node threads) ----------------------------------------------- */

int hm__circuit_send(hm_node_t *n, int dest, const hm_packet_t *p)
{
    hm__machine_t *m = n->m;
    if (!p || dest < 0 || dest >= m->info.nodes || dest == n->id)
        return HM_EINVAL;
    if (p->len > 0 && !p->data)
        return HM_EINVAL;
    if (atomic_load(&m->aborted))
        return HM_EABORT;
    hm__blob_t *blob = NULL;
    if (p->len > 0) {
        blob = malloc(sizeof *blob + p->len);
        if (!blob) {
            n->failed = 1; /* the clock stops the run: exit 4 */
            return HM_ENOMEM;
        }
        atomic_init(&blob->refs, 1);
        blob->len = p->len;
        memcpy(blob->bytes, p->data, p->len);
    }
    uint32_t em = ++n->emissions;
    hm__copy_t c = {0};
    c.pkt = *p;
    c.pkt.data = blob ? blob->bytes : NULL;
    c.blob = blob;
    c.src = n->id;
    c.dst = dest;
    c.sport = c.dport = -1;
    c.emission = em;
    c.sent_slot = n->now;
    c.flow = ((uint64_t)(uint32_t)n->id << 40) ^ ((uint64_t)em << 8) ^ 0xffu;
    c.dur = 1;
    if (HM__PUSH(n->outbox, c) != 0) {
        hm__blob_release(blob);
        n->failed = 1;
        return HM_ENOMEM;
    }
    return HM_OK;
}

int hm_send_to(hm_node_t *n, int dest, const hm_packet_t *p)
{
    if (n->m->info.circuit)
        return hm__circuit_send(n, dest, p);
    int port = hm_port_to(n, dest);
    if (port < 0)
        return HM_EINVAL;
    return hm_send(n, port, p);
}

/* ---- the clock's side ------------------------------------------------------ */

static void link_ends(const hm__machine_t *m, int32_t link, int *from, int *to)
{
    *from = link / m->maxdeg;
    *to = m->nbr[link];
}

/* Port contention: c cannot start in slot t because its receiver is busy. */
static int port_busy(hm__machine_t *m, circ_t *c, int64_t t)
{
    struct hm__circuits_s *cs = m->circ;
    hm__copy_t *k = &c->c;
    char why[256];
    snprintf(why, sizeof why,
             "port contention: msg %d %d->%d waits, node %d is receiving another message "
             "until slot %lld",
             k->pkt.msg, k->src, k->dst, k->dst,
             (long long)(cs->recv_busy[k->dst] >= t ? cs->recv_busy[k->dst] : t));
    if (m->opt.contention == HM__CONTENTION_STRICT) {
        m->stats.conflicts++;
        cs->port_contention++;
        if (m->opt.record_events)
            hm__log_event(&m->nodes[k->src], HM__EV_CONFLICT, t, -1, k->dst, k->pkt.msg,
                          k->pkt.value, 1, 0, hm__strdup_printf("%s", why));
        hm__stop(m, HM_EXIT_VERIFY, hm__strdup_printf("slot %lld: %s", (long long)t, why));
        return 0;
    }
    if (c->blocked_since < 0) {
        c->blocked_since = t;
        m->stats.conflicts++;
        m->stats.delayed_packets++;
        cs->port_contention++;
        if (m->opt.record_events)
            hm__log_event(&m->nodes[k->src], HM__EV_DELAY, t, -1, k->dst, k->pkt.msg, k->pkt.value,
                          1, 0, hm__strdup_printf("%s", why));
    }
    return 0;
}

/* Start the picked circuits in slot t: loads first (they share their slot), then
 * each one's k and duration. */
static int start_picked(hm__machine_t *m, int64_t t)
{
    struct hm__circuits_s *cs = m->circ;
    const hm_machine_info_t *in = &m->info;
    for (size_t i = 0; i < cs->picked.n; i++) {
        circ_t *c = &cs->pending.v[cs->picked.v[i]];
        size_t len = route(m, c->c.src, c->c.dst, cs->path);
        for (size_t j = 0; j < len; j++)
            cs->load[cs->path[j]]++;
    }
    for (size_t i = 0; i < cs->picked.n; i++) {
        circ_t *c = &cs->pending.v[cs->picked.v[i]];
        hm__copy_t *k = &c->c;
        size_t len = route(m, k->src, k->dst, cs->path);
        int kmax = 0;
        int32_t hot = -1;
        for (size_t j = 0; j < len; j++)
            if (cs->load[cs->path[j]] > kmax) {
                kmax = cs->load[cs->path[j]];
                hot = cs->path[j];
            }
        int64_t factor = (kmax + in->link_capacity - 1) / in->link_capacity;
        double v = (double)factor * in->cost_a * (double)k->pkt.len + in->cost_b;
        int64_t dur = (int64_t)ceil(v - 1e-9);
        if (dur < 1)
            dur = 1;
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
        if (c->blocked_since >= 0)
            m->stats.delay_slots += t - c->blocked_since;
        if (m->opt.record_events)
            hm__log_event(&m->nodes[k->src], HM__EV_SEND, t, -1, k->dst, k->pkt.msg, k->pkt.value,
                          dur, k->flow, NULL);
        if (kmax > in->link_capacity) {
            char why[256];
            snprintf(why, sizeof why,
                     "link contention: link %d->%d carries %d circuits (link_capacity %d): "
                     "msg %d %d->%d lasts %lld*a*m+b = %lld slots",
                     from, to, kmax, in->link_capacity, k->pkt.msg, k->src, k->dst,
                     (long long)factor, (long long)dur);
            m->stats.conflicts++;
            cs->link_contention++;
            if (m->opt.contention == HM__CONTENTION_STRICT) {
                if (m->opt.record_events)
                    hm__log_event(&m->nodes[k->src], HM__EV_CONFLICT, t, -1, k->dst, k->pkt.msg,
                                  k->pkt.value, dur, 0, hm__strdup_printf("%s", why));
                hm__stop(m, HM_EXIT_VERIFY, hm__strdup_printf("slot %lld: %s", (long long)t, why));
            } else if (m->opt.record_events) {
                hm__log_event(&m->nodes[k->src], HM__EV_DELAY, t, -1, k->dst, k->pkt.msg,
                              k->pkt.value, dur, 0, hm__strdup_printf("%s", why));
            }
        }
    }
    /* Move them from pending to flight, keeping the order of the rest. */
    size_t keep = 0, pi = 0;
    for (size_t i = 0; i < cs->pending.n; i++) {
        if (pi < cs->picked.n && cs->picked.v[pi] == i) {
            pi++;
            if (HM__PUSH(cs->flight, cs->pending.v[i]) != 0)
                return -1;
            continue;
        }
        cs->pending.v[keep++] = cs->pending.v[i];
    }
    cs->pending.n = keep;
    cs->picked.n = 0;
    return 0;
}

int hm__circuit_commit(hm__machine_t *m, int64_t t)
{
    struct hm__circuits_s *cs = m->circ;

    /* 1. The slot's new messages, in node order. */
    for (size_t i = 0; i < m->active.n; i++) {
        hm_node_t *n = &m->nodes[m->active.v[i]];
        for (size_t k = 0; k < n->outbox.n; k++) {
            circ_t c = {.c = n->outbox.v[k], .blocked_since = -1};
            if (HM__PUSH(cs->pending, c) != 0)
                return -1;
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
            port_busy(m, c, t);
            if (atomic_load(&m->aborted))
                return 0;
            continue;
        }
        cs->recv_stamp[d] = t + 1;
        if (HM__PUSH(cs->picked, i) != 0)
            return -1;
    }
    if (cs->picked.n > 0 && start_picked(m, t) != 0)
        return -1;
    if (atomic_load(&m->aborted))
        return 0;

    /* 3. What arrives in slot t: received now, read from t + 1. */
    size_t keep = 0;
    for (size_t i = 0; i < cs->flight.n; i++) {
        circ_t *c = &cs->flight.v[i];
        if (c->end != t) {
            cs->flight.v[keep++] = *c;
            continue;
        }
        size_t len = route(m, c->c.src, c->c.dst, cs->path);
        for (size_t j = 0; j < len; j++)
            cs->load[cs->path[j]]--;
        if (hm__deliver(m, &c->c, t) != 0)
            return -1;
    }
    cs->flight.n = keep;
    return 0;
}

int64_t hm__circuit_next(hm__machine_t *m, int64_t t)
{
    struct hm__circuits_s *cs = m->circ;
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

json_t *hm__circuit_summary(const hm__machine_t *m)
{
    const struct hm__circuits_s *cs = m->circ;
    if (!cs)
        return NULL;
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
