#!/bin/sh
# SPDX-License-Identifier: MIT
# check_collectives_crossover.sh — scripts/collectives-crossover.py (the plots of
# doc/collectives.md) on Q_3 under a = 1, b = 100: every run verifies at its formula,
# and the crossovers are the formulas': binomial 3(64k + 100) against scatter+allgather
# 2(56k + 300) crosses at k = 4 (block 32); recursive doubling 3(64k + 100) against the
# ring 14(8k + 100) at k = 14 (block 112); reduce binomial 3(64k + 100) against
# Rabenseifner 2(56k + 300) at k = 4 (block 32), as the broadcast. The SVGs (matplotlib's)
# parse as XML. Without a python that has matplotlib (HM_PYTHON_PLOT) the test skips.
set -eu
py=${HM_PYTHON_PLOT:-}
[ -n "$py" ] || { echo "SKIP: no python with matplotlib (Debian: python3-matplotlib)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=$("$py" "$HM_SRCDIR/scripts/collectives-crossover.py" --hypemu "$HM_BUILDDIR/hypemu" \
    --dim 3 --a 1 --b 100 --kmax 20 --out "$tmp")
for line in 'broadcast crossover: block 32 (256 bytes)' 'allreduce crossover: block 112 (896 bytes)' \
    'reduce crossover: block 32 (256 bytes)'; do
    if ! printf '%s\n' "$out" | grep -qF -- "$line"; then
        printf 'missing: %s\n--- output:\n%s\n' "$line" "$out" >&2
        exit 1
    fi
done
# One row per block 8..160, and the first row's figures: 3(64 + 100), 2(56 + 300),
# 3(64 + 100), 14(8 + 100), 3(64 + 100), 2(56 + 300).
test "$(wc -l <"$tmp/collectives-crossover.csv")" -eq 21
grep -qx '8,64,492,712,492,1512,492,712' "$tmp/collectives-crossover.csv"
for svg in "$tmp"/collectives-crossover-broadcast.svg "$tmp"/collectives-crossover-allreduce.svg \
    "$tmp"/collectives-crossover-reduce.svg; do
    "$py" -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' "$svg"
done
