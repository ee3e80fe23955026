#!/bin/sh
# SPDX-License-Identifier: MIT
# check_configs.sh — configs/ holds a config for every catalogue algorithm (hypemu --list
# --json), and each one verifies (exit 0), but for those tests/configs-expected-failures.txt
# lists with the exit status they must give instead (README "The config at a glance").
set -eu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
bin="$HM_BUILDDIR/hypemu"
"$bin" --list --json >list.json
python3 - "$bin" "$HM_SRCDIR/configs" "$HM_SRCDIR/tests/configs-expected-failures.txt" <<'PY'
import glob, json, os, subprocess, sys

bin_, configs, expected_file = sys.argv[1:]
expected = {}
for line in open(expected_file):
    if line.strip() and not line.startswith("#"):
        name, code = line.split()[:2]
        expected[name] = int(code)
fails = []
named = set()
for path in sorted(glob.glob(configs + "/*.json")):
    name = os.path.basename(path)[:-5]
    named.add(json.load(open(path))["algorithm"]["name"])
    r = subprocess.run([bin_, "--json", "--set", "output=null", path], capture_output=True,
                       text=True, timeout=600)
    want = expected.pop(name, 0)
    if r.returncode != want:
        fails.append("%s: exit %d, expected %d: %s" % (name, r.returncode, want,
                                                       r.stderr.strip()[-300:]))
for name in expected:
    fails.append("%s: listed as an expected failure, but configs/ has no such config" % name)
algorithms = [a["name"] for a in json.load(open("list.json"))["algorithms"]]
for a in algorithms:
    if a not in named:
        fails.append("algorithm %s has no config in configs/" % a)
for f in fails:
    print("FAIL: " + f)
print("check_configs.sh: %d configs, %d algorithms, %d failures"
      % (len(glob.glob(configs + "/*.json")), len(algorithms), len(fails)))
sys.exit(1 if fails else 0)
PY
