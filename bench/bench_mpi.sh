#!/bin/sh
# SPDX-License-Identifier: MIT
# bench_mpi.sh — what crossing MPI ranks costs (doc/mpi.md, "Measured cost of crossing
# ranks"). Run by `make bench-mpi` (with hypemu-mpi built). For each config and each
# hypercube dimension D it runs ./hypemu in one process, then hypemu-mpi on each rank
# count R (oversubscribed on this host) with HM_MPI_STATS=1, and reports per R: rank 0's
# messages and bytes sent and received per slot exchange (one a slot run: the "per slot"
# of the tables), the copies its nodes received from other ranks (and sent to them, from
# the event log), the most any rank sent and received per slot exchange, the trading
# steps, the time in MPI (rank 0's and the most of any rank, per slot exchange), the wall
# time, and, on a hypercube, each rank's peers and crossing links (links from its nodes
# to another rank's) with rank 0's bytes sent per crossing link and slot exchange. Every
# run must verify with the summary of the one process (the same slots; all but
# wall_seconds and ranks): else it exits 1.
#
# Knobs (environment):
#   HM_BENCH_MPI_DIMS     hypercube dimensions, default "10" (about 1.5 minutes on a 2-core
#                         host); each dimension more takes about 4 times longer (the
#                         successive broadcasts: twice the nodes, twice the slots)
#   HM_BENCH_MPI_RANKS    rank counts, default "1 2 4 8 16"
#   HM_BENCH_MPI_CONFIGS  configs, default SBT broadcast, successive broadcasts and
#                         alltoall-dimension-exchange (configs/q4_*.json)
#   HM_BENCH_REPS         runs of each, alternating (default 1); times are medians, the
#                         bytes and messages must be the same in every run
#   HM_BENCH_MPI_BYDIM    1 (default): one more one-process run per config and dimension
#                         writes the event log (through a pipe, nothing on disk) and counts
#                         the copies per hypercube dimension and those into and out of
#                         rank 0's nodes across its cut (checked against HM_MPI_STATS); 0: not
#   HM_BENCH_MPI_CSV      where the CSV goes, default bench_mpi.csv (current directory)
#   HM_BENCH_MPI_TIMEOUT  seconds before one run is killed and the bench fails (600)
#   HM_BENCH_MPI_DIM, HM_BENCH_MPI_CONFIG: the older single-valued names, still read.
# Prints Markdown tables (for doc/mpi.md) on standard output.
set -eu
src=${HM_SRCDIR:-.}
bld=${HM_BUILDDIR:-.}
dims=${HM_BENCH_MPI_DIMS:-${HM_BENCH_MPI_DIM:-10}}
reps=${HM_BENCH_REPS:-1}
ranks=${HM_BENCH_MPI_RANKS:-1 2 4 8 16}
defcfg="$src/configs/q4_sbt_broadcast.json $src/configs/q4_successive.json"
defcfg="$defcfg $src/configs/q4_alltoall_dimension_exchange.json"
configs=${HM_BENCH_MPI_CONFIGS:-${HM_BENCH_MPI_CONFIG:-$defcfg}}
bydim=${HM_BENCH_MPI_BYDIM:-1}
csv=${HM_BENCH_MPI_CSV:-bench_mpi.csv}
limit=${HM_BENCH_MPI_TIMEOUT:-600}
mpirun=${MPIRUN:-mpirun}
OMPI_MCA_btl=self,vader
OMPI_MCA_plm=isolated
OMPI_MCA_mpi_yield_when_idle=1
OMPI_MCA_rmaps_base_oversubscribe=1
OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_btl OMPI_MCA_plm OMPI_MCA_mpi_yield_when_idle OMPI_MCA_rmaps_base_oversubscribe \
    OMPI_MCA_btl_vader_single_copy_mechanism
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "bench_mpi: dims $dims, ranks $ranks, $reps run(s) each, $(nproc) CPUs," \
    "load $(cut -d' ' -f1-3 /proc/loadavg)" >&2

# run NAME COMMAND...: stdout to $tmp/NAME.json, stderr to $tmp/NAME.err; fails the bench.
run() {
    name=$1
    shift
    if ! timeout "$limit" "$@" >"$tmp/$name.json" 2>"$tmp/$name.err"; then
        echo "bench_mpi: $name failed (exit code, or over $limit s): $*" >&2
        cat "$tmp/$name.err" >&2
        exit 1
    fi
}

# Copies on each directed link (recv events: node, from), read from the event log as the
# one process writes it into a pipe.
count_links() {
    python3 -c '
import json, re, sys
pat = re.compile(r"\"node\":(\d+),\"event\":\"recv\",.*\"from\":(\d+)")
links = {}
for line in sys.stdin:
    m = pat.search(line)
    if m:
        k = m.group(2) + ">" + m.group(1)
        links[k] = links.get(k, 0) + 1
json.dump(links, open(sys.argv[1], "w"))
' "$1"
}

n=0
for cfg in $configs; do
    n=$((n + 1))
    for d in $dims; do
        set -- --json --set topology.dim="$d" --set output=null
        echo "bench_mpi: $(basename "$cfg" .json) on Q_$d" >&2
        i=0
        while [ "$i" -lt "$reps" ]; do
            run "c$n.d$d.r0.$i" "$bld/hypemu" "$@" "$cfg"
            for r in $ranks; do
                run "c$n.d$d.r$r.$i" env HM_MPI_STATS=1 "$mpirun" --allow-run-as-root \
                    --oversubscribe -np "$r" "$bld/hypemu-mpi" "$@" "$cfg"
            done
            i=$((i + 1))
        done
        if [ "$bydim" = 1 ]; then
            mkfifo "$tmp/events"
            count_links "$tmp/c$n.d$d.links" <"$tmp/events" &
            reader=$!
            run "c$n.d$d.events" "$bld/hypemu" "$@" --set output.events="$tmp/events" "$cfg"
            wait "$reader"
            rm -f "$tmp/events"
        fi
    done
done

python3 - "$tmp" "$csv" "$reps" "$configs" "$dims" "$ranks" <<'PY'
import bisect, csv, json, os, re, statistics, sys

tmp, csvpath, reps = sys.argv[1], sys.argv[2], int(sys.argv[3])
configs, dims = sys.argv[4].split(), [int(d) for d in sys.argv[5].split()]
ranks = [int(r) for r in sys.argv[6].split()]
STATS = re.compile(r"^hypemu-mpi: rank (\d+): (.*)$")


def fail(msg):
    sys.exit("bench_mpi: " + msg)


def stats_of(path, r):
    """Each rank's HM_MPI_STATS figures: {field name: integer}, by rank."""
    per = {}
    for line in open(path):
        m = STATS.match(line.rstrip("\n"))
        if not m:
            continue
        rest = re.sub(r" \((\d+) to this rank's nodes\)", r", \1 to this rank's nodes", m.group(2))
        f = {}
        for part in rest.split(", "):
            v = re.match(r"^(\d+) (.+)$", part)
            if not v:
                fail("%s: cannot read the HM_MPI_STATS line: %s" % (path, line.strip()))
            f[v.group(2)] = int(v.group(1))
        per[int(m.group(1))] = f
    if r > 1 and sorted(per) != list(range(r)):
        fail("%s: HM_MPI_STATS printed ranks %s, not 0..%d" % (path, sorted(per), r - 1))
    return per


def split(nodes, r):
    """src/engine/mpi.c split() on a hypercube: equal blocks of consecutive nodes."""
    return [nodes * k // r for k in range(r)] + [nodes]


def cut(d, r):
    """Each rank's peers and outgoing crossing links on Q_d cut into r blocks."""
    nodes = 1 << d
    first = split(nodes, r)
    peers, links = [set() for _ in range(r)], [0] * r
    for i in range(nodes):
        a = bisect.bisect_right(first, i) - 1
        for j in range(d):
            b = bisect.bisect_right(first, i ^ (1 << j)) - 1
            if a != b:
                links[a] += 1
                peers[a].add(b)
    return [len(p) for p in peers], links


def span(v):
    return "%d" % v[0] if min(v) == max(v) else "%d–%d" % (min(v), max(v))


def same(a, b):
    strip = lambda s: {k: v for k, v in s.items() if k not in ("wall_seconds", "ranks")}
    a, b = strip(a), strip(b)
    return [k for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]


rows, bydim = [], []
for n, cfg in enumerate(configs, 1):
    for d in dims:
        base = [json.load(open("%s/c%d.d%d.r0.%d.json" % (tmp, n, d, i))) for i in range(reps)]
        s0 = base[0]
        name = "%s Q_%d" % (s0["algorithm"], d)
        if not s0["verified"]:
            fail("%s: the one process did not verify" % name)
        cube = s0["topology"] == "hypercube"
        rows.append({"run": name, "R": "1 process", "slots": s0["completion_slots"],
                     "wall_s": statistics.median(s["wall_seconds"] for s in base)})
        for r in ranks:
            runs, figs, walls = [], [], []
            for i in range(reps):
                pre = "%s/c%d.d%d.r%d.%d" % (tmp, n, d, r, i)
                s = json.load(open(pre + ".json"))
                diff = same(s0, s)
                if not s["verified"] or diff:
                    fail("%s on %d ranks: verified %s, differs from one process at %s"
                         % (name, r, s["verified"], diff))
                walls.append(s["wall_seconds"])
                figs.append(stats_of(pre + ".err", r))
            for f in figs[1:]:
                a = {k: {x: v for x, v in f[k].items() if x != "us in MPI"} for k in f}
                b = {k: {x: v for x, v in figs[0][k].items() if x != "us in MPI"} for k in figs[0]}
                if a != b:
                    fail("%s on %d ranks: the messages or bytes differ between runs" % (name, r))
            per = figs[0]
            row = {"run": name, "R": r, "slots": s0["completion_slots"],
                   "wall_s": statistics.median(walls)}
            if cube:
                p, l = cut(d, r)
                row["peers"], row["crossing_links"] = span(p), span(l)
                row["crossing_links_rank0"] = l[0]
            if per:
                usec = lambda k: statistics.median(f[k]["us in MPI"] for f in figs)
                e0 = per[0]["slot exchanges"]
                ps = lambda k, f: per[k][f] / per[k]["slot exchanges"]
                row.update({
                    "exchanges": e0,
                    "trading_steps": per[0]["trading steps"],
                    "msgs_sent": per[0]["messages sent"],
                    "bytes_sent": per[0]["bytes sent"],
                    "msgs_recv": per[0]["messages received"],
                    "bytes_recv": per[0]["bytes received"],
                    "copies_in": per[0]["copies from other ranks"],
                    "msgs_sent_per_slot": ps(0, "messages sent"),
                    "bytes_sent_per_slot": ps(0, "bytes sent"),
                    "msgs_recv_per_slot": ps(0, "messages received"),
                    "bytes_recv_per_slot": ps(0, "bytes received"),
                    "max_bytes_sent_per_slot": max(ps(k, "bytes sent") for k in per),
                    "max_bytes_recv_per_slot": max(ps(k, "bytes received") for k in per),
                    "us_mpi_per_slot": usec(0) / e0,
                    "max_us_mpi_per_slot": max(usec(k) / per[k]["slot exchanges"] for k in per),
                })
                if cube and row["crossing_links_rank0"]:
                    row["bytes_per_link_per_slot"] = row["bytes_sent_per_slot"] / l[0]
            rows.append(row)
        lp = "%s/c%d.d%d.links" % (tmp, n, d)
        if cube and os.path.exists(lp):
            links = {tuple(int(x) for x in k.split(">")): v for k, v in json.load(open(lp)).items()}
            per_dim = [0] * d
            for (a, b), v in links.items():
                per_dim[(a ^ b).bit_length() - 1] += v
            into0, out0 = {}, {}
            for r in ranks:
                end = split(1 << d, r)[1]
                into0[r] = sum(v for (a, b), v in links.items() if b < end <= a)
                out0[r] = sum(v for (a, b), v in links.items() if a < end <= b)
            bydim.append({"run": name, "per_dim": per_dim, "into0": into0})
            for row in rows:
                if row["run"] == name and "copies_in" in row and row["copies_in"] != into0[row["R"]]:
                    fail("%s on %d ranks: rank 0 received %d copies, the event log says %d"
                         % (name, row["R"], row["copies_in"], into0[row["R"]]))
                if row["run"] == name and row["R"] in out0 and row["R"] != 1:
                    row["copies_out"] = out0[row["R"]]


def num(v, fmt):
    if v is None:
        return ""
    if isinstance(v, float):
        return fmt.format(v)
    return "{:,}".format(v) if isinstance(v, int) else str(v)


cols = [("run", "run"), ("R", "ranks"), ("peers", "peers"),
        ("crossing_links", "crossing links per rank"), ("slots", "slots"),
        ("trading_steps", "trading steps"), ("msgs_sent_per_slot", "msgs sent /slot"),
        ("msgs_recv_per_slot", "msgs received /slot"), ("bytes_sent_per_slot", "bytes sent /slot"),
        ("bytes_recv_per_slot", "bytes received /slot"), ("copies_in", "copies in"),
        ("copies_out", "copies out"), ("max_bytes_sent_per_slot", "max bytes sent /slot"),
        ("max_bytes_recv_per_slot", "max bytes received /slot"),
        ("bytes_per_link_per_slot", "bytes sent /crossing link /slot"),
        ("us_mpi_per_slot", "µs in MPI /slot"), ("max_us_mpi_per_slot", "max µs in MPI /slot"),
        ("wall_s", "wall s")]
fmt = {"msgs_sent_per_slot": "{:.2f}", "msgs_recv_per_slot": "{:.2f}", "wall_s": "{:.2f}",
       "bytes_per_link_per_slot": "{:,.1f}"}
print("| " + " | ".join(h for _, h in cols) + " |")
print("|---|" + "---:|" * (len(cols) - 1))
for row in rows:
    print("| " + " | ".join(num(row.get(k), fmt.get(k, "{:,.0f}")) for k, _ in cols) + " |")
if bydim:
    width = max(len(b["per_dim"]) for b in bydim)
    print()
    print("| copies on dimension | " + " | ".join(str(j) for j in range(width)) + " |")
    print("|---|" + "---:|" * width)
    for b in bydim:
        print("| %s | " % b["run"] + " | ".join("{:,}".format(v) for v in b["per_dim"]) +
              " |" * (width - len(b["per_dim"]) + 1))
keys = ["run", "R", "peers", "crossing_links", "slots", "exchanges", "trading_steps",
        "msgs_sent", "bytes_sent", "msgs_recv", "bytes_recv", "copies_in", "copies_out",
        "msgs_sent_per_slot", "bytes_sent_per_slot", "msgs_recv_per_slot",
        "bytes_recv_per_slot", "max_bytes_sent_per_slot", "max_bytes_recv_per_slot",
        "bytes_per_link_per_slot", "us_mpi_per_slot", "max_us_mpi_per_slot", "wall_s"]
with open(csvpath, "w", newline="") as f:
    w = csv.DictWriter(f, keys, extrasaction="ignore")
    w.writeheader()
    w.writerows(rows)
print("\nbench_mpi: every run verified with the one process's summary; CSV in %s; load %s"
      % (csvpath, " ".join(open("/proc/loadavg").read().split()[:3])), file=sys.stderr)
PY
