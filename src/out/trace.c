/* SPDX-License-Identifier: MIT */
/*
 * trace.c — the merged timeline as Chrome Trace Event JSON, for Perfetto and Chrome
 * DevTools (README "Outputs"): one process, one track (thread) per node, named
 * "node 0005" (zero-padded, because Perfetto sorts tracks by name) with
 * thread_sort_index set for the viewers that read it. One slot is drawn as 1 ms
 * (1000 us) and the trace starts at slot 0 with a global "slot 0" marker.
 *
 * Slices ("X"): one per emission (a shout to four ports is one slice whose args list
 * its ports and receivers), one per receive (over every slot a circuit lasted), one
 * per busy period. Arrows: a flow start ("s") at each copy's send slice and a flow end
 * ("f", "bp":"e") at its receive slice, with the slices' own category ("packet") and
 * timestamps, so that both viewers bind them to the slices and draw the arrows.
 * Stores, stalls, delays, conflicts and logs are instant events; a store's value is in
 * its args (decimal, and hex when it does not fit 32 bits).
 */
#include <inttypes.h>
#include <stdio.h>

#include "out/writers.h"

#define US_PER_SLOT 1000

/* slots * US_PER_SLOT as JSON text, exact for every int64_t slot count: past
 * INT64_MAX / 1000 the digits of the product are the slot count's and "000". */
static const char *us(char buf[32], int64_t slots)
{
    long long v;
    if (__builtin_mul_overflow((long long)slots, US_PER_SLOT, &v))
        snprintf(buf, 32, "%lld000", (long long)slots);
    else
        snprintf(buf, 32, "%lld", v);
    return buf;
}

/* Copies of one emission are logged one after the other by their sender: same node,
 * same slot, same flow id but for its low 8 bits (the port). */
static size_t emission_end(const hm__timeline_t *tl, size_t i)
{
    const hm__event_t *e = &tl->ev[i];
    size_t j = i + 1;
    while (j < tl->n && tl->ev[j].kind == HM__EV_SEND && tl->ev[j].node == e->node &&
           tl->ev[j].slot == e->slot && tl->ev[j].flow >> 8 == e->flow >> 8 && e->flow)
        j++;
    return j;
}

static void emission(FILE *f, const hm__timeline_t *tl, size_t i, size_t end,
                     const hm__flow_index_t *recvs)
{
    const hm__event_t *e = &tl->ev[i];
    char ts[32], dur[32];
    fprintf(f,
            ",\n{\"ph\":\"X\",\"pid\":1,\"tid\":%d,\"ts\":%s,\"dur\":%s,\"name\":\"send msg "
            "%d\",\"cat\":\"packet\",\"args\":{\"msg\":%d,\"value\":%lld,\"ports\":[",
            e->node, us(ts, e->slot), us(dur, e->dur > 0 ? e->dur : 1), e->msg, e->msg,
            (long long)e->value);
    for (size_t k = i, first = 1; k < end; k++)
        if (tl->ev[k].port >= 0) /* routed messages have no port */
            fprintf(f, "%s%d", first ? "" : ",", tl->ev[k].port), first = 0;
    fputs("],\"to\":[", f);
    for (size_t k = i; k < end; k++)
        fprintf(f, "%s%d", k > i ? "," : "", tl->ev[k].peer);
    fputs("]}}", f);
    /* An arrow for each copy that reached its receiver (not for one a strict conflict
     * stopped). */
    for (size_t k = i; k < end; k++)
        if (hm__flow_find(recvs, tl->ev[k].flow))
            fprintf(f,
                    ",\n{\"ph\":\"s\",\"pid\":1,\"tid\":%d,\"ts\":%s,\"id\":%" PRIu64
                    ",\"name\":\"msg %d\",\"cat\":\"packet\"}",
                    e->node, ts, tl->ev[k].flow, tl->ev[k].msg);
}

static void receive(FILE *f, const hm__event_t *e)
{
    /* A receive lasting several slots is shown over the slots it lasted. */
    int64_t slots = e->dur > 0 ? e->dur : 1;
    char ts[32], dur[32];
    us(ts, e->slot - (slots - 1));
    fprintf(f,
            ",\n{\"ph\":\"X\",\"pid\":1,\"tid\":%d,\"ts\":%s,\"dur\":%s,\"name\":\"recv msg "
            "%d\",\"cat\":\"packet\",\"args\":{\"msg\":%d,\"value\":%lld,\"from\":%d,\"port\":%d}}",
            e->node, ts, us(dur, slots), e->msg, e->msg, (long long)e->value, e->peer, e->port);
    if (e->flow)
        fprintf(f,
                ",\n{\"ph\":\"f\",\"bp\":\"e\",\"pid\":1,\"tid\":%d,\"ts\":%s,\"id\":%" PRIu64
                ",\"name\":\"msg %d\",\"cat\":\"packet\"}",
                e->node, ts, e->flow, e->msg);
}

static void instant(FILE *f, const hm__event_t *e)
{
    const char *name = hm__event_name((hm__event_kind_t)e->kind);
    char ts[32], dur[32];
    if (e->kind == HM__EV_BUSY) {
        fprintf(f,
                ",\n{\"ph\":\"X\",\"pid\":1,\"tid\":%d,\"ts\":%s,\"dur\":%s,\"name\":\"busy\","
                "\"cat\":\"node\",\"args\":{\"slots\":%lld}}",
                e->node, us(ts, e->slot), us(dur, e->dur), (long long)e->dur);
        return;
    }
    fprintf(f, ",\n{\"ph\":\"i\",\"s\":\"t\",\"pid\":1,\"tid\":%d,\"ts\":%s,\"cat\":\"node\"",
            e->node, us(ts, e->slot));
    if (e->kind == HM__EV_STORE) {
        fprintf(f, ",\"name\":\"store %lld\",\"args\":{\"value\":%lld", (long long)e->value,
                (long long)e->value);
        if (e->value > INT32_MAX || e->value < INT32_MIN)
            fprintf(f, ",\"hex\":\"0x%016" PRIx64 "\"", (uint64_t)e->value);
        fputs("}}", f);
        return;
    }
    if (e->kind == HM__EV_LOG)
        fprintf(f, ",\"name\":\"log\",\"args\":{");
    else
        fprintf(f, ",\"name\":\"%s msg %d to %d\",\"args\":{\"msg\":%d,\"to\":%d,\"port\":%d%s",
                name, e->msg, e->peer, e->msg, e->peer, e->port, e->text ? "," : "");
    if (e->text) {
        fputs("\"text\":", f);
        hm__put_json_string(f, e->text);
    }
    fputs("}}", f);
}

int hm__write_trace(const hm__outcome_t *o, FILE *f)
{
    const hm__timeline_t *tl = &o->timeline;
    int width = 1;
    for (int x = o->info.nodes - 1; x >= 10; x /= 10)
        width++;
    if (width < 4)
        width = 4;
    fprintf(f, "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n");
    fprintf(f,
            "{\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\",\"args\":{\"name\":\"hypemu "
            "%s %s\"}},\n{\"ph\":\"M\",\"pid\":1,\"name\":\"process_sort_index\",\"args\":"
            "{\"sort_index\":0}},\n{\"ph\":\"i\",\"s\":\"g\",\"pid\":1,\"tid\":0,\"ts\":0,"
            "\"name\":\"slot 0\",\"cat\":\"clock\"}",
            hm_topology_name(o->info.topology), o->algorithm);
    for (int x = 0; x < o->info.nodes; x++)
        fprintf(f,
                ",\n{\"ph\":\"M\",\"pid\":1,\"tid\":%d,\"name\":\"thread_name\","
                "\"args\":{\"name\":\"node %0*d\"}},\n{\"ph\":\"M\",\"pid\":1,\"tid\":%d,"
                "\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":%d}}",
                x, width, x, x, x);
    hm__flow_index_t recvs;
    if (hm__flow_index(tl, HM__EV_RECV, &recvs) != 0)
        return -1;
    for (size_t i = 0; i < tl->n;) {
        const hm__event_t *e = &tl->ev[i];
        if (e->kind == HM__EV_SEND) {
            size_t end = emission_end(tl, i);
            emission(f, tl, i, end, &recvs);
            i = end;
            continue;
        }
        if (e->kind == HM__EV_RECV)
            receive(f, e);
        else
            instant(f, e);
        i++;
    }
    hm__flow_index_free(&recvs);
    fprintf(f, "\n]}\n");
    return ferror(f) ? -1 : 0;
}
