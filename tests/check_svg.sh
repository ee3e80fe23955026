#!/bin/sh
# SPDX-License-Identifier: MIT
# check_svg.sh — output.svg (README "Outputs", doc/pictures.md) read by real readers:
# the picture of every shipped config parses as XML (Python's xml.etree) and renders
# to a PNG with rsvg-convert; the Q_4 successive broadcasts draw exactly one arrow per
# transmission (240) and one topology link per hypercube edge (32) carrying 240
# packets in all; the strict interleaved run marks its 2 conflicts; a 256-node run
# draws aggregates and stays small.
set -eu
if ! command -v rsvg-convert >/dev/null 2>&1; then
    echo "SKIP: rsvg-convert not installed (setup.sh installs librsvg2-bin)"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin="$HM_BUILDDIR/hypemu"
run() { # run NAME CONFIG [--set ...]: the picture in $tmp/NAME.svg, exit 0 or 1 accepted
    name=$1 cfg=$2
    shift 2
    rc=0
    (cd "$tmp" && "$bin" --json --set output.svg="$tmp/$name.svg" "$@" "$cfg" >"$tmp/$name.json" \
        2>/dev/null) || rc=$?
    [ "$rc" -le 1 ] || { echo "FAIL: $name exited $rc" >&2; exit 1; }
    rsvg-convert -o "$tmp/$name.png" "$tmp/$name.svg" ||
        { echo "FAIL: rsvg-convert cannot render $name.svg" >&2; exit 1; }
}
for cfg in "$HM_SRCDIR"/configs/*.json; do
    run "$(basename "$cfg" .json)" "$cfg"
done
# A colour scheme that does not exist is a config error naming the path and the choices.
rc=0
msg=$("$bin" --set output.svg_colour=red "$HM_SRCDIR/configs/q4_successive.json" 2>&1) || rc=$?
want="$HM_SRCDIR/configs/q4_successive.json: output.svg_colour: found \"red\"; allowed: \"message\", \"sender\""
[ "$rc" = 2 ] && [ "$msg" = "$want" ] ||
    { printf 'FAIL: svg_colour=red: exit %s, message %s\n' "$rc" "$msg" >&2; exit 1; }
run q8_successive "$HM_SRCDIR/configs/q4_successive.json" --set topology.dim=8
run q4_by_sender "$HM_SRCDIR/configs/q4_successive.json" --set output.svg_colour=sender
python3 - "$tmp" <<'PY'
import glob, json, os, re, sys
import xml.etree.ElementTree as ET

tmp = sys.argv[1]
NS = "{http://www.w3.org/2000/svg}"
def fail(msg):
    sys.exit("FAIL: " + msg)
for svg in sorted(glob.glob(tmp + "/*.svg")):
    root = ET.parse(svg).getroot()
    if root.tag != NS + "svg":
        fail("%s: root element %s" % (svg, root.tag))
    png = open(svg[:-4] + ".png", "rb").read(24)
    if png[:8] != b"\x89PNG\r\n\x1a\n" or int.from_bytes(png[16:20], "big") < 900:
        fail("%s: rsvg-convert did not make a PNG at least 900 px wide" % svg)

def load(name):
    return ET.parse("%s/%s.svg" % (tmp, name)).getroot(), json.load(open("%s/%s.json" % (tmp, name)))
def cls(root, tag, c):
    return [e for e in root.iter(NS + tag) if e.get("class") == c]

root, summary = load("q4_successive")
title = "".join(cls(root, "text", "title")[0].itertext())
want = "successive-broadcast rotated on hypercube, 16 nodes, shout ports: 34 slots, bound 2p+log2(p)-2 = 34, verified"
if title != want:
    fail("q4 title %r, expected %r" % (title, want))
arrows = cls(root, "line", "pkt")
if len(arrows) != 240 or summary["transmissions"] != 240:
    fail("q4: %d arrows for %d transmissions, expected 240" % (len(arrows), summary["transmissions"]))
if cls(root, "path", "bad"):
    fail("q4: conflict marks in a run without conflicts")
links = cls(root, "line", "link")
carried = sum(int(re.search(r": (\d+) packets", l.find(NS + "title").text).group(1)) for l in links)
if len(links) != 32 or carried != 240:
    fail("q4: %d links carrying %d packets, expected 32 and 240" % (len(links), carried))
colours = {a.get("stroke") for a in arrows}
if len(colours) != 16:
    fail("q4: %d arrow colours, expected one per message (16)" % len(colours))
by_sender, _ = load("q4_by_sender")
if len({a.get("stroke") for a in cls(by_sender, "line", "pkt")}) != 16:
    fail("q4 by sender: expected 16 colours, one per sending node")

root, summary = load("q4_successive_interleaved")
bad = cls(root, "path", "bad")
texts = sorted(b.find(NS + "title").text for b in bad)
if summary["conflicts"] != 2 or len(bad) != 2 or not texts[0].startswith(
        "slot 4: conflict: node 11 to node 10 (port 0), msg 2: node 11 cannot emit and receive"):
    fail("interleaved: conflict marks %r for %d conflicts" % (texts, summary["conflicts"]))

root, summary = load("q8_successive")
size = os.path.getsize(tmp + "/q8_successive.svg")
if cls(root, "line", "pkt") or size > 2_000_000:
    fail("Q_8: %d arrows, %d bytes: expected the aggregate view under 2 MB" % (
        len(cls(root, "line", "pkt")), size))
if len(cls(root, "line", "link")) != 8 * 256 // 2:
    fail("Q_8: %d links drawn, expected 1024" % len(cls(root, "line", "link")))
print("%d pictures parsed and rendered" % len(glob.glob(tmp + "/*.svg")))
PY
