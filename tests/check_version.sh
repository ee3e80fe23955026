#!/bin/sh
# SPDX-License-Identifier: MIT
# check_version.sh — one version (configure.ac "Versions"): AC_INIT's in configure.ac is
# configure's (PACKAGE_VERSION), include/hypemu/version.h's HM_VERSION, HM_VERSION_MAJOR,
# _MINOR, _PATCH and HM_VERSION_HEX, `hypemu --version` (hm_version()), NEWS's top entry,
# the manual pages' headers and hypemu.pc's Version (hypemu.pc.in; check_sdk.sh asks
# pkg-config of the installed one); the library's libtool version follows configure.ac's
# rule, HM_ABI_VERSION:PATCH:0.
set -eu
: "${HM_SRCDIR:?}" "${HM_BUILDDIR:?}"
fail() {
    echo "FAIL: $*" >&2
    exit 1
}
v=$(sed -n 's/^AC_INIT(\[hypemu\], \[\([^]]*\)\].*/\1/p' "$HM_SRCDIR/configure.ac")
echo "$v" | grep -Eqx '[0-9]+\.[0-9]+\.[0-9]+' || fail "configure.ac: AC_INIT's version is '$v'"
[ "${HM_PACKAGE_VERSION:-$v}" = "$v" ] ||
    fail "configure's PACKAGE_VERSION is $HM_PACKAGE_VERSION, configure.ac's $v (run autoreconf)"
major=${v%%.*}
rest=${v#*.}
minor=${rest%%.*}
patch=${rest#*.}

h=$HM_BUILDDIR/include/hypemu/version.h
[ -f "$h" ] || fail "no $h"
macro() { sed -n "s/^#define $1 \\(.*\\)\$/\\1/p" "$h"; }
[ "$(macro HM_VERSION)" = "\"$v\"" ] || fail "version.h: HM_VERSION is $(macro HM_VERSION), not \"$v\""
[ "$(macro HM_VERSION_MAJOR)" = "$major" ] || fail "version.h: HM_VERSION_MAJOR is $(macro HM_VERSION_MAJOR)"
[ "$(macro HM_VERSION_MINOR)" = "$minor" ] || fail "version.h: HM_VERSION_MINOR is $(macro HM_VERSION_MINOR)"
[ "$(macro HM_VERSION_PATCH)" = "$patch" ] || fail "version.h: HM_VERSION_PATCH is $(macro HM_VERSION_PATCH)"
hex=$(printf '0x%02x%02x%02x' "$major" "$minor" "$patch")
[ "$(macro HM_VERSION_HEX)" = "$hex" ] || fail "version.h: HM_VERSION_HEX is $(macro HM_VERSION_HEX), not $hex"
abi=$(macro HM_ABI_VERSION)
echo "$abi" | grep -Eqx '[0-9]+' || fail "version.h: HM_ABI_VERSION is '$abi'"

out=$("$HM_BUILDDIR/hypemu" --version) || fail "hypemu --version: exit $?"
[ "$out" = "hypemu $v" ] || fail "hypemu --version says '$out', not 'hypemu $v'"

top=$(sed -n '1p' "$HM_SRCDIR/NEWS")
case $top in
"hypemu $v" | "hypemu $v "*) ;;
*) fail "NEWS's top entry is '$top', not hypemu $v" ;;
esac

for page in hypemu.1 hypemu.3 hypemu-lab.1; do
    grep -q "^\\.TH [A-Z-]* [0-9] [0-9-]* \"hypemu $v\" " "$HM_SRCDIR/doc/man/$page" ||
        fail "doc/man/$page: .TH does not name hypemu $v: $(grep '^\.TH' "$HM_SRCDIR/doc/man/$page")"
done

grep -qx 'Version: %VERSION%' "$HM_SRCDIR/hypemu.pc.in" || fail "hypemu.pc.in: no 'Version: %VERSION%'"

# The library: libtool's current:revision:age by configure.ac's rule; on Linux the file
# is libhypemu.so.(current - age).(age).(revision).
[ "${HM_LT_VERSION:-$abi:$patch:0}" = "$abi:$patch:0" ] ||
    fail "HM_LT_VERSION is $HM_LT_VERSION, not HM_ABI_VERSION:PATCH:0 = $abi:$patch:0"
if [ -d "$HM_BUILDDIR/lib/.libs" ] && ls "$HM_BUILDDIR"/lib/.libs/libhypemu.so.* >/dev/null 2>&1; then
    [ -f "$HM_BUILDDIR/lib/.libs/libhypemu.so.$abi.0.$patch" ] ||
        fail "no lib/.libs/libhypemu.so.$abi.0.$patch: $(ls "$HM_BUILDDIR"/lib/.libs/libhypemu.so.*)"
fi
echo "check_version.sh: hypemu $v everywhere (HM_VERSION_HEX $hex, ABI $abi, libtool $abi:$patch:0)"
