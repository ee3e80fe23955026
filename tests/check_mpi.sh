#!/bin/sh
# SPDX-License-Identifier: MIT
# check_mpi.sh — hypemu-mpi across MPI ranks gives what one process gives (doc/mpi.md):
#   - every golden config (tests/golden/), circuit routing on meshes and lines included,
#     on 1, 2, 4 and 8 ranks (as many as it has nodes): the same exit code, the same
#     summary (wall_seconds and ranks aside) and the same event log, trace, text
#     timeline and player page (output.html), byte for byte, as ./hypemu; circuit
#     routing on a hypercube on 4 ranks likewise;
#   - the refusals on more than one rank, each with exit 2, no summary and its whole
#     message (what, why, what is allowed): the free-running clock, --repeat, more
#     ranks than nodes;
#   - ranks that do not run the same config (another clock.max_slots, topology.dim,
#     seed, port model, contention, clock mode, plugin file, a config refused on one
#     rank): exit 2 before the run, one line naming the first difference;
#   - a strict conflict (exit 1), a deadlock (exit 3, report naming the blocked nodes)
#     and clock.max_slots (exit 3) on 2 ranks: the same message, exit code and event log;
#   - a node that spins (clock.slot_timeout: exit 3) or calls exit() (exit 5) on one
#     rank: every rank ends, with that rank's line naming the node;
#   - SIGINT to both ranks of a run on 2 ranks: exit 130, rank 0's interrupted line and
#     summary, the outputs of the slots done as ./hypemu writes them;
#   - Q_10 successive broadcast on 4 ranks verifies in 2p + log2(p) - 2 = 2056 slots;
#   - Q_12 (4,096 node threads) on 4 ranks: bcast-msbt of 12 values verifies in
#     ceil(12 / 12) + 12 = 13 slots with block (p - 1) = 49,140 transmissions, and its
#     summary, messages and event log are those of ./hypemu, byte for byte (Q_8
#     under the sanitizers).
# Skipped (77) when hypemu-mpi was not built, when mpirun is missing, and under
# AddressSanitizer; a smaller set under the other sanitizers (below).
set -u
if [ "${HM_HAVE_MPI:-no}" != yes ]; then
    echo "SKIP: hypemu-mpi not built (configure found no MPI)"
    exit 77
fi
if [ -z "${MPIRUN:-}" ] || ! [ -x "$MPIRUN" ]; then
    echo "SKIP: no mpirun (MPIRUN='${MPIRUN:-}')"
    exit 77
fi
# Sanitizer builds: ThreadSanitizer and UBSan find nothing in hypemu-mpi and Open MPI
# (doc/mpi.md) but slow every launch down, so they run a smaller set: five golden
# configs and Q_8. AddressSanitizer's leak check reports Open MPI's own allocations
# at MPI_Finalize (about 27 leaks in libmpi and its components, none in hypemu).
quick=0
case "${HM_CFLAGS:-}" in
*-fsanitize=address*)
    echo "SKIP: AddressSanitizer build: LeakSanitizer reports Open MPI's own allocations at MPI_Finalize (doc/mpi.md)"
    exit 77
    ;;
*-fsanitize=*)
    quick=1
    ;;
esac

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
one="$HM_BUILDDIR/hypemu"
mpi="$HM_BUILDDIR/hypemu-mpi"
# One machine, no network: shared memory between the ranks, no remote launcher; more
# ranks than cores, with the ranks yielding the CPU while they wait.
OMPI_MCA_btl=self,vader
OMPI_MCA_plm=isolated
OMPI_MCA_mpi_yield_when_idle=1
OMPI_MCA_rmaps_base_oversubscribe=1
# No cross-memory attach (containers often forbid ptrace between processes).
OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_btl OMPI_MCA_plm OMPI_MCA_mpi_yield_when_idle OMPI_MCA_rmaps_base_oversubscribe \
    OMPI_MCA_btl_vader_single_copy_mechanism
fails=0
fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}

# A hang fails the test (timeout exits 124) instead of stopping make check.
# run DIR RANKS CONFIG [--set ...]: in DIR, the summary (without wall_seconds and
# ranks) in summary.json, hypemu's messages in err.txt, the exit code in rc, the
# outputs in events.jsonl, trace.json and timeline.txt (or those named in $outs).
# RANKS 0 is ./hypemu.
outs0="--set output.events=events.jsonl --set output.trace=trace.json --set output.timeline=timeline.txt"
outs=$outs0
run() {
    dir=$1 ranks=$2 cfg=$3
    shift 3
    mkdir -p "$dir"
    if [ "$ranks" = 0 ]; then
        set -- "$one" "$@"
    else
        # Each launch its own session directory: launches at once race to create
        # the shared one (orte_init: "mkdir ... File exists").
        session=$(mktemp -d "$tmp/oXXXXXX")
        set -- env OMPI_MCA_orte_tmpdir_base="$session" \
            timeout 300 "$MPIRUN" --allow-run-as-root --oversubscribe -np "$ranks" "$mpi" "$@"
    fi
    rc=0
    # shellcheck disable=SC2086 # $outs is a list of options
    (cd "$dir" && "$@" --json $outs "$cfg" >out.json 2>err.all) || rc=$?
    echo "$rc" >"$dir/rc"
    # Open MPI's own report of a non-zero exit starts with a line of dashes.
    sed '/^-----/,$d' "$dir/err.all" >"$dir/err.txt"
    sed -E 's/"wall_seconds":[^,}]*,?//; s/,?"ranks":[0-9]+//' "$dir/out.json" >"$dir/summary.json"
}

# same NAME DIR1 DIR2: the same exit code, summary, messages and outputs.
same() {
    if ! cmp -s "$2/rc" "$3/rc"; then
        fail "$1: exit $(cat "$3/rc"), expected $(cat "$2/rc"); its standard error:"
        cat "$3/err.all"
        return
    fi
    for f in summary.json err.txt events.jsonl trace.json timeline.txt page.html; do
        if [ -e "$2/$f" ] || [ -e "$3/$f" ]; then
            cmp -s "$2/$f" "$3/$f" || fail "$1: $f differs ($2/$f, $3/$f)"
        fi
    done
}

# compare NAME: the runs of golden config NAME on 1, 2, 4 and 8 ranks against ./hypemu's
# (8 ranks where the machine has 8 nodes or more).
compare() {
    name=$1
    [ -s "$tmp/$name/0/events.jsonl" ] || fail "$name: ./hypemu wrote no event log"
    [ -s "$tmp/$name/0/page.html" ] || fail "$name: ./hypemu wrote no player page"
    for r in $ranks_list; do
        [ -e "$tmp/$name/$r/rc" ] || continue
        grep -q "\"ranks\":$r}" "$tmp/$name/$r/out.json" || fail "$name on $r ranks: no \"ranks\": $r"
        same "$name on $r ranks" "$tmp/$name/0" "$tmp/$name/$r"
        [ "$r" != 8 ] || on8=$((on8 + 1))
    done
    configs=$((configs + 1))
}

# The launches mostly wait (MPI_Init, the ranks' start): two configs at a time, each
# in one process and on 1, 2, 4 and 8 ranks at once (the sanitizer builds: 2 and 4).
configs=0 on8=0
ranks_list="1 2 4 8"
[ "$quick" = 0 ] || ranks_list="2 4"
batch=""
outs="$outs0 --set output.html=page.html"
goldens="$HM_SRCDIR"/tests/golden/*.json
if [ "$quick" = 1 ]; then
    goldens=""
    for n in q4_successive q4_successive_interleaved_queue bus_max q4_gather_linear mesh_st; do
        goldens="$goldens $HM_SRCDIR/tests/golden/$n.json"
    done
fi
for g in $goldens; do
    name=$(basename "$g" .json)
    cfg="$HM_SRCDIR/configs/$name.json"
    run "$tmp/$name/0" 0 "$cfg"
    nodes=$(sed -n 's/.*"nodes":\([0-9]*\).*/\1/p' "$tmp/$name/0/out.json")
    for r in $ranks_list; do
        [ "$r" -le "${nodes:-0}" ] || continue
        run "$tmp/$name/$r" "$r" "$cfg" &
    done
    batch="$batch $name"
    if [ "$(echo $batch | wc -w)" -ge 2 ]; then
        wait
        for b in $batch; do compare "$b"; done
        batch=""
    fi
done
wait
for b in $batch; do compare "$b"; done
outs=$outs0
# 53 golden configs, 47 of them with 8 nodes or more.
[ "$configs" -ge 53 ] || [ "$quick" = 1 ] || fail "only $configs golden configs compared"
[ "$on8" -ge 47 ] || [ "$quick" = 1 ] || fail "only $on8 golden configs compared on 8 ranks"

# Refusals: exit 2, nothing on standard output, exactly this one line on standard error.
# refused NAME RANKS CONFIG [option ...], then refusal_checked NAME LINE
refused() {
    name=$1 ranks=$2 cfg=$3
    shift 3
    run "$tmp/refused/$name" "$ranks" "$cfg" "$@"
}
refusal_checked() { # refusal_checked NAME LINE
    d="$tmp/refused/$1"
    [ "$(cat "$d/rc")" = 2 ] || fail "$1: exit $(cat "$d/rc"), expected 2: $(cat "$d/err.all")"
    [ ! -s "$d/out.json" ] || fail "$1: a summary on standard output: $(cat "$d/out.json")"
    [ "$(cat "$d/err.txt")" = "$2" ] || fail "$1: says '$(cat "$d/err.txt")', expected '$2'"
}
sbt="$HM_SRCDIR/configs/q4_sbt_broadcast.json"
ring5="$HM_SRCDIR/configs/ring5_alltoall_bruck.json"
q4="$HM_SRCDIR/configs/q4_successive.json"
allowed='allowed on more than one rank: clock.mode "slotted" or "local"; run this config on one rank (mpirun -np 1, or hypemu)'
why_free='the free-running clock has no slots, and the ranks exchange their packets at the end of each slot'
# Circuit routing on a hypercube (the meshes' and lines' are golden configs above).
run "$tmp/circuit_cube/0" 0 "$sbt" --set ports.routing=circuit &
run "$tmp/circuit_cube/4" 4 "$sbt" --set ports.routing=circuit &
refused free 2 "$sbt" --set clock.mode=free &
wait
refused repeat 2 "$q4" --repeat 2 &
refused ranks 6 "$ring5" &
refused sandbox 2 "$q4" --sandbox &
wait
same "circuit routing on Q_4, 4 ranks" "$tmp/circuit_cube/0" "$tmp/circuit_cube/4"
refusal_checked free "hypemu-mpi: $sbt: clock.mode \"free\" cannot run across ranks (found 2): $why_free; $allowed"
refusal_checked repeat "hypemu-mpi: --repeat runs on one rank only; found 2 ranks (repeat with mpirun -np 1, or with hypemu)"
refusal_checked ranks "hypemu-mpi: $ring5: 6 ranks for 5 nodes; allowed: at most one rank per node"
refusal_checked sandbox "hypemu-mpi: --sandbox: node processes run under hypemu only; run the plugin with hypemu --sandbox, on one host (doc/mpi.md)"

# Every rank runs the same config (doc/mpi.md): rank 1 with another clock.max_slots,
# topology, seed, port model, contention policy or clock mode, another plugin file, or a
# config it refuses: exit 2 on every rank before anything runs, and rank 0's one line
# naming the first difference. A default and the same value written out agree.
# mpmd NAME ARGS0 ARGS1: rank 0 runs hypemu-mpi ARGS0, rank 1 hypemu-mpi ARGS1 (mpirun's
# MPMD form), in $tmp/refused/NAME, as run() does.
mpmd() {
    d="$tmp/refused/$1"
    mkdir -p "$d"
    session=$(mktemp -d "$tmp/oXXXXXX")
    rc=0
    # shellcheck disable=SC2086 # lists of options
    (cd "$d" && env OMPI_MCA_orte_tmpdir_base="$session" timeout 300 "$MPIRUN" \
        --allow-run-as-root --oversubscribe -np 1 "$mpi" --json $outs $2 : \
        -np 1 "$mpi" --json $outs $3 >out.json 2>err.all) || rc=$?
    echo "$rc" >"$d/rc"
    sed '/^-----/,$d' "$d/err.all" >"$d/err.txt"
}
${CC:-cc} -shared -fPIC -I"$HM_SRCDIR/include" -I"$HM_BUILDDIR/include" -o "$tmp/idle.so" "$HM_SRCDIR/tests/sdk/idle.c" ||
    fail "cannot build tests/sdk/idle.c"
cp "$tmp/idle.so" "$tmp/idle2.so"
printf 'x' >>"$tmp/idle2.so" # the same plugin, one byte more
mpmd slots "$q4" "--set clock.max_slots=1000 $q4" &
mpmd dim "$q4" "--set topology.dim=5 $q4" &
mpmd seed "$q4" "--set seed=7 $q4" &
wait
mpmd model "$q4" "--set ports.model=all-port $q4" &
mpmd contention "$q4" "--set contention=queue $q4" &
mpmd mode "$q4" "--set clock.mode=local $q4" &
wait
mpmd plugin "--plugin $tmp/idle.so $q4" "--plugin $tmp/idle2.so $q4" &
mpmd invalid "$q4" "--set topology.dim=99 $q4" &
mpmd same "$q4" "--set output.max_bytes=1073741824 --set clock.max_slots=1000000 $q4" &
wait
at="hypemu-mpi: rank 1's config differs from rank 0's at"
refusal_checked slots "$at clock.max_slots (1000 against 1000000)"
refusal_checked dim "$at topology.dim (5 against 4)"
refusal_checked seed "$at seed (7 against 1)"
refusal_checked model "$at ports.model (\"all-port\" against \"shout\")"
refusal_checked contention "$at contention (\"queue\" against \"strict\")"
refusal_checked mode "$at clock.mode (\"local\" against \"slotted\")"
fnv() { # fnv FILE: the 64-bit FNV-1a digest of its bytes, 16 hex digits
    python3 -c 'import sys
h = 0xcbf29ce484222325
for b in open(sys.argv[1], "rb").read():
    h = ((h ^ b) * 0x100000001b3) % (1 << 64)
print("%016x" % h)' "$1"
}
refusal_checked plugin "hypemu-mpi: rank 1's plugin 1 differs from rank 0's ($tmp/idle.so): the FNV-1a digest of its bytes is $(fnv "$tmp/idle2.so") against $(fnv "$tmp/idle.so")"
refusal_checked invalid "hypemu-mpi: rank 1 stops before the run with exit 2, rank 0 does not: $q4: topology.dim: found 99; allowed: an integer from 0 to 24"
[ "$(cat "$tmp/refused/same/rc")" = 0 ] && grep -q '"verified":true' "$tmp/refused/same/out.json" ||
    fail "a default and the same value written out: exit $(cat "$tmp/refused/same/rc"): $(cat "$tmp/refused/same/err.all")"

# Runs that stop: the same report and exit code on every rank count.
esbt="$HM_SRCDIR/configs/q4_multinode_esbt.json"
stops() { # stops NAME EXIT FIRST-LINE CONFIG [--set ...]
    name=$1 want=$2 line=$3 cfg=$4
    shift 4
    run "$tmp/$name/1" 0 "$cfg" "$@"
    run "$tmp/$name/2" 2 "$cfg" "$@"
    [ "$(cat "$tmp/$name/1/rc")" = "$want" ] || fail "$name: ./hypemu exit $(cat "$tmp/$name/1/rc"), expected $want"
    [ "$(head -n 1 "$tmp/$name/1/err.txt")" = "$line" ] ||
        fail "$name: ./hypemu says $(head -n 1 "$tmp/$name/1/err.txt")"
    same "$name on 2 ranks" "$tmp/$name/1" "$tmp/$name/2"
}
stops conflict 1 "hypemu: slot 4: node 7 cannot emit and receive in one slot under shout: emits msg 2 on link 7->6 (port 0), receives msg 3 on link 3->7 (port 2)" \
    "$q4" --set algorithm.variant=interleaved
stops deadlock 3 "hypemu: deadlock at slot 10: every node is blocked and nothing is in flight" \
    "$esbt" --set algorithm.construction=literal --set topology.dim=6
grep -q '^  ... and 44 more blocked nodes$' "$tmp/deadlock/2/err.txt" ||
    fail "deadlock on 2 ranks: the report does not count the 64 blocked nodes"
stops max_slots 3 "hypemu: clock.max_slots = 20 reached: the next slot with work is 20, with 16 of 16 nodes still running" \
    "$q4" --set clock.max_slots=20

# Ctrl-C: SIGINT to both ranks of a Q_11 successive broadcast on 2 ranks (4,105 slots,
# 10 s and more on the 2-core VM; Q_9 under the sanitizers), once every rank has
# started all its node threads (so its handler is installed; README "Exit codes"):
# every rank stops at the end of the same slot K - 1 and mpirun exits 130; rank 0
# alone prints, once, the line ./hypemu prints on SIGINT and the summary with "end":
# "interrupted"; the outputs are those of ./hypemu stopped by clock.max_slots = K
# (the same slots done), byte for byte, and no temporary file is left.
ranks_in() { # ranks_in DIR: the pids of the hypemu-mpi processes running in DIR
    for p in /proc/[0-9]*; do
        c=""
        { read -r c <"$p/comm"; } 2>/dev/null # no process started per pid: quick under load
        [ "$c" = hypemu-mpi ] && [ "$(readlink "$p/cwd" 2>/dev/null)" = "$1" ] && echo "${p#/proc/}"
    done
}
threads_at_least() { # threads_at_least N PID...: every PID has N threads or more
    n=$1
    shift
    for p in "$@"; do
        set -- "/proc/$p/task"/*
        [ "$#" -ge "$n" ] || return 1
    done
}
idim=11
[ "$quick" = 0 ] || idim=9
run "$tmp/int/2" 2 "$q4" --set topology.dim=$idim &
launch=$!
ranks="" started=0
while kill -0 "$launch" 2>/dev/null; do
    ranks=$(ranks_in "$tmp/int/2")
    # shellcheck disable=SC2086 # a list of pids
    if [ "$(echo $ranks | wc -w)" = 2 ] && threads_at_least $((1 << (idim - 1))) $ranks; then
        started=1
        break
    fi
    sleep 0.1
done
# shellcheck disable=SC2086 # a list of pids
[ "$started" = 1 ] && kill -s INT $ranks
wait "$launch"
[ "$started" = 1 ] || fail "interrupt: the run ended before its ranks had started: $(cat "$tmp/int/2/err.all")"
[ "$(cat "$tmp/int/2/rc")" = 130 ] || fail "interrupt on 2 ranks: exit $(cat "$tmp/int/2/rc"), expected 130: $(cat "$tmp/int/2/err.all")"
k=$(sed -n 's/.*"slots_run":\([0-9]*\),.*/\1/p' "$tmp/int/2/out.json")
want="hypemu: interrupted at the end of slot $((${k:-1} - 1)), with $((1 << idim)) of $((1 << idim)) nodes still running"
[ "$(cat "$tmp/int/2/err.txt")" = "$want" ] ||
    fail "interrupt on 2 ranks: says '$(cat "$tmp/int/2/err.txt")', expected '$want'"
for key in '"exit_code":130,' '"end":"interrupted",' '"verified":false,' \
    "\"stopped\":\"${want#hypemu: }\"" '"ranks":2}'; do
    grep -qF "$key" "$tmp/int/2/out.json" || fail "interrupt on 2 ranks: no $key in $(cat "$tmp/int/2/out.json")"
done
if [ -n "$k" ] && [ "$k" -gt 0 ]; then
    run "$tmp/int/1" 0 "$q4" --set topology.dim=$idim --set clock.max_slots="$k"
    [ "$(cat "$tmp/int/1/rc")" = 3 ] || fail "interrupt: ./hypemu with clock.max_slots = $k: exit $(cat "$tmp/int/1/rc")"
    # The text timeline ends with the line "stopped: REASON".
    for d in 1 2; do
        grep -v '^stopped: ' "$tmp/int/$d/timeline.txt" >"$tmp/int/$d/timeline.cut"
    done
    grep -qxF "stopped: ${want#hypemu: }" "$tmp/int/2/timeline.txt" ||
        fail "interrupt on 2 ranks: the timeline does not say how the run stopped"
    for f in events.jsonl trace.json timeline.cut; do
        [ -s "$tmp/int/2/$f" ] || fail "interrupt on 2 ranks: no $f"
        cmp -s "$tmp/int/1/$f" "$tmp/int/2/$f" ||
            fail "interrupt on 2 ranks: $f differs from ./hypemu's stopped after $k slots"
    done
    # The summaries without how the run ended.
    for d in 1 2; do
        sed -E 's/"verification":"[^"]*",//; s/"exit_code":[0-9]+,//; s/"end":"[a-z_]*",//;
            s/"stopped":"[^"]*",?//' "$tmp/int/$d/summary.json" >"$tmp/int/$d/counts.json"
    done
    cmp -s "$tmp/int/1/counts.json" "$tmp/int/2/counts.json" ||
        fail "interrupt on 2 ranks: summary $(cat "$tmp/int/2/counts.json"), ./hypemu $(cat "$tmp/int/1/counts.json")"
fi
for f in "$tmp"/int/2/*.tmp-*; do
    [ ! -e "$f" ] || fail "interrupt on 2 ranks: a temporary file left: $f"
done

# A node that holds its slot open on one rank (tests/rules/: it spins, or ends the
# process): the other ranks would wait for that slot forever; the rank's watchdog ends
# every rank (MPI_Abort) with the stop's reason and exit code, 3 for clock.slot_timeout
# and 5 for exit() in a node, on rank 1 (4 ranks: node 2 is rank 1's) and on rank 0.
${CC:-cc} -shared -fPIC -pthread -I"$HM_SRCDIR/include" -I"$HM_BUILDDIR/include" -o "$tmp/rules.so" \
    "$HM_SRCDIR/tests/rules/rules.c" || fail "cannot build tests/rules/rules.c"
outs=""
for case in "spin 4 3 1 node 2 did not end slot 3 within clock.slot_timeout = 1 s" \
    "exit 2 5 0 node 3 called exit(0) in slot 2: a node program ends by returning from its node_main, not by ending the process"; do
    # shellcheck disable=SC2086 # the case's words
    set -- $case
    name=$1 np=$2 code=$3 rank=$4
    shift 4
    mkdir -p "$tmp/rules-$name"
    printf '{"plugins": ["%s"], "topology": {"kind": "hypercube", "dim": 3}, "algorithm": {"name": "rules-%s"}, "clock": {"slot_timeout": 1}}\n' \
        "$tmp/rules.so" "$name" >"$tmp/rules-$name/cfg.json"
    t0=$(date +%s)
    run "$tmp/rules-$name" "$np" cfg.json
    t=$(($(date +%s) - t0))
    [ "$(cat "$tmp/rules-$name/rc")" = "$code" ] ||
        fail "rules-$name on $np ranks: exit $(cat "$tmp/rules-$name/rc"), expected $code: $(cat "$tmp/rules-$name/err.all")"
    # The line among Open MPI's report of the abort.
    grep -qxF "hypemu-mpi: rank $rank: $*: stopping every rank" "$tmp/rules-$name/err.all" ||
        fail "rules-$name on $np ranks: says '$(cat "$tmp/rules-$name/err.all")'"
    [ "$t" -lt 60 ] || fail "rules-$name on $np ranks: took $t s"
done
outs=$outs0

# A larger cube on 4 ranks: Q_10 (1,024 threads; Q_12 takes minutes on 2 cores), in
# 2p + log2(p) - 2 slots; Q_8 in sanitizer builds.
dim=10 slots=2056
[ "$quick" = 0 ] || dim=8 slots=518
(cd "$tmp" && timeout 600 "$MPIRUN" --allow-run-as-root --oversubscribe -np 4 "$mpi" --json \
    --set topology.dim=$dim --set output.events=null --set output.trace=null \
    --set output.timeline=null "$q4" >big.json 2>big.err)
rc=$?
[ "$rc" = 0 ] || fail "Q_$dim on 4 ranks: exit $rc: $(cat "$tmp/big.err")"
grep -q "\"completion_slots\":$slots," "$tmp/big.json" || fail "Q_$dim on 4 ranks: $(cat "$tmp/big.json")"
grep -q '"verified":true' "$tmp/big.json" || fail "Q_$dim on 4 ranks: not verified"

# Q_12 on 4 ranks (1,024 node threads each): the multiple spanning binomial trees
# broadcast (Johnsson-Ho) of 12 values from node 10, all-port: the trees use every
# dimension, the two high ones across ranks; ceil(block / d) + d = 13 slots and
# block (p - 1) = 12 * 4095 = 49,140 transmissions. The same summary, messages and event
# log as ./hypemu. Sanitizer builds: Q_8 (ceil(12 / 8) + 8 = 10 slots, 12 * 255 = 3,060
# transmissions): under ThreadSanitizer on the 2-core VM, Q_8 on 4 ranks took 19 s, Q_10
# 235 s and Q_12 had not finished after 30 min (one process: 2.5 s, 5.9 s, 66 s).
msbt="$HM_SRCDIR/configs/q4_broadcast_msbt.json"
bd=12 bslots=13 btx=49140
[ "$quick" = 0 ] || bd=8 bslots=10 btx=3060
outs="--set output.events=events.jsonl --set output.trace=null --set output.timeline=null"
run "$tmp/msbt/1" 0 "$msbt" --set topology.dim=$bd &
run "$tmp/msbt/4" 4 "$msbt" --set topology.dim=$bd
wait
outs=$outs0
[ "$(cat "$tmp/msbt/4/rc")" = 0 ] || fail "Q_$bd msbt on 4 ranks: exit $(cat "$tmp/msbt/4/rc"): $(cat "$tmp/msbt/4/err.all")"
for want in "\"nodes\":$((1 << bd))," "\"completion_slots\":$bslots," "\"transmissions\":$btx," \
    '"verified":true' '"ranks":4}'; do
    grep -qF "$want" "$tmp/msbt/4/out.json" || fail "Q_$bd msbt on 4 ranks: no $want in $(cat "$tmp/msbt/4/out.json")"
done
[ "$(wc -l <"$tmp/msbt/1/events.jsonl")" -gt "$((2 * btx))" ] ||
    fail "Q_$bd msbt: the event log has fewer lines than sends and receives"
same "Q_$bd msbt on 4 ranks" "$tmp/msbt/1" "$tmp/msbt/4"

# MPI programs (doc/mpi-programs.md) across ranks: a rank's MPI_Allreduce on a 4 x 4 torus
# sends to nodes that are not its neighbours, which the engine routes hop by hop, across
# ranks too; under one-port-half with "queue" the hops conflict, and the two ends of a
# crossing link trade the port model's answers. The same summary, messages and event log
# as ./hypemu on 2 and 4 ranks. The program links libhypemu (hypemu-mpicc); hypemu-mpi
# exports the engine's hm_ functions itself, and the program's MPI_* are its own
# (-Bsymbolic), not Open MPI's.
HM_MPICC_INCLUDE=$HM_SRCDIR/include HM_MPICC_LIB=$HM_BUILDDIR/lib
HM_MPICC_SHIM=$HM_SRCDIR/src/mpiprog/plugin.c
LD_LIBRARY_PATH="$HM_BUILDDIR/lib/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export HM_MPICC_INCLUDE HM_MPICC_LIB HM_MPICC_SHIM LD_LIBRARY_PATH
# program NAME CONFIG RANKS...: examples/mpi/NAME.c built with hypemu-mpicc, then run with
# the config (JSON text) by ./hypemu in $tmp/NAME/0 and on each of RANKS in $tmp/NAME/R;
# 1 if it does not build.
program() {
    pname=$1 pcfg=$2
    shift 2
    # shellcheck disable=SC2086 # word splitting of the flags is intended
    psrc="$HM_SRCDIR/tests/mpiprog/$pname.c"
    [ -f "$psrc" ] || psrc="$HM_SRCDIR/examples/mpi/$pname.c"
    sh "$HM_SRCDIR/scripts/hypemu-mpicc.in" -o "$tmp/$pname.so" "$psrc" \
        -I"$HM_SRCDIR/examples/mpi" -I"$HM_BUILDDIR/include" -L"$HM_BUILDDIR/lib/.libs" ${HM_CFLAGS:-} ||
        return 1
    printf '%s\n' "$pcfg" >"$tmp/$pname.json"
    for r in 0 "$@"; do
        run "$tmp/$pname/$r" "$r" "$tmp/$pname.json" --plugin "$tmp/$pname.so" &
    done
    wait
}
if program allreduce_call '{"topology": {"kind": "torus", "rows": 4, "cols": 4}, "ports": {"model": "one-port-half"},
"algorithm": {"name": "allreduce_call", "problem": "allreduce", "block": 4}}' 2 4; then
    for want in '"verified":true' '"routed_hops":' '"delayed_packets":'; do
        grep -qF "$want" "$tmp/allreduce_call/0/out.json" || fail "allreduce_call on the torus: no $want in $(cat "$tmp/allreduce_call/0/out.json")"
    done
    grep -qF '"delayed_packets":0,' "$tmp/allreduce_call/0/out.json" && fail "allreduce_call on the torus: no conflict under one-port-half"
    for r in 2 4; do
        same "allreduce_call (routed, one-port-half) on $r ranks" "$tmp/allreduce_call/0" "$tmp/allreduce_call/$r"
    done
else
    fail "hypemu-mpicc cannot build examples/mpi/allreduce_call.c"
fi
# Recursive doubling on a ring of 8 (partners 4 hops away: routed), one-port-half, one
# packet per mailbox: routed copies stall behind full mailboxes on links that cross ranks
# (blocks of 3, 3 and 2 nodes on 3 ranks).
if program rd_allreduce '{"topology": {"kind": "ring", "nodes": 8}, "ports": {"model": "one-port-half"},
"mailbox": {"capacity": 1}, "algorithm": {"name": "rd_allreduce", "problem": "allreduce", "block": 4}}' 3 4; then
    for want in '"verified":true' '"stalls":4,' '"routed_hops":32,'; do
        grep -qF "$want" "$tmp/rd_allreduce/0/out.json" || fail "rd_allreduce on the ring: no $want in $(cat "$tmp/rd_allreduce/0/out.json")"
    done
    for r in 3 4; do
        same "rd_allreduce (routed, stalled) on $r ranks" "$tmp/rd_allreduce/0" "$tmp/rd_allreduce/$r"
    done
else
    fail "hypemu-mpicc cannot build examples/mpi/rd_allreduce.c"
fi

# Circuits across ranks (doc/mpi.md "Circuits across ranks"), with contention, from MPI
# programs under circuit routing, on 2 and 4 ranks as in one process, byte for byte:
# gather_any to node 0 of a 4 x 4 mesh meets port contention (queue: 14 messages wait;
# strict: the run stops in slot 0, exit 1); alltoall_nb on the mesh with link_capacity 1
# meets both (51 port and 106 link contentions); rd_allreduce on a line of 8 under strict
# stops at the first link contention (exit 1).
circuits() { # circuits PROGRAM CONTENTION TOPOLOGY ALGORITHM EXIT WANT
    if ! program "$1" "{$3, \"ports\": {\"routing\": \"circuit\", \"link_capacity\": 1}, \"contention\": \"$2\", $4}" 2 4; then
        fail "hypemu-mpicc cannot build $1"
        return
    fi
    d="$tmp/$1/0"
    [ "$(cat "$d/rc")" = "$5" ] || fail "circuits, $1 ($2): exit $(cat "$d/rc"), expected $5"
    grep -qF "$6" "$d/summary.json" "$d/err.txt" || fail "circuits, $1 ($2): no $6 in $(cat "$d/summary.json" "$d/err.txt")"
    for r in 2 4; do
        same "circuits, $1 ($2), on $r ranks" "$d" "$tmp/$1/$r"
    done
    rm -rf "${tmp:?}/$1"
}
mesh='"topology": {"kind": "mesh", "rows": 4, "cols": 4}'
gather='"algorithm": {"name": "gather_any", "problem": "gather", "block": 2, "root": 0}'
circuits gather_any queue "$mesh" "$gather" 0 '"port_contention":14,'
circuits gather_any strict "$mesh" "$gather" 1 \
    'slot 0: port contention: msg 3 2->0 waits, node 0 is receiving another message until slot 0'
circuits alltoall_nb queue "$mesh" '"algorithm": {"name": "alltoall_nb", "problem": "alltoall", "block": 2}' 0 \
    '"link_contention":106,"port_contention":51,'
circuits rd_allreduce strict '"topology": {"kind": "linear", "nodes": 8}' \
    '"algorithm": {"name": "rd_allreduce", "problem": "allreduce", "block": 2}' 1 \
    'slot 17: link contention: link 1->2 carries 2 circuits (link_capacity 1): msg 0 0->2 lasts 2*a*m+b = 33 slots'

# HM_MPI_STATS=1: one line per rank with its own figures, then the totals. The all-to-all
# of Q_8 by dimension exchange, all-port: each node sends one packet on each of its
# links, one dimension per slot, so rank 0 receives one copy per link that crosses into
# its block: (256 / R) * log2(R) of them, 128 on 2 ranks and 96 on 8, in 9 slot
# exchanges and no trading step (all-port needs none); its bytes fall with R.
a2a="$HM_SRCDIR/configs/q4_alltoall_dimension_exchange.json"
for r in 2 8; do
    (HM_MPI_STATS=1 && export HM_MPI_STATS && run "$tmp/stats/$r" "$r" "$a2a" --set topology.dim=8 --set output=null)
    lines="$tmp/stats/$r/lines"
    grep '^hypemu-mpi: ' "$tmp/stats/$r/err.txt" >"$lines"
    [ "$(wc -l <"$lines")" = $((r + 1)) ] || fail "HM_MPI_STATS on $r ranks: $(wc -l <"$lines") lines, expected $((r + 1)): $(cat "$lines")"
    k=0
    while [ "$k" -lt "$r" ]; do
        grep -q "^hypemu-mpi: rank $k: 9 slot exchanges, 0 trading steps, [0-9]* messages sent, [0-9]* bytes sent, [0-9]* messages received, [0-9]* bytes received, $((256 / r * (r == 2 ? 1 : 3))) copies from other ranks " "$lines" ||
            fail "HM_MPI_STATS on $r ranks: no line of rank $k as expected: $(cat "$lines")"
        k=$((k + 1))
    done
    sum=$(sed -n 's/^hypemu-mpi: rank [0-9]*: .* \([0-9]*\) bytes received.*/\1/p' "$lines" | awk '{ s += $1 } END { print s }')
    grep -q "^hypemu-mpi: all ranks: $r ranks: $((9 * r)) slot exchanges, .* $sum bytes sent, .* $sum bytes received, " "$lines" ||
        fail "HM_MPI_STATS on $r ranks: the totals are not the sums ($sum bytes): $(cat "$lines")"
done
b2=$(sed -n 's/^hypemu-mpi: rank 0: .* \([0-9]*\) bytes received.*/\1/p' "$tmp/stats/2/lines")
b8=$(sed -n 's/^hypemu-mpi: rank 0: .* \([0-9]*\) bytes received.*/\1/p' "$tmp/stats/8/lines")
[ "${b8:-0}" -gt 0 ] && [ "$b8" -lt "${b2:-0}" ] || fail "HM_MPI_STATS: rank 0 received $b8 bytes on 8 ranks, $b2 on 2"

# The wire's size (doc/mpi.md "What crossing ranks costs"): the successive broadcasts on
# Q_8 (shout), rank 0's line on 2 and 8 ranks, to the byte. Their copies are heavier on
# the low dimensions, so rank 0 gets 576 copies from other ranks on 2 ranks and 722 on 8,
# and the bytes follow them (about 28 a copy: the copy, its read, two sides). Not under
# the sanitizers (a long run on 8 ranks).
if [ "$quick" = 0 ]; then
    succ="$HM_SRCDIR/configs/q4_successive.json"
    for want in "2:422 trading steps, 941 messages sent, 14694 bytes sent, 941 messages received, 16068 bytes received, 576 copies from other ranks (576 " \
        "8:790 trading steps, 2732 messages sent, 19791 bytes sent, 2732 messages received, 19379 bytes received, 722 copies from other ranks (722 "; do
        r=${want%%:*}
        (HM_MPI_STATS=1 && export HM_MPI_STATS && run "$tmp/succ/$r" "$r" "$succ" --set topology.dim=8 --set output=null)
        grep -qF "hypemu-mpi: rank 0: 519 slot exchanges, ${want#*:}" "$tmp/succ/$r/err.txt" ||
            fail "HM_MPI_STATS, successive broadcasts on Q_8 on $r ranks: rank 0 did not say ${want#*:}: $(grep '^hypemu-mpi: rank 0' "$tmp/succ/$r/err.txt")"
    done
fi

if [ "$fails" -gt 0 ]; then
    echo "check_mpi.sh: $fails failure(s)"
    exit 1
fi
echo "check_mpi.sh: $configs golden configs on $ranks_list ranks ($on8 on 8), 4 refusals, circuits on Q_4, circuits with contention from 3 MPI programs on 2 and 4 ranks, HM_MPI_STATS on 2 and 8 ranks (the wire to the byte), two MPI programs routed on 2, 3 and 4 ranks, 8 disagreements, 3 stops and an interrupt on 2 ranks, Q_$dim successive and Q_$bd bcast-msbt on 4 ranks: ok"
