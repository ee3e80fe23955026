/* SPDX-License-Identifier: MIT */
/*
 * html.c — the player (README "Player", hypemu(1) output.html): one self-contained
 * HTML page that plays the run slot by slot in a browser, with inline style and script
 * (out/player.css and out/player.js, embedded at build time) and no network access.
 *
 * The run is embedded as one JSON object (a <script type="application/json">): the
 * machine, the links, and the merged timeline as one flat array of integers, each event
 * a record whose first number is its kind plus 8 times the slots since the previous
 * event (events are merged by slot, so that number is the kind alone most of the
 * time), then the node and the fields of its kind:
 *   send, recv:               peer, port, msg, value, slots
 *   store:                    value
 *   stall, delay, conflict:   peer, port, msg, value, text (a string, or 0)
 *   busy:                     slots
 *   log:                      text
 * What each node holds (hm_show) is "held", per node its changes (put_held); the
 * payloads received, their first words, "pay" (put_payloads); the mailbox depth after
 * each receipt, "depth" (put_depths). What each node knows is "knows" (put_knows,
 * out/knows.c), when the run recorded what its nodes read (every run with a page does) on
 * at most HM__KNOWS_NODES nodes: per node a flat array of pairs slot, count (slots
 * ascending), from that slot on `count` nodes' information has reached the node
 * (player.js, memory rows' data-knows); on at most 64 nodes also "knowset", per node pairs
 * slot, set (a hex string, bit u for node u: the "who knows whom" matrix). A value beyond
 * 2^53 is
 * a string (a JavaScript number would round it). The page is about a third of the JSON Lines event
 * log; past HM__HTML_MAX_EVENTS events the writer refuses (hm__html_refusal), naming output.otf2
 * and output.trace instead. The bytes follow the outcome only (no wall-clock stamps), so hypemu-mpi
 * writes the same page.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "out/writers.h"

/* The style and the player, one string a line (Makefile.am builds player.inc). */
static const char *const player_css[] = {
#define HM__PLAYER_CSS
#include "out/player.inc"
#undef HM__PLAYER_CSS
    NULL};
static const char *const player_js[] = {
#include "out/player.inc"
    NULL};

/* s as a JSON string that is also safe inside a <script> element: '<', '>' and '&'
 * escaped, so that no "</script>" ends it; bytes that are not valid UTF-8 become '?'. */
static void put_string(FILE *f, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    fputc('"', f);
    while (*p) {
        unsigned char c = *p;
        int len = hm__utf8_len(p);
        if (!len) {
            fputc('?', f);
            p++;
        } else if (len > 1) {
            fwrite(p, 1, (size_t)len, f);
            p += len;
        } else {
            if (c == '"' || c == '\\')
                fprintf(f, "\\%c", c);
            else if (c < 0x20 || c == '<' || c == '>' || c == '&')
                fprintf(f, "\\u%04x", c);
            else
                fputc(c, f);
            p++;
        }
    }
    fputc('"', f);
}

/* A value as a JSON number when a JavaScript number holds it exactly, else a string. */
static void put_value(FILE *f, int64_t v)
{
    const int64_t exact = (int64_t)1 << 53;
    fprintf(f, v >= -exact && v <= exact ? "%lld" : "\"%lld\"", (long long)v);
}

static void put_event(FILE *f, const hm__event_t *e, int64_t prev_slot)
{
    fprintf(f, "%lld,%d", (long long)(e->kind + 8 * (e->slot - prev_slot)), e->node);
    switch (e->kind) {
    case HM__EV_SEND:
    case HM__EV_RECV:
        fprintf(f, ",%d,%d,%d,", e->peer, e->port, e->msg);
        put_value(f, e->value);
        fprintf(f, ",%lld", (long long)(e->dur > 1 ? e->dur : 1));
        break;
    case HM__EV_STALL:
    case HM__EV_DELAY:
    case HM__EV_CONFLICT:
        fprintf(f, ",%d,%d,%d,", e->peer, e->port, e->msg);
        put_value(f, e->value);
        fputc(',', f);
        if (e->text)
            put_string(f, e->text);
        else
            fputc('0', f);
        break;
    case HM__EV_STORE:
        fputc(',', f);
        put_value(f, e->value);
        break;
    case HM__EV_BUSY:
        fprintf(f, ",%lld", (long long)e->dur);
        break;
    default:
        fputc(',', f);
        put_string(f, e->text ? e->text : "");
        break;
    }
}

/* Every undirected link once, as pairs of nodes (the bus has its channel instead). */
static int put_links(FILE *f, const hm_machine_info_t *in)
{
    fputs(",\"links\":[", f);
    if (in->topology == HM_TOPO_BUS) {
        fputc(']', f);
        return 0;
    }
    hm__links_t l;
    char err[128];
    if (hm__topology_build(in, &l, err, sizeof err) != 0) {
        hm__links_free(&l);
        errno = ENOMEM;
        return -1;
    }
    int first = 1;
    for (int x = 0; x < in->nodes; x++)
        for (int p = 0; p < l.deg[x]; p++) {
            int y = l.nbr[(size_t)x * (size_t)l.maxdeg + (size_t)p];
            if (y > x)
                fprintf(f, "%s%d,%d", first ? "" : ",", x, y), first = 0;
        }
    fputc(']', f);
    hm__links_free(&l);
    return 0;
}

/* The output areas (hm_out) as the run left them: 32-bit words, little-endian, at
 * most HM__HTML_OUT_WORDS a node, trailing zero words left out. */
#define HM__HTML_OUT_WORDS 64
static void put_out(FILE *f, const hm__outcome_t *o)
{
    if (!o->out || o->out_size < 4) {
        fputs(",\"out\":null", f);
        return;
    }
    size_t words = o->out_size / 4;
    fprintf(f, ",\"out\":{\"words\":%zu,\"nodes\":[", words);
    if (words > HM__HTML_OUT_WORDS)
        words = HM__HTML_OUT_WORDS;
    for (int x = 0; x < o->info.nodes; x++) {
        const unsigned char *a = o->out + (size_t)x * o->out_size;
        size_t n = words;
        while (n > 0 && !(a[4 * n - 4] | a[4 * n - 3] | a[4 * n - 2] | a[4 * n - 1]))
            n--;
        fputs(x ? ",[" : "[", f);
        for (size_t i = 0; i < n; i++) {
            const unsigned char *w = a + 4 * i;
            uint32_t u =
                (uint32_t)w[0] | (uint32_t)w[1] << 8 | (uint32_t)w[2] << 16 | (uint32_t)w[3] << 24;
            fprintf(f, "%s%ld", i ? "," : "", (long)(int32_t)u);
        }
        fputc(']', f);
    }
    fputs("]}", f);
}

/* What each node holds (hm_show), as its changes: per node a flat array of slot, length,
 * start, n, then n values (player.js replays them), the values past the first
 * HM__HTML_HELD_WORDS of the buffer left out (the page shows no more), so that a large
 * buffer does not swell the page. */
#define HM__HTML_HELD_WORDS 64
static void put_changes(FILE *f, const hm__int64vec_t *h)
{
    for (size_t i = 0; i + 3 < h->n; i += 4 + (size_t)h->v[i + 3]) {
        int64_t start = h->v[i + 2], end = start + h->v[i + 3];
        if (end > HM__HTML_HELD_WORDS)
            end = start < HM__HTML_HELD_WORDS ? HM__HTML_HELD_WORDS : start;
        fprintf(f, "%s%lld,%lld,%lld,%lld", i ? "," : "", (long long)h->v[i],
                (long long)h->v[i + 1], (long long)start, (long long)(end - start));
        for (int64_t k = 0; k < end - start; k++) {
            fputc(',', f);
            put_value(f, h->v[i + 4 + (size_t)k]);
        }
    }
}

static void put_held(FILE *f, const hm__outcome_t *o)
{
    fputs(",\"held\":[", f);
    for (int x = 0; x < o->info.nodes; x++) {
        fputs(x ? ",[" : "[", f);
        if (o->shows)
            put_changes(f, &o->shows[x]);
        fputc(']', f);
    }
    fputc(']', f);
}

/* The payloads of the receipts that carried one (their first words, hm__event_t):
 * a flat array of event index, words in all, words given, then those words. */
static void put_payloads(FILE *f, const hm__timeline_t *tl)
{
    fputs(",\"pay\":[", f);
    int first = 1;
    for (size_t i = 0; i < tl->n; i++) {
        const hm__event_t *e = &tl->ev[i];
        if (!e->pay_n)
            continue;
        fprintf(f, "%s%zu,%u,%u", first ? "" : ",\n", i, e->pay_words, e->pay_n);
        for (uint32_t k = 0; k < e->pay_n; k++) {
            fputc(',', f);
            put_value(f, e->pay[k]);
        }
        first = 0;
    }
    fputc(']', f);
}

/* The receiver's unread packets just after each receipt (hm__event_t.depth; 0: not
 * known), in the order of the receipts. */
static void put_depths(FILE *f, const hm__timeline_t *tl)
{
    fputs(",\"depth\":[", f);
    int first = 1;
    for (size_t i = 0; i < tl->n; i++)
        if (tl->ev[i].kind == HM__EV_RECV) {
            fprintf(f, "%s%d", first ? "" : ",", tl->ev[i].depth);
            first = 0;
        }
    fputc(']', f);
}

/* Who knows whom, on at most 64 nodes: per node its changes as pairs slot, set, the set a
 * hex string (bit u for node u: a JavaScript number holds only 53 bits exactly). */
static void put_knowset(FILE *f, const hm__knows_t *k)
{
    if (k->p > 64)
        return;
    fputs(",\"knowset\":[", f);
    for (int x = 0; x < k->p; x++) {
        fputs(x ? ",[" : "[", f);
        for (size_t i = 0; i < k->changes[x].n; i++)
            fprintf(f, "%s%lld,\"%llx\"", i ? "," : "", (long long)k->changes[x].v[i].slot,
                    (unsigned long long)k->changes[x].v[i].set);
        fputc(']', f);
    }
    fputc(']', f);
}

/* What each node knows (out/knows.c), per node its changes: slot, count pairs (and the
 * sets, put_knowset). Left out when the run holds no reads or is too large for the walk;
 * -1 when out of memory. */
static int put_knows(FILE *f, const hm__outcome_t *o)
{
    hm__knows_t k;
    int rc = hm__knows(o, o->stats.last_activity + 1, &k);
    if (rc == -2)
        return 0;
    if (rc != 0)
        return -1;
    fputs(",\"knows\":[", f);
    for (int x = 0; x < k.p; x++) {
        fputs(x ? ",[" : "[", f);
        for (size_t i = 0; i < k.changes[x].n; i++)
            fprintf(f, "%s%lld,%lld", i ? "," : "", (long long)k.changes[x].v[i].slot,
                    (long long)k.changes[x].v[i].count);
        fputc(']', f);
    }
    fputc(']', f);
    put_knowset(f, &k);
    hm__knows_free(&k);
    return 0;
}

/* The run as the page's JSON object. */
static int put_data(FILE *f, const hm__outcome_t *o, const char *title, const char *clock)
{
    const hm_machine_info_t *in = &o->info;
    fputs("{\"title\":", f);
    put_string(f, title ? title : "hypemu");
    fputs(",\"algorithm\":", f);
    put_string(f, o->algorithm ? o->algorithm : "");
    fprintf(f,
            ",\"topology\":\"%s\",\"nodes\":%d,\"dim\":%d,\"rows\":%d,\"cols\":%d,"
            "\"ports\":\"%s\",\"circuit\":%d,\"clock\":\"%s\",\"slots\":%lld,\"end\":\"%s\"",
            hm_topology_name(in->topology), in->nodes, in->dim, in->rows, in->cols,
            hm_ports_name(in->ports), in->circuit, clock ? clock : "slotted",
            (long long)(o->stats.last_activity + 1), hm__end_name(o->end));
    fputs(",\"reason\":", f);
    if (o->reason)
        put_string(f, o->reason);
    else
        fputs("null", f);
    if (put_links(f, in) != 0)
        return -1;
    put_out(f, o);
    put_held(f, o);
    if (put_knows(f, o) != 0)
        return -1;
    fputs(",\"ev\":[", f);
    const hm__timeline_t *tl = &o->timeline;
    int64_t prev = 0;
    for (size_t i = 0; i < tl->n; i++) {
        if (i)
            fputs(i % 16 ? "," : ",\n", f);
        put_event(f, &tl->ev[i], prev);
        prev = tl->ev[i].slot;
    }
    fputc(']', f);
    put_payloads(f, tl);
    put_depths(f, tl);
    fputc('}', f);
    return 0;
}

int hm__html_refusal(const hm__outcome_t *o, char *msg, size_t len)
{
    if (o->timeline.n <= HM__HTML_MAX_EVENTS)
        return 0;
    snprintf(msg, len,
             "the run has %zu events, more than the player's limit of %d (README \"Player\"); "
             "for a run this big write output.otf2 (Vampir, ViTE) or output.trace (Perfetto) "
             "instead, or a smaller run",
             o->timeline.n, HM__HTML_MAX_EVENTS);
    return 1;
}

int hm__write_html(const hm__outcome_t *o, const char *title, const char *clock, FILE *f)
{
    char why[320];
    if (hm__html_refusal(o, why, sizeof why)) {
        errno = EFBIG;
        return -1;
    }
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"generator\" content=\"hypemu\">\n<title>hypemu player</title>\n<style>\n",
          f);
    for (size_t i = 0; player_css[i]; i++)
        fputs(player_css[i], f);
    /* The error counter comes first, so that it sees the player's own errors. */
    fputs("</style>\n</head>\n<body data-errors=\"0\" data-ready=\"0\">\n<script>\n"
          "window.onerror = function (msg, src, line) {\n"
          "    var b = document.body;\n"
          "    b.setAttribute('data-errors', String(Number(b.getAttribute('data-errors')) + 1));\n"
          "    if (!b.hasAttribute('data-error'))\n"
          "        b.setAttribute('data-error', msg + ' (line ' + line + ')');\n"
          "};\n</script>\n<div id=\"app\"></div>\n"
          "<script id=\"hm-data\" type=\"application/json\">\n",
          f);
    if (put_data(f, o, title, clock) != 0)
        return -1;
    fputs("\n</script>\n<script>\n", f);
    for (size_t i = 0; player_js[i]; i++)
        fputs(player_js[i], f);
    fputs("</script>\n</body>\n</html>\n", f);
    return ferror(f) ? -1 : 0;
}
