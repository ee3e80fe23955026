#!/bin/sh
# SPDX-License-Identifier: MIT
# check_crash.sh — crashes a student can act on (README "Exit codes", hypemu(1)): node
# programs of tests/crash/crash.c, built with -g and -fstack-clash-protection (as
# hypemu.pc's Cflags ask). A 1 MiB array on a node's stack of 64 KiB (stack_kib's
# default) is named a stack overflow, with the key; with stack_kib 4096 the same run
# verifies. A null dereference names its source line where configure found libdw
# (HM_HAVE_LIBDW). Of two nodes that crash in slot 0, the lower is reported, every run.
# Under --sandbox (where configure found libseccomp) the overflow and the source line are
# named too. A stack_kib outside 16..1048576, or not an integer, is a config error (exit 2).
set -eu
: "${HM_SRCDIR:?}" "${HM_BUILDDIR:?}"
CC=${CC:-cc}
tmp=$(mktemp -d /tmp/hypemu-crash-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
bin="$HM_BUILDDIR/hypemu"
src="$HM_SRCDIR/tests/crash/crash.c"

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

$CC -g -fstack-clash-protection -shared -fPIC -pthread -I"$HM_SRCDIR/include" -I"$HM_BUILDDIR/include" \
    -o "$tmp/crash.so" "$src" || fail "cannot build tests/crash/crash.c"

# at PATTERN: " at FILE:LINE" for the line of crash.c that PATTERN finds (its first),
# plus OFFSET lines; nothing without libdw.
at() {
    [ "${HM_HAVE_LIBDW:-no}" = yes ] || return 0
    line=$(grep -n -F "$1" "$src" | head -n 1 | cut -d: -f1)
    [ -n "$line" ] || fail "no line '$1' in $src"
    printf ' at %s:%d' "$src" $((line + ${2:-0}))
}

# run NAME EXTRA: algorithm crash-NAME on Q_3 with EXTRA config members; sets rc, leaves
# $tmp/out and $tmp/err.
run() {
    printf '{"plugins": ["crash.so"], %s"topology": {"kind": "hypercube", "dim": 3}, "algorithm": {"name": "crash-%s"}}\n' \
        "$2" "$1" >"$tmp/$1.json"
    rc=0
    (cd "$tmp" && exec timeout 60 "$bin" --json "$1.json") >"$tmp/out" 2>"$tmp/err" || rc=$?
}

expect() { # expect WHAT CODE LINE: exit code and stderr (exactly LINE)
    [ "$rc" = "$2" ] || fail "$1: exit $rc, expected $2 (stderr: $(cat "$tmp/err"))"
    [ "$(cat "$tmp/err")" = "$3" ] || fail "$1: stderr '$(cat "$tmp/err")', expected '$3'"
}

verified() { # verified WHAT: exit 0 and "verified": true
    [ "$rc" = 0 ] || fail "$1: exit $rc (stderr: $(cat "$tmp/err"))"
    python3 -c 'import json,sys; sys.exit(not json.load(open(sys.argv[1]))["verified"])' "$tmp/out" ||
        fail "$1: not verified: $(cat "$tmp/out")"
}

# ---- a stack overflow ------------------------------------------------------------------
# The fault is the probe of scratch's frame, at its opening brace.
where=$(at "static int scratch(" 1)
run overflow ""
expect overflow 139 "hypemu: node 3 (algorithm crash-overflow, plugin ./crash.so) crashed in slot 0: SIGSEGV$where: node 3 overflowed its stack (64 KiB, stack_kib)"
run overflow '"stack_kib": 128, '
expect "overflow, stack_kib 128" 139 "hypemu: node 3 (algorithm crash-overflow, plugin ./crash.so) crashed in slot 0: SIGSEGV$where: node 3 overflowed its stack (128 KiB, stack_kib)"
run overflow '"stack_kib": 4096, '
verified "overflow, stack_kib 4096"
rc=0
(cd "$tmp" && exec timeout 60 "$bin" --json --set stack_kib=4096 overflow.json) >"$tmp/out" 2>"$tmp/err" || rc=$?
verified "overflow, --set stack_kib=4096"

# ---- the source line of a fault --------------------------------------------------------
run null ""
expect null 139 "hypemu: node 3 (algorithm crash-null, plugin ./crash.so) crashed in slot 2: SIGSEGV$(at "/* the null dereference */")"

# ---- two nodes crash in slot 0: node 1, though node 2 faults 20 ms earlier --------------
for i in 1 2 3 4 5; do
    run two ""
    expect "two, run $i" 139 "hypemu: node 1 (algorithm crash-two, plugin ./crash.so) crashed in slot 0: SIGSEGV$(at "/* nodes 1 and 2 */")"
done

# ---- sandboxed (README "Sandbox"): the node process's handler says the same -------------
if [ "${HM_HAVE_SECCOMP:-no}" = yes ]; then
    run overflow ""
    rc=0
    (cd "$tmp" && exec timeout 60 "$bin" --json --sandbox overflow.json) >"$tmp/out" 2>"$tmp/err" || rc=$?
    expect "sandboxed overflow" 5 "hypemu: node 3 (algorithm crash-overflow, plugin ./crash.so) crashed in slot 0: SIGSEGV$where: node 3 overflowed its stack (64 KiB, stack_kib)"
    rc=0
    (cd "$tmp" && exec timeout 60 "$bin" --json --sandbox --set stack_kib=4096 overflow.json) >"$tmp/out" 2>"$tmp/err" || rc=$?
    verified "sandboxed overflow, stack_kib 4096"
    run null ""
    rc=0
    (cd "$tmp" && exec timeout 60 "$bin" --json --sandbox null.json) >"$tmp/out" 2>"$tmp/err" || rc=$?
    expect "sandboxed null" 5 "hypemu: node 3 (algorithm crash-null, plugin ./crash.so) crashed in slot 2: SIGSEGV$(at "/* the null dereference */")"
fi

# ---- stack_kib's range -------------------------------------------------------------------
for v in -1 '"64"' 15 1048577 1.5; do
    run overflow "\"stack_kib\": $v, "
    expect "stack_kib $v" 2 "overflow.json: stack_kib: found $v; allowed: an integer from 16 to 1048576"
done
echo "check_crash: stack overflow named (64 and 128 KiB), verified with 4096 KiB, source lines ${HM_HAVE_LIBDW:-no}, first crash node 1 in 5 runs, sandboxed ${HM_HAVE_SECCOMP:-no}, 5 bad stack_kib values"
