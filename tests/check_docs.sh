#!/bin/sh
# SPDX-License-Identifier: MIT
# check_docs.sh — the docs show what the software does (doc/development.md, "Docs that a
# test keeps true"): every output block of README.md and doc/**/*.md is run again and
# compared. A block is marked in the Markdown source, on the line before its fence:
#
#   <!-- doc-test: COMMAND -->       the block is COMMAND's stdout and stderr, as shown
#   <!-- doc-test: not run: WHY -->  the block cannot run here (another host, a terminal)
#
# COMMAND runs with sh in a scratch directory where ./hypemu is the built program and
# configs/ and examples/ are the source tree's; wall times, the scratch directory's path
# and the build directory's are masked on both sides. A block that a sentence introduces
# as what a command prints ("prints:") must carry a mark, so no output goes unchecked.
set -eu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ln -s "$HM_BUILDDIR/hypemu" "$tmp/hypemu"
ln -s "$HM_SRCDIR/configs" "$tmp/configs"
ln -s "$HM_SRCDIR/examples" "$tmp/examples"
cd "$HM_SRCDIR"
python3 - "$tmp" "$HM_BUILDDIR" README.md doc/*.md doc/lab/README.md <<'PY'
import re, subprocess, sys

scratch, build, files = sys.argv[1], sys.argv[2], sys.argv[3:]
MARK = re.compile(r"^<!-- doc-test: (.*) -->$")
SHOWS = re.compile(r"\bprints( [^:]*)?:$")


def mask(text):
    text = text.replace(scratch + "/", "").replace(scratch, ".").replace(build + "/", "")
    text = re.sub(r"(wall_seconds\"?:?\s+)[0-9.e+-]+", r"\1N", text)
    return "\n".join(l.rstrip() for l in text.strip("\n").split("\n"))


failures, ran, skipped = [], 0, 0
for f in files:
    lines = open(f, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        if not lines[i].startswith("```"):
            i += 1
            continue
        j = i + 1
        while j < len(lines) and not lines[j].startswith("```"):
            j += 1
        block = "\n".join(lines[i + 1:j])
        k = i - 1
        while k >= 0 and not lines[k].strip():
            k -= 1
        m = MARK.match(lines[k]) if k >= 0 else None
        if not m:
            prose = lines[k] if k >= 0 else ""
            if SHOWS.search(prose.strip()) and lines[i].strip() == "```":
                failures.append("%s:%d: an output block without a doc-test mark" % (f, i + 1))
        elif m.group(1).startswith("not run:"):
            skipped += 1
        else:
            ran += 1
            r = subprocess.run(["sh", "-c", m.group(1)], cwd=scratch, capture_output=True,
                               text=True, timeout=300)
            got, want = mask(r.stdout + r.stderr), mask(block)
            if got != want:
                failures.append("%s:%d: `%s` printed\n%s\n--- the doc shows\n%s"
                                % (f, i + 1, m.group(1), got, want))
        i = j + 1
for x in failures:
    print("FAIL: " + x)
print("check_docs.sh: %d blocks run, %d marked not run, %d failures" % (ran, skipped, len(failures)))
sys.exit(1 if failures else 0)
PY
