#!/bin/sh
# check_contention_sweep.sh — scripts/contention-sweep (doc/contention.md) on a tiny size:
# Q_2 and Q_3 on one CPU, every clock mode the binary lists, 2 runs a point. The CSV has
# one row per mode, size and CPU count, each verified (exit 0) or refused (exit 2); the
# free rows carry a p99 latency and the slotted ones none; the SVG is well-formed, has
# its four panels and renders with rsvg-convert when it is installed. A CPU count the
# process may not use is refused with a message.
set -eu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sweep="$HM_SRCDIR/scripts/contention-sweep"
python3 "$sweep" --hypemu "$HM_BUILDDIR/hypemu" --config "$HM_SRCDIR/configs/q8_allgather_ring_free.json" \
    --sizes 2,3 --cpus 1 --repeat 2 --out "$tmp" >"$tmp/out" 2>"$tmp/err" ||
    { cat "$tmp/err" >&2; echo "FAIL: contention-sweep" >&2; exit 1; }
python3 - "$tmp" "$HM_BUILDDIR/hypemu" <<'PY'
import csv, json, subprocess, sys
import xml.etree.ElementTree as ET
tmp, hypemu = sys.argv[1], sys.argv[2]
modes = [m["name"] for m in json.loads(subprocess.run([hypemu, "--list", "--json"],
         capture_output=True, text=True, check=True).stdout)["clock_modes"]]
rows = list(csv.DictReader(open(tmp + "/contention-sweep.csv")))
head = open(tmp + "/contention-sweep.csv").readline().strip()
want = ("mode,nodes,size,cpus,runs,exit_code,wall_s_min,wall_s_median,wall_s_max,"
        "p99_latency_ns,lock_waits,blocked_s,note")
if head != want:
    sys.exit("FAIL: CSV header %r" % head)
if sorted((r["mode"], r["nodes"], r["cpus"]) for r in rows) != \
        sorted((m, n, "1") for m in modes for n in ("4", "8")):
    sys.exit("FAIL: CSV rows %s" % [(r["mode"], r["nodes"], r["cpus"]) for r in rows])
for r in rows:
    if r["exit_code"] not in ("0", "2"):
        sys.exit("FAIL: %s exited %s" % (r, r["exit_code"]))
    if r["exit_code"] == "0" and not (float(r["wall_s_min"]) <= float(r["wall_s_median"])
                                      <= float(r["wall_s_max"])):
        sys.exit("FAIL: wall min/median/max out of order: %s" % r)
    if r["mode"] == "free" and not float(r["p99_latency_ns"]) > 0:
        sys.exit("FAIL: free row without a p99 latency: %s" % r)
    if r["mode"] == "slotted" and (r["p99_latency_ns"] or r["exit_code"] != "0" or r["runs"] != "2"):
        sys.exit("FAIL: slotted row: %s" % r)
svg = ET.parse(tmp + "/contention-sweep.svg").getroot()
texts = [t.text for t in svg.iter("{http://www.w3.org/2000/svg}text")]
for title in ("wall time, 8 nodes", "p99 latency, 8 nodes", "wall time, 1 cores",
              "p99 latency, 1 cores"):
    if title not in texts:
        sys.exit("FAIL: SVG lacks the panel %r" % title)
print("contention-sweep: %d rows, modes %s" % (len(rows), ", ".join(modes)))
PY
if command -v rsvg-convert >/dev/null 2>&1; then
    rsvg-convert "$tmp/contention-sweep.svg" -o "$tmp/s.png" || { echo "FAIL: rsvg-convert" >&2; exit 1; }
fi
rc=0
python3 "$sweep" --hypemu "$HM_BUILDDIR/hypemu" --cpus 4096 --out "$tmp" >/dev/null 2>"$tmp/err" || rc=$?
[ "$rc" -eq 1 ] && grep -q "^contention-sweep: --cpus: found 4096; allowed: 1\.\." "$tmp/err" ||
    { echo "FAIL: --cpus 4096 (rc $rc): $(cat "$tmp/err")" >&2; exit 1; }
echo "contention-sweep: CSV and SVG as expected"
