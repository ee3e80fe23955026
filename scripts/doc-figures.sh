#!/bin/sh
# SPDX-License-Identifier: MIT
# doc-figures.sh DIR — the README's pictures of a run, made by hypemu itself (make
# doc-figures; make check never writes into the source tree):
#   DIR/q4_successive.svg  output.svg of configs/q4_successive.json;
#   DIR/player.png         the player (output.html) of the same run at slot 9, as headless
#                          Chromium shows it in a 1400 x 900 window.
# HM_BUILDDIR names the build tree (the hypemu to run); CHROMIUM a browser other than
# Debian's chromium.
set -eu
dir=${1:?usage: doc-figures.sh DIR}
src=$(cd "$(dirname "$0")/.." && pwd)
bin=${HM_BUILDDIR:-$src}/hypemu
browser=""
for c in ${CHROMIUM:-} chromium chromium-browser google-chrome; do
    if command -v "$c" >/dev/null 2>&1; then
        browser=$c
        break
    fi
done
[ -n "$browser" ] || { echo "doc-figures.sh: no chromium (setup.sh installs it)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bin" --quiet --set output.svg="$tmp/q4_successive.svg" --set output.html="$tmp/q4.html" \
    "$src/configs/q4_successive.json" >/dev/null
sandbox=""
[ "$(id -u)" != 0 ] || sandbox=--no-sandbox # Chromium's sandbox refuses to run as root
"$browser" --headless $sandbox --disable-gpu --user-data-dir="$tmp/profile" --hide-scrollbars \
    --virtual-time-budget=2000 --window-size=1400,900 --screenshot="$tmp/player.png" \
    "file://$tmp/q4.html#slot=9" >/dev/null 2>"$tmp/browser.err" ||
    { cat "$tmp/browser.err" >&2; exit 1; }
cp "$tmp/q4_successive.svg" "$tmp/player.png" "$dir/"
echo "doc-figures.sh: wrote $dir/q4_successive.svg and $dir/player.png"
