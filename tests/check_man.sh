#!/bin/sh
# SPDX-License-Identifier: MIT
# check_man.sh — the manual pages hypemu(1), hypemu(3) and hypemu-lab(1) render with man(1)
# without a warning, hypemu(1) documents every option `hypemu --help` lists and every exit
# status of README's "Exit codes" table (the same codes, in order), hypemu(3) every public function of hypemu.h, and hypemu-lab(1)
# every command of `hypemu-lab --help` and its exit statuses.
set -eu
if ! command -v man >/dev/null 2>&1; then
    echo "SKIP: man not installed (setup.sh installs man-db)"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for page in hypemu.1 hypemu.3 hypemu-lab.1; do
    MANWIDTH=80 man --warnings -l "$HM_SRCDIR/doc/man/$page" >"$tmp/$page.txt" 2>"$tmp/$page.err"
    if [ -s "$tmp/$page.err" ]; then
        echo "FAIL: man -l $page warns:" >&2
        cat "$tmp/$page.err" >&2
        exit 1
    fi
done
"$HM_BUILDDIR/hypemu" --help >"$tmp/help.txt"
for opt in $(grep -o -- '--[a-z][a-z-]*' "$tmp/help.txt" | sort -u); do
    grep -q -- "$opt" "$tmp/hypemu.1.txt" || { echo "FAIL: hypemu(1) lacks $opt" >&2; exit 1; }
done
sed -n '/^EXIT STATUS/,/^[A-Z]/p' "$tmp/hypemu.1.txt" >"$tmp/exit.txt"
for code in 0 1 2 3 4 5; do
    grep -Eq "^ +$code +[a-z]" "$tmp/exit.txt" || { echo "FAIL: hypemu(1) lacks exit status $code" >&2; exit 1; }
done
# README's "Exit codes" table lists the same codes as hypemu(1)'s EXIT STATUS, in order.
sed -n '/^## Exit codes/,/^#/p' "$HM_SRCDIR/README.md" | sed -n 's/^| \([0-9][0-9, ]*\) | .*/\1/p' >"$tmp/readme-codes"
sed -n 's/^       \([0-9][0-9, ]*[0-9]\)\( .*\)\{0,1\}$/\1/p; s/^       \([0-9]\)\( .*\)\{0,1\}$/\1/p' \
    "$tmp/exit.txt" >"$tmp/man-codes"
[ -s "$tmp/readme-codes" ] && cmp -s "$tmp/readme-codes" "$tmp/man-codes" || {
    echo "FAIL: README's exit codes differ from hypemu(1)'s:" >&2
    diff "$tmp/readme-codes" "$tmp/man-codes" >&2
    exit 1
}
# Every public function and array of hypemu.h (the library's exported symbols,
# scripts/hm-symbols.sh) is in hypemu(3)'s synopsis, and the version macros.
for fn in $(sh "$HM_SRCDIR/scripts/hm-symbols.sh" "$HM_SRCDIR/include/hypemu.h") HM_VERSION_HEX; do
    sed -n '/^SYNOPSIS/,/^DESCRIPTION/p' "$tmp/hypemu.3.txt" | grep -q "\b$fn\b" ||
        { echo "FAIL: hypemu(3)'s synopsis lacks $fn" >&2; exit 1; }
done
grep -q "hm_op" "$tmp/hypemu.3.txt" || { echo "FAIL: hypemu(3) lacks hm_op" >&2; exit 1; }
[ "$(grep -c '^ *int hm_root' "$tmp/hypemu.3.txt")" = 1 ] || { echo "FAIL: hypemu(3) lists hm_root twice" >&2; exit 1; }
# hypemu-lab(1): every command of `hypemu-lab --help` and every exit status 0 to 2.
python3 "$HM_SRCDIR/scripts/hypemu-lab.in" --help >"$tmp/labhelp.txt"
for cmd in $(sed -n 's/^\(usage:\)\{0,1\} *hypemu-lab \([a-z-]*\).*/\2/p' "$tmp/labhelp.txt" | sort -u); do
    grep -q "hypemu-lab $cmd" "$tmp/hypemu-lab.1.txt" || { echo "FAIL: hypemu-lab(1) lacks $cmd" >&2; exit 1; }
done
sed -n '/^EXIT STATUS/,/^[A-Z]/p' "$tmp/hypemu-lab.1.txt" >"$tmp/labexit.txt"
for code in 0 1 2; do
    grep -Eq "^ +$code( |$)" "$tmp/labexit.txt" || { echo "FAIL: hypemu-lab(1) lacks exit status $code" >&2; exit 1; }
done
echo "hypemu(1), hypemu(3), hypemu-lab(1): rendered without warnings"
