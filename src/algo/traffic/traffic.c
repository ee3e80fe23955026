/* SPDX-License-Identifier: MIT */
/*
 * traffic — synthetic interconnect traffic (doc/contention.md, "Synthetic traffic"): the
 * classic patterns of network simulators, injected at a set rate and routed hop by hop, so
 * that load can be swept like a latency-versus-offered-load curve, in every clock mode.
 *
 * Each node generates `packets` packets, packet k in slot phase + ceil(100 k / rate_percent)
 * (a node's own logical slot in free mode), to a destination the pattern gives (below);
 * `phase` "random" draws each node's phase in 0 .. ceil(100 / rate_percent) - 1, so that
 * the nodes do not inject in step. Under the free clock `inject_per_s` > 0 sets the load
 * in wall time instead: node x's packet k is due at a clock time (hm_clock_ns), one every
 * 1/inject_per_s seconds (`arrivals` "fixed") or with exponential gaps of that mean
 * ("poisson"), after a random phase; the node waits for it with hm_wait_packet_ns. A
 * generated packet waits in its source's queue (unbounded, as in a network simulator: the
 * latency counts the time there) until the first link of its route takes it.
 *
 * Steady state (doc/contention.md, "Offered load"): the packets of index k in
 * warmup_packets .. warmup_packets + measure_packets - 1 of every node are the measured
 * ones; the others load the network before and while they drain. Over the window from the
 * first measured packet's due time to the last one's plus one interval, the summary gives
 * the offered load (measured packets due per node per slot, or per second) and the
 * accepted load (packets delivered in the window per node and time), the latency of the
 * measured packets, due time to delivery (p50, p99, mean, max), and in slots the capacity,
 * the channel-load bound of this run's routes: a link carries a packet's data one way and
 * its credit the other, link_capacity per slot in all (below).
 *
 * Routing: dimension order, hop by hop. Q_d: the lowest differing bit first. Mesh, linear:
 * the column first, then the row. Torus, ring: the same, the shorter way round (ties: the
 * positive way), with a dateline: a packet travels on virtual channel 0 and takes virtual
 * channel 1 on the wrap-around link of a dimension and after it, until it turns into the
 * next dimension (Dally and Seitz 1987). The virtual channel rides in the packet's tag.
 *
 * Flow control, so that no send ever waits on a full link and the routing alone decides
 * whether the network can deadlock: a node has one buffer per input link and virtual
 * channel; a neighbour sends it a packet only with a credit for that buffer (one to begin
 * with), and the node gives the credit back (a packet of msg 2) once the packet has left
 * the buffer. So a link never holds more than 2 V unread packets (V data, V credits; V = 2
 * on a torus or ring, else 1): with mailbox.capacity at least that (the default 4) the
 * channel dependencies are those of the routing, acyclic with the dateline, and the
 * network is deadlock-free at any load. In slotted and local modes a node sends at most
 * link_capacity packets on a link per slot, the credits it owes from earlier slots first,
 * so any link_capacity works (below 2 V more slowly); under the free clock, where a send
 * waits for room on its link, setup asks for link_capacity 2 V at least.
 *
 * Verified: every packet reaches its destination exactly once; node x stores, for every
 * packet it received, its number src * packets + k, which comes from node src.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/rng.h"
#include "hypemu.h"

#define TRAFFIC_PATTERN_MAP(XX)                                                                    \
    XX(UNIFORM, "uniform")                                                                         \
    XX(TRANSPOSE, "transpose")                                                                     \
    XX(BIT_REVERSAL, "bit-reversal")                                                               \
    XX(BIT_COMPLEMENT, "bit-complement")                                                           \
    XX(HOTSPOT, "hotspot")                                                                         \
    XX(NEIGHBOUR, "neighbour")

enum { TRAFFIC_PATTERN_MAP(HM_ENUM_ID) };
static const char *const tr_patterns[] = {TRAFFIC_PATTERN_MAP(HM_ENUM_NAME) NULL};

enum { TR_DATA = 1, TR_CREDIT = 2 };

static const char *const tr_arrivals[] = {"fixed", "poisson", NULL};
static const char *const tr_phases[] = {"none", "random", NULL};

typedef struct tr_state_s {
    hm_topology_kind_t topo;
    int p, d, rows, cols, packets, rate, pattern, hotspot, hot_pct, vcs, cap;
    int64_t inject; /* inject_per_s; 0: rate_percent's slots */
    int arrivals, phase, warm, measure;
    int32_t *dest;     /* p * packets: packet k of node x goes to dest[x * packets + k] */
    int32_t *expect;   /* p: packets delivered to x */
    int32_t *transit;  /* p: packets x forwards */
    int64_t *due;      /* p * packets: when packet k of node x is due (slot, or ns) */
    int64_t *linkload; /* p * links per node * vcs: packets each directed link carries on
                          each virtual channel (tr_links_per_node's numbering) */
} tr_state_t;

/* What a node leaves for verify (its output area, which reaches verify from every rank
 * under hypemu-mpi): latency of the packets it received, the credits it sent, and for
 * each packet received its number and when it arrived (rec[2 i], rec[2 i + 1]; setup
 * sizes the area for the most packets a node receives). */
typedef struct tr_out_s {
    int64_t delivered, lat_sum, lat_max, credits;
    int64_t rec[];
} tr_out_t;

static const hm_param_spec_t tr_specs[] = {
    {.name = "pattern",
     .type = HM_PARAM_ENUM,
     .choices = tr_patterns,
     .def = 0,
     .help = "destinations: uniform random, transpose, bit-reversal (p a power of two), "
             "bit-complement (p-1-x), hotspot, neighbour"},
    {.name = "packets",
     .type = HM_PARAM_INT,
     .min = 1,
     .max = 4096,
     .def = 16,
     .help = "packets each node generates"},
    {.name = "rate_percent",
     .type = HM_PARAM_INT,
     .min = 1,
     .max = 100,
     .def = 10,
     .help = "offered load: packets per node per 100 slots"},
    {.name = "phase",
     .type = HM_PARAM_ENUM,
     .choices = tr_phases,
     .def = 0,
     .help = "each node's first packet: none (all in step), random (within one interval)"},
    {.name = "inject_per_s",
     .type = HM_PARAM_INT,
     .min = 0,
     .max = 100000000,
     .def = 0,
     .help = "free clock: offered load in wall time, packets per second per node (0: "
             "rate_percent)"},
    {.name = "arrivals",
     .type = HM_PARAM_ENUM,
     .choices = tr_arrivals,
     .def = 0,
     .help = "with inject_per_s: fixed intervals or poisson (exponential gaps)"},
    {.name = "warmup_packets",
     .type = HM_PARAM_INT,
     .min = 0,
     .max = 4095,
     .def = 0,
     .help = "each node's first packets, not measured"},
    {.name = "measure_packets",
     .type = HM_PARAM_INT,
     .min = 0,
     .max = 4096,
     .def = 0,
     .help = "each node's packets measured after the warm-up (0: all the rest)"},
    {.name = "hotspot",
     .type = HM_PARAM_INT,
     .max_of = HM_QTY_NODES_MINUS_1,
     .only_if = "pattern=hotspot",
     .help = "the hotspot node"},
    {.name = "hotspot_percent",
     .type = HM_PARAM_INT,
     .min = 0,
     .max = 100,
     .def = 25,
     .only_if = "pattern=hotspot",
     .help = "share of packets sent to the hotspot, the rest uniform"},
    HM_PARAM_END,
};

static int is_grid(const tr_state_t *st)
{
    return st->topo != HM_TOPO_HYPERCUBE;
}

static int wraps(const tr_state_t *st)
{
    return st->topo == HM_TOPO_TORUS || st->topo == HM_TOPO_RING;
}

static int log2_exact(int p)
{
    int b = 0;
    while ((1 << b) < p)
        b++;
    return (1 << b) == p ? b : -1;
}

/* One step along a row or column of k nodes from a towards b (a != b); *wrap: the step
 * takes the wrap-around link; *back: it goes the negative way. */
static int step(const tr_state_t *st, int a, int b, int k, int *wrap, int *back)
{
    int fwd = ((b - a) % k + k) % k;
    *wrap = 0;
    *back = !wraps(st) ? b < a : fwd > k - fwd;
    if (!wraps(st))
        return b > a ? a + 1 : a - 1;
    if (!*back) {
        *wrap = a == k - 1;
        return (a + 1) % k;
    }
    *wrap = a == 0;
    return (a + k - 1) % k;
}

/* The next node on x's route to dst (x != dst), the dimension of that hop, whether it
 * crosses the dateline (a wrap-around link), and the directed link it takes: a number
 * below tr_links_per_node (the dimension on Q_d; 2 dim + back on a grid). */
static int next_hop_on(const tr_state_t *st, int x, int dst, int *dim, int *wrap, int *link)
{
    int back = 0;
    if (!is_grid(st)) {
        int b = __builtin_ctz((unsigned)(x ^ dst));
        *dim = *link = b;
        *wrap = 0;
        return x ^ (1 << b);
    }
    int c = st->cols, i = x / c, j = x % c, di = dst / c, dj = dst % c, y;
    if (j != dj) {
        *dim = 0;
        y = i * c + step(st, j, dj, c, wrap, &back);
    } else {
        *dim = 1;
        y = step(st, i, di, st->rows, wrap, &back) * c + j;
    }
    *link = 2 * *dim + back;
    return y;
}

static int next_hop(const tr_state_t *st, int x, int dst, int *dim, int *wrap)
{
    int link;
    return next_hop_on(st, x, dst, dim, wrap, &link);
}

static int tr_links_per_node(const tr_state_t *st)
{
    return is_grid(st) ? 4 : (st->d ? st->d : 1);
}

/* The dimension of the hop from node a to its neighbour b. */
static int hop_dim(const tr_state_t *st, int a, int b)
{
    if (!is_grid(st))
        return __builtin_ctz((unsigned)(a ^ b));
    return a / st->cols == b / st->cols ? 0 : 1;
}

static int neighbour_dest(const tr_state_t *st, int x, int k)
{
    if (!is_grid(st))
        return st->d ? x ^ (1 << (k % st->d)) : x;
    int c = st->cols, r = st->rows, i = x / c, j = x % c;
    if (k % 2 && r > 1)
        i = i + 1 < r ? i + 1 : (wraps(st) ? 0 : i - 1);
    else if (c > 1)
        j = j + 1 < c ? j + 1 : (wraps(st) ? 0 : j - 1);
    return i * c + j;
}

static int uniform_dest(const tr_state_t *st, int x, hma_rng_t *g)
{
    if (st->p < 2)
        return x;
    int r = (int)hma_rng_below(g, (uint64_t)st->p - 1);
    return r >= x ? r + 1 : r;
}

static int pattern_dest(const tr_state_t *st, int x, int k, hma_rng_t *g)
{
    int b = log2_exact(st->p), y = 0;
    switch (st->pattern) {
    case TRANSPOSE:
        if (!is_grid(st)) {
            int h = st->d / 2, mask = st->p - 1;
            return st->d ? ((x << h) | (x >> (st->d - h))) & mask : x;
        }
        return (x % st->cols) * st->rows + x / st->cols;
    case BIT_REVERSAL:
        for (int i = 0; i < b; i++)
            y |= (x >> i & 1) << (b - 1 - i);
        return y;
    case BIT_COMPLEMENT:
        return st->p - 1 - x;
    case HOTSPOT:
        if ((int)hma_rng_below(g, 100) < st->hot_pct)
            return st->hotspot;
        return uniform_dest(st, x, g);
    case NEIGHBOUR:
        return neighbour_dest(st, x, k);
    default:
        return uniform_dest(st, x, g);
    }
}

/* When node x's packets are due: slots phase + ceil(100 k / rate), or, with inject_per_s,
 * clock times in ns: a random phase within one interval, then fixed or exponential gaps.
 * A stream of its own, so that the destinations do not depend on the timing. */
static void tr_due(tr_state_t *st, int x, uint64_t seed)
{
    hma_rng_t g;
    hma_rng_seed(&g, seed ^ (0xd1b54a32d192ed03u * (uint64_t)(x + 1)));
    int64_t *due = st->due + (size_t)x * (size_t)st->packets;
    if (!st->inject) {
        int64_t gap = (100 + st->rate - 1) / st->rate;
        int64_t phase = st->phase ? (int64_t)hma_rng_below(&g, (uint64_t)gap) : 0;
        for (int k = 0; k < st->packets; k++)
            due[k] = phase + ((int64_t)k * 100 + st->rate - 1) / st->rate;
        return;
    }
    double gap = 1e9 / (double)st->inject,
           t = st->phase ? gap * (double)(hma_rng_next(&g) >> 11) / 9007199254740992.0 : 0.0;
    for (int k = 0; k < st->packets; k++) {
        due[k] = (int64_t)t;
        double u = (double)(hma_rng_next(&g) >> 11) / 9007199254740992.0; /* [0, 1) */
        t += st->arrivals ? -log1p(-u) * gap : gap;
    }
}

/* Every packet's destination and due time, what each node delivers and forwards, and the
 * packets each directed link carries. */
static int tr_plan(tr_state_t *st, uint64_t seed)
{
    size_t total = (size_t)st->p * (size_t)st->packets;
    size_t links = (size_t)st->p * (size_t)tr_links_per_node(st) * (size_t)st->vcs;
    st->dest = malloc(total * sizeof *st->dest);
    st->expect = calloc((size_t)st->p, sizeof *st->expect);
    st->transit = calloc((size_t)st->p, sizeof *st->transit);
    st->due = malloc(total * sizeof *st->due);
    st->linkload = calloc(links, sizeof *st->linkload);
    if (!st->dest || !st->expect || !st->transit || !st->due || !st->linkload)
        return -1;
    for (int x = 0; x < st->p; x++) {
        hma_rng_t g;
        hma_rng_seed(&g, seed ^ (0x9e3779b97f4a7c15u * (uint64_t)(x + 1)));
        for (int k = 0; k < st->packets; k++) {
            int dst = pattern_dest(st, x, k, &g), at = x, dim, wrap, link, vc = 0, last = -1;
            st->dest[(size_t)x * (size_t)st->packets + (size_t)k] = dst;
            st->expect[dst]++;
            while (at != dst) {
                int from = at;
                at = next_hop_on(st, at, dst, &dim, &wrap, &link);
                vc = wrap || (vc == 1 && last == dim); /* as forward() chooses it */
                last = dim;
                st->linkload[((size_t)from * (size_t)tr_links_per_node(st) + (size_t)link) *
                                 (size_t)st->vcs +
                             (size_t)vc]++;
                if (at != dst)
                    st->transit[at]++;
            }
        }
        tr_due(st, x, seed);
    }
    return 0;
}

static void tr_free(void *state)
{
    tr_state_t *st = state;
    if (!st)
        return;
    free(st->dest);
    free(st->expect);
    free(st->transit);
    free(st->due);
    free(st->linkload);
    free(st);
}

/* inject_per_s under the free clock only; the measured packets within `packets`. */
static int tr_check_window(hm_setup_t *s, tr_state_t *st)
{
    if (st->inject && s->machine->clock != HM_CLOCK_FREE) {
        snprintf(s->error, sizeof s->error,
                 "%s: algorithm.inject_per_s: a load in wall time needs clock.mode \"free\"; "
                 "under the %s clock rate_percent sets the load per slot",
                 s->file, s->machine->clock == HM_CLOCK_LOCAL ? "local" : "slotted");
        return -1;
    }
    if (!st->measure)
        st->measure = st->packets - st->warm;
    if (st->warm + st->measure > st->packets || st->measure < 1) {
        snprintf(s->error, sizeof s->error,
                 "%s: algorithm.warmup_packets + measure_packets: %d + %d; allowed: at most "
                 "packets (%d), at least one packet measured",
                 s->file, st->warm, st->measure, st->packets);
        return -1;
    }
    return 0;
}

/* Setup's work on st: 0, or -1 with the message in s->error. */
static int tr_fill(hm_setup_t *s, tr_state_t *st)
{
    const hm_machine_info_t *mi = s->machine;
    st->topo = mi->topology;
    st->p = mi->nodes;
    st->d = mi->dim;
    st->rows = mi->rows;
    st->cols = mi->cols;
    st->pattern = hm_param_get_enum(s, "pattern");
    st->packets = (int)hm_param_get_int(s, "packets");
    st->rate = (int)hm_param_get_int(s, "rate_percent");
    st->hotspot = st->pattern == HOTSPOT ? (int)hm_param_get_int(s, "hotspot") : 0;
    st->hot_pct = (int)hm_param_get_int(s, "hotspot_percent");
    st->vcs = wraps(st) ? 2 : 1;
    st->cap = mi->link_capacity;
    st->phase = hm_param_get_enum(s, "phase");
    st->inject = hm_param_get_int(s, "inject_per_s");
    st->arrivals = hm_param_get_enum(s, "arrivals");
    st->warm = (int)hm_param_get_int(s, "warmup_packets");
    st->measure = (int)hm_param_get_int(s, "measure_packets");
    if (tr_check_window(s, st) != 0)
        return -1;
    if (st->pattern == BIT_REVERSAL && log2_exact(st->p) < 0) {
        snprintf(s->error, sizeof s->error,
                 "%s: algorithm.pattern: \"bit-reversal\" needs a power-of-two number of nodes, "
                 "found %d",
                 s->file, st->p);
        return -1;
    }
    if (st->cap < 2 * st->vcs && mi->clock == HM_CLOCK_FREE) {
        snprintf(s->error, sizeof s->error,
                 "%s: ports.link_capacity: traffic needs at least %d on a %s under the free "
                 "clock (%d virtual channel%s, data and credits: doc/contention.md), found %d",
                 s->file, 2 * st->vcs, hm_topology_name(st->topo), st->vcs, st->vcs > 1 ? "s" : "",
                 st->cap);
        return -1;
    }
    if (tr_plan(st, mi->seed) != 0) {
        snprintf(s->error, sizeof s->error, "%s: out of memory for %d x %d packets", s->file, st->p,
                 st->packets);
        return -1;
    }
    return 0;
}

/* A refused config leaves no state: the engine tears down only what setup returned. */
static int tr_setup(hm_setup_t *s)
{
    tr_state_t *st = calloc(1, sizeof *st);
    if (!st)
        return -1;
    if (tr_fill(s, st) != 0) {
        tr_free(st);
        return -1;
    }
    int32_t most = 0; /* each node's output area: room for its deliveries' records */
    for (int x = 0; x < st->p; x++)
        most = st->expect[x] > most ? st->expect[x] : most;
    s->out_size = sizeof(tr_out_t) + (size_t)most * 2 * sizeof(int64_t);
    s->state = st;
    return 0;
}

/* ---- the node program --------------------------------------------------------- */

/* A node's router: per port and virtual channel an input buffer (one packet) and the
 * credits for the neighbour's buffer; per port the credits it owes and its sends in the
 * current slot. */
typedef struct tr_node_s {
    hm_node_t *n;
    const tr_state_t *st;
    int me, deg, vcs;
    hm_packet_t *buf;  /* deg * vcs; msg 0: empty */
    int *credit, *owe; /* deg * vcs */
    int *sent;         /* deg: sends this slot */
    int64_t slot;
    int next_gen, injected, delivered, forwarded;
    tr_out_t *out;
} tr_node_t;

/* Room on port `port` this slot (the port model's link_capacity per slot). */
static int budget(tr_node_t *t, int port)
{
    if (hm_now(t->n) != t->slot) {
        t->slot = hm_now(t->n);
        memset(t->sent, 0, (size_t)t->deg * sizeof *t->sent);
    }
    return t->sent[port] < t->st->cap;
}

static int tr_send(tr_node_t *t, int port, const hm_packet_t *p)
{
    t->sent[port]++;
    return hm_send(t->n, port, p);
}

/* Give back the credits owed, as far as this slot lets. Returns sends made, or -1. */
static int pay(tr_node_t *t)
{
    int made = 0;
    for (int q = 0; q < t->deg; q++)
        for (int v = 0; v < t->vcs; v++)
            while (t->owe[q * t->vcs + v] > 0 && budget(t, q)) {
                hm_packet_t c = {.msg = TR_CREDIT, .origin = t->me, .tag = v};
                if (tr_send(t, q, &c) != HM_OK)
                    return -1;
                t->owe[q * t->vcs + v]--;
                t->out->credits++;
                made++;
            }
    return made;
}

/* The node's time: its slot, or the clock under inject_per_s. */
static int64_t tr_time(tr_node_t *t)
{
    return t->st->inject ? hm_clock_ns(t->n) : hm_now(t->n);
}

static void deliver(tr_node_t *t, int64_t id)
{
    int64_t now = tr_time(t), lat = now - t->st->due[id];
    if (t->out->delivered < t->st->expect[t->me]) { /* the area's room (setup) */
        t->out->rec[2 * t->out->delivered] = id;
        t->out->rec[2 * t->out->delivered + 1] = now;
    }
    hm_store(t->n, id);
    t->delivered++;
    t->out->delivered++;
    t->out->lat_sum += lat;
    if (lat > t->out->lat_max)
        t->out->lat_max = lat;
}

/* Packet p (at this node, arrived from node `from`, -1 if generated here) towards its
 * destination: 1 if it left (or arrived), 0 if it must wait, -1 if the run stops. */
static int forward(tr_node_t *t, const hm_packet_t *p, int from)
{
    int dst = p->aux, dim, wrap;
    if (dst == t->me) {
        deliver(t, p->value);
        return 1;
    }
    int nx = next_hop(t->st, t->me, dst, &dim, &wrap);
    int port = hm_port_to(t->n, nx);
    int vc = wrap || (from >= 0 && p->tag == 1 && hop_dim(t->st, from, t->me) == dim);
    int *cr = &t->credit[port * t->vcs + vc];
    if (*cr == 0 || !budget(t, port))
        return 0;
    hm_packet_t q = {.msg = TR_DATA, .origin = p->origin, .value = p->value, .tag = vc, .aux = dst};
    if (tr_send(t, port, &q) != HM_OK)
        return -1;
    (*cr)--;
    return 1;
}

/* Read every packet waiting: credits back, data into its buffer. */
static int drain(tr_node_t *t)
{
    hm_packet_t p;
    while (hm_recv(t->n, &p) == HM_OK) {
        int q = hm_port_to(t->n, p.from), v = p.tag;
        if (q < 0 || v < 0 || v >= t->vcs) {
            hm_fail(t->n, "traffic: a packet from a non-neighbour or on no virtual channel");
            return -1;
        }
        if (p.msg == TR_CREDIT) {
            t->credit[q * t->vcs + v]++;
            continue;
        }
        /* The buffer is keyed by the port the packet came on: the credit goes back there. */
        int slot = p.port * t->vcs + v;
        if (t->buf[slot].msg != 0) {
            hm_fail(t->n, "traffic: a packet came without a credit");
            return -1;
        }
        t->buf[slot] = p;
        t->buf[slot].data = NULL;
    }
    return 0;
}

/* Move buffered packets on, then generated ones. Returns packets moved, or -1. */
static int route(tr_node_t *t)
{
    int moved = 0;
    for (int s = 0; s < t->deg * t->vcs; s++) {
        hm_packet_t *b = &t->buf[s];
        if (b->msg == 0)
            continue;
        int from = hm_neighbor(t->n, s / t->vcs), r = forward(t, b, from);
        if (r < 0)
            return -1;
        if (r == 0)
            continue;
        if (b->aux != t->me)
            t->forwarded++;
        t->owe[s]++;
        b->msg = 0;
        moved++;
    }
    const tr_state_t *st = t->st;
    while (t->injected < t->next_gen) {
        int k = t->injected;
        hm_packet_t p = {.origin = t->me,
                         .value = (int64_t)t->me * st->packets + k,
                         .aux = st->dest[(size_t)t->me * (size_t)st->packets + (size_t)k]};
        int r = forward(t, &p, -1);
        if (r <= 0)
            return r < 0 ? -1 : moved;
        t->injected++;
        moved++;
    }
    return moved;
}

static int owes(const tr_node_t *t)
{
    for (int s = 0; s < t->deg * t->vcs; s++)
        if (t->owe[s] > 0)
            return 1;
    return 0;
}

static int finished(const tr_node_t *t)
{
    const tr_state_t *st = t->st;
    return t->injected == st->packets && t->delivered == st->expect[t->me] &&
           t->forwarded == st->transit[t->me] && !owes(t);
}

/* One round: generate, read, route, pay. 1: go on, 0: done, -1: the run stops. */
static int round_once(tr_node_t *t)
{
    const tr_state_t *st = t->st;
    int64_t now = hm_now(t->n), clock = tr_time(t);
    const int64_t *due = st->due + (size_t)t->me * (size_t)st->packets;
    while (t->next_gen < st->packets && due[t->next_gen] <= clock)
        t->next_gen++;
    if (drain(t) != 0)
        return -1;
    /* The credits owed from earlier slots go first: under a link_capacity below 2V data
     * could take a link's every slot, and the credits it waits for would never come. */
    int owed = pay(t), moved = owed < 0 ? -1 : route(t), paid = moved < 0 ? -1 : pay(t);
    if (moved < 0 || paid < 0)
        return -1;
    paid += owed;
    if (finished(t))
        return 0;
    /* Something moved or is owed: the next slot. Else sleep until a packet (a credit) or
     * the next generation slot. */
    int64_t deadline = -1;
    int rc;
    if (moved || paid || owes(t))
        deadline = now + 1;
    else if (t->next_gen < st->packets && st->inject) /* a packet or the next one's time */
        return (rc = hm_wait_packet_ns(t->n, NULL, due[t->next_gen])) == HM_OK || rc == HM_ENOENT
                   ? 1
                   : -1;
    else if (t->next_gen < st->packets)
        deadline = due[t->next_gen];
    rc = hm_wait_packet_until(t->n, NULL, deadline);
    return rc == HM_OK || rc == HM_ENOENT ? 1 : -1;
}

static void tr_node(hm_node_t *n, void *state)
{
    const tr_state_t *st = state;
    tr_node_t t = {.n = n, .st = st, .me = hm_id(n), .deg = hm_degree(n), .vcs = st->vcs};
    size_t slots = (size_t)(t.deg ? t.deg : 1) * (size_t)t.vcs;
    t.buf = calloc(slots, sizeof *t.buf);
    t.credit = malloc(slots * sizeof *t.credit);
    t.owe = calloc(slots, sizeof *t.owe);
    t.sent = calloc((size_t)(t.deg ? t.deg : 1), sizeof *t.sent);
    t.out = hm_out(n);
    t.slot = -1;
    if (!t.buf || !t.credit || !t.owe || !t.sent) {
        hm_fail(n, "traffic: out of memory");
    } else {
        for (size_t s = 0; s < slots; s++)
            t.credit[s] = 1;
        while (round_once(&t) > 0)
            ;
    }
    free(t.buf);
    free(t.credit);
    free(t.owe);
    free(t.sent);
}

/* ---- verify --------------------------------------------------------------------- */

/* Node x's stores: each a packet for x, none twice (seen marks them), all of them. */
static int check_node(hm_report_t *r, const tr_state_t *st, int x, unsigned char *seen)
{
    size_t k;
    const int64_t *v = hm_report_stores(r, x, &k);
    int64_t total = (int64_t)st->p * st->packets;
    if (k != (size_t)st->expect[x])
        return 0;
    for (size_t i = 0; i < k; i++) {
        if (v[i] < 0 || v[i] >= total || seen[v[i]] || st->dest[v[i]] != x)
            return 0;
        seen[v[i]] = 1;
        hm_report_from(r, x, i, 1, (int)(v[i] / st->packets));
    }
    return 1;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The value at quantile q of the n sorted values (nearest rank). */
static int64_t rank_of(const int64_t *v, size_t n, int q)
{
    size_t k = (n * (size_t)q + 99) / 100;
    return v[k ? k - 1 : 0];
}

/* The packets directed link l of node x carries, on every virtual channel (vc < 0) or one. */
static int64_t tr_load(const tr_state_t *st, int x, int l, int vc)
{
    const int64_t *v =
        st->linkload + ((size_t)x * (size_t)tr_links_per_node(st) + (size_t)l) * (size_t)st->vcs;
    int64_t sum = 0;
    for (int c = 0; c < st->vcs; c++)
        sum += vc < 0 || vc == c ? v[c] : 0;
    return sum;
}

/* The node across link l of node x, and in *back the link that comes back. */
static int tr_across(const tr_state_t *st, int x, int l, int *back)
{
    if (!is_grid(st)) {
        *back = l;
        return x ^ (1 << l);
    }
    int c = st->cols, i = x / c, j = x % c, dim = l / 2, k = dim ? st->rows : c, a = dim ? i : j;
    int b = l % 2 ? (wraps(st) ? (a + k - 1) % k : a - 1) : (wraps(st) ? (a + 1) % k : a + 1);
    *back = l ^ 1;
    return dim ? b * c + j : i * c + b;
}

/* The capacity in packets per node per slot, from this run's routes: a link carries the
 * data of the routes through it and the credits of those through the link back, at most
 * link_capacity a slot; and on each virtual channel at most one packet every 2 slots (its
 * buffer at the far end is free again when the credit is back: sent in slot t, read and
 * passed on in t + 1, the credit read in t + 2). */
static double tr_capacity(const tr_state_t *st)
{
    double best = -1;
    for (int x = 0; x < st->p; x++)
        for (int l = 0; l < tr_links_per_node(st); l++) {
            int back, y;
            int64_t here = tr_load(st, x, l, -1);
            if (!here)
                continue;
            y = tr_across(st, x, l, &back);
            double lim = (double)st->cap * st->packets / (double)(here + tr_load(st, y, back, -1));
            for (int c = 0; c < st->vcs; c++)
                if (tr_load(st, x, l, c))
                    lim = fmin(lim, 0.5 * st->packets / (double)tr_load(st, x, l, c));
            best = best < 0 || lim < best ? lim : best;
        }
    return best < 0 ? 0.0 : best;
}

/* Offered and accepted load over the measurement window, and the measured packets'
 * latency (doc/contention.md, "Offered load"). */
static json_t *tr_window(const tr_state_t *st, const int64_t *done)
{
    size_t n = 0, total = (size_t)st->p * (size_t)st->packets;
    int64_t *lat = malloc((size_t)st->p * (size_t)st->measure * sizeof *lat), t0 = INT64_MAX,
            t1 = INT64_MIN, end = INT64_MIN, sum = 0, in = 0;
    if (!lat)
        return NULL;
    for (int x = 0; x < st->p; x++)
        for (int k = st->warm; k < st->warm + st->measure; k++) {
            size_t id = (size_t)x * (size_t)st->packets + (size_t)k;
            lat[n++] = done[id] - st->due[id];
            sum += done[id] - st->due[id];
            t0 = st->due[id] < t0 ? st->due[id] : t0;
            t1 = st->due[id] > t1 ? st->due[id] : t1;
            end = done[id] > end ? done[id] : end;
        }
    t1 += st->inject ? 1000000000 / st->inject : (100 + st->rate - 1) / st->rate;
    end = end >= t1 ? end + 1 : t1; /* accepted: until the last measured packet is in */
    for (size_t id = 0; id < total; id++)
        in += done[id] >= t0 && done[id] < end;
    qsort(lat, n, sizeof *lat, cmp_i64);
    double span = (double)(t1 - t0) / (st->inject ? 1e9 : 1.0), nodes = st->p;
    double took = (double)(end - t0) / (st->inject ? 1e9 : 1.0);
    json_t *l = json_pack("{s:I, s:I, s:f, s:I}", "p50", (json_int_t)rank_of(lat, n, 50), "p99",
                          (json_int_t)rank_of(lat, n, 99), "mean", (double)sum / (double)n, "max",
                          (json_int_t)lat[n - 1]);
    free(lat);
    json_t *w =
        json_pack("{s:i, s:i, s:I, s:I, s:I, s:f, s:f}", "warmup_packets", st->warm,
                  "measure_packets", st->measure, "window_from", (json_int_t)t0, "window_to",
                  (json_int_t)t1, "last_measured_in", (json_int_t)end,
                  st->inject ? "offered_per_s" : "offered_per_slot", (double)n / nodes / span,
                  st->inject ? "accepted_per_s" : "accepted_per_slot", (double)in / nodes / took);
    json_object_set_new(w, st->inject ? "latency_ns" : "latency_slots", l);
    if (!st->inject)
        json_object_set_new(w, "capacity_per_slot", json_real(tr_capacity(st)));
    return w;
}

/* The window's figures, from when each packet arrived (the nodes' records). */
static json_t *tr_window_of(hm_report_t *r, const tr_state_t *st)
{
    size_t total = (size_t)st->p * (size_t)st->packets;
    int64_t *done = calloc(total, sizeof *done);
    if (!done)
        return NULL;
    for (int x = 0; x < st->p; x++) {
        const tr_out_t *o = hm_report_out(r, x);
        for (int64_t i = 0; o && i < o->delivered; i++)
            if (o->rec[2 * i] >= 0 && (size_t)o->rec[2 * i] < total)
                done[o->rec[2 * i]] = o->rec[2 * i + 1];
    }
    json_t *w = tr_window(st, done);
    free(done);
    return w;
}

static void tr_verify(hm_report_t *r)
{
    const tr_state_t *st = r->state;
    size_t total = (size_t)st->p * (size_t)st->packets;
    unsigned char *seen = calloc(total, 1);
    if (!seen) {
        r->error = "out of memory";
        return;
    }
    int bad = -1;
    int64_t lat_sum = 0, lat_max = 0, got = 0, credits = 0;
    for (int x = 0; x < st->p && bad < 0; x++) {
        const tr_out_t *o = hm_report_out(r, x);
        if (!check_node(r, st, x, seen))
            bad = x;
        else if (o) {
            got += o->delivered;
            lat_sum += o->lat_sum;
            lat_max = o->lat_max > lat_max ? o->lat_max : lat_max;
            credits += o->credits;
        }
    }
    free(seen);
    r->verified = bad < 0;
    if (bad < 0)
        snprintf(r->verification, sizeof r->verification,
                 "every one of the %zu packets reached its destination exactly once", total);
    else
        snprintf(r->verification, sizeof r->verification,
                 "node %d did not receive exactly the %d packets addressed to it", bad,
                 st->expect[bad]);
    r->bound_expr = NULL;
    r->bound = -1;
    r->lower_expr = NULL;
    r->lower = -1;
    json_t *tr = json_pack(
        "{s:s, s:i, s:i, s:i, s:I, s:f, s:I}", "pattern", tr_patterns[st->pattern], "rate_percent",
        st->rate, "virtual_channels", st->vcs, "packets_per_node", st->packets, "delivered",
        (json_int_t)got, st->inject ? "latency_ns_mean" : "latency_slots_mean",
        got ? (double)lat_sum / (double)got : 0.0,
        st->inject ? "latency_ns_max" : "latency_slots_max", (json_int_t)lat_max);
    if (bad < 0)
        json_object_set_new(tr, "window", tr_window_of(r, st));
    if (st->inject) {
        json_object_set_new(tr, "inject_per_s", json_integer((json_int_t)st->inject));
        json_object_set_new(tr, "arrivals", json_string(tr_arrivals[st->arrivals]));
    }
    json_object_set_new(tr, "credits", json_integer((json_int_t)credits));
    json_object_set_new(r->extra, "traffic", tr);
}

const hm_algorithm_t hm_algo_traffic = {
    .name = "traffic",
    .description = "synthetic traffic (uniform, transpose, bit-reversal, bit-complement, hotspot, "
                   "neighbour) at an injection rate, dimension-order routed, dateline on tori",
    .paper = "Dally-Towles 2004, chapters 3, 14 and 23 (Dally-Seitz 1987, dateline)",
    .topologies = HM_BIT(HM_TOPO_HYPERCUBE) | HM_BIT(HM_TOPO_MESH) | HM_BIT(HM_TOPO_TORUS) |
                  HM_BIT(HM_TOPO_RING) | HM_BIT(HM_TOPO_LINEAR),
    .ports = HM_BIT(HM_PORTS_ALL_PORT),
    .default_ports = HM_PORTS_ALL_PORT,
    .specs = tr_specs,
    .needs = {.routing = HM_BIT(HM_ROUTING_PACKET)},
    .setup = tr_setup,
    .node_main = tr_node,
    .verify = tr_verify,
    .teardown = tr_free,
    .out_size = sizeof(tr_out_t),
};
