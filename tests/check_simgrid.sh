#!/bin/sh
# SPDX-License-Identifier: MIT
# check_simgrid.sh — bench/bench_simgrid (doc/performance.md, make bench-simgrid)
# simulates the very pattern hypemu runs: on Q_4, 16 simultaneous same-order SBT
# broadcasts take 8 slots in both and move 16 * 15 = 240 messages in both (hypemu's
# "transmissions"), exactly. Skipped (77) when configure found no SimGrid.
set -u
if [ "${HM_HAVE_SIMGRID:-no}" != yes ]; then
    echo "SKIP: bench/bench_simgrid not built (configure found no SimGrid)"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/q4.json" <<JSON
{"topology": {"kind": "hypercube", "dim": 4},
 "ports": {"model": "all-port", "link_capacity": 1}, "contention": "strict",
 "algorithm": {"name": "simultaneous-broadcast", "variant": "same-order", "k": 16},
 "seed": 1}
JSON
"$HM_BUILDDIR/hypemu" --json "$tmp/q4.json" >"$tmp/h.json" || {
    echo "FAIL: hypemu exited $? on the Q_4 pattern"
    exit 1
}
"$HM_BUILDDIR/bench/bench_simgrid" 4 >"$tmp/s.txt" 2>"$tmp/s.err" || {
    echo "FAIL: bench_simgrid exited $?:"
    cat "$tmp/s.err"
    exit 1
}
hslots=$(tr -d ' \n' <"$tmp/h.json" | sed -n 's/.*"completion_slots":\([0-9]*\).*/\1/p')
hmsgs=$(tr -d ' \n' <"$tmp/h.json" | sed -n 's/.*"transmissions":\([0-9]*\).*/\1/p')
sline=$(cat "$tmp/s.txt")
case "$sline" in
"d 4 nodes 16 slots 8 messages 240 simulated "*) ;;
*)
    echo "FAIL: bench_simgrid 4 printed '$sline'; expected d 4 nodes 16 slots 8 messages 240"
    exit 1
    ;;
esac
if [ "$hslots" != 8 ] || [ "$hmsgs" != 240 ]; then
    echo "FAIL: hypemu: $hslots slots, $hmsgs transmissions; expected 8 and 240 (as SimGrid)"
    exit 1
fi
# The floor column of make bench-simgrid: 16 threads, 8 bare barrier rounds; bad
# arguments are refused with the usage line and exit 2.
"$HM_BUILDDIR/bench/bench_clock" --barrier 16 8 || {
    echo "FAIL: bench_clock --barrier 16 8 exited $?"
    exit 1
}
"$HM_BUILDDIR/bench/bench_clock" --barrier 16 2 2>"$tmp/b.err"
rc=$?
if [ "$rc" != 2 ] || [ "$(cat "$tmp/b.err")" != "bench_clock --barrier N ROUNDS: N in 1..65536, ROUNDS >= 3" ]; then
    echo "FAIL: bench_clock --barrier 16 2: exit $rc, '$(cat "$tmp/b.err")'"
    exit 1
fi
echo "PASS: Q_4, 16 same-order broadcasts: 8 slots and 240 messages in hypemu and in SimGrid; the barrier floor runs"
