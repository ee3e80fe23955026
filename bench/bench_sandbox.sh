#!/bin/sh
# SPDX-License-Identifier: MIT
# bench_sandbox.sh — `make bench-sandbox`: what --sandbox costs (README "Sandbox",
# doc/performance.md "Sandbox"), each figure the median of HM_BENCH_REPS runs (5):
#
#   1. the node API's round trip: 2 nodes (Q_1) making HM_BENCH_CALLS (200000) calls of
#      hm_pending each, less the same run with none, per call;
#   2. a whole run, start to summary, on Q_4 (a lab-sized machine), Q_6 and Q_8 (256
#      node processes): the binomial tree broadcast, in threads and sandboxed, and the
#      ratio;
#   3. grading a class: 6 students (the reference solution each) on exercises 1 to 4
#      (doc/lab/README.md), hypemu-lab class sandboxed and --no-sandbox, from an install
#      into a temporary prefix.
#
# Set by the Makefile: HYPEMU (the program), CC, MAKE, HM_SRCDIR, HM_BUILDDIR.
set -eu
: "${HYPEMU:?}" "${HM_SRCDIR:?}" "${HM_BUILDDIR:?}"
reps=${HM_BENCH_REPS:-5}
calls=${HM_BENCH_CALLS:-200000}
tmp=$(mktemp -d /tmp/hypemu-bench-sandbox-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
${CC:-cc} -O2 -shared -fPIC -I"$HM_SRCDIR/include" -I"$HM_BUILDDIR/include" -o "$tmp/calls.so" "$HM_SRCDIR/bench/sandbox_calls.c"
for d in 1 4 6 8; do
    printf '{"topology": {"kind": "hypercube", "dim": %s}, "algorithm": {"name": "bench-calls"}}\n' \
        "$d" >"$tmp/q$d.json"
done

# median SECONDS...: the middle value.
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

# wall N DIM [--sandbox]: the median wall time of reps runs, with N calls per node.
wall() {
    n=$1 d=$2
    shift 2
    ts=""
    i=0
    while [ "$i" -lt "$reps" ]; do
        t0=$(date +%s%N)
        HM_BENCH_CALLS=$n "$HYPEMU" --quiet "$@" --plugin "$tmp/calls.so" "$tmp/q$d.json" >/dev/null 2>&1 ||
            { echo "bench_sandbox.sh: the run failed: Q_$d $*" >&2; exit 1; }
        t1=$(date +%s%N)
        ts="$ts $(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.6f", (b - a) / 1e9}')"
        i=$((i + 1))
    done
    # shellcheck disable=SC2086 # one word a time
    median $ts
}

echo "bench_sandbox: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), $reps runs each, medians"
for mode in threads sandbox; do
    flag=""
    [ "$mode" = sandbox ] && flag=--sandbox
    base=$(wall 0 1 $flag)
    with=$(wall "$calls" 1 $flag)
    awk -v m="$mode" -v w="$with" -v b="$base" -v c="$calls" 'BEGIN {
        printf "%s: hm_pending round trip %.0f ns a call (%d calls on each of 2 nodes: %s s against %s s)\n",
            m, (w - b) / c * 1e9, c, w, b }'
done
printf '%-6s %12s %12s %8s\n' machine threads_s sandbox_s ratio
for d in 4 6 8; do
    a=$(wall 0 "$d")
    b=$(wall 0 "$d" --sandbox)
    awk -v d="$d" -v a="$a" -v b="$b" 'BEGIN { printf "%-6s %12.4f %12.4f %7.1fx\n", "Q_" d, a, b, b / a }'
done

# ---- 3. a class --------------------------------------------------------------------------
${MAKE:-make} -s -C "$HM_BUILDDIR" install prefix="$tmp/prefix" >"$tmp/install.log" 2>&1 ||
    { cat "$tmp/install.log" >&2; exit 1; }
PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
LD_LIBRARY_PATH="$tmp/prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PKG_CONFIG_PATH LD_LIBRARY_PATH
# grade_all [--no-sandbox]: seconds to grade the 6 students on the 4 exercises.
grade_all() {
    t0=$(date +%s%N)
    for ex in 1 2 3 4; do
        "$tmp/prefix/bin/hypemu-lab" class "$ex" "$tmp/class$ex" --csv "$tmp/grades$ex.csv" "$@" \
            >/dev/null 2>&1 || { echo "bench_sandbox.sh: class $ex failed" >&2; exit 1; }
        grep -c ',pass,' "$tmp/grades$ex.csv" | grep -qx 6 || { echo "bench_sandbox.sh: class $ex: not 6 passes" >&2; exit 1; }
    done
    t1=$(date +%s%N)
    awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", (b - a) / 1e9}'
}
for ex in 1 2 3 4; do
    mkdir -p "$tmp/class$ex"
    for s in s1 s2 s3 s4 s5 s6; do
        cp "$HM_SRCDIR"/examples/lab/solutions/ex$ex-*.c "$tmp/class$ex/$s.c"
    done
done
plain="" boxed=""
i=0
while [ "$i" -lt 3 ]; do
    plain="$plain $(grade_all --no-sandbox)"
    boxed="$boxed $(grade_all)"
    i=$((i + 1))
done
# shellcheck disable=SC2086 # one word a time
a=$(median $plain) b=$(median $boxed)
awk -v a="$a" -v b="$b" 'BEGIN { printf "a class (6 students x exercises 1-4, 3 runs each): %.2f s in threads, %.2f s sandboxed, %.1fx\n", a, b, b / a }'
