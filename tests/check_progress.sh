#!/bin/sh
# SPDX-License-Identifier: MIT
# check_progress.sh — the progress line on stderr (README "Progress"): --progress
# forces it when stderr is not a terminal, HYPEMU_PROGRESS_PERIOD makes it come at
# once; every line has the documented format with slots that grow and stay below the
# run's length, under the barrier clock and the local clock (the slot every node has
# completed); stdout is the same with or without it; --quiet, a stderr that is not a
# terminal and the free-running clock (no machine-wide slot) give none.
set -eu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin="$HM_BUILDDIR/hypemu"
cfg="$HM_SRCDIR/configs/q4_successive.json"
run() { # run NAME ARGS...: stdout without wall_seconds in NAME.out, stderr in NAME.err
    name=$1
    shift
    # In $tmp: the config's timeline, events and trace go to the current directory
    # (make distcheck refuses files left in the build directory).
    (cd "$tmp" && HYPEMU_PROGRESS_PERIOD=0.002 "$bin" --json --set topology.dim=7 "$@" "$cfg" \
        >"$tmp/$name.json" 2>"$tmp/$name.err")
    sed 's/"wall_seconds":[0-9.e-]*,//' "$tmp/$name.json" >"$tmp/$name.out"
}
run plain
run progress --progress
run quiet --progress --quiet
run local --progress --set clock.mode=local
(cd "$tmp" && HYPEMU_PROGRESS_PERIOD=0.002 "$bin" --progress \
    "$HM_SRCDIR/configs/q8_allgather_ring_free.json" >/dev/null 2>"$tmp/free.err")
cmp "$tmp/plain.out" "$tmp/progress.out"
cmp "$tmp/plain.out" "$tmp/quiet.out"
test ! -s "$tmp/plain.err" || { echo "FAIL: a progress line without a terminal"; exit 1; }
test ! -s "$tmp/quiet.err" || { echo "FAIL: a progress line with --quiet"; exit 1; }
test ! -s "$tmp/free.err" || { echo "FAIL: a progress line under the free clock"; exit 1; }
python3 - "$tmp" <<'PY'
import json, re, sys

tmp = sys.argv[1]
summary = json.load(open(tmp + "/plain.json"))
fmt = re.compile(r"hypemu: progress: slot (\d+) of at most 1000000 \((\d+\.\d\d)%\), "
                 r"(\d+) packets/s, elapsed (\d+\.\d) s, ETA at most (\d+) s$")


def check(name):
    lines = open(tmp + "/" + name + ".err").read().split("\n")
    if lines[-1] != "":
        sys.exit("FAIL: %s: the last progress line does not end in a newline" % name)
    lines = lines[:-1]
    if not lines:
        sys.exit("FAIL: %s: no progress line with --progress" % name)
    last = -1
    for line in lines:
        m = fmt.match(line)
        if not m:
            sys.exit("FAIL: %s: progress line %r" % (name, line))
        slot = int(m.group(1))
        if slot < last or slot > summary["completion_slots"]:
            sys.exit("FAIL: %s: slot %d after %d (run of %d slots)"
                     % (name, slot, last, summary["completion_slots"]))
        if m.group(2) != "%.2f" % (100.0 * (slot + 1) / 1000000):
            sys.exit("FAIL: %s: percentage in %r" % (name, line))
        last = slot
    print("%s: %d progress lines, last at slot %d of %d"
          % (name, len(lines), last, summary["completion_slots"]))


check("progress")
check("local")
PY
