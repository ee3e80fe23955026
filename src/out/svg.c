/* SPDX-License-Identifier: MIT */
/*
 * svg.c — the picture of a run (README "Outputs", doc/pictures.md): a space-time
 * diagram in the manner of ParaGraph, then the machine drawn as a graph.
 *
 * Space-time diagram: one row per node, one column per slot. A small run (at most
 * HM__SVG_MAX_NODES nodes, HM__SVG_MAX_SLOTS slots and HM__SVG_MAX_ARROWS
 * transmissions) gets one arrow per transmission, from the sender at its send slot to
 * the receiver at its receive slot, coloured by message (or by sender); circuits are
 * bars over the slots they hold, busy periods grey, stalls orange, delays and conflicts
 * red crosses whose tooltip names the slot, the nodes, the port and the reason. A
 * larger run gets aggregates instead, so that the file stays small (under 2 MB at
 * Q_10): a heat map of link utilisation per block of nodes and of slots, and the
 * number of transmissions in flight per slot.
 *
 * Topology view: the nodes placed by the topology (hypercube: two coordinates from the
 * even and odd address bits; linear: a line; mesh: the grid; bus: one channel) and
 * every link coloured and widened by the packets it carried. Under circuit routing a
 * message counts on every link of its route (doc/config.md, ports.routing).
 *
 * Everything is written in one pass over the merged timeline plus a few arrays of the
 * size of the picture, never of the number of slots: a run whose last slot is 10^12
 * draws as fast as one of 10 slots.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "out/writers.h"

/* What the drawing reads: the outcome, the machine's links rebuilt from its
 * description (the machine itself is gone), and the caller's title and colours. */
typedef struct hm__svg_run_s {
    const hm_machine_info_t *info;
    int maxdeg; /* the neighbour table: nbr[node * maxdeg + port], -1 if none */
    const int *deg;
    const int32_t *nbr;
    const hm__links_t *links;
    const hm__timeline_t *tl;
    int64_t slots; /* completion slots */
    const char *title;
    int colour; /* HM__SVG_BY_* */
} hm__svg_run_t;

#define HM__SVG_MAX_NODES 64
#define HM__SVG_MAX_SLOTS 500
#define HM__SVG_MAX_ARROWS 20000
#define AGG_MAX_ROWS 128
#define AGG_MAX_COLS 500
#define LEFT 64.0
#define TOP 58.0

/* ---- small helpers ------------------------------------------------------- */

/* Text as XML character data: markup characters escaped, control characters and
 * bytes that are not part of valid UTF-8 replaced by '?'. */
static void put_text(FILE *f, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        unsigned char c = *p;
        int len = hm__utf8_len(p);
        if (!len) {
            fputc('?', f);
            p++;
            continue;
        }
        if (len > 1) {
            fwrite(p, 1, (size_t)len, f);
        } else if (c == '<') {
            fputs("&lt;", f);
        } else if (c == '>') {
            fputs("&gt;", f);
        } else if (c == '&') {
            fputs("&amp;", f);
        } else if (c == '"') {
            fputs("&quot;", f);
        } else {
            fputc(c < 0x20 ? '?' : c, f);
        }
        p += len;
    }
}

/* A colour per key, far apart for neighbouring keys (golden-angle hues). */
static void key_colour(long long key, char out[8])
{
    double h = fmod((double)(key < 0 ? -key : key) * 137.508, 360.0) / 60.0;
    double s = 0.70, l = 0.42, c = (1 - fabs(2 * l - 1)) * s;
    double x = c * (1 - fabs(fmod(h, 2.0) - 1)), m = l - c / 2, r = 0, g = 0, b = 0;
    int sector = (int)h;
    if (sector == 0)
        r = c, g = x;
    else if (sector == 1)
        r = x, g = c;
    else if (sector == 2)
        g = c, b = x;
    else if (sector == 3)
        g = x, b = c;
    else if (sector == 4)
        r = x, b = c;
    else
        r = c, b = x;
    snprintf(out, 8, "#%02x%02x%02x", (int)lround((r + m) * 255), (int)lround((g + m) * 255),
             (int)lround((b + m) * 255));
}

/* Utilisation ramp, level 1..8 (0 is drawn as nothing): pale yellow to dark blue. */
static const char *const ramp[9] = {"#ffffff", "#ffffcc", "#c7e9b4", "#7fcdbb", "#41b6c4",
                                    "#1d91c0", "#225ea8", "#253494", "#081d58"};

static int level_of(double frac)
{
    if (frac <= 0)
        return 0;
    int l = 1 + (int)(frac * 8);
    return l > 8 ? 8 : l;
}

/* A tick step of 1, 2 or 5 times a power of ten that leaves `min_px` between ticks. */
static long long tick_step(double px_per_unit, double min_px)
{
    long long step = 1;
    for (;;) {
        for (int k = 0; k < 3; k++) {
            long long s = step * (k == 0 ? 1 : k == 1 ? 2 : 5);
            if ((double)s * px_per_unit >= min_px)
                return s;
        }
        if (step > INT64_MAX / 10)
            return step;
        step *= 10;
    }
}

/* ---- the detailed space-time diagram --------------------------------------- */

typedef struct geom_s {
    double w, h; /* one slot, one node row */
    int nodes;
    int64_t slots;
} geom_t;

static double gx(const geom_t *g, int64_t slot, double frac)
{
    return LEFT + ((double)slot + frac) * g->w;
}

static double gy(const geom_t *g, int node)
{
    return TOP + ((double)node + 0.5) * g->h;
}

static void axes(FILE *f, double width, double height, const char *xlabel, const char *ylabel,
                 int64_t x_units, double px_per_unit, long long unit)
{
    fprintf(f, "<rect class=\"frame\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>\n",
            LEFT, TOP, width, height);
    long long step = tick_step(px_per_unit, 36);
    for (long long s = 0; s <= x_units; s += step) {
        double x = LEFT + (double)s * px_per_unit;
        fprintf(f,
                "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\">%lld</text>\n",
                x, TOP, x, TOP + height, x, TOP - 4, s * unit);
        if (s > INT64_MAX - step)
            break;
    }
    fprintf(f, "<text class=\"label\" x=\"%.1f\" y=\"%.1f\">%s</text>\n", LEFT + width / 2,
            TOP - 18, xlabel);
    fprintf(f, "<text class=\"label\" transform=\"translate(14 %.1f) rotate(-90)\">%s</text>\n",
            TOP + height / 2, ylabel);
}

static void mark(FILE *f, const char *cls, double x, double y, double r, const hm__event_t *e,
                 const char *what)
{
    fprintf(f, "<path class=\"%s\" d=\"M%.1f %.1fl%.1f %.1fm0 %.1fl%.1f %.1f\"><title>", cls, x - r,
            y - r, 2 * r, 2 * r, -2 * r, -2 * r, 2 * r);
    fprintf(f, "slot %lld: %s: node %d to node %d", (long long)e->slot, what, e->node, e->peer);
    if (e->port >= 0)
        fprintf(f, " (port %d)", e->port);
    fprintf(f, ", msg %d", e->msg);
    if (e->text) {
        fputs(": ", f);
        put_text(f, e->text);
    }
    fputs("</title></path>\n", f);
}

/* The receives of one slot share its column in lanes: an arrow spans the rows from its
 * sender to its receiver, and arrows whose spans overlap get different lanes (greedy
 * interval colouring, the spans taken from the top), so that a slot where every node
 * exchanges across a high dimension shows its arrows side by side instead of a solid
 * band; the stroke thins with the lanes. lane[i] and lanes[i] are set for each receive
 * i: its lane and the lanes of its slot. Returns 0 or -1 (out of memory). */
typedef struct span_s {
    int lo, hi;
    size_t i;
} span_t;

static int cmp_span(const void *a, const void *b)
{
    const span_t *x = a, *y = b;
    return x->lo != y->lo ? (x->lo > y->lo) - (x->lo < y->lo) : (x->hi > y->hi) - (x->hi < y->hi);
}

static int assign_lanes(const hm__timeline_t *tl, int *lane, int *lanes)
{
    span_t *sp = malloc((tl->n + 1) * sizeof *sp);
    int *end = malloc((tl->n + 1) * sizeof *end); /* each lane's lowest row so far */
    if (!sp || !end) {
        free(sp), free(end);
        return -1;
    }
    for (size_t i = 0, j; i < tl->n; i = j) {
        size_t m = 0;
        for (j = i; j < tl->n && tl->ev[j].slot == tl->ev[i].slot; j++) {
            const hm__event_t *e = &tl->ev[j];
            if (e->kind == HM__EV_RECV)
                sp[m++] = (span_t){e->peer < e->node ? e->peer : e->node,
                                   e->peer < e->node ? e->node : e->peer, j};
        }
        qsort(sp, m, sizeof *sp, cmp_span);
        int used = 0;
        for (size_t k = 0; k < m; k++) {
            int l = 0;
            while (l < used && end[l] >= sp[k].lo)
                l++;
            if (l == used)
                used++;
            end[l] = sp[k].hi;
            lane[sp[k].i] = l;
        }
        for (size_t k = 0; k < m; k++)
            lanes[sp[k].i] = used;
    }
    free(sp), free(end);
    return 0;
}

/* A transmission's arrow from the sender at its send slot to the receiver at its
 * receive slot, in lane l of the receive's column of n lanes. */
static void arrow(FILE *f, const hm__svg_run_t *r, const geom_t *g, const hm__flow_index_t *sends,
                  const hm__event_t *e, int l, int n)
{
    const hm__event_t *s = hm__flow_find(sends, e->flow);
    int64_t from_slot = s ? s->slot : e->slot - (e->dur > 0 ? e->dur - 1 : 0);
    char col[8];
    key_colour(r->colour == HM__SVG_BY_SENDER ? e->peer : e->msg, col);
    double lw = 0.7 / (n > 0 ? n : 1), x1 = 0.15 + lw * l, px = lw * g->w;
    fprintf(f, "<line class=\"pkt\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"",
            gx(g, from_slot, x1), gy(g, e->peer), gx(g, e->slot, x1 + lw), gy(g, e->node), col);
    if (px < 2.4) /* narrow lanes: a thinner line, so that neighbours stay apart */
        fprintf(f, " stroke-width=\"%.2f\"", px / 2 > 0.3 ? px / 2 : 0.3);
    fprintf(f, "><title>msg %d: node %d (slot %lld) to node %d (slot %lld)</title></line>\n",
            e->msg, e->peer, (long long)from_slot, e->node, (long long)e->slot);
}

static int detailed(FILE *f, const hm__svg_run_t *r, const geom_t *g, const hm__flow_index_t *sends)
{
    const hm__timeline_t *tl = r->tl;
    int *lane = malloc((tl->n + 1) * sizeof *lane), *lanes = malloc((tl->n + 1) * sizeof *lanes);
    if (!lane || !lanes || assign_lanes(tl, lane, lanes) != 0) {
        free(lane), free(lanes);
        return -1;
    }
    double width = (double)g->slots * g->w, height = g->nodes * g->h;
    axes(f, width, height, "slot", "node", g->slots, g->w, 1);
    for (int x = 0; x < g->nodes; x++)
        fprintf(f,
                "<line class=\"row\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                "<text class=\"node\" x=\"%.1f\" y=\"%.1f\">%d</text>\n",
                LEFT, gy(g, x), LEFT + width, gy(g, x), LEFT - 6, gy(g, x) + 4, x);
    char col[8];
    for (size_t i = 0; i < tl->n; i++) {
        const hm__event_t *e = &tl->ev[i];
        double y = gy(g, e->node);
        switch (e->kind) {
        case HM__EV_BUSY:
            fprintf(f,
                    "<rect class=\"busy\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\">"
                    "<title>slot %lld: node %d busy for %lld slots</title></rect>\n",
                    gx(g, e->slot, 0), y - g->h * 0.3, (double)e->dur * g->w, g->h * 0.6,
                    (long long)e->slot, e->node, (long long)e->dur);
            break;
        case HM__EV_SEND:
            if (e->dur > 1) { /* a circuit: a bar over the slots it holds */
                key_colour(r->colour == HM__SVG_BY_SENDER ? e->node : e->msg, col);
                fprintf(f,
                        "<rect class=\"circ\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                        "height=\"%.1f\" fill=\"%s\"><title>slots %lld..%lld: circuit "
                        "%d to %d, msg %d</title></rect>\n",
                        gx(g, e->slot, 0), y - g->h * 0.18, (double)e->dur * g->w, g->h * 0.36, col,
                        (long long)e->slot, (long long)(e->slot + e->dur - 1), e->node, e->peer,
                        e->msg);
            }
            break;
        case HM__EV_RECV:
            arrow(f, r, g, sends, e, lane[i], lanes[i]);
            break;
        case HM__EV_STORE:
            fprintf(f, "<circle class=\"store\" cx=\"%.1f\" cy=\"%.1f\" r=\"1.6\"/>\n",
                    gx(g, e->slot, 0.5), y);
            break;
        case HM__EV_STALL:
            fprintf(f,
                    "<path class=\"stall\" d=\"M%.1f %.1fl4 7h-8z\"><title>slot %lld: node %d "
                    "stalled: mailbox %d-&gt;%d full, msg %d</title></path>\n",
                    gx(g, e->slot, 0.5), y - 4, (long long)e->slot, e->node, e->node, e->peer,
                    e->msg);
            break;
        case HM__EV_DELAY:
            mark(f, "bad", gx(g, e->slot, 0.5), y, 3.5, e, "delayed");
            break;
        case HM__EV_CONFLICT:
            mark(f, "bad", gx(g, e->slot, 0.5), y, 4.5, e, "conflict");
            break;
        default:
            break;
        }
    }
    free(lane), free(lanes);
    return 0;
}

/* ---- the aggregate diagram ------------------------------------------------- */

/* Adds `amount` spread evenly over slots [from, from + len) to the buckets of size
 * `bs` that they overlap. */
static void spread(double *row, int cols, int64_t bs, int64_t from, int64_t len, double amount)
{
    int64_t end = from + len;
    for (int64_t b = from / bs; b < cols && b * bs < end; b++) {
        int64_t lo = b * bs > from ? b * bs : from, hi = (b + 1) * bs < end ? (b + 1) * bs : end;
        row[b] += amount * (double)(hi - lo) / (double)len;
    }
}

/* The aggregate view's grid: rows of nb nodes, columns of bs slots, and what each
 * cell and column saw. */
typedef struct agg_s {
    int nodes, nb, rows, cols;
    int64_t slots, bs;
    double *use;    /* rows x cols: slots of sending */
    double *flight; /* per column: slots of transmissions in flight */
    int *bad;       /* per column: conflicts and delays */
    const hm__event_t **first_bad;
    double cw, rh; /* a cell's width and height */
} agg_t;

static void agg_free(agg_t *g)
{
    free(g->use), free(g->flight), free(g->bad), free(g->first_bad);
}

/* Size the grid and count the events into it. Returns 0 or -1 (out of memory). */
static int agg_count(agg_t *g, const hm__svg_run_t *r, int64_t slots)
{
    g->nodes = r->info->nodes;
    g->nb = (g->nodes + AGG_MAX_ROWS - 1) / AGG_MAX_ROWS;
    g->rows = (g->nodes + g->nb - 1) / g->nb;
    g->slots = slots;
    g->bs = (slots + AGG_MAX_COLS - 1) / AGG_MAX_COLS;
    g->cols = (int)((slots + g->bs - 1) / g->bs);
    g->use = calloc((size_t)g->rows * (size_t)g->cols, sizeof *g->use);
    g->flight = calloc((size_t)g->cols, sizeof *g->flight);
    g->bad = calloc((size_t)g->cols, sizeof *g->bad);
    g->first_bad = calloc((size_t)g->cols, sizeof *g->first_bad);
    if (!g->use || !g->flight || !g->bad || !g->first_bad)
        return -1;
    const hm__timeline_t *tl = r->tl;
    for (size_t i = 0; i < tl->n; i++) {
        const hm__event_t *e = &tl->ev[i];
        int64_t len = e->dur > 0 ? e->dur : 1;
        if (e->kind == HM__EV_SEND) {
            spread(g->use + (size_t)(e->node / g->nb) * (size_t)g->cols, g->cols, g->bs, e->slot,
                   len, (double)len);
        } else if (e->kind == HM__EV_RECV) {
            spread(g->flight, g->cols, g->bs, e->slot - len + 1, len, (double)len);
        } else if (e->kind == HM__EV_CONFLICT || e->kind == HM__EV_DELAY) {
            int b = (int)(e->slot / g->bs);
            if (b < g->cols && g->bad[b]++ == 0)
                g->first_bad[b] = e;
        }
    }
    return 0;
}

/* Link utilisation: one path per level, a subpath per run of cells of that level in a
 * row (a fifth of the bytes of one rectangle per cell). Returns 0 or -1. */
static int agg_levels(FILE *f, const agg_t *g, int maxdeg)
{
    char *lvbuf[9] = {0};
    size_t lvlen[9] = {0};
    FILE *lvf[9] = {0};
    int rc = 0;
    for (int l = 1; l <= 8; l++)
        if (!(lvf[l] = open_memstream(&lvbuf[l], &lvlen[l])))
            rc = -1;
    for (int y = 0; y < g->rows && rc == 0; y++) {
        int in_block = (y + 1) * g->nb <= g->nodes ? g->nb : g->nodes - y * g->nb;
        int prev = -1, x0 = 0;
        for (int x = 0; x <= g->cols; x++) {
            int lv = -1;
            if (x < g->cols) {
                int64_t here = (x + 1) * g->bs <= g->slots ? g->bs : g->slots - (int64_t)x * g->bs;
                double cap = (double)in_block * (double)maxdeg * (double)here;
                lv = level_of(g->use[(size_t)y * (size_t)g->cols + (size_t)x] / cap);
            }
            if (lv == prev)
                continue;
            if (prev > 0)
                fprintf(lvf[prev], "M%.1f %.1fh%.1fv%.1fh%.1fz", LEFT + x0 * g->cw, TOP + y * g->rh,
                        (x - x0) * g->cw, g->rh, -(x - x0) * g->cw);
            prev = lv, x0 = x;
        }
    }
    for (int l = 1; l <= 8; l++) {
        if (lvf[l] && fclose(lvf[l]) != 0)
            rc = -1;
        if (rc == 0 && lvlen[l] > 0)
            fprintf(f, "<path fill=\"%s\" d=\"%s\"/>\n", ramp[l], lvbuf[l]);
        free(lvbuf[l]);
    }
    return rc;
}

/* A red mark over every column with conflicts or delays, the first one in its title. */
static void agg_bad(FILE *f, const agg_t *g)
{
    for (int b = 0; b < g->cols; b++)
        if (g->bad[b]) {
            const hm__event_t *e = g->first_bad[b];
            fprintf(f,
                    "<rect class=\"badcol\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"6\">"
                    "<title>slots %lld..%lld: %d conflicts or delays; first: slot %lld, node %d "
                    "to node %d, msg %d",
                    LEFT + b * g->cw, TOP - 10, g->cw < 2 ? 2 : g->cw, (long long)(b * g->bs),
                    (long long)((b + 1) * g->bs - 1), g->bad[b], (long long)e->slot, e->node,
                    e->peer, e->msg);
            if (e->text) {
                fputs(": ", f);
                put_text(f, e->text);
            }
            fputs("</title></rect>\n", f);
        }
}

/* Transmissions in flight per slot, averaged over each column; returns its bottom. */
static double agg_flight(FILE *f, agg_t *g, double width, double height)
{
    double top = TOP + height + 30, ch = 90, peak = 0;
    for (int b = 0; b < g->cols; b++) {
        int64_t sh = (b + 1) * g->bs <= g->slots ? g->bs : g->slots - (int64_t)b * g->bs;
        g->flight[b] /= (double)sh;
        if (g->flight[b] > peak)
            peak = g->flight[b];
    }
    fprintf(f,
            "<text class=\"label\" x=\"%.1f\" y=\"%.1f\">transmissions in flight per slot "
            "(peak %.1f)</text>\n<rect class=\"frame\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
            "height=\"%.1f\"/>\n<polyline class=\"flight\" points=\"",
            LEFT + width / 2, top - 6, peak, LEFT, top, width, ch);
    for (int b = 0; b < g->cols; b++)
        fprintf(f, "%.1f,%.1f ", LEFT + (b + 0.5) * g->cw,
                top + ch - (peak > 0 ? g->flight[b] / peak * ch : 0));
    fputs("\"/>\n", f);
    return top + ch;
}

static int aggregate(FILE *f, const hm__svg_run_t *r, int64_t slots, double *chart_bottom)
{
    agg_t g = {0};
    if (agg_count(&g, r, slots) != 0) {
        agg_free(&g);
        return -1;
    }
    g.cw = 900.0 / g.cols > 6 ? 6 : 900.0 / g.cols;
    g.rh = 480.0 / g.rows > 8 ? 8 : 480.0 / g.rows;
    double width = g.cols * g.cw, height = g.rows * g.rh;
    char ylabel[64];
    snprintf(ylabel, sizeof ylabel, "node (blocks of %d)", g.nb);
    char xlabel[96];
    snprintf(xlabel, sizeof xlabel, "slot (one column = %lld slot%s)", (long long)g.bs,
             g.bs > 1 ? "s" : "");
    axes(f, width, height, xlabel, ylabel, g.cols, g.cw, g.bs);
    if (agg_levels(f, &g, r->maxdeg > 0 ? r->maxdeg : 1) != 0) {
        agg_free(&g);
        return -1;
    }
    agg_bad(f, &g);
    *chart_bottom = agg_flight(f, &g, width, height);
    agg_free(&g);
    return 0;
}

/* ---- the topology view ---------------------------------------------------- */

/* Where node x is drawn, in a box of unit cells. */
static void place(const hm_machine_info_t *in, int x, double *px, double *py)
{
    switch (in->topology) {
    case HM_TOPO_HYPERCUBE: {
        /* Even address bits along x, odd ones along y; each pair of dimensions 2.4
         * times as long as the pair below, the upper ones skewed by a quarter so that
         * no edge passes through a node. */
        double cx = 0, cy = 0, len = 1;
        for (int i = 0; i < in->dim; i++) {
            if (i >= 2 && i % 2 == 0)
                len *= 2.4;
            double skew = i >= 2 ? 0.25 * len : 0;
            if (x >> i & 1) {
                cx += i % 2 ? skew : len;
                cy += i % 2 ? len : skew;
            }
        }
        *px = cx, *py = cy;
        return;
    }
    case HM_TOPO_MESH:
    case HM_TOPO_TORUS:
        *px = x % in->cols, *py = x / in->cols;
        return;
    case HM_TOPO_RING: { /* a circle, node 0 on top, clockwise */
        double rad = in->nodes / 6.2832 + 1, a = 6.2832 * x / (in->nodes ? in->nodes : 1);
        *px = rad + rad * sin(a), *py = rad - rad * cos(a);
        return;
    }
    case HM_TOPO_LINEAR:
        *px = x % 32, *py = (x / 32) * 1.5;
        return;
    default: /* the bus: a row of processors above the channel */
        *px = x, *py = 0;
        return;
    }
}

/* Packets per directed link (node * maxdeg + port); circuit messages count on every
 * link of their route (row first, then column). Returns NULL when out of memory. */
static int64_t *link_traffic(const hm__svg_run_t *r, int64_t *bus_total)
{
    const hm_machine_info_t *in = r->info;
    size_t links = (size_t)in->nodes * (size_t)(r->maxdeg > 0 ? r->maxdeg : 1);
    int64_t *t = calloc(links, sizeof *t);
    int32_t *route = malloc((hm__route_max(in) + 1) * sizeof *route);
    if (!t || !route) {
        free(t);
        free(route);
        return NULL;
    }
    *bus_total = 0;
    for (size_t i = 0; i < r->tl->n; i++) {
        const hm__event_t *e = &r->tl->ev[i];
        if (e->kind != HM__EV_SEND)
            continue;
        (*bus_total)++;
        if (e->port >= 0 && e->port < r->maxdeg) {
            t[(size_t)e->node * (size_t)r->maxdeg + (size_t)e->port]++;
            continue;
        }
        /* Routed (circuit routing): every link of its route. */
        size_t n = hm__route(in, r->links, e->node, e->peer, route);
        for (size_t k = 0; k < n; k++)
            t[route[k]]++;
    }
    free(route);
    return t;
}

/* Packets per dimension, for a hypercube with too many links to draw one by one. */
static void dims_view(FILE *f, const hm__svg_run_t *r, const int64_t *t, double top, double *bottom)
{
    const hm_machine_info_t *in = r->info;
    int64_t per[64] = {0}, peak = 1;
    for (int x = 0; x < in->nodes; x++)
        for (int p = 0; p < r->deg[x] && p < 64; p++)
            per[p] += t[(size_t)x * (size_t)r->maxdeg + (size_t)p];
    for (int p = 0; p < in->dim; p++)
        if (per[p] > peak)
            peak = per[p];
    for (int p = 0; p < in->dim; p++) {
        double w = 400.0 * (double)per[p] / (double)peak;
        fprintf(f,
                "<text class=\"node\" x=\"%.1f\" y=\"%.1f\">dim %d</text><rect "
                "x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"12\" fill=\"%s\"><title>"
                "dimension %d: %lld packets</title></rect><text class=\"legend\" "
                "x=\"%.1f\" y=\"%.1f\">%lld</text>\n",
                LEFT + 40, top + p * 16 + 10, p, LEFT + 46, top + p * 16, w, ramp[6], p,
                (long long)per[p], LEFT + 50 + w, top + p * 16 + 10, (long long)per[p]);
    }
    *bottom = top + in->dim * 16 + 10;
}

/* The most packets one undirected link carried (both ways), at least 1. */
static int64_t link_peak(const hm__svg_run_t *r, const int64_t *t)
{
    int64_t peak = 1;
    for (int x = 0; x < r->info->nodes; x++)
        for (int p = 0; p < r->deg[x]; p++) {
            int y = r->nbr[(size_t)x * (size_t)r->maxdeg + (size_t)p];
            int back = -1;
            for (int q = 0; y >= 0 && q < r->deg[y]; q++)
                if (r->nbr[(size_t)y * (size_t)r->maxdeg + (size_t)q] == x)
                    back = q;
            int64_t both = t[(size_t)x * (size_t)r->maxdeg + (size_t)p] +
                           (back >= 0 ? t[(size_t)y * (size_t)r->maxdeg + (size_t)back] : 0);
            if (both > peak)
                peak = both;
        }
    return peak;
}

/* Every undirected link once, coloured by the packets it carried; cell is the scale
 * and (ox, oy) the origin. */
static void draw_links(FILE *f, const hm__svg_run_t *r, const int64_t *t, double cell, double ox,
                       double oy)
{
    const hm_machine_info_t *in = r->info;
    int64_t peak = link_peak(r, t);
    for (int x = 0; x < in->nodes; x++)
        for (int p = 0; p < r->deg[x]; p++) {
            int y = r->nbr[(size_t)x * (size_t)r->maxdeg + (size_t)p];
            if (y < x)
                continue; /* each undirected link once */
            int64_t both = t[(size_t)x * (size_t)r->maxdeg + (size_t)p];
            for (int q = 0; q < r->deg[y]; q++)
                if (r->nbr[(size_t)y * (size_t)r->maxdeg + (size_t)q] == x)
                    both += t[(size_t)y * (size_t)r->maxdeg + (size_t)q];
            double x1, y1, x2, y2, frac = (double)both / (double)peak;
            place(in, x, &x1, &y1);
            place(in, y, &x2, &y2);
            fprintf(f,
                    "<line class=\"link\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                    "stroke=\"%s\" stroke-width=\"%.1f\"><title>link %d-%d: %lld "
                    "packets</title></line>\n",
                    ox + x1 * cell, oy + y1 * cell, ox + x2 * cell, oy + y2 * cell,
                    both ? ramp[level_of(frac) > 1 ? level_of(frac) : 2] : "#dddddd", 1 + 3 * frac,
                    x, y, (long long)both);
        }
}

static void draw_vertices(FILE *f, const hm_machine_info_t *in, double cell, double ox, double oy)
{
    for (int x = 0; x < in->nodes; x++) {
        double px, py;
        place(in, x, &px, &py);
        int label = cell > 24 && in->nodes <= 64;
        fprintf(f,
                "<circle class=\"vertex\" cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\"><title>node "
                "%d</title></circle>",
                ox + px * cell, oy + py * cell, label ? 7.0 : 3.0, x);
        if (label)
            fprintf(f, "<text class=\"vlabel\" x=\"%.1f\" y=\"%.1f\">%d</text>", ox + px * cell,
                    oy + py * cell + 3, x);
        fputc('\n', f);
    }
}

static int topology_view(FILE *f, const hm__svg_run_t *r, double top, double *bottom)
{
    const hm_machine_info_t *in = r->info;
    int64_t bus_total = 0;
    int64_t *t = link_traffic(r, &bus_total);
    if (!t)
        return -1;
    fprintf(f,
            "<text class=\"legend\" x=\"%.1f\" y=\"%.1f\">the machine: links by packets "
            "carried</text>\n",
            LEFT, top);
    top += 16;
    if (in->nodes > 256 && in->topology == HM_TOPO_HYPERCUBE) {
        dims_view(f, r, t, top, bottom);
        free(t);
        return 0;
    }
    double maxx = 0, maxy = 0;
    for (int x = 0; x < in->nodes; x++) {
        double px, py;
        place(in, x, &px, &py);
        maxx = px > maxx ? px : maxx, maxy = py > maxy ? py : maxy;
    }
    double cell = maxx > 0 ? 880.0 / maxx : 40;
    cell = cell > 48 ? 48 : cell < 12 ? 12 : cell;
    double ox = LEFT + 10, oy = top + 14;
    if (in->topology == HM_TOPO_BUS) {
        fprintf(f,
                "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"8\" fill=\"%s\"><title>the "
                "channel: %lld emissions</title></rect>\n",
                ox - 10, oy + cell, maxx * cell + 20, ramp[bus_total ? 7 : 1],
                (long long)bus_total);
        for (int x = 0; x < in->nodes; x++)
            fprintf(f, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
                    ox + x * cell, oy, ox + x * cell, oy + cell);
    }
    draw_links(f, r, t, cell, ox, oy);
    draw_vertices(f, in, cell, ox, oy);
    *bottom = oy + (maxy + (in->topology == HM_TOPO_BUS ? 1.3 : 0)) * cell + 20;
    free(t);
    return 0;
}

/* ---- the per-slot link view --------------------------------------------------- */

/* Small multiples: the machine once per slot (runs of at most HM__SVG_SLOT_VIEWS slots
 * and HM__SVG_MAX_NODES nodes, not the bus), the links that carry a packet in that slot
 * in the colour of its message (or sender), the others pale, so that the links each
 * step uses show at a glance. */
#define HM__SVG_SLOT_VIEWS 40
#define SLOT_PANEL 150.0

/* The links that carry a packet in slot t: used[node * maxdeg + port] = 1 + the
 * packet's colour key, 0 for none; a routed message marks every link of its route. */
static void slot_links(const hm__svg_run_t *r, int64_t t, int32_t *route, long long *used)
{
    const hm_machine_info_t *in = r->info;
    memset(used, 0, (size_t)in->nodes * (size_t)r->maxdeg * sizeof *used);
    for (size_t i = 0; i < r->tl->n && r->tl->ev[i].slot <= t; i++) {
        const hm__event_t *e = &r->tl->ev[i];
        if (e->kind != HM__EV_SEND || e->slot + (e->dur > 1 ? e->dur : 1) <= t)
            continue;
        long long key = 1 + (r->colour == HM__SVG_BY_SENDER ? e->node : e->msg);
        if (e->port >= 0 && e->port < r->maxdeg) {
            used[(size_t)e->node * (size_t)r->maxdeg + (size_t)e->port] = key;
            continue;
        }
        size_t n = hm__route(in, r->links, e->node, e->peer, route);
        for (size_t k = 0; k < n; k++)
            used[route[k]] = key;
    }
}

/* The key of the undirected link x-y (port p of x) in either direction, 0 if idle. */
static long long link_key(const hm__svg_run_t *r, const long long *used, int x, int p, int y)
{
    long long key = used[(size_t)x * (size_t)r->maxdeg + (size_t)p];
    for (int q = 0; !key && q < r->deg[y]; q++)
        if (r->nbr[(size_t)y * (size_t)r->maxdeg + (size_t)q] == x)
            key = used[(size_t)y * (size_t)r->maxdeg + (size_t)q];
    return key;
}

/* One panel: the idle links as one pale path, each used link as a line in its
 * packet's colour, the nodes as one path of dots. */
static void slot_panel(FILE *f, const hm__svg_run_t *r, const long long *used, double cell,
                       double ox, double oy)
{
    const hm_machine_info_t *in = r->info;
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 0)
            fputs("<path class=\"sidle\" d=\"", f);
        for (int x = 0; x < in->nodes; x++)
            for (int p = 0; p < r->deg[x]; p++) {
                int y = r->nbr[(size_t)x * (size_t)r->maxdeg + (size_t)p];
                long long key = y > x ? link_key(r, used, x, p, y) : 0;
                if (y <= x || (key != 0) != (pass == 1))
                    continue;
                double x1, y1, x2, y2;
                place(in, x, &x1, &y1);
                place(in, y, &x2, &y2);
                x1 = ox + x1 * cell, y1 = oy + y1 * cell, x2 = ox + x2 * cell, y2 = oy + y2 * cell;
                char col[8];
                key_colour(key - 1, col);
                if (pass == 0)
                    fprintf(f, "M%.1f %.1fL%.1f %.1f", x1, y1, x2, y2);
                else
                    fprintf(f,
                            "<line class=\"slink\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                            "y2=\"%.1f\" stroke=\"%s\"/>\n",
                            x1, y1, x2, y2, col);
            }
        if (pass == 0)
            fputs("\"/>\n", f);
    }
    fputs("<path class=\"sdot\" d=\"", f);
    for (int x = 0; x < in->nodes; x++) {
        double px, py;
        place(in, x, &px, &py);
        fprintf(f, "M%.1f %.1fh0", ox + px * cell, oy + py * cell);
    }
    fputs("\"/>\n", f);
}

static int slot_views(FILE *f, const hm__svg_run_t *r, int64_t slots, double top, double *bottom)
{
    const hm_machine_info_t *in = r->info;
    *bottom = top;
    if (in->topology == HM_TOPO_BUS || in->nodes > HM__SVG_MAX_NODES ||
        slots > HM__SVG_SLOT_VIEWS || r->maxdeg <= 0)
        return 0;
    long long *used = malloc((size_t)in->nodes * (size_t)r->maxdeg * sizeof *used);
    int32_t *route = malloc((hm__route_max(in) + 1) * sizeof *route);
    if (!used || !route) {
        free(used), free(route);
        return -1;
    }
    double maxx = 0, maxy = 0;
    for (int x = 0; x < in->nodes; x++) {
        double px, py;
        place(in, x, &px, &py);
        maxx = px > maxx ? px : maxx, maxy = py > maxy ? py : maxy;
    }
    double cell = (SLOT_PANEL - 24) / (maxx > 1 ? maxx : 1);
    if (maxy * cell > 160)
        cell = 160 / maxy;
    double ph = maxy * cell + 30;
    int per = (int)(900 / SLOT_PANEL);
    fprintf(f, "<text class=\"legend\" x=\"%.1f\" y=\"%.1f\">the links used in each slot</text>\n",
            LEFT, top);
    for (int64_t t = 0; t < slots; t++) {
        double ox = LEFT + 10 + (double)(t % per) * SLOT_PANEL;
        double oy = top + 30 + (double)(t / per) * ph;
        fprintf(f, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\">slot %lld</text>\n", ox + 10,
                oy - 10, (long long)t);
        slot_links(r, t, route, used);
        slot_panel(f, r, used, cell, ox, oy);
    }
    *bottom = top + 20 + (double)((slots + per - 1) / per) * ph;
    free(used), free(route);
    return 0;
}

/* ---- the whole picture ---------------------------------------------------- */

static void legend(FILE *f, const hm__svg_run_t *r, int detailed_view, double y)
{
    double x = LEFT;
    if (detailed_view) {
        fprintf(f,
                "<line class=\"pkt key\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                "stroke=\"#333\"/><text class=\"legend\" x=\"%.1f\" y=\"%.1f\">packet: send "
                "slot to receive slot, coloured by %s</text>\n",
                x, y, x + 24, y, x + 30, y + 4,
                r->colour == HM__SVG_BY_SENDER ? "sender" : "message");
        x += 330;
        fprintf(f,
                "<rect class=\"busy\" x=\"%.1f\" y=\"%.1f\" width=\"16\" height=\"8\"/><text "
                "class=\"legend\" x=\"%.1f\" y=\"%.1f\">busy</text>\n",
                x, y - 4, x + 20, y + 4);
        x += 60;
        fprintf(f,
                "<path class=\"bad key\" d=\"M%.1f %.1fl8 8m0 -8l-8 8\"/><text class=\"legend\" "
                "x=\"%.1f\" y=\"%.1f\">conflict or delay</text>\n",
                x, y - 4, x + 14, y + 4);
        x += 120;
        fprintf(f,
                "<path class=\"stall\" d=\"M%.1f %.1fl4 7h-8z\"/><text class=\"legend\" "
                "x=\"%.1f\" y=\"%.1f\">stall</text>\n",
                x + 4, y - 4, x + 14, y + 4);
        x += 56;
        fprintf(f,
                "<circle class=\"store\" cx=\"%.1f\" cy=\"%.1f\" r=\"2\"/><text class=\"legend\" "
                "x=\"%.1f\" y=\"%.1f\">store</text>\n",
                x + 4, y, x + 12, y + 4);
        return;
    }
    fprintf(f,
            "<text class=\"legend\" x=\"%.1f\" y=\"%.1f\">link utilisation</text><text "
            "class=\"legend\" x=\"%.1f\" y=\"%.1f\">0%%</text>\n",
            x, y + 4, x + 86, y + 4);
    for (int l = 1; l <= 8; l++)
        fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"22\" height=\"10\" fill=\"%s\"/>",
                x + 110 + 22 * (l - 1), y - 5, ramp[l]);
    fprintf(f,
            "\n<text class=\"legend\" x=\"%.1f\" y=\"%.1f\">100%%</text><rect class=\"badcol\" "
            "x=\"%.1f\" y=\"%.1f\" width=\"6\" height=\"6\"/><text class=\"legend\" x=\"%.1f\" "
            "y=\"%.1f\">conflicts or delays in that column</text>\n",
            x + 292, y + 4, x + 340, y - 3, x + 350, y + 4);
}

/* The SVG element, the style and the arrow marker, up to the title's text. */
static void header(FILE *f, double width, double height)
{
    fprintf(f,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
            "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\">\n"
            "<style>\n"
            ".frame{fill:none;stroke:#888;stroke-width:.6}.grid{stroke:#e4e4e4;stroke-width:.5}\n"
            ".row{stroke:#bbb;stroke-width:.5}.tick,.node{font-size:9px;fill:#555}\n"
            ".tick{text-anchor:middle}.node{text-anchor:end}.label{font-size:11px;fill:#222;"
            "text-anchor:middle}\n.legend{font-size:10px;fill:#222}.title{font-size:13px;"
            "font-weight:bold;fill:#111}\n.pkt{stroke-width:1.2;marker-end:url(#arrow)}"
            ".circ{opacity:.45}.busy{fill:#c8c8c8}\n.store{fill:#222}.stall{fill:#f08c00}"
            ".bad{stroke:#d00;stroke-width:2;fill:none}.badcol{fill:#d00}\n"
            ".flight{fill:none;stroke:#225ea8;stroke-width:1}.link{stroke-linecap:round}\n"
            ".vertex{fill:#fff;stroke:#333;stroke-width:1}.vlabel{font-size:8px;"
            "text-anchor:middle;fill:#111}\n"
            ".sidle{fill:none;stroke:#dcdcdc;stroke-width:.8}.slink{stroke-width:2.4;"
            "stroke-linecap:round}.sdot{stroke:#555;stroke-width:2.6;stroke-linecap:round}\n"
            "</style>\n<defs><marker id=\"arrow\" viewBox=\"0 0 6 6\" refX=\"6\" refY=\"3\" "
            "markerWidth=\"5\" markerHeight=\"5\" orient=\"auto\"><path d=\"M0 0L6 3L0 6z\" "
            "fill=\"#333\"/></marker></defs>\n"
            "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n"
            "<text class=\"title\" x=\"%.1f\" y=\"16\">",
            width, height, width, height, LEFT);
}

static int write_svg(const hm__svg_run_t *r, FILE *f)
{
    const hm__timeline_t *tl = r->tl;
    int64_t slots = r->slots > 0 ? r->slots : 1;
    size_t recvs = 0;
    for (size_t i = 0; i < tl->n; i++) {
        if (tl->ev[i].slot + 1 > slots)
            slots = tl->ev[i].slot + 1;
        recvs += tl->ev[i].kind == HM__EV_RECV;
    }
    int nodes = r->info->nodes;
    int detailed_view =
        nodes <= HM__SVG_MAX_NODES && slots <= HM__SVG_MAX_SLOTS && recvs <= HM__SVG_MAX_ARROWS;
    hm__flow_index_t sends;
    if (hm__flow_index(tl, HM__EV_SEND, &sends) != 0)
        return -1;

    geom_t g = {0};
    g.nodes = nodes;
    g.slots = slots;
    /* The diagram takes about 900 px whatever the slot count (a slot up to 120 px). */
    g.w = 900.0 / (double)slots;
    g.w = g.w > 120 ? 120 : g.w < 2 ? 2 : g.w;
    g.h = nodes <= 16 ? 22 : nodes <= 32 ? 16 : 11;
    /* The picture's height is known only after the diagram: write the body to a
     * temporary stream, then the header with the final size. */
    char *body = NULL;
    size_t body_len = 0;
    FILE *b = open_memstream(&body, &body_len);
    if (!b) {
        hm__flow_index_free(&sends);
        return -1;
    }
    double bottom = 0;
    int rc = 0;
    if (detailed_view) {
        rc = detailed(b, r, &g, &sends);
        bottom = TOP + nodes * g.h;
    } else {
        rc = aggregate(b, r, slots, &bottom);
    }
    legend(b, r, detailed_view, bottom + 22);
    if (rc == 0)
        rc = topology_view(b, r, bottom + 56, &bottom);
    if (rc == 0 && detailed_view)
        rc = slot_views(b, r, slots, bottom + 16, &bottom);
    hm__flow_index_free(&sends);
    if (fclose(b) != 0 || rc != 0) {
        free(body);
        return -1;
    }
    double width = LEFT + (detailed_view ? (double)slots * g.w : 900) + 30;
    if (width < 980)
        width = 980;
    header(f, width, bottom + 10);
    put_text(f, r->title ? r->title : "hypemu");
    fputs("</text>\n", f);
    fwrite(body, 1, body_len, f);
    fputs("</svg>\n", f);
    free(body);
    return ferror(f) ? -1 : 0;
}

int hm__write_svg(const hm__outcome_t *o, const char *title, int colour, FILE *f)
{
    hm__links_t links;
    char err[128];
    if (hm__topology_build(&o->info, &links, err, sizeof err) != 0) {
        hm__links_free(&links);
        errno = ENOMEM;
        return -1;
    }
    hm__svg_run_t r = {.info = &o->info,
                       .maxdeg = links.maxdeg,
                       .deg = links.deg,
                       .nbr = links.nbr,
                       .links = &links,
                       .tl = &o->timeline,
                       .slots = o->stats.last_activity + 1,
                       .title = title,
                       .colour = colour};
    int rc = write_svg(&r, f);
    hm__links_free(&links);
    return rc;
}
