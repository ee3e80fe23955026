#!/bin/sh
# SPDX-License-Identifier: MIT
# hm-symbols.sh HEADER — the symbols lib/libhypemu.so exports: every hm_ name that
# include/hypemu.h declares as a function or an array (followed by '(' or '['), comments
# and macro bodies left out, one a line, sorted. Internal names (hm__*) never match.
# Makefile.am passes the list to libtool (-export-symbols); tests/check_sdk.sh compares it
# with the library's dynamic symbol table.
set -eu
sed -e 's|/\*.*\*/||g' -e '/\/\*/,/\*\//d' -e 's|//.*||' -e '/\\$/d' -e '/^#/d' "$1" |
    grep -o '\bhm_[a-z0-9][a-z0-9_]*[[:space:]]*[([]' | sed 's/[[:space:]]*[([]$//' | LC_ALL=C sort -u
