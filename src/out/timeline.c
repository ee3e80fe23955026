/* SPDX-License-Identifier: MIT */
/*
 * timeline.c — the text timeline of README "Outputs": a space-time diagram (one row a
 * node, one column a slot, folded into pages of 64 slots), then the merged event
 * list. Slots that the clock skipped (nothing happened) still get their column, so
 * the picture keeps its time scale.
 */
#include <stdlib.h>
#include <string.h>

#include "out/writers.h"

#define PAGE 64

/* What one cell shows; later kinds in this list win over earlier ones. */
static char glyph(char old, const hm__event_t *e)
{
    char g;
    switch (e->kind) {
    case HM__EV_SEND:
        g = old == 'R' || old == '*' ? '*' : 'S';
        break;
    case HM__EV_RECV:
        g = old == 'S' || old == '*' ? '*' : 'R';
        break;
    case HM__EV_DELAY:
        g = 'd';
        break;
    case HM__EV_STALL:
        g = 's';
        break;
    case HM__EV_CONFLICT:
        g = '!';
        break;
    case HM__EV_BUSY:
        g = '#';
        break;
    case HM__EV_STORE:
        g = old == '.' ? 'o' : old;
        break;
    default:
        g = old == '.' ? 'l' : old;
        break;
    }
    if (old == '!' || ((old == 'd' || old == 's') && g != '!'))
        return old;
    return g;
}

/* ---- columns: the slots shown, with runs of identical slots folded ---------- */

/* One displayed column: slots [first, last]; a folded run when last > first. */
typedef struct col_s {
    int64_t first, last;
} col_t;

#define FOLD_MIN 4 /* a run of at least this many identical slots becomes one column */

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The slots an event is drawn over: a transmission that lasts several slots (circuit
 * routing) from its first slot to its last (a receive is logged in its last), as a
 * busy period. */
static void span(const hm__event_t *ev, int64_t *first, int64_t *last)
{
    *first = *last = ev->slot;
    if ((ev->kind == HM__EV_BUSY || ev->kind == HM__EV_SEND) && ev->dur > 1)
        *last = ev->slot + ev->dur - 1;
    if (ev->kind == HM__EV_RECV && ev->dur > 1)
        *first = ev->slot - ev->dur + 1;
}

/* Between two consecutive breakpoints (an event's first slot, or the slot after its
 * last) every slot shows the same cells: such a run of FOLD_MIN or more slots is one
 * column, whatever its length (idle slots, a long circuit, a busy period), so the
 * picture's size follows the number of events, never the number of slots. */
static col_t *columns(const hm__timeline_t *tl, int64_t slots, size_t *ncols)
{
    int64_t *bp = malloc((2 * tl->n + 2) * sizeof *bp);
    if (!bp)
        return NULL;
    size_t nb = 0;
    bp[nb++] = 0;
    bp[nb++] = slots;
    for (size_t i = 0; i < tl->n; i++) {
        int64_t a, b;
        span(&tl->ev[i], &a, &b);
        if (a >= 0 && a < slots)
            bp[nb++] = a;
        if (b + 1 > 0 && b + 1 < slots)
            bp[nb++] = b + 1;
    }
    qsort(bp, nb, sizeof *bp, cmp_i64);
    size_t cap = 64, n = 0;
    col_t *c = malloc(cap * sizeof *c);
    for (size_t i = 0; c && i + 1 < nb; i++) {
        if (bp[i] == bp[i + 1])
            continue;
        int64_t len = bp[i + 1] - bp[i];
        size_t need = n + (size_t)(len >= FOLD_MIN ? 1 : len);
        if (need > cap) {
            while (cap < need)
                cap *= 2;
            col_t *t = realloc(c, cap * sizeof *c);
            if (!t) {
                free(c);
                c = NULL;
                break;
            }
            c = t;
        }
        if (len >= FOLD_MIN)
            c[n++] = (col_t){bp[i], bp[i + 1] - 1};
        else
            for (int64_t s = bp[i]; s < bp[i + 1]; s++)
                c[n++] = (col_t){s, s};
    }
    free(bp);
    *ncols = n;
    return c;
}

/* The first column that holds slot s (columns are sorted and cover every slot). */
static size_t column_of(const col_t *c, size_t n, int64_t s)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c[mid].last < s)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static int digits(int64_t x)
{
    int d = 1;
    for (; x >= 10; x /= 10)
        d++;
    return d;
}

/* The ruler: every column whose first slot is a multiple of 10, and every folded
 * column, carries that slot's number from there on where it fits (so slot 120 reads
 * "120", not "2"); on the second line a folded column is a '~';
 * the second line gives each single slot's last digit. */
static void ruler(FILE *f, const col_t *c, size_t a, size_t b, int label)
{
    char *top = malloc(b - a + 24), *low = malloc(b - a + 1);
    if (!top || !low) {
        free(top);
        free(low);
        return;
    }
    memset(top, ' ', b - a + 23);
    for (size_t k = a; k < b; k++) {
        low[k - a] = c[k].last > c[k].first ? '~' : (char)('0' + c[k].first % 10);
        if (c[k].first % 10 == 0 || c[k].last > c[k].first) {
            char num[24];
            int len = snprintf(num, sizeof num, "%lld", (long long)c[k].first);
            size_t at = k - a;
            /* Only where it does not touch the previous label. */
            int fits = at == 0 || top[at - 1] == ' ';
            for (int j = 0; j < len && fits; j++)
                fits = top[at + (size_t)j] == ' ';
            if (fits)
                memcpy(top + at, num, (size_t)len);
        }
    }
    size_t tl = b - a + 23;
    while (tl > 0 && top[tl - 1] == ' ')
        tl--;
    fprintf(f, "%*s  %.*s\n%*s  %.*s\n", label, "", (int)tl, top, label, "", (int)(b - a), low);
    free(top);
    free(low);
}

/* The diagram's cells of columns [a, b) for every node, into page (PAGE columns a
 * node). A transmission that lasts several slots (circuit routing) is drawn over all
 * its slots, as a busy period is; spans can cross pages. */
static void draw_page(const hm__timeline_t *tl, const col_t *cols, size_t ncols, size_t a, size_t b,
                      int nodes, char *page)
{
    int64_t start = cols[a].first, end = cols[b - 1].last, maxback = 0;
    memset(page, '.', (size_t)nodes * PAGE);
    /* Events come sorted by slot; one spans at most maxback slots from its slot, back
     * (a receive) or forward (a send or busy period). */
    for (size_t e = 0; e < tl->n; e++)
        if (tl->ev[e].dur > maxback)
            maxback = tl->ev[e].dur;
    size_t lo_ev = 0, hi_ev = tl->n;
    while (lo_ev < hi_ev) {
        size_t mid = lo_ev + (hi_ev - lo_ev) / 2;
        if (tl->ev[mid].slot < start - maxback)
            lo_ev = mid + 1;
        else
            hi_ev = mid;
    }
    for (size_t e = lo_ev; e < tl->n && tl->ev[e].slot - maxback <= end; e++) {
        const hm__event_t *ev = &tl->ev[e];
        int64_t lo, hi;
        span(ev, &lo, &hi);
        if (hi < start || lo > end)
            continue;
        for (size_t k = column_of(cols, ncols, lo > start ? lo : start);
             k < b && cols[k].first <= hi; k++) {
            char *c = &page[(size_t)ev->node * PAGE + (k - a)];
            *c = glyph(*c, ev);
        }
    }
}

/* The shown nodes in rows, each run of identical rows folded into one: groups[2g],
 * groups[2g + 1] are row g's first and last node. Returns the number of rows and the
 * width of their labels ("12-15"). */
static int group_rows(const char *page, size_t width, int nodes, const unsigned char *show,
                      int *groups, int *label)
{
    int ngroups = 0;
    for (int x = 0; x < nodes;) {
        if (show && !show[x]) {
            x++;
            continue;
        }
        int y = x, next = x + 1;
        for (int z = x + 1; z < nodes; z++) {
            if (show && !show[z])
                continue;
            if (memcmp(&page[(size_t)z * PAGE], &page[(size_t)x * PAGE], width) != 0)
                break;
            y = z;
            next = z + 1;
        }
        groups[2 * ngroups] = x;
        groups[2 * ngroups + 1] = y;
        ngroups++;
        int len = digits(x) + (y > x ? 1 + digits(y) : 0);
        *label = len > *label ? len : *label;
        x = next;
    }
    return ngroups;
}

/* The diagram, page by page: header, ruler, rows, and the folded runs of the page. */
static int write_pages(const hm__outcome_t *o, const unsigned char *show, int64_t slots, int width,
                       FILE *f)
{
    const hm__timeline_t *tl = &o->timeline;
    int nodes = o->info.nodes;
    size_t ncols = 0;
    col_t *cols = columns(tl, slots, &ncols);
    char *page = malloc((size_t)nodes * PAGE);
    int *groups = malloc(2 * (size_t)nodes * sizeof *groups);
    if (!cols || !page || !groups) {
        free(cols);
        free(page);
        free(groups);
        return -1;
    }
    for (size_t k = 0; k < ncols; k++)
        if (cols[k].last > cols[k].first) {
            fprintf(f, "folded: a '~' in the ruler is one column for a run of identical slots "
                       "(listed under each page); rows \"a-b\" are identical nodes\n");
            break;
        }
    for (size_t a = 0; a < ncols; a += PAGE) {
        size_t b = a + PAGE < ncols ? a + PAGE : ncols;
        draw_page(tl, cols, ncols, a, b, nodes, page);
        int label = width;
        int ngroups = group_rows(page, b - a, nodes, show, groups, &label);
        fprintf(f, "\nslots %lld..%lld\n", (long long)cols[a].first, (long long)cols[b - 1].last);
        ruler(f, cols, a, b, label);
        for (int g = 0; g < ngroups; g++) {
            int x = groups[2 * g], y = groups[2 * g + 1];
            char name[32];
            if (y > x)
                snprintf(name, sizeof name, "%d-%d", x, y);
            else
                snprintf(name, sizeof name, "%d", x);
            fprintf(f, "%*s  %.*s\n", label, name, (int)(b - a), &page[(size_t)x * PAGE]);
        }
        for (size_t k = a; k < b; k++)
            if (cols[k].last > cols[k].first)
                fprintf(f, "%*s  ~ at column %zu: slots %lld..%lld (%lld identical slots)\n", width,
                        "", k - a, (long long)cols[k].first, (long long)cols[k].last,
                        (long long)(cols[k].last - cols[k].first + 1));
    }
    free(cols);
    free(page);
    free(groups);
    return 0;
}

static void write_event(const hm__event_t *ev, FILE *f, int width)
{
    fprintf(f, "%6lld %*d %-8s", (long long)ev->slot, width, ev->node,
            hm__event_name((hm__event_kind_t)ev->kind));
    switch (ev->kind) {
    case HM__EV_SEND:
    case HM__EV_STALL:
    case HM__EV_DELAY:
    case HM__EV_CONFLICT:
        fprintf(f, " msg %d to %d port %d", ev->msg, ev->peer, ev->port);
        break;
    case HM__EV_RECV:
        fprintf(f, " msg %d from %d port %d", ev->msg, ev->peer, ev->port);
        break;
    case HM__EV_STORE:
        fprintf(f, " value %lld", (long long)ev->value);
        break;
    case HM__EV_BUSY:
        fprintf(f, " %lld slots", (long long)ev->dur);
        break;
    default:
        break;
    }
    if ((ev->kind == HM__EV_SEND || ev->kind == HM__EV_RECV) && ev->dur > 1)
        fprintf(f, " (%lld slots)", (long long)ev->dur);
    if (ev->text)
        fprintf(f, " %s%s", ev->kind == HM__EV_LOG || ev->kind == HM__EV_REFUSED ? "" : ": ",
                ev->text);
    fputc('\n', f);
}

/* The title, the legend and the diagram: everything before the event list. */
int hm__write_timeline_head(const hm__outcome_t *o, const unsigned char *show, FILE *f)
{
    const hm__timeline_t *tl = &o->timeline;
    int64_t slots = o->stats.last_activity + 1;
    for (size_t i = 0; i < tl->n; i++)
        if (tl->ev[i].slot + 1 > slots)
            slots = tl->ev[i].slot + 1;
    int nodes = o->info.nodes;
    fprintf(f, "hypemu timeline: %s, %d nodes, %s ports, %s, %lld slots\n",
            hm_topology_name(o->info.topology), nodes, hm_ports_name(o->info.ports), o->algorithm,
            (long long)slots);
    fprintf(f, "legend: S send  R receive  * both  o store  l log  d delayed  s stalled  "
               "! conflict  # busy  . idle\n");
    return write_pages(o, show, slots, digits(nodes > 1 ? nodes - 1 : 0), f);
}

int hm__write_timeline_nodes(const hm__outcome_t *o, const unsigned char *show, FILE *f)
{
    const hm__timeline_t *tl = &o->timeline;
    int nodes = o->info.nodes;
    int width = digits(nodes > 1 ? nodes - 1 : 0);
    if (hm__write_timeline_head(o, show, f) != 0)
        return -1;
    fprintf(f, "\nevents (slot node event details)\n");
    for (size_t i = 0; i < tl->n; i++)
        if (!show || show[tl->ev[i].node])
            write_event(&tl->ev[i], f, width);
    if (o->reason)
        fprintf(f, "\nstopped: %s\n", o->reason);
    return ferror(f) ? -1 : 0;
}

int hm__write_timeline(const hm__outcome_t *o, FILE *f)
{
    return hm__write_timeline_nodes(o, NULL, f);
}
