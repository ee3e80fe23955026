#!/bin/sh
# SPDX-License-Identifier: MIT
# list-doc.sh — the catalogue of doc/algorithms.md, generated from `hypemu --list`.
#
#   scripts/list-doc.sh HYPEMU --write SRCDIR   write the listing into SRCDIR/doc/algorithms.md
#   scripts/list-doc.sh HYPEMU --check SRCDIR   exit 1, with a diff, when it differs
#
# The listing lies in a fenced block between the lines BEGIN and END below; the rest of
# the page is written by hand. tests/check_catalogue_table.sh runs --check.
set -eu
BEGIN='<!-- hypemu --list: begin (scripts/list-doc.sh --write; tests/check_catalogue_table.sh compares it with the program) -->'
END='<!-- hypemu --list: end -->'
[ $# = 3 ] || { echo "usage: $0 HYPEMU --write|--check SRCDIR" >&2; exit 2; }
bin=$1 mode=$2 doc=$3/doc/algorithms.md
grep -qxF -- "$BEGIN" "$doc" && grep -qxF -- "$END" "$doc" ||
    { echo "$doc: no lines '$BEGIN' and '$END'" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
{ printf '```\n'; "$bin" --list; printf '```\n'; } >"$tmp/list"
# The page with the block between BEGIN and END replaced by the program's listing.
awk -v b="$BEGIN" -v e="$END" -v list="$tmp/list" '
    $0 == b { print; while ((getline l < list) > 0) print l; skip = 1; next }
    $0 == e { skip = 0 }
    !skip' "$doc" >"$tmp/new"
case $mode in
--write) cp "$tmp/new" "$doc" ;;
--check)
    if ! cmp -s "$doc" "$tmp/new"; then
        echo "doc/algorithms.md: the catalogue differs from \`hypemu --list\`: run scripts/list-doc.sh ./hypemu --write ." >&2
        diff -u "$doc" "$tmp/new" >&2 || true
        exit 1
    fi ;;
*) echo "usage: $0 HYPEMU --write|--check SRCDIR" >&2; exit 2 ;;
esac
