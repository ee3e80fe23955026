#!/bin/sh
# check_catalogue_table.sh — scripts/catalogue_table.sh turns the --json summaries
# into the README's Markdown table (esbt rows: observed = bound = lower bound).
set -eu
out=$("$HM_SRCDIR/scripts/catalogue_table.sh" -b "$HM_BUILDDIR/hypemu" -d "2 3 4 5" 2>/dev/null)
for row in '| 2 | 4 | esbt | 2 | 2 | 2 | yes |' '| 3 | 8 | esbt | 3 | 3 | 3 | yes |' \
    '| 4 | 16 | esbt | 4 | 4 | 4 | yes |' '| 5 | 32 | esbt | 7 | 7 | 7 | yes |'; do
    if ! printf '%s\n' "$out" | grep -qF -- "$row"; then
        printf 'missing row: %s\n--- table:\n%s\n' "$row" "$out" >&2
        exit 1
    fi
done
printf '%s\n' "$out" | grep -q '^| d | K | variant | observed slots | paper bound | lower bound |'
