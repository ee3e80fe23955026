#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""collectives-table.py - measured slots against each algorithm's formula.

Runs every collective algorithm (hypemu --list --json, those whose summary names a
problem) on the hypercube Q_d for the given dimensions, under its default port model
(one-port-full; all-port for bcast-msbt and scatter-bst), strict, and prints one Markdown table per problem: a row per algorithm, a column per d, each
cell "measured/formula" (the summary's completion_slots and bound), with a mark when
they differ or the run does not verify. doc/collectives.md holds its output for
d = 1..10; tests/check_collectives_table.sh runs it on small sizes.

Usage: scripts/collectives-table.py [--hypemu PATH] [--dims "1 2 3"] [--block B]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

PROBLEMS = ["broadcast", "scatter", "gather", "reduce", "allreduce", "allgather",
            "reduce-scatter", "alltoall"]
PREFIX = {"broadcast": "bcast-", "scatter": "scatter-", "gather": "gather-",
          "reduce": "reduce-", "allreduce": "allreduce-", "allgather": "allgather-",
          "reduce-scatter": "reduce-scatter-", "alltoall": "alltoall-"}


def algorithms(hypemu):
    out = subprocess.run([hypemu, "--list"], capture_output=True, text=True, check=True).stdout
    # Algorithm lines are indented by two spaces, their details by more.
    names = [line.split()[0] for line in out.splitlines() if line.startswith("  ") and
             not line.startswith("   ")]
    per = {p: [] for p in PROBLEMS}
    for n in names:
        # The longest matching prefix: reduce-scatter- before reduce-.
        best = max((p for p in PROBLEMS if n.startswith(PREFIX[p])),
                   key=lambda p: len(PREFIX[p]), default=None)
        if best:
            per[best].append(n)
    return per


def run(hypemu, tmp, alg, d, block):
    cfg = {"topology": {"kind": "hypercube", "dim": d}, "contention": "strict", "algorithm": {"name": alg, "block": block}, "seed": 1}
    path = os.path.join(tmp, "c.json")
    with open(path, "w") as f:
        json.dump(cfg, f)
    r = subprocess.run([hypemu, "--json", path], capture_output=True, text=True)
    return json.loads(r.stdout)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hypemu", default=os.path.join(os.path.dirname(__file__), "..", "hypemu"))
    ap.add_argument("--dims", default="1 2 3 4 5 6 7 8 9 10")
    ap.add_argument("--block", type=int, default=1)
    a = ap.parse_args()
    dims = [int(x) for x in a.dims.split()]
    per = algorithms(a.hypemu)
    with tempfile.TemporaryDirectory() as tmp:
        for prob in PROBLEMS:
            if not per[prob]:
                continue
            print(f"### {prob}\n")
            print("| algorithm | formula | " + " | ".join(f"d={d}" for d in dims) + " |")
            print("|---|---|" + "---|" * len(dims))
            for alg in per[prob]:
                cells, expr = [], ""
                for d in dims:
                    s = run(a.hypemu, tmp, alg, d, a.block)
                    expr = s["bound"]["expression"]
                    m, f = s["completion_slots"], s["bound"]["value"]
                    mark = "" if m == f and s["verified"] and s["conflicts"] == 0 else " **!**"
                    cells.append(f"{m}/{f}{mark}")
                print(f"| `{alg}` | {expr} | " + " | ".join(cells) + " |")
            print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
