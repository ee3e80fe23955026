#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""collectives-crossover.py - cost against message size under Seidel's a*m + b.

Runs, under circuit routing to neighbours (ports.routing "circuit", ports.cost a and
b: a message of m bytes lasts ceil(a*m + b) slots, Hockney's alpha + beta*m), on the
hypercube Q_d, for blocks of p*k values (8 bytes each), k = 1..K:
  broadcast: bcast-binomial      log2(p)*ceil(8a*block+b)
             bcast-scatter-allgather  2*sum_i ceil(8a*block*2^i/p+b)
  allreduce: allreduce-recursive-doubling  log2(p)*ceil(8a*block+b)
             allreduce-ring      2(p-1)*ceil(8a*ceil(block/p)+b)
  reduce:    reduce-binomial     log2(p)*ceil(8a*block+b)
             reduce-rabenseifner 2*sum_i ceil(8a*block*2^i/p+b)
Every run must verify (its completion equal to the formula) with no conflict. Writes
collectives-crossover.csv and three SVG plots (broadcast, allreduce, reduce) into
--out, and prints each crossover: the smallest block from which the bandwidth
algorithm (scatter+allgather, ring, Rabenseifner) is strictly cheaper, and stays so.
doc/collectives.md holds the figures for d = 4; tests/check_collectives_crossover.sh
runs it on d = 3.

Usage: scripts/collectives-crossover.py [--hypemu PATH] [--dim D] [--a A] [--b B]
                                        [--kmax K] [--out DIR]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no scripts/__pycache__ in the tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hmplot  # noqa: E402

PAIRS = [("broadcast", "bcast-binomial", "bcast-scatter-allgather"),
         ("allreduce", "allreduce-recursive-doubling", "allreduce-ring"),
         ("reduce", "reduce-binomial", "reduce-rabenseifner")]


def run(hypemu, tmp, alg, d, block, a, b):
    cfg = {"topology": {"kind": "hypercube", "dim": d},
           "ports": {"model": "one-port-full", "routing": "circuit",
                     "cost": {"a": a, "b": b}},
           "contention": "strict", "seed": 1,
           "algorithm": {"name": alg, "block": block}}
    path = os.path.join(tmp, "c.json")
    with open(path, "w") as f:
        json.dump(cfg, f)
    r = subprocess.run([hypemu, "--json", path], capture_output=True, text=True)
    s = json.loads(r.stdout)
    if not s["verified"] or s["conflicts"] != 0:
        sys.exit("%s block %d: not verified: %s" % (alg, block, s["verification"]))
    return s["completion_slots"]


def crossover(blocks, lat, bw):
    """The smallest block from which bw < lat for every larger block too, or None."""
    best = None
    for i in range(len(blocks) - 1, -1, -1):
        if bw[i] < lat[i]:
            best = blocks[i]
        else:
            break
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hypemu", default=os.path.join(os.path.dirname(__file__), "..", "hypemu"))
    ap.add_argument("--dim", type=int, default=4)
    ap.add_argument("--a", type=float, default=1.0)
    ap.add_argument("--b", type=float, default=100.0)
    ap.add_argument("--kmax", type=int, default=40)
    ap.add_argument("--out", default="doc/figures")
    hmplot.add_formats(ap)
    o = ap.parse_args()
    hmplot.formats_of(ap, o)
    if o.dim < 1 or o.dim > 8 or o.kmax < 1 or o.kmax > 4096 or o.a < 0 or o.b < 0:
        ap.error("--dim 1..8, --kmax 1..4096, --a and --b >= 0")
    p = 1 << o.dim
    blocks = [p * k for k in range(1, o.kmax + 1)]
    os.makedirs(o.out, exist_ok=True)
    rows, lines = {}, []
    with tempfile.TemporaryDirectory() as tmp:
        for _, lat, bw in PAIRS:
            for alg in (lat, bw):
                rows[alg] = [run(o.hypemu, tmp, alg, o.dim, blk, o.a, o.b) for blk in blocks]
    with open(os.path.join(o.out, "collectives-crossover.csv"), "w") as f:
        f.write("block,bytes," + ",".join(a for _, l, b in PAIRS for a in (l, b)) + "\n")
        for i, blk in enumerate(blocks):
            f.write("%d,%d,%s\n" % (blk, 8 * blk,
                                    ",".join(str(rows[a][i]) for _, l, b in PAIRS
                                             for a in (l, b))))
    for prob, lat, bw in PAIRS:
        x = crossover(blocks, rows[lat], rows[bw])
        lines.append("%s crossover: block %s (%s bytes): %s below %s from there on"
                     % (prob, x, 8 * x if x else None, bw, lat))
        fig = hmplot.Figure("%s on Q_%d under a*m + b (a = %g, b = %g)" % (prob, o.dim, o.a, o.b),
                            xlabel="message m (bytes)", ylabel="completion (slots)")
        ms = [8 * blk for blk in blocks]
        fig.line(ms, rows[lat], label=lat, color=0, marker="circle")
        fig.line(ms, rows[bw], label=bw, color=1, marker="square")
        if x:
            fig.note("crossover: %s is cheaper from m = %d bytes (block %d)" % (bw, 8 * x, x))
        fig.note("measured completion_slots, each equal to its formula, strict, 0 conflicts")
        fig.save(os.path.join(o.out, "collectives-crossover-%s.svg" % prob))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
