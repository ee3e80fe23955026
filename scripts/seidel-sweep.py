#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""seidel-sweep.py - reproduce Seidel 1993, Figures 16 and 18, with the emulator.

Runs st-broadcast, bst-broadcast and rh-broadcast for m = 8 bytes .. 64 KiB on a
linear array of 2^4 nodes (Figure 16) and on a 2^4 x 2^5 mesh (Figure 18, the
"better" ST and BST) with the Intel Delta constants of Table II, nu = 0:

    a = abar = 0.08 us/byte, b = 75 us, rho = 0.01 us/byte,

in slots of 0.01 us: a = 8 slots/byte, b = 7500 slots, rho = 1 slot/byte. Writes
seidel-fig16.csv/.svg and seidel-fig18.csv/.svg (emulated cost in us next to the
Table I formula) and prints the crossovers next to the paper's.

For a length m that the algorithm's P pieces do not divide, the emulator runs the
plan step-synchronously with pieces of ceil(m/P) bytes (doc/seidel.md, "Message
lengths"): its cost is Table I at m' = P*ceil(m/P) (m itself in m*rho; when m < P/2
the last step carries m bytes, not m'/2). The crossovers are found on that formula
for every m in 8..65536 and each one is checked with the emulator on both sides.

--replot draws the figures again from the CSVs in DIR alone; --formats svg,pdf,png
writes the figures in those formats.

Usage: scripts/seidel-sweep.py [--hypemu PATH] [--out DIR] [--replot] [--formats svg]
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no scripts/__pycache__ in the tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hmplot  # noqa: E402

A, B, RHO = 8, 7500, 1  # slots of 0.01 us
US_PER_SLOT = 0.01
SIZES = [8 << k for k in range(14)]  # 8 .. 65536
ALGS = ["st-broadcast", "bst-broadcast", "rh-broadcast"]
COLORS = {"st-broadcast": 0, "bst-broadcast": 1, "rh-broadcast": 2}  # hmplot.PALETTE


def table1(alg, mesh, d1, d2, m):
    """Table I with nu = 0 (a = abar), in slots."""
    ma = m * A
    if not mesh:
        d = d2
        return {"st-broadcast": (2 + (d - 2)) * ma + d * B,
                "bst-broadcast": (2 + (d - 3) / 2) * ma + (d + 1) * B,
                "rh-broadcast": (2 + (d - 2) / 2 - 1 / 2 ** d) * ma + 2 * d * B + m * RHO}[alg]
    x, y = min(d1, d2), max(d1, d2)
    return {"st-broadcast": (2 + (y - 2) / 2) * ma + (2 * y + 2) * B,
            "bst-broadcast": (2 + (2 * y - 5) / 8) * ma + (2 * y + 3) * B,
            "rh-broadcast": (2 + (2 * (y - x) - 3) / 2 ** (x + 2) + 1 / 8 - 1 / 2 ** (d1 + d2))
            * ma + 2 * (d1 + d2) * B + m * RHO}[alg]


def run(hypemu, topo, alg, m, tmp):
    cfg = {"topology": topo,
           "ports": {"model": "one-port-full", "routing": "circuit", "link_capacity": 1,
                     "cost": {"a": A, "abar": A, "b": B, "rho": RHO}},
           "contention": "queue",
           "algorithm": {"name": alg, "message_bytes": m},
           "clock": {"max_slots": 10 ** 12}}
    if topo["kind"] == "mesh" and alg != "rh-broadcast":
        cfg["algorithm"]["variant"] = "better"
    path = os.path.join(tmp, "sweep.json")
    with open(path, "w") as f:
        json.dump(cfg, f)
    p = subprocess.run([hypemu, "--json", path], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("hypemu failed on %s m=%d: %s" % (alg, m, p.stderr))
    s = json.loads(p.stdout)
    return s["completion_slots"], s["slots_run"], s["wall_seconds"]


def svg(path, title, rows):
    """A log-log plot: x = m (bytes), y = cost (us); markers emulated, lines Table I."""
    fig = hmplot.Figure(title, xlabel="message length m (bytes)", ylabel="cost (microseconds)",
                        xscale="log2", yscale="log10", xticks=SIZES,
                        xformat=lambda m: "%dK" % (m // 1024) if m >= 1024 else "%d" % m)
    for i, alg in enumerate(ALGS):
        pts = [r for r in rows if r["alg"] == alg]
        name = alg.split("-")[0].upper()
        fig.line([r["m"] for r in pts], [r["formula_us"] for r in pts], color=COLORS[alg],
                 label="%s, Table I" % name)
        fig.line([r["m"] for r in pts], [r["emu_us"] for r in pts], color=COLORS[alg],
                 marker=("circle", "square", "triangle")[i % 3], points=False,
                 label="%s, emulated" % name,
                 tips=["%s m=%d: %.2f us emulated, Table I %.2f us" % (
                     name, r["m"], r["emu_us"], r["formula_us"]) for r in pts])
    fig.note("Markers: hypemu --json's completion_slots x 0.01 us; lines: Table I's formula.")
    fig.save(path)


def pieces(alg, mesh, d1, d2):
    """The pieces P each algorithm cuts the message into, nu = 0."""
    return {"st-broadcast": 4 if mesh else 1, "bst-broadcast": 8 if mesh else 2,
            "rh-broadcast": 2 ** (d1 + d2)}[alg]


def formula(alg, mesh, d1, d2, m):
    """Table I at m' = P ceil(m/P), as the emulator runs it, in slots."""
    P = pieces(alg, mesh, d1, d2)
    mp = -(-m // P) * P
    f = table1(alg, mesh, d1, d2, mp)
    if alg == "rh-broadcast":
        f += (m - mp) * RHO
    if P >= 2 and 2 * m < P:
        f -= (P // 2 - m) * A
    return f


def crossings(mesh, d1, d2, a_alg, b_alg):
    """(first m at which b_alg is cheaper than a_alg, first m from which it stays
    cheaper) over 8..65536, on the formula at m'; None if never."""
    wins = [formula(b_alg, mesh, d1, d2, m) < formula(a_alg, mesh, d1, d2, m)
            for m in range(8, 65537)]
    if not any(wins):
        return None, None
    first = 8 + wins.index(True)
    good = 8 + len(wins) - (wins[::-1].index(False) if False in wins else len(wins))
    return first, good


def check_crossing(hypemu, topo, tmp, a_alg, b_alg, m):
    """The emulator agrees: b_alg is not cheaper at m - 1 and is at m."""
    for x, want in ((m - 1, False), (m, True)):
        won = run(hypemu, topo, b_alg, x, tmp)[0] < run(hypemu, topo, a_alg, x, tmp)[0]
        if won != want:
            sys.exit("emulator disagrees with the formula at m = %d (%s vs %s)" % (x, b_alg, a_alg))


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("--hypemu", default=os.path.join(here, "..", "hypemu"))
    ap.add_argument("--out", default=".")
    ap.add_argument("--replot", action="store_true",
                    help="run nothing: redraw the figures from DIR/seidel-fig*.csv")
    hmplot.add_formats(ap)
    args = ap.parse_args()
    hmplot.formats_of(ap, args)
    os.makedirs(args.out, exist_ok=True)
    figs = [("seidel-fig16", "Figure 16: linear array of 2^4 nodes, Delta constants, nu = 0",
             {"kind": "linear", "nodes": 16}, False, 0, 4),
            ("seidel-fig18", "Figure 18: 2^4 x 2^5 mesh, Delta constants, nu = 0",
             {"kind": "mesh", "rows": 16, "cols": 32}, True, 4, 5)]
    if args.replot:
        for name, title, _, _, _, _ in figs:
            with open(os.path.join(args.out, name + ".csv")) as f:
                rows = [{"alg": r["algorithm"], "m": int(r["m_bytes"]),
                         "emu_us": float(r["emulated_us"]), "formula_us": float(r["table1_us"])}
                        for r in csv.DictReader(f)]
            svg(os.path.join(args.out, name + ".svg"), title, rows)
        return
    with tempfile.TemporaryDirectory() as tmp:
        for name, title, topo, mesh, d1, d2 in figs:
            rows = []
            for alg in ALGS:
                for m in SIZES:
                    slots, barriers, wall = run(args.hypemu, topo, alg, m, tmp)
                    f = table1(alg, mesh, d1, d2, m)
                    rows.append({"alg": alg, "m": m, "emu_slots": slots,
                                 "emu_us": slots * US_PER_SLOT, "formula_us": f * US_PER_SLOT,
                                 "barriers": barriers, "wall_s": wall})
            with open(os.path.join(args.out, name + ".csv"), "w") as f:
                f.write("algorithm,m_bytes,emulated_slots,emulated_us,table1_us,"
                        "clock_slots_opened,wall_seconds\n")
                for r in rows:
                    f.write("%s,%d,%d,%.2f,%.2f,%d,%.4f\n" % (
                        r["alg"], r["m"], r["emu_slots"], r["emu_us"], r["formula_us"],
                        r["barriers"], r["wall_s"]))
            svg(os.path.join(args.out, name + ".svg"), title, rows)
            x, xg = crossings(mesh, d1, d2, "st-broadcast", "bst-broadcast")
            for c in (x, xg):
                if c and c > 8:
                    check_crossing(args.hypemu, topo, tmp, "st-broadcast", "bst-broadcast", c)
            if mesh:
                # Table I mesh rows, nu = 0: ST (2+(y-2)/2)ma + (2y+2)b, BST
                # (2+(2y-5)/8)ma + (2y+3)b: BST is cheaper once m > b/(a((y-2)/2-(2y-5)/8)).
                y = max(d1, d2)
                paper = B / (A * ((y - 2) / 2 - (2 * y - 5) / 8))
                rule = "Table I mesh rows: m > b/(a((y-2)/2-(2y-5)/8)), y = max(d1,d2)"
            else:
                paper = 2 * B / (A * (d2 - 0 - 1))
                rule = "m > 2^(nu+1) b / (a (d - nu - 1))"
            print("%s: ST/BST crossover found by the emulator: BST cheaper first at m = %s "
                  "bytes, for good from %s; paper: %s = %.1f bytes" % (name, x, xg, rule, paper))
            rh, rhg = crossings(mesh, d1, d2, "bst-broadcast", "rh-broadcast")
            for c in (rh, rhg):
                if c and c > 8:
                    check_crossing(args.hypemu, topo, tmp, "bst-broadcast", "rh-broadcast", c)
            if mesh:
                # Table I: RH (2+(2(y-x)-3)/2^(x+2)+1/8-1/2^(x+y))ma + 2(x+y)b + m rho
                # against BST (2+(2y-5)/8)ma + (2y+3)b.
                x, y = min(d1, d2), max(d1, d2)
                k = (2 * y - 5) / 8 - (2 * (y - x) - 3) / 2 ** (x + 2) - 1 / 8 + 1 / 2 ** (x + y)
                rh_rule = " (Table I: m > %.1f bytes; the paper says \"more than 12K\")" % (
                    (2 * (x + y) - 2 * y - 3) * B / (k * A - RHO))
            else:
                rh_rule = " (section 3.7: never)"
            print("%s: RH cheaper than BST first at m = %s bytes, for good from %s%s" % (
                name, rh, rhg, rh_rule))
            worst = max(abs(r["emu_slots"] - formula(r["alg"], mesh, d1, d2, r["m"]))
                        for r in rows)
            print("%s: largest |emulated - Table I at m'| = %d slots; most clock slots opened "
                  "in one run: %d" % (name, worst, max(r["barriers"] for r in rows)))


if __name__ == "__main__":
    main()
