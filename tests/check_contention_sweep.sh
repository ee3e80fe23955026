#!/bin/sh
# SPDX-License-Identifier: MIT
# check_contention_sweep.sh — scripts/contention-sweep (doc/contention.md) on a tiny sweep:
# the traffic example (4x4 torus), 1 and 2 cores, three placements, every clock mode, one
# warm-up and 2 runs a point. The CSV has one row per mode, core count and placement, with
# the median inside its interval; the free rows carry the waiting share, the p99 latency and
# the kernel's figures, the slotted ones none; the machine record names the machine and
# the version; the SVG is well-formed with its four panels. A placement's CPUs are applied:
# while a run goes, /proc shows every node thread pinned to one CPU of the list and the
# process confined to it. A core count the process may not use is refused with a message.
set -eu
tmp=$(mktemp -d)
pid=
trap '[ -z "$pid" ] || kill "$pid" 2>/dev/null || true; rm -rf "$tmp"' EXIT
sweep="$HM_SRCDIR/scripts/contention-sweep"
cfg="$HM_SRCDIR/configs/torus4x4_traffic.json"
ncpu=$(python3 -c 'import os; print(len(os.sched_getaffinity(0)))')
cores=1
[ "$ncpu" -lt 2 ] || cores=1,2
python3 "$sweep" --hypemu "$HM_BUILDDIR/hypemu" --config "$cfg" --cores "$cores" \
    --placements compact,scatter,cores --repeat 2 --warmup 1 --out "$tmp" >"$tmp/out" 2>"$tmp/err" ||
    { cat "$tmp/err" >&2; echo "FAIL: contention-sweep" >&2; exit 1; }
python3 - "$tmp" "$cores" <<'PY'
import csv, json, sys
import xml.etree.ElementTree as ET
tmp, cores = sys.argv[1], sys.argv[2].split(",")
rows = list(csv.DictReader(open(tmp + "/contention-sweep.csv")))
head = open(tmp + "/contention-sweep.csv").readline().strip().split(",")
figs = ["wall_s", "ns_per_packet", "wait_share", "p99_latency_ns", "lock_waits",
        "involuntary_switches", "migrations"]
want = (["mode", "nodes", "size", "cores", "placement", "cpus", "runs", "failed"] +
        [f + s for f in figs for s in ("_median", "_lo", "_hi")] + ["interval_level", "note"])
if head != want:
    sys.exit("FAIL: CSV header %r" % head)
got = sorted((r["mode"], r["cores"], r["placement"]) for r in rows)
if got != sorted((m, c, p) for m in ("slotted", "local", "free") for c in cores
                 for p in ("compact", "scatter", "cores")):
    sys.exit("FAIL: CSV rows %s" % got)
for r in rows:
    if r["note"].startswith("skipped"):
        continue
    if r["runs"] != "2" or r["failed"] != "0" or r["nodes"] != "16" or r["size"] != "4x4":
        sys.exit("FAIL: row %s" % r)
    if len(r["cpus"].split(",")) != int(r["cores"]):
        sys.exit("FAIL: %s cores on CPUs %s" % (r["cores"], r["cpus"]))
    for f in ("wall_s", "ns_per_packet"):
        if not float(r[f + "_lo"]) <= float(r[f + "_median"]) <= float(r[f + "_hi"]):
            sys.exit("FAIL: %s median outside its interval: %s" % (f, r))
    if r["interval_level"] != "0.5":
        sys.exit("FAIL: two runs: interval level %s" % r["interval_level"])
    free = r["mode"] == "free"
    for f in ("wait_share", "p99_latency_ns", "lock_waits", "involuntary_switches"):
        if (r[f + "_median"] != "") != free:
            sys.exit("FAIL: %s in a %s row: %s" % (f, r["mode"], r))
    if free and not 0 < float(r["wait_share_median"]) <= 1:
        sys.exit("FAIL: waiting share %s" % r["wait_share_median"])
rec = json.load(open(tmp + "/contention-sweep.machine.json"))
for k in ("host", "cpu_model", "sockets", "numa_nodes", "threads_per_core", "governor",
          "kernel", "hypemu_version", "hypemu_commit", "date", "load_before", "load_after",
          "repeat", "warmup", "config"):
    if k not in rec:
        sys.exit("FAIL: machine record lacks %s" % k)
if not rec["hypemu_version"].startswith("hypemu ") or rec["repeat"] != 2 or rec["warmup"] != 1:
    sys.exit("FAIL: machine record %s" % rec)
svg = ET.parse(tmp + "/contention-sweep.svg").getroot()
texts = [t.text for t in svg.iter("{http://www.w3.org/2000/svg}text")]
most = cores[-1]
for title in ("wall time, 16 nodes", "time per packet, 16 nodes", "waiting share, 16 nodes",
              "time per packet, %s cores" % most):
    if title not in texts:
        sys.exit("FAIL: SVG lacks the panel %r" % title)
print("contention-sweep: %d rows" % len(rows))
PY
if command -v rsvg-convert >/dev/null 2>&1; then
    rsvg-convert "$tmp/contention-sweep.svg" -o "$tmp/s.png" || { echo "FAIL: rsvg-convert" >&2; exit 1; }
fi
# The placement, applied: a long free run on the scatter CPUs of the most cores.
n=${cores##*,}
list=$(python3 "$sweep" --cpus-of scatter "$n")
[ -n "$list" ] || { echo "FAIL: --cpus-of scatter $n printed nothing" >&2; exit 1; }
if command -v taskset >/dev/null 2>&1; then
    taskset -c "$list" "$HM_BUILDDIR/hypemu" --repeat 1000 --set output=null \
        --set clock.mode=free --set "clock.affinity=\"$list\"" --set algorithm.packets=4096 \
        "$cfg" >/dev/null 2>&1 &
    pid=$!
    python3 - "$pid" "$list" <<'PY'
import os, sys, time
pid, want = sys.argv[1], sys.argv[2]
cpus = frozenset(int(c) for c in want.split(","))
def expand(text):
    out = set()
    for part in text.split(","):
        a, _, b = part.partition("-")
        out.update(range(int(a), int(b or a) + 1))
    return frozenset(out)
def allowed(task):
    for line in open("/proc/%s/task/%s/status" % (pid, task)):
        if line.startswith("Cpus_allowed_list:"):
            return expand(line.split(":", 1)[1].strip())
for _ in range(3000):
    try:
        tasks = [t for t in os.listdir("/proc/%s/task" % pid) if t != pid]
        if len(tasks) >= 16:
            got = {t: allowed(t) for t in tasks}
            main = allowed(pid)
            break
    except (OSError, TypeError):
        pass
    time.sleep(0.01)
else:
    sys.exit("FAIL: never saw the 16 node threads of %s" % pid)
if main != cpus:
    sys.exit("FAIL: the process is confined to %s, not %s" % (sorted(main), want))
# The 16 node threads each on one CPU; any other thread (a sanitizer's) within the mask.
one = [v for v in got.values() if v is not None and len(v) == 1]
if len(one) < 16 or any(v is None or not v <= cpus for v in got.values()):
    sys.exit("FAIL: node threads not each pinned to one CPU of %s: %s" % (want, got))
pinned = frozenset().union(*one)
if pinned != cpus:
    sys.exit("FAIL: node threads pinned to %s, placement %s" % (sorted(pinned), want))
print("placement %s applied: %d node threads, each pinned to one of its CPUs" % (want, len(one)))
PY
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    pid=
fi
rc=0
python3 "$sweep" --hypemu "$HM_BUILDDIR/hypemu" --cores 4096 --out "$tmp" >/dev/null 2>"$tmp/err" || rc=$?
[ "$rc" -eq 1 ] && grep -q "^contention-sweep: --cores: found 4096; allowed: 1\.\." "$tmp/err" ||
    { echo "FAIL: --cores 4096 (rc $rc): $(cat "$tmp/err")" >&2; exit 1; }
rc=0
python3 "$sweep" --hypemu "$HM_BUILDDIR/hypemu" --placements nearby --out "$tmp" >/dev/null 2>"$tmp/err" || rc=$?
[ "$rc" -eq 1 ] && grep -q "^contention-sweep: --placements: found nearby; allowed: compact, scatter, cores$" "$tmp/err" ||
    { echo "FAIL: --placements nearby (rc $rc): $(cat "$tmp/err")" >&2; exit 1; }
echo "contention-sweep: CSV, machine record, SVG and placements as expected"
