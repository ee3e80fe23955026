#!/bin/sh
# SPDX-License-Identifier: MIT
# check_format.sh — every .c and .h file under src, include, tests and bench must be
# formatted as .clang-format says. Run by `make check` when configure found
# clang-format (CLANG_FORMAT); prints the files that differ and how to fix them.
#
# The tree is formatted with clang-format 14. Other major versions break some lines
# differently, so with them the check is skipped (exit 77) rather than failed; set
# HM_FORMAT_ANY_VERSION=1 to run it anyway.
srcdir=${HM_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
clang_format=${CLANG_FORMAT:-clang-format}
want_major=14

if ! command -v "$clang_format" >/dev/null 2>&1; then
    echo "check_format.sh: $clang_format not found: skipped"
    exit 77
fi
version=$("$clang_format" --version 2>/dev/null)
major=$(printf '%s\n' "$version" | sed -n 's/.*clang-format version \([0-9][0-9]*\).*/\1/p')
if [ "$major" != "$want_major" ] && [ "${HM_FORMAT_ANY_VERSION:-0}" != 1 ]; then
    echo "check_format.sh: the tree is formatted with clang-format $want_major; found" \
        "\"$version\": skipped (HM_FORMAT_ANY_VERSION=1 runs it anyway)"
    exit 77
fi

cd "$srcdir" || exit 99
files=$(find src include tests bench -type f \( -name '*.c' -o -name '*.h' \) 2>/dev/null | sort)
if [ -z "$files" ]; then
    echo "check_format.sh: no sources found under $srcdir"
    exit 99
fi

bad=""
for f in $files; do
    if ! "$clang_format" --style=file --dry-run -Werror "$f" >/dev/null 2>&1; then
        bad="$bad $f"
    fi
done
if [ -n "$bad" ]; then
    echo "check_format.sh: not formatted as .clang-format says ($version):"
    for f in $bad; do
        echo "  $f"
        "$clang_format" --style=file --dry-run "$f" 2>&1 | head -n 12 | sed 's/^/    /'
    done
    echo "fix with: (cd $srcdir && $clang_format -i$bad)"
    exit 1
fi
echo "check_format.sh: $(echo "$files" | wc -l) files formatted ($version)"
exit 0
