#!/bin/sh
# SPDX-License-Identifier: MIT
# check_local.sh — clock.mode "local" (doc/clocks.md "Local clock") against the barrier clock:
# every shipped config (but the free-running ones), those under circuit routing
# (Seidel's ST, BST, RH on linear arrays and meshes) included, run with --set
# clock.mode=local gives the summary of its slotted run (wall_seconds aside), the same
# exit code and a byte-identical event log. Then harder cases than the shipped ones:
# Q_6 and Q_8, where nodes far apart run in different slots, under strict and queue
# contention with one-packet mailboxes (stalls, delays, strict conflicts found while
# other nodes are ahead), the one-port-full collectives, the bus with collisions, a
# deadlock, clock.max_slots, Ctrl-C; under circuit routing every Q_4 collective that
# allows it, RH's link contention (strict: a conflict, queue: delays), and
# clock.max_slots in the middle of long circuits.
set -eu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin="$HM_BUILDDIR/hypemu"
cfgs="$HM_SRCDIR/configs"
fail=0
n=0
nc=0
same() { # same NAME CONFIG [--set ...]: slotted and local runs agree
    name=$1
    cfg=$2
    shift 2
    rs=0
    rl=0
    "$bin" --json --set output=null --set output.events="$tmp/s.jsonl" "$@" "$cfg" \
        >"$tmp/s.json" 2>"$tmp/s.err" || rs=$?
    "$bin" --json --set output=null --set output.events="$tmp/l.jsonl" --set clock.mode=local \
        "$@" "$cfg" >"$tmp/l.json" 2>"$tmp/l.err" || rl=$?
    if [ "$rs" != "$rl" ]; then
        echo "FAIL $name: exit $rs slotted, $rl local"
        fail=1
    elif ! cmp -s "$tmp/s.jsonl" "$tmp/l.jsonl"; then
        echo "FAIL $name: the event logs differ"
        fail=1
    elif ! python3 - "$tmp/s.json" "$tmp/l.json" <<'PY'; then
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
for x in (a, b):
    x.pop("wall_seconds")
if a != b:
    sys.exit("summaries differ:\n %s\n %s" % (a, b))
PY
        echo "FAIL $name: the summaries differ"
        fail=1
    fi
    n=$((n + 1))
}
ends() { # ends CAUSE: the last local run ended with this cause
    python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1])).get("end") != sys.argv[2])' \
        "$tmp/l.json" "$1" || { echo "FAIL: the last run did not end with $1" && fail=1; }
}
for cfg in "$cfgs"/*.json; do
    if grep -q '"free"' "$cfg"; then
        continue
    fi
    if grep -q '"circuit"' "$cfg"; then
        nc=$((nc + 1))
    fi
    same "$(basename "$cfg")" "$cfg"
done
[ "$n" -ge 35 ] || { echo "FAIL: only $n shipped configs compared"; exit 1; }
[ "$nc" -ge 10 ] || { echo "FAIL: only $nc shipped circuit configs compared"; exit 1; }
# Circuit routing: the Q_4 configs whose algorithm allows it.
for cfg in "$cfgs"/q4_*.json; do
    if "$bin" --validate --set ports.routing=circuit "$cfg" >/dev/null 2>&1; then
        same "$(basename "$cfg") circuit" "$cfg" --set ports.routing=circuit
    fi
done
r="$cfgs/linear_rh.json"
same "rh linear 16 strict (link contention)" "$r" --set contention=strict
ends conflict
same "rh linear 32 queue (link contention)" "$r" --set topology.nodes=32
same "rh mesh 8x8 queue" "$cfgs/mesh_rh.json" --set topology.rows=8 --set topology.cols=8
same "rh linear 16 max_slots" "$r" --set clock.max_slots=500
ends max_slots
q="$cfgs/q4_successive.json"
for v in rotated interleaved sequential; do
    for c in strict queue; do
        same "successive $v $c Q_6" "$q" --set topology.dim=6 --set algorithm.variant=$v \
            --set contention=$c --set mailbox.capacity=1
    done
done
same "successive interleaved strict Q_8" "$q" --set topology.dim=8 \
    --set algorithm.variant=interleaved
ends conflict
same "successive interleaved queue Q_8" "$q" --set topology.dim=8 \
    --set algorithm.variant=interleaved --set contention=queue
for m in one-port-full one-port-half shout; do
    same "sbt $m queue Q_6" "$cfgs/q4_sbt_broadcast.json" --set topology.dim=6 \
        --set ports.model=$m --set contention=queue --set mailbox.capacity=1
done
same "simultaneous randomized queue Q_7" "$cfgs/q4_simultaneous_randomized.json" \
    --set topology.dim=7 --set contention=queue --set mailbox.capacity=1
same "alltoall queue Q_6" "$cfgs/q4_alltoall_dimension_exchange.json" --set topology.dim=6 \
    --set contention=queue --set mailbox.capacity=1
for a in allreduce-ring alltoall-pairwise; do
    same "$a one-port-full queue Q_6" "$cfgs/q4_broadcast_binomial.json" \
        --set "algorithm={\"name\":\"$a\"}" --set ports.model=one-port-full \
        --set topology.dim=6 --set contention=queue --set mailbox.capacity=2
done
same "bus max, everyone at once, strict" "$cfgs/bus_max.json" --set algorithm.schedule=none
ends conflict
same "bus max, everyone at once, queue" "$cfgs/bus_max.json" --set algorithm.schedule=none \
    --set contention=queue
same "esbt literal Q_6 (deadlock)" "$cfgs/q4_multinode_esbt.json" --set topology.dim=6 \
    --set algorithm.construction=literal
ends deadlock
same "successive Q_6 max_slots" "$q" --set topology.dim=6 --set clock.max_slots=40
ends max_slots
# Ctrl-C stops a local run at once: exit 130, "end": "interrupted", and an event log
# whose every line parses. The signal is sent once the process catches SIGINT (its
# SigCgt in /proc: bit 1), however long a loaded host takes to start it, then after
# 0.5 s of the run; a fixed delay could kill a process still starting.
"$bin" --json --set output=null --set clock.mode=local --set output.events="$tmp/i.jsonl" \
    --set topology.dim=10 "$q" >"$tmp/i.json" 2>"$tmp/i.err" &
pid=$!
i=0
while [ $i -lt 1200 ] && [ -r "/proc/$pid/status" ] &&
    ! awk '/^SigCgt:/ { exit !(index("2367abefABEF", substr($2, 16, 1)) > 0) }' \
        "/proc/$pid/status" 2>/dev/null; do
    sleep 0.05
    i=$((i + 1))
done
[ -r "/proc/$pid/status" ] || sleep 2 # no /proc: the fixed delay
sleep 0.5
kill -s INT "$pid" 2>/dev/null || true
rc=0
wait "$pid" || rc=$?
if [ "$rc" != 130 ]; then
    echo "FAIL: Ctrl-C: exit $rc, not 130"
    fail=1
fi
python3 - "$tmp/i.json" "$tmp/i.jsonl" <<'PY' || fail=1
import json, sys
s = json.load(open(sys.argv[1]))
if s.get("end") != "interrupted" or s.get("exit_code") != 130:
    sys.exit("FAIL: Ctrl-C: end %s, exit_code %s" % (s.get("end"), s.get("exit_code")))
for line in open(sys.argv[2]):
    json.loads(line)
PY
exit $fail
