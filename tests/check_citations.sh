#!/bin/sh
# SPDX-License-Identifier: MIT
# check_citations.sh — every citation of a README section in the tree, README "Section"
# (or README "A", "B" and "C"; README.md too, and in a C string, a comment or a manual
# page, broken across lines), names a heading README.md has. The sources (src, include,
# tests, scripts, bench, examples: .c .h .cpp .sh .py .in .js .css; Makefile.am,
# configure.ac, setup.sh, .ci/run), the manual pages, doc/ and README.md itself are read;
# a path before README (doc/lab/README.md) cites another file and is left out. Fails
# naming each file and section that README.md lacks.
set -eu
: "${HM_SRCDIR:?}"
cd "$HM_SRCDIR" || exit 99
{ find src include tests scripts bench examples doc -type f \
    \( -name '*.[ch]' -o -name '*.cpp' -o -name '*.sh' -o -name '*.py' -o -name '*.in' \
    -o -name '*.js' -o -name '*.css' -o -name '*.md' -o -name '*.[1-8]' \) \
    ! -path 'tests/golden/*' ! -path 'tests/fuzz/corpus/*' ! -path 'tests/fuzz/regressions/*' \
    ! -path tests/check_citations.sh
  printf '%s\n' README.md Makefile.am configure.ac setup.sh hypemu.pc.in .ci/run; } |
    LC_ALL=C sort | python3 -c '
import re, sys
heads = set()
for line in open("README.md", encoding="utf-8"):
    m = re.match(r"#+\s+(.*?)\s*$", line)
    if m:
        heads.add(m.group(1))
steps = [
    (re.compile(r"\\\""), "\""),  # a C string: README \"Refused calls\"
    (re.compile(r"\"[ \t]*\n[ \t]*\""), ""),  # a C string continued on the next line
    (re.compile(r"[ \t]*\*/[ \t]*\n[ \t]*/\*[ \t]*"), " "),  # one-line comments in a row
    (re.compile(r"[ \t]*\n[ \t]*(?:\*(?!/)|#+|//|\.\\\"|;+)?[ \t]*"), " "),  # comment lines
]
cite = re.compile(r"(?<![\w./-])README(?:\.md)?(?:\s+|,\s*)((?:\"[^\"]+\"(?:\s*(?:,|;|and|or)\s*(?=\"))?)+)")
bad = n = 0
for path in sys.stdin.read().split():
    try:
        text = open(path, encoding="utf-8").read()
    except (UnicodeDecodeError, FileNotFoundError):
        continue
    for rx, rep in steps:
        text = rx.sub(rep, text)
    for m in cite.finditer(text):
        for section in re.findall(r"\"([^\"]+)\"", m.group(1)):
            section = " ".join(section.split())
            n += 1
            if section not in heads:
                bad += 1
                print("FAIL: %s: README \"%s\": README.md has no such heading" % (path, section),
                      file=sys.stderr)
if n < 100:
    sys.exit("FAIL: only %d README citations found: the pattern misses them" % n)
if bad:
    sys.exit(1)
print("check_citations.sh: %d README citations, each a heading of README.md" % n)
'
