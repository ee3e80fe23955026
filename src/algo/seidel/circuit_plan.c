/* SPDX-License-Identifier: MIT */
/*
 * circuit_plan.c — see circuit_plan.h.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "circuit_plan.h"

hma_plan_t *hma_plan_new(int nodes, int logical, const int32_t *map, int64_t bytes, int bits,
                         int source)
{
    hma_plan_t *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->nodes = nodes;
    p->logical = logical;
    p->bits = bits;
    p->pieces = 1 << bits;
    p->bytes = bytes;
    p->source = source;
    p->map = malloc((size_t)(logical > 0 ? logical : 1) * sizeof *p->map);
    p->ops = calloc((size_t)nodes, sizeof *p->ops);
    p->nops = calloc((size_t)nodes, sizeof *p->nops);
    p->capops = calloc((size_t)nodes, sizeof *p->capops);
    if (!p->map || !p->ops || !p->nops || !p->capops) {
        hma_plan_free(p);
        return NULL;
    }
    for (int i = 0; i < logical; i++)
        p->map[i] = map ? map[i] : i;
    return p;
}

void hma_plan_free(hma_plan_t *p)
{
    if (!p)
        return;
    if (p->ops)
        for (int i = 0; i < p->nodes; i++)
            free(p->ops[i]);
    free(p->ops);
    free(p->nops);
    free(p->capops);
    free(p->map);
    free(p->due);
    free(p->start);
    free(p);
}

static void push_op(hma_plan_t *p, int node, hma_plan_op_t op)
{
    if (p->nops[node] == p->capops[node]) {
        size_t cap = p->capops[node] ? 2 * p->capops[node] : 8;
        hma_plan_op_t *v = realloc(p->ops[node], cap * sizeof *v);
        if (!v) {
            p->failed = 1;
            return;
        }
        p->ops[node] = v;
        p->capops[node] = cap;
    }
    p->ops[node][p->nops[node]++] = op;
    if (op.step > p->last_step)
        p->last_step = op.step;
}

/* Piece i is the bytes [i*u, (i+1)*u) of the message, u = ceil(bytes/pieces), cut
 * at the end of the message (circuit_plan.h). */
static int64_t off(const hma_plan_t *p, int piece)
{
    int64_t u = (p->bytes + p->pieces - 1) / p->pieces, o = (int64_t)piece * u;
    return o < p->bytes ? o : p->bytes;
}

/* The pieces of a set are base | s for every s within mask, in increasing order:
 *     uint32_t s = 0; do { piece = base | s; ... s = (s - mask) & mask; } while (s);
 */

void hma_plan_send_set_phys(hma_plan_t *p, int step, int from, int to, uint32_t base, uint32_t mask)
{
    if (from == to)
        return;
    if ((base & mask) != 0 || (base | mask) >= (uint32_t)p->pieces) {
        p->failed = 1; /* a builder bug: caught by the tests */
        return;
    }
    /* With dedup, drop a send whose pieces are all due at the receiver already
     * (virtual nodes simulated by one physical node, Seidel section 5.1). */
    if (p->dedup) {
        if (!p->due) {
            p->due = calloc((size_t)p->nodes * (size_t)p->pieces, 1);
            if (!p->due) {
                p->failed = 1;
                return;
            }
            memset(p->due + (size_t)p->source * (size_t)p->pieces, 1, (size_t)p->pieces);
        }
        uint8_t *due = p->due + (size_t)to * (size_t)p->pieces;
        int fresh = 0;
        uint32_t s = 0;
        do {
            fresh |= !due[base | s];
            due[base | s] = 1;
            s = (s - mask) & mask;
        } while (s);
        if (!fresh)
            return;
    }
    hma_plan_op_t op = {
        .kind = HMA_PLAN_SEND, .step = step, .peer = to, .base = base, .mask = mask};
    push_op(p, from, op);
}

void hma_plan_send_set(hma_plan_t *p, int step, int from, int to, uint32_t base, uint32_t mask)
{
    hma_plan_send_set_phys(p, step, p->map[from], p->map[to], base, mask);
}

void hma_plan_send_phys(hma_plan_t *p, int step, int from, int to, int first, int count, int stride)
{
    if (count <= 0 || (count & (count - 1)) || (stride & (stride - 1))) {
        p->failed = 1;
        return;
    }
    hma_plan_send_set_phys(p, step, from, to, (uint32_t)first,
                           (uint32_t)(count - 1) * (uint32_t)stride);
}

void hma_plan_send(hma_plan_t *p, int step, int from, int to, int first, int count, int stride)
{
    hma_plan_send_phys(p, step, p->map[from], p->map[to], first, count, stride);
}

void hma_plan_busy(hma_plan_t *p, int step, int node, int64_t slots)
{
    if (slots <= 0)
        return;
    hma_plan_op_t op = {.kind = HMA_PLAN_BUSY, .step = step, .peer = -1, .slots = slots};
    push_op(p, node, op);
}

static int cmp_op(const void *a, const void *b)
{
    const hma_plan_op_t *x = a, *y = b;
    return (x->step > y->step) - (x->step < y->step);
}

void hma_plan_finish(hma_plan_t *p)
{
    /* Insertion sort keeps equal steps in building order (qsort is not stable). */
    for (int n = 0; n < p->nodes; n++) {
        hma_plan_op_t *v = p->ops[n];
        for (size_t i = 1; i < p->nops[n]; i++) {
            hma_plan_op_t x = v[i];
            size_t j = i;
            while (j > 0 && cmp_op(&v[j - 1], &x) > 0) {
                v[j] = v[j - 1];
                j--;
            }
            v[j] = x;
        }
    }
}

static uint32_t set_size(uint32_t mask)
{
    uint32_t c = 1;
    for (; mask; mask &= mask - 1)
        c *= 2;
    return c;
}

int64_t hma_plan_slots(double x)
{
    /* !(x < limit) also catches NaN and infinities: no conversion can overflow. */
    if (!(x < (double)HMA_PLAN_MAX_SLOTS))
        return HMA_PLAN_MAX_SLOTS;
    if (x < -(double)HMA_PLAN_MAX_SLOTS)
        return -HMA_PLAN_MAX_SLOTS;
    return (int64_t)ceil(x - 1e-9);
}

/* The directed links a circuit from physical s to d holds, as in the cost model
 * (doc/seidel.md, "The engine"): along the row to d's column, then along the column;
 * link = node * 4 + port (0 west, 1 east, 2 north, 3 south). Adds delta to each
 * link's load, or (delta 0) returns the largest load on the path. */
static int path_load(int32_t *load, int cols, int s, int d, int delta)
{
    int r0 = s / cols, c0 = s % cols, r1 = d / cols, c1 = d % cols, x = s, k = 0;
    for (int j = c0; j != c1; j += c1 > c0 ? 1 : -1) {
        int32_t *l = &load[x * 4 + (c1 > c0 ? 1 : 0)];
        *l += delta;
        k = *l > k ? *l : k;
        x += c1 > c0 ? 1 : -1;
    }
    for (int i = r0; i != r1; i += r1 > r0 ? 1 : -1) {
        int32_t *l = &load[x * 4 + (r1 > r0 ? 3 : 2)];
        *l += delta;
        k = *l > k ? *l : k;
        x += r1 > r0 ? cols : -cols;
    }
    return k;
}

/* The timing of one plan: its sends bucketed by step, and the links they load. */
typedef struct timing_s {
    hma_plan_t *p;
    const hm_machine_info_t *mi;
    size_t *first;    /* first[s]..first[s + 1]: step s's entries of by */
    int32_t (*by)[2]; /* (node, op index) */
    int32_t *load;    /* circuits per directed link */
    size_t *stamp;    /* per node: the last step (+1) it sent in, it received in */
    double unit;      /* bytes a piece counts */
    int cols;
} timing_t;

/* Bucket the ops by step (counting sort, building order kept). Returns 0 or -1. */
static int bucket_steps(timing_t *t, size_t steps)
{
    hma_plan_t *p = t->p;
    for (int n = 0; n < p->nodes; n++)
        for (size_t i = 0; i < p->nops[n]; i++)
            t->first[p->ops[n][i].step + 1]++;
    for (size_t s = 1; s <= steps; s++)
        t->first[s] += t->first[s - 1];
    size_t *fill = calloc(steps, sizeof *fill);
    if (!fill)
        return -1;
    for (int n = 0; n < p->nodes; n++)
        for (size_t i = 0; i < p->nops[n]; i++) {
            int st = p->ops[n][i].step;
            size_t at = t->first[st] + fill[st]++;
            t->by[at][0] = n;
            t->by[at][1] = (int32_t)i;
        }
    free(fill);
    return 0;
}

/* The length of step s: its longest op, every send costed with the circuits that
 * share its busiest link. Returns it, or -3 when a node sends or receives twice. */
static int64_t step_length(timing_t *t, size_t s)
{
    hma_plan_t *p = t->p;
    const hm_machine_info_t *mi = t->mi;
    int64_t dur = 0;
    for (size_t q = t->first[s]; q < t->first[s + 1]; q++) {
        const hma_plan_op_t *op = &p->ops[t->by[q][0]][t->by[q][1]];
        if (op->kind != HMA_PLAN_SEND)
            continue;
        path_load(t->load, t->cols, t->by[q][0], op->peer, 1);
        /* One send and one receive per node and step (Seidel's "transmit one and
         * receive one"), or the step would outlast its nominal length: a builder
         * bug, caught here rather than as a slower run. */
        if (t->stamp[2 * t->by[q][0]] == s + 1 || t->stamp[2 * op->peer + 1] == s + 1)
            return -3;
        t->stamp[2 * t->by[q][0]] = t->stamp[2 * op->peer + 1] = s + 1;
    }
    for (size_t q = t->first[s]; q < t->first[s + 1]; q++) {
        const hma_plan_op_t *op = &p->ops[t->by[q][0]][t->by[q][1]];
        int64_t d = op->slots;
        if (op->kind == HMA_PLAN_SEND) {
            /* ceil(k/2^nu) * a * m + b, k the circuits on its busiest link. */
            int k = path_load(t->load, t->cols, t->by[q][0], op->peer, 0);
            double factor = (double)((k + mi->link_capacity - 1) / mi->link_capacity);
            double pieces = (double)set_size(op->mask);
            d = hma_plan_slots(factor * mi->cost_a * pieces * t->unit + mi->cost_b);
            if (d < 1)
                d = 1;
        }
        if (d > dur)
            dur = d;
    }
    for (size_t q = t->first[s]; q < t->first[s + 1]; q++) {
        const hma_plan_op_t *op = &p->ops[t->by[q][0]][t->by[q][1]];
        if (op->kind == HMA_PLAN_SEND)
            path_load(t->load, t->cols, t->by[q][0], op->peer, -1);
    }
    return dur;
}

int hma_plan_time(hma_plan_t *p, const hm_machine_info_t *mi, int until)
{
    int rc = -1;
    p->timed_until = until;
    size_t steps = (size_t)p->last_step + 2, total = 0;
    int64_t *dur = calloc(steps, sizeof *dur);
    timing_t t = {p,
                  mi,
                  calloc(steps + 1, sizeof *t.first),
                  NULL,
                  calloc((size_t)p->nodes * 4, sizeof *t.load),
                  calloc((size_t)p->nodes * 2, sizeof *t.stamp),
                  0,
                  0};
    p->start = calloc(steps, sizeof *p->start);
    for (int n = 0; n < p->nodes; n++)
        total += p->nops[n];
    /* The sends of each step, bucketed: (node, op index) pairs. */
    t.by = malloc((total ? total : 1) * sizeof *t.by);
    if (!dur || !t.first || !t.load || !t.stamp || !p->start || !t.by || bucket_steps(&t, steps))
        goto done;
    /* The paper's lengths at m' = pieces * u: every piece counts u = ceil(bytes/pieces)
     * bytes, as if the message were padded to a multiple of the pieces (no piece is
     * longer; only the last ones are shorter). */
    t.unit = (double)((p->bytes + p->pieces - 1) / p->pieces);
    t.cols = mi->cols > 0 ? mi->cols : p->nodes;
    for (size_t s = 0; s + 1 < steps && (int)s <= until; s++)
        if ((dur[s] = step_length(&t, s)) < 0) {
            rc = -3;
            goto done;
        }
    rc = 0;
    for (size_t s = 1; s < steps; s++) {
        p->start[s] = p->start[s - 1] + dur[s - 1];
        if (p->start[s] >= HMA_PLAN_MAX_SLOTS) {
            p->start[s] = HMA_PLAN_MAX_SLOTS;
            rc = -2;
        }
    }
    p->timed_end = p->start[steps - 1];
done:
    free(dur);
    free(t.first);
    free(t.load);
    free(t.stamp);
    free(t.by);
    return rc;
}

/* ---- building blocks ------------------------------------------------------------ */

int hma_plan_st(hma_plan_t *p, int step0, const int32_t *line, int e, int root, int first,
                int count)
{
    for (int s = 1; s <= e; s++) {
        int h = 1 << (e - s);
        for (int y = 0; y < (1 << e); y += 2 * h)
            hma_plan_send(p, step0 + s, line[y ^ root], line[(y | h) ^ root], first, count, 1);
    }
    return step0 + e;
}

int hma_plan_scatter(hma_plan_t *p, int step0, const int32_t *line, int e, int root, int first,
                     int unit, int rev)
{
    for (int s = 1; s <= e; s++) {
        int h = 1 << (e - s);
        for (int y = 0; y < (1 << e); y += 2 * h) {
            int to = (y | h) ^ root;
            int lo = to & ~(h - 1); /* the aligned block of positions served through `to` */
            if (rev)                /* bitrev of an aligned block: every (2^e/h)-th piece */
                hma_plan_send(p, step0 + s, line[y ^ root], line[to],
                              (int)hma_bitrev((uint32_t)lo, e), h, (1 << e) / h);
            else
                hma_plan_send(p, step0 + s, line[y ^ root], line[to], first + lo * unit, h * unit,
                              1);
        }
    }
    return step0 + e;
}

int hma_plan_gather(hma_plan_t *p, int step0, const int32_t *line, int e, int first, int unit)
{
    for (int t = 1; t <= e; t++) {
        int h = 1 << (t - 1);
        for (int x = 0; x < (1 << e); x++) {
            int base = x & ~(h - 1);
            hma_plan_send(p, step0 + t, line[x], line[x ^ h], first + base * unit, h * unit, 1);
        }
    }
    return step0 + e;
}

int hma_plan_metanode_scatter(hma_plan_t *p, int step0, const int32_t *line, int32_t *sub, int nu,
                              int root, int first, int unit)
{
    int b = 1 << nu, j0 = root >> nu;
    for (int i = 0; i < b; i++)
        sub[i] = line[j0 * b + i];
    return hma_plan_scatter(p, step0, sub, nu, root & (b - 1), first, unit, 0);
}

int hma_plan_metanodes_gather(hma_plan_t *p, int step0, const int32_t *line, int32_t *sub, int e,
                              int nu, int first, int unit)
{
    int b = 1 << nu, last = step0;
    for (int j = 0; j < (1 << (e - nu)); j++) {
        for (int i = 0; i < b; i++)
            sub[i] = line[j * b + i];
        last = hma_plan_gather(p, step0, sub, nu, first, unit);
    }
    return last;
}

void hma_plan_subarray(int32_t *sub, const int32_t *line, int e, int nu, int i)
{
    for (int j = 0; j < (1 << (e - nu)); j++)
        sub[j] = line[(j << nu) + i];
}

/* ---- the node program ------------------------------------------------------------ */

uint64_t hma_plan_checksum(const unsigned char *b, int64_t len)
{
    uint64_t h = UINT64_C(14695981039346656037);
    for (int64_t i = 0; i < len; i++) {
        h ^= b[i];
        h *= UINT64_C(1099511628211);
    }
    return h;
}

typedef struct run_s {
    const hma_plan_t *p;
    unsigned char *buf;
    uint8_t *have;
    int held;
} run_t;

/* Show (hm_show) the numbers of the pieces the node holds. */
static void show_pieces(hm_node_t *n, const run_t *r)
{
    int64_t *v = malloc((size_t)r->held * sizeof *v + 1);
    if (!v)
        return; /* a picture only: the run goes on without it */
    size_t k = 0;
    for (int i = 0; i < r->p->pieces && k < (size_t)r->held; i++)
        if (r->have[i])
            v[k++] = i;
    hm_show(n, v, k);
    free(v);
}

/* Take one packet (waiting for it if need be) and put its pieces in place. */
static int take(hm_node_t *n, run_t *r)
{
    hm_packet_t pk;
    int rc = hm_wait_packet(n, &pk);
    if (rc != HM_OK)
        return rc;
    const unsigned char *src = pk.data;
    int64_t at = 0;
    uint32_t base = (uint32_t)pk.value, mask = (uint32_t)pk.aux, sub = 0;
    if ((base | mask) >= (uint32_t)r->p->pieces)
        return HM_EINVAL;
    do {
        int piece = (int)(base | sub);
        sub = (sub - mask) & mask;
        int64_t len = off(r->p, piece + 1) - off(r->p, piece);
        if (at + len > (int64_t)pk.len)
            return HM_EINVAL;
        if (len > 0) /* (an empty piece of a short message comes with no bytes) */
            memcpy(r->buf + off(r->p, piece), src + at, (size_t)len);
        at += len;
        if (!r->have[piece]) {
            r->have[piece] = 1;
            r->held++;
        }
    } while (sub);
    show_pieces(n, r);
    return HM_OK;
}

void hma_plan_node(hm_node_t *n, const hma_plan_t *p, const unsigned char *msg, unsigned char *buf)
{
    int me = hm_id(n);
    run_t r = {.p = p, .buf = buf, .have = calloc((size_t)p->pieces, 1)};
    unsigned char *out = malloc((size_t)(p->bytes > 0 ? p->bytes : 1));
    if (!r.have || !out) {
        hm_fail(n, "out of memory");
        goto done;
    }
    if (me == p->source) {
        memcpy(buf, msg, (size_t)p->bytes);
        memset(r.have, 1, (size_t)p->pieces);
        r.held = p->pieces;
    }
    for (size_t i = 0; i < p->nops[me]; i++) {
        const hma_plan_op_t *op = &p->ops[me][i];
        if (op->kind == HMA_PLAN_BUSY) {
            if (hm_busy(n, op->slots) != HM_OK)
                goto done;
            continue;
        }
        /* A step-synchronous plan: not before the step starts; the steps after the
         * timed ones (the companions') not before the timed ones end. */
        int64_t from = 0;
        if (p->start)
            from = op->step <= p->timed_until ? p->start[op->step] : p->timed_end;
        if (hm_now(n) < from && hm_wait_until(n, from) != HM_OK)
            goto done;
        /* Wait for the pieces, then pack them in the order the receiver expects. */
        int64_t at = 0;
        uint32_t sub = 0;
        do {
            int piece = (int)(op->base | sub);
            sub = (sub - op->mask) & op->mask;
            while (!r.have[piece])
                if (take(n, &r) != HM_OK)
                    goto done;
            int64_t len = off(p, piece + 1) - off(p, piece);
            memcpy(out + at, buf + off(p, piece), (size_t)len);
            at += len;
        } while (sub);
        hm_packet_t pk = {.msg = op->step,
                          .origin = p->source,
                          .value = op->base,
                          .aux = (int32_t)op->mask,
                          .data = out,
                          .len = (uint32_t)at};
        if (hm_send_to(n, op->peer, &pk) != HM_OK)
            goto done;
    }
    while (r.held < p->pieces)
        if (take(n, &r) != HM_OK)
            goto done;
    hm_store(n, (int64_t)hma_plan_checksum(buf, p->bytes));
done:
    free(r.have);
    free(out);
}
