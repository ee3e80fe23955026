#!/bin/sh
# SPDX-License-Identifier: MIT
# bench_mpi.sh — what crossing MPI ranks costs (doc/mpi.md, "Cost"): the successive
# broadcasts on Q_D (configs/q4_successive.json, or HM_BENCH_MPI_CONFIG; D =
# HM_BENCH_MPI_DIM, default 10) run by ./hypemu in one process and by hypemu-mpi on 1, 2
# and 4 ranks (HM_BENCH_MPI_RANKS), HM_BENCH_REPS runs each (default 3), alternating;
# prints the median wall_seconds of each, its ratio to the one process, the median time
# the slowest rank spent in MPI and the bytes the ranks received in the slot exchanges
# (HM_MPI_STATS=1), and checks that every run verified in the same number of slots.
# Run by `make bench-mpi` (with hypemu-mpi built).
set -eu
src=${HM_SRCDIR:-.}
bld=${HM_BUILDDIR:-.}
dim=${HM_BENCH_MPI_DIM:-10}
reps=${HM_BENCH_REPS:-3}
ranks=${HM_BENCH_MPI_RANKS:-1 2 4}
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
cfg=${HM_BENCH_MPI_CONFIG:-$src/configs/q4_successive.json}
set -- --json --set topology.dim="$dim" --set output=null "$cfg"
echo "bench_mpi: $(basename "$cfg" .json) on Q_$dim, $reps runs each, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
i=0
while [ "$i" -lt "$reps" ]; do
    "$bld/hypemu" "$@" >>"$tmp/r0"
    for r in $ranks; do
        HM_MPI_STATS=1 "$mpirun" --allow-run-as-root --oversubscribe -np "$r" "$bld/hypemu-mpi" \
            "$@" >>"$tmp/r$r" 2>>"$tmp/s$r"
    done
    i=$((i + 1))
done
python3 - "$tmp" $ranks <<'PY'
import json, os, re, statistics, sys
tmp, ranks = sys.argv[1], [0] + [int(r) for r in sys.argv[2:]]
base = None
slots = set()
print("%-14s %12s %8s %12s %14s" % ("run", "median wall", "ratio", "in MPI", "bytes received"))
for r in ranks:
    runs = [json.loads(l) for l in open("%s/r%d" % (tmp, r)) if l.strip()]
    for s in runs:
        if not s["verified"]:
            sys.exit("bench_mpi: a run on %d ranks did not verify" % r)
        slots.add(s["completion_slots"])
    med = statistics.median(s["wall_seconds"] for s in runs)
    base = base or med
    name = "hypemu" if r == 0 else "%d rank%s" % (r, "s" if r > 1 else "")
    mpi = ""
    received = ""
    stats = "%s/s%d" % (tmp, r)
    if r > 1 and os.path.exists(stats):
        # rank 0's HM_MPI_STATS line: "... X s in MPI ..., N bytes received"
        lines = [l for l in open(stats) if "bytes received" in l]
        secs = [float(re.search(r"([0-9.]+) s in MPI", l).group(1)) for l in lines]
        got = {int(re.search(r"([0-9]+) bytes received", l).group(1)) for l in lines}
        mpi = "%.3f s" % statistics.median(secs) if secs else "?"
        received = ",".join(str(b) for b in sorted(got))
    print("%-14s %10.3f s %7.2fx %12s %14s" % (name, med, med / base, mpi, received))
if len(slots) != 1:
    sys.exit("bench_mpi: the runs took different numbers of slots: %s" % sorted(slots))
print("every run verified in %d slots" % slots.pop())
PY
