/*
 * trace.c — the merged timeline as Chrome Trace Event JSON, for Perfetto and
 * chrome://tracing: one track (thread) per node, named "node 0005" with zero padding
 * because Perfetto ignores thread_sort_index and sorts names as text; an "X" slice
 * for each send, receive, store and busy period; a flow arrow ("s" then "f") from each
 * send to its receive. One slot is shown as 1 ms (1000 us).
 */
#include "cli/run.h"

#define US_PER_SLOT 1000

int hm__write_trace(const hm__machine_t *m, const hm__timeline_t *tl, FILE *f)
{
    int width = 1;
    for (int x = m->info.nodes - 1; x >= 10; x /= 10)
        width++;
    if (width < 4)
        width = 4;
    fprintf(f, "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n");
    fprintf(f,
            "{\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\",\"args\":{\"name\":\"hypemu "
            "%s %s\"}}",
            hm_topology_name(m->info.topology), m->algo->name);
    for (int x = 0; x < m->info.nodes; x++)
        fprintf(f,
                ",\n{\"ph\":\"M\",\"pid\":1,\"tid\":%d,\"name\":\"thread_name\","
                "\"args\":{\"name\":\"node %0*d\"}}",
                x, width, x);
    for (size_t i = 0; i < tl->n; i++) {
        const hm__event_t *e = tl->ev[i];
        long long ts = (long long)e->slot * US_PER_SLOT;
        long long dur = (long long)(e->dur > 0 ? e->dur : 1) * US_PER_SLOT;
        const char *name = hm__event_name((hm__event_kind_t)e->kind);
        switch (e->kind) {
        case HM__EV_SEND:
        case HM__EV_RECV:
            /* A receive lasting several slots is shown over the slots it lasted. */
            if (e->kind == HM__EV_RECV)
                ts -= dur - US_PER_SLOT;
            fprintf(f,
                    ",\n{\"ph\":\"X\",\"pid\":1,\"tid\":%d,\"ts\":%lld,\"dur\":%lld,"
                    "\"name\":\"%s msg %d\",\"cat\":\"%s\",\"args\":{\"%s\":%d,\"port\":%d,"
                    "\"value\":%lld}}",
                    e->node, ts, dur, name, e->msg, name, e->kind == HM__EV_SEND ? "to" : "from",
                    e->peer, e->port, (long long)e->value);
            if (e->flow)
                fprintf(f,
                        ",\n{\"ph\":\"%s\",\"pid\":1,\"tid\":%d,\"ts\":%lld,\"id\":%llu,"
                        "\"name\":\"msg %d\",\"cat\":\"flow\"%s}",
                        e->kind == HM__EV_SEND ? "s" : "f", e->node, ts,
                        (unsigned long long)e->flow, e->msg,
                        e->kind == HM__EV_SEND ? "" : ",\"bp\":\"e\"");
            break;
        case HM__EV_BUSY:
        case HM__EV_STORE:
        case HM__EV_DELAY:
        case HM__EV_STALL:
        case HM__EV_CONFLICT:
        case HM__EV_LOG:
            fprintf(f, ",\n{\"ph\":\"%s\",\"pid\":1,\"tid\":%d,\"ts\":%lld,%s\"name\":\"%s",
                    e->kind == HM__EV_BUSY ? "X" : "i", e->node, ts,
                    e->kind == HM__EV_BUSY ? "" : "\"s\":\"t\",", name);
            if (e->kind == HM__EV_STORE)
                fprintf(f, " %lld", (long long)e->value);
            else if (e->kind != HM__EV_BUSY && e->kind != HM__EV_LOG)
                fprintf(f, " msg %d to %d", e->msg, e->peer);
            fputc('"', f);
            if (e->kind == HM__EV_BUSY)
                fprintf(f, ",\"dur\":%lld", dur);
            if (e->text) {
                fputs(",\"args\":{\"text\":\"", f);
                for (const char *s = e->text; *s; s++) {
                    if (*s == '"' || *s == '\\')
                        fputc('\\', f);
                    if ((unsigned char)*s >= 0x20)
                        fputc(*s, f);
                }
                fputs("\"}", f);
            }
            fputc('}', f);
            break;
        default:
            break;
        }
    }
    fprintf(f, "\n]}\n");
    return ferror(f) ? -1 : 0;
}
