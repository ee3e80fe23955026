#!/bin/sh
# SPDX-License-Identifier: MIT
# check_catalogue_table.sh — the catalogue where it lives: doc/algorithms.md's listing is
# `hypemu --list` (scripts/list-doc.sh --check), and a changed line there is caught;
# scripts/catalogue_table.sh turns the --json summaries into doc/algorithms.md's Markdown
# table (esbt rows: observed = bound = lower bound).
set -eu
"$HM_SRCDIR/scripts/list-doc.sh" "$HM_BUILDDIR/hypemu" --check "$HM_SRCDIR"

# A listing that differs from the program by one line must fail, in those words.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/doc"
sed 's/^\(  successive-broadcast   all p nodes broadcast\) by turns/\1 in turn/' \
    "$HM_SRCDIR/doc/algorithms.md" >"$tmp/doc/algorithms.md"
! cmp -s "$HM_SRCDIR/doc/algorithms.md" "$tmp/doc/algorithms.md" ||
    { echo "FAIL: the successive-broadcast line was not found" >&2; exit 1; }
rc=0
"$HM_SRCDIR/scripts/list-doc.sh" "$HM_BUILDDIR/hypemu" --check "$tmp" >/dev/null 2>"$tmp/err" || rc=$?
[ "$rc" = 1 ] && [ "$(head -n 1 "$tmp/err")" = 'doc/algorithms.md: the catalogue differs from `hypemu --list`: run scripts/list-doc.sh ./hypemu --write .' ] ||
    { echo "FAIL: a changed listing: exit $rc, said '$(head -n 1 "$tmp/err")'" >&2; exit 1; }

out=$("$HM_SRCDIR/scripts/catalogue_table.sh" -b "$HM_BUILDDIR/hypemu" -d "2 3 4 5" 2>/dev/null)
for row in '| 2 | 4 | esbt | 2 | 2 | 2 | yes |' '| 3 | 8 | esbt | 3 | 3 | 3 | yes |' \
    '| 4 | 16 | esbt | 4 | 4 | 4 | yes |' '| 5 | 32 | esbt | 7 | 7 | 7 | yes |'; do
    if ! printf '%s\n' "$out" | grep -qF -- "$row"; then
        printf 'missing row: %s\n--- table:\n%s\n' "$row" "$out" >&2
        exit 1
    fi
done
printf '%s\n' "$out" | grep -q '^| d | K | variant | observed slots | paper bound | lower bound |'
