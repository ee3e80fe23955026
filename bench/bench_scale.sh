#!/bin/sh
# SPDX-License-Identifier: MIT
# bench_scale.sh — make bench-scale (README "Many nodes"): hypemu at the size of the
# host, against the kernel's own cost of a thread per node.
#
# For each size it runs, REPS times and interleaved (the order alternates from one
# repetition to the next, so that a change in the host's load falls on both), in a
# process of its own each (bench/bench_scale.c):
#
#   bare     N threads with 64 KiB stacks, one barrier round, joined: the floor
#   hypemu   sbt-broadcast on Q_12..Q_19 (each node waits once for its packet: one
#            wake-up per node, as the bare round), successive-broadcast on Q_8..Q_12
#            (p broadcasts, p^2 packets)
#
# and prints the medians: wall seconds, the ratio (the median of the paired ratios of
# one repetition), peak resident memory, what hypemu holds per node beyond the bare
# floor's, and the kernel's share of CPU time.
#
# The sizes need kernel.pid_max and kernel.threads-max above the threads of the host
# plus N, and vm.max_map_count above 2 N (a stack and its guard page per thread). As
# root it raises those that are short for the largest size, says which, and restores
# them at the end; otherwise, or where memory is short, it skips the sizes the host
# cannot run (bench_scale room N) with the limit reached.
#
# Environment: HM_BENCH_REPS (default 3), HM_BENCH_SBT_DIMS (default "12 ... 19"),
# HM_BENCH_SUCC_DIMS (default "8 ... 12"; empty: none), HM_BENCH_CLOCK (clock.mode:
# slotted, the default, local or free), HM_BENCH_SLOT_TIMEOUT (clock.slot_timeout in
# seconds: the watchdog; default 0, off), HM_BUILDDIR (default .).
set -u
B=${HM_BUILDDIR:-.}/bench/bench_scale
REPS=${HM_BENCH_REPS:-3}
SBT_DIMS=${HM_BENCH_SBT_DIMS-"12 13 14 15 16 17 18 19"}
SUCC_DIMS=${HM_BENCH_SUCC_DIMS-"8 9 10 11 12"}
CLOCK=${HM_BENCH_CLOCK:-slotted}
TMP=$(mktemp -d) || exit 1

max=0
for d in $SBT_DIMS $SUCC_DIMS; do
    [ "$d" -gt "$max" ] && max=$d
done
need=$((1 << max))

# ---- the host's limits ----------------------------------------------------------
restore=""
cleanup() {
    if [ -n "$restore" ]; then
        # shellcheck disable=SC2086
        sysctl -q -w $restore >/dev/null && echo "restored: $restore"
    fi
    rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

raise() { # raise NAME VALUE: when below VALUE and root
    cur=$(sysctl -n "$1" 2>/dev/null) || return
    [ "$cur" -ge "$2" ] && return
    if [ "$(id -u)" = 0 ] && sysctl -q -w "$1=$2" >/dev/null 2>&1; then
        echo "raised $1 from $cur to $2 for the run"
        restore="$restore $1=$cur"
    else
        echo "$1 = $cur is below $2 (not root, or refused): larger sizes will be skipped"
    fi
}
tasks=$(awk '{ split($4, a, "/"); print a[2] }' /proc/loadavg)
raise kernel.pid_max 4194304
raise kernel.threads-max $((need + tasks + 65536))
raise vm.max_map_count $((2 * need + 65536))

echo
echo "host: $(nproc) CPUs, $(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)," \
    "load $(cut -d' ' -f1-3 /proc/loadavg); clock.mode $CLOCK; $REPS runs each, interleaved; medians"
echo
echo "| algorithm | nodes | hypemu s | bare s | ratio | hypemu RSS MiB | bare RSS MiB | extra per node | kernel share (hypemu / bare) |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"

med() { # med FILE COLUMN: the median of a column
    sort -g -k"$2","$2" "$1" | awk -v c="$2" '{ v[NR] = $c } END {
        if (NR == 0) { print "-"; exit }
        if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

one() { # one ALGO D
    n=$((1 << $2))
    if ! why=$("$B" room "$n" 2>&1); then
        echo "| $1 | Q_$2 ($n) | skipped: $why |||||||"
        return
    fi
    : >"$TMP/run"
    : >"$TMP/bare"
    : >"$TMP/ratio"
    r=1
    while [ "$r" -le "$REPS" ]; do
        if [ $((r % 2)) = 1 ]; then
            b=$("$B" bare "$n") && h=$("$B" run "$1" "$2" "$CLOCK")
        else
            h=$("$B" run "$1" "$2" "$CLOCK") && b=$("$B" bare "$n")
        fi || {
            echo "| $1 | Q_$2 ($n) | failed (see above) |||||||"
            return
        }
        echo "$h" >>"$TMP/run"
        echo "$b" >>"$TMP/bare"
        echo "$h $b" | awk '{ print $1 / $4 }' >>"$TMP/ratio"
        r=$((r + 1))
    done
    hs=$(med "$TMP/run" 1) bs=$(med "$TMP/bare" 1) ratio=$(med "$TMP/ratio" 1)
    hr=$(med "$TMP/run" 2) br=$(med "$TMP/bare" 2)
    hk=$(med "$TMP/run" 3) bk=$(med "$TMP/bare" 3)
    echo "$1 $2 $n $hs $bs $ratio $hr $br $hk $bk" | awk '{
        printf "| %s | Q_%d (%d) | %.2f | %.2f | %.2fx | %.0f | %.0f | %.0f B | %.0f%% / %.0f%% |\n",
            $1, $2, $3, $4, $5, $6, $7 / 1024, $8 / 1024, ($7 - $8) * 1024 / $3, $9 * 100, $10 * 100 }'
}

for d in $SBT_DIMS; do
    one sbt-broadcast "$d"
done
for d in $SUCC_DIMS; do
    one successive-broadcast "$d"
done
