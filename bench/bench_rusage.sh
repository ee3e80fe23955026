#!/bin/sh
# SPDX-License-Identifier: MIT
# bench_rusage.sh — the free clock's per-thread kernel figures against the process's
# (doc/contention.md, "Checking the figures"): runs a free-mode config under
# /usr/bin/time -v and compares the node threads' voluntary and involuntary context
# switches (getrusage RUSAGE_THREAD, summed in the summary's free.threads) with the
# process totals that time reports. The node threads do nearly all the switching, so the
# two must agree within HM_BENCH_TOLERANCE percent (default 10) in every run; the main
# thread's few switches make the difference. A benchmark, not a test: its figures depend
# on the machine and its load. Exit 0 when every run agrees, 1 otherwise.
#
# Usage: bench/bench_rusage.sh [CONFIG] [--set PATH=VALUE]...   (HM_BENCH_REPS runs, 5)
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${HYPEMU:-$here/hypemu}
cfg=${1:-$here/configs/torus4x4_traffic.json}
[ $# -eq 0 ] || shift
reps=${HM_BENCH_REPS:-5}
tol=${HM_BENCH_TOLERANCE:-10}
[ -x /usr/bin/time ] || { echo "bench_rusage: /usr/bin/time (GNU time) is needed" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0
i=0
while [ "$i" -lt "$reps" ]; do
    i=$((i + 1))
    /usr/bin/time -v -o "$tmp/time" "$bin" --json --set output=null --set clock.mode=free \
        --set algorithm.packets=1024 --set algorithm.rate_percent=100 "$@" "$cfg" >"$tmp/run.json"
    python3 - "$tmp/time" "$tmp/run.json" "$tol" "$i" <<'PY' || bad=1
import json, re, sys
timef, runf, tol, i = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
t = open(timef).read()
proc = {k: int(re.search(r"%s context switches: (\d+)" % k, t).group(1))
        for k in ("Voluntary", "Involuntary")}
th = json.load(open(runf))["free"]["threads"]
ok = True
line = ["run %s:" % i]
for k, key in (("Voluntary", "voluntary_switches"), ("Involuntary", "involuntary_switches")):
    a, b = th[key], proc[k]
    diff = abs(b - a) * 100.0 / b if b else 0.0
    ok &= diff <= tol
    line.append("%s threads %d, process %d (%.1f%%)" % (k.lower(), a, b, diff))
line.append("migrations %s (%s)" % (th["migrations"], th.get("migrations_from") or "unreadable"))
print(" ".join(line) + ("" if ok else "  OUTSIDE %g%%" % tol))
sys.exit(0 if ok else 1)
PY
done
exit "$bad"
