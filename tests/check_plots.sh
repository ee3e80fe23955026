#!/bin/sh
# SPDX-License-Identifier: MIT
# check_plots.sh — the plotting scripts of doc/plots.md on small sizes: plot-hypercube.py
# for d <= 5 and plot-bus.py for k <= 8. Every figure in the CSV files is held to the
# papers' formulas, computed here (sbt d; successive p*d and 2p + d - 2 with
# Proposition 2's lower bound; prefix 2ceil(K/d) + 4d; esbt ceil((2^d - 1)/d); stamoulis
# 2ceil(2^d/d) + 2d - 1; MAX T(k) = H_k - 1/2 within 2% at 8000 trials; merge-sort
# n <= S <= 2n - 1 and S = 2n - n/k on increasing blocks). Every SVG (matplotlib's,
# text kept as text) parses as XML, names its plot, has one tooltip per measured point
# (a <title> in the point's group) and renders to a PNG with rsvg-convert; --formats
# svg,pdf,png writes all three; --replot redraws the same bytes from the CSV; a bad
# argument is refused with exit 2. Without a python that has matplotlib (HM_PYTHON_PLOT,
# from configure) the test skips.
set -eu
py=${HM_PYTHON_PLOT:-}
[ -n "$py" ] || { echo "SKIP: no python with matplotlib (Debian: python3-matplotlib)"; exit 77; }
if ! command -v rsvg-convert >/dev/null 2>&1; then
    echo "SKIP: rsvg-convert not installed (setup.sh installs librsvg2-bin)"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin="$HM_BUILDDIR/hypemu"
scripts="$HM_SRCDIR/scripts"

"$py" "$scripts/plot-hypercube.py" --hypemu "$bin" --out "$tmp/h" --max-dim 5 --seeds 2 \
    >"$tmp/h.out" 2>"$tmp/h.err" || { cat "$tmp/h.err" >&2; echo "FAIL: plot-hypercube.py" >&2; exit 1; }
"$py" "$scripts/plot-bus.py" --hypemu "$bin" --out "$tmp/b" --max-k 8 --seeds 2 --trials 8000 \
    --formats svg,pdf \
    >"$tmp/b.out" 2>"$tmp/b.err" || { cat "$tmp/b.err" >&2; echo "FAIL: plot-bus.py" >&2; exit 1; }
for svg in "$tmp"/h/*.svg "$tmp"/b/*.svg; do
    rsvg-convert -o "${svg%.svg}.png" "$svg" ||
        { echo "FAIL: rsvg-convert cannot render $svg" >&2; exit 1; }
done
# --replot draws the same SVGs from the CSV alone.
mkdir "$tmp/r"
cp "$tmp/h/hypercube-slots.csv" "$tmp/r/"
"$py" "$scripts/plot-hypercube.py" --hypemu "$bin" --out "$tmp/r" --replot >/dev/null
for svg in "$tmp"/h/*.svg; do
    cmp "$svg" "$tmp/r/$(basename "$svg")" ||
        { echo "FAIL: --replot draws $(basename "$svg") differently" >&2; exit 1; }
done
# A bad argument: exit 2 and the allowed range.
rc=0
msg=$("$py" "$scripts/plot-hypercube.py" --hypemu "$bin" --out "$tmp/x" --max-dim 0 2>&1) || rc=$?
case "$rc:$msg" in
2:*"--max-dim 0: allowed is 1..16"*) ;;
*) printf 'FAIL: --max-dim 0: exit %s, %s\n' "$rc" "$msg" >&2; exit 1 ;;
esac
rc=0
msg=$("$py" "$scripts/plot-bus.py" --hypemu "$bin" --out "$tmp/x" --max-k 65 2>&1) || rc=$?
case "$rc:$msg" in
2:*"--max-k 65: allowed is 2..64"*) ;;
*) printf 'FAIL: --max-k 65: exit %s, %s\n' "$rc" "$msg" >&2; exit 1 ;;
esac

"$py" - "$tmp" <<'PY'
import csv, glob, math, sys
import xml.etree.ElementTree as ET
from fractions import Fraction

tmp = sys.argv[1]
NS = "{http://www.w3.org/2000/svg}"
errors = []


def check(ok, msg):
    if not ok:
        errors.append(msg)


def ceil_div(a, b):
    return -(-a // b)


# ---- hypercube: every row against the paper's formula -------------------------
rows = list(csv.DictReader(open(tmp + "/h/hypercube-slots.csv")))
lines = {(r["algorithm"], r["variant"], r["ports"]) for r in rows}
want_lines = {("sbt-broadcast", "", p) for p in ("all-port", "one-port-full", "one-port-half", "shout")}
want_lines |= {("successive-broadcast", v, "shout") for v in ("sequential", "interleaved", "rotated")}
want_lines |= {("simultaneous-broadcast", v, "all-port")
               for v in ("prefix", "randomized", "randomized-window", "same-order", "priority",
                         "rank-rotated")}
want_lines |= {("multinode-broadcast", v, "all-port") for v in ("stamoulis", "esbt")}
check(lines == want_lines, "hypercube lines: %s" % sorted(lines ^ want_lines))
check(len(rows) == 5 * len(want_lines), "hypercube rows: %d, want %d" % (len(rows), 5 * len(want_lines)))
# Proposition 2's alpha(d) (doc/algorithms.md; alpha(5) = 22 found by
# scripts/alpha-sat.py, doc/papers/desprez-fraigniaud-tourancheau.md)
ALPHA = {1: 2, 2: 2, 3: 4, 4: 10, 5: 22}
for r in rows:
    alg, var, d = r["algorithm"], r["variant"], int(r["d"])
    p = 1 << d
    where = "%s %s %s d=%d" % (alg, var, r["ports"], d)
    slots, bound, lower = int(r["completion_slots"]), int(r["bound"]), int(r["lower_bound"])
    check(int(r["p"]) == p, where + ": p")
    # Interleaved conflicts from d = 3; the fixed windows fail with a small probability.
    if not (alg == "successive-broadcast" and var == "interleaved" and d >= 3) and \
            var != "randomized-window":
        check(r["verified"] == "yes" and r["exit_code"] == "0", where + ": not verified")
        check(lower <= slots <= bound, where + ": %d slots outside [%d, %d]" % (slots, lower, bound))
    if alg == "sbt-broadcast":
        check(slots == bound == lower == d, where + ": %d slots, bound %d, want d" % (slots, bound))
    elif alg == "successive-broadcast":
        check(lower == (2 * p - ALPHA[d] - 1 if 2 <= d <= 5 else p), where + ": lower %d" % lower)
        if var == "sequential":
            check(slots == bound == p * d, where + ": %d slots, want p*d = %d" % (slots, p * d))
        elif var == "rotated":
            check(slots == bound == 2 * p + d - 2, where + ": %d slots, want 2p+d-2" % slots)
        else:  # interleaved, queue: no conflict for d <= 2; Q_4: 42 slots, order broken
            check(bound == 2 * p + d - 2, where + ": bound %d" % bound)
            if d <= 2:
                check(slots == 2 * p + d - 2 and r["conflicts"] == "0", where + ": %d slots" % slots)
            if d == 3:  # delays, but the order holds
                check(slots == 19 and r["verified"] == "yes" and r["delayed_packets"] == "6",
                      where + ": %s slots, verified %s" % (slots, r["verified"]))
            if d == 4:
                check(slots == 42 and r["verified"] == "no" and r["exit_code"] == "1",
                      where + ": %s slots, verified %s" % (slots, r["verified"]))
    elif alg == "simultaneous-broadcast":
        K = int(r["K"])
        check(K == (2 if var == "priority" else d), where + ": K = %d" % K)
        check(r["seeds"] == "2", where + ": seeds " + r["seeds"])
        check(lower == max(d, ceil_div((p - 1) * K, d * p)), where + ": lower %d" % lower)
        want = {"prefix": 2 * ceil_div(K, d) + 4 * d, "randomized": 2 * ceil_div(3 * K, d) + 2 * d + 1,
                "randomized-window": 2 * ceil_div(3 * K, d) + 2 * d - 1,
                "same-order": d + K - 1, "priority": d, "rank-rotated": d}[var]
        if var == "randomized":  # 2max(W, max N_j)+2d+1: above the window's when the draw is
            check(bound >= want, where + ": bound %d below %d" % (bound, want))
        else:
            check(bound == want, where + ": bound %d, want %d" % (bound, want))
        check(slots <= bound, where + ": %d slots above the bound %d" % (slots, bound))
        if var in ("prefix", "priority", "rank-rotated"):
            check(slots == want, where + ": %d slots, want %d" % (slots, want))
    elif alg == "multinode-broadcast":
        want = 2 * ceil_div(p, d) + 2 * d - 1 if var == "stamoulis" else ceil_div(p - 1, d)
        check(slots == bound == want, where + ": %d slots, want %d" % (slots, want))

# ---- bus: MAX against T(k) = H_k - 1/2, merge-sort against Theorem 1 ----------
mx = list(csv.DictReader(open(tmp + "/b/bus-max.csv")))
check([int(r["k"]) for r in mx] == list(range(2, 9)), "bus-max k column")
for r in mx:
    k = int(r["k"])
    t = float(sum(Fraction(1, i) for i in range(1, k + 1)) - Fraction(1, 2))
    mean = float(r["mean_comparisons"])
    check(abs(float(r["T_k_exact"]) - t) < 1e-6 and abs(float(r["T_k"]) - t) < 1e-4,
          "max k=%d: T(k) %s, want %.6f" % (k, r["T_k"], t))
    check(abs(mean - t) <= 0.02 * t, "max k=%d: mean %.4f not within 2%% of T(k) %.4f" % (k, mean, t))
    check(abs(float(r["log2_k"]) - math.log2(k)) < 1e-4 and r["trials"] == "8000" and r["verified"] == "yes",
          "max k=%d: log2 k, trials or verified" % k)
# doc/bus.md's table, 8000 trials, seed = k.
for k, want in ((2, 1.0), (4, 1.5830), (8, 2.2334)):
    got = float(next(r for r in mx if r["k"] == str(k))["mean_comparisons"])
    check(round(got, 4) == want, "max k=%d: mean comparisons %.4f, doc/bus.md says %.4f" % (k, got, want))
ms = list(csv.DictReader(open(tmp + "/b/bus-merge-sort.csv")))
check(len(ms) == 7 * 3, "bus-merge-sort rows: %d, want 21" % len(ms))
for r in ms:
    k, n, s = int(r["k"]), int(r["n"]), int(r["broadcasts"])
    where = "merge-sort k=%d %s seed %s" % (k, r["input"], r["seed"])
    check(n == 3 * k and int(r["lower_n"]) == n and int(r["bound_2n_minus_1"]) == 2 * n - 1,
          where + ": n or bounds")
    check(n <= s <= 2 * n - 1 and r["verified"] == "yes", where + ": S = %d" % s)
    check(int(r["completion_slots"]) == n * k, where + ": slots")
    if r["input"] == "increasing-blocks":
        check(s == 2 * n - n // k, where + ": S = %d, want 2n - n/k = %d" % (s, 2 * n - n // k))

# ---- SVG: parses, one tooltip per measured point, a PNG of it ------------------
want_svgs = {"hypercube-%s.svg" % a: 0 for a in ("sbt-broadcast", "successive-broadcast",
                                                   "simultaneous-broadcast", "multinode-broadcast")}
want_svgs.update({"bus-max.svg": 0, "bus-max-error.svg": 0, "bus-merge-sort.svg": 0})
# One tooltip per measured point: 5 dimensions for each line (6 simultaneous variants).
points = {"hypercube-sbt-broadcast.svg": 20, "hypercube-successive-broadcast.svg": 15,
          "hypercube-simultaneous-broadcast.svg": 30, "hypercube-multinode-broadcast.svg": 10,
          "bus-max.svg": 14, "bus-max-error.svg": 7, "bus-merge-sort.svg": 21}
got = sorted(p.split("/")[-1] for p in glob.glob(tmp + "/[hb]/*.svg"))
check(got == sorted(want_svgs), "SVG files: %s" % got)
for path in glob.glob(tmp + "/[hb]/*.svg"):
    name = path.split("/")[-1]
    root = ET.parse(path).getroot()
    check(root.tag == NS + "svg" and root.get("version") == "1.1", name + ": not an SVG 1.1 root")
    tips = [t for e in root.iter(NS + "g") if (e.get("id") or "").startswith("tip")
            for t in e.findall(NS + "title")]
    texts = [e.text for e in root.iter(NS + "text")]
    want = {"bus-max.svg": "MAX on a broadcast channel: mean comparisons against T(k) = H_k - 1/2",
            "bus-max-error.svg": "MAX: relative error of the mean comparisons against T(k)",
            "bus-merge-sort.svg": "MERGE-SORT on a broadcast channel: broadcasts S against "
                                  "Theorem 1"}.get(name, "%s on Q_d: completion slots against "
                                                   "the paper's bound" % name[10:-4])
    check(want in texts, "%s: no text %r" % (name, want))
    if name.startswith("bus-"):
        check(open(path[:-4] + ".pdf", "rb").read(5) == b"%PDF-", name + ": no PDF beside it")
    check(len(tips) == points.get(name, -1), "%s: %d tooltips, want %s" % (name, len(tips), points.get(name)))
    png = open(path[:-4] + ".png", "rb").read(24)
    check(png[:8] == b"\x89PNG\r\n\x1a\n" and int.from_bytes(png[16:20], "big") >= 700,
          name + ": rsvg-convert did not make a PNG at least 700 px wide")
root = ET.parse(tmp + "/h/hypercube-successive-broadcast.svg").getroot()
texts = ["".join(e.itertext()) for e in root.iter(NS + "title")]
tip = "rotated d=4: 34 slots, bound 34, lower bound 21, verified"
check(tip in texts, "successive SVG: no tooltip %r" % tip)
tip = "interleaved d=4: 42 slots, bound 34, lower bound 21, NOT verified"
check(tip in texts, "successive SVG: no tooltip %r" % tip)
if errors:
    sys.exit("FAIL: " + "\nFAIL: ".join(errors))
PY
echo "PASS: plot-hypercube.py (d <= 5) and plot-bus.py (k <= 8): CSV figures match the papers, 7 SVGs parse and render"
