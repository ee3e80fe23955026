#!/bin/sh
# SPDX-License-Identifier: MIT
# check_lab.sh — the lab (doc/lab/README.md, hypemu-lab(1)) from an install into a temporary
# prefix: refused calls (the summary, stderr, the event log, the deadlock report), hm_op
# under op = sum, max and min, the reference solutions passing the shipped exercises and the
# starters failing them with their rows, cheating submissions (an own verify, results
# through shared memory, another problem, an own setup) failing with the reason in the
# row, a crash row naming the student's file, a deadlock row naming who waits, a conflict
# row naming its slot, node and link, exercise files written here (a hypercube allreduce
# with op max and min, a mesh under circuit routing) grading a right and a wrong program,
# the expression grammar on exact values and its errors, and a class of three graded into
# one CSV. Submissions run sandboxed (README "Sandbox"), and with --no-sandbox in threads:
# a debug printf passes both ways, shown under the rows; a run that is not the
# submission's (hypemu exec'd on a built-in algorithm) fails; a detached child cannot
# rewrite the class CSV.
set -eu
: "${HM_SRCDIR:?}" "${HM_BUILDDIR:?}"
CC=${CC:-cc}
tmp=$(mktemp -d /tmp/hypemu-lab-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
# Everything a run writes, even to a relative path, lands here, never in the build tree.
cd "$tmp"
prefix=$tmp/prefix

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

if ! ${MAKE:-make} -s -C "$HM_BUILDDIR" install prefix="$prefix" >"$tmp/install.log" 2>&1; then
    cat "$tmp/install.log" >&2
    fail "make install prefix=$prefix"
fi
for f in bin/hypemu-lab share/man/man1/hypemu-lab.1 share/hypemu/lab/exercises/1-bcast-one-port.json \
    share/hypemu/lab/exercises/7-mesh-reduce.json share/hypemu/lab/ex1-bcast-one-port.c; do
    [ -f "$prefix/$f" ] || fail "make install did not install $f"
done
PKG_CONFIG_PATH="$prefix/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
LD_LIBRARY_PATH="$prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PKG_CONFIG_PATH LD_LIBRARY_PATH CC
flags=$(pkg-config --cflags --libs hypemu) || fail "pkg-config --cflags --libs hypemu"
bin=$prefix/bin/hypemu
lab=$prefix/bin/hypemu-lab
t=$HM_SRCDIR/tests/lab
build() { # build NAME SOURCE [FLAGS]: NAME.so in $tmp
    # shellcheck disable=SC2086 # word splitting of the flags is intended
    $CC -shared -fPIC ${3:-} -o "$tmp/$1.so" "$2" $flags || fail "cannot build $2"
}
expect() { # expect WHAT EXPECTED FILE: the file holds exactly EXPECTED
    [ "$(cat "$3")" = "$2" ] || fail "$1: found
$(cat "$3")
expected
$2"
}
row() { # row FILE CASE MACHINE ROOT BLOCK VERIFIED SLOTS BOUND LOWER CONFLICTS PACKETS RESULT
    f=$1
    shift
    line=$(printf '%-5s %-7s %-4s %-5s %-8s %-6s %-6s %-6s %-9s %-7s %s' "$@")
    grep -qxF "$line" "$f" || fail "$(basename "$f"): no row
$line
in:
$(cat "$f")"
}

# ---- refused calls (README "Refused calls") ----------------------------------------------
build refuse "$t/refuse.c"
printf '{"plugins": ["refuse.so"], "topology": {"kind": "hypercube", "dim": 2}, "algorithm": {"name": "lab-test-refuse"}, "output": {"events": "%s/refuse.jsonl"}}\n' "$tmp" >"$tmp/refuse.json"
rc=0
"$bin" --json "$tmp/refuse.json" >"$tmp/refuse.out" 2>"$tmp/refuse.err" || rc=$?
[ "$rc" = 3 ] || fail "refuse: exit $rc, expected 3 (deadlock)"
not_nb='node 3 is not a neighbour of node 0: under packet routing hm_send_to reaches neighbours only (ports.routing "circuit" routes to any node)'
expect "refuse: stderr" "hypemu: deadlock at slot 1: every node is blocked and nothing is in flight
  node 0 waits for a packet from any neighbour (made 6 refused calls; first: slot 0 hm_send_to(n, 3, p): $not_nb)
  node 1 waits for a packet from any neighbour
  node 2 waits for a packet from any neighbour
  node 3 waits for a packet from any neighbour
hypemu: 6 refused calls (each returned HM_EINVAL and the run went on; README \"Refused calls\"):
  node 0, slot 0: hm_send_to(n, 3, p): $not_nb
  node 0, slot 0: hm_send(n, 7, p): port 7 does not exist (node 0 has ports 0..1)
  node 0, slot 1: hm_send(n, 0, NULL): no packet (p is NULL)
  node 0, slot 1: hm_shout(n, 0x0, p): an empty set of ports
  node 0, slot 1: hm_shout(n, 0x400, p): port 10 in the set does not exist (node 0 has ports 0..1)
  ... and 1 more" "$tmp/refuse.err"
python3 - "$tmp/refuse.out" "$tmp/refuse.jsonl" <<'PY' || fail "refuse: summary or events"
import json, sys
s = json.load(open(sys.argv[1]))
if s["refused_calls"] != 6 or s["end"] != "deadlock" or s["exit_code"] != 3:
    sys.exit("summary: %r" % s)
keys = list(s)
if keys.index("refused_calls") != keys.index("conflicts") + 1:
    sys.exit("refused_calls not after conflicts: %r" % keys)
ev = [json.loads(l) for l in open(sys.argv[2])]
got = [(e["slot"], e["node"], e.get("port"), e.get("to"), e["call"], e["reason"]) for e in ev]
want = [(0, 0, None, 3, "hm_send_to(n, 3, p)", "node 3 is not a neighbour of node 0: under packet "
         "routing hm_send_to reaches neighbours only (ports.routing \"circuit\" routes to any node)"),
        (0, 0, None, None, "hm_send(n, 7, p)", "port 7 does not exist (node 0 has ports 0..1)"),
        (1, 0, 0, None, "hm_send(n, 0, NULL)", "no packet (p is NULL)"),
        (1, 0, None, None, "hm_shout(n, 0x0, p)", "an empty set of ports"),
        (1, 0, None, None, "hm_shout(n, 0x400, p)",
         "port 10 in the set does not exist (node 0 has ports 0..1)"),
        (1, 0, None, None, "hm_send_to(n, 4, p)", "node 4 does not exist (nodes 0..3)")]
if got != want or any(e["event"] != "refused" for e in ev):
    sys.exit("events: %r" % ev)
PY
# Without any output (no events recorded) the count, stderr and the deadlock note stay.
rc=0
"$bin" --json --set 'output={}' "$tmp/refuse.json" >"$tmp/refuse2.out" 2>"$tmp/refuse2.err" || rc=$?
[ "$rc" = 3 ] && grep -q '"refused_calls":6,' "$tmp/refuse2.out" && cmp -s "$tmp/refuse.err" "$tmp/refuse2.err" ||
    fail "refuse without events: exit $rc, $(cat "$tmp/refuse2.err")"
# Every writer takes the new event: the timeline, the trace, the picture, OTF2 if built in.
otf2=
[ "${HM_HAVE_OTF2:-no}" = yes ] && otf2=", \"otf2\": \"$tmp/refuse.otf2\""
printf '{"plugins": ["refuse.so"], "topology": {"kind": "hypercube", "dim": 2}, "algorithm": {"name": "lab-test-refuse"}, "output": {"events": "%s/r.jsonl", "timeline": "%s/r.txt", "trace": "%s/r.trace.json", "svg": "%s/r.svg"%s}}\n' \
    "$tmp" "$tmp" "$tmp" "$tmp" "$otf2" >"$tmp/refuse-all.json"
rc=0
"$bin" "$tmp/refuse-all.json" >/dev/null 2>&1 || rc=$?
[ "$rc" = 3 ] && [ -s "$tmp/r.svg" ] && python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/r.trace.json" ||
    fail "refuse, every output: exit $rc"
[ -z "$otf2" ] || [ -f "$tmp/refuse.otf2/traces.otf2" ] || fail "refuse: no OTF2 archive"
grep -qxF '     0 0 refused  hm_send(n, 7, p): port 7 does not exist (node 0 has ports 0..1)' "$tmp/r.txt" ||
    fail "refuse: timeline: $(cat "$tmp/r.txt")"
if python3 -c 'import jsonschema' 2>/dev/null; then
    python3 - "$HM_SRCDIR/doc/events.schema.json" "$tmp/r.jsonl" <<'PY' || fail "refuse: events schema"
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
for line in open(sys.argv[2]):
    jsonschema.validate(json.loads(line), schema)
PY
fi
# A run without refusals has no key.
build ok "$HM_SRCDIR/examples/lab/solutions/ex1-bcast-one-port.c"
printf '{"plugins": ["ok.so"], "topology": {"kind": "hypercube", "dim": 3}, "algorithm": {"name": "lab1-bcast-one-port", "root": 2}}\n' >"$tmp/ok.json"
"$bin" --json "$tmp/ok.json" >"$tmp/ok.out" 2>"$tmp/ok.err" || fail "ok.json: exit $?"
! grep -q refused "$tmp/ok.out" && [ ! -s "$tmp/ok.err" ] || fail "a run without refusals: $(cat "$tmp/ok.out" "$tmp/ok.err")"

# ---- hm_op: a student allreduce under op = sum, max, min ----------------------------------
ex5=$HM_SRCDIR/examples/lab/solutions/ex5-allreduce-long.c
build ex5 "$ex5"
sed 's/hm_op(n)/HM_OP_SUM/' "$ex5" >"$tmp/sumonly.c"
build sumonly "$tmp/sumonly.c"
for op in sum max min; do
    for so in ex5 sumonly; do
        rc=0
        printf '{"plugins": ["%s.so"], "topology": {"kind": "hypercube", "dim": 3}, "ports": {"routing": "circuit", "cost": {"a": 0.125, "b": 20}}, "algorithm": {"name": "lab5-allreduce-long", "block": 64, "op": "%s"}}\n' \
            "$so" "$op" >"$tmp/op.json"
        "$bin" --json "$tmp/op.json" >"$tmp/op.out" 2>/dev/null || rc=$?
        v=$(python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); print(s["op"], s["verified"])' "$tmp/op.out")
        want="$op True"
        [ "$so" = sumonly ] && [ "$op" != sum ] && want="$op False"
        [ "$v" = "$want" ] || fail "hm_op: $so under op $op: $v (exit $rc), expected $want"
    done
done

# ---- the shipped exercises: solutions pass, starters fail --------------------------------
rc=0
"$lab" --help >"$tmp/help" || rc=$?
[ "$rc" = 0 ] && grep -q '^usage: hypemu-lab list$' "$tmp/help" || fail "--help: exit $rc"
"$lab" list >"$tmp/list" || fail "list: exit $?"
grep -qx '1  bcast-one-port   broadcast on Q_d, one-port, in d slots (hypercube, one-port-full ports; bound d, packets p - 1)' "$tmp/list" ||
    fail "list: $(cat "$tmp/list")"
[ "$(wc -l <"$tmp/list")" = 7 ] || fail "list: $(cat "$tmp/list")"
for ex in 1 2 3 4 5 6 7; do
    sol=$(ls "$HM_SRCDIR/examples/lab/solutions/ex$ex-"*.c)
    starter=$(ls "$HM_SRCDIR/examples/lab/ex$ex-"*.c)
    rc=0
    "$lab" check "$ex" "$sol" >"$tmp/lab.out" 2>&1 || rc=$?
    [ "$rc" = 0 ] && grep -qx 'grade: 3/3 cases passed' "$tmp/lab.out" ||
        { cat "$tmp/lab.out" >&2; fail "hypemu-lab check $ex on the solution: exit $rc"; }
    rc=0
    "$lab" check "$ex" "$starter" >"$tmp/lab-$ex.out" 2>&1 || rc=$?
    [ "$rc" = 1 ] || { cat "$tmp/lab-$ex.out" >&2; fail "hypemu-lab check $ex on the starter: exit $rc, expected 1"; }
done
# An MPI program (doc/mpi-programs.md): hypemu-mpicc builds it, the exercise names its problem.
cat >"$tmp/mpi-allreduce.json" <<'EXERCISE'
{"name": "mpi-allreduce", "title": "allreduce on Q_d in d slots", "problem": "allreduce",
 "topology": "hypercube", "ports": "all-port", "bound": "d",
 "cases": [{"dim": 2, "block": 3}, {"dim": 4, "block": 2}]}
EXERCISE
cp "$HM_SRCDIR/examples/mpi/rd_allreduce.c" "$HM_SRCDIR/examples/mpi/io.h" "$tmp/"
# hypemu-mpicc links the installed MPI library, built with the suite's CFLAGS: its compiler
# gets them too (a sanitizer's runtime resolves the library's calls).
mpicc_cc="${CC:-cc} ${HM_CFLAGS:-}"
rc=0
CC=$mpicc_cc "$lab" check "$tmp/mpi-allreduce.json" "$tmp/rd_allreduce.c" >"$tmp/lab.out" 2>&1 || rc=$?
[ "$rc" = 0 ] && grep -qx 'grade: 2/2 cases passed' "$tmp/lab.out" ||
    { cat "$tmp/lab.out" >&2; fail "hypemu-lab check on an MPI program: exit $rc"; }
cp "$HM_SRCDIR/examples/mpi/ring_allreduce.c" "$tmp/"
rc=0
CC=$mpicc_cc "$lab" check "$tmp/mpi-allreduce.json" "$tmp/ring_allreduce.c" >"$tmp/lab.out" 2>&1 || rc=$?
[ "$rc" = 1 ] && grep -q 'FAIL: .* slots > bound 4' "$tmp/lab.out" ||
    { cat "$tmp/lab.out" >&2; fail "hypemu-lab check on the ring allreduce: exit $rc, expected 1"; }
# A case may choose a collective's algorithm (doc/mpi-programs.md, "Collectives"): MPI_Allreduce
# as allreduce-ring on Q_3, 14 slots, over the bound; "auto" (recursive doubling) within it.
cp "$HM_SRCDIR/examples/mpi/allreduce_call.c" "$tmp/"
printf '{"name": "mpi-choice", "problem": "allreduce", "topology": "hypercube", "ports": "all-port", "bound": "d", "cases": [{"dim": 3, "block": 16, "algorithm.allreduce": "allreduce-ring"}, {"dim": 3, "block": 16, "algorithm.allreduce": "auto"}]}\n' >"$tmp/mpi-choice.json"
rc=0
CC=$mpicc_cc "$lab" check "$tmp/mpi-choice.json" "$tmp/allreduce_call.c" >"$tmp/lab.out" 2>&1 || rc=$?
[ "$rc" = 1 ] && grep -q 'FAIL: 14 slots > bound 3' "$tmp/lab.out" &&
    grep -qx 'grade: 1/2 cases passed' "$tmp/lab.out" ||
    { cat "$tmp/lab.out" >&2; fail "hypemu-lab check with a chosen allreduce: exit $rc, expected 1"; }
# By name, too.
"$lab" check successive "$HM_SRCDIR/examples/lab/solutions/ex3-successive.c" >"$tmp/lab.out" 2>&1 ||
    fail "check successive: $(cat "$tmp/lab.out")"
s1=$HM_SRCDIR/examples/lab/ex1-bcast-one-port.c
grep -qx 'grade: 0/3 cases passed' "$tmp/lab-1.out" || fail "starter 1: $(cat "$tmp/lab-1.out")"
grep -qx "algorithm lab1-bcast-one-port from $s1; problem broadcast; bound d, packets p - 1, no conflict" "$tmp/lab-1.out" ||
    fail "starter 1: $(cat "$tmp/lab-1.out")"
row "$tmp/lab-1.out" 1 Q_2 3 1 no 2 2 2 0 2 'FAIL: node 0: index 0: missing, expected 761; 2 packets, expected 3'
row "$tmp/lab-2.out" 3 Q_4 10 6 yes 24 9 4 0 90 'FAIL: 24 slots > bound 9'
row "$tmp/lab-3.out" 2 Q_4 - 1 yes 64 34 4 0 240 'FAIL: 64 slots > bound 34'
row "$tmp/lab-4.out" 1 3x3 4 1 yes 3 2 2 0 12 'FAIL: 3 slots > bound 2; 12 packets, expected 8'
# Exercise 5 under circuit routing (a = 1/8, B = 20: D(v) = v + 20): recursive doubling's
# d D(b) against the ring's 2(p-1) D(ceil(b/p)); the lower bound is d shortest circuits, 20d.
row "$tmp/lab-5.out" 2 Q_3 - 256 yes 828 728 60 0 24 'FAIL: 828 slots > bound 728'
row "$tmp/lab-5.out" 3 Q_4 - 1000 yes 4080 2490 80 0 64 'FAIL: 4080 slots > bound 2490'
row "$tmp/lab-6.out" 3 Q_4 - 2 yes 32 4 4 0 512 'FAIL: 32 slots > bound 4; 512 packets, expected 64'
row "$tmp/lab-7.out" 3 6x2 7 3 yes 6 4 4 0 24 'FAIL: 6 slots > bound 4; 24 packets, expected 11'
rc=0
"$lab" check 9 "$s1" 2>"$tmp/err" || rc=$?
[ "$rc" = 2 ] || fail "check 9: exit $rc"
expect "check 9" "hypemu-lab: no exercise 9; allowed: 1 (bcast-one-port), 2 (bcast-all-port), 3 (successive), 4 (mesh-gather), 5 (allreduce-long), 6 (alltoall), 7 (mesh-reduce), or an exercise file (JSON)" "$tmp/err"

# ---- cheating submissions and hypemu's diagnosis in the rows ------------------------------
rc=0
"$lab" check 1 "$t/ownverify.c" >"$tmp/own.out" 2>&1 || rc=$?
[ "$rc" = 1 ] || fail "own verify: exit $rc"
row "$tmp/own.out" 2 Q_4 9 1 no 0 4 4 0 0 'FAIL: node 0: index 0: missing, expected 737; 0 slots < lower bound 4 (log2(p)): results arrived faster than the model allows; 0 packets, expected 15'
rc=0
"$lab" check 1 "$t/shared.c" >"$tmp/shared.out" 2>&1 || rc=$?
[ "$rc" = 1 ] && grep -qx 'grade: 0/3 cases passed' "$tmp/shared.out" || fail "shared memory: exit $rc: $(cat "$tmp/shared.out")"
# hypemu's own verdict may fail it first (its causal check); the grader's bound check stays,
# on completion_slots 1: never below the slot of the last checked store (README "What
# verified means").
grep -q '^3     Q_5     0    1     .*FAIL: .*1 slots < lower bound 5 (log2(p)): results arrived faster than the model allows; 0 packets, expected 31$' "$tmp/shared.out" ||
    fail "shared memory: $(cat "$tmp/shared.out")"
rc=0
"$lab" check allreduce-long "$s1" >"$tmp/wrong.out" 2>&1 || rc=$?
[ "$rc" = 1 ] || fail "wrong problem: exit $rc"
row "$tmp/wrong.out" 1 Q_2 - 300 no - 570 - - - 'FAIL: the plugin declares problem broadcast; the exercise is allreduce (set .problem = HM_PROBLEM_ALLREDUCE)'
rc=0
"$lab" check 1 "$t/ownsetup.c" >/dev/null 2>"$tmp/err" || rc=$?
[ "$rc" = 2 ] || fail "own setup: exit $rc"
expect "own setup" "hypemu-lab: hypemu refuses $t/ownsetup.c: file $t/ownsetup.c: algorithm \"lab-test-ownsetup\": declares .problem broadcast, whose setup and check always apply, so .setup must be NULL (the problem makes the inputs: hm_input, hm_root, hm_op; hypemu.h, HM_PLUGIN)" "$tmp/err"
# A crash: sandboxed (the default), the node process dies and the run has a summary; in
# threads (--no-sandbox, anywhere on the line) hypemu dies of the signal, no summary.
rc=0
"$lab" check 1 "$HM_SRCDIR/tests/sdk/crash.c" >"$tmp/crash.out" 2>&1 || rc=$?
[ "$rc" = 1 ] || fail "crash: exit $rc"
# The line names the source line where configure found libdw (the lab builds with -g).
at=
# The source line names the file as the debug information has it: the path with its ".."
# taken out (make distcheck's source directory is _build/sub/../..).
[ "${HM_HAVE_LIBDW:-no}" != yes ] || at=" at $(realpath -s "$HM_SRCDIR/tests/sdk/crash.c"):$(grep -n '\*nowhere = 1;' "$HM_SRCDIR/tests/sdk/crash.c" | cut -d: -f1)"
row "$tmp/crash.out" 2 Q_4 9 1 no 0 4 4 0 0 "FAIL: node 3 (algorithm sdk-test-crash, file $HM_SRCDIR/tests/sdk/crash.c) crashed in slot 2: SIGSEGV$at"
rc=0
"$lab" check 1 "$HM_SRCDIR/tests/sdk/crash.c" --no-sandbox >"$tmp/crash.out" 2>&1 || rc=$?
[ "$rc" = 1 ] || fail "crash in threads: exit $rc"
row "$tmp/crash.out" 2 Q_4 9 1 no - 4 - - - "FAIL: node 3 (algorithm sdk-test-crash, file $HM_SRCDIR/tests/sdk/crash.c) crashed in slot 2: SIGSEGV$at"
# A right solution with a debug printf passes, sandboxed and in threads, and the student
# sees what the nodes printed under each row.
sed '12a\    printf("node %d here\\n", hm_id(n));' \
    "$HM_SRCDIR/examples/lab/solutions/ex1-bcast-one-port.c" | sed '1a\#include <stdio.h>' >"$tmp/printf.c"
grep -q 'printf("node %d here' "$tmp/printf.c" || fail "printf.c: the printf was not inserted"
for mode in --sandbox --no-sandbox; do
    opt=$mode
    [ "$mode" = --sandbox ] && opt=
    rc=0
    "$lab" check $opt 1 "$tmp/printf.c" >"$tmp/printf.out" 2>&1 || rc=$?
    [ "$rc" = 0 ] && grep -qx 'grade: 3/3 cases passed' "$tmp/printf.out" ||
        fail "printf $mode: exit $rc: $(cat "$tmp/printf.out")"
    [ "$(grep -Ec '^      printed: (node [0-9]+: )?node [0-9]+ here$' "$tmp/printf.out")" = 14 ] ||
        fail "printf $mode: the printed lines: $(cat "$tmp/printf.out")"
done
grep -qx '      printed: ... and 11 more lines' "$tmp/printf.out" || fail "printf: $(cat "$tmp/printf.out")"
# A run that is not the submission's: node 0 execs hypemu on a built-in algorithm (in
# threads; the sandbox refuses the exec).
rc=0
"$lab" check 1 "$t/exechypemu.c" --no-sandbox >"$tmp/exec.out" 2>&1 || rc=$?
[ "$rc" = 1 ] || fail "exec hypemu: exit $rc: $(cat "$tmp/exec.out")"
grep -q "FAIL: the run's algorithm is sbt-broadcast, the submission's lab-test-exec$" "$tmp/exec.out" ||
    fail "exec hypemu: $(cat "$tmp/exec.out")"
rc=0
"$lab" check 1 "$t/exechypemu.c" >"$tmp/exec.out" 2>&1 || rc=$?
[ "$rc" = 1 ] && grep -q 'crashed in slot 0: the sandbox refused the system call openat' "$tmp/exec.out" ||
    fail "exec hypemu, sandboxed: exit $rc: $(cat "$tmp/exec.out")"
"$lab" check 1 "$t/refuse.c" >"$tmp/dead.out" 2>&1 && fail "deadlock: exit 0"
row "$tmp/dead.out" 1 Q_2 3 1 no 0 2 2 0 0 "FAIL: deadlock at slot 1: every node is blocked and nothing is in flight: node 0 waits for a packet from any neighbour (made 6 refused calls; first: slot 0 hm_send_to(n, 3, p): $not_nb); node 1 waits for a packet from any neighbour; node 2 waits for a packet from any neighbour; ... and 1 more; 6 refused calls"
# A right broadcast whose every node also makes one refused call in slot 0.
sed '12a\    hm_send_to(n, hm_id(n), NULL); /* refused: no packet */' \
    "$HM_SRCDIR/examples/lab/solutions/ex1-bcast-one-port.c" >"$tmp/refused-too.c"
"$lab" check 1 "$tmp/refused-too.c" >"$tmp/refused-too.out" 2>&1 && fail "refused calls: exit 0"
row "$tmp/refused-too.out" 1 Q_2 3 1 yes 2 2 2 0 3 'FAIL: 4 refused calls (first: node 0, slot 0: hm_send_to(n, 0, NULL): no packet (p is NULL))'
# The plugin's own verify adds its failure, in threads and sandboxed (there it runs in a
# node process on a copy of the outcome, README "Sandbox").
"$lab" check 1 "$t/conflict.c" --no-sandbox >"$tmp/conflict.out" 2>&1 && fail "conflict: exit 0"
row "$tmp/conflict.out" 1 Q_2 3 1 no 3 2 2 1 3 'FAIL: own check: 3 slots > d = 2; 3 slots > bound 2; 1 conflicts (first: slot 0, node 3 to 1, port 1: node 3 sends twice in one slot under one-port-full: msg 1 on link 3->2 (port 0) and msg 1 on link 3->1 (port 1))'
"$lab" check 1 "$t/conflict.c" >"$tmp/conflict.out" 2>&1 && fail "conflict, sandboxed: exit 0"
row "$tmp/conflict.out" 1 Q_2 3 1 no 3 2 2 1 3 'FAIL: own check: 3 slots > d = 2; 3 slots > bound 2; 1 conflicts (first: slot 0, node 3 to 1, port 1: node 3 sends twice in one slot under one-port-full: msg 1 on link 3->2 (port 0) and msg 1 on link 3->1 (port 1))'
# Under all-port the same program has no conflict, its own check passes, and so does the
# problem's: the plugin's .verify adds failures, it does not replace the problem's check.
build conflict "$t/conflict.c"
printf '{"plugins": ["conflict.so"], "topology": {"kind": "hypercube", "dim": 3}, "ports": {"model": "all-port"}, "algorithm": {"name": "lab-test-conflict", "root": 6}}\n' >"$tmp/allport.json"
"$bin" --json "$tmp/allport.json" >"$tmp/allport.out" || fail "all-port: exit $?"
grep -q '"verified":true,"verification":"broadcast: all 8 nodes stored the right values in order"' "$tmp/allport.out" ||
    fail "all-port: $(cat "$tmp/allport.out")"

# ---- exercise files written here ----------------------------------------------------------
cat >"$tmp/ops.json" <<'EOF'
{"name": "allreduce-ops", "title": "allreduce under every op", "problem": "allreduce",
 "topology": "hypercube", "ports": "one-port-full",
 "config": {"ports": {"routing": "circuit", "cost": {"a": 0.125, "b": 20}}},
 "bound": "2*(p - 1)*ceil(8*cost_a*ceil(block/p) + cost_b)",
 "cases": [{"dim": 2, "block": 300, "op": "max"}, {"dim": 3, "block": 64, "algorithm.op": "min", "seed": 7},
           {"dim": 3, "block": 64, "op": "sum"}]}
EOF
"$lab" check "$tmp/ops.json" "$ex5" >"$tmp/ops.out" 2>&1 || fail "ops: the solution: $(cat "$tmp/ops.out")"
row "$tmp/ops.out" 1 Q_2 - 300 yes 530 570 40 0 16 pass
row "$tmp/ops.out" 2 Q_3 - 64 yes 232 392 60 0 48 pass
rc=0
"$lab" check "$tmp/ops.json" "$tmp/sumonly.c" >"$tmp/ops2.out" 2>&1 || rc=$?
[ "$rc" = 1 ] && grep -qx 'grade: 1/3 cases passed' "$tmp/ops2.out" || fail "ops: sum only: exit $rc: $(cat "$tmp/ops2.out")"
grep -q '^1     Q_2     -    300   no       530    570    40     0         16      FAIL: node 0: index 0: found [0-9]*, expected [0-9]*$' "$tmp/ops2.out" ||
    fail "ops: sum only: $(cat "$tmp/ops2.out")"
row "$tmp/ops2.out" 3 Q_3 - 64 yes 232 392 60 0 48 pass
# A mesh under circuit routing (the mesh's default routing), a right and a wrong gather.
cat >"$tmp/mesh.json" <<'EOF'
{"name": "mesh-gather-circuit", "title": "gather on a mesh under circuit routing",
 "problem": "gather", "topology": "mesh", "ports": "all-port",
 "config": {"ports": {"cost": {"a": 0.125, "b": 2}}},
 "bound": "(p - 1) * (ceil(cost_b) + ceil(8*cost_a*block + cost_b) + 2)",
 "cases": [{"rows": 3, "cols": 3, "root": 4, "block": 1}, {"rows": 2, "cols": 4, "root": 0, "block": 2}]}
EOF
"$lab" check "$tmp/mesh.json" "$t/direct-gather.c" >"$tmp/mesh.out" 2>&1 || fail "mesh: $(cat "$tmp/mesh.out")"
row "$tmp/mesh.out" 1 3x3 4 1 yes 47 56 8 0 16 pass
row "$tmp/mesh.out" 2 2x4 0 2 yes 54 56 6 0 14 pass
sed 's/^#ifdef WRONG_ORDER/#if 1/' "$t/direct-gather.c" >"$tmp/wrong-gather.c"
"$lab" check "$tmp/mesh.json" "$tmp/wrong-gather.c" >"$tmp/mesh2.out" 2>&1 && fail "mesh, wrong order: exit 0"
row "$tmp/mesh2.out" 2 2x4 0 2 no 54 56 6 0 14 'FAIL: node 0: index 0: found 520, expected 969'
# Bad exercise files: the file, the key, what is allowed.
bad() { # bad JSON MESSAGE
    printf '%s\n' "$1" >"$tmp/bad.json"
    rc=0
    "$lab" check "$tmp/bad.json" "$s1" >/dev/null 2>"$tmp/err" || rc=$?
    [ "$rc" = 2 ] || fail "bad exercise $1: exit $rc"
    expect "bad exercise $1" "hypemu-lab: $tmp/bad.json: $2" "$tmp/err"
}
base='"name": "x", "problem": "broadcast", "topology": "hypercube", "ports": "all-port"'
bad "{$base, \"bound\": \"d\"}" 'cases: missing (doc/lab/README.md "Writing an exercise")'
bad "{$base, \"bound\": \"d\", \"cases\": [{\"dim\": 2, \"root\": 0}], \"colour\": 1}" 'colour: unknown key; allowed: name, title, problem, topology, ports, config, bound, packets, cases, notes'
bad "{$base, \"bound\": \"d/2\", \"cases\": [{\"dim\": 3, \"root\": 0}]}" 'bound: the value is 3/2, not a whole number (use ceil or floor) (in Q_3, root 0)'
bad "{$base, \"bound\": \"rows + 1\", \"cases\": [{\"dim\": 3, \"root\": 0}]}" "bound: at 1: 'rows' has no value in this case (mesh and torus only) (in Q_3, root 0)"
bad "{$base, \"bound\": \"d\", \"cases\": [{\"dim\": 3}]}" 'cases[0].root: missing (problem broadcast has a root)'
bad "{$base, \"bound\": \"d\", \"cases\": [{\"rows\": 3, \"root\": 0}]}" 'cases[0].dim: found null; allowed: an integer >= 0'
bad "{$base, \"problem\": \"sort\", \"bound\": \"d\", \"cases\": []}" 'problem: found "sort"; allowed: broadcast, allgather, scatter, gather, reduce, allreduce, reduce-scatter, alltoall'

# ---- the expression grammar, on exact values -------------------------------------------------
ev() { # ev EXPECTED EXPRESSION [NAME=VALUE...]
    want=$1
    shift
    got=$("$lab" eval "$@" 2>&1) || true
    [ "$got" = "$want" ] || fail "eval $*: '$got', expected '$want'"
}
ev 512 '2^3^2'
ev -4 '-2^2'
ev 9 '(1 + 2) * 3'
ev 7 '1 + 2 * 3'
ev 3 '10 - 4 - 3'
ev '7/2 (3.5)' '7/2'
ev 4 'ceil(7/2)'
ev -4 'floor(-7/2)'
ev 6 'log2(64)'
ev 3 'ceil(log2(5))'
ev 2 'min(3, 1 + 1, 4)'
ev 5 'max(2, 5)'
ev 812 '2*(p - 1)*ceil(8*cost_a*ceil(block/p) + cost_b)' d=3 block=300 cost_a=0.125 cost_b=20
ev 17 '2*p + log2(p) - 2' d=3
ev 3 'ecc(5)' rows=3 cols=4
ev 5 'ecc(root)' rows=3 cols=4 root=0
ev 4 'ecc(root)' d=4 root=9
ev "hypemu-lab: at 4: expected a number, a name or '(', found the end" '2 +'
ev "hypemu-lab: at 5: expected ')', found the end" '(1+2'
ev "hypemu-lab: at 2: division by zero" '1/0'
ev "hypemu-lab: at 1: unknown name 'foo' (variables: p, d, rows, cols, block, root, cost_a, cost_b; functions: ceil, floor, log2, min, max, ecc)" 'foo'
ev "hypemu-lab: at 1: unknown function 'sqrt' (functions: ceil, floor, log2, min, max, ecc)" 'sqrt(4)'
ev "hypemu-lab: at 3: unexpected '\$' (allowed: numbers, + - * / ^, parentheses, ceil, floor, log2, min, max, ecc, p, d, rows, cols, block, root, cost_a, cost_b)" '3 $ 4'
ev "hypemu-lab: at 3: unexpected '2' after a complete expression" '1 2'

ev 5 'ecc(root)' topology=linear nodes=8 root=5
ev 4 'ecc(root)' topology=ring nodes=8 root=5
ev 3 'ecc(root)' p=8 root=5
ev 4 'ecc(root)' topology=torus rows=4 cols=5 root=7
ev "hypemu-lab: eval: topology=tree: allowed: topology=hypercube|mesh|torus|linear|ring|bus" 'p' topology=tree
ev "hypemu-lab: at 5: 'root' has no value in this case (a rootless problem)" 'ecc(root)' topology=ring nodes=8

# ---- validate: an exercise checked before anything runs ----------------------------------
cat >"$tmp/typo.json" <<'EOF2'
{"name": "typo", "problem": "broadcast", "topology": "hypercube", "ports": "one_port", "bound": "d",
 "cases": [{"dim": 3, "root": 9}, {"dim": 2, "root": 1, "blocks": 2}]}
EOF2
typo="hypemu-lab: $tmp/typo.json: cases[0] (Q_3, root 9): algorithm.root: found 9; allowed: an integer from 0 to 7
$tmp/typo.json: cases[0] (Q_3, root 9): ports.model: found \"one_port\"; allowed: \"all-port\", \"one-port-full\", \"one-port-half\", \"shout\", \"bus\"
$tmp/typo.json: cases[1] (Q_2, root 1, blocks 2): algorithm.blocks: unknown parameter of problem broadcast; allowed keys: name, block, root
$tmp/typo.json: cases[1] (Q_2, root 1, blocks 2): ports.model: found \"one_port\"; allowed: \"all-port\", \"one-port-full\", \"one-port-half\", \"shout\", \"bus\""
for cmd in validate check class; do
    rc=0
    case $cmd in
    validate) "$lab" validate "$tmp/typo.json" >"$tmp/typo.out" 2>&1 || rc=$? ;;
    check) "$lab" check "$tmp/typo.json" "$s1" >"$tmp/typo.out" 2>&1 || rc=$? ;;
    class) "$lab" class "$tmp/typo.json" "$tmp" >"$tmp/typo.out" 2>&1 || rc=$? ;;
    esac
    [ "$rc" = 2 ] || fail "$cmd of a bad exercise: exit $rc"
    expect "$cmd of a bad exercise" "$typo" "$tmp/typo.out"
done
"$lab" validate 5 >"$tmp/valid.out" 2>&1 || fail "validate 5: exit $?"
expect "validate 5" "exercise allreduce-long: 3 cases, every key, expression and config checked" "$tmp/valid.out"

# ---- replay: a failing case, again, with its timeline and its player page ----------------
"$lab" check 5 "$HM_SRCDIR/examples/lab/ex5-allreduce-long.c" >"$tmp/five.out" 2>&1 && fail "check 5, the starter: exit 0"
grep -qxF "      replay: hypemu-lab replay 5 $HM_SRCDIR/examples/lab/ex5-allreduce-long.c 2" "$tmp/five.out" ||
    fail "check 5: no replay line: $(cat "$tmp/five.out")"
mkdir -p "$tmp/replay"
rc=0
(cd "$tmp/replay" && "$lab" replay 5 "$HM_SRCDIR/examples/lab/ex5-allreduce-long.c" 2 >out 2>&1) || rc=$?
[ "$rc" = 1 ] || fail "replay 5 2: exit $rc: $(cat "$tmp/replay/out")"
expect "replay 5 2" "case 2 of exercise allreduce-long (Q_3, block 256): FAIL: 828 slots > bound 728
wrote case-2.json (the case's config; run it again: hypemu case-2.json)
wrote case-2.txt (the timeline: less -S case-2.txt)
wrote case-2.html (the player: open it in a browser, e.g. xdg-open case-2.html)" "$tmp/replay/out"
python3 -c 'import json,sys; c=json.load(open(sys.argv[1])); assert c["sandbox"] and c["algorithm"]["block"] == 256, c' \
    "$tmp/replay/case-2.json" || fail "replay: case-2.json"
(cd "$tmp/replay" && "$bin" --json case-2.json >again.out 2>/dev/null) || true
grep -q '"completion_slots":828' "$tmp/replay/again.out" || fail "replay: hypemu case-2.json: $(cat "$tmp/replay/again.out")"
head -1 "$tmp/replay/case-2.txt" | grep -q '^hypemu timeline: hypercube, 8 nodes' || fail "replay: case-2.txt"
grep -q '<html' "$tmp/replay/case-2.html" || fail "replay: case-2.html"
# A crash in threads leaves no page; the replay says so and gives the crash line.
cat >"$tmp/crashy.c" <<'EOF2'
#include <hypemu.h>
static void node(hm_node_t *n, void *s)
{
    (void)s;
    if (hm_id(n) == 1)
        *(volatile int *)0 = 1;
}
static const hm_algorithm_t a = {.name = "crashy", .topologies = HM_BIT(HM_TOPO_HYPERCUBE),
                                 .ports = HM_BIT(HM_PORTS_ONE_PORT_FULL),
                                 .problem = HM_PROBLEM_BROADCAST, .node_main = node};
HM_PLUGIN(&a);
EOF2
rc=0
(cd "$tmp/replay" && "$lab" replay --no-sandbox 1 "$tmp/crashy.c" 1 >crash.out 2>&1) || rc=$?
[ "$rc" = 1 ] || fail "replay of a crash: exit $rc: $(cat "$tmp/replay/crash.out")"
at=
[ "${HM_HAVE_LIBDW:-no}" != yes ] || at=" at $tmp/crashy.c:6"
expect "replay of a crash" "case 1 of exercise bcast-one-port (Q_2, root 3): FAIL: node 1 (algorithm crashy, file $tmp/crashy.c) crashed in slot 0: SIGSEGV$at
wrote case-1.json (the case's config; run it again: hypemu case-1.json)
no player page: the run did not end with its outputs (node 1 (algorithm crashy, file $tmp/crashy.c) crashed in slot 0: SIGSEGV$at)" "$tmp/replay/crash.out"
rc=0
"$lab" replay 1 "$tmp/crashy.c" 7 >"$tmp/replay/bad.out" 2>&1 || rc=$?
[ "$rc" = 2 ] || fail "replay case 7: exit $rc"
expect "replay case 7" "hypemu-lab: replay: case 7: allowed: 1..3 (the rows of check)" "$tmp/replay/bad.out"

# ---- a node that polls: hypemu's watchdog sentence, not the grader's timeout ----------------
cat >"$tmp/poll.c" <<'EOF2'
#include <hypemu.h>
static void node(hm_node_t *n, void *s)
{
    hm_packet_t p;
    (void)s;
    while (hm_id(n) != hm_root(n) && hm_recv(n, &p) != HM_OK)
        ;
}
static const hm_algorithm_t a = {.name = "poller", .topologies = HM_BIT(HM_TOPO_HYPERCUBE),
                                 .ports = HM_BIT(HM_PORTS_ONE_PORT_FULL),
                                 .problem = HM_PROBLEM_BROADCAST, .node_main = node};
HM_PLUGIN(&a);
EOF2
printf '{"name": "poll", "problem": "broadcast", "topology": "hypercube", "ports": "one-port-full", "bound": "d", "config": {"clock": {"slot_timeout": 1}}, "cases": [{"dim": 2, "root": 1}]}\n' >"$tmp/poll.json"
"$lab" check "$tmp/poll.json" "$tmp/poll.c" >"$tmp/poll.out" 2>&1 && fail "poll: exit 0"
row "$tmp/poll.out" 1 Q_2 1 1 no 0 2 2 0 0 'FAIL: node 0 did not end slot 0 within clock.slot_timeout = 1 s'

# ---- a class: three submissions, one CSV --------------------------------------------------------
mkdir -p "$tmp/class/bob"
cp "$HM_SRCDIR/examples/lab/solutions/ex1-bcast-one-port.c" "$tmp/class/alice.c"
cp "$s1" "$tmp/class/bob/mine.c"
printf 'this is not C\n' >"$tmp/class/carol.c"
"$lab" class 1 "$tmp/class" --csv "$tmp/grades.csv" >"$tmp/class.out" 2>&1 || fail "class: exit $?: $(cat "$tmp/class.out")"
[ "$(grep -c '^== ' "$tmp/class.out")" = 3 ] && grep -qx '== alice ==' "$tmp/class.out" ||
    fail "class: $(cat "$tmp/class.out")"
expect "class CSV" "student,file,passed,cases,result,first_failure
alice,$tmp/class/alice.c,3,3,pass,
bob,$tmp/class/bob/mine.c,0,3,fail,\"case 1: node 0: index 0: missing, expected 761; 2 packets, expected 3\"
carol,$tmp/class/carol.c,0,3,fail,$tmp/class/carol.c does not build" "$tmp/grades.csv"
# In threads, options anywhere: a submission that leaves a detached child behind, which
# would rewrite the CSV after the grader returned; the grader ends it first.
mkdir -p "$tmp/class2"
cp "$t/detach.c" "$tmp/class2/dave.c"
sed -i "s|../../examples/lab/solutions/|$HM_SRCDIR/examples/lab/solutions/|" "$tmp/class2/dave.c"
LAB_TEST_CSV=$tmp/grades2.csv "$lab" class --no-sandbox 1 "$tmp/class2" --csv "$tmp/grades2.csv" >"$tmp/class2.out" 2>&1 ||
    fail "class --no-sandbox: exit $?: $(cat "$tmp/class2.out")"
sleep 3
expect "class CSV in threads" "student,file,passed,cases,result,first_failure
dave,$tmp/class2/dave.c,3,3,pass," "$tmp/grades2.csv"
echo "check_lab.sh: ok"
