/*
 * bench_util.h — what the benchmarks in bench/ share (doc/performance.md): the
 * median of a few runs and the HM_BENCH_* environment variables. Header-only, each
 * bench is one program.
 */
#ifndef HM_BENCH_UTIL_H
#define HM_BENCH_UTIL_H

#include <stdlib.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of v[0..n-1] (sorts v). */
static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The integer in environment variable name, def when unset, at least min. */
static int env_int(const char *name, int def, int min)
{
    const char *s = getenv(name);
    int v = s ? atoi(s) : def;
    return v < min ? min : v;
}

#endif
