/*
 * timeline.c — the text timeline of SPEC section 7: a space-time diagram (one row a
 * node, one column a slot, folded into pages of 64 slots), then the merged event
 * list. Slots that the clock skipped (nothing happened) still get their column, so
 * the picture keeps its time scale.
 */
#include <stdlib.h>
#include <string.h>

#include "cli/run.h"

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

int hm__write_timeline(const hm__machine_t *m, const hm__timeline_t *tl, FILE *f)
{
    int64_t slots = m->stats.last_activity + 1;
    for (size_t i = 0; i < tl->n; i++)
        if (tl->ev[i]->slot + 1 > slots)
            slots = tl->ev[i]->slot + 1;
    int nodes = m->info.nodes;
    fprintf(f, "hypemu timeline: %s, %d nodes, %s ports, %s, %lld slots\n",
            hm_topology_name(m->info.topology), nodes, hm_ports_name(m->info.ports), m->algo->name,
            (long long)slots);
    fprintf(f, "legend: S send  R receive  * both  o store  l log  d delayed  s stalled  "
               "! conflict  # busy  . idle\n");

    /* Cells, page by page; only pages with events cost memory. */
    char *row = malloc(PAGE + 1);
    char *page = malloc((size_t)nodes * PAGE);
    if (!row || !page) {
        free(row);
        free(page);
        return -1;
    }
    /* A transmission that lasts several slots (circuit routing) is drawn over all its
     * slots: a send from its first slot on, a receive (logged in its last slot) back
     * to its first, as a busy period is; spans can cross pages. */
    int64_t maxback = 0;
    for (size_t i = 0; i < tl->n; i++)
        if (tl->ev[i]->kind == HM__EV_RECV && tl->ev[i]->dur > maxback)
            maxback = tl->ev[i]->dur;
    int width = 1;
    for (int x = nodes - 1; x >= 10; x /= 10)
        width++;
    for (int64_t start = 0; start < slots; start += PAGE) {
        int64_t end = start + PAGE < slots ? start + PAGE : slots;
        memset(page, '.', (size_t)nodes * PAGE);
        for (size_t e = 0; e < tl->n && tl->ev[e]->slot - maxback < end; e++) {
            const hm__event_t *ev = tl->ev[e];
            int64_t first = ev->slot, last = ev->slot;
            if ((ev->kind == HM__EV_BUSY || ev->kind == HM__EV_SEND) && ev->dur > 1)
                last = ev->slot + ev->dur - 1;
            if (ev->kind == HM__EV_RECV && ev->dur > 1)
                first = ev->slot - ev->dur + 1;
            if (last < start || first >= end)
                continue;
            for (int64_t s = first > start ? first : start; s <= last && s < end; s++) {
                char *c = &page[(size_t)ev->node * PAGE + (size_t)(s - start)];
                *c = glyph(*c, ev);
            }
        }
        fprintf(f, "\nslots %lld..%lld\n%*s  ", (long long)start, (long long)end - 1, width, "");
        for (int64_t s = start; s < end; s++)
            fputc(s % 10 == 0 ? '0' + (char)((s / 10) % 10) : ' ', f);
        fprintf(f, "\n%*s  ", width, "");
        for (int64_t s = start; s < end; s++)
            fputc('0' + (char)(s % 10), f);
        fputc('\n', f);
        for (int x = 0; x < nodes; x++) {
            memcpy(row, &page[(size_t)x * PAGE], (size_t)(end - start));
            row[end - start] = 0;
            fprintf(f, "%*d  %s\n", width, x, row);
        }
    }
    free(row);
    free(page);

    fprintf(f, "\nevents (slot node event details)\n");
    for (size_t i = 0; i < tl->n; i++) {
        const hm__event_t *ev = tl->ev[i];
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
            fprintf(f, " %s%s", ev->kind == HM__EV_LOG ? "" : ": ", ev->text);
        fputc('\n', f);
    }
    if (m->stop_reason)
        fprintf(f, "\nstopped: %s\n", m->stop_reason);
    return ferror(f) ? -1 : 0;
}
