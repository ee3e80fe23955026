/* SPDX-License-Identifier: MIT */
/*
 * node.c — the node API of include/hypemu.h, called from inside node threads.
 *
 * Everything here touches only the calling node's own structures (its outbox, inbox,
 * log and stores) and reads the machine's immutable topology. Sends, receives and
 * waits go to the machine's transport (hm__transport_t in hm_internal.h), chosen once
 * when the machine was created: this file knows no mode.
 *
 * Every public function first checks its caller (README "Rules of the node API"): the
 * handle must be the calling thread's own node (hm__self). That costs a thread-local
 * load and a compare; a call that fails it stops the run (engine/rules.c) and returns
 * HM_EABORT (NULL, or nothing; -1, "none", from hm_neighbor, hm_port_to and hm_root, which
 * return no abort code), so that a handle passed to another node or to a thread
 * the program created can neither fool the clock nor touch another node's structures.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hm_internal.h"
#include "topo/grid_shape.h"

#define CALLER(n, fn, ret)                                                                         \
    do {                                                                                           \
        if (__builtin_expect(hm__self != (n), 0)) {                                                \
            hm__rules_call((n), fn);                                                               \
            return ret;                                                                            \
        }                                                                                          \
    } while (0)

int hm_id(const hm_node_t *n)
{
    CALLER(n, "hm_id", HM_EABORT);
    return n->id;
}

int hm_nodes(const hm_node_t *n)
{
    CALLER(n, "hm_nodes", HM_EABORT);
    return n->m->info.nodes;
}

int hm_degree(const hm_node_t *n)
{
    CALLER(n, "hm_degree", HM_EABORT);
    return n->m->deg[n->id];
}

int hm_grid(const hm_node_t *n, int *rows, int *cols, int *row, int *col)
{
    CALLER(n, "hm_grid", HM_EABORT);
    return hm__grid_shape(&n->m->info, n->id, rows, cols, row, col);
}

int hm_neighbor(const hm_node_t *n, int port)
{
    CALLER(n, "hm_neighbor", -1);
    if (port < 0 || port >= n->m->deg[n->id])
        return -1;
    return n->m->nbr[n->id * n->m->maxdeg + port];
}

static int port_to(const hm_node_t *n, int node)
{
    const hm__machine_t *m = n->m;
    for (int p = 0; p < m->deg[n->id]; p++)
        if (m->nbr[n->id * m->maxdeg + p] == node)
            return p;
    return -1;
}

int hm_port_to(const hm_node_t *n, int node)
{
    CALLER(n, "hm_port_to", -1);
    return port_to(n, node);
}

int64_t hm_now(const hm_node_t *n)
{
    CALLER(n, "hm_now", HM_EABORT);
    return n->now;
}

void *hm_state(const hm_node_t *n)
{
    CALLER(n, "hm_state", NULL);
    return n->m->state;
}

const char *hm_param_string(const hm_node_t *n, const char *name)
{
    CALLER(n, "hm_param_string", NULL);
    return json_string_value(json_object_get(n->m->opt.params, name));
}

int hm_root(const hm_node_t *n)
{
    CALLER(n, "hm_root", -1);
    const hm_algorithm_t *a = n->m->algo;
    return a->root ? a->root(n->m->state) : -1;
}

const int64_t *hm_input(const hm_node_t *n, size_t *count)
{
    *count = 0;
    CALLER(n, "hm_input", NULL);
    const hm_algorithm_t *a = n->m->algo;
    return a->input ? a->input(n->m->state, n->id, count) : NULL;
}

/* One emission: a copy per port in `ports`, sharing one payload, into n's outbox. */
int hm__emit_copies(hm_node_t *n, const hm__ports_t *ports, const hm_packet_t *p)
{
    hm__machine_t *m = n->m;
    int deg = m->deg[n->id];
    const int32_t *nbr = &m->nbr[n->id * m->maxdeg], *rport = &m->rport[n->id * m->maxdeg];
    int copies = ports->one ? 1 : __builtin_popcountll(ports->mask), fail;
    if (ports->all)
        for (int port = copies = 0; port < deg; port++)
            copies += nbr[port] >= 0;
    if (hm__grow((void **)&n->outbox.v, &n->outbox.cap, n->outbox.n + (size_t)copies,
                 sizeof *n->outbox.v) != 0) {
        n->failed = 1;
        return HM_ENOMEM;
    }
    hm__blob_t *blob = hm__blob_new(p, copies, &fail);
    if (fail) {
        n->failed = 1;
        return HM_ENOMEM;
    }
    uint32_t em = ++n->emissions;
    /* One port (hm_send): look at that port only. */
    int lo = ports->one ? ports->one - 1 : 0, hi = ports->one ? ports->one : deg;
    for (int port = lo; port < hi; port++) {
        if (!hm__port_in(ports, port) || nbr[port] < 0)
            continue;
        hm__copy_t *c = &n->outbox.v[n->outbox.n++]; /* room was made above */
        *c = (hm__copy_t){.pkt = *p,
                          .blob = blob,
                          .src = n->id,
                          .dst = nbr[port],
                          .sport = port,
                          .dport = rport[port],
                          .emission = em,
                          .sent_slot = n->now,
                          .flow = hm__flow_id(n->id, em, port),
                          .dur = 1};
        c->pkt.data = blob ? blob->bytes : NULL;
        if (m->opt.record_events)
            hm__log_event(n, HM__EV_SEND, n->now, port, c->dst, p->msg, p->value, 1, c->flow, NULL);
    }
    return HM_OK;
}

/* The checks every transport relies on: ports name neighbours, bytes are given. */
static int emit(hm_node_t *n, const hm__ports_t *ports, const hm_packet_t *p)
{
    hm__machine_t *m = n->m;
    int deg = m->deg[n->id];
    if (!p || (!ports->all && !ports->one && ports->mask == 0) ||
        (deg < 64 && (ports->mask >> deg) != 0) || (p->len > 0 && !p->data) ||
        (ports->all && deg == 0))
        return hm__refuse_emit(n, ports, p);
    int lo = ports->one ? ports->one - 1 : 0, hi = ports->one ? ports->one : deg;
    for (int port = lo; port < hi && !ports->all; port++)
        if (hm__port_in(ports, port) && m->nbr[n->id * m->maxdeg + port] < 0)
            return hm__refuse_emit(n, ports, p);
    if (hm__aborted(m))
        return HM_EABORT;
    return m->tp->emit(n, ports, p);
}

static int send_port(hm_node_t *n, int port, const hm_packet_t *p)
{
    if (port < 0 || port >= n->m->deg[n->id])
        return hm__refuse_send(n, port, p);
    return emit(n, &(hm__ports_t){.one = port + 1}, p);
}

int hm_send(hm_node_t *n, int port, const hm_packet_t *p)
{
    CALLER(n, "hm_send", HM_EABORT);
    return send_port(n, port, p);
}

int hm_shout(hm_node_t *n, uint64_t ports, const hm_packet_t *p)
{
    CALLER(n, "hm_shout", HM_EABORT);
    return emit(n, &(hm__ports_t){.mask = ports}, p);
}

int hm_shout_all(hm_node_t *n, const hm_packet_t *p)
{
    CALLER(n, "hm_shout_all", HM_EABORT);
    return emit(n, &(hm__ports_t){.all = 1}, p);
}

int hm_send_to(hm_node_t *n, int dest, const hm_packet_t *p)
{
    CALLER(n, "hm_send_to", HM_EABORT);
    hm__machine_t *m = n->m;
    if (!p || dest < 0 || dest >= m->info.nodes || dest == n->id || (p->len > 0 && !p->data))
        return hm__refuse_send_to(n, dest, p);
    if (hm__aborted(m))
        return HM_EABORT;
    return m->tp->send_to(n, dest, p);
}

/* Circuit routing: hm_send_to. Packet routing: a neighbour is hm_send on its port; another
 * node is routed by the barrier clock's transport (engine/packet.c), refused by the others. */
int hm_send_routed(hm_node_t *n, int dest, const hm_packet_t *p)
{
    CALLER(n, "hm_send_routed", HM_EABORT);
    hm__machine_t *m = n->m;
    if (!p || dest < 0 || dest >= m->info.nodes || dest == n->id || (p->len > 0 && !p->data))
        return hm__refuse_send_routed(n, dest, p);
    if (hm__aborted(m))
        return HM_EABORT;
    if (m->info.circuit || port_to(n, dest) >= 0)
        return m->tp->send_to(n, dest, p);
    if (!m->tp->routes)
        return hm__refuse_send_routed(n, dest, p);
    return hm__send_routed(n, dest, p);
}

int hm__send_routed(hm_node_t *n, int dest, const hm_packet_t *p)
{
    hm__machine_t *m = n->m;
    hm__links_t l = {m->maxdeg, m->deg, m->nbr, m->rport};
    int32_t *path = malloc((hm__route_max(&m->info) + 1) * sizeof *path);
    if (!path) {
        n->failed = 1;
        return HM_ENOMEM;
    }
    size_t len = hm__route(&m->info, &l, n->id, dest, path);
    int32_t first = path[0];
    free(path);
    if (len == 0)
        return hm__refuse_send_routed(n, dest, p);
    int rc = send_port(n, first % m->maxdeg, p);
    if (rc == HM_OK) {
        hm__copy_t *c = &n->outbox.v[n->outbox.n - 1];
        c->far = dest + 1;
        c->first = n->id;
    }
    return rc;
}

int hm__send_to_neighbour(hm_node_t *n, int dest, const hm_packet_t *p)
{
    int port = port_to(n, dest);
    if (port < 0)
        return hm__refuse_send_to(n, dest, p);
    return send_port(n, port, p);
}

int hm_pending(const hm_node_t *n)
{
    CALLER(n, "hm_pending", HM_EABORT);
    return n->m->tp->pending(n);
}

/* What node n heard in packet p, taken in now (hm__heard_t, engine/causal.c): the
 * packet, and its value and payload words when the judge wants them. A failed
 * allocation fails the node, as for its stores. */
static void heard(hm_node_t *n, const hm_packet_t *p)
{
    const hm__options_t *opt = &n->m->opt;
    if (!opt->record_reads || hm__aborted(n->m))
        return;
    if (!n->heard && !(n->heard = calloc(1, sizeof *n->heard))) {
        n->failed = 1;
        return;
    }
    hm__heard_t *h = n->heard;
    size_t before = h->words.n;
    int bad = 0;
    if (opt->record_words) {
        bad = HM__PUSH(h->words, p->value) != 0;
        const unsigned char *d = p->data;
        for (uint32_t k = 0; d && !bad && k + 8 <= p->len; k += 8) {
            int64_t w;
            memcpy(&w, d + k, sizeof w);
            bad = HM__PUSH(h->words, w) != 0;
        }
    }
    hm__read_t r = {p->from, (uint32_t)(h->words.n - before), p->sent_slot, n->now};
    bad = bad || HM__PUSH(h->reads, r) != 0;
    n->failed |= bad;
}

int hm_recv(hm_node_t *n, hm_packet_t *out)
{
    CALLER(n, "hm_recv", HM_EABORT);
    int rc = n->m->tp->recv(n, out);
    if (rc == HM_OK && out)
        heard(n, out);
    return rc;
}

int hm__inbox_push(hm__inbox_t *q, const hm__copy_t *c)
{
    if (q->n == q->cap) {
        size_t cap = q->cap ? 2 * q->cap : 1; /* from one copy: most nodes hold few */
        hm__copy_t *v = malloc(cap * sizeof *v);
        if (!v)
            return -1;
        /* Unroll the ring into the new array, oldest first. */
        for (size_t i = 0; i < q->n; i++)
            v[i] = q->v[(q->head + i) & (q->cap - 1)];
        free(q->v);
        q->v = v;
        q->cap = cap;
        q->head = 0;
    }
    q->v[(q->head + q->n) & (q->cap - 1)] = *c; /* cap is a power of two */
    q->n++;
    q->words += 1 + (int64_t)((c->pkt.len + 7) / 8);
    return 0;
}

hm__copy_t hm__inbox_take(hm__inbox_t *q)
{
    hm__copy_t c = q->v[q->head];
    q->head = (q->head + 1) & (q->cap - 1);
    q->n--;
    return c;
}

void hm__inbox_free(hm__inbox_t *q)
{
    while (q->n > 0)
        hm__blob_release(hm__inbox_take(q).blob);
    free(q->v);
    *q = (hm__inbox_t){0};
}

/* The waits end the node's slot: the watchdog (engine/watchdog.c) sees the node asleep
 * meanwhile, and running again, one beat later, once it is back. */
static int wait_packet(hm_node_t *n, hm_packet_t *out, int64_t deadline)
{
    hm__wd_sleep(n);
    int rc = n->m->tp->wait_packet(n, out, deadline);
    hm__wd_run(n);
    if (rc == HM_OK && out)
        heard(n, out);
    return rc;
}

static int wait_until(hm_node_t *n, int64_t slot)
{
    if (slot <= n->now) /* only hm_wait_until can ask for a slot that is not ahead */
        return hm__refuse_wait_until(n, slot);
    hm__wd_sleep(n);
    int rc = n->m->tp->wait_until(n, slot);
    hm__wd_run(n);
    return rc;
}

int hm_wait_packet_until(hm_node_t *n, hm_packet_t *out, int64_t deadline)
{
    CALLER(n, "hm_wait_packet_until", HM_EABORT);
    return wait_packet(n, out, deadline);
}

int64_t hm_clock_ns(hm_node_t *n)
{
    CALLER(n, "hm_clock_ns", 0);
    return hm__now_ns() - n->m->start_ns;
}

int hm_wait_packet_ns(hm_node_t *n, hm_packet_t *out, int64_t deadline_ns)
{
    CALLER(n, "hm_wait_packet_ns", HM_EABORT);
    if (!n->m->tp->wait_packet_ns)
        return hm__refuse_wait_ns(n, deadline_ns);
    int64_t start = n->m->start_ns; /* the deadline on CLOCK_MONOTONIC, without overflow */
    int64_t at = deadline_ns > INT64_MAX - start ? INT64_MAX : deadline_ns + start;
    hm__wd_sleep(n);
    int rc = n->m->tp->wait_packet_ns(n, out, at);
    hm__wd_run(n);
    if (rc == HM_OK && out)
        heard(n, out);
    return rc;
}

int hm_wait_packet(hm_node_t *n, hm_packet_t *out)
{
    CALLER(n, "hm_wait_packet", HM_EABORT);
    return wait_packet(n, out, -1);
}

int hm_wait_until(hm_node_t *n, int64_t slot)
{
    CALLER(n, "hm_wait_until", HM_EABORT);
    return wait_until(n, slot);
}

int hm_next_slot(hm_node_t *n)
{
    CALLER(n, "hm_next_slot", HM_EABORT);
    return wait_until(n, n->now + 1);
}

int hm_busy(hm_node_t *n, int64_t slots)
{
    CALLER(n, "hm_busy", HM_EABORT);
    if (slots <= 0)
        return HM_OK;
    hm__machine_t *m = n->m;
    if (hm__aborted(m))
        return HM_EABORT;
    if (m->opt.record_events)
        hm__log_event(n, HM__EV_BUSY, n->now, -1, -1, 0, 0, slots, 0, NULL);
    /* The clock reads last_activity only while every node sleeps; each node keeps
     * its own high-water mark and the machine folds them in after the run. */
    if (n->now + slots - 1 > n->busy_last)
        n->busy_last = n->now + slots - 1;
    return wait_until(n, n->now + slots);
}

void *hm_out(hm_node_t *n)
{
    CALLER(n, "hm_out", NULL);
    return n->out;
}

void hm_fail(hm_node_t *n, const char *what)
{
    CALLER(n, "hm_fail", );
    n->failed = 1;
    snprintf(n->fail_what, sizeof n->fail_what, "%s", what ? what : "hm_fail");
}

void hm_abort(hm_node_t *n, const char *what)
{
    CALLER(n, "hm_abort", );
    n->aborted = 1;
    snprintf(n->fail_what, sizeof n->fail_what, "%s", what ? what : "hm_abort");
}

void hm_wait_note(hm_node_t *n, const char *what)
{
    CALLER(n, "hm_wait_note", );
    snprintf(n->wait_note, sizeof n->wait_note, "%s", what ? what : "");
}

/* After the run stopped, hm_store, hm_log and hm_busy leave the node's structures alone:
 * a node left running by the watchdog (engine/watchdog.c) must not grow what the outcome
 * has taken. */
void hm_store(hm_node_t *n, int64_t value)
{
    CALLER(n, "hm_store", );
    if (hm__aborted(n->m))
        return;
    /* A value and its slot, or neither (engine/causal.c reads them side by side). */
    if (HM__PUSH(n->store_slots, n->now) != 0 || HM__PUSH(n->stores, value) != 0) {
        n->store_slots.n = n->stores.n;
        n->failed = 1; /* reported by the machine after the run */
        return;
    }
    if (n->m->opt.record_events)
        hm__log_event(n, HM__EV_STORE, n->now, -1, -1, 0, value, 0, 0, NULL);
}

/* hm_show's record is a list of changes, not copies (out/html.c draws them): the slot, the
 * new length, the first value that differs from the buffer last shown and the number
 * that follow up to the last that differs, then those values. Only the first
 * HM__SHOW_KEEP values are kept and compared (the player shows no more), so that a call
 * costs little whatever the buffer. */
static int show_change(hm_node_t *n, int64_t slot, const int64_t *v, size_t count)
{
    const hm__int64vec_t *old = &n->shown;
    size_t keep = count < HM__SHOW_KEEP ? count : HM__SHOW_KEEP, start = 0, end = keep;
    while (start < keep && start < old->n && old->v[start] == v[start])
        start++;
    while (end > start && end <= old->n && old->v[end - 1] == v[end - 1])
        end--;
    if (start == end && keep == old->n && (int64_t)count == n->shown_len)
        return 0;
    int64_t head[4] = {slot, (int64_t)count, (int64_t)start, (int64_t)(end - start)};
    for (int i = 0; i < 4; i++)
        if (HM__PUSH(n->shows, head[i]) != 0)
            return -1;
    for (size_t i = start; i < end; i++)
        if (HM__PUSH(n->shows, v[i]) != 0)
            return -1;
    n->shown.n = 0;
    for (size_t i = 0; i < keep; i++)
        if (HM__PUSH(n->shown, v[i]) != 0)
            return -1;
    n->shown_len = (int64_t)count;
    return 0;
}

void hm__show_input(hm_node_t *n)
{
    size_t k;
    const int64_t *in = n->m->opt.record_page ? hm_input(n, &k) : NULL;
    if (in && k && show_change(n, 0, in, k) != 0)
        n->failed = 1;
}

void hm_show(hm_node_t *n, const int64_t *values, size_t count)
{
    CALLER(n, "hm_show", );
    if (!n->m->opt.record_page || hm__aborted(n->m) || (count && !values))
        return;
    if (show_change(n, n->now, values, count) != 0)
        n->failed = 1; /* reported by the machine after the run */
}

void hm_log(hm_node_t *n, const char *fmt, ...)
{
    CALLER(n, "hm_log", );
    if (!n->m->opt.record_events || hm__aborted(n->m))
        return;
    va_list ap;
    va_start(ap, fmt);
    char *text = hm__vstrdup_printf(fmt, ap);
    if (!text)
        n->failed = 1;
    va_end(ap);
    hm__log_event(n, HM__EV_LOG, n->now, -1, -1, 0, 0, 0, 0, text);
}
