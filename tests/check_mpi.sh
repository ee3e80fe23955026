#!/bin/sh
# check_mpi.sh — hypemu-mpi across MPI ranks gives what one process gives (doc/mpi.md):
#   - every golden config (tests/golden/) with packet routing, on 2 and 4 ranks: the
#     same exit code, the same summary (wall_seconds and ranks aside) and the same
#     event log, trace and text timeline, byte for byte, as ./hypemu;
#   - the golden configs with circuit routing (meshes, lines) are refused on 2 ranks
#     with exit 2 and a message naming ports.routing;
#   - a strict conflict (exit 1), a deadlock (exit 3, report naming the blocked nodes)
#     and clock.max_slots (exit 3) on 2 ranks: the same message, exit code and event log;
#   - Q_10 successive broadcast on 4 ranks verifies in 2p + log2(p) - 2 = 2056 slots.
# Skipped (77) when hypemu-mpi was not built, when mpirun is missing, and under the
# sanitizers (Open MPI's own allocations and threads are not instrumented; see
# doc/mpi.md).
set -u
if [ "${HM_HAVE_MPI:-no}" != yes ]; then
    echo "SKIP: hypemu-mpi not built (configure found no MPI)"
    exit 77
fi
if [ -z "${MPIRUN:-}" ] || ! [ -x "$MPIRUN" ]; then
    echo "SKIP: no mpirun (MPIRUN='${MPIRUN:-}')"
    exit 77
fi
case "${HM_CFLAGS:-}" in
*-fsanitize=*)
    echo "SKIP: sanitizer build (CFLAGS ${HM_CFLAGS}): Open MPI is not instrumented"
    exit 77
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
export OMPI_MCA_btl OMPI_MCA_plm OMPI_MCA_mpi_yield_when_idle OMPI_MCA_rmaps_base_oversubscribe
fails=0
fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}

# run DIR RANKS CONFIG [--set ...]: in DIR, the summary (without wall_seconds and
# ranks) in summary.json, hypemu's messages in err.txt, the exit code in rc, the
# outputs in events.jsonl, trace.json and timeline.txt. RANKS 0 is ./hypemu.
run() {
    dir=$1 ranks=$2 cfg=$3
    shift 3
    mkdir -p "$dir"
    if [ "$ranks" = 0 ]; then
        set -- "$one" "$@"
    else
        set -- "$MPIRUN" --allow-run-as-root --oversubscribe -np "$ranks" "$mpi" "$@"
    fi
    rc=0
    (cd "$dir" && "$@" --json --set output.events=events.jsonl --set output.trace=trace.json \
        --set output.timeline=timeline.txt "$cfg" >out.json 2>err.all) || rc=$?
    echo "$rc" >"$dir/rc"
    # Open MPI's own report of a non-zero exit starts with a line of dashes.
    sed '/^-----/,$d' "$dir/err.all" >"$dir/err.txt"
    sed -E 's/"wall_seconds":[^,}]*,?//; s/,?"ranks":[0-9]+//' "$dir/out.json" >"$dir/summary.json"
}

# same NAME DIR1 DIR2: the same exit code, summary, messages and outputs.
same() {
    for f in rc summary.json err.txt events.jsonl trace.json timeline.txt; do
        if [ -e "$2/$f" ] || [ -e "$3/$f" ]; then
            cmp -s "$2/$f" "$3/$f" || fail "$1: $f differs ($2/$f, $3/$f)"
        fi
    done
}

# compare NAME: the runs of golden config NAME on 2 and 4 ranks against ./hypemu's.
compare() {
    name=$1
    case "$name" in
    mesh_* | linear_*)
        # Circuit routing: one rank only.
        [ "$(cat "$tmp/$name/2/rc")" = 2 ] || fail "$name on 2 ranks: exit $(cat "$tmp/$name/2/rc"), expected 2"
        grep -q 'ports.routing "circuit" runs on one rank only; found 2 ranks' "$tmp/$name/2/err.txt" ||
            fail "$name on 2 ranks: no refusal message: $(cat "$tmp/$name/2/err.txt")"
        return
        ;;
    esac
    [ -s "$tmp/$name/1/events.jsonl" ] || fail "$name: ./hypemu wrote no event log"
    for r in 2 4; do
        grep -q "\"ranks\":$r}" "$tmp/$name/$r/out.json" || fail "$name on $r ranks: no \"ranks\": $r"
        same "$name on $r ranks" "$tmp/$name/1" "$tmp/$name/$r"
    done
    configs=$((configs + 1))
}

# The launches mostly wait (MPI_Init, the ranks' start): two configs at a time, each
# on 1, 2 and 4 ranks at once.
configs=0
batch=""
for g in "$HM_SRCDIR"/tests/golden/*.json; do
    name=$(basename "$g" .json)
    cfg="$HM_SRCDIR/configs/$name.json"
    run "$tmp/$name/1" 0 "$cfg" &
    run "$tmp/$name/2" 2 "$cfg" &
    case "$name" in
    mesh_* | linear_*) ;;
    *) run "$tmp/$name/4" 4 "$cfg" & ;;
    esac
    batch="$batch $name"
    if [ "$(echo $batch | wc -w)" -ge 2 ]; then
        wait
        for b in $batch; do compare "$b"; done
        batch=""
    fi
done
wait
for b in $batch; do compare "$b"; done
[ "$configs" -ge 20 ] || fail "only $configs golden configs compared"

# Runs that stop: the same report and exit code on every rank count.
q4="$HM_SRCDIR/configs/q4_successive.json"
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

# A larger cube on 4 ranks: Q_10 (1,024 threads; Q_12 takes minutes on 2 cores).
(cd "$tmp" && "$MPIRUN" --allow-run-as-root --oversubscribe -np 4 "$mpi" --json \
    --set topology.dim=10 --set output.events=null --set output.trace=null \
    --set output.timeline=null "$q4" >q10.json 2>q10.err)
rc=$?
[ "$rc" = 0 ] || fail "Q_10 on 4 ranks: exit $rc: $(cat "$tmp/q10.err")"
grep -q '"completion_slots":2056,' "$tmp/q10.json" || fail "Q_10 on 4 ranks: $(cat "$tmp/q10.json")"
grep -q '"verified":true' "$tmp/q10.json" || fail "Q_10 on 4 ranks: not verified"

if [ "$fails" -gt 0 ]; then
    echo "check_mpi.sh: $fails failure(s)"
    exit 1
fi
echo "check_mpi.sh: $configs golden configs on 2 and 4 ranks, 3 stops on 2 ranks, Q_10 on 4 ranks: ok"
