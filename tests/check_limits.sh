#!/bin/sh
# SPDX-License-Identifier: MIT
# check_limits.sh — the thread limits of README "Many nodes" that a user sets with ulimit:
# under ulimit -v (RLIMIT_AS) and ulimit -d (RLIMIT_DATA), a Q_12 run (4,096 node threads
# of 64 KiB stacks, about 272 MB of stacks) cannot create all its threads: it exits 4
# naming that limit and its value (not kernel.pid_max or threads-max, whose room is
# larger), and --validate of the same config warns, naming it, and stays valid (exit 0).
# The figures that change with the host (the node reached, what the process maps, the
# room) are matched as numbers; the rest of each line is exact. Skipped under the
# sanitizers, whose shadow memory needs an unlimited address space.
set -u
case "${HM_CFLAGS:-}" in
*-fsanitize=*)
    echo "SKIP: sanitizer build: its shadow memory needs an unlimited address space"
    exit 77
    ;;
esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin="$HM_BUILDDIR/hypemu"
cfg="$HM_SRCDIR/configs/q4_successive.json"
none="--set output.timeline=null --set output.trace=null --set output.events=null"
fails=0
fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}
n='[0-9][0-9]*'
# limited OPTION VALUE NAME USED FIX: a run and --validate of Q_12 under ulimit OPTION VALUE
limited() {
    opt=$1 value=$2 name=$3 used=$4 fix=$5
    why="the host limit reached is $name = $value ($used, $n kB a thread, room for about $n more threads; raise it: $fix, see README \"Many nodes\")"
    rc=0
    # shellcheck disable=SC2086 # a list of options
    (ulimit "$opt" "$value" && exec "$bin" $none --set topology.dim=12 "$cfg") \
        >"$tmp/out" 2>"$tmp/err" || rc=$?
    [ "$rc" = 4 ] || fail "ulimit $opt $value: exit $rc, expected 4: $(cat "$tmp/err")"
    grep -qx "hypemu: cannot create the thread of node $n of 4096: Resource temporarily unavailable; $why" \
        "$tmp/err" || fail "ulimit $opt $value: said '$(cat "$tmp/err")'"
    rc=0
    (ulimit "$opt" "$value" && exec "$bin" --validate --set topology.dim=12 "$cfg") \
        >"$tmp/out" 2>"$tmp/err" || rc=$?
    [ "$rc" = 0 ] || fail "ulimit $opt $value, --validate: exit $rc: $(cat "$tmp/err")"
    grep -qx "hypemu: $cfg: warning: the run needs 4096 threads (one per node), more than the host allows now: $why" \
        "$tmp/err" || fail "ulimit $opt $value, --validate: said '$(cat "$tmp/err")'"
    [ "$(cat "$tmp/out")" = "$cfg: valid (successive-broadcast on hypercube, 4096 nodes, shout ports)" ] ||
        fail "ulimit $opt $value, --validate: printed '$(cat "$tmp/out")'"
}
limited -v 200000 "RLIMIT_AS (ulimit -v, kB)" "this process maps $n kB" "ulimit -v unlimited"
limited -d 150000 "RLIMIT_DATA (ulimit -d, kB)" "this process has $n kB of data" "ulimit -d unlimited"
if [ "$fails" -gt 0 ]; then
    echo "check_limits.sh: $fails failure(s)"
    exit 1
fi
echo "check_limits.sh: ulimit -v and ulimit -d named by a Q_12 run (exit 4) and by --validate: ok"
