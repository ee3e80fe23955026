#!/bin/sh
# SPDX-License-Identifier: MIT
# check_signals.sh — Ctrl-C and SIGTERM in the middle of a Q_10 run (README "Exit
# codes"): the run stops at the end of its slot, exits 130 (143), prints the summary
# with "end": "interrupted", and writes every requested output for what was done: an
# event log whose every line parses, a trace that parses, no temporary file left; a
# second Ctrl-C ends the process at once (killed by SIGINT: the shell reports 130),
# removing the output file it was writing.
set -eu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin="$HM_BUILDDIR/hypemu"
cfg="$HM_SRCDIR/configs/q4_successive.json"
# The signals are sent once the run is under way, whatever the host's load: once its
# progress line (--progress, every 50 ms) is on stderr, the slot clock runs and the
# handlers are in place (a fixed sleep could signal a process still starting).
export HYPEMU_PROGRESS_PERIOD=0.05
started() { # started PID FILE: wait until FILE shows a progress line or PID has ended
    i=0
    while [ $i -lt 1200 ] && kill -0 "$1" 2>/dev/null &&
        ! grep -q '^hypemu: progress: slot' "$2" 2>/dev/null; do
        sleep 0.05
        i=$((i + 1))
    done
}
interrupt() { # interrupt NAME TSAN_OPTIONS SIGNAL|pause...: a Q_10 run in $tmp/NAME.*,
    name=$1     # signalled once under way
    tsan=$2
    shift 2
    (cd "$tmp" && TSAN_OPTIONS="$tsan" && export TSAN_OPTIONS &&
        exec "$bin" --json --progress --set topology.dim=10 --set output.events="$name.jsonl" \
            --set output.trace="$name.trace" "$cfg" >"$tmp/$name.json" 2>"$tmp/$name.err") &
    pid=$!
    started "$pid" "$tmp/$name.err"
    for sig in "$@"; do
        if [ "$sig" = pause ]; then
            sleep 0.5
        else
            kill -s "$sig" "$pid" 2>/dev/null || true
        fi
    done
    rc=0
    wait "$pid" || rc=$?
    echo "$rc" >"$tmp/$name.rc"
}
interrupt int "${TSAN_OPTIONS:-}" INT
interrupt term "${TSAN_OPTIONS:-}" TERM
# A second Ctrl-C ends the process at once: the first gave SIGINT its default action
# back (both may also arrive before the handler runs and count as one).
interrupt twice "${TSAN_OPTIONS:-}" INT pause INT
python3 - "$tmp" <<'PY'
import json, os, sys

tmp = sys.argv[1]
def fail(msg):
    sys.exit("FAIL: " + msg)
for name, code in (("int", 130), ("term", 143)):
    rc = int(open("%s/%s.rc" % (tmp, name)).read())
    err = "".join(l for l in open("%s/%s.err" % (tmp, name))
                  if not l.startswith("hypemu: progress: "))
    if rc != code:
        fail("%s: exit %d, expected %d (stderr: %s)" % (name, rc, code, err.strip()))
    s = json.load(open("%s/%s.json" % (tmp, name)))
    if s.get("end") != "interrupted" or s["exit_code"] != code or s["verified"]:
        fail("%s: summary end %s, exit_code %s, verified %s" % (name, s.get("end"),
             s["exit_code"], s["verified"]))
    if not err.startswith("hypemu: interrupted at the end of slot "):
        fail("%s: stderr %r" % (name, err))
    last = -1
    for line in open("%s/%s.jsonl" % (tmp, name)):
        last = max(last, json.loads(line)["slot"])
    if last != s["completion_slots"] - 1 and last != s["slots_run"] - 1:
        fail("%s: last event at slot %d, summary %d slots" % (name, last, s["completion_slots"]))
    json.load(open("%s/%s.trace" % (tmp, name)))
left = [f for f in os.listdir(tmp) if ".tmp-" in f]
if left:
    fail("temporary files left: %s" % left)
if int(open(tmp + "/twice.rc").read()) != 130:
    fail("second Ctrl-C: exit %s (stderr: %s)" % (open(tmp + "/twice.rc").read().strip(),
         open(tmp + "/twice.err").read().strip()))
print("SIGINT 130, SIGTERM 143: summaries interrupted, outputs parse")
PY
# --repeat (doc/contention.md): SIGTERM stops the repetitions; exit 143, the runs done
# so far listed, the last one interrupted (130), the statistics over the complete ones.
("$bin" --repeat 1000 --json --progress --set output=null --set topology.dim=8 "$cfg" \
    >"$tmp/rep.json" 2>"$tmp/rep.err") &
pid=$!
started "$pid" "$tmp/rep.err"
kill -s TERM "$pid" 2>/dev/null || true
rc=0
wait "$pid" || rc=$?
python3 - "$tmp/rep.json" "$rc" <<'PY'
import json, sys
doc, rc = json.load(open(sys.argv[1])), int(sys.argv[2])
runs = doc["runs"]
if rc != 143 or not 1 <= len(runs) < 1000 or runs[-1]["exit_code"] != 130:
    sys.exit("FAIL: --repeat and SIGTERM: exit %d, %d runs, last exit %s"
             % (rc, len(runs), runs[-1]["exit_code"] if runs else None))
if len(runs) > 1 and doc["stats"]["wall_seconds"]["min"] <= 0:
    sys.exit("FAIL: --repeat stats %s" % doc["stats"])
print("--repeat: SIGTERM after %d runs, exit 143" % len(runs))
PY
