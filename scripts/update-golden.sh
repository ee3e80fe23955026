#!/bin/sh
# Regenerate tests/golden/NAME.json, the expected summary of configs/NAME.json
# (without wall_seconds). Run it only after checking the new figures by hand: the
# golden files are what `make check` holds the emulator to.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
bin=${HYPEMU:-$top/hypemu}
for cfg in "$top"/configs/*.json; do
    name=$(basename "$cfg" .json)
    # The free-running clock is not deterministic: no golden summary.
    if grep -Eq '"mode": *"free"' "$cfg"; then
        continue
    fi
    "$bin" --json --set output=null "$cfg" 2>/dev/null |
        python3 -c 'import json,sys; s=json.load(sys.stdin); s.pop("wall_seconds",None); print(json.dumps(s,indent=1,sort_keys=True))' \
            >"$top/tests/golden/$name.json" || true
    echo "tests/golden/$name.json"
done
