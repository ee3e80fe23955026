#!/bin/sh
# SPDX-License-Identifier: MIT
# check_contention_sweep.sh — scripts/contention-sweep (doc/contention.md, "The sweep") on a
# tiny sweep: the traffic example (4x4 torus), 1 and 2 cores, the four placements, every
# clock mode, one warm-up and 2 runs a point. The CSV has one row per mode, core count and
# placement (placements with the same CPUs merged, saying so), with the median inside its
# interval; the free rows carry the waiting share, the p99 latency and hypemu's kernel
# figures, every row the OS's context switches; the A/A control is a row of its own; the
# runs CSV has one row per counted run; the machine record names the machine, the version,
# the build, the arguments and the config's SHA-256; the SVG (matplotlib's, text kept as
# text) is well-formed with its eight panels and renders. Without a python that has
# matplotlib (HM_PYTHON_PLOT, from configure) the test skips. A placement's CPUs are applied: while a run goes, /proc shows every node thread
# pinned to one CPU of the list and the process confined to it. A hypemu that exits 1 (a
# failed verification) makes every run a failed one, shown, and the sweep exit 1; bad
# arguments (a core count the process may not use, an unknown placement or mode, a size
# the topology has not) exit 2 naming them.
set -eu
py=${HM_PYTHON_PLOT:-}
[ -n "$py" ] || { echo "SKIP: no python with matplotlib (Debian: python3-matplotlib)"; exit 77; }
tmp=$(mktemp -d)
pid=
trap '[ -z "$pid" ] || kill "$pid" 2>/dev/null || true; rm -rf "$tmp"' EXIT
sweep="$HM_SRCDIR/scripts/contention-sweep"
cfg="$HM_SRCDIR/configs/torus4x4_traffic.json"
ncpu=$("$py" -c 'import os; print(len(os.sched_getaffinity(0)))')
cores=1
[ "$ncpu" -lt 2 ] || cores=1,2
"$py" "$sweep" --hypemu "$HM_BUILDDIR/hypemu" --config "$cfg" --cores "$cores" \
    --placements compact,scatter,cores,none --repeat 2 --warmup 1 --out "$tmp" >"$tmp/out" 2>"$tmp/err" ||
    { cat "$tmp/err" >&2; echo "FAIL: contention-sweep" >&2; exit 1; }
"$py" - "$tmp" "$cores" "$cfg" <<'PY'
import csv, hashlib, json, sys
import xml.etree.ElementTree as ET
tmp, cores, cfg = sys.argv[1], sys.argv[2].split(","), sys.argv[3]
rows = list(csv.DictReader(open(tmp + "/contention-sweep.csv")))
head = open(tmp + "/contention-sweep.csv").readline().strip().split(",")
figs = ["wall_s", "ns_per_packet", "wait_share", "p99_latency_ns", "lock_waits",
        "involuntary_switches", "migrations", "os_voluntary_switches",
        "os_involuntary_switches"]
want = (["mode", "nodes", "size", "cores", "placement", "cpus", "runs", "failed"] +
        [f + s for f in figs for s in ("_median", "_lo", "_hi")] +
        ["interval_level", "passes", "between_pass_spread", "within_pass_spread", "note"])
if head != want:
    sys.exit("FAIL: CSV header %r" % head)
control = [r for r in rows if r["note"].startswith("A/A control")]
rows = [r for r in rows if r not in control]
got = sorted((r["mode"], r["cores"], r["placement"]) for r in rows)
if got != sorted((m, c, p) for m in ("slotted", "local", "free") for c in cores
                 for p in ("compact", "scatter", "cores", "none")):
    sys.exit("FAIL: CSV rows %s" % got)
if len(control) != 1 or control[0]["runs"] != "2":
    sys.exit("FAIL: the A/A control rows %s" % control)
measured = 0
for r in rows + control:
    if r["note"].startswith("skipped"):
        continue
    if r["note"].startswith("merged: the same CPUs as "):
        base = [b for b in rows if (b["mode"], b["cores"]) == (r["mode"], r["cores"])
                and b["placement"] == r["note"].rsplit(" ", 1)[1]]
        if len(base) != 1 or base[0]["cpus"] != r["cpus"] or r["runs"] != "0":
            sys.exit("FAIL: merged row %s" % r)
        continue
    measured += 1
    if r["runs"] != "2" or r["failed"] != "0" or r["nodes"] != "16" or r["size"] != "4x4":
        sys.exit("FAIL: row %s" % r)
    if len(r["cpus"].split(",")) != int(r["cores"]):
        sys.exit("FAIL: %s cores on CPUs %s" % (r["cores"], r["cpus"]))
    for f in ("wall_s", "ns_per_packet", "os_voluntary_switches"):
        if not float(r[f + "_lo"]) <= float(r[f + "_median"]) <= float(r[f + "_hi"]):
            sys.exit("FAIL: %s median outside its interval: %s" % (f, r))
    if r["interval_level"] != "0.5":
        sys.exit("FAIL: two runs: interval level %s" % r["interval_level"])
    free = r["mode"] == "free"
    for f in ("wait_share", "p99_latency_ns", "lock_waits"):
        if (r[f + "_median"] != "") != free:
            sys.exit("FAIL: %s in a %s row: %s" % (f, r["mode"], r))
    # hypemu's per-thread kernel figures, the main thread's included, in every mode.
    if r["involuntary_switches_median"] == "" or r["migrations_median"] == "":
        sys.exit("FAIL: no switches or migrations in a %s row: %s" % (r["mode"], r))
    if free and not 0 < float(r["wait_share_median"]) <= 1:
        sys.exit("FAIL: waiting share %s" % r["wait_share_median"])
    if float(r["os_voluntary_switches_median"]) < 16:  # every node thread sleeps at least once
        sys.exit("FAIL: the OS's switches of a %s run: %s" % (r["mode"], r))
runs = list(csv.DictReader(open(tmp + "/contention-sweep.runs.csv")))
if len(runs) != 2 * measured or any(x["exit"] != "0" or x["pass"] != "1" for x in runs):
    sys.exit("FAIL: %d runs kept for %d points of 2 runs: %s" % (len(runs), measured, runs[:2]))
if any(x["runnable_before"] == "" or x["steal_ticks"] == "" or x["wall_s"] == "" for x in runs):
    sys.exit("FAIL: a run row without the host's state or its figures: %s" % runs[0])
rec = json.load(open(tmp + "/contention-sweep.machine.json"))
for k in ("host", "cpu_model", "sockets", "numa_nodes", "threads_per_core", "governor",
          "kernel", "virtualization", "hypemu_version", "hypemu_commit", "tree_dirty", "build",
          "arguments", "config", "config_sha256", "date", "runnable_before", "runnable_after",
          "steal_before", "steal_after", "repeat", "warmup", "passes"):
    if k not in rec:
        sys.exit("FAIL: machine record lacks %s" % k)
if (not rec["hypemu_version"].startswith("hypemu ") or rec["repeat"] != 2 or rec["warmup"] != 1
        or rec["config_sha256"] != hashlib.sha256(open(cfg, "rb").read()).hexdigest()
        or "--placements" not in rec["arguments"] or not rec["build"].get("cc")):
    sys.exit("FAIL: machine record %s" % rec)
svg = ET.parse(tmp + "/contention-sweep.svg").getroot()
texts = [t.text for t in svg.iter("{http://www.w3.org/2000/svg}text")]
most = cores[-1]
for title in ("wall time, 16 nodes", "time per packet, 16 nodes", "waiting share, 16 nodes",
              "p99 latency, 16 nodes", "lock waits, 16 nodes", "switches, 16 nodes",
              "migrations, 16 nodes", "time per packet, %s cores" % most):
    if title not in texts:
        sys.exit("FAIL: SVG lacks the panel %r" % title)
for label in ("free compact OS vol.", "slotted none OS invol.", "free none hypemu invol."):
    if label not in texts:
        sys.exit("FAIL: SVG lacks the series %r" % label)
print("contention-sweep: %d rows, %d measured points, %d runs" % (len(rows), measured, len(runs)))
PY
if command -v rsvg-convert >/dev/null 2>&1; then
    rsvg-convert "$tmp/contention-sweep.svg" -o "$tmp/s.png" || { echo "FAIL: rsvg-convert" >&2; exit 1; }
fi
# --replot draws the same bytes from the CSV and the machine record alone.
mkdir "$tmp/r"
cp "$tmp/contention-sweep.csv" "$tmp/contention-sweep.machine.json" "$tmp/r/"
"$py" "$sweep" --replot "$tmp/r/contention-sweep.csv" >/dev/null
cmp "$tmp/contention-sweep.svg" "$tmp/r/contention-sweep.svg" ||
    { echo "FAIL: --replot draws contention-sweep.svg differently" >&2; exit 1; }
# The placement, applied: a long free run on the scatter CPUs of the most cores.
n=${cores##*,}
list=$("$py" "$sweep" --cpus-of scatter "$n")
[ -n "$list" ] || { echo "FAIL: --cpus-of scatter $n printed nothing" >&2; exit 1; }
if command -v taskset >/dev/null 2>&1; then
    taskset -c "$list" "$HM_BUILDDIR/hypemu" --repeat 1000 --set output=null \
        --set clock.mode=free --set "clock.affinity=\"$list\"" --set algorithm.packets=4096 \
        "$cfg" >/dev/null 2>&1 &
    pid=$!
    "$py" - "$pid" "$list" <<'PY'
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
        # Besides the 16 node threads the process may have others (the crash report's
        # symboliser, a sanitizer's): wait until 16 threads are each on one CPU.
        got = {t: allowed(t) for t in tasks}
        if sum(1 for v in got.values() if v is not None and len(v) == 1) >= 16:
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
# A hypemu whose every run exits 1 (a failed verification): failed runs, shown; exit 1.
cat >"$tmp/fails" <<EOF
#!/bin/sh
case " \$* " in *" --validate "* | *" --version "*) exec "$HM_BUILDDIR/hypemu" "\$@" ;; esac
"$HM_BUILDDIR/hypemu" "\$@"
exit 1
EOF
chmod +x "$tmp/fails"
rc=0
"$py" "$sweep" --hypemu "$tmp/fails" --config "$cfg" --cores 1 --placements compact \
    --modes slotted --repeat 2 --warmup 0 --out "$tmp/f" >/dev/null 2>"$tmp/err" || rc=$?
"$py" - "$tmp/f" <<'PY' || exit 1
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1] + "/contention-sweep.csv")))
runs = list(csv.DictReader(open(sys.argv[1] + "/contention-sweep.runs.csv")))
r = [x for x in rows if not x["note"].startswith("A/A")][0]
if r["failed"] != "2" or r["runs"] != "0" or "FAILED: 2 of 2 runs failed" not in r["note"]:
    sys.exit("FAIL: a failing run counted as good: %s" % r)
if len(runs) != 4 or any(x["exit"] != "1" for x in runs):
    sys.exit("FAIL: the failed runs are not kept with their exit status: %s" % runs)
PY
[ "$rc" -eq 1 ] && grep -q "^contention-sweep: 4 of 4 runs failed" "$tmp/err" ||
    { echo "FAIL: a sweep of failing runs exited $rc: $(cat "$tmp/err")" >&2; exit 1; }
# Two passes: the spread between them beside the spread within, for every measured point.
"$py" "$sweep" --hypemu "$HM_BUILDDIR/hypemu" --config "$cfg" --cores 1 --placements compact \
    --modes free --repeat 2 --warmup 0 --passes 2 --pass-gap 0 --out "$tmp/p" >/dev/null 2>"$tmp/err" ||
    { cat "$tmp/err" >&2; echo "FAIL: --passes 2" >&2; exit 1; }
"$py" - "$tmp/p" <<'PY' || exit 1
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1] + "/contention-sweep.csv")))
runs = list(csv.DictReader(open(sys.argv[1] + "/contention-sweep.runs.csv")))
if len(rows) != 2 or any(r["passes"] != "2" or r["runs"] != "4" or
                         float(r["between_pass_spread"]) < 0 or float(r["within_pass_spread"]) < 0
                         for r in rows):
    sys.exit("FAIL: --passes 2: %s" % rows)
if sorted(x["pass"] for x in runs) != ["1"] * 4 + ["2"] * 4:
    sys.exit("FAIL: --passes 2: runs of passes %s" % [x["pass"] for x in runs])
PY
# Bad arguments: exit 2, named, before any run.
bad() { # bad 'EXPECTED STDERR LINE' ARGS...
    want=$1
    shift
    rc=0
    "$py" "$sweep" --hypemu "$HM_BUILDDIR/hypemu" "$@" --out "$tmp/bad" >/dev/null 2>"$tmp/err" || rc=$?
    [ "$rc" -eq 2 ] && grep -qxF "$want" "$tmp/err" && [ ! -e "$tmp/bad" ] ||
        { echo "FAIL: $* (rc $rc): $(cat "$tmp/err"), expected: $want" >&2; exit 1; }
}
ncpus=$("$py" -c 'import os; print(len(os.sched_getaffinity(0)))')
bad "contention-sweep: --cores: found 4096; allowed: 1..$ncpus (the CPUs this process may use)" --cores 4096
bad "contention-sweep: --placements: found nearby; allowed: compact, scatter, cores, none" --placements nearby
bad "contention-sweep: --modes: found slottted; allowed: slotted, local, free" --modes slotted,slottted
bad "contention-sweep: --sizes: 16: a torus's size is RxC, rows x columns (4x4)" --sizes 16
bad "contention-sweep: --repeat: found 0; allowed: 1 or more" --repeat 0
bad "contention-sweep: --formats: found gif; allowed: svg, pdf, png, comma-separated" --formats gif
echo "contention-sweep: CSV, runs, machine record, SVG, placements, failures and bad arguments as expected"
