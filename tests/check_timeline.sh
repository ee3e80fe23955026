#!/bin/sh
# SPDX-License-Identifier: MIT
# check_timeline.sh — the text timeline (README "Outputs") stays readable at any size:
# for every shipped slotted config, the columns of all pages cover slots 0..N-1 exactly
# once and in order (single slots, and folded runs '~' whose slots the page lists), every
# ruler label stands over the column of that slot, and every node appears in exactly one
# row (a row "a-b" stands for identical nodes a..b); past slot 100 the ruler reads whole
# numbers ("130", not "3"); a folded row is the row of each of its nodes (checked with
# --timeline-nodes); a run with 10^3 slots per byte stays small; --timeline-nodes keeps
# only the nodes asked for, in the rows and in the event list.
set -eu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin="$HM_BUILDDIR/hypemu"
run() { # run NAME CONFIG [options]: the timeline in $tmp/NAME.txt, exit 0 or 1 accepted
    name=$1 cfg=$2
    shift 2
    rc=0
    (cd "$tmp" && "$bin" --set output.timeline="$tmp/$name.txt" "$@" "$cfg" >/dev/null 2>&1) || rc=$?
    [ "$rc" -le 1 ] || { echo "FAIL: $name exited $rc" >&2; exit 1; }
}
for cfg in "$HM_SRCDIR"/configs/*.json; do
    case $(basename "$cfg") in *free*) continue ;; esac
    run "$(basename "$cfg" .json)" "$cfg"
done
run q6_successive "$HM_SRCDIR/configs/q4_successive.json" --set topology.dim=6
run slow_links "$HM_SRCDIR/configs/linear_rh.json" --set ports.cost.a=1000
run one_node "$HM_SRCDIR/configs/q4_sbt_broadcast_one_port.json" --timeline-nodes 1
run some_nodes "$HM_SRCDIR/configs/q4_successive.json" --timeline-nodes 0-2,8
python3 - "$tmp" <<'PY'
import glob, os, re, sys

tmp = sys.argv[1]
def fail(msg):
    sys.exit("FAIL: " + msg)

def parse(path):
    """Pages of (header range, ruler top, ruler low, rows {label: cells}, folds), events."""
    text = open(path).read()
    head = re.match(r"hypemu timeline: .*, (\d+) nodes, .*, (\d+) slots\n", text)
    body, _, events = text.partition("\nevents (slot node event details)\n")
    pages = []
    for chunk in body.split("\nslots ")[1:]:
        lines = chunk.split("\n")
        a, b = map(int, lines[0].split(".."))
        top, low = lines[1], lines[2]
        indent = len(low) - len(low.lstrip(" "))
        rows, folds = [], {}
        for line in lines[3:]:
            m = re.match(r"^ *~ at column (\d+): slots (\d+)\.\.(\d+) \((\d+) identical slots\)$", line)
            if m:
                folds[int(m.group(1))] = (int(m.group(2)), int(m.group(3)))
                if int(m.group(4)) != int(m.group(3)) - int(m.group(2)) + 1:
                    fail("%s: fold count %s" % (path, line))
            elif line.strip():
                rows.append((line[:indent - 2].strip(), line[indent:]))
        pages.append(((a, b), top, low[indent:], rows, folds, indent))
    return int(head.group(1)), int(head.group(2)), pages, events

def columns(path, nodes, slots, pages, want_nodes):
    nxt = 0
    for (a, b), top, low, rows, folds, indent in pages:
        cols = []
        for k, ch in enumerate(low):
            if ch == "~":
                cols.append(folds[k])
            elif ch.isdigit():
                cols.append((nxt + len(cols) if not cols else cols[-1][1] + 1,) * 2)
                if int(ch) != cols[-1][0] % 10:
                    fail("%s: column %d reads %s for slot %d" % (path, k, ch, cols[-1][0]))
            else:
                fail("%s: ruler character %r" % (path, ch))
            if k == 0 and cols[0][0] != nxt:
                fail("%s: page starts at slot %d, expected %d" % (path, cols[0][0], nxt))
            if k > 0 and cols[k][0] != cols[k - 1][1] + 1:
                fail("%s: slot %d follows %d" % (path, cols[k][0], cols[k - 1][1]))
        if (a, b) != (cols[0][0], cols[-1][1]):
            fail("%s: page header %d..%d, columns %d..%d" % (path, a, b, cols[0][0], cols[-1][1]))
        for m in re.finditer(r"\d+", top[indent:]):
            c = cols[m.start()]
            if int(m.group()) != c[0]:
                fail("%s: ruler label %s over slot %d" % (path, m.group(), c[0]))
        seen = []
        for label, cells in rows:
            lo, _, hi = label.partition("-")
            seen += range(int(lo), int(hi or lo) + 1)
            if len(cells) != len(cols):
                fail("%s: row %s has %d cells for %d columns" % (path, label, len(cells), len(cols)))
        if sorted(seen) != sorted(want_nodes) or len(seen) != len(set(seen)):
            fail("%s: rows cover nodes %s" % (path, seen))
        nxt = cols[-1][1] + 1
    if nxt != slots:
        fail("%s: columns end at slot %d of %d" % (path, nxt, slots))

for path in sorted(glob.glob(tmp + "/*.txt")):
    nodes, slots, pages, events = parse(path)
    name = os.path.basename(path)[:-4]
    want = {"one_node": [1], "some_nodes": [0, 1, 2, 8]}.get(name, range(nodes))
    columns(path, nodes, slots, pages, list(want))
    if name in ("one_node", "some_nodes"):
        shown = {int(l.split()[1]) for l in events.splitlines() if l.strip() and l[0] == " "}
        if shown != set(want):
            fail("%s: event list shows nodes %s" % (name, sorted(shown)))

_, _, pages, _ = parse(tmp + "/q6_successive.txt")
# 2p + log2 p - 2 = 132 slots, and the slot of the last stores: pages of 64 columns.
if pages[2][0] != (128, 132) or pages[2][1][pages[2][5]:] != "  130":
    fail("Q_6 third page: %s, ruler %r" % (pages[2][0], pages[2][1]))
group = dict(parse(tmp + "/q4_sbt_broadcast_one_port.txt")[2][0][3])
single = dict(parse(tmp + "/one_node.txt")[2][0][3])
if "0-3" not in group or single.get("1") != group["0-3"]:
    fail("folded rows: 0-3 is %r, node 1 alone %r" % (group.get("0-3"), single.get("1")))
size = os.path.getsize(tmp + "/slow_links.txt")
if size > 64 * 1024:
    fail("linear_rh with a = 1000: %d bytes of timeline" % size)
print("%d timelines: every slot once, rulers and folds consistent" % len(glob.glob(tmp + "/*.txt")))
PY
