/*
 * repeat.c — `hypemu --repeat N` (doc/clocks.md, doc/contention.md): the
 * same config run N times, each run on one line, then min, median, max and a 95%
 * interval of the mean of the wall time and of every contention figure of the
 * transport's summary object (free mode: lock waits, blocked time, port and mailbox
 * waits, latencies), so that a measurement says how much it varies.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"

/* The figures of one run: wall_seconds, then the numbers of the transport's object
 * ("free" or "circuits"), nested objects flattened with dots ("totals.latency_ns.p99");
 * its lists (per link, per node, hottest links) and the host are left out. */
static void flatten(json_t *into, const char *prefix, json_t *obj)
{
    const char *k;
    json_t *v;
    json_object_foreach(obj, k, v) {
        char name[256];
        snprintf(name, sizeof name, "%s%s%s", prefix, *prefix ? "." : "", k);
        if (json_is_object(v) && strcmp(k, "host") != 0)
            flatten(into, name, v);
        else if (json_is_number(v))
            json_object_set_new(into, name, json_real(json_number_value(v)));
    }
}

static json_t *figures(const json_t *summary, const char *key)
{
    json_t *f = json_object();
    if (!f)
        return NULL;
    json_object_set_new(f, "wall_seconds",
                        json_real(json_number_value(json_object_get(summary, "wall_seconds"))));
    json_t *tp = key ? json_object_get(summary, key) : NULL;
    if (json_is_object(tp))
        flatten(f, key, tp);
    return f;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Student's t for 95% two-sided with df degrees of freedom (1.96 past 30). */
static double t95(int df)
{
    static const double t[30] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
                                 2.262,  2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
                                 2.110,  2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
                                 2.060,  2.056, 2.052, 2.048, 2.045, 2.042};
    return df >= 1 && df <= 30 ? t[df - 1] : 1.96;
}

/* min, median, max, mean and its 95% interval (Student's t; null for one run). */
static json_t *stats_of(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    double mean = 0, ss = 0;
    for (int i = 0; i < n; i++)
        mean += v[i] / n;
    for (int i = 0; i < n; i++)
        ss += (v[i] - mean) * (v[i] - mean);
    double med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    json_t *ci = json_null();
    if (n > 1) {
        double h = t95(n - 1) * sqrt(ss / (n - 1)) / sqrt(n);
        ci = json_pack("[f, f]", mean - h, mean + h);
    }
    return json_pack("{s:f, s:f, s:f, s:f, s:o}", "min", v[0], "median", med, "max", v[n - 1],
                     "mean", mean, "ci95", ci);
}

/* A run that ran to its end (exit 0, or 1: not verified): its figures count. */
static int complete(json_t *run)
{
    json_int_t rc = json_integer_value(json_object_get(run, "exit_code"));
    return rc == HM_EXIT_OK || rc == HM_EXIT_VERIFY;
}

/* Every figure of the first complete run, over the complete runs that have it (a run
 * stopped by a deadlock, max_slots or a signal is listed, not counted). */
static json_t *all_stats(json_t *runs)
{
    json_t *out = json_object(), *first = NULL, *r;
    int n = (int)json_array_size(runs);
    size_t i;
    json_array_foreach(runs, i, r)
        if (!first && complete(r))
            first = json_object_get(r, "figures");
    double *v = malloc((size_t)(n ? n : 1) * sizeof *v);
    const char *k;
    json_t *x;
    if (!out || !v) {
        free(v);
        json_decref(out);
        return NULL;
    }
    json_object_foreach(first, k, x) {
        int m = 0;
        json_array_foreach(runs, i, r) {
            json_t *f = json_object_get(json_object_get(r, "figures"), k);
            if (complete(r) && json_is_number(f))
                v[m++] = json_number_value(f);
        }
        if (m > 0)
            json_object_set_new(out, k, stats_of(v, m));
    }
    free(v);
    return out;
}

static void print_human(FILE *f, json_t *runs, json_t *st)
{
    size_t i;
    json_t *r;
    json_array_foreach(runs, i, r) {
        json_t *fg = json_object_get(r, "figures");
        json_t *p99 = json_object_get(fg, "free.totals.latency_ns.p99");
        fprintf(f, "run %zu: exit %lld, %s, wall %.6f s", i + 1,
                (long long)json_integer_value(json_object_get(r, "exit_code")),
                json_is_true(json_object_get(r, "verified")) ? "verified" : "not verified",
                json_number_value(json_object_get(fg, "wall_seconds")));
        if (p99)
            fprintf(f, ", latency p99 %.0f ns", json_number_value(p99));
        fputc('\n', f);
    }
    fprintf(f, "%-34s %14s %14s %14s  %s\n", "figure", "min", "median", "max",
            "95% interval of the mean");
    const char *k;
    json_t *s;
    json_object_foreach(st, k, s) {
        json_t *ci = json_object_get(s, "ci95");
        fprintf(f, "%-34s %14.6g %14.6g %14.6g", k, json_number_value(json_object_get(s, "min")),
                json_number_value(json_object_get(s, "median")),
                json_number_value(json_object_get(s, "max")));
        if (json_is_array(ci))
            fprintf(f, "  [%.6g, %.6g]", json_number_value(json_array_get(ci, 0)),
                    json_number_value(json_array_get(ci, 1)));
        fputc('\n', f);
    }
}

/* One run into runs; returns its exit code. */
static int one_run(const hm__config_t *cfg, json_t *runs)
{
    hm__result_t res;
    int rc = hm__run_config(cfg, &res);
    if (res.message)
        fprintf(stderr, "hypemu: %s\n", res.message);
    if (res.summary)
        hm__refused_print(stderr, res.outcome);
    if (res.summary) {
        json_t *fg = figures(res.summary, res.outcome ? res.outcome->transport_key : NULL);
        json_array_append_new(runs,
                              json_pack("{s:i, s:b, s:o}", "exit_code", rc, "verified",
                                        json_is_true(json_object_get(res.summary, "verified")),
                                        "figures", fg ? fg : json_object()));
    }
    hm__result_free(&res);
    return rc;
}

int hm__run_repeat(const hm__config_t *cfg, int n, int as_json, FILE *out)
{
    json_t *runs = json_array();
    int rc = HM_EXIT_OK;
    if (!runs)
        return HM_EXIT_SYSTEM;
    for (int i = 0; i < n; i++) {
        int r = one_run(cfg, runs);
        if (rc == HM_EXIT_OK)
            rc = r;
        if (r == HM_EXIT_INTERRUPTED || r == HM_EXIT_SYSTEM ||
            (cfg->opt.interrupt && atomic_load(cfg->opt.interrupt)))
            break;
    }
    json_t *st = json_array_size(runs) ? all_stats(runs) : json_object();
    if (as_json) {
        json_t *doc = json_pack("{s:i, s:O, s:O}", "repeat", (int)json_array_size(runs), "runs",
                                runs, "stats", st ? st : json_null());
        char *s = doc ? json_dumps(doc, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(9))
                      : NULL;
        if (s)
            fprintf(out, "%s\n", s);
        free(s);
        json_decref(doc);
    } else if (st) {
        print_human(out, runs, st);
    }
    json_decref(st);
    json_decref(runs);
    return rc;
}
