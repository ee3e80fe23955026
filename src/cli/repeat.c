/* SPDX-License-Identifier: MIT */
/*
 * repeat.c — `hypemu --repeat N` (doc/clocks.md, doc/contention.md): the
 * same config run N times, each run on one line with the load before and after it, then
 * for the wall time and every contention figure of the transport's summary object (free
 * mode: lock waits, blocked time, port and mailbox waits, latencies) the mean, standard
 * deviation, min, median, max and a distribution-free interval of the median, so that a
 * measurement says how much it varies. Contention figures are skewed (a preempted lock
 * holder makes one run's waits ten times another's): the interval of the median comes
 * from order statistics, holds no value outside the samples (never a negative count) and
 * assumes no distribution.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

/* P(B <= k) for B ~ Binomial(n, 1/2). */
static double binom_cdf(int n, int k)
{
    double c = 0;
    for (int i = 0; i <= k; i++)
        c += exp(lgamma(n + 1.0) - lgamma(i + 1.0) - lgamma(n - i + 1.0) - n * log(2.0));
    return c;
}

/* The order statistics x_(k) .. x_(n+1-k) (1-based) that hold the median with
 * probability at least 95% (k the largest such), whatever the distribution: their
 * confidence is 1 - 2 P(B <= k - 1). Below 6 samples no pair reaches 95%: min and max,
 * with their confidence 1 - 2^(1-n). Returns k; *level gets the confidence. */
static int median_rank(int n, double *level)
{
    int k = 1;
    while (k + 1 <= (n + 1) / 2 && 1 - 2 * binom_cdf(n, k) >= 0.95)
        k++;
    *level = n > 1 ? 1 - 2 * binom_cdf(n, k - 1) : 0.0;
    return k;
}

json_t *hm__repeat_stats(double *v, int n);
/* n samples (sorted in place): n, mean, standard deviation (null for one), min, median,
 * max, and the distribution-free interval of the median with its confidence. */
json_t *hm__repeat_stats(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    double mean = 0, ss = 0, level;
    for (int i = 0; i < n; i++)
        mean += v[i] / n;
    for (int i = 0; i < n; i++)
        ss += (v[i] - mean) * (v[i] - mean);
    double med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    int k = median_rank(n, &level);
    json_t *sd = n > 1 ? json_real(sqrt(ss / (n - 1))) : json_null();
    return json_pack("{s:i, s:f, s:o, s:f, s:f, s:f, s:[f, f], s:f}", "n", n, "mean", mean, "sd",
                     sd, "min", v[0], "median", med, "max", v[n - 1], "median_ci", v[k - 1],
                     v[n - k], "median_ci_level", level);
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
            json_object_set_new(out, k, hm__repeat_stats(v, m));
    }
    free(v);
    return out;
}

/* The runs left out of the statistics: stopped before their end. */
static int left_out(json_t *runs)
{
    size_t i;
    json_t *r;
    int k = 0;
    json_array_foreach(runs, i, r)
        k += !complete(r);
    return k;
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
        fprintf(f, ", load %.2f -> %.2f\n", json_number_value(json_object_get(r, "load_before")),
                json_number_value(json_object_get(r, "load_after")));
    }
    int out = left_out(runs);
    if (out > 0)
        fprintf(f, "%d of %zu runs stopped before their end: left out of the statistics\n", out,
                json_array_size(runs));
    fprintf(f, "%-34s %4s %12s %12s %12s %12s %12s  %s\n", "figure", "n", "mean", "sd", "min",
            "median", "max", "interval of the median");
    const char *k;
    json_t *s;
    json_object_foreach(st, k, s) {
        json_t *ci = json_object_get(s, "median_ci");
        fprintf(f, "%-34s %4lld %12.6g %12.6g %12.6g %12.6g %12.6g  [%.6g, %.6g] %.1f%%\n", k,
                (long long)json_integer_value(json_object_get(s, "n")),
                json_number_value(json_object_get(s, "mean")),
                json_number_value(json_object_get(s, "sd")),
                json_number_value(json_object_get(s, "min")),
                json_number_value(json_object_get(s, "median")),
                json_number_value(json_object_get(s, "max")),
                json_number_value(json_array_get(ci, 0)), json_number_value(json_array_get(ci, 1)),
                100 * json_number_value(json_object_get(s, "median_ci_level")));
    }
}

/* The 1-minute load average, -1 where the system does not say. */
static double load1(void)
{
    double l[1];
    return getloadavg(l, 1) == 1 ? l[0] : -1;
}

/* One run into runs, with the time it started (seconds since the epoch) and the load
 * before and after it; the first run's host record into *host. Returns its exit code. */
static int one_run(const hm__config_t *cfg, json_t *runs, json_t **host)
{
    hm__result_t res;
    double before = load1();
    json_int_t started = (json_int_t)time(NULL);
    int rc = hm__run_config(cfg, &res);
    hm__result_report(&res);
    if (res.summary) {
        const char *key = res.outcome ? res.outcome->transport_key : NULL;
        json_t *fg = figures(res.summary, key), *h = NULL;
        if (key)
            h = json_object_get(json_object_get(res.summary, key), "host");
        if (!*host && json_is_object(h))
            *host = json_incref(h);
        json_array_append_new(
            runs, json_pack("{s:i, s:b, s:I, s:f, s:f, s:o}", "exit_code", rc, "verified",
                            json_is_true(json_object_get(res.summary, "verified")), "started",
                            started, "load_before", before, "load_after", load1(), "figures",
                            fg ? fg : json_object()));
    }
    hm__result_free(&res);
    return rc;
}

int hm__run_repeat(const hm__config_t *cfg, int n, int as_json, FILE *out)
{
    json_t *runs = json_array(), *host = NULL;
    int rc = HM_EXIT_OK;
    if (!runs)
        return HM_EXIT_SYSTEM;
    for (int i = 0; i < n; i++) {
        int r = one_run(cfg, runs, &host);
        if (rc == HM_EXIT_OK)
            rc = r;
        if (r == HM_EXIT_INTERRUPTED || r == HM_EXIT_SYSTEM ||
            (cfg->opt.interrupt && atomic_load(cfg->opt.interrupt)))
            break;
    }
    json_t *st = json_array_size(runs) ? all_stats(runs) : json_object();
    if (as_json) {
        json_t *doc = json_pack("{s:i, s:i, s:O, s:O, s:O}", "repeat", (int)json_array_size(runs),
                                "left_out", left_out(runs), "host", host ? host : json_null(),
                                "runs", runs, "stats", st ? st : json_null());
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
    json_decref(host);
    return rc;
}
