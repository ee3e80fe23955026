#!/bin/sh
# SPDX-License-Identifier: MIT
# check_config_keys.sh — one source per fact: the machine config's keys of
# src/cli/config_keys.h, as `hypemu --list --json` prints them ("config"), are those of
# hypemu(1)'s generated "Config keys" section, and doc/config.md's "Config reference"
# table gives every key with its range, its choices and its default
# (scripts/config-keys.py). Then the same check must fail on a doc/config.md whose
# default differs.
set -eu
if ! command -v python3 >/dev/null 2>&1; then
    echo "SKIP: python3 not installed"
    exit 77
fi
script="$HM_SRCDIR/scripts/config-keys.py"
bin="$HM_BUILDDIR/hypemu"
python3 "$script" "$bin" --check "$HM_SRCDIR"

# A doc/config.md that says mailbox.capacity defaults to 5 must be caught, in those words.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/doc/man"
cp "$HM_SRCDIR/doc/man/hypemu.1" "$tmp/doc/man/"
sed 's/^\(| `mailbox.capacity` | integer 1..2^20 | \)4 |/\15 |/' "$HM_SRCDIR/doc/config.md" >"$tmp/doc/config.md"
! cmp -s "$HM_SRCDIR/doc/config.md" "$tmp/doc/config.md" || { echo "FAIL: the mailbox.capacity row was not found" >&2; exit 1; }
rc=0
python3 "$script" "$bin" --check "$tmp" >/dev/null 2>"$tmp/err" || rc=$?
[ "$rc" = 1 ] && [ "$(cat "$tmp/err")" = "doc/config.md: mailbox.capacity: default 4 not in its row" ] ||
    { echo "FAIL: a changed default: exit $rc, said '$(cat "$tmp/err")'" >&2; exit 1; }
