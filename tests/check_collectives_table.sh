#!/bin/sh
# SPDX-License-Identifier: MIT
# check_collectives_table.sh — scripts/collectives-table.py, which writes the tables
# of doc/collectives.md, on d = 1..3: measured slots equal to each formula.
set -eu
out=$(python3 "$HM_SRCDIR/scripts/collectives-table.py" --hypemu "$HM_BUILDDIR/hypemu" \
    --dims "1 2 3" --block 2)
for row in '| `bcast-chain` | (p-1)+(block-1) | 2/2 | 4/4 | 8/8 |' \
    '| `allreduce-ring` | 2(p-1) | 2/2 | 6/6 | 14/14 |' \
    '| `allreduce-rabenseifner` | 2*log2(p) | 2/2 | 4/4 | 6/6 |' \
    '| `alltoall-pairwise` | (p/2)*log2(p) | 1/1 | 4/4 | 12/12 |' \
    '| `scatter-linear` | p-1 | 1/1 | 3/3 | 7/7 |' \
    '| `scatter-bst` | ceil((p-1)/log2(p)) | 1/1 | 2/2 | 3/3 |'; do
    if ! printf '%s\n' "$out" | grep -qF -- "$row"; then
        printf 'missing row: %s\n--- tables:\n%s\n' "$row" "$out" >&2
        exit 1
    fi
done
# Every collective appears, and no cell is marked as off its formula.
test "$(printf '%s\n' "$out" | grep -c '^| `')" -eq 23
if printf '%s\n' "$out" | grep -qF '**!**'; then
    printf 'a run off its formula:\n%s\n' "$out" >&2
    exit 1
fi
