#!/bin/sh
# SPDX-License-Identifier: MIT
# Regenerate tests/golden/NAME.json, the expected summary of configs/NAME.json
# (without wall_seconds). Run it only after checking the new figures by hand: the
# golden files are what `make check` holds the emulator to (tests/README.md).
#
# A golden is replaced only by a summary: a run that crashes (killed by a signal) or
# prints no JSON summary leaves its golden as it was, is named on stderr, and makes
# the script exit 1 once every config has been tried.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
bin=${HYPEMU:-$top/hypemu}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
for cfg in "$top"/configs/*.json; do
    name=$(basename "$cfg" .json)
    # The free-running clock is not deterministic: no golden summary.
    if grep -Eq '"mode": *"free"' "$cfg"; then
        continue
    fi
    rc=0
    "$bin" --json --set output=null "$cfg" >"$tmp/out" 2>"$tmp/err" || rc=$?
    why=
    if [ "$rc" -ge 128 ]; then
        why="hypemu was killed by signal $((rc - 128))"
    elif ! python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); s.pop("wall_seconds",None); print(json.dumps(s,indent=1,sort_keys=True))' \
        "$tmp/out" >"$tmp/golden" 2>/dev/null || [ ! -s "$tmp/golden" ]; then
        why="hypemu exited $rc without a JSON summary"
    fi
    if [ -n "$why" ]; then
        echo "update-golden.sh: configs/$name.json: $why; tests/golden/$name.json not written" >&2
        sed 's/^/  /' "$tmp/err" >&2
        failed=1
        continue
    fi
    mv "$tmp/golden" "$top/tests/golden/$name.json"
    echo "tests/golden/$name.json"
done
exit "$failed"
