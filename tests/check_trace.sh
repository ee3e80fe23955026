#!/bin/sh
# SPDX-License-Identifier: MIT
# check_trace.sh — output.trace (README "Outputs") as the viewers read it: for every
# shipped config the Chrome trace parses as JSON; time starts at slot 0; every node's
# track has its name and sort index; every flow arrow has exactly one start and one end,
# both bound to a slice: the same category and timestamp as an "X" slice on its own
# thread (the send slice at the start, the receive slice at the end), and there is one
# arrow per transmission; a shout is one slice (so under the shout model the send
# slices are the distinct (node, slot) pairs that sent: 128 for the Q_4 successive
# broadcasts' 240 packets).
set -eu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin="$HM_BUILDDIR/hypemu"
for cfg in "$HM_SRCDIR"/configs/*.json; do
    name=$(basename "$cfg" .json)
    rc=0
    (cd "$tmp" && "$bin" --json --set output.trace="$tmp/$name.trace" \
        --set output.events="$tmp/$name.jsonl" "$cfg" >"$tmp/$name.json" 2>/dev/null) || rc=$?
    [ "$rc" -le 1 ] || { echo "FAIL: $name exited $rc" >&2; exit 1; }
done
python3 - "$tmp" <<'PY'
import glob, json, os, sys
from collections import defaultdict

tmp = sys.argv[1]
def fail(msg):
    sys.exit("FAIL: " + msg)
emissions_q4 = None
for path in sorted(glob.glob(tmp + "/*.trace")):
    name = os.path.basename(path)[:-6]
    summary = json.load(open("%s/%s.json" % (tmp, name)))
    events = [json.loads(l) for l in open("%s/%s.jsonl" % (tmp, name))]
    trace = json.load(open(path))["traceEvents"]
    timed = [e for e in trace if e["ph"] != "M"]
    if min(e["ts"] for e in timed) != 0:
        fail("%s: the trace does not start at 0" % name)
    named = {e["tid"] for e in trace if e["ph"] == "M" and e["name"] == "thread_name"}
    sorted_ = {e["tid"] for e in trace if e["ph"] == "M" and e["name"] == "thread_sort_index"}
    if named != set(range(summary["nodes"])) or sorted_ != named:
        fail("%s: tracks named %d, sorted %d of %d" % (name, len(named), len(sorted_), summary["nodes"]))
    slices = defaultdict(set)
    for e in trace:
        if e["ph"] == "X":
            slices[(e["tid"], e["cat"])].add(e["ts"])
    flows = defaultdict(list)
    for e in trace:
        if e["ph"] in "sf":
            flows[e["id"]].append(e)
            if e["ts"] not in slices[(e["tid"], e["cat"])]:
                fail("%s: flow %s %s at %d on node %d binds to no slice" % (
                    name, e["ph"], e["id"], e["ts"], e["tid"]))
    for fid, pair in flows.items():
        if sorted(p["ph"] for p in pair) != ["f", "s"] or pair[0]["cat"] != pair[1]["cat"]:
            fail("%s: flow %s is %s" % (name, fid, [p["ph"] for p in pair]))
    if len(flows) != summary["transmissions"]:
        fail("%s: %d arrows for %d transmissions" % (name, len(flows), summary["transmissions"]))
    if summary["ports"] == "shout" and "free" not in summary:  # one emission per slot
        want = len({(e["node"], e["slot"]) for e in events if e["event"] == "send"})
        got = sum(1 for e in trace if e["ph"] == "X" and e["name"].startswith("send"))
        if got != want:
            fail("%s: %d send slices for %d emissions" % (name, got, want))
        if name == "q4_successive":
            emissions_q4 = got
if emissions_q4 != 128:
    fail("q4_successive: %s send slices, expected 128" % emissions_q4)
print("%d traces: flows bound, one slice per emission" % len(glob.glob(tmp + "/*.trace")))
PY
