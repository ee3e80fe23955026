#!/bin/sh
# SPDX-License-Identifier: MIT
# check_layering.sh — the algorithms use the public node API only (doc/development.md,
# "Source tree"): every file of src/algo/ is compiled without -I src (Makefile.am,
# libhmalgo.la), and no #include there reaches outside src/algo/ by a relative path, so
# the engine's internals cannot leak in; each family's helpers live in its directory,
# common/ holds only what two families or more share.
set -eu
cd "$HM_SRCDIR/src/algo"
bad=$(grep -rn '#include "' --include='*.c' --include='*.h' . |
    grep -Ev '#include "(hypemu\.h|[a-z_]+\.h|\.\./common/[a-z_]+\.h)"' || true)
[ -z "$bad" ] || { echo "FAIL: includes that leave src/algo or name no local header:" >&2; echo "$bad" >&2; exit 1; }
for h in common/*.h; do
    name=$(basename "$h")
    families=$(grep -rl "\"\.\./common/$name\"" --include='*.c' --include='*.h' . | cut -d/ -f2 | sort -u | wc -l)
    # A helper of common/ serves two families, or common/ itself and one family.
    users=$(grep -rl "\"$name\"" --include='*.c' --include='*.h' common | grep -v "common/${name%.h}\.c" | wc -l)
    [ $((families + (users > 0))) -ge 2 ] || [ "$name" = problem.h ] || {
        echo "FAIL: src/algo/$h serves one family only: move it into that family's directory" >&2
        exit 1
    }
done
grep -q 'libhmalgo_la_CFLAGS = .*' "$HM_SRCDIR/Makefile.am" &&
    ! sed -n '/^libhmalgo_la_CFLAGS/,/^$/p' "$HM_SRCDIR/Makefile.am" | grep -q -- '-I$(top_srcdir)/src' ||
    { echo "FAIL: libhmalgo.la is compiled with -I src" >&2; exit 1; }
grep -c 'src/algo/.*\.c' "$HM_SRCDIR/Makefile.am" >/dev/null
! sed -n '/^libhmcore_la_SOURCES/,/^$/p' "$HM_SRCDIR/Makefile.am" | grep -q 'src/algo/' ||
    { echo "FAIL: an algorithm is compiled into libhmcore.la (with -I src)" >&2; exit 1; }
echo "check_layering.sh: src/algo uses the public API only"
