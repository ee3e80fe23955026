#!/bin/sh
# SPDX-License-Identifier: MIT
# bench_simgrid.sh — hypemu and SimGrid side by side on one pattern (`make bench-simgrid`,
# doc/performance.md): 2^d simultaneous SBT broadcasts on Q_d, every node the root of
# one (simultaneous-broadcast, variant same-order, k = 2^d: increasing-order trees, one
# FIFO queue per link, one packet per directed link per slot, all ports), for each d of
# HM_BENCH_DIMS (default 6 7 8 9 10).
#
# hypemu runs the config below (no output files); bench/bench_simgrid simulates the
# same slots in SimGrid 3.3x (S4U actors, one host per node, one link per direction of
# every edge, a barrier per slot). Both print their slot and message counts, which
# must agree. Times are the wall times of whole processes (start-up included), the
# median of HM_BENCH_REPS runs (default 1), and SimGrid / hypemu their ratio.
#
# The floor: `bench/bench_clock --barrier 2^d SLOTS`, a whole process that creates 2^d
# threads with the node threads' stacks and runs one bare pthread_barrier_wait round per
# slot, nothing else. No emulator that gives every node a thread and ends each slot with
# a barrier can be faster on this machine, so SimGrid / floor is the highest ratio such
# an emulator could show here (doc/performance.md).
set -u
build=${HM_BUILDDIR:-.}
hypemu="$build/hypemu"
simgrid="$build/bench/bench_simgrid"
floor="$build/bench/bench_clock"
reps=${HM_BENCH_REPS:-1}
dims=${HM_BENCH_DIMS:-6 7 8 9 10}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

now() { date +%s.%N; }

# median of the numbers on stdin
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# field NAME of a line "name value name value ..."
field() { awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) { print $(i + 1); exit } }'; }

echo "machine: $(nproc) CPUs, $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1); $(uptime | sed 's/.*load/load/')"
echo "median of $reps run(s); wall time of each whole process"
echo
echo "| d | nodes | slots | messages | hypemu | SimGrid | SimGrid / hypemu | floor | SimGrid / floor |"
echo "|--:|------:|------:|---------:|-------:|--------:|-----------------:|------:|----------------:|"
for d in $dims; do
    p=$((1 << d))
    cat >"$tmp/q$d.json" <<JSON
{"topology": {"kind": "hypercube", "dim": $d},
 "ports": {"model": "all-port", "link_capacity": 1}, "contention": "strict",
 "algorithm": {"name": "simultaneous-broadcast", "variant": "same-order", "k": $p},
 "seed": 1}
JSON
    : >"$tmp/h" && : >"$tmp/s" && : >"$tmp/f"
    r=0
    while [ "$r" -lt "$reps" ]; do
        t0=$(now)
        "$hypemu" --json "$tmp/q$d.json" >"$tmp/hout" || { echo "hypemu failed on d=$d" >&2; exit 1; }
        t1=$(now)
        "$simgrid" "$d" >"$tmp/sout" 2>"$tmp/serr" || { cat "$tmp/serr" >&2; echo "bench_simgrid failed on d=$d" >&2; exit 1; }
        t2=$(now)
        hslots=$(tr -d ' \n' <"$tmp/hout" | sed -n 's/.*"completion_slots":\([0-9]*\).*/\1/p')
        "$floor" --barrier "$p" "$hslots" || { echo "bench_clock --barrier failed on d=$d" >&2; exit 1; }
        t3=$(now)
        awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }' >>"$tmp/h"
        awk -v a="$t1" -v b="$t2" 'BEGIN { print b - a }' >>"$tmp/s"
        awk -v a="$t2" -v b="$t3" 'BEGIN { print b - a }' >>"$tmp/f"
        r=$((r + 1))
    done
    hslots=$(tr -d ' \n' <"$tmp/hout" | sed -n 's/.*"completion_slots":\([0-9]*\).*/\1/p')
    hmsgs=$(tr -d ' \n' <"$tmp/hout" | sed -n 's/.*"transmissions":\([0-9]*\).*/\1/p')
    sslots=$(field slots <"$tmp/sout")
    smsgs=$(field messages <"$tmp/sout")
    if [ "$hslots" != "$sslots" ] || [ "$hmsgs" != "$smsgs" ]; then
        echo "d=$d: hypemu $hslots slots $hmsgs messages, SimGrid $sslots slots $smsgs messages: they differ" >&2
        exit 1
    fi
    h=$(median <"$tmp/h")
    s=$(median <"$tmp/s")
    f=$(median <"$tmp/f")
    awk -v d="$d" -v p="$p" -v sl="$hslots" -v m="$hmsgs" -v h="$h" -v s="$s" -v f="$f" \
        'BEGIN { printf "| %d | %d | %d | %d | %.2f s | %.2f s | %.1fx | %.2f s | %.1fx |\n", d, p, sl, m, h, s, s / h, f, s / f }'
done
