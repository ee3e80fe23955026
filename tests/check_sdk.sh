#!/bin/sh
# SPDX-License-Identifier: MIT
# check_sdk.sh — the installed SDK and plugins (README "Writing node programs outside the
# tree"): make install into a temporary prefix, then, with nothing but that prefix and
# pkg-config, build the example plugin out of the tree and run it (verified, the exact
# slots, in the catalogue), and check that hypemu refuses a plugin built for another ABI,
# one whose algorithm takes a taken name, a file that is not a plugin and a plugin with a
# missing symbol (exit 2, naming the file), one whose symbol hm_plugin is a function or
# too small an object (named as such), and reports a node program that crashes.
set -eu
: "${HM_SRCDIR:?}" "${HM_BUILDDIR:?}"
CC=${CC:-cc}
tmp=$(mktemp -d /tmp/hypemu-sdk-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# ---- install -------------------------------------------------------------------------
# The build tree's own make, quietly, into $prefix (the configured prefix untouched).
if ! ${MAKE:-make} -s -C "$HM_BUILDDIR" install prefix="$prefix" >"$tmp/install.log" 2>&1; then
    cat "$tmp/install.log" >&2
    fail "make install prefix=$prefix"
fi
for f in bin/hypemu include/hypemu.h include/hypemu/version.h lib/pkgconfig/hypemu.pc \
    share/man/man1/hypemu.1 share/man/man3/hypemu.3 share/hypemu/configs/q4_successive.json \
    share/doc/hypemu/README.md share/doc/hypemu/LICENSE; do
    [ -f "$prefix/$f" ] || fail "make install did not install $f"
done
# The soname's number is libtool's current - age (HM_LT_VERSION, configure.ac's rule: 2:0:0).
ls "$prefix"/lib/libhypemu.so.2.* >/dev/null 2>&1 || fail "no versioned lib/libhypemu.so.2.*"
[ ! -e "$prefix/lib/libhypemu.a" ] || fail "a static lib/libhypemu.a was installed"

# Only the API of hypemu.h is exported.
if command -v nm >/dev/null 2>&1; then
    # (names with a leading underscore are the toolchain's: a sanitizer's, say)
    nm -D --defined-only "$prefix/lib/libhypemu.so" | awk '{print $3}' | grep -v '^_' |
        LC_ALL=C sort >"$tmp/exported"
    sh "$HM_SRCDIR/scripts/hm-symbols.sh" "$prefix/include/hypemu.h" >"$tmp/declared"
    diff "$tmp/declared" "$tmp/exported" >"$tmp/symdiff" ||
        { cat "$tmp/symdiff" >&2; fail "lib/libhypemu.so exports other symbols than hypemu.h declares"; }
    grep -qx hm_send "$tmp/exported" || fail "hm_send not exported"
fi

# ---- an example plugin, from the installed SDK alone ------------------------------------
PKG_CONFIG_PATH="$prefix/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
# The prefix is not in the loader's path: say where libhypemu.so.2 is.
LD_LIBRARY_PATH="$prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PKG_CONFIG_PATH LD_LIBRARY_PATH
flags=$(pkg-config --cflags --libs hypemu) || fail "pkg-config --cflags --libs hypemu"
case "$flags" in *"-I$prefix/include"*"-L$prefix/lib"*) ;; *) fail "pkg-config gave: $flags" ;; esac
bin=$prefix/bin/hypemu
build() { # build NAME SOURCE: NAME.so in $tmp, from SOURCE, with pkg-config's flags only
    # shellcheck disable=SC2086 # word splitting of the flags is intended
    $CC -shared -fPIC -o "$tmp/$1.so" "$2" $flags || fail "cannot build $2 with pkg-config"
}
# The version macros and hm_version() from the installed headers and library: one version.
cat >"$tmp/version.c" <<'EOF'
#include <stdio.h>
#include <hypemu.h>
int main(void)
{
    printf("%s %d.%d.%d %d.%d.%d %s\n", HM_VERSION, HM_VERSION_MAJOR, HM_VERSION_MINOR,
           HM_VERSION_PATCH, HM_VERSION_HEX >> 16, (HM_VERSION_HEX >> 8) & 255,
           HM_VERSION_HEX & 255, hm_version());
    return 0;
}
EOF
# A program, unlike a plugin, brings its own runtime: built with the suite's CFLAGS, so
# that a sanitizer's runtime comes first when the installed library was built with one.
# shellcheck disable=SC2086 # word splitting of the flags is intended
$CC ${HM_CFLAGS:-} -o "$tmp/version" "$tmp/version.c" $flags || fail "cannot build a program with pkg-config"
v=$("$bin" --version | cut -d' ' -f2)
[ "$(pkg-config --modversion hypemu)" = "$v" ] || fail "hypemu.pc: $(pkg-config --modversion hypemu), not $v"
[ "$("$tmp/version")" = "$v $v $v $v" ] ||
    fail "installed version macros and hm_version(): $("$tmp/version"); hypemu --version: $v"
cp "$HM_SRCDIR/examples/plugin/flood.c" "$HM_SRCDIR/examples/plugin/flood.json" "$tmp/"
build flood "$tmp/flood.c"

# The config's "plugins" is relative to the config's directory, not to the current one.
(cd / && "$bin" --json "$tmp/flood.json") >"$tmp/out.json" || fail "flood.json: exit $?"
python3 - "$tmp/out.json" <<'PY' || fail "flood.json: wrong summary"
import json, sys
s = json.load(open(sys.argv[1]))
want = {"algorithm": "example-flood", "nodes": 16, "completion_slots": 4, "bound": None,
        "lower_bound": {"expression": "log2(p)", "value": 4},
        "verified": True, "exit_code": 0, "problem": "broadcast", "block": 3, "root": 5}
bad = {k: (s.get(k), v) for k, v in want.items() if s.get(k) != v}
if bad or s["verification"] != "broadcast: all 16 nodes stored the right values in order":
    sys.exit("found, expected: %r %r" % (bad, s["verification"]))
PY
# On Q_6 from root 0: 6 slots.
(cd "$tmp" && "$bin" --plugin flood.so --json --set topology.dim=6 --set algorithm.root=0 \
    --set algorithm.block=9 --set plugins='[]' flood.json) >"$tmp/out6.json" || fail "Q_6: exit $?"
grep -q '"completion_slots": 6,' "$tmp/out6.json" || grep -q '"completion_slots":6,' "$tmp/out6.json" ||
    fail "Q_6: not 6 slots: $(cat "$tmp/out6.json")"

# The catalogue shows it, with its file.
"$bin" --plugin "$tmp/flood.so" --list >"$tmp/list.txt" || fail "--list with the plugin"
grep -q '^  example-flood  *broadcast along a binomial tree, log2 p slots (a plugin)$' "$tmp/list.txt" ||
    fail "--list does not show example-flood"
grep -q "^  *plugin: $tmp/flood.so\$" "$tmp/list.txt" || fail "--list does not name the plugin file"
"$bin" --list --json --plugin "$tmp/flood.so" >"$tmp/list.json" || fail "--list --json with the plugin"
python3 - "$tmp/list.json" "$tmp/flood.so" <<'PY' || fail "--list --json: example-flood"
import json, sys
a = [x for x in json.load(open(sys.argv[1]))["algorithms"] if x["name"] == "example-flood"]
if len(a) != 1 or a[0]["plugin"] != sys.argv[2] or a[0]["problem"] != "broadcast" \
        or a[0]["default_ports"] != "one-port-full" or [p["name"] for p in a[0]["params"]] != ["block", "root"]:
    sys.exit("found %r" % a)
PY
out=$(cd "$tmp" && "$bin" --validate flood.json) || fail "--validate flood.json"
[ "$out" = "flood.json: valid (example-flood on hypercube, 16 nodes, one-port-full ports)" ] ||
    fail "--validate: $out"

# ---- plugins hypemu must refuse: exit 2 and a message naming the file ------------------------
expect_refusal() { # expect_refusal FILE MESSAGE: hypemu --plugin FILE exits 2 saying MESSAGE
    rc=0
    "$bin" --plugin "$1" --list >/dev/null 2>"$tmp/err" || rc=$?
    [ "$rc" = 2 ] || fail "--plugin $1: exit $rc, expected 2"
    [ "$(cat "$tmp/err")" = "hypemu: plugin $1: $2" ] ||
        fail "--plugin $1: said '$(cat "$tmp/err")', expected 'hypemu: plugin $1: $2'"
}
for t in abi clash notplugin missing crash; do build "$t" "$HM_SRCDIR/tests/sdk/$t.c"; done
# abi.c declares HM_ABI_VERSION + 98.
abi=$(sed -n 's/^#define HM_ABI_VERSION \([0-9][0-9]*\)$/\1/p' "$prefix/include/hypemu/version.h")
[ "$abi" = 2 ] || fail "include/hypemu/version.h: HM_ABI_VERSION is '$abi', expected 2"
expect_refusal "$tmp/abi.so" "ABI mismatch: built for plugin ABI version $((abi + 98)), this hypemu has ABI version $abi (hypemu $("$bin" --version | cut -d' ' -f2)); rebuild the plugin against this hypemu's hypemu.h"
expect_refusal "$tmp/clash.so" 'algorithm "sbt-broadcast": name clash with a built-in algorithm'
cp "$tmp/flood.so" "$tmp/flood-again.so"
rc=0
"$bin" --plugin "$tmp/flood.so" --plugin "$tmp/flood-again.so" --list >/dev/null 2>"$tmp/err" || rc=$?
[ "$rc" = 2 ] && [ "$(cat "$tmp/err")" = "hypemu: plugin $tmp/flood-again.so: algorithm \"example-flood\": name clash with an algorithm of plugin $tmp/flood.so" ] ||
    fail "two plugins, one name: exit $rc, $(cat "$tmp/err")"
"$bin" --plugin "$tmp/flood.so" --plugin "$tmp/flood.so" --list >/dev/null ||
    fail "the same plugin twice is one plugin"
expect_refusal "$tmp/notplugin.so" "not a plugin: it has no symbol hm_plugin (declare the algorithms with HM_PLUGIN(&algo, ...), hypemu.h)"
# A symbol hm_plugin of the wrong kind is named as such, not read as a table.
build function "$HM_SRCDIR/tests/sdk/function.c"
expect_refusal "$tmp/function.so" "not a plugin: its symbol hm_plugin is a function, not the table that HM_PLUGIN(&algo, ...) declares (hypemu.h)"
printf 'int hm_plugin = 7;\n' >"$tmp/small.c"
build small "$tmp/small.c"
expect_refusal "$tmp/small.so" "not a plugin: its symbol hm_plugin is an object of 4 bytes (the table has $(($(getconf LONG_BIT) == 64 ? 24 : 16))), not the table that HM_PLUGIN(&algo, ...) declares (hypemu.h)"
printf 'not a shared object\n' >"$tmp/text.so"
expect_refusal "$tmp/text.so" "not a plugin (not a shared object of this machine): $tmp/text.so: file too short"
expect_refusal "$tmp/missing.so" "missing symbol: $tmp/missing.so: undefined symbol: hm_sdk_test_nowhere"
# shellcheck disable=SC2086 # word splitting of the flags is intended
$CC -shared -fPIC -DBAD_RANGE -o "$tmp/range.so" "$HM_SRCDIR/tests/sdk/badfields.c" $flags || fail "range.so"
expect_refusal "$tmp/range.so" 'algorithm "sdk-test-range": .topologies, .ports, .default_ports or .problem out of range (use the HM_TOPO_, HM_PORTS_, HM_PROBLEM_ names of hypemu.h)'
build nosetup "$HM_SRCDIR/tests/sdk/badfields.c"
expect_refusal "$tmp/nosetup.so" 'algorithm "sdk-test-nosetup": .setup is NULL, so .problem must name a problem whose setup stands in; allowed: broadcast, allgather, scatter, gather, reduce, allreduce, reduce-scatter, alltoall'
expect_refusal "$tmp/nowhere.so" "cannot load: $tmp/nowhere.so: cannot open shared object file: No such file or directory"

# The same refusal from the config's "plugins", with the config file and the JSON path.
printf '{"plugins": ["abi.so"], "topology": {"kind": "hypercube", "dim": 2}, "algorithm": {"name": "bcast-binomial"}}\n' >"$tmp/abi.json"
rc=0
"$bin" "$tmp/abi.json" >/dev/null 2>"$tmp/err" || rc=$?
[ "$rc" = 2 ] || fail "abi.json: exit $rc, expected 2"
grep -q "^$tmp/abi.json: plugins\[0\]: plugin $tmp/abi.so: ABI mismatch: " "$tmp/err" ||
    fail "abi.json: $(cat "$tmp/err")"

rc=0
"$bin" --set plugins=3 "$tmp/abi.json" >/dev/null 2>"$tmp/err" || rc=$?
[ "$rc" = 2 ] && [ "$(cat "$tmp/err")" = "$tmp/abi.json: plugins: found 3; allowed: an array of plugin files (strings)" ] ||
    fail "plugins=3: exit $rc, $(cat "$tmp/err")"
rc=0
"$bin" --set 'plugins=[""]' "$tmp/abi.json" >/dev/null 2>"$tmp/err" || rc=$?
[ "$rc" = 2 ] && [ "$(cat "$tmp/err")" = "$tmp/abi.json: plugins[0]: found \"\"; allowed: a plugin file name" ] ||
    fail "plugins=[\"\"]: exit $rc, $(cat "$tmp/err")"

# ---- a node program that crashes -------------------------------------------------------
printf '{"plugins": ["crash.so"], "topology": {"kind": "hypercube", "dim": 3}, "algorithm": {"name": "sdk-test-crash"}}\n' >"$tmp/crash.json"
rc=0
"$bin" "$tmp/crash.json" >/dev/null 2>"$tmp/err" || rc=$?
grep -qx "hypemu: node 3 (algorithm sdk-test-crash, plugin $tmp/crash.so) crashed in slot 2: SIGSEGV" "$tmp/err" ||
    fail "crash: said '$(cat "$tmp/err")'"
# The process ends by the signal: the shell's 139 = 128 + SIGSEGV.
[ "$rc" = 139 ] || fail "crash: exit $rc, expected 139"

# ---- plugins that cheat through shared memory (README "What verified means") ------------
# Each declares its problem, whose check stands in: exit 1, not verified, and why.
build cheat "$HM_SRCDIR/tests/sdk/cheat.c"
expect_cheat() { # expect_cheat CONFIG VERDICT (a basic regular expression)
    rc=0
    "$bin" --json --plugin "$tmp/cheat.so" "$1" >"$tmp/out" 2>"$tmp/err" || rc=$?
    [ "$rc" = 1 ] || fail "$1: exit $rc, expected 1: $(cat "$tmp/err")"
    grep -qF '"verified":false' "$tmp/out" || fail "$1: $(cat "$tmp/out")"
    grep -q "\"verification\":\"$2\"" "$tmp/out" || fail "$1: $(cat "$tmp/out")"
}
# A broadcast in 1 slot on Q_6, whose lower bound is 6: node 3 is the first two links
# from the root.
printf '{"topology": {"kind": "hypercube", "dim": 6}, "ports": {"model": "all-port"}, "algorithm": {"name": "sdk-cheat-global"}}\n' >"$tmp/global.json"
expect_cheat "$tmp/global.json" "node 3 stored value #1 (-*[0-9]*) in slot 1, but it comes from node 0, 2 links away: nothing of node 0 reaches node 3 before slot 2 (one link per slot)"
# An allgather of 4 values a node on Q_4 through one pointer a packet: node 0 stores
# 60 values of the others, 4 words (one packet per neighbour) were delivered to it.
printf '{"topology": {"kind": "hypercube", "dim": 4}, "ports": {"model": "all-port"}, "algorithm": {"name": "sdk-cheat-pointer", "block": 4}}\n' >"$tmp/pointer.json"
expect_cheat "$tmp/pointer.json" "node 0 stored 60 values from other nodes but was delivered only 4 words (a packet's value counts 1, its payload ceil(len/8)): values cannot travel outside the packets"

# ---- an MPI program, with the installed hypemu-mpicc (doc/mpi-programs.md) ----------------
for f in bin/hypemu-mpicc include/hypemu/mpi/mpi.h lib/libhypemu-mpiprog.a share/hypemu/mpi/plugin.c; do
    [ -f "$prefix/$f" ] || fail "make install did not install $f"
done
[ ! -e "$prefix/include/mpi.h" ] || fail "make install put an mpi.h beside hypemu.h"
cp "$HM_SRCDIR/examples/mpi/rd_allreduce.c" "$HM_SRCDIR/examples/mpi/io.h" \
    "$HM_SRCDIR/examples/mpi/rd_allreduce.json" "$tmp/"
# (with the suite's CFLAGS: the installed MPI library was built with them)
# shellcheck disable=SC2086 # word splitting of the flags is intended
CC=$CC "$prefix/bin/hypemu-mpicc" -o "$tmp/rd_allreduce.so" "$tmp/rd_allreduce.c" ${HM_CFLAGS:-} ||
    fail "the installed hypemu-mpicc cannot build examples/mpi/rd_allreduce.c"
(cd "$tmp" && "$bin" --plugin ./rd_allreduce.so --json rd_allreduce.json) >"$tmp/mpi.json" ||
    fail "rd_allreduce.json: exit $?"
grep -q '"completion_slots": *4,' "$tmp/mpi.json" && grep -q '"verified": *true' "$tmp/mpi.json" ||
    fail "rd_allreduce on Q_4: not verified in 4 slots: $(cat "$tmp/mpi.json")"

echo "check_sdk.sh: ok"
