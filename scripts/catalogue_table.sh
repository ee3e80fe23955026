#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# catalogue_table.sh — run the hypercube catalogue over a grid of (d, K, variant)
# and print a Markdown table: d, K, variant, observed slots, paper bound, lower bound
# max(d, ceil((2^d - 1) K / (d 2^d))), verified. Every figure but the lower bound
# comes from the emulator's --json summary.
#
#   scripts/catalogue_table.sh [-b HYPEMU] [-d "1 2 3 4 5 6"] [-s "1 2 3"] [-r doc/algorithms.md]
#
#   -b  the hypemu program (default: $HYPEMU, else ./hypemu next to this script's
#       parent folder)
#   -d  dimensions (default 1..6)
#   -s  seeds; each (d, K, variant) runs once per seed (sources chosen with the seed)
#       and the row shows the largest completion time (default 1)
#   -r  also write the table into this file, between the lines
#       <!-- catalogue-table:begin --> and <!-- catalogue-table:end -->
#
# Variants come from `hypemu --list --json` (the "variant" parameter's choices):
# simultaneous-broadcast (every variant listed,
# K = 1, 2, d, d^2, 2^d/2, 2^d, those <= 2^d) and multinode-broadcast (K = 2^d).
# A combination the program rejects as a bad config (exit 2, e.g. priority with
# K != 2) is skipped and named on stderr. Needs bash and python3 (no jq).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
hypemu=${HYPEMU:-$here/hypemu}
dims="1 2 3 4 5 6"
seeds="1"
readme=""
while getopts "b:d:s:r:h" opt; do
    case $opt in
    b) hypemu=$OPTARG ;;
    d) dims=$OPTARG ;;
    s) seeds=$OPTARG ;;
    r) readme=$OPTARG ;;
    h) sed -n '3,21p' "$0"; exit 0 ;;
    *) echo "usage: $0 [-b HYPEMU] [-d DIMS] [-s SEEDS] [-r FILE]" >&2; exit 2 ;;
    esac
done
if [[ ! -x $hypemu ]]; then
    echo "$0: $hypemu is not an executable hypemu (build it, or pass -b)" >&2
    exit 2
fi
command -v python3 >/dev/null || { echo "$0: python3 is needed" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$hypemu" --list --json >"$tmp/list.json"

exec python3 - "$hypemu" "$tmp" "$dims" "$seeds" "$readme" <<'PY'
import json, os, subprocess, sys

hypemu, tmp, dims, seeds, readme = sys.argv[1:6]
dims = [int(x) for x in dims.split()]
seeds = [int(x) for x in seeds.split()]

# Algorithms and their variants, from the catalogue (--list --json).
variants = {}
with open(os.path.join(tmp, "list.json")) as f:
    for a in json.load(f)["algorithms"]:
        for p in a["params"]:
            if p["name"] == "variant" and p.get("choices"):
                variants[a["name"]] = p["choices"]
wanted = ["simultaneous-broadcast", "multinode-broadcast"]
missing = [a for a in wanted if a not in variants]
for a in missing:
    print(f"note: {hypemu} has no algorithm {a} with variants; skipped", file=sys.stderr)

def lower(d, k):
    p = 1 << d
    return max(d, -(-(p - 1) * k // (d * p)))

def run(d, alg, variant, k, seed):
    cfg = {"topology": {"kind": "hypercube", "dim": d},
           "algorithm": {"name": alg, "variant": variant},
           "seed": seed}
    if alg == "simultaneous-broadcast":
        cfg["algorithm"]["k"] = k
    path = os.path.join(tmp, "run.json")
    with open(path, "w") as f:
        json.dump(cfg, f)
    p = subprocess.run([hypemu, "--json", path], capture_output=True, text=True)
    if p.returncode == 2:
        why = p.stderr.strip().splitlines()
        return None, why[0] if why else "exit 2"
    try:
        return json.loads(p.stdout), None
    except ValueError:
        return {"exit_code": p.returncode, "completion_slots": None,
                "verified": False}, None

rows = []
for d in dims:
    if d < 1:
        continue
    p = 1 << d
    ks = sorted({k for k in (1, 2, d, d * d, p // 2, p) if 1 <= k <= p})
    grid = [("simultaneous-broadcast", v, k) for k in ks
            for v in variants.get("simultaneous-broadcast", [])]
    grid += [("multinode-broadcast", v, p) for v in variants.get("multinode-broadcast", [])]
    for alg, v, k in grid:
        obs, bound, ok, skipped = None, None, True, None
        for seed in seeds:
            s, why = run(d, alg, v, k, seed)
            if s is None:
                skipped = why
                break
            c = s.get("completion_slots")
            obs = c if obs is None or (c is not None and c > obs) else obs
            b = s.get("bound")
            if isinstance(b, dict):
                bound = b.get("value")
            if not s.get("verified") or s.get("exit_code", 0) != 0:
                ok = False
                exitc = s.get("exit_code")
        if skipped:
            print(f"skipped d={d} K={k} {v}: {skipped}", file=sys.stderr)
            continue
        rows.append((d, k, v, obs, bound, lower(d, k),
                     "yes" if ok else f"no (exit {exitc})"))

def cell(x):
    return "-" if x is None else str(x)

out = ["| d | K | variant | observed slots | paper bound | lower bound | verified |",
       "|---:|---:|---|---:|---:|---:|---|"]
for r in rows:
    out.append("| " + " | ".join(cell(x) for x in r) + " |")
out.append("")
out.append(f"Lower bound: max(d, ceil((2^d-1)K/(d*2^d))). Seeds: {' '.join(map(str, seeds))}; "
           "observed slots is the largest over the seeds. "
           "Produced by scripts/catalogue_table.sh from `hypemu --json`.")
table = "\n".join(out)
print(table)

if readme:
    begin, end = "<!-- catalogue-table:begin -->", "<!-- catalogue-table:end -->"
    text = open(readme).read()
    i, j = text.find(begin), text.find(end)
    if i < 0 or j < i:
        print(f"{readme}: no {begin} ... {end} block", file=sys.stderr)
        sys.exit(2)
    text = text[:i + len(begin)] + "\n" + table + "\n" + text[j:]
    with open(readme, "w") as f:
        f.write(text)
PY
