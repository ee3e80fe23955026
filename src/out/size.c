/* SPDX-License-Identifier: MIT */
/*
 * size.c — how many bytes each output of README "Outputs" would take, before it is
 * written (output.max_bytes, README "Output budget"). The timeline, the events log and
 * the trace are counted exactly: their writers write into a stream that counts the bytes
 * and keeps none, so the count cannot drift from the format (tests/check_sizes.sh holds
 * every shipped config to it). The picture and the OTF2 archive are estimated from
 * above.
 */
#include "out/writers.h"

static int64_t add(int64_t a, int64_t b)
{
    return a > INT64_MAX - b ? INT64_MAX : a + b;
}

/* A stream that counts what is written to it and keeps nothing. */
static ssize_t count_write(void *cookie, const char *buf, size_t size)
{
    (void)buf;
    int64_t *n = cookie;
    *n = add(*n, (int64_t)size);
    return (ssize_t)size;
}

/* The bytes write(o, show, f) writes; INT64_MAX when the counter cannot be opened (no
 * memory: taken as too big) or the writer fails. */
static int64_t counted(const hm__outcome_t *o, const unsigned char *show,
                       int (*write)(const hm__outcome_t *, const unsigned char *, FILE *))
{
    int64_t n = 0;
    FILE *f = fopencookie(&n, "w", (cookie_io_functions_t){NULL, count_write, NULL, NULL});
    if (!f)
        return INT64_MAX;
    int rc = write(o, show, f);
    if (fclose(f) != 0 || rc != 0)
        return INT64_MAX;
    return n;
}

static int events(const hm__outcome_t *o, const unsigned char *show, FILE *f)
{
    (void)show;
    return hm__write_events(o, f);
}

static int trace(const hm__outcome_t *o, const unsigned char *show, FILE *f)
{
    (void)show;
    return hm__write_trace(o, f);
}

int64_t hm__size_events(const hm__outcome_t *o)
{
    return counted(o, NULL, events);
}

int64_t hm__size_timeline(const hm__outcome_t *o, const unsigned char *show)
{
    return counted(o, show, hm__write_timeline_nodes);
}

int64_t hm__size_trace(const hm__outcome_t *o)
{
    return counted(o, NULL, trace);
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
