#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""plot-hypercube.py - completion slots against the paper's bound, d = 1..12, for every
hypercube algorithm and variant of the catalogue.

The algorithms come from `hypemu --list`: every broadcast family (a name ending in
`-broadcast`) that runs on the hypercube; the collectives (bcast-*, scatter-*, ...) have
their own table in doc/collectives.md. An
algorithm with a `variant` parameter gets one line per variant (under its default port
model); one without (sbt-broadcast) gets one line per port model it accepts. Each
(line, d) runs `hypemu --json` on Q_d with the defaults of the catalogue, except:

  - successive-broadcast interleaved runs under `queue` contention: under `strict` it
    stops at its first conflict (d >= 3), under `queue` it finishes with delays and its
    order check fails, which the plot shows with hollow markers;
  - simultaneous-broadcast draws its K sources with the seed (K = d, priority K = 2:
    the catalogue's defaults) and runs seeds 1..--seeds; the plot shows the largest
    completion time over the seeds.

Per algorithm it draws hypercube-<algorithm>.svg: one line per variant (markers: what
the emulator measured), the bound hypemu reports (bound.value, a wide pale band in the
variant's colour, or one grey band when every variant has the same bound) and the lower
bound (lower_bound.value, dotted). All runs go into hypercube-slots.csv, one row per
(algorithm, variant, ports, d), including the dimensions skipped by --slow-max-dim.

Usage: scripts/plot-hypercube.py [--hypemu PATH] [--out DIR] [--max-dim N]
                                 [--slow-max-dim N] [--seeds N]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no scripts/__pycache__ in the tree (or the tarball)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hmplot  # noqa: E402

# Settings that differ from the catalogue's defaults, by (algorithm, variant).
OVERRIDES = {("successive-broadcast", "interleaved"): {"contention": "queue"}}
# Algorithms whose runs draw something with the seed (the source set, random choices).
SEEDED = {"simultaneous-broadcast"}
# Algorithms that take p or p*d slots with p threads: --slow-max-dim caps them.
SLOW = {"successive-broadcast"}
MARKERS = ["circle", "square", "triangle", "diamond"]

CSV_FIELDS = ["algorithm", "variant", "ports", "contention", "d", "p", "K", "seeds",
              "completion_slots", "completion_slots_min", "bound_expression", "bound",
              "lower_bound_expression", "lower_bound", "verified", "conflicts",
              "delayed_packets", "exit_code", "wall_seconds", "note"]


def catalogue(hypemu):
    """{algorithm: {"paper", "ports": [...], "default_port", "variants": [...]}} for the
    broadcast families (*-broadcast) of `hypemu --list` that run on the hypercube, in
    catalogue order."""
    p = subprocess.run([hypemu, "--list"], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("%s --list failed (exit %d): %s" % (hypemu, p.returncode, p.stderr.strip()))
    algs, cur, section = {}, None, None
    for line in p.stdout.splitlines():
        if re.match(r"^\S", line):
            section = line.rstrip(":")
            continue
        if section != "algorithms":
            continue
        m = re.match(r"^  (\S+)\s", line)
        if m:
            cur = {"paper": "", "ports": [], "default_port": None, "variants": [None],
                   "hypercube": False}
            algs[m.group(1)] = cur
            continue
        s = line.strip()
        if s.startswith("paper:"):
            cur["paper"] = s[len("paper:"):].strip()
        m = re.match(r"^topologies: (.*); ports: (.*)$", s)
        if m:
            cur["hypercube"] = "hypercube" in m.group(1).split()
            words = m.group(2).split()
            cur["ports"] = [w for w in words if w != "(default)"]
            for i, w in enumerate(words):
                if w == "(default)":
                    cur["default_port"] = words[i - 1]
        m = re.match(r"^variant = ([^,]+),", s)
        if m:
            cur["variants"] = m.group(1).split("|")
    return {a: v for a, v in algs.items() if v["hypercube"] and a.endswith("-broadcast")}


def run(hypemu, tmp, cfg):
    """hypemu --json on cfg: (summary dict or None, exit code, stderr)."""
    path = os.path.join(tmp, "run.json")
    with open(path, "w") as f:
        json.dump(cfg, f)
    p = subprocess.run([hypemu, "--json", path], capture_output=True, text=True)
    try:
        return json.loads(p.stdout), p.returncode, p.stderr.strip()
    except ValueError:
        return None, p.returncode, p.stderr.strip()


def value(obj):
    return obj["value"] if isinstance(obj, dict) else None


def expression(obj):
    return obj["expression"] if isinstance(obj, dict) else ""


def sweep(args, algs, tmp):
    rows, skipped = [], []
    for alg, info in algs.items():
        variants = info["variants"]
        lines = ([(v, info["default_port"]) for v in variants] if variants != [None]
                 else [(None, port) for port in info["ports"]])
        for variant, port in lines:
            contention = OVERRIDES.get((alg, variant), {}).get("contention", "strict")
            top = min(args.max_dim, args.slow_max_dim) if alg in SLOW else args.max_dim
            seeds = list(range(1, args.seeds + 1)) if alg in SEEDED else [1]
            for d in range(1, args.max_dim + 1):
                base = {"algorithm": alg, "variant": variant or "", "ports": port,
                        "contention": contention, "d": d, "p": 1 << d}
                if d > top:
                    rows.append(dict(base, note="not run: beyond --slow-max-dim %d (time)" %
                                     args.slow_max_dim))
                    continue
                sums, codes, wall = [], [], 0.0
                for seed in seeds:
                    cfg = {"topology": {"kind": "hypercube", "dim": d},
                           "ports": {"model": port}, "contention": contention,
                           "algorithm": {"name": alg}, "seed": seed,
                           "clock": {"max_slots": 10 ** 8}}
                    if variant:
                        cfg["algorithm"]["variant"] = variant
                    t0 = time.time()
                    s, rc, err = run(args.hypemu, tmp, cfg)
                    wall += time.time() - t0
                    if rc == 2:  # a bad config: this line does not exist in the catalogue
                        break
                    if s is None:
                        sys.exit("hypemu failed on %s %s d=%d seed=%d (exit %d): %s" %
                                 (alg, variant, d, seed, rc, err))
                    sums.append(s)
                    codes.append(rc)
                if not sums:
                    skipped.append("%s %s %s d=%d: %s" % (alg, variant or "", port, d, err))
                    rows.append(dict(base, note="rejected by hypemu: " + err))
                    continue
                worst = max(sums, key=lambda s: s["completion_slots"])
                rows.append(dict(
                    base, K=worst.get("K", ""), seeds=len(sums),
                    completion_slots=worst["completion_slots"],
                    completion_slots_min=min(s["completion_slots"] for s in sums),
                    bound_expression=expression(worst["bound"]), bound=value(worst["bound"]),
                    lower_bound_expression=expression(worst["lower_bound"]),
                    lower_bound=value(worst["lower_bound"]),
                    verified="yes" if all(s["verified"] for s in sums) else "no",
                    conflicts=max(s["conflicts"] for s in sums),
                    delayed_packets=max(s["delayed_packets"] for s in sums),
                    exit_code=max(codes), wall_seconds="%.2f" % wall, note=""))
                print("%-22s %-12s %-13s d=%-2d %7d slots (bound %s) %s %6.1f s" % (
                    alg, variant or "", port, d, worst["completion_slots"],
                    value(worst["bound"]), rows[-1]["verified"], wall), file=sys.stderr)
    return rows, skipped


def write_csv(path, rows):
    with open(path, "w") as f:
        f.write(",".join(CSV_FIELDS) + "\n")
        for r in rows:
            f.write(",".join(_csv(r.get(k, "")) for k in CSV_FIELDS) + "\n")


def read_csv(path):
    """The rows write_csv wrote, numbers as numbers; a row that was not run keeps only
    its identity and note (as sweep makes it)."""
    import csv
    rows = []
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            for k in ("d", "p", "K", "seeds", "completion_slots", "completion_slots_min",
                      "bound", "lower_bound", "conflicts", "delayed_packets", "exit_code"):
                if r[k] != "":
                    r[k] = int(r[k])
                elif k in ("bound", "lower_bound"):
                    r[k] = None
            if r["completion_slots"] == "":
                r = {k: r[k] for k in ("algorithm", "variant", "ports", "contention", "d", "p",
                                       "note")}
            rows.append(r)
    return rows


def _csv(v):
    v = "" if v is None else str(v)
    return '"%s"' % v.replace('"', '""') if any(c in v for c in ',"\n') else v


def expressions(pts, key):
    """The bound's expression; where it changes with d, each one with its dimensions
    (the most frequent one last, as "else")."""
    by = {}
    for r in pts:
        e = r[key + "_expression"]
        if e:
            by.setdefault(e, []).append(r["d"])
    if len(by) <= 1:
        return next(iter(by), "")
    common = max(by, key=lambda e: len(by[e]))
    parts = ["%s at d = %s" % (e, _ranges(ds)) for e, ds in by.items() if e != common]
    return "%s, else %s" % ("; ".join(parts), common)


def _ranges(ds):
    out, i = [], 0
    while i < len(ds):
        j = i
        while j + 1 < len(ds) and ds[j + 1] == ds[j] + 1:
            j += 1
        out.append(str(ds[i]) if i == j else "%d..%d" % (ds[i], ds[j]))
        i = j + 1
    return ", ".join(out)


def plot(path, alg, info, rows, max_dim):
    mine = [r for r in rows if r["algorithm"] == alg and r.get("completion_slots") != ""
            and "completion_slots" in r]
    keys = []
    for r in rows:
        if r["algorithm"] == alg and (r["variant"], r["ports"]) not in keys:
            keys.append((r["variant"], r["ports"]))
    lines = []
    for variant, port in keys:
        pts = sorted((r for r in mine if (r["variant"], r["ports"]) == (variant, port)),
                     key=lambda r: r["d"])
        if pts:
            lines.append((variant, port, pts))
    if not lines:
        return None
    ds = list(range(1, max_dim + 1))
    vals = [r["completion_slots"] for _, _, pts in lines for r in pts] + \
           [r[k] for _, _, pts in lines for r in pts for k in ("bound", "lower_bound")
            if r[k] is not None]
    logy = max(vals) > 100 * max(1, min(v for v in vals if v > 0))
    ports = sorted({port for _, port, _ in lines})
    contention = sorted({r["contention"] for _, _, pts in lines for r in pts})
    sub = "%s; ports: %s; contention: %s" % (
        info["paper"], ", ".join(ports),
        "strict" if contention == ["strict"] else "strict unless the legend says otherwise")
    fig = hmplot.Figure("%s on Q_d: completion slots against the paper's bound" % alg,
                        xlabel="dimension d (p = 2^d nodes)", ylabel="completion slots",
                        yscale="log2" if logy else "linear", xticks=ds, xlim=(1, max_dim),
                        subtitle=sub)

    def series(pts, key):
        by = {r["d"]: r[key] for r in pts}
        return [by.get(d) for d in ds]

    def label(variant, port, pts):
        name = variant or port
        if variant and len(ports) > 1:
            name += " (%s)" % port
        ks = sorted({r["K"] for r in pts})
        if ks and "" not in ks:
            if all(r["K"] == r["d"] for r in pts) and len(pts) > 1:
                name += ", K = d"
            elif all(r["K"] == r["p"] for r in pts) and len(pts) > 1:
                name += ", K = p"
            else:
                name += ", K = %s" % ("/".join(str(k) for k in ks) if len(ks) <= 3
                                      else "%d..%d" % (ks[0], ks[-1]))
        if any(r["contention"] != "strict" for r in pts):
            name += ", %s" % pts[0]["contention"]
        return name

    # Bounds: lines with the same values share one band, grey when several do (the
    # legend names them), else in the colour of its line.
    for key, kind in (("bound", "bound"), ("lower_bound", "lower bound")):
        groups = []  # [values, [line indices], expression]
        for i, (variant, port, pts) in enumerate(lines):
            ys = series(pts, key)
            if all(y is None for y in ys):
                continue
            g = next((g for g in groups if g[0] == ys), None)
            e = expressions(pts, key)
            if g:
                g[1].append(i)
                if e and e not in g[2]:
                    g[2].append(e)
            else:
                groups.append([ys, [i], [e] if e else []])
        for ys, members, exprs in groups:
            expr = " = ".join(exprs)
            if len(members) == len(lines):
                lab, color = "%s %s" % (kind, expr), "#555555" if key == "bound" else "#222222"
            else:
                names = ", ".join(lines[i][0] or lines[i][1] for i in members)
                lab = "%s: %s %s" % (names, kind, expr)
                color = members[0] if len(members) == 1 else \
                    ("#555555" if key == "bound" else "#222222")
            if key == "bound":
                fig.line(ds, ys, label=lab, color=color, band=True)
            else:
                fig.line(ds, ys, label=lab, color=color, dash="dot", width=1.4)
    # Lines with the same values: the earlier ones get larger markers, so all show.
    measured = [series(pts, "completion_slots") for _, _, pts in lines]
    any_hollow = False
    for i, (variant, port, pts) in enumerate(lines):
        by = {r["d"]: r for r in pts}
        ys = measured[i]
        later = sum(1 for j in range(i + 1, len(lines)) if measured[j] == ys)
        hollow = [d in by and by[d]["verified"] != "yes" for d in ds]
        any_hollow |= any(hollow)
        tips = ["%s d=%d: %s slots, bound %s, lower bound %s, %s" % (
            variant or port, d, by[d]["completion_slots"], by[d]["bound"],
            by[d]["lower_bound"], "verified" if by[d]["verified"] == "yes" else "NOT verified")
            if d in by else "" for d in ds]
        fig.line(ds, ys, label=label(variant, port, pts), color=i,
                 marker=MARKERS[i % len(MARKERS)], hollow=hollow, tips=tips,
                 size=3.6 + 1.8 * later)
    fig.note("Markers: completion_slots measured by hypemu --json (largest over the seeds); "
             "pale bands: the bound the run reports; dotted: its lower bound.")
    same = [lines[i][0] or lines[i][1] for i in range(len(lines))
            if any(measured[j] == measured[i] for j in range(len(lines)) if j != i)]
    if same:
        fig.note("Nested markers: %s measure the same slots at every d." % ", ".join(same))
    if any_hollow:
        fig.note("Hollow markers: the run finished but was not verified (exit 1).")
    skipped = sorted({r["d"] for r in rows if r["algorithm"] == alg and
                      r.get("note", "").startswith("not run")})
    if skipped:
        fig.note("Not run (time): d = %s; see the CSV." % ", ".join(str(d) for d in skipped))
    return fig.save(path)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hypemu", default=os.path.join(here, "..", "hypemu"),
                    help="the hypemu program (default: ../hypemu next to scripts/)")
    ap.add_argument("--out", default=".", help="folder for hypercube-slots.csv and the SVGs")
    ap.add_argument("--max-dim", type=int, default=12, help="largest d (default 12)")
    ap.add_argument("--slow-max-dim", type=int, default=None,
                    help="largest d for successive-broadcast (default: --max-dim)")
    ap.add_argument("--seeds", type=int, default=3,
                    help="seeds per point for the seeded algorithms (default 3)")
    ap.add_argument("--replot", action="store_true",
                    help="run nothing: redraw the SVGs from DIR/hypercube-slots.csv")
    hmplot.add_formats(ap)
    args = ap.parse_args()
    hmplot.formats_of(ap, args)
    if not 1 <= args.max_dim <= 16:
        ap.error("--max-dim %d: allowed is 1..16" % args.max_dim)
    if args.slow_max_dim is None:
        args.slow_max_dim = args.max_dim
    if args.seeds < 1:
        ap.error("--seeds %d: allowed is 1 or more" % args.seeds)
    if not os.access(args.hypemu, os.X_OK):
        sys.exit("%s: not an executable hypemu (build it, or pass --hypemu)" % args.hypemu)
    os.makedirs(args.out, exist_ok=True)
    algs = catalogue(args.hypemu)
    if not algs:
        sys.exit("%s --list names no hypercube algorithm" % args.hypemu)
    csv_path = os.path.join(args.out, "hypercube-slots.csv")
    if args.replot:
        rows, skipped = read_csv(csv_path), []
        args.max_dim = max(r["d"] for r in rows)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            rows, skipped = sweep(args, algs, tmp)
        write_csv(csv_path, rows)
    for s in skipped:
        print("note: skipped (bad config): " + s, file=sys.stderr)
    for alg, info in algs.items():
        out = plot(os.path.join(args.out, "hypercube-%s.svg" % alg), alg, info, rows,
                   args.max_dim)
        if out:
            print(out)


if __name__ == "__main__":
    main()
