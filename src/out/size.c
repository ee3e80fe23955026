/*
 * size.c — how many bytes each output of README "Outputs" would take, before it is
 * written (output.max_bytes, README "Output budget"). The events log and the timeline's
 * event list are counted exactly (the digits of every field, as the writers print
 * them, the diagram written to a counter); the trace likewise; the picture and the
 * OTF2 archive are estimated from above. Every count is one pass over the events, with
 * no formatting of the events themselves.
 */
#include <string.h>

#include "out/writers.h"

#define L(s) ((int64_t)sizeof(s) - 1) /* characters of a string literal */

/* Characters of x in decimal ("%lld"). */
static int64_t dec(int64_t x)
{
    int64_t n = 1;
    uint64_t u = x < 0 ? 0 - (uint64_t)x : (uint64_t)x;
    if (x < 0)
        n++;
    for (; u >= 10; u /= 10)
        n++;
    return n;
}

/* Characters of s as hm__put_json_string writes it, quotes included. */
static int64_t json_string_bytes(const char *s)
{
    int64_t n = 2;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        n += c == '"' || c == '\\' ? 2 : c < 0x20 ? 6 : 1;
    }
    return n;
}

static int64_t add(int64_t a, int64_t b)
{
    return a > INT64_MAX - b ? INT64_MAX : a + b;
}

/* One line of out/events.c. */
static int64_t event_line(const hm__event_t *e)
{
    int64_t n = 8 + dec(e->slot) + 8 + dec(e->node) + 10 +
                (int64_t)strlen(hm__event_name((hm__event_kind_t)e->kind)) + 1;
    if (e->port >= 0)
        n += 8 + dec(e->port);
    if (e->peer >= 0)
        n += (e->kind == HM__EV_RECV ? 8 : 6) + dec(e->peer);
    switch (e->kind) {
    case HM__EV_SEND:
    case HM__EV_RECV:
    case HM__EV_STALL:
    case HM__EV_DELAY:
    case HM__EV_CONFLICT:
        n += 7 + dec(e->msg) + 9 + dec(e->value);
        if (e->dur > 1)
            n += 9 + dec(e->dur);
        break;
    case HM__EV_STORE:
        n += 9 + dec(e->value);
        break;
    case HM__EV_BUSY:
        n += 9 + dec(e->dur);
        break;
    default:
        break;
    }
    const char *sep = e->kind == HM__EV_REFUSED && e->text ? strstr(e->text, ": ") : NULL;
    if (sep) /* ,"call":"CALL","reason":"REASON" (the call is plain text: no escapes) */
        n += 10 + (sep - e->text) + 10 + json_string_bytes(sep + 2);
    else if (e->text && e->kind != HM__EV_REFUSED)
        n += 8 + json_string_bytes(e->text);
    return n + 2;
}

int64_t hm__size_events(const hm__outcome_t *o)
{
    int64_t n = 0;
    for (size_t i = 0; i < o->timeline.n; i++)
        n = add(n, event_line(&o->timeline.ev[i]));
    return n;
}

static int64_t at_least(int64_t x, int64_t width)
{
    return x > width ? x : width;
}

/* One line of the timeline's event list (out/timeline.c, write_event). */
static int64_t timeline_line(const hm__event_t *e, int width)
{
    int64_t n = at_least(dec(e->slot), 6) + 1 + at_least(dec(e->node), width) + 1 +
                at_least((int64_t)strlen(hm__event_name((hm__event_kind_t)e->kind)), 8);
    switch (e->kind) {
    case HM__EV_SEND:
    case HM__EV_STALL:
    case HM__EV_DELAY:
    case HM__EV_CONFLICT:
        n += 5 + dec(e->msg) + 4 + dec(e->peer) + 6 + dec(e->port);
        break;
    case HM__EV_RECV:
        n += 5 + dec(e->msg) + 6 + dec(e->peer) + 6 + dec(e->port);
        break;
    case HM__EV_STORE:
        n += 7 + dec(e->value);
        break;
    case HM__EV_BUSY:
        n += 1 + dec(e->dur) + 6;
        break;
    default:
        break;
    }
    if ((e->kind == HM__EV_SEND || e->kind == HM__EV_RECV) && e->dur > 1)
        n += 2 + dec(e->dur) + 7;
    if (e->text)
        n +=
            (e->kind == HM__EV_LOG || e->kind == HM__EV_REFUSED ? 1 : 3) + (int64_t)strlen(e->text);
    return n + 1;
}

/* A stream that counts what is written to it and keeps nothing. */
static ssize_t count_write(void *cookie, const char *buf, size_t size)
{
    (void)buf;
    *(int64_t *)cookie += (int64_t)size;
    return (ssize_t)size;
}

int64_t hm__size_timeline(const hm__outcome_t *o, const unsigned char *show)
{
    const hm__timeline_t *tl = &o->timeline;
    int nodes = o->info.nodes, width = (int)dec(nodes > 1 ? nodes - 1 : 0);
    /* The title and the diagram are written to a counter: they are small (their
     * columns follow the events, runs of identical slots folded). */
    int64_t n = 0;
    FILE *f = fopencookie(&n, "w", (cookie_io_functions_t){NULL, count_write, NULL, NULL});
    if (!f)
        return INT64_MAX;
    int rc = hm__write_timeline_head(o, show, f);
    if (fclose(f) != 0 || rc != 0)
        return INT64_MAX;
    n += L("\nevents (slot node event details)\n");
    for (size_t i = 0; i < tl->n; i++)
        if (!show || show[tl->ev[i].node])
            n = add(n, timeline_line(&tl->ev[i], width));
    if (o->reason)
        n = add(n, L("\nstopped: \n") + (int64_t)strlen(o->reason));
    return n;
}

/* ---- the trace, as out/trace.c writes it ---------------------------------------- */

/* Characters of slots * 1000 as trace.c's us() writes it. */
static int64_t us(int64_t slots)
{
    long long v;
    if (__builtin_mul_overflow((long long)slots, 1000, &v))
        return dec(slots) + 3;
    return dec(v);
}

static int64_t udec(uint64_t x)
{
    int64_t n = 1;
    for (; x >= 10; x /= 10)
        n++;
    return n;
}

/* A flow arrow's start or end ("s", or "f" with "bp":"e"). */
static int64_t arrow(const hm__event_t *e, int64_t ts, int end)
{
    return (end ? L(",\n{\"ph\":\"f\",\"bp\":\"e\",\"pid\":1,\"tid\":")
                : L(",\n{\"ph\":\"s\",\"pid\":1,\"tid\":")) +
           dec(e->node) + L(",\"ts\":") + ts + L(",\"id\":") + udec(e->flow) +
           L(",\"name\":\"msg ") + dec(e->msg) + L("\",\"cat\":\"packet\"}");
}

/* An emission: copies [i, end) of one send, their slice and their arrows. */
static int64_t emission(const hm__timeline_t *tl, size_t i, size_t end,
                        const hm__flow_index_t *recvs)
{
    const hm__event_t *e = &tl->ev[i];
    int64_t ts = us(e->slot);
    int64_t n = L(",\n{\"ph\":\"X\",\"pid\":1,\"tid\":") + dec(e->node) + L(",\"ts\":") + ts +
                L(",\"dur\":") + us(e->dur > 0 ? e->dur : 1) + L(",\"name\":\"send msg ") +
                dec(e->msg) + L("\",\"cat\":\"packet\",\"args\":{\"msg\":") + dec(e->msg) +
                L(",\"value\":") + dec(e->value) + L(",\"ports\":[") + L("],\"to\":[") + L("]}}");
    int ports = 0;
    for (size_t k = i; k < end; k++) {
        const hm__event_t *c = &tl->ev[k];
        if (c->port >= 0)
            n += dec(c->port) + (ports++ > 0);
        n += dec(c->peer) + (k > i);
        if (hm__flow_find(recvs, c->flow))
            n += arrow(c, ts, 0);
    }
    return n;
}

static int64_t receive(const hm__event_t *e)
{
    int64_t slots = e->dur > 0 ? e->dur : 1, ts = us(e->slot - (slots - 1));
    int64_t n = L(",\n{\"ph\":\"X\",\"pid\":1,\"tid\":") + dec(e->node) + L(",\"ts\":") + ts +
                L(",\"dur\":") + us(slots) + L(",\"name\":\"recv msg ") + dec(e->msg) +
                L("\",\"cat\":\"packet\",\"args\":{\"msg\":") + dec(e->msg) + L(",\"value\":") +
                dec(e->value) + L(",\"from\":") + dec(e->peer) + L(",\"port\":") + dec(e->port) +
                L("}}");
    return e->flow ? n + arrow(e, ts, 1) : n;
}

static int64_t instant(const hm__event_t *e)
{
    if (e->kind == HM__EV_BUSY)
        return L(",\n{\"ph\":\"X\",\"pid\":1,\"tid\":") + dec(e->node) + L(",\"ts\":") +
               us(e->slot) + L(",\"dur\":") + us(e->dur) +
               L(",\"name\":\"busy\",\"cat\":\"node\",\"args\":{\"slots\":") + dec(e->dur) +
               L("}}");
    int64_t n = L(",\n{\"ph\":\"i\",\"s\":\"t\",\"pid\":1,\"tid\":") + dec(e->node) +
                L(",\"ts\":") + us(e->slot) + L(",\"cat\":\"node\"") + L("}}");
    if (e->kind == HM__EV_STORE)
        return n + L(",\"name\":\"store ") + dec(e->value) + L("\",\"args\":{\"value\":") +
               dec(e->value) +
               (e->value > INT32_MAX || e->value < INT32_MIN ? L(",\"hex\":\"0x") + 16 + 1 : 0);
    if (e->kind == HM__EV_LOG)
        n += L(",\"name\":\"log\",\"args\":{");
    else
        n += L(",\"name\":\"") + (int64_t)strlen(hm__event_name((hm__event_kind_t)e->kind)) +
             L(" msg ") + dec(e->msg) + L(" to ") + dec(e->peer) + L("\",\"args\":{\"msg\":") +
             dec(e->msg) + L(",\"to\":") + dec(e->peer) + L(",\"port\":") + dec(e->port) +
             (e->text != NULL);
    if (e->text)
        n += L("\"text\":") + json_string_bytes(e->text);
    return n;
}

int64_t hm__size_trace(const hm__outcome_t *o)
{
    const hm__timeline_t *tl = &o->timeline;
    int width = (int)dec(o->info.nodes - 1) < 4 ? 4 : (int)dec(o->info.nodes - 1);
    int64_t n = L("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n") + L("\n]}\n") +
                L("{\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\",\"args\":{\"name\":\"hypemu "
                  " \"}},\n{\"ph\":\"M\",\"pid\":1,\"name\":\"process_sort_index\",\"args\":"
                  "{\"sort_index\":0}},\n{\"ph\":\"i\",\"s\":\"g\",\"pid\":1,\"tid\":0,\"ts\":0,"
                  "\"name\":\"slot 0\",\"cat\":\"clock\"}") +
                (int64_t)strlen(hm_topology_name(o->info.topology)) + (int64_t)strlen(o->algorithm);
    for (int x = 0; x < o->info.nodes; x++)
        n += L(",\n{\"ph\":\"M\",\"pid\":1,\"tid\":") + dec(x) +
             L(",\"name\":\"thread_name\",\"args\":{\"name\":\"node ") +
             (dec(x) > width ? dec(x) : width) + L("\"}},\n{\"ph\":\"M\",\"pid\":1,\"tid\":") +
             dec(x) + L(",\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":") + dec(x) +
             L("}}");
    hm__flow_index_t recvs;
    if (hm__flow_index(tl, HM__EV_RECV, &recvs) != 0)
        return INT64_MAX; /* no memory to count: taken as too big */
    for (size_t i = 0; i < tl->n;) {
        const hm__event_t *e = &tl->ev[i];
        size_t j = i + 1;
        if (e->kind == HM__EV_SEND) {
            while (j < tl->n && tl->ev[j].kind == HM__EV_SEND && tl->ev[j].node == e->node &&
                   tl->ev[j].slot == e->slot && tl->ev[j].flow >> 8 == e->flow >> 8 && e->flow)
                j++;
            n = add(n, emission(tl, i, j, &recvs));
        } else {
            n = add(n, e->kind == HM__EV_RECV ? receive(e) : instant(e));
        }
        i = j;
    }
    hm__flow_index_free(&recvs);
    return n;
}

int64_t hm__size_svg(const hm__outcome_t *o)
{
    /* The picture draws every transmission up to its detail limits (64 nodes, 500
     * slots, 20,000 transmissions) and aggregates beyond them, so it has a ceiling. */
    int64_t n = add(64 * 1024, (int64_t)o->info.nodes * 512);
    n = add(n, (int64_t)(o->timeline.n < 60000 ? o->timeline.n : 60000) * 160);
    /* The per-slot link view: up to 40 small machines of at most 64 nodes, every link
     * (at most 3 a node there) drawn once in each. */
    if (o->info.nodes <= 64)
        n = add(n, 40 * ((int64_t)o->info.nodes * (3 * 110 + 16) + 300));
    return n < 16 * 1024 * 1024 ? n : 16 * 1024 * 1024;
}

int64_t hm__size_html(const hm__outcome_t *o)
{
    /* The page written to a counter (it is a third of the event log at most), plus room
     * for the title, which the command line makes; a refused page takes nothing. */
    char why[320];
    if (hm__html_refusal(o, why, sizeof why))
        return 0;
    int64_t n = 0;
    FILE *f = fopencookie(&n, "w", (cookie_io_functions_t){NULL, count_write, NULL, NULL});
    if (!f)
        return INT64_MAX;
    int rc = hm__write_html(o, NULL, "slotted", f);
    if (fclose(f) != 0 || rc != 0)
        return INT64_MAX;
    return add(n, 4096);
}

int64_t hm__size_otf2(const hm__outcome_t *o)
{
    /* Definitions per node, then per event a record and per receipt a metric sample. */
    return add(64 * 1024 + (int64_t)o->info.nodes * 2048, (int64_t)o->timeline.n * 64);
}
