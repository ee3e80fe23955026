/* SPDX-License-Identifier: MIT */
/*
 * slot_judge.c — the decisions of one slot under packet routing (README "Slot
 * semantics", "Port models"), written once for the two clocks that take
 * them: the barrier clock's packet transport (engine/packet.c) for the whole machine,
 * and the local clock (engine/local.c, doc/clocks.md "Local clock") for one group of
 * nodes at a time.
 *
 * A slot's candidates are taken oldest first — copies delayed earlier, copies whose
 * full mailbox has room again, then the slot's new copies by node and send order —
 * each with its place in that order (hm__copy_t's cslot, cls, sent_slot, src, idx),
 * so that the candidates of a group of nodes judged apart come in the order the whole
 * machine would judge them. The port model (ports/ports.c, a pure admission rule)
 * judges them one by one: an admitted copy is delivered in the slot; a refused one
 * stops the run under "strict" contention or waits for the next slot under "queue".
 *
 * Mailboxes: every directed link holds at most mailbox.capacity copies (delayed and
 * received-unread). A new copy facing a full mailbox is stalled: the sender's wait
 * does not count until its backlog has left (backpressure), in FIFO order per link.
 *
 * What differs between the clocks is where held and stalled copies wait, how a wait
 * is registered or taken back, and how a strict conflict stops the run: the clock's
 * hm__judge_ops_t.
 */
#include <stdlib.h>
#include <string.h>

#include "hm_internal.h"

int hm__judge_init(hm__judge_t *J, const hm__machine_t *m, const hm__judge_ops_t *ops, void *ctx)
{
    size_t n = (size_t)m->info.nodes, links = n * (size_t)m->maxdeg;
    *J = (hm__judge_t){.ops = ops, .ctx = ctx};
    J->stall_count = calloc(links ? links : 1, sizeof *J->stall_count);
    J->path = malloc((hm__route_max(&m->info) + 1) * sizeof *J->path);
    if (!J->stall_count || !J->path || hm__use_init(&J->use, n, links) != 0)
        return -1;
    return 0;
}

void hm__judge_free(hm__judge_t *J)
{
    free(J->cand.v);
    free(J->stall_count);
    free(J->path);
    hm__use_free(&J->use);
}

void hm__copies_free(hm__copyvec_t *v)
{
    for (size_t i = 0; i < v->n; i++)
        hm__blob_release(v->v[i].blob);
    free(v->v);
    *v = (hm__copyvec_t){0};
}

void hm__judge_begin(hm__judge_t *J, hm__stats_t *stats)
{
    J->cand.n = 0;
    J->stats = stats;
}

static void count_transmission(hm__stats_t *stats, int64_t t)
{
    stats->transmissions++;
    if (t > stats->last_activity)
        stats->last_activity = t;
}

/* A hop of a routed copy: a transmission on a link, not a delivery. */
static void count_hop(hm__stats_t *stats, int64_t t)
{
    count_transmission(stats, t);
    stats->routed_hops++;
}

static int link_of(const hm__machine_t *m, const hm__copy_t *c)
{
    return c->src * m->maxdeg + c->sport;
}

/* A copy takes its place in its link's mailbox. */
static void occupy(hm__machine_t *m, hm__judge_t *J, int l)
{
    if (++m->occ[l] > J->stats->max_mailbox_depth)
        J->stats->max_mailbox_depth = m->occ[l];
}

/* Into the candidates; its payload is released when that fails. */
static int add_cand(hm__judge_t *J, const hm__copy_t *c)
{
    if (HM__PUSH(J->cand, *c) != 0) {
        hm__blob_release(c->blob);
        return -1;
    }
    return 0;
}

int hm__judge_take_held(hm__judge_t *J, hm__copyvec_t *held)
{
    int rc = 0;
    for (size_t i = 0; i < held->n; i++)
        rc |= add_cand(J, &held->v[i]);
    held->n = 0;
    return rc;
}

/* A stalled copy left node n's backlog: once the backlog is empty its wait counts
 * again, from slot t + 1 at the earliest. */
static int unstall(hm__machine_t *m, hm__judge_t *J, hm_node_t *n, int64_t t)
{
    if (--n->stalled > 0 || !hm__local(m, n->id))
        return 0;
    if (n->wait == HM__WAIT_TIMER && n->wake_at <= t)
        n->wake_at = t + 1;
    if (n->wait == HM__WAIT_PACKET && n->wake_at >= 0 && n->wake_at <= t)
        n->wake_at = t + 1;
    return J->ops->wait_again(J->ctx, n, t);
}

int hm__judge_take_unstalled(hm__judge_t *J, hm__machine_t *m, hm__copyvec_t *stalled, int64_t t)
{
    size_t keep = 0;
    int rc = 0;
    for (size_t i = 0; i < stalled->n; i++) {
        hm__copy_t *c = &stalled->v[i];
        int l = link_of(m, c);
        if (rc == 0 && m->occ[l] < m->opt.mailbox_capacity && J->stall_count[l] > 0) {
            J->stall_count[l]--;
            occupy(m, J, l);
            c->cslot = t;
            c->cls = 0;
            rc |= add_cand(J, c);
            rc |= unstall(m, J, &m->nodes[c->src], t);
        } else {
            stalled->v[keep++] = *c; /* after a failure too: the list stays whole */
        }
    }
    stalled->n = keep;
    return rc;
}

/* Backpressure: c's mailbox is full, its sender n waits for room. */
static int stall(hm__machine_t *m, hm__judge_t *J, hm_node_t *n, const hm__copy_t *c, int64_t t)
{
    J->stall_count[link_of(m, c)]++;
    if (hm__local(m, c->dst))
        J->stats->stalls++;
    int local = hm__local(m, n->id);
    if (m->opt.record_events && local)
        hm__log_event(n, HM__EV_STALL, t, c->sport, c->dst, c->pkt.msg, c->pkt.value, 1, 0, NULL);
    if (n->stalled++ == 0 && local && n->wait != HM__WAIT_DONE)
        J->ops->take_back(J->ctx, n, t);
    hm__copyvec_t *into = J->ops->stalled(J->ctx, n->id);
    if (HM__PUSH(*into, *c) != 0) {
        hm__blob_release(c->blob);
        return -1;
    }
    return 0;
}

int hm__judge_take_new(hm__judge_t *J, hm__machine_t *m, hm_node_t *n, int64_t t)
{
    for (size_t k = 0; k < n->outbox.n; k++) {
        hm__copy_t *c = &n->outbox.v[k];
        /* Its place in the order; its send slot is t. A copy from another MPI rank
         * (engine/mpi.c) comes with its place in its sender's outbox, of which this
         * process holds only the copies that concern it. */
        c->sent_slot = t;
        c->cslot = t;
        c->cls = 1;
        if (hm__local(m, n->id))
            c->idx = (uint32_t)k;
        int l = link_of(m, c);
        int rc = m->occ[l] >= m->opt.mailbox_capacity || J->stall_count[l] > 0
                     ? stall(m, J, n, c, t)
                     : (occupy(m, J, l), add_cand(J, c));
        if (rc != 0) {
            /* Out of memory: the copies taken so far, and copy k, belong elsewhere. */
            memmove(n->outbox.v, n->outbox.v + k + 1, (n->outbox.n - k - 1) * sizeof *c);
            n->outbox.n -= k + 1;
            return -1;
        }
    }
    n->outbox.n = 0;
    return 0;
}

/* The port model refused candidate c: stop (strict) or keep it for slot t + 1. */
static int hold(hm__machine_t *m, hm__judge_t *J, hm__copy_t *c, int64_t t, const char *why)
{
    int log = m->opt.record_events && hm__local(m, c->src);
    /* Counted once, where the link's receiver runs (engine/mpi.c: both ends judge it). */
    int count = hm__local(m, c->dst);
    if (m->opt.contention == HM__CONTENTION_STRICT) {
        J->stats->conflicts += count;
        if (log)
            hm__log_event(&m->nodes[c->src], HM__EV_CONFLICT, t, c->sport, c->dst, c->pkt.msg,
                          c->pkt.value, 1, 0, hm__strdup_printf("%s", why));
        J->ops->conflict(J->ctx, c, t, hm__strdup_printf("slot %lld: %s", (long long)t, why));
        hm__blob_release(c->blob);
        m->occ[link_of(m, c)]--;
        return 0;
    }
    /* Queue policy: the copy waits in its mailbox for a later slot. */
    if (!c->delayed) {
        c->delayed = 1;
        J->stats->delayed_packets += count;
        J->stats->conflicts += count;
        if (log)
            hm__log_event(&m->nodes[c->src], HM__EV_DELAY, t, c->sport, c->dst, c->pkt.msg,
                          c->pkt.value, 1, 0, hm__strdup_printf("%s", why));
    }
    J->stats->delay_slots += count;
    hm__copyvec_t *into = J->ops->held(J->ctx, c->src);
    if (HM__PUSH(*into, *c) != 0) {
        hm__blob_release(c->blob);
        return -1;
    }
    return 0;
}

/* The candidate order: the slot a copy first competed in, out of a stall before new,
 * then its send slot, sender and place in the sender's outbox; routed copies that
 * cross one node in the same hop by their flow (unique to each copy), so that no two
 * candidates compare equal. */
int hm__cand_cmp(const void *a, const void *b)
{
    const hm__copy_t *x = a, *y = b;
    int64_t kx[5] = {x->cslot, x->cls, x->sent_slot, x->src, x->idx};
    int64_t ky[5] = {y->cslot, y->cls, y->sent_slot, y->src, y->idx};
    for (int i = 0; i < 5; i++)
        if (kx[i] != ky[i])
            return kx[i] < ky[i] ? -1 : 1;
    return x->flow == y->flow ? 0 : x->flow < y->flow ? -1 : 1;
}

static int in_order(const hm__copyvec_t *v)
{
    for (size_t i = 1; i < v->n; i++)
        if (hm__cand_cmp(&v->v[i - 1], &v->v[i]) > 0)
            return 0;
    return 1;
}

/* A routed copy (hm_send_routed) crossed its link into node x, not its receiver: no
 * delivery, no program code at x; it leaves x's link buffer and competes in slot t + 1 on
 * x's next link of the route, judged under x's port model, as the held copies do. Transit
 * buffers are counted (in the mailboxes' depths) but never full. */
static int forward(hm__machine_t *m, hm__judge_t *J, const hm__copy_t *c, int64_t t)
{
    int x = c->dst;
    m->occ[link_of(m, c)]--;
    if (!hm__local(m, x)) {
        /* x runs in another MPI process, which goes on with it (engine/mpi.c). */
        hm__blob_release(c->blob);
        return 0;
    }
    count_hop(J->stats, t);
    hm__links_t l = {m->maxdeg, m->deg, m->nbr, m->rport};
    hm__route(&m->info, &l, x, c->far - 1, J->path);
    int port = J->path[0] % m->maxdeg;
    /* A new copy: the candidate stays as it was judged (the port model's reports of a later
     * refusal in this slot describe it). */
    hm__copy_t next = *c;
    next.src = x;
    next.sport = port;
    next.dst = m->nbr[x * m->maxdeg + port];
    next.dport = m->rport[x * m->maxdeg + port];
    next.cslot = t + 1;
    next.cls = 0;
    next.delayed = 0;
    occupy(m, J, link_of(m, &next));
    hm__copyvec_t *into = J->ops->held(J->ctx, x);
    if (HM__PUSH(*into, next) != 0) {
        hm__blob_release(next.blob);
        return -1;
    }
    return 0;
}

void hm__judge_sort(hm__judge_t *J)
{
    /* The whole machine's candidates come in order; a group's, node by node. */
    if (!in_order(&J->cand))
        qsort(J->cand.v, J->cand.n, sizeof *J->cand.v, hm__cand_cmp);
}

int hm__judge_apply(hm__judge_t *J, hm__machine_t *m, size_t i, int64_t t, int rule,
                    const char *why)
{
    hm__copy_t *c = &J->cand.v[i];
    int rc;
    if (rule != 0)
        return hold(m, J, c, t, why);
    hm__port_record(&J->use, &m->info, c, (int)i, link_of(m, c), t);
    if (c->far && c->far - 1 != c->dst)
        return forward(m, J, c, t);
    /* A transmitted copy stays in the same mailbox, now received-unread, until the
     * receiver reads it. */
    if ((rc = hm__deliver_copy(m, c, t, J->stats)) > 0)
        rc = J->ops->woke(J->ctx, &m->nodes[c->dst], t);
    return rc < 0 ? -1 : 0;
}

int hm__judge_decide(hm__judge_t *J, hm__machine_t *m, int64_t t)
{
    hm__judge_sort(J);
    for (size_t i = 0; i < J->cand.n; i++) {
        const hm__copy_t *c = &J->cand.v[i];
        char why[256];
        int rule =
            hm__port_check(&J->use, &m->info, J->cand.v, (int)i, link_of(m, c), t, why, sizeof why);
        if (hm__judge_apply(J, m, i, t, rule, why) != 0)
            return -1;
    }
    return 0;
}

int hm__deliver_copy(hm__machine_t *m, hm__copy_t *c, int64_t t, hm__stats_t *stats)
{
    hm_node_t *r = &m->nodes[c->dst];
    if (!hm__local(m, c->dst)) {
        /* Its receiver runs in another process (engine/mpi.c), which delivers and counts it. */
        hm__blob_release(c->blob);
        return 0;
    }
    c->pkt.from = c->far ? c->first : c->src;
    c->pkt.port = c->far ? -1 : c->dport;
    c->pkt.sent_slot = c->sent_slot;
    c->pkt.recv_slot = t;
    if (hm__inbox_push(&r->inbox, c) != 0) {
        hm__blob_release(c->blob); /* the caller no longer owns it either way */
        return -1;
    }
    count_transmission(stats, t);
    if (m->opt.record_events) {
        hm__log_event(r, HM__EV_RECV, t, c->dport, c->src, c->pkt.msg, c->pkt.value, c->dur,
                      c->flow, NULL);
        /* Its mailbox depth, for the traces (out/otf2.c), and its payload's first words
         * for the player (out/html.c). */
        if (r->log.n > 0 && r->log.v[r->log.n - 1].kind == HM__EV_RECV) {
            r->log.v[r->log.n - 1].depth = (int32_t)r->inbox.n;
            if (m->opt.record_page)
                hm__event_payload(&r->log.v[r->log.n - 1], &c->pkt);
        }
    }
    if (r->wait == HM__WAIT_PACKET && r->stalled == 0) {
        r->wait = HM__WAIT_NONE;
        r->woke_by_packet = 1;
        return 1;
    }
    return 0;
}
