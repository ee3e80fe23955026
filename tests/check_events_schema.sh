#!/bin/sh
# SPDX-License-Identifier: MIT
# check_events_schema.sh — every line of the event log of every shipped config (and of a
# run that stalls on full mailboxes, and of a plugin whose sends are refused,
# tests/lab/refuse.c) validates against doc/events.schema.json, read by Python's jsonschema
# (doc/events.md). Each of the nine event kinds must appear at least once across the runs,
# so that the schema is proven on every kind.
set -eu
if ! python3 -c 'import jsonschema' 2>/dev/null; then
    echo "SKIP: python3 jsonschema not installed (setup.sh installs python3-jsonschema)"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin="$HM_BUILDDIR/hypemu"
for cfg in "$HM_SRCDIR"/configs/*.json; do
    name=$(basename "$cfg" .json)
    # Exit codes 0 and 1 (a verification that fails on purpose) both write the log.
    rc=0
    (cd "$tmp" && "$bin" --set output.events="$tmp/$name.jsonl" "$cfg" >/dev/null 2>&1) || rc=$?
    [ "$rc" -le 1 ] || { echo "FAIL: $name exited $rc" >&2; exit 1; }
done
rc=0
(cd "$tmp" && "$bin" --set mailbox.capacity=1 --set contention=queue \
    --set output.events="$tmp/stalls.jsonl" \
    "$HM_SRCDIR/configs/q4_successive_interleaved_queue.json" >/dev/null 2>&1) || rc=$?
[ "$rc" -le 1 ] || { echo "FAIL: stalls run exited $rc" >&2; exit 1; }
# Refused calls (README "Refused calls"): no catalogue algorithm makes one, a plugin does.
${CC:-cc} -shared -fPIC -I"$HM_SRCDIR/include" -I"$HM_BUILDDIR/include" -o "$tmp/refuse.so" "$HM_SRCDIR/tests/lab/refuse.c" ||
    { echo "FAIL: cannot build tests/lab/refuse.c" >&2; exit 1; }
printf '{"topology": {"kind": "hypercube", "dim": 2}, "algorithm": {"name": "lab-test-refuse"}}\n' >"$tmp/refuse.json"
rc=0
"$bin" --plugin "$tmp/refuse.so" --set output.events="$tmp/refused.jsonl" "$tmp/refuse.json" >/dev/null 2>&1 || rc=$?
[ "$rc" = 3 ] || { echo "FAIL: the refused calls' run exited $rc, expected 3 (deadlock)" >&2; exit 1; }
python3 - "$HM_SRCDIR/doc/events.schema.json" "$tmp"/*.jsonl <<'PY'
import json, sys
import jsonschema

schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)
kinds, lines = {}, 0
for path in sys.argv[2:]:
    with open(path) as f:
        for no, line in enumerate(f, 1):
            event = json.loads(line)
            errors = list(validator.iter_errors(event))
            if errors:
                sys.exit("FAIL: %s:%d: %s: %s" % (path, no, line.strip(), errors[0].message))
            kinds[event["event"]] = kinds.get(event["event"], 0) + 1
            lines += 1
missing = set(schema["properties"]["event"]["enum"]) - set(kinds)
if missing:
    sys.exit("FAIL: no run wrote a line of kind %s" % ", ".join(sorted(missing)))
# The schema must also refuse what the writer never writes.
for bad in ({"slot": 0, "node": 0, "event": "send", "to": 1, "msg": 1},
            {"slot": 0, "node": 0, "event": "store", "value": 1, "port": -1},
            {"slot": -1, "node": 0, "event": "log", "text": "x"}):
    if validator.is_valid(bad):
        sys.exit("FAIL: schema accepts %s" % json.dumps(bad))
print("%d lines in %d logs valid; kinds: %s" % (lines, len(sys.argv) - 2,
      ", ".join("%s %d" % kv for kv in sorted(kinds.items()))))
PY
