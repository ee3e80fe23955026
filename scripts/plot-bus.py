#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""plot-bus.py - the broadcast-channel algorithms against Dechter and Kleinrock's figures.

MAX (section 1): for k = 2..--max-k, one run of `max` on a bus of k processors with
--trials seeded permutations of 1..k (seed = k, as doc/bus.md's table), giving the
mean number of comparisons against the exact solution of recurrence (1),
T(k) = H_k - 1/2, and the paper's bound log2 k, and the mean number of real broadcasts
against H_k (left-to-right maxima). Writes bus-max.csv, bus-max.svg and
bus-max-error.svg (the relative error of the mean against T(k)).

MERGE-SORT (section 2): for k = 2..--max-k and n = 3k values, the broadcast count S of
--seeds random permutations (seeds 1..N) and of the worst input known (blocks in
increasing order: P1 holds the smallest values), against Theorem 1's n <= S <= 2n - 1.
Writes bus-merge-sort.csv and bus-merge-sort.svg (S / n, so that every k fits one
scale: the bounds are 1 and 2 - 1/n, the worst input gives 2 - 1/k).

--replot redraws the figures from the CSVs in --out alone; --formats svg,pdf,png writes
them in those formats.

Usage: scripts/plot-bus.py [--hypemu PATH] [--out DIR] [--max-k N] [--seeds N]
                           [--trials N] [--replot] [--formats svg]
"""
import argparse
import csv
import json
import math
import os
import re
import subprocess
import sys
import tempfile
from fractions import Fraction

sys.dont_write_bytecode = True  # no scripts/__pycache__ in the tree (or the tarball)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hmplot  # noqa: E402


def harmonic(k):
    return sum(Fraction(1, i) for i in range(1, k + 1))


def run(hypemu, tmp, cfg):
    path = os.path.join(tmp, "run.json")
    with open(path, "w") as f:
        json.dump(cfg, f)
    p = subprocess.run([hypemu, "--json", path], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("hypemu failed (exit %d) on %s: %s" % (p.returncode, json.dumps(cfg),
                                                        p.stderr.strip()))
    return json.loads(p.stdout)


def bus(k, algorithm, seed):
    return {"topology": {"kind": "bus", "nodes": k + 1}, "ports": {"model": "bus"},
            "contention": "strict", "algorithm": algorithm, "seed": seed,
            "clock": {"max_slots": 10 ** 7}}


def sweep_max(args, tmp):
    rows = []
    for k in range(2, args.max_k + 1):
        s = run(args.hypemu, tmp, bus(k, {"name": "max", "trials": args.trials}, k))
        t_exact = float(harmonic(k) - Fraction(1, 2))
        rows.append({"k": k, "trials": args.trials, "seed": k,
                     "mean_comparisons": s["mean_comparisons"],
                     "T_k": s["expected_comparisons"]["value"], "T_k_exact": t_exact,
                     "error_percent": 100.0 * (s["mean_comparisons"] - t_exact) / t_exact,
                     "mean_broadcasts": s["mean_broadcasts"], "H_k": float(harmonic(k)),
                     "log2_k": s["comparisons_bound"]["value"],
                     "verified": "yes" if s["verified"] else "no"})
        print("max k=%-2d mean comparisons %.4f, T(k) %.4f, mean broadcasts %.4f" % (
            k, s["mean_comparisons"], t_exact, s["mean_broadcasts"]), file=sys.stderr)
    return rows


def sweep_merge(args, tmp):
    rows = []
    for k in range(2, args.max_k + 1):
        n = 3 * k
        inputs = [("random", seed, {"name": "merge-sort", "n": n}) for seed in
                  range(1, args.seeds + 1)]
        inputs.append(("increasing-blocks", 1,
                       {"name": "merge-sort", "values": list(range(1, n + 1))}))
        for kind, seed, alg in inputs:
            s = run(args.hypemu, tmp, bus(k, alg, seed))
            rows.append({"k": k, "n": n, "input": kind, "seed": seed,
                         "broadcasts": s["broadcasts"],
                         "lower_n": s["broadcasts_lower"]["value"],
                         "bound_2n_minus_1": s["broadcasts_bound"]["value"],
                         "completion_slots": s["completion_slots"],
                         "verified": "yes" if s["verified"] else "no"})
        print("merge-sort k=%-2d n=%-3d S random max %d, increasing blocks %d (2n-1 = %d)" % (
            k, n, max(r["broadcasts"] for r in rows[-len(inputs):-1]), rows[-1]["broadcasts"],
            2 * n - 1), file=sys.stderr)
    return rows


def write_csv(path, fields, rows):
    with open(path, "w") as f:
        f.write(",".join(fields) + "\n")
        for r in rows:
            f.write(",".join(("%.6f" % r[c]) if isinstance(r[c], float) else str(r[c])
                             for c in fields) + "\n")


def read_csv(path):
    """The rows of a CSV written by write_csv, numbers as numbers (--replot)."""
    rows = []
    with open(path) as f:
        for r in csv.DictReader(f):
            for c, v in r.items():
                if re.fullmatch(r"-?\d+", v):
                    r[c] = int(v)
                elif re.fullmatch(r"-?\d+\.\d*", v):
                    r[c] = float(v)
            rows.append(r)
    return rows


def k_ticks(max_k):
    return [1 << i for i in range(1, int(math.log2(max_k)) + 1)]


def plot_max(out, rows, max_k):
    ks = [r["k"] for r in rows]
    trials = rows[0]["trials"]
    fig = hmplot.Figure("MAX on a broadcast channel: mean comparisons against T(k) = H_k - 1/2",
                        xlabel="processors k", ylabel="per run (mean over the trials)",
                        xscale="log2", xticks=k_ticks(max_k), xlim=(2, max_k),
                        subtitle="Dechter-Kleinrock 1981, section 1, recurrence (1); %d seeded "
                                 "permutations of 1..k per k (seed = k)" % trials)
    fig.line(ks, [r["log2_k"] for r in rows], label="paper's bound log2 k", color="#555555",
             dash="dash")
    fig.line(ks, [r["H_k"] for r in rows], label="H_k (expected broadcasts)", color=1,
             width=1.2)
    fig.line(ks, [r["mean_broadcasts"] for r in rows], label="mean real broadcasts", color=1,
             marker="square", points=False, size=2.6,
             tips=["k=%d: %.4f broadcasts, H_k %.4f" % (r["k"], r["mean_broadcasts"], r["H_k"])
                   for r in rows])
    fig.line(ks, [r["T_k_exact"] for r in rows], label="T(k) = H_k - 1/2 (recurrence (1))",
             color=0, width=1.2)
    fig.line(ks, [r["mean_comparisons"] for r in rows], label="mean comparisons", color=0,
             marker="circle", points=False, size=2.6,
             tips=["k=%d: %.4f comparisons, T(k) %.4f (%+.2f%%)" % (
                 r["k"], r["mean_comparisons"], r["T_k_exact"], r["error_percent"])
                 for r in rows])
    worst = max(rows, key=lambda r: abs(r["error_percent"]))
    fig.note("Markers: hypemu --json, mean_comparisons and mean_broadcasts of one run with "
             "trials = %d for each k = 2..%d." % (trials, max_k))
    above = [r["k"] for r in rows if r["k"] >= 3 and r["mean_comparisons"] >= r["log2_k"]]
    fig.note("Largest deviation from T(k): %+.2f%% at k = %d; %s" % (
        worst["error_percent"], worst["k"],
        "every mean stays below log2 k for k >= 3." if not above else
        "the mean reaches log2 k at k = %s." % ", ".join(str(k) for k in above)))
    fig.save(os.path.join(out, "bus-max.svg"))

    err = hmplot.Figure("MAX: relative error of the mean comparisons against T(k)",
                        xlabel="processors k", ylabel="(mean - T(k)) / T(k), percent",
                        xscale="log2", xticks=k_ticks(max_k), xlim=(2, max_k),
                        ylim=(-3, 3) if all(abs(r["error_percent"]) < 3 for r in rows)
                        else None,
                        subtitle="%d seeded permutations per k; dashed: the 2%% that make "
                                 "check allows with 8000 trials" % trials)
    err.line([2, max_k], [2, 2], color="#999999", dash="dash", label="+/- 2%")
    err.line([2, max_k], [-2, -2], color="#999999", dash="dash")
    err.line([2, max_k], [0, 0], color="#555555", width=1)
    err.line(ks, [r["error_percent"] for r in rows], label="mean comparisons vs T(k)", color=0,
             marker="circle", size=2.6, width=1.0,
             tips=["k=%d: %+.2f%%" % (r["k"], r["error_percent"]) for r in rows])
    err.save(os.path.join(out, "bus-max-error.svg"))


def plot_merge(out, rows, max_k, seeds):
    ks = sorted({r["k"] for r in rows})

    def pick(kind, f):
        return [f([r for r in rows if r["k"] == k and r["input"] == kind]) for k in ks]

    fig = hmplot.Figure("MERGE-SORT on a broadcast channel: broadcasts S against Theorem 1",
                        xlabel="processors k (n = 3k values)", ylabel="broadcasts S / n",
                        xscale="log2", xticks=k_ticks(max_k), xlim=(2, max_k),
                        yticks=[1, 1.2, 1.4, 1.6, 1.8, 2], ylim=(0.9, 2.05),
                        subtitle="Dechter-Kleinrock 1981, section 2: n <= S(n, k) <= 2n - 1")
    n = [3 * k for k in ks]
    fig.line(ks, [(2 * m - 1) / m for m in n], label="upper bound 2n - 1 (Theorem 1)",
             color="#555555", band=True)
    fig.line(ks, [1.0] * len(ks), label="lower bound n", color="#222222", dash="dot")
    fig.line(ks, [2 - 1 / k for k in ks], label="2n - n/k", color=1, width=1.2)
    fig.line(ks, pick("increasing-blocks", lambda rs: rs[0]["broadcasts"] / rs[0]["n"]),
             label="increasing blocks (worst input found)", color=1, marker="square",
             points=False, size=2.8,
             tips=["k=%d n=%d: S = %d" % (r["k"], r["n"], r["broadcasts"]) for r in rows
                   if r["input"] == "increasing-blocks"])
    fig.line(ks, pick("random", lambda rs: max(r["broadcasts"] for r in rs) / rs[0]["n"]),
             label="random input, largest of %d seeds" % seeds, color=0, marker="triangle",
             points=False, size=2.8, hollow=True,
             tips=pick("random", lambda rs: "k=%d n=%d: largest S = %d over %d seeds" % (
                 rs[0]["k"], rs[0]["n"], max(r["broadcasts"] for r in rs), len(rs))))
    fig.line(ks, pick("random", lambda rs: sum(r["broadcasts"] for r in rs) / len(rs) /
                      rs[0]["n"]),
             label="random input, mean of %d seeds" % seeds, color=0, marker="circle",
             size=2.6, width=1.0,
             tips=pick("random", lambda rs: "k=%d n=%d: mean S = %.1f over %d seeds" % (
                 rs[0]["k"], rs[0]["n"], sum(r["broadcasts"] for r in rs) / len(rs), len(rs))))
    fig.note("Markers: broadcasts from hypemu --json (merge-sort, n = 3k values; random: "
             "seeded permutations of 1..n, seeds 1..%d)." % seeds)
    fig.note("The bound 2n - 1 is reached with one value per processor (n = k): "
             "2n - n/k = 2n - 1 there.")
    fig.save(os.path.join(out, "bus-merge-sort.svg"))


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hypemu", default=os.path.join(here, "..", "hypemu"),
                    help="the hypemu program (default: ../hypemu next to scripts/)")
    ap.add_argument("--out", default=".", help="folder for the CSV and SVG files")
    ap.add_argument("--max-k", type=int, default=64, help="largest k, 2..64 (default 64)")
    ap.add_argument("--seeds", type=int, default=10,
                    help="random merge-sort inputs per k (default 10)")
    ap.add_argument("--trials", type=int, default=8000,
                    help="MAX trials per k, 1..100000 (default 8000)")
    ap.add_argument("--replot", action="store_true",
                    help="run nothing: redraw the figures from DIR/bus-max.csv and "
                         "DIR/bus-merge-sort.csv")
    hmplot.add_formats(ap)
    args = ap.parse_args()
    hmplot.formats_of(ap, args)
    if not 2 <= args.max_k <= 64:
        ap.error("--max-k %d: allowed is 2..64 (a bus has at most 65 nodes)" % args.max_k)
    if args.seeds < 1:
        ap.error("--seeds %d: allowed is 1 or more" % args.seeds)
    if not 1 <= args.trials <= 100000:
        ap.error("--trials %d: allowed is 1..100000" % args.trials)
    if args.replot:
        mx, ms = read_csv(os.path.join(args.out, "bus-max.csv")), \
            read_csv(os.path.join(args.out, "bus-merge-sort.csv"))
        args.max_k, args.seeds = max(r["k"] for r in mx), max(
            r["seed"] for r in ms if r["input"] == "random")
        plot_max(args.out, mx, args.max_k)
        plot_merge(args.out, ms, args.max_k, args.seeds)
        return
    if not os.access(args.hypemu, os.X_OK):
        sys.exit("%s: not an executable hypemu (build it, or pass --hypemu)" % args.hypemu)
    os.makedirs(args.out, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        mx = sweep_max(args, tmp)
        ms = sweep_merge(args, tmp)
    write_csv(os.path.join(args.out, "bus-max.csv"),
              ["k", "trials", "seed", "mean_comparisons", "T_k", "T_k_exact", "error_percent",
               "mean_broadcasts", "H_k", "log2_k", "verified"], mx)
    write_csv(os.path.join(args.out, "bus-merge-sort.csv"),
              ["k", "n", "input", "seed", "broadcasts", "lower_n", "bound_2n_minus_1",
               "completion_slots", "verified"], ms)
    plot_max(args.out, mx, args.max_k)
    plot_merge(args.out, ms, args.max_k, args.seeds)
    for name in ("bus-max.svg", "bus-max-error.svg", "bus-merge-sort.svg"):
        print(os.path.join(args.out, name))


if __name__ == "__main__":
    main()
