/* SPDX-License-Identifier: MIT */
/*
 * events.c — the merged timeline as JSON Lines (README "Outputs"), one event a line:
 *   {"slot":3,"node":5,"event":"recv","port":1,"from":4,"msg":2}
 * A send names "to", a receive "from"; keys that do not apply are left out.
 */
#include <errno.h>
#include <string.h>

#include "out/writers.h"

void hm__put_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

/* A refused call's text is "CALL: REASON" (engine/refused.c): two keys. */
static void put_refused(FILE *f, const char *text)
{
    const char *sep = text ? strstr(text, ": ") : NULL;
    if (!sep)
        return;
    fprintf(f, ",\"call\":\"%.*s\",\"reason\":", (int)(sep - text), text);
    hm__put_json_string(f, sep + 2);
}

int hm__write_events(const hm__outcome_t *o, FILE *f)
{
    const hm__timeline_t *tl = &o->timeline;
    for (size_t i = 0; i < tl->n; i++) {
        const hm__event_t *e = &tl->ev[i];
        fprintf(f, "{\"slot\":%lld,\"node\":%d,\"event\":\"%s\"", (long long)e->slot, e->node,
                hm__event_name((hm__event_kind_t)e->kind));
        if (e->port >= 0)
            fprintf(f, ",\"port\":%d", e->port);
        if (e->peer >= 0)
            fprintf(f, ",\"%s\":%d", e->kind == HM__EV_RECV ? "from" : "to", e->peer);
        switch (e->kind) {
        case HM__EV_SEND:
        case HM__EV_RECV:
        case HM__EV_STALL:
        case HM__EV_DELAY:
        case HM__EV_CONFLICT:
            fprintf(f, ",\"msg\":%d,\"value\":%lld", e->msg, (long long)e->value);
            if (e->dur > 1)
                fprintf(f, ",\"slots\":%lld", (long long)e->dur);
            break;
        case HM__EV_STORE:
            fprintf(f, ",\"value\":%lld", (long long)e->value);
            break;
        case HM__EV_BUSY:
            fprintf(f, ",\"slots\":%lld", (long long)e->dur);
            break;
        case HM__EV_REFUSED:
            put_refused(f, e->text);
            break;
        default:
            break;
        }
        if (e->text && e->kind != HM__EV_REFUSED) {
            fputs(",\"text\":", f);
            hm__put_json_string(f, e->text);
        }
        if (e->ns > 0) /* the free-running clock's wall-clock stamp */
            fprintf(f, ",\"ns\":%lld", (long long)e->ns);
        if (e->end_ns > 0) /* free mode, circuit routing: the transfer, in wall time */
            fprintf(f, ",\"start_ns\":%lld,\"end_ns\":%lld", (long long)e->start_ns,
                    (long long)e->end_ns);
        fputs("}\n", f);
    }
    return ferror(f) ? -1 : 0;
}
