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
# outputs in events.jsonl, trace.json and timeline.txt. RANKS 0 is ./hypemu.
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
    (cd "$dir" && "$@" --json --set output.events=events.jsonl --set output.trace=trace.json \
        --set output.timeline=timeline.txt "$cfg" >out.json 2>err.all) || rc=$?
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
    for f in summary.json err.txt events.jsonl trace.json timeline.txt; do
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
[ "$configs" -ge 20 ] || [ "$quick" = 1 ] || fail "only $configs golden configs compared"

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

if [ "$fails" -gt 0 ]; then
    echo "check_mpi.sh: $fails failure(s)"
    exit 1
fi
echo "check_mpi.sh: $configs golden configs on 2 and 4 ranks, 3 stops on 2 ranks, Q_$dim on 4 ranks: ok"
