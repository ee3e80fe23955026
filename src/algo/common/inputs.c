/* SPDX-License-Identifier: MIT */
/*
 * inputs.c — a collective problem's inputs taken from the config (doc/collectives.md,
 * "Inputs from the config"): "algorithm.inputs" is either an array of p arrays (node
 * x's input values) or the name of a text file of p lines (node x's values on line
 * x + 1, integers separated by blanks; relative to the config file's directory). Each
 * node gives exactly the values the problem gives it (problem.h), integers within
 * +-HMA_PROB_INPUT_MAX so that a sum over 2^24 nodes cannot overflow. The file must
 * be a regular one, within a size and a line length that p and the block give, without
 * NUL bytes: anything else is refused before it is read, or as soon as it is seen.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "problem.h"

/* Node x's values in words, for the messages. */
static const char *input_rule(const hma_prob_t *pb)
{
    switch (pb->kind) {
    case HM_PROBLEM_BROADCAST:
        return "the root block values, every other node none ([])";
    case HM_PROBLEM_SCATTER:
        return "the root p*block values, every other node none ([])";
    case HM_PROBLEM_REDUCE_SCATTER:
    case HM_PROBLEM_ALLTOALL:
        return "p*block values per node";
    default:
        return "block values per node";
    }
}

static int fail(hm_setup_t *s, const char *found, const char *allowed)
{
    hm_setup_fail(s, "inputs", found, allowed);
    return -1;
}

/* Node x's row: exactly incount[x] integers in range, copied into in[x]. */
static int take_row(hm_setup_t *s, hma_prob_t *pb, int x, const json_t *row, const char *where)
{
    char found[160], allowed[200];
    size_t want = pb->incount[x];
    if (!json_is_array(row) || json_array_size(row) != want) {
        if (json_is_array(row))
            snprintf(found, sizeof found, "%zu values for node %d%s", json_array_size(row), x,
                     where);
        else
            snprintf(found, sizeof found, "a non-array for node %d%s", x, where);
        snprintf(allowed, sizeof allowed, "%zu values for node %d (%s; block %d, p = %d)", want, x,
                 input_rule(pb), pb->block, pb->p);
        return fail(s, found, allowed);
    }
    for (size_t i = 0; i < want; i++) {
        const json_t *v = json_array_get(row, i);
        int64_t k = json_is_integer(v) ? (int64_t)json_integer_value(v) : 0;
        if (!json_is_integer(v) || k < -HMA_PROB_INPUT_MAX || k > HMA_PROB_INPUT_MAX) {
            snprintf(found, sizeof found, "a value out of range at node %d, index %zu%s", x, i,
                     where);
            snprintf(allowed, sizeof allowed, "integers from %lld to %lld",
                     (long long)-HMA_PROB_INPUT_MAX, (long long)HMA_PROB_INPUT_MAX);
            return fail(s, found, allowed);
        }
        pb->in[x][i] = k;
    }
    return 0;
}

static int take_array(hm_setup_t *s, hma_prob_t *pb, const json_t *v, const char *where)
{
    char found[160], allowed[160];
    if (!json_is_array(v) || json_array_size(v) != (size_t)pb->p) {
        if (json_is_array(v))
            snprintf(found, sizeof found, "%zu rows%s", json_array_size(v), where);
        else
            snprintf(found, sizeof found, "a %s",
                     json_is_object(v) ? "object" : "number or boolean");
        snprintf(allowed, sizeof allowed,
                 "%d rows, one per node (node x's input values), or a file name", pb->p);
        return fail(s, found, allowed);
    }
    for (int x = 0; x < pb->p; x++)
        if (take_row(s, pb, x, json_array_get(v, x), where) != 0)
            return -1;
    return 0;
}

/* One line of the file as a JSON array of integers (a token that is not an integer
 * becomes a string, which take_row refuses). */
static json_t *parse_line(char *line)
{
    json_t *row = json_array();
    char *save = NULL;
    for (char *tok = strtok_r(line, " \t\r\n", &save); row && tok;
         tok = strtok_r(NULL, " \t\r\n", &save)) {
        char *end;
        errno = 0;
        long long k = strtoll(tok, &end, 10);
        json_array_append_new(row, *end || errno ? json_string(tok) : json_integer(k));
    }
    return row;
}

/* A file of inputs is read no further than what a good one can hold, so that a
 * file named by mistake (a log, a disk image) is refused at once: a line holds at most
 * LINE_PER_VALUE bytes per value its node gives and LINE_SLACK more, and the file at
 * most p + 1 such lines of the longest kind (p rows and a last empty line). */
#define LINE_PER_VALUE 32
#define LINE_SLACK 64

typedef struct caps_s {
    size_t line, file; /* bytes */
    size_t most;       /* the values of the longest row */
} caps_t;

static caps_t caps_of(const hma_prob_t *pb)
{
    caps_t c = {0, 0, 0};
    for (int x = 0; x < pb->p; x++)
        if (pb->incount[x] > c.most)
            c.most = pb->incount[x];
    c.line = LINE_PER_VALUE * c.most + LINE_SLACK;
    c.file = c.line * ((size_t)pb->p + 1);
    return c;
}

/* "32 per value, at most 2 values a line for block 2 and p = 4, and 64 more". */
static void caps_rule(char *buf, size_t len, const hma_prob_t *pb, const caps_t *c)
{
    snprintf(buf, len,
             "%d per value, at most %zu values a line for block %d and p = %d, and %d more",
             LINE_PER_VALUE, c->most, pb->block, pb->p, LINE_SLACK);
}

/* What a path names, in words, for one that is not a regular file. */
static const char *kind_of(mode_t mode)
{
    return S_ISDIR(mode)    ? "a directory"
           : S_ISCHR(mode)  ? "a character device"
           : S_ISBLK(mode)  ? "a block device"
           : S_ISFIFO(mode) ? "a FIFO"
           : S_ISSOCK(mode) ? "a socket"
                            : "not a regular file";
}

/* Open path for reading if it is a regular file no larger than the cap. Opened without
 * blocking (a FIFO without a writer would block the open, and every read after it), and
 * judged by fstat before anything is read. NULL after the message. */
static FILE *open_regular(hm_setup_t *s, const hma_prob_t *pb, const char *path, const caps_t *c)
{
    char found[600], allowed[300], rule[160];
    struct stat st;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &st) != 0) {
        snprintf(found, sizeof found, "\"%.300s\" (%s)", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        fail(s, found, "a readable file of p lines of integers, or an array of p rows");
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        snprintf(found, sizeof found, "\"%.300s\", %s", path, kind_of(st.st_mode));
        fail(s, found, "a regular file of p lines of integers, or an array of p rows");
        return NULL;
    }
    if ((uintmax_t)st.st_size > c->file) {
        close(fd);
        caps_rule(rule, sizeof rule, pb, c);
        snprintf(found, sizeof found, "%jd bytes in \"%.300s\"", (intmax_t)st.st_size, path);
        snprintf(allowed, sizeof allowed,
                 "at most %zu bytes (p + 1 lines of at most %zu bytes: %s)", c->file, c->line,
                 rule);
        fail(s, found, allowed);
        return NULL;
    }
    FILE *f = fdopen(fd, "r");
    if (!f) {
        close(fd);
        fail(s, "a file", "a smaller file");
    }
    return f;
}

/* One line of at most cap bytes (its newline aside) into *buf, of *size bytes, grown as
 * the line needs. Returns its length, -1 at the end of the file, -2 for a longer line,
 * -3 for a NUL byte, -4 out of memory. */
static long read_line(FILE *f, char **buf, size_t *size, size_t cap)
{
    size_t n = 0;
    int ch;
    while ((ch = getc(f)) != EOF && ch != '\n') {
        if (ch == 0)
            return -3;
        if (n == cap)
            return -2;
        if (n + 1 >= *size) {
            size_t grown = *size ? 2 * *size : 256;
            char *b = realloc(*buf, grown);
            if (!b)
                return -4;
            *buf = b;
            *size = grown;
        }
        (*buf)[n++] = (char)ch;
    }
    if (ch == EOF && n == 0)
        return -1;
    if (!*buf && !(*buf = malloc(*size = 1)))
        return -4;
    (*buf)[n] = 0;
    return (long)n;
}

/* The file's lines as the array form (NULL after the message): at most p + 2 lines,
 * each within the cap, no NUL byte. */
static json_t *read_rows(hm_setup_t *s, const hma_prob_t *pb, FILE *f, const char *path,
                         const caps_t *c)
{
    char found[600], allowed[300], rule[160];
    json_t *rows = json_array();
    char *line = NULL;
    size_t most = (size_t)pb->p + 2, size = 0;
    long n = 0;
    while (rows && json_array_size(rows) < most && (n = read_line(f, &line, &size, c->line)) >= 0)
        json_array_append_new(rows, parse_line(line));
    free(line);
    size_t at = json_array_size(rows) + 1;
    if (n == -2) {
        caps_rule(rule, sizeof rule, pb, c);
        snprintf(found, sizeof found, "line %zu longer than %zu bytes in \"%.300s\"", at, c->line,
                 path);
        snprintf(allowed, sizeof allowed, "lines of at most %zu bytes (%s)", c->line, rule);
    } else if (n == -3) {
        snprintf(found, sizeof found, "a NUL byte on line %zu in \"%.300s\"", at, path);
        snprintf(allowed, sizeof allowed, "lines of integers separated by blanks");
    } else if (!rows || n == -4) {
        snprintf(found, sizeof found, "a file");
        snprintf(allowed, sizeof allowed, "a smaller file");
    } else {
        return rows;
    }
    json_decref(rows);
    fail(s, found, allowed);
    return NULL;
}

/* The file's lines (a last empty line ignored) as the array form. Reading stops after
 * p + 2 lines: p rows and a last empty line are the most a good file has, so a longer
 * file is refused without reading (or holding) the rest of it. */
static int take_file(hm_setup_t *s, hma_prob_t *pb, const char *name)
{
    char path[4096], where[600], found[600];
    const char *slash = s->file ? strrchr(s->file, '/') : NULL;
    if (name[0] != '/' && slash)
        snprintf(path, sizeof path, "%.*s/%s", (int)(slash - s->file), s->file, name);
    else
        snprintf(path, sizeof path, "%s", name);
    caps_t c = caps_of(pb);
    FILE *f = open_regular(s, pb, path, &c);
    if (!f)
        return -1;
    json_t *rows = read_rows(s, pb, f, path, &c);
    fclose(f);
    if (!rows)
        return -1;
    size_t n = json_array_size(rows);
    snprintf(where, sizeof where, " in \"%.300s\"", path);
    if (n == (size_t)pb->p + 2) {
        json_decref(rows);
        snprintf(found, sizeof found, "more than %d lines in \"%.300s\"", pb->p + 1, path);
        return fail(s, found, "p lines of integers (and a last empty line), one per node");
    }
    if (n > (size_t)pb->p && json_array_size(json_array_get(rows, n - 1)) == 0)
        json_array_remove(rows, n - 1);
    int rc = take_array(s, pb, rows, where);
    json_decref(rows);
    return rc;
}

int hma_prob_take_inputs(hm_setup_t *s, hma_prob_t *pb)
{
    const json_t *v = s->params ? json_object_get(s->params, "inputs") : NULL;
    if (!v)
        return 0;
    pb->given = 1;
    if (json_is_string(v))
        return take_file(s, pb, json_string_value(v));
    return take_array(s, pb, v, "");
}
