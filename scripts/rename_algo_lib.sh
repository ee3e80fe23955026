#!/bin/sh
# rename_algo_lib.sh — the algorithm library (src/algo/common, README "Source tree")
# gets its own prefix and its own library (issue 9, item 6):
#   1. every hm_/HM_ identifier that the library's headers declare (as hm_X or
#      already as hma_X) and that the public API (include/hypemu.h, preprocessed)
#      does not becomes hma_/HMA_, in every C file, header, script and document;
#   2. Makefile.am builds src/algo/common/*.c as libhmalgo.la, without -I src (so that
#      an include of the engine's internal header cannot compile there): this script
#      rewrites the list after "libhmalgo_la_SOURCES = \" and takes the library's files
#      out of every other list;
#   3. the changed C files are formatted with clang-format.
# Idempotent: run it again after adding files to src/algo/common (git add them first:
# the lists come from git ls-files), then autoreconf -i, ./configure and make.
set -eu
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The API's identifiers, X-macro expansions included.
cpp -P -dD -Iinclude include/hypemu.h | grep -oE '\b(hm|HM)_[A-Za-z0-9_]+' | sort -u >"$tmp/api"
# The library's own: what its headers say outside comments, under either prefix (so
# that code merged from a branch older than the rename, which still says hm_X for a
# header's hma_X, is renamed too).
for h in src/algo/common/*.h; do
    gcc -fpreprocessed -dD -E -P "$h"
done | grep -oE '\b(hm|HM|hma|HMA)_[A-Za-z0-9_]+' | sed -E 's/^hma_/hm_/; s/^HMA_/HM_/' |
    sort -u | comm -23 - "$tmp/api" >"$tmp/own"
sed -E 's/^hm_(.*)$/s\/\\bhm_\1\\b\/hma_\1\/g/; s/^HM_(.*)$/s\/\\bHM_\1\\b\/HMA_\1\/g/' \
    "$tmp/own" >"$tmp/rename.sed"
files=$(git ls-files src include tests bench doc scripts README.md |
    grep -E '\.(c|h|md|sh|py|am)$|^README\.md$' || true)
changed=""
for f in $files; do
    [ -f "$f" ] || continue
    sed -E -f "$tmp/rename.sed" "$f" >"$tmp/out"
    if ! cmp -s "$f" "$tmp/out"; then
        cat "$tmp/out" >"$f"
        changed="$changed $f"
    fi
done
echo "rename_algo_lib.sh: $(wc -l <"$tmp/own") identifiers; changed:$changed"
# Makefile.am: the library's sources in libhmalgo_la_SOURCES only.
list=$(git ls-files 'src/algo/common/*.c' 'src/algo/common/*.h' | sort)
# A list whose last entry left keeps no dangling backslash.
awk -v list="$list" '
    function out(line) {
        if ((line == "" || line ~ /^[A-Za-z_.#]/) && held ~ / \\$/)
            sub(/ \\$/, "", held)
        if (has)
            print held
        held = line
        has = 1
    }
    /^\tsrc\/algo\/common\/[^ ]*( \\)?$/ { next }
    { out($0) }
    /^libhmalgo_la_SOURCES = \\$/ {
        n = split(list, f, "\n")
        for (i = 1; i <= n; i++)
            out(sprintf("\t%s%s", f[i], i < n ? " \\" : ""))
    }
    END { if (has) print held }' Makefile.am >"$tmp/Makefile.am"
cat "$tmp/Makefile.am" >Makefile.am
fmt=$(echo "$changed" | tr ' ' '\n' | grep -E '\.(c|h)$' || true)
if [ -n "$fmt" ] && command -v clang-format >/dev/null 2>&1; then
    clang-format -i $fmt
fi
