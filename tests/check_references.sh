#!/bin/sh
# SPDX-License-Identifier: MIT
# check_references.sh — doc/references.md holds every work the tree cites (doc/references.md).
# The keys are the first column of its tables. A citation is an author list and a year:
# "Seidel 1993", "Thakur-Rabenseifner-Gropp 2005", "Desprez, Fraigniaud and Tourancheau
# 1993", "Chan et al. 2007" (en dashes read as hyphens, comment prefixes and line breaks
# inside the list joined). Each must be a key, the authors joined by hyphens; a list of
# three or more authors may also be its first author's "et al." key. And every key is cited
# somewhere outside doc/references.md. Read: README.md, doc/ (but doc/papers/, whose pages
# quote the papers' own reference lists), the manual pages and the sources (.c .h .in .py
# .sh .js). Fails naming each file and citation, and each key never cited.
set -eu
: "${HM_SRCDIR:?}"
cd "$HM_SRCDIR" || exit 99
{ find src include examples scripts doc -type f \
    \( -name '*.[ch]' -o -name '*.in' -o -name '*.py' -o -name '*.sh' -o -name '*.js' \
    -o -name '*.md' -o -name '*.[1-8]' \) ! -path 'doc/papers/*' ! -path doc/references.md
  echo README.md; } | LC_ALL=C sort | python3 -c '
import re, sys
keys = []
for line in open("doc/references.md", encoding="utf-8"):
    m = re.match(r"\|\s*([^|]+?)\s*\|", line)
    if m and m.group(1) not in ("Key", "---"):
        keys.append(m.group(1))
name = r"[A-Z][a-z]+(?:-[A-Z][a-z]+)*"
cite = re.compile(r"(?<![\w-])(" + name + r"(?:(?:,\s+and\s+|,\s+|\s+and\s+)" + name +
                  r")*)(\s+et\s+al\.)?\s+((?:19|20)\d\d)(?![-\d])")
bad = 0
corpus = []
for path in sys.stdin.read().split():
    try:
        text = open(path, encoding="utf-8").read()
    except (UnicodeDecodeError, FileNotFoundError):
        continue
    text = text.replace("\u2013", "-")
    text = re.sub(r"-[ \t]*\n[ \t]*(?:\*(?!/)|#+|//|\.\\\")?[ \t]*", "-", text)
    text = re.sub(r"[ \t]*\n[ \t]*(?:\*(?!/)|#+|//|\.\\\")?[ \t]*", " ", text)
    corpus.append(text)
    for m in cite.finditer(text):
        names = re.split(r",\s+and\s+|,\s+|\s+and\s+", m.group(1))
        year = m.group(3)
        if m.group(2):
            ok = names[0] + " et al. " + year in keys
        else:
            ok = "-".join(names) + " " + year in keys or (
                len(names) >= 3 and names[0] + " et al. " + year in keys)
        if not ok:
            print("%s: cites \"%s\", which doc/references.md lacks" % (path, m.group(0)))
            bad += 1
text = "\n".join(corpus)
for k in keys:
    parts = k.split(" ")
    variants = {k}
    if parts[-1].isdigit() and "-" in parts[0]:
        names = parts[0].split("-")
        variants.add(", ".join(names[:-1]) + " and " + names[-1] + " " + parts[-1])
        variants.add(" and ".join(names) + " " + parts[-1])
        variants.add(", ".join(names) + " " + parts[-1])
    if not any(v in text for v in variants):
        print("doc/references.md: %s is cited nowhere" % k)
        bad += 1
print("check_references.sh: %d keys, %d problems" % (len(keys), bad))
sys.exit(1 if bad else 0)
'
