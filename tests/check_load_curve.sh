#!/bin/sh
# SPDX-License-Identifier: MIT
# check_load_curve.sh — scripts/load-curve (doc/contention.md, "Offered load") on its
# quick defaults: the traffic example (4x4 torus) at 5..100% under the slotted and local
# clocks and 100..10000 packets per second per node under the free clock. The CSV has
# one row per run with the window's figures: in slots, below half the routes' capacity
# the accepted load is the offered one (within 5%: the window's edges) and it stays under
# the capacity; in wall time the offered load is the schedule's (within 5% below it); the latency's p50 <= p99 <= max, the local rows equal the
# slotted rows exactly; the SVG parses, names its four panels and renders; --replot
# draws the same bytes; a bad argument exits 2 naming it; a failing hypemu exits 1.
set -eu
py=${HM_PYTHON_PLOT:-}
[ -n "$py" ] || { echo "SKIP: no python with matplotlib (Debian: python3-matplotlib)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
curve="$HM_SRCDIR/scripts/load-curve"
"$py" "$curve" --hypemu "$HM_BUILDDIR/hypemu" --out "$tmp" --formats svg,pdf,png \
    >"$tmp/out" 2>"$tmp/err" || { cat "$tmp/err" >&2; echo "FAIL: load-curve" >&2; exit 1; }
"$py" - "$tmp" <<'PY'
import csv, sys
import xml.etree.ElementTree as ET
tmp = sys.argv[1]
rows = list(csv.DictReader(open(tmp + "/load-curve.csv")))
err = []
by = {m: [r for r in rows if r["mode"] == m] for m in ("slotted", "local", "free")}
if [r["load"] for r in by["slotted"]] != ["5", "10", "20", "30", "40", "50", "70", "100"]:
    err.append("slotted loads %s" % [r["load"] for r in by["slotted"]])
if [r["load"] for r in by["free"]] != ["100", "300", "1000", "3000", "10000"]:
    err.append("free loads %s" % [r["load"] for r in by["free"]])
strip = lambda r: {k: v for k, v in r.items() if k != "mode"}
if [strip(r) for r in by["local"]] != [strip(r) for r in by["slotted"]]:
    err.append("local rows differ from slotted rows")
for r in rows:
    off, acc = float(r["offered"]), float(r["accepted"])
    if r["exit"] != "0" or r["error"]:
        err.append("run failed: %s" % r)
    if not float(r["p50"]) <= float(r["p99"]) <= float(r["max"]):
        err.append("latency p50 > p99 > max: %s" % r)
    if r["mode"] == "free":
        if r["unit"] != "per_s" or r["latency_unit"] != "ns" or r["capacity_per_slot"] != "":
            err.append("free row units: %s" % r)
        # The offered load is the schedule's; the accepted one depends on the host.
        if not 0.95 * float(r["load"]) <= off <= float(r["load"]) or acc <= 0:
            err.append("free: load %s, offered %g, accepted %g" % (r["load"], off, acc))
        continue
    cap = float(r["capacity_per_slot"])
    if r["unit"] != "per_slot" or r["latency_unit"] != "slots" or not 0 < cap < 1:
        err.append("slot row units or capacity: %s" % r)
    if off < cap / 2 and not 0.95 * off <= acc <= 1.05 * off:
        err.append("%s: accepted %g, offered %g below saturation" % (r["mode"], acc, off))
    if acc >= cap:
        err.append("%s: accepted %g at or above the capacity %g" % (r["mode"], acc, cap))
top = by["slotted"][-1]
if top["offered"] != "1.0" or float(top["accepted"]) > 0.5 * float(top["offered"]):
    err.append("100%% offered is not saturated: %s" % top)
svg = ET.parse(tmp + "/load-curve.svg").getroot()
texts = [t.text for t in svg.iter("{http://www.w3.org/2000/svg}text")]
for title in ("latency, per slot", "accepted load, per slot", "latency, per second",
              "accepted load, per second"):
    if title not in texts:
        err.append("SVG lacks the panel %r" % title)
if not any(t and t.startswith("capacity 0.") for t in texts):
    err.append("SVG lacks the capacity line's label")
if open(tmp + "/load-curve.pdf", "rb").read(5) != b"%PDF-" or \
        open(tmp + "/load-curve.png", "rb").read(8) != b"\x89PNG\r\n\x1a\n":
    err.append("the PDF or the PNG is not one")
if err:
    sys.exit("FAIL: " + "\nFAIL: ".join(err))
print("load-curve: %d runs, %d slotted = local, free %s" % (len(rows), len(by["slotted"]),
                                                              [r["load"] for r in by["free"]]))
PY
if command -v rsvg-convert >/dev/null 2>&1; then
    rsvg-convert "$tmp/load-curve.svg" -o "$tmp/r.png" || { echo "FAIL: rsvg-convert" >&2; exit 1; }
fi
mkdir "$tmp/r"
cp "$tmp/load-curve.csv" "$tmp/r/"
"$py" "$curve" --replot "$tmp/r/load-curve.csv" >/dev/null
"$py" "$curve" --replot "$tmp/load-curve.csv" >/dev/null
cmp "$tmp/load-curve.svg" "$tmp/r/load-curve.svg" || { echo "FAIL: --replot differs" >&2; exit 1; }
# Bad arguments: exit 2, named. A hypemu that exits 1: the runs failed, written, exit 1.
rc=0
"$py" "$curve" --hypemu "$HM_BUILDDIR/hypemu" --modes slotted,slottted --out "$tmp/bad" \
    >/dev/null 2>"$tmp/err" || rc=$?
[ "$rc" -eq 2 ] && grep -qxF "load-curve: --modes: found slottted; allowed: slotted, local, free" \
    "$tmp/err" && [ ! -e "$tmp/bad" ] || { echo "FAIL: bad --modes: rc $rc $(cat "$tmp/err")" >&2; exit 1; }
rc=0
"$py" "$curve" --hypemu "$HM_BUILDDIR/hypemu" --rates 120 --out "$tmp/bad" >/dev/null 2>"$tmp/err" || rc=$?
[ "$rc" -eq 2 ] && grep -qxF "load-curve: --rates: found 120; allowed: percentages 0 < r <= 100" \
    "$tmp/err" || { echo "FAIL: bad --rates: rc $rc $(cat "$tmp/err")" >&2; exit 1; }
cat >"$tmp/fails" <<EOS
#!/bin/sh
"$HM_BUILDDIR/hypemu" "\$@"
exit 1
EOS
chmod +x "$tmp/fails"
rc=0
"$py" "$curve" --hypemu "$tmp/fails" --modes slotted --rates 10,20 --out "$tmp/f" >/dev/null \
    2>"$tmp/err" || rc=$?
[ "$rc" -eq 1 ] && grep -qxF "load-curve: 2 of 2 runs failed (the CSV's exit and error say which)" \
    "$tmp/err" && [ "$(cut -d, -f13 "$tmp/f/load-curve.csv" | tr '\n' ' ')" = "exit 1 1 " ] ||
    { echo "FAIL: failing runs: rc $rc $(cat "$tmp/err")" >&2; exit 1; }
echo "PASS: load-curve: CSV, figure (SVG, PDF, PNG), replot, bad arguments and failed runs"
