/* SPDX-License-Identifier: MIT */
/*
 * writers.h — the output files of README "Outputs": each writer takes the run's
 * outcome (hm__outcome_t, immutable; the machine is gone) and an open FILE, and
 * returns 0 or -1 with errno set. The command line opens and closes the files.
 */
#ifndef HM_WRITERS_H
#define HM_WRITERS_H

#include <stdio.h>

#include "hm_internal.h"

int hm__write_events(const hm__outcome_t *o, FILE *f); /* out/events.c: JSON Lines */
/* out/events.c: s as a JSON string, quotes and escapes included. */
void hm__put_json_string(FILE *f, const char *s);
int hm__write_timeline(const hm__outcome_t *o, FILE *f); /* out/timeline.c: text */
int hm__write_trace(const hm__outcome_t *o, FILE *f);    /* out/trace.c: Chrome trace */

/* out/timeline.c: the text timeline with only the nodes whose show[] byte is set
 * (show NULL: every node, as hm__write_timeline). */
int hm__write_timeline_nodes(const hm__outcome_t *o, const unsigned char *show, FILE *f);
/* out/timeline.c: its title, legend and diagram, without the event list. */
int hm__write_timeline_head(const hm__outcome_t *o, const unsigned char *show, FILE *f);

/* out/svg.c: the picture of a run (README "Outputs", doc/pictures.md), titled with the
 * summary line; output.svg_colour picks what colours a packet's arrow. */
enum { HM__SVG_BY_MESSAGE, HM__SVG_BY_SENDER };
int hm__write_svg(const hm__outcome_t *o, const char *title, int colour, FILE *f);

/* out/html.c: the player (README "Player"), a self-contained HTML page that plays the
 * run; clock names the clock mode ("slotted", "free", "local"). Beyond
 * HM__HTML_MAX_EVENTS events hm__html_refusal puts in msg why the page is not written
 * and what to write instead, and returns 1 (0: the page can be written); the writer
 * then fails with EFBIG. */
#define HM__HTML_MAX_EVENTS 1000000
int hm__write_html(const hm__outcome_t *o, const char *title, const char *clock, FILE *f);

/* out/knows.c: what each node knows, slot by slot (engine/past.c), for slots 0..last:
 * per node, each slot in which the number of nodes it has heard of grows, the number,
 * and (p <= 64) the set, bit u for node u. Returns 0, -1 when out of memory, -2 when
 * the run holds no reads (hm__options_t.record_reads) or has more than HM__KNOWS_NODES
 * nodes; free with hm__knows_free. */
#define HM__KNOWS_NODES 1024
typedef struct hm__knows_change_s {
    int64_t slot, count;
    uint64_t set;
} hm__knows_change_t;
typedef struct hm__knows_s {
    int p;
    HM__VEC(hm__knows_change_t) * changes;
} hm__knows_t;
int hm__knows(const hm__outcome_t *o, int64_t last, hm__knows_t *k);
void hm__knows_free(hm__knows_t *k);
int hm__html_refusal(const hm__outcome_t *o, char *msg, size_t len);

/* out/otf2.c, built when configure finds the OTF2 library (HM_HAVE_OTF2): the run as an
 * OTF2 archive in directory `dir`, written aside and renamed into place. Returns 0, or
 * -1 with a message in err. */
int hm__write_otf2(const hm__outcome_t *o, const char *dir, char *err, size_t errlen);

/* Whether `dir` may be written by hm__write_otf2, which replaces it whole: a path that
 * does not exist, or an OTF2 archive as hm__write_otf2 writes it (traces.otf2,
 * traces.def and traces/ of N.evt and N.def files, nothing else). Returns 0, or -1
 * with what was found in why ("a regular file", "a directory that is not an OTF2
 * archive (no traces.otf2 in it)"). */
int hm__otf2_target(const char *dir, char *why, size_t len);

/* out/size.c: the bytes each output would take (output.max_bytes, README "Output
 * budget"): the events log, the timeline and the trace exactly (their writers run into
 * a stream that only counts), the player exactly but for its title, the picture and the
 * OTF2 archive from above. INT64_MAX when there is no memory to count. */
int64_t hm__size_events(const hm__outcome_t *o);
int64_t hm__size_timeline(const hm__outcome_t *o, const unsigned char *show);
int64_t hm__size_trace(const hm__outcome_t *o);
int64_t hm__size_svg(const hm__outcome_t *o);
int64_t hm__size_html(const hm__outcome_t *o);
int64_t hm__size_otf2(const hm__outcome_t *o);

/* The length of the UTF-8 sequence at p (1 to 4 bytes), 0 when it is not valid UTF-8:
 * the text writers (SVG, the player) put '?' for such a byte. */
static inline int hm__utf8_len(const unsigned char *p)
{
    unsigned char c = *p;
    int len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    for (int i = 1; i < len; i++)
        if ((p[i] & 0xC0) != 0x80)
            return 0;
    /* No overlong form, no surrogate, nothing above U+10FFFF (RFC 3629, section 4). */
    if (c == 0xC0 || c == 0xC1 || c > 0xF4 || (c == 0xE0 && p[1] < 0xA0) ||
        (c == 0xED && p[1] >= 0xA0) || (c == 0xF0 && p[1] < 0x90) || (c == 0xF4 && p[1] >= 0x90))
        return 0;
    return len;
}

#endif
