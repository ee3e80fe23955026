/*
 * ports.c — the port models of SPEC section 4, enforced by the engine.
 *
 * The clock offers the slot's candidate copies one by one, oldest first; a copy is
 * admitted when the links and ports it needs still have room in this slot.
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

#include "hm_internal.h"

static int fresh(const int64_t *stamp, int i, int64_t t)
{
    return stamp[i] != t + 1;
}

static int32_t count(const int64_t *stamp, const int32_t *cnt, int i, int64_t t)
{
    return fresh(stamp, i, t) ? 0 : cnt[i];
}

static void describe(const hm__machine_t *m, int idx, char *buf, size_t len)
{
    const hm__copy_t *c = &m->cand.v[idx];
    snprintf(buf, len, "msg %d on link %d->%d (port %d)", c->pkt.msg, c->src, c->dst, c->sport);
}

int hm__port_admit(hm__machine_t *m, int idx, char *why, size_t whylen)
{
    hm__use_t *u = &m->use;
    const hm__copy_t *c = &m->cand.v[idx];
    int64_t t = m->now;
    int s = c->src, d = c->dst, l = c->src * m->maxdeg + c->sport;
    int32_t sends = count(u->send_stamp, u->send_count, s, t);
    int32_t recvs = count(u->recv_stamp, u->recv_count, d, t);
    int32_t src_recvs = count(u->recv_stamp, u->recv_count, s, t);
    int32_t dst_sends = count(u->send_stamp, u->send_count, d, t);
    char self[96], other[96];
    const char *model = hm_ports_name(m->info.ports);
    describe(m, idx, self, sizeof self);

    if (count(u->link_stamp, u->link_count, l, t) >= m->info.link_capacity) {
        snprintf(why, whylen, "link %d->%d already carries %d packet(s) (link_capacity %d): %s", s,
                 d, m->info.link_capacity, m->info.link_capacity, self);
        return 0;
    }
    switch (m->info.ports) {
    case HM_PORTS_ALL_PORT:
        break;
    case HM_PORTS_ONE_PORT_HALF:
        if (src_recvs > 0) {
            describe(m, u->recv_copy[s], other, sizeof other);
            snprintf(why, whylen,
                     "node %d cannot send and receive in one slot under %s: "
                     "sends %s, receives %s",
                     s, model, self, other);
            return 0;
        }
        if (dst_sends > 0) {
            describe(m, u->send_copy[d], other, sizeof other);
            snprintf(why, whylen,
                     "node %d cannot send and receive in one slot under %s: "
                     "receives %s, sends %s",
                     d, model, self, other);
            return 0;
        }
        /* and, as in one-port-full, one send and one receive: */
        __attribute__((fallthrough));
    case HM_PORTS_ONE_PORT_FULL:
        if (sends > 0) {
            describe(m, u->send_copy[s], other, sizeof other);
            snprintf(why, whylen, "node %d sends twice in one slot under %s: %s and %s", s, model,
                     other, self);
            return 0;
        }
        if (recvs > 0) {
            describe(m, u->recv_copy[d], other, sizeof other);
            snprintf(why, whylen, "node %d receives twice in one slot under %s: %s and %s", d,
                     model, other, self);
            return 0;
        }
        break;
    case HM_PORTS_SHOUT:
        if (sends > 0 && u->send_emission[s] != c->emission) {
            describe(m, u->send_copy[s], other, sizeof other);
            snprintf(why, whylen, "node %d makes two emissions in one slot under shout: %s and %s",
                     s, other, self);
            return 0;
        }
        if (recvs > 0) {
            describe(m, u->recv_copy[d], other, sizeof other);
            snprintf(why, whylen, "node %d receives two packets in one slot under shout: %s and %s",
                     d, other, self);
            return 0;
        }
        if (src_recvs > 0) {
            describe(m, u->recv_copy[s], other, sizeof other);
            snprintf(why, whylen,
                     "node %d cannot emit and receive in one slot under shout: "
                     "emits %s, receives %s",
                     s, self, other);
            return 0;
        }
        if (dst_sends > 0) {
            describe(m, u->send_copy[d], other, sizeof other);
            snprintf(why, whylen,
                     "node %d cannot emit and receive in one slot under shout: "
                     "receives %s, emits %s",
                     d, self, other);
            return 0;
        }
        break;
    case HM_PORTS_BUS:
        if (!fresh(&u->bus_stamp, 0, t) && (u->bus_src != s || u->bus_emission != c->emission)) {
            describe(m, u->bus_copy, other, sizeof other);
            if (u->bus_src == s)
                snprintf(why, whylen,
                         "node %d makes two emissions in one slot on the bus: "
                         "%s and %s",
                         s, other, self);
            else
                snprintf(why, whylen,
                         "bus collision: nodes %d and %d both transmit in one "
                         "slot: %s and %s",
                         u->bus_src, s, other, self);
            return 0;
        }
        break;
    case HM_PORTS_COUNT:
        snprintf(why, whylen, "port model %s is not available on this topology", model);
        return 0;
    }

    /* Admitted: record the use. */
    if (m->info.ports == HM_PORTS_BUS && fresh(&u->bus_stamp, 0, t)) {
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
    if (fresh(u->send_stamp, s, t)) {
        u->send_stamp[s] = t + 1;
        u->send_count[s] = 0;
        u->send_emission[s] = c->emission;
        u->send_copy[s] = idx;
    }
    u->send_count[s]++;
    if (fresh(u->recv_stamp, d, t)) {
        u->recv_stamp[d] = t + 1;
        u->recv_count[d] = 0;
        u->recv_copy[d] = idx;
    }
    u->recv_count[d]++;
    return 1;
}
