#!/bin/sh
# check_man.sh — the manual pages hypemu(1) and hypemu(3) render with man(1) without a
# warning, and hypemu(1) documents every option `hypemu --help` lists and every exit
# status the README lists (0 to 5).
set -eu
if ! command -v man >/dev/null 2>&1; then
    echo "SKIP: man not installed (setup.sh installs man-db)"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for page in hypemu.1 hypemu.3; do
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
for fn in hm_send hm_shout hm_send_to hm_recv hm_wait_packet_until hm_busy hm_store hm_report_stores; do
    grep -q "$fn" "$tmp/hypemu.3.txt" || { echo "FAIL: hypemu(3) lacks $fn" >&2; exit 1; }
done
echo "hypemu(1), hypemu(3): rendered without warnings"
