/*
 * inputs.c — a collective problem's inputs taken from the config (doc/collectives.md,
 * "Inputs from the config"): "algorithm.inputs" is either an array of p arrays (node
 * x's input values) or the name of a text file of p lines (node x's values on line
 * x + 1, integers separated by blanks; relative to the config file's directory). Each
 * node gives exactly the values the problem gives it (problem.h), integers within
 * +-HMA_PROB_INPUT_MAX so that a sum over 65536 nodes cannot overflow.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(found, sizeof found, "\"%.300s\" (%s)", path, strerror(errno));
        return fail(s, found, "a readable file of p lines of integers, or an array of p rows");
    }
    json_t *rows = json_array();
    char *line = NULL;
    size_t cap = 0, most = (size_t)pb->p + 2;
    while (rows && json_array_size(rows) < most && getline(&line, &cap, f) >= 0)
        json_array_append_new(rows, parse_line(line));
    free(line);
    fclose(f);
    size_t n = json_array_size(rows);
    snprintf(where, sizeof where, " in \"%.300s\"", path);
    if (n == most) {
        json_decref(rows);
        snprintf(found, sizeof found, "more than %d lines in \"%.300s\"", pb->p + 1, path);
        return fail(s, found, "p lines of integers (and a last empty line), one per node");
    }
    if (n > (size_t)pb->p && json_array_size(json_array_get(rows, n - 1)) == 0)
        json_array_remove(rows, n - 1);
    int rc = rows ? take_array(s, pb, rows, where) : fail(s, "a file", "a smaller file");
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
