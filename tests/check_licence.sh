#!/bin/sh
# SPDX-License-Identifier: MIT
# check_licence.sh — the licence (LICENSE, MIT): LICENSE holds the MIT text with its
# copyright line, and every tracked source file (.c .h .cpp .sh .py .in .am .ac .js .css,
# the manual pages, setup.sh, .ci/run, scripts/contention-sweep, scripts/load-curve; a .h.in
# is a C file)
# carries the line "SPDX-License-Identifier: MIT" as its first comment line: line 1, or
# line 2 after a "#!" line. JSON files and the goldens carry none. Reads the file list from git, so
# skipped (77) outside a git checkout (a tarball from make dist).
set -eu
srcdir=${HM_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$srcdir" || exit 99
if ! files=$(git ls-files 2>/dev/null) || [ -z "$files" ]; then
    echo "check_licence.sh: not a git checkout: skipped"
    exit 77
fi
fail=0
head -n 1 LICENSE | grep -qx 'MIT License' && grep -qx 'Copyright (c) 2026 the hypemu authors' LICENSE ||
    { echo "FAIL: LICENSE: not the MIT licence with 'Copyright (c) 2026 the hypemu authors'" >&2; fail=1; }
n=0
for f in $files; do
    case $f in
    tests/golden/* | tests/fuzz/corpus/* | tests/fuzz/regressions/*) continue ;;
    *.c | *.h | *.h.in | *.cpp | *.js | *.css) want='/* SPDX-License-Identifier: MIT */' ;;
    *.sh | *.py | *.in | *.am | *.ac | .ci/run | scripts/contention-sweep | scripts/load-curve)
        want='# SPDX-License-Identifier: MIT' ;;
    doc/man/*.[1-8]) want='.\" SPDX-License-Identifier: MIT' ;;
    *) continue ;;
    esac
    [ -f "$f" ] || continue # deleted in the work tree, not yet in the index
    n=$((n + 1))
    line=1
    head -n 1 "$f" | grep -q '^#!' && line=2
    if [ "$(sed -n "${line}p" "$f")" != "$want" ]; then
        echo "FAIL: $f: line $line is not '$want'" >&2
        fail=1
    fi
done
# The kinds above cover the tree's sources: at least the C files.
[ "$n" -ge 150 ] || { echo "FAIL: only $n source files checked" >&2; fail=1; }
[ $fail = 0 ] && echo "check_licence.sh: LICENSE and $n source files with the SPDX line"
exit $fail
