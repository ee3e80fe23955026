#!/bin/sh
# SPDX-License-Identifier: MIT
# check_sandbox.sh — hypemu --sandbox (README "Sandbox"): every node program of a plugin
# runs in a node process of its own, shut in by a seccomp filter before the plugin is
# loaded. Honest programs (tests/sandbox/sandbox.c) pass as in threads, their output on
# stderr prefixed "node N: " and never in the summary; cheats that share memory fail;
# escapes (fork, exec, a file written, a socket, kill of hypemu, ptrace, _exit, SIGSEGV,
# SIGSTOP, a handler of its own for SIGSYS, a constructor that forks) end the run with
# exit 5 and one line naming the node and the cause, never hang, and leave no process
# behind; the rules of tests/rules/ hold in node processes too.
set -eu
: "${HM_SRCDIR:?}" "${HM_BUILDDIR:?}"
if [ "${HM_HAVE_SECCOMP:-no}" != yes ]; then
    echo "check_sandbox.sh: SKIP: configure found no libseccomp (setup.sh installs libseccomp-dev)"
    exit 77
fi
CC=${CC:-cc}
tmp=$(mktemp -d /tmp/hypemu-sandbox-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
bin="$HM_BUILDDIR/hypemu"
# Every process of these runs carries this variable: none may outlive its run.
HM_SANDBOX_TEST=$tmp
export HM_SANDBOX_TEST

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

$CC -shared -fPIC -I"$HM_SRCDIR/include" -I"$HM_BUILDDIR/include" -o "$tmp/sandbox.so" "$HM_SRCDIR/tests/sandbox/sandbox.c" ||
    fail "cannot build tests/sandbox/sandbox.c"
$CC -shared -fPIC -pthread -I"$HM_SRCDIR/include" -I"$HM_BUILDDIR/include" -o "$tmp/rules.so" "$HM_SRCDIR/tests/rules/rules.c" ||
    fail "cannot build tests/rules/rules.c"

# The processes other than this shell and the check itself that carry HM_SANDBOX_TEST.
left_behind() {
    python3 - "$tmp" "$$" <<'PY'
import os, sys
key = ("HM_SANDBOX_TEST=" + sys.argv[1]).encode()
for pid in os.listdir("/proc"):
    if not pid.isdigit() or int(pid) in (os.getpid(), int(sys.argv[2])):
        continue
    try:
        env = open("/proc/%s/environ" % pid, "rb").read().split(b"\0")
        cmd = open("/proc/%s/cmdline" % pid, "rb").read().replace(b"\0", b" ")
    except OSError:
        continue
    if key in env:
        print(pid, cmd.decode(errors="replace"))
PY
}

# run PLUGIN NAME DIM [ARGS...]: hypemu --json --sandbox on algorithm NAME on Q_DIM, in
# $tmp; sets rc, leaves $tmp/out and $tmp/err.
run() {
    plugin=$1 name=$2 dim=$3
    shift 3
    printf '{"topology": {"kind": "hypercube", "dim": %s}, "algorithm": {"name": "%s"}, "clock": {"slot_timeout": 5}}\n' \
        "$dim" "$name" >"$tmp/$name.json"
    rc=0
    (cd "$tmp" && HM_SANDBOX_TEST_FILE="$tmp/written" exec timeout 60 "$bin" --json --sandbox \
        --plugin "./$plugin" "$@" "$name.json") >"$tmp/out" 2>"$tmp/err" || rc=$?
    orphans=$(left_behind)
    [ -z "$orphans" ] || fail "$name: processes left behind: $orphans"
}

# summary NAME VERIFIED END CODE: the summary's verified, end and exit code.
summary() {
    python3 - "$tmp/out" "$2" "$3" "$4" <<'PY' || fail "$1: summary $(cat "$tmp/out") (stderr: $(cat "$tmp/err"))"
import json, sys
s = json.load(open(sys.argv[1]))
want = (sys.argv[2] == "true", sys.argv[3], int(sys.argv[4]))
got = (s["verified"], s.get("end", "done"), s["exit_code"])
if got != want:
    sys.exit("verified, end, exit_code: %s, expected %s" % (got, want))
PY
}

# ---- hm_grid, answered in the node process ---------------------------------------------
printf '{"topology": {"kind": "mesh", "rows": 2, "cols": 3}, "ports": {"routing": "packet"}, "algorithm": {"name": "sbx-grid", "root": 0}}\n' >"$tmp/grid.json"
(cd "$tmp" && timeout 60 "$bin" --json --sandbox --plugin ./sandbox.so grid.json) >"$tmp/out" 2>"$tmp/err" || true
grep -qxF 'node 5: grid 0: 2 x 3, row 1, col 2' "$tmp/err" || fail "grid on a mesh: $(cat "$tmp/err")"
run sandbox.so sbx-grid 1
grep -qxF 'node 1: grid -4: -1 x -1, row -1, col -1' "$tmp/err" || fail "grid on Q_1: $(cat "$tmp/err")"

# ---- the free clock's timed wait, through the channel ------------------------------------
run sandbox.so sbx-timed 3 --set 'clock.mode="free"'
[ "$rc" = 0 ] || fail "timed: exit $rc (stderr: $(cat "$tmp/err"))"
summary timed true done 0
[ "$(grep -c '^node 0: wait: deadline$' "$tmp/err") $(grep -c '^node [1-7]: wait: packet$' "$tmp/err")" = "1 7" ] ||
    fail "timed: the root's wait ends at its deadline, the others' with a packet: $(cat "$tmp/err")"

# ---- honest: verified, the nodes' output on stderr, prefixed ------------------------------
run sandbox.so sbx-honest 3
[ "$rc" = 0 ] || fail "honest: exit $rc (stderr: $(cat "$tmp/err"))"
summary honest true done 0
[ "$(grep -c '^node [0-7]: hello from node [0-7]$' "$tmp/err")" = 8 ] ||
    fail "honest: stderr lacks the 8 prefixed lines: $(cat "$tmp/err")"
[ "$(grep -c '^node [0-7]: a warning from node [0-7]$' "$tmp/err")" = 8 ] ||
    fail "honest: stderr lacks the 8 prefixed warnings"
[ "$(grep -c '^node [0-7]: {"verified": true, "exit_code": 0}$' "$tmp/err")" = 8 ] ||
    fail "honest: the forged summary lines are not on stderr, prefixed"
[ "$(wc -l <"$tmp/out")" = 1 ] || fail "honest: stdout has more than the summary: $(cat "$tmp/out")"
grep -v '^node [0-7]: ' "$tmp/err" && fail "honest: stderr has unprefixed lines"

# The same program in threads, for the slot count: identical. (There its printf lines,
# its forged summary among them, share stdout with the summary.)
(cd "$tmp" && "$bin" --json --plugin ./sandbox.so sbx-honest.json) >"$tmp/threads.all" 2>/dev/null ||
    fail "honest in threads: exit $?"
grep '"completion_slots"' "$tmp/threads.all" >"$tmp/threads"
python3 - "$tmp/out" "$tmp/threads" <<'PY' || fail "honest: sandbox and threads differ"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
for k in ("completion_slots", "transmissions", "conflicts", "verified"):
    if a[k] != b[k]:
        sys.exit("%s: %s in the sandbox, %s in threads" % (k, a[k], b[k]))
PY

# What each node holds (hm_show) reaches the page (output.html) as in threads: the same
# changes, node by node, slot by slot (the page's "held"); each node shows 70 values from
# the root's, the page keeping the first 64, then the root's value alone.
(cd "$tmp" && timeout 60 "$bin" --quiet --sandbox --plugin ./sandbox.so \
    --set output.html=sbx.html sbx-honest.json) >/dev/null 2>&1 || fail "honest page in the sandbox: exit $?"
(cd "$tmp" && "$bin" --quiet --plugin ./sandbox.so --set output.html=thr.html sbx-honest.json) \
    >/dev/null 2>&1 || fail "honest page in threads: exit $?"
python3 - "$tmp/sbx.html" "$tmp/thr.html" <<'PY' || fail "honest: the pages' hm_show differ"
import json, re, sys
def held(path):
    page = open(path).read()
    m = re.search(r'<script id="hm-data" type="application/json">\n(.*?)\n</script>', page, re.S)
    return json.loads(m.group(1))["held"]
a, b = held(sys.argv[1]), held(sys.argv[2])
if a != b:
    sys.exit("held in the sandbox %s, in threads %s" % (a, b))
for x, h in enumerate(a):
    # Replayed (slot, length, start, n, then n values): the last two buffers are 70
    # values v.. (64 kept), then v alone.
    states, buf, i = [], [], 0
    while i + 3 < len(h):
        length, start, k = h[i + 1], h[i + 2], h[i + 3]
        buf = (buf + [0] * 64)[:min(length, 64)]
        buf[start:start + k] = h[i + 4:i + 4 + k]
        states.append((length, list(buf)))
        i += 4 + k
    v = states[-1][1][0] if states and states[-1][1] else None
    if len(states) < 2 or states[-1] != (1, [v]) or states[-2] != (70, list(range(v, v + 64))):
        sys.exit("node %d holds %s" % (x, states))
print("hm_show under --sandbox: the page's held equals the threads' on %d nodes" % len(a))
PY

# A node process holds standard input, output and error, nothing else of hypemu's.
run sandbox.so sbx-fds 3
summary fds true done 0
grep -qx 'node 1: descriptors: 0 1 2' "$tmp/err" || fail "fds: $(cat "$tmp/err")"

# On Q_6 (64 node processes, one descriptor each in hypemu: it raises its soft limit of
# 40 to the hard one) and in every clock mode.
(ulimit -Sn 40 && run sandbox.so sbx-honest 6 && summary honest-q6 true done 0) ||
    fail "honest-q6 under ulimit -Sn 40: $(cat "$tmp/err" | grep -v '^node ')"
run sandbox.so sbx-honest 3 --set clock.mode=local
summary honest-local true done 0
run sandbox.so sbx-honest 3 --set clock.mode=free
summary honest-free true done 0

# ---- a cheat that shares memory between nodes: each node process has its own ---------
run sandbox.so sbx-global 3
[ "$rc" = 1 ] || fail "global: exit $rc, expected 1 (stderr: $(cat "$tmp/err"))"
summary global false done 1
grep -q '"verification":"node [1-7]: index 0: found 0, expected' "$tmp/out" ||
    fail "global: verification $(cat "$tmp/out")"

# The same through the config ("sandbox": true, with the plugin in the config or on the
# command line) and through --set sandbox=true; a key that is not a boolean is exit 2.
printf '{"topology": {"kind": "hypercube", "dim": 3}, "algorithm": {"name": "sbx-global"}, "plugins": ["sandbox.so"], "sandbox": true}\n' >"$tmp/key.json"
(cd "$tmp" && "$bin" --json key.json) >"$tmp/out" 2>"$tmp/err" && fail "sandbox key: exit 0"
summary "sandbox key" false done 1
(cd "$tmp" && "$bin" --json --plugin ./sandbox.so --set sandbox=true sbx-global.json) >"$tmp/out" 2>"$tmp/err" &&
    fail "--set sandbox=true: exit 0"
summary "--set sandbox=true" false done 1
printf '{"topology": {"kind": "hypercube", "dim": 3}, "algorithm": {"name": "sbx-global"}, "plugins": ["sandbox.so"], "sandbox": "yes"}\n' >"$tmp/key.json"
rc=0
(cd "$tmp" && "$bin" key.json) >"$tmp/out" 2>"$tmp/err" || rc=$?
[ "$rc" = 2 ] && [ "$(cat "$tmp/err")" = 'key.json: sandbox: found "yes"; allowed: true or false' ] ||
    fail "sandbox \"yes\": exit $rc: $(cat "$tmp/err")"

# ---- a plugin's own verify is not a check under --sandbox ----------------------------------
run sandbox.so sbx-own 2
[ "$rc" = 1 ] || fail "own: exit $rc, expected 1"
grep -q '"verification":"nothing checked this run: a plugin.s own verify alone is its author.s word here","checked_by":"plugin"' "$tmp/out" ||
    fail "own: verification $(cat "$tmp/out")"

# A plugin's own verify runs in a node process on a copy of the outcome: it adds its
# failure, and its crash is a failure of the run, not of hypemu.
run sandbox.so sbx-ownfail 3
[ "$rc" = 1 ] && grep -q '"verification":"my own failure: 1 stores at node 1","checked_by":"broadcast"' "$tmp/out" ||
    fail "ownfail: exit $rc: $(cat "$tmp/out")"
run sandbox.so sbx-verifycrash 3
[ "$rc" = 1 ] && grep -q '"verification":"the plugin.s verify in the sandbox: SIGSEGV"' "$tmp/out" ||
    fail "verifycrash: exit $rc: $(cat "$tmp/out") $(cat "$tmp/err")"

# ---- escapes: exit 5, one line naming the node and the cause -------------------------------
# expect NAME LINE: exit 5, end rules, and exactly LINE on stderr.
expect() {
    [ "$rc" = 5 ] || fail "$1: exit $rc, expected 5 (stderr: $(cat "$tmp/err"))"
    [ "$(cat "$tmp/err")" = "$2" ] || fail "$1: stderr '$(cat "$tmp/err")', expected '$2'"
    summary "$1" false rules 5
}
crash() { # crash NAME CAUSE
    run sandbox.so "sbx-$1" 3
    expect "$1" "hypemu: node 1 (algorithm sbx-$1, plugin ./sandbox.so) crashed in slot 1: $2"
}
crash fork "the sandbox refused the system call clone (number 56)"
crash exec "the sandbox refused the system call execve (number 59)"
crash write_file "the sandbox refused the system call openat (number 257)"
[ ! -e "$tmp/written" ] || fail "write_file: the file was written"
crash socket "the sandbox refused the system call socket (number 41)"
crash kill_parent "the sandbox refused the system call kill (number 62)"
crash ptrace "the sandbox refused the system call ptrace (number 101)"
crash sigsys "the sandbox refused the system call rt_sigaction (number 13)"
crash exit0 "its process ended (exit status 0) before its node program returned"
crash segv "SIGSEGV"
crash stop "its process was stopped by SIGSTOP"

# A node that never ends its slot: clock.slot_timeout, exit 3.
run sandbox.so sbx-spin 3
[ "$rc" = 3 ] || fail "spin: exit $rc, expected 3 (stderr: $(cat "$tmp/err"))"
[ "$(cat "$tmp/err")" = "hypemu: node 1 did not end slot 1 within clock.slot_timeout = 5 s" ] ||
    fail "spin: stderr $(cat "$tmp/err")"

# The rules of tests/rules/ in node processes: each run ends with a line naming the node,
# never exit 0.
for name in exit exit_all pthread_exit thread abort crash_all; do
    run rules.so "rules-$name" 3
    case $rc in 0 | 124) fail "rules-$name: exit $rc (stderr: $(cat "$tmp/err"))" ;; esac
    grep -Eq '^hypemu: node [0-7]' "$tmp/err" || fail "rules-$name: no line naming a node: $(cat "$tmp/err")"
done

# ---- loading: no plugin code runs in hypemu, constructors included -------------------------
cat >"$tmp/ctor.c" <<'EOF'
#include <unistd.h>
#include <hypemu.h>
__attribute__((constructor)) static void early(void)
{
    if (fork() == 0)
        for (;;)
            pause();
}
static void node(hm_node_t *n, void *s)
{
    (void)s;
    hm_store(n, 0);
}
static const hm_algorithm_t a = {.name = "ctor", .topologies = HM_BIT(HM_TOPO_HYPERCUBE),
                                 .ports = HM_BIT(HM_PORTS_ALL_PORT), .node_main = node,
                                 .problem = HM_PROBLEM_BROADCAST};
HM_PLUGIN(&a);
EOF
$CC -shared -fPIC -I"$HM_SRCDIR/include" -I"$HM_BUILDDIR/include" -o "$tmp/ctor.so" "$tmp/ctor.c" || fail "cannot build ctor.c"
rc=0
"$bin" --sandbox --plugin "$tmp/ctor.so" --list >"$tmp/out" 2>"$tmp/err" || rc=$?
[ "$rc" = 2 ] || fail "ctor: exit $rc, expected 2"
[ "$(cat "$tmp/err")" = "hypemu: plugin $tmp/ctor.so: describing it in the sandbox: the sandbox refused the system call clone (number 56)" ] ||
    fail "ctor: stderr $(cat "$tmp/err")"
# --list reads descriptors only: in the sandbox even without --sandbox.
rc=0
"$bin" --plugin "$tmp/ctor.so" --list >"$tmp/out" 2>"$tmp/err" || rc=$?
[ "$rc" = 2 ] && [ "$(cat "$tmp/err")" = "hypemu: plugin $tmp/ctor.so: describing it in the sandbox: the sandbox refused the system call clone (number 56)" ] ||
    fail "ctor, --list without --sandbox: exit $rc, stderr $(cat "$tmp/err")"

# --list --json --sandbox describes the plugin as --list --json does.
"$bin" --plugin "$tmp/sandbox.so" --list --json >"$tmp/threads" || fail "--list --json: exit $?"
"$bin" --sandbox --plugin "$tmp/sandbox.so" --list --json >"$tmp/out" || fail "--list --json --sandbox: exit $?"
cmp -s "$tmp/threads" "$tmp/out" || fail "--list --json differs under --sandbox: $(diff "$tmp/threads" "$tmp/out" | head -5)"

# Not a plugin, a plugin that does not load: the same messages as without the sandbox.
printf 'not an ELF file\n' >"$tmp/junk.so"
for f in "$tmp/junk.so" "$tmp/missing.so"; do
    a=$("$bin" --plugin "$f" --list 2>&1 >/dev/null || true)
    b=$("$bin" --sandbox --plugin "$f" --list 2>&1 >/dev/null || true)
    [ -n "$a" ] && [ "$a" = "$b" ] || fail "$f: '$b' under --sandbox, '$a' without"
done

# A node process started by hand refuses to run.
rc=0
"$HM_BUILDDIR/hypemu-node" x 1 >"$tmp/out" 2>&1 || rc=$?
[ "$rc" = 2 ] && grep -q 'started by hypemu --sandbox only' "$tmp/out" || fail "hypemu-node by hand: exit $rc"
echo "check_sandbox.sh: all passed"
