#!/bin/sh
# SPDX-License-Identifier: MIT
# check_mpiprog.sh — MPI programs (doc/mpi-programs.md): the engine's routed packets
# (hm_send_routed: exact slots and hops), the test programs of tests/mpiprog/ written for real
# MPI built with hypemu-mpicc from the build tree and verified on hypercubes and rings of
# several sizes (exact completion slots and routed hops), a deadlock named by its MPI calls
# (exit 3), MPI_Abort named (exit 1), a call outside the subset refused at build time, private
# globals, a bad algorithm.problem (exit 2), each collective's algorithm chosen in the config
# (the catalogue algorithm's exact slots; a bad or impossible choice, exit 2); and, where Open MPI's mpicc and mpirun are
# installed, the same programs under mpirun computing the values hypemu verified from the
# same input file.
set -eu
: "${HM_SRCDIR:?}" "${HM_BUILDDIR:?}"
CC=${CC:-cc}
tmp=$(mktemp -d /tmp/hypemu-mpiprog-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
hypemu=$HM_BUILDDIR/hypemu
fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# ---- hm_send_routed: one packet from node 0 to the farthest node --------------------------
$CC -shared -fPIC -Wall -Wextra -Werror -I"$HM_SRCDIR/include" -I"$HM_BUILDDIR/include" \
    -o "$tmp/routed.so" "$HM_SRCDIR/tests/mpiprog/routed.c" || fail "cannot build routed.c"
# summary KEY: the value of KEY in the JSON summary $tmp/out.json (a string unquoted)
summary() {
    sed -n "s/.*\"$1\": *\"\{0,1\}\([^,\"}]*\)\"\{0,1\}.*/\1/p" "$tmp/out.json"
}
routed() { # routed TOPOLOGY SLOTS HOPS RECEIVED
    printf '{"topology": %s, "algorithm": {"name": "routed"}}\n' "$1" >"$tmp/r.json"
    (cd "$tmp" && "$hypemu" --plugin ./routed.so --json r.json >out.json) ||
        fail "routed on $1: exit $?"
    got="$(summary completion_slots) $(summary routed_hops) $(summary received_in_slot)"
    [ "$got" = "$2 $3 $4" ] || fail "routed on $1: slots, hops, received: $got, not $2 $3 $4"
}
routed '{"kind": "hypercube", "dim": 4}' 4 3 3
routed '{"kind": "hypercube", "dim": 6}' 6 5 5
routed '{"kind": "ring", "nodes": 9}' 4 3 3
routed '{"kind": "ring", "nodes": 12}' 6 5 5
# The free clock routes nothing: a refused call, named.
printf '{"topology": {"kind": "ring", "nodes": 8}, "clock": {"mode": "free"}, "algorithm": {"name": "routed"}}\n' >"$tmp/r.json"
(cd "$tmp" && "$hypemu" --plugin ./routed.so r.json >out.txt 2>err.txt) || true
grep -q 'hm_send_routed(n, 4, .*node 4 is not a neighbour of node 0: under packet routing only the slotted clock routes packets' \
    "$tmp/out.txt" "$tmp/err.txt" || fail "free clock: no refused hm_send_routed named"

# ---- hypemu-mpicc, from the build tree ---------------------------------------------------
HM_MPICC_INCLUDE=$HM_SRCDIR/include HM_MPICC_LIB=$HM_BUILDDIR/lib
HM_MPICC_SHIM=$HM_SRCDIR/src/mpiprog/plugin.c
export HM_MPICC_INCLUDE HM_MPICC_LIB HM_MPICC_SHIM
# The suite's CFLAGS too: the MPI library was built with them (a sanitizer's runtime, then,
# resolves its calls: hypemu-mpicc links with -Wl,--no-undefined).
# A program's source: tests/mpiprog/NAME.c, or examples/mpi/NAME.c for the examples the
# suite runs as they are shipped (their io.h serves both: -I examples/mpi).
src_of() {
    if [ -f "$HM_SRCDIR/tests/mpiprog/$1.c" ]; then
        echo "$HM_SRCDIR/tests/mpiprog/$1.c"
    else
        echo "$HM_SRCDIR/examples/mpi/$1.c"
    fi
}
mpicc_hm() { # mpicc_hm NAME: $tmp/NAME.so from NAME.c (src_of)
    # shellcheck disable=SC2086 # word splitting of the flags is intended
    sh "$HM_SRCDIR/scripts/hypemu-mpicc.in" -o "$tmp/$1.so" "$(src_of "$1")" \
        -I"$HM_SRCDIR/examples/mpi" -Wall -Wextra -Werror -I"$HM_BUILDDIR/include" \
        -L"$HM_BUILDDIR/lib/.libs" ${HM_CFLAGS:-}
}
programs="collectives poll ring_allreduce rd_allreduce gather_any alltoall_nb alltoall_inplace narrow allreduce_call reduce_scatter_call globals deadlock abort ret rand_rank sendrecv_big bad_source"
for p in $programs; do
    mpicc_hm "$p" || fail "hypemu-mpicc cannot build $p.c"
done
if mpicc_hm outside 2>"$tmp/outside.err"; then
    fail "hypemu-mpicc built outside.c, which calls MPI_Comm_split"
fi
grep -q "implicit declaration of function .MPI_Comm_split" "$tmp/outside.err" ||
    fail "hypemu-mpicc did not name MPI_Comm_split: $(cat "$tmp/outside.err")"

# run PROGRAM TOPOLOGY PARAMS SLOTS HOPS: verified, exit 0, the exact slots and routed hops
run() {
    printf '{"topology": %s, "algorithm": {"name": "%s", %s}}\n' "$2" "$1" "$3" >"$tmp/c.json"
    rc=0
    (cd "$tmp" && "$hypemu" --plugin "./$1.so" --json c.json >out.json 2>err.txt) || rc=$?
    [ "$rc" = 0 ] || fail "$1 on $2 ($3): exit $rc: $(cat "$tmp/err.txt" "$tmp/out.json")"
    hops=$(summary routed_hops)
    got="$(summary verified) $(summary completion_slots) ${hops:-0}"
    [ "$got" = "true $4 $5" ] || fail "$1 on $2 ($3): verified, slots, hops: $got, not true $4 $5"
}
q3='{"kind": "hypercube", "dim": 3}' q4='{"kind": "hypercube", "dim": 4}'
r5='{"kind": "ring", "nodes": 5}' r8='{"kind": "ring", "nodes": 8}'
run ring_allreduce "$q3" '"problem": "allreduce", "block": 3' 13 42
run ring_allreduce "$r8" '"problem": "allreduce", "block": 3' 7 0
run ring_allreduce "$r5" '"problem": "allreduce", "block": 3' 4 0
run rd_allreduce "$q4" '"problem": "allreduce", "block": 4' 4 0
run rd_allreduce "$r8" '"problem": "allreduce", "block": 4' 7 32
run allreduce_call "$q3" '"problem": "allreduce", "block": 3' 3 0
run allreduce_call "$r8" '"problem": "allreduce", "block": 3' 7 32
run allreduce_call "$r5" '"problem": "allreduce", "block": 3' 4 4
run gather_any "$q3" '"problem": "gather", "block": 2, "root": 0' 4 5
run gather_any "$r8" '"problem": "gather", "block": 2, "root": 0' 4 9
run alltoall_nb "$q3" '"problem": "alltoall", "block": 2' 6 40
run alltoall_nb "$r5" '"problem": "alltoall", "block": 2' 3 10
# MPI_Alltoall(MPI_IN_PLACE, ...): the blocks sent are recvbuf's (recvcount of recvtype each),
# under each algorithm; the slots and hops are those of the same schedules from a send buffer.
run alltoall_inplace "$q3" '"problem": "alltoall", "block": 2' 12 40
run alltoall_inplace "$r5" '"problem": "alltoall", "block": 2' 6 10
run alltoall_inplace "$q3" '"problem": "alltoall", "block": 2, "alltoall": "alltoall-bruck"' 5 16
run alltoall_inplace "$r5" '"problem": "alltoall", "block": 2, "alltoall": "alltoall-bruck"' 4 5
run alltoall_inplace "$q3" '"problem": "alltoall", "block": 2, "alltoall": "alltoall-dimension-exchange"' 3 0
run reduce_scatter_call "$q3" '"problem": "reduce-scatter", "block": 2' 12 0
run reduce_scatter_call "$r8" '"problem": "reduce-scatter", "block": 2' 24 19
run poll "$q3" '"problem": "broadcast", "block": 5' 7 5
run poll '{"kind": "ring", "nodes": 7}' '"problem": "broadcast", "block": 5' 7 14
run globals "$q3" '"problem": "broadcast", "block": 3, "root": 1' 17 6
run globals "$r8" '"problem": "broadcast", "block": 3, "root": 1' 18 46
# Elements narrower than 8 bytes travel one to a word, sign-extended for the signed integer
# types, zero-extended for the unsigned ones (doc/mpi-programs.md, "Messages"): rank 0's
# values, negative ones too, are found by the causal judge in the words the others read,
# through MPI_Bcast (2 slots on Q_2) and through MPI_Send and MPI_Recv (3 slots, 1 routed hop).
q2='{"kind": "hypercube", "dim": 2}'
while read -r type values; do
    printf '%s\n\n\n\n' "$values" >"$tmp/narrow.txt"
    export TYPE="$type"
    run narrow "$q2" '"problem": "broadcast", "block": 3, "inputs": "narrow.txt"' 2 0
    export P2P=1
    run narrow "$q2" '"problem": "broadcast", "block": 3, "inputs": "narrow.txt"' 3 1
    unset P2P
done <<'TABLE'
int -5 70000 -1
short -5 300 -1
schar -5 100 -1
char -5 100 -1
uchar 5 200 255
ushort 5 60000 1
unsigned 5 4000000000 1
float 0 0 0
TABLE
# A float travels as its bits: -5.0f is no word's value, and a problem that passes values on
# unchanged does not find it (exit 1).
printf '%s\n\n\n\n' "-5 3 7" >"$tmp/narrow.txt"
printf '{"topology": %s, "algorithm": {"name": "narrow", "problem": "broadcast", "block": 3, "inputs": "narrow.txt"}}\n' "$q2" >"$tmp/c.json"
rc=0
(cd "$tmp" && TYPE=float "$hypemu" --plugin ./narrow.so --json c.json >out.json 2>err.txt) || rc=$?
[ "$rc" = 1 ] && [ "$(summary verified)" = false ] && grep -qF '"node 1 stored value #1 (-5) in slot 1 as node 0'"'"'s, but no packet it had read by then carried that value' "$tmp/out.json" ||
    fail "narrow, float -5: exit $rc: $(cat "$tmp/out.json")"
unset TYPE
# MPI_Allreduce runs the catalogue's schedules (src/algo/common/coll_core.c, doc/mpi-programs.md,
# "Collectives"), with the catalogue's slot counts: recursive doubling on Q_3 (3 slots, as
# allreduce-recursive-doubling) and on a ring of 8 while the vector fits one packet (512 ints:
# 7 slots, routed), the ring once it does not (513 ints: 2(p-1) = 14 slots, as allreduce-ring).
catalogue_slots() { # catalogue_slots ALGORITHM TOPOLOGY BLOCK: the catalogue run's slots
    printf '{"topology": %s, "algorithm": {"name": "%s", "block": %s}}\n' "$2" "$1" "$3" >"$tmp/c.json"
    (cd "$tmp" && "$hypemu" --json c.json >out.json) || fail "$1 on $2: exit $?"
    [ "$(summary verified)" = true ] || fail "$1 on $2: not verified"
    summary completion_slots
}
[ "$(catalogue_slots allreduce-recursive-doubling "$q3" 3)" = 3 ] ||
    fail "allreduce-recursive-doubling on Q_3: not 3 slots"
[ "$(catalogue_slots allreduce-ring "$r8" 513)" = 14 ] || fail "allreduce-ring on a ring of 8: not 14 slots"
run allreduce_call "$r8" '"problem": "allreduce", "block": 512' 7 32
run allreduce_call "$r8" '"problem": "allreduce", "block": 513' 14 0
run allreduce_call '{"kind": "ring", "nodes": 5}' '"problem": "allreduce", "block": 2300' 8 0
# Off the ring a vector of several packets goes up and down a binomial tree: 4096 ints on Q_3
# (8 packets, more than a mailbox holds, which an exchange would deadlock on).
run allreduce_call "$q3" '"problem": "allreduce", "block": 4096' 48 0
# MPI_Alltoall is alltoall-pairwise: (p/2) log2 p = 12 slots on Q_3, the catalogue's (below,
# collectives.c with 300 values a rank).
[ "$(catalogue_slots alltoall-pairwise "$q3" 300)" = 12 ] || fail "alltoall-pairwise on Q_3: not 12 slots"
# Each library collective on its problem (COLLECTIVE names it), 300 values a node: slots,
# routed hops on Q_3 and on a ring of 6.
while read -r coll problem q3slots q3hops r6slots r6hops; do
    export COLLECTIVE="$coll"
    run collectives "$q3" "\"problem\": \"$problem\", \"block\": 300" "$q3slots" "$q3hops"
    run collectives '{"kind": "ring", "nodes": 6}' "\"problem\": \"$problem\", \"block\": 300" \
        "$r6slots" "$r6hops"
done <<'TABLE'
bcast broadcast 4 0 5 8
reduce reduce 3 0 3 2
scatter scatter 7 0 6 8
gather gather 6 0 4 4
allreduce allreduce 3 0 6 8
allgather allgather 6 0 5 0
alltoall alltoall 12 40 9 24
reduce_scatter_block reduce-scatter 21 0 5 0
TABLE
unset COLLECTIVE

# Each collective's algorithm chosen in the config (doc/mpi-programs.md, "Collectives"):
# one_call.c calls the collective once, and its exact slots are those of the catalogue
# algorithm's own run of the same problem on the same machine (catalogue_slots).
mpicc_hm one_call || fail "hypemu-mpicc cannot build one_call.c"
r6='{"kind": "ring", "nodes": 6}'
topology() { # topology NAME: q3, q4, r6 or r8
    case $1 in q3) echo "$q3" ;; q4) echo "$q4" ;; r6) echo "$r6" ;; *) echo "$r8" ;; esac
}
choose() { # choose COLLECTIVE PROBLEM ALGORITHM TOPOLOGY BLOCK SLOTS [FLAG]
    printf '{"topology": %s, "algorithm": {"name": "one_call", "problem": "%s", "block": %s, "%s": "%s"}}\n' \
        "$4" "$2" "$5" "$1" "$3" >"$tmp/c.json"
    rc=0
    # shellcheck disable=SC2086 # no flag, or one
    (cd "$tmp" && COLLECTIVE=$1 BLOCK=$5 "$hypemu" ${7:-} --plugin ./one_call.so --json c.json \
        >out.json 2>err.txt) || rc=$?
    got="$rc $(summary verified) $(summary completion_slots)"
    [ "$got" = "0 true $6" ] ||
        fail "$1 as $3 on $4 ${7:-}: exit, verified, slots: $got, not 0 true $6: $(cat "$tmp/err.txt")"
}
while read -r coll problem algo topo block slots; do
    [ "$(catalogue_slots "$algo" "$(topology "$topo")" "$block")" = "$slots" ] ||
        fail "$algo on $topo, block $block: not $slots slots"
    choose "$coll" "$problem" "$algo" "$(topology "$topo")" "$block" "$slots"
done <<'TABLE'
bcast broadcast bcast-chain q3 4 10
bcast broadcast bcast-scatter-allgather q4 16 8
reduce reduce reduce-rabenseifner q3 20 6
allreduce allreduce allreduce-ring q3 16 14
allreduce allreduce allreduce-rabenseifner q4 20 8
allgather allgather allgather-ring q3 3 7
allgather allgather allgather-bruck r8 3 7
gather gather gather-linear q3 3 7
scatter scatter scatter-linear r6 3 5
alltoall alltoall alltoall-bruck r8 2 7
alltoall alltoall alltoall-dimension-exchange q4 2 4
reduce_scatter_block reduce-scatter reduce-scatter-ring q3 3 7
reduce_scatter_block reduce-scatter reduce-scatter-recursive-halving q4 3 4
reduce_scatter_block reduce-scatter reduce-scatter-pairwise q3 3 12
TABLE
# "auto" is the default: recursive doubling on Q_3 (3 slots, as above).
choose allreduce allreduce auto "$q3" 3 3
# bad_choice ALGORITHM-KEYS MESSAGE [FLAG]: exit 2 and the loader's or the setup's message.
bad_choice() {
    printf '{"topology": %s, "algorithm": {"name": "one_call", %s}}\n' "$r6" "$1" >"$tmp/c.json"
    rc=0
    # shellcheck disable=SC2086 # no flag, or one
    (cd "$tmp" && "$hypemu" ${3:-} --plugin ./one_call.so c.json >out.txt 2>err.txt) || rc=$?
    [ "$rc" = 2 ] && grep -qxF "$2" "$tmp/err.txt" ||
        fail "bad choice $1 ${3:-}: exit $rc, not 2: $(cat "$tmp/err.txt")"
}
bad_choice '"problem": "allreduce", "block": 2, "allreduce": "allreduce-tree"' \
    'c.json: algorithm.allreduce: found "allreduce-tree"; allowed: one of auto|allreduce-recursive-doubling|allreduce-ring|allreduce-rabenseifner'
bad_choice '"scatter": 3' 'c.json: algorithm.scatter: found 3; allowed: one of auto|scatter-binomial|scatter-linear'
# A choice the machine cannot run: recursive doubling on 6 ranks, before the run.
bad_choice '"problem": "allgather", "block": 2, "allgather": "allgather-recursive-doubling"' \
    'hypemu: c.json: algorithm.allgather: found "allgather-recursive-doubling" on 6 nodes; allowed: allgather-recursive-doubling on a power of two of nodes only'
bad_choice '"reduce_scatter_block": "reduce-scatter-recursive-halving"' \
    'hypemu: c.json: algorithm.reduce_scatter_block: found "reduce-scatter-recursive-halving" on 6 nodes; allowed: reduce-scatter-recursive-halving on a power of two of nodes only'
# Under one-port strict contention a conflict stops the run, as for any algorithm.
run rd_allreduce '{"kind": "hypercube", "dim": 3}, "ports": {"model": "one-port-full"}, "contention": "strict"' \
    '"problem": "allreduce", "block": 2' 3 0

# On a ring, one-port and strict: the routed exchanges of step 2 meet at node 1 in slot 1, a
# conflict that stops the run (exit 1), named with the two copies as they were judged.
printf '{"topology": %s, "ports": {"model": "one-port-full"}, "contention": "strict", "algorithm": {"name": "rd_allreduce", "problem": "allreduce", "block": 2}}\n' "$r8" >"$tmp/c.json"
rc=0
(cd "$tmp" && "$hypemu" --plugin ./rd_allreduce.so c.json >out.txt 2>err.txt) || rc=$?
[ "$rc" = 1 ] && grep -qx 'hypemu: slot 1: node 1 receives twice in one slot under one-port-full: msg 0 on link 0->1 (port 0) and msg 0 on link 2->1 (port 1)' "$tmp/err.txt" ||
    fail "strict conflict of routed packets: exit $rc: $(cat "$tmp/err.txt")"

# Globals shared by every rank (HM_MPI_SHARED_GLOBALS): the program sees the mix-up.
printf '{"topology": %s, "algorithm": {"name": "globals", "problem": "broadcast", "block": 3, "root": 1}}\n' "$r8" >"$tmp/c.json"
rc=0
(cd "$tmp" && HM_MPI_SHARED_GLOBALS=1 "$hypemu" --plugin ./globals.so c.json >out.txt 2>&1) || rc=$?
[ "$rc" != 0 ] || fail "globals shared between ranks: the run passed"

# A deadlock names the MPI calls: exit 3.
printf '{"topology": {"kind": "hypercube", "dim": 2}, "algorithm": {"name": "deadlock"}}\n' >"$tmp/c.json"
rc=0
(cd "$tmp" && "$hypemu" --plugin ./deadlock.so c.json >out.txt 2>err.txt) || rc=$?
[ "$rc" = 3 ] || fail "deadlock: exit $rc, not 3"
cat >"$tmp/want" <<'WANT'
hypemu: deadlock at slot 0: every node is blocked and nothing is in flight
  rank 0 waits in MPI_Recv(source 1, tag 0)
  rank 1 waits in MPI_Recv(source 2, tag 0)
  rank 2 waits in MPI_Recv(source 3, tag 0)
  rank 3 waits in MPI_Recv(source 0, tag 0)
WANT
diff "$tmp/want" "$tmp/err.txt" || fail "deadlock: the report differs"
# The local clock reports it the same way (one report for both clocks).
rc=0
(cd "$tmp" && "$hypemu" --plugin ./deadlock.so --set 'clock.mode="local"' c.json >out.txt 2>err.txt) || rc=$?
[ "$rc" = 3 ] || fail "deadlock under the local clock: exit $rc, not 3"
diff "$tmp/want" "$tmp/err.txt" || fail "deadlock under the local clock: the report differs"

# MPI_Abort names the rank and the code: exit 1, "end": "aborted".
printf '{"topology": {"kind": "ring", "nodes": 4}, "algorithm": {"name": "abort"}}\n' >"$tmp/c.json"
rc=0
(cd "$tmp" && "$hypemu" --plugin ./abort.so --json c.json >out.json 2>err.txt) || rc=$?
[ "$rc" = 1 ] || fail "abort: exit $rc, not 1"
[ "$(summary end) $(summary verified)" = "aborted false" ] || fail "abort: $(cat "$tmp/out.json")"
grep -qx 'hypemu: node 1: rank 1 called MPI_Abort(MPI_COMM_WORLD, 7)' "$tmp/err.txt" ||
    fail "abort: $(cat "$tmp/err.txt")"

# A code other than 0 returned from main is exit(code): exit 1, "end": "aborted", named.
printf '{"topology": {"kind": "ring", "nodes": 4}, "algorithm": {"name": "ret"}}\n' >"$tmp/c.json"
rc=0
(cd "$tmp" && "$hypemu" --plugin ./ret.so --json c.json >out.json 2>err.txt) || rc=$?
[ "$rc" = 1 ] || fail "ret: exit $rc, not 1"
[ "$(summary end) $(summary verified)" = "aborted false" ] || fail "ret: $(cat "$tmp/out.json")"
grep -qx 'hypemu: node 1: rank 1 returned 3 from main' "$tmp/err.txt" || fail "ret: $(cat "$tmp/err.txt")"

# algorithm.problem names one of the collective problems.
printf '{"topology": %s, "algorithm": {"name": "globals", "problem": "sort"}}\n' "$r8" >"$tmp/c.json"
rc=0
(cd "$tmp" && "$hypemu" --plugin ./globals.so c.json >out.txt 2>err.txt) || rc=$?
[ "$rc" = 2 ] || fail "problem sort: exit $rc, not 2"
grep -q 'algorithm.problem: found "sort"; allowed: "broadcast", "allgather", "scatter", "gather", "reduce", "allreduce", "reduce-scatter", "alltoall"' \
    "$tmp/err.txt" || fail "problem sort: $(cat "$tmp/err.txt")"

# ---- under --sandbox: each rank a node process, the same figures ---------------------------
if [ "${HM_HAVE_SECCOMP:-no}" = yes ]; then
    printf '{"topology": {"kind": "hypercube", "dim": 2}, "algorithm": {"name": "deadlock"}}\n' >"$tmp/c.json"
    rc=0
    (cd "$tmp" && "$hypemu" --sandbox --plugin ./deadlock.so c.json >out.txt 2>err.txt) || rc=$?
    [ "$rc" = 3 ] || fail "deadlock under --sandbox: exit $rc, not 3"
    diff "$tmp/want" "$tmp/err.txt" || fail "deadlock under --sandbox: the report differs"
    printf '{"topology": %s, "sandbox": true, "algorithm": {"name": "globals", "problem": "broadcast", "block": 3, "root": 1}}\n' "$r8" >"$tmp/c.json"
    (cd "$tmp" && "$hypemu" --plugin ./globals.so --json c.json >out.json 2>err.txt) ||
        fail "globals under --sandbox: $(cat "$tmp/err.txt")"
    got="$(summary verified) $(summary completion_slots) $(summary routed_hops)"
    [ "$got" = "true 18 46" ] || fail "globals under --sandbox: $got, not true 18 46"
    printf '{"topology": {"kind": "ring", "nodes": 4}, "algorithm": {"name": "abort"}}\n' >"$tmp/c.json"
    rc=0
    (cd "$tmp" && "$hypemu" --sandbox --plugin ./abort.so c.json >out.txt 2>err.txt) || rc=$?
    [ "$rc" = 1 ] && grep -qx 'hypemu: node 1: rank 1 called MPI_Abort(MPI_COMM_WORLD, 7)' "$tmp/err.txt" ||
        fail "abort under --sandbox: exit $rc: $(cat "$tmp/err.txt")"
    # The node processes read the choice too (hm_param_string), and the setup checks it.
    choose allreduce allreduce allreduce-ring "$q3" 16 14 --sandbox
    choose alltoall alltoall alltoall-bruck "$r8" 2 7 --sandbox
    bad_choice '"problem": "allgather", "block": 2, "allgather": "allgather-recursive-doubling"' \
        'hypemu: c.json: algorithm.allgather: found "allgather-recursive-doubling" on 6 nodes; allowed: allgather-recursive-doubling on a power of two of nodes only' \
        --sandbox
fi

# ---- rand() and random(): each rank's own (doc/mpi-programs.md, "Globals") -----------------
# rand_rank.c on a ring of 4: rank r seeds 17 + r, then 99 + r; the sums are the C library's
# for those seeds (mpirun -np 4 prints the same, below), in thread mode on every run and under
# --sandbox.
rand_want="sums: 516556 494952 504717 501900"
printf '{"topology": {"kind": "ring", "nodes": 4}, "algorithm": {"name": "rand_rank"}}\n' >"$tmp/rr.json"
for mode in "" "" --sandbox; do
    # shellcheck disable=SC2086 # $mode: no option or one
    got=$(cd "$tmp" && "$hypemu" $mode --plugin ./rand_rank.so rr.json --set output=null 2>&1 |
        sed -n 's/^\(node 0: \)\{0,1\}\(sums:.*\)/\2/p')
    [ "$got" = "$rand_want" ] || fail "rand_rank ${mode:-in thread mode}: '$got', not '$rand_want'"
done

# ---- exchanges larger than a mailbox (doc/mpi-programs.md, "Defaults") ----------------------
# sendrecv_big.c: 5,000 doubles by MPI_Sendrecv, 8,192 long longs both ways by Isend/Irecv,
# ten sends before any receive; an MPI program's mailboxes hold 2^20 packets by default, so
# all complete (on the ring of 5 in 39 slots, on Q_3 in 59), every value right.
for t in "$r5 39" "$q3 59"; do
    printf '{"topology": %s, "algorithm": {"name": "sendrecv_big"}}\n' "${t% *}" >"$tmp/sb.json"
    (cd "$tmp" && "$hypemu" --plugin ./sendrecv_big.so sb.json --set output=null >out.txt 2>&1) || true
    grep -qx 'wrong values: 0' "$tmp/out.txt" && grep -qx "completion_slots *${t##* }" "$tmp/out.txt" ||
        fail "sendrecv_big on ${t% *}: $(cat "$tmp/out.txt")"
done

# A receive from a rank that does not exist: the run stops at once, naming the call.
printf '{"topology": %s, "algorithm": {"name": "bad_source"}}\n' "$r5" >"$tmp/bs.json"
rc=0
(cd "$tmp" && "$hypemu" --plugin ./bad_source.so bs.json --set output=null >out.txt 2>err.txt) || rc=$?
[ "$rc" = 4 ] && grep -qx 'hypemu: node 1: rank 1: MPI_Recv(source 5, tag 0): source out of range' "$tmp/err.txt" ||
    fail "bad_source: exit $rc: $(cat "$tmp/err.txt")"

# ---- the same programs under Open MPI ----------------------------------------------------
if ! command -v mpicc >/dev/null 2>&1 || [ -z "${MPIRUN:-}" ] || ! [ -x "$MPIRUN" ]; then
    echo "check_mpiprog.sh: no mpicc or mpirun: the comparison with real MPI is skipped"
    exit 0
fi
# Every program of tests/mpiprog/ but outside.c builds with Open MPI's mpicc as it is.
for p in $programs one_call; do
    mpicc -Wall -Wextra -Werror -I"$HM_SRCDIR/examples/mpi" -o "$tmp/$p.mpicc" "$(src_of "$p")" ||
        fail "mpicc cannot build $p.c"
done
# Eight ranks' inputs: three values each, or eight blocks of two for alltoall.
awk 'BEGIN { for (r = 0; r < 8; r++) print r * 3 + 1, r * 7 + 2, 100 - r }' >"$tmp/in3.txt"
awk 'BEGIN { for (r = 0; r < 8; r++) { s = ""; for (i = 0; i < 16; i++) s = s (i ? " " : "") r * 100 + i; print s } }' >"$tmp/in16.txt"
mpi_run() { # mpi_run PROGRAM INPUT: rank lines, sorted, in $tmp/PROGRAM.mpi.out
    mpicc -Wall -Wextra -I"$HM_SRCDIR/examples/mpi" -o "$tmp/$1.mpi" "$(src_of "$1")" || fail "mpicc $1.c"
    session=$(mktemp -d "$tmp/oXXXXXX")
    (cd "$tmp" && env OMPI_MCA_orte_tmpdir_base="$session" timeout 300 "$MPIRUN" \
        --allow-run-as-root --oversubscribe -np 8 "./$1.mpi" "$2") | sort >"$tmp/$1.mpi.out" ||
        fail "mpirun $1"
}
# The slots and hops on the ring of 8 do not depend on the values.
slots() { echo 7; }
hops() { case $1 in ring_allreduce) echo 0 ;; *) echo 32 ;; esac; }
sums=$(awk '{ for (i = 1; i <= NF; i++) s[i] += $i } END { print s[1], s[2], s[3] }' "$tmp/in3.txt")
for p in ring_allreduce rd_allreduce allreduce_call; do
    mpi_run "$p" in3.txt
    awk -v s="$sums" 'BEGIN { for (r = 0; r < 8; r++) print "rank " r ": " s }' >"$tmp/want"
    diff "$tmp/want" "$tmp/$p.mpi.out" || fail "$p under mpirun"
    run "$p" "$r8" '"problem": "allreduce", "block": 3, "inputs": "in3.txt"' "$(slots "$p")" \
        "$(hops "$p")"
done
mpi_run alltoall_nb in16.txt
awk '{ for (i = 1; i <= NF; i++) v[NR - 1, i - 1] = $i }
     END { for (x = 0; x < 8; x++) { s = "rank " x ":"; for (y = 0; y < 8; y++) s = s " " v[y, 2 * x] " " v[y, 2 * x + 1]; print s } }' \
    "$tmp/in16.txt" >"$tmp/want"
diff "$tmp/want" "$tmp/alltoall_nb.mpi.out" || fail "alltoall_nb under mpirun"
run alltoall_nb "$r8" '"problem": "alltoall", "block": 2, "inputs": "in16.txt"' 10 72
session=$(mktemp -d "$tmp/oXXXXXX")
got=$(cd "$tmp" && env OMPI_MCA_orte_tmpdir_base="$session" timeout 300 "$MPIRUN" --allow-run-as-root \
    --oversubscribe -np 4 ./rand_rank.mpicc)
[ "$got" = "$rand_want" ] || fail "rand_rank under mpirun: '$got', not '$rand_want'"
session=$(mktemp -d "$tmp/oXXXXXX")
got=$(cd "$tmp" && env OMPI_MCA_orte_tmpdir_base="$session" timeout 300 "$MPIRUN" --allow-run-as-root \
    --oversubscribe -np 5 ./sendrecv_big.mpicc)
[ "$got" = "wrong values: 0" ] || fail "sendrecv_big under mpirun: '$got'"
echo "check_mpiprog.sh: all passed"
