#!/bin/sh
# SPDX-License-Identifier: MIT
# bench_profile.sh — where the hot path spends its time (`make bench-profile`,
# doc/performance.md): `perf record -e cpu-clock` of one run, simultaneous-broadcast same-order
# with k = 2^d on Q_d (HM_BENCH_DIM, default 10: every node active in every slot), then
# the kernel's share and the top user-space functions (HM_BENCH_TOP, default 15) by
# samples in the function itself. Functions of hypemu are named by addr2line from its
# own binary, so that a perf that cannot read them still names them.
#
# Not a test: perf is often missing, or not allowed (kernel.perf_event_paranoid); then
# it says why and exits 0. A build with CFLAGS='-O2 -g' names inlined code after the
# function it was inlined into.
set -u
build=${HM_BUILDDIR:-.}
dim=${HM_BENCH_DIM:-10}
top=${HM_BENCH_TOP:-15}
skip() { echo "make bench-profile: skipped: $*" >&2; exit 0; }
command -v perf >/dev/null 2>&1 || skip "perf not found (Debian: linux-perf)"
command -v addr2line >/dev/null 2>&1 || skip "addr2line not found (binutils)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The real executable behind a libtool wrapper, and the library it runs.
exe="$build/hypemu"
[ -x "$build/.libs/hypemu" ] && exe="$build/.libs/hypemu"
[ -x "$build/.libs/lt-hypemu" ] && exe="$build/.libs/lt-hypemu"
LD_LIBRARY_PATH="$build/lib/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LD_LIBRARY_PATH
cat >"$tmp/run.json" <<JSON
{"topology":{"kind":"hypercube","dim":$dim},"ports":{"model":"all-port","link_capacity":1},
 "contention":"strict","algorithm":{"name":"simultaneous-broadcast","variant":"same-order",
 "k":$((1 << dim))},"seed":1}
JSON
echo "machine: $(nproc) CPUs; $(uptime | sed 's/.*load/load/')"
echo "run: simultaneous-broadcast same-order, Q_$dim, k = $((1 << dim)) ($exe)"
perf record -q -g -e cpu-clock -o "$tmp/perf.data" -- "$exe" --quiet "$tmp/run.json" \
    >"$tmp/out" 2>"$tmp/err" || skip "perf record failed: $(tail -n 1 "$tmp/err")"
# The first line of each call chain: the sampled function (perf prints the addresses
# of a chain relative to their DSO, which addr2line reads).
perf script -i "$tmp/perf.data" -F ip,sym,dso 2>/dev/null |
    awk 'BEGIN { RS = "" } { split($0, line, "\n"); print line[1] }' >"$tmp/samples"
[ -s "$tmp/samples" ] || skip "perf script printed no samples"
# "IP SYM (DSO)": samples a perf could not name go to addr2line, one call per DSO.
awk '{ dso = $NF; gsub(/[()]/, "", dso); sym = $2; for (i = 3; i < NF; i++) sym = sym " " $i;
       if (sym == "[unknown]" && dso ~ /(hypemu|libhypemu[^\/]*)$/) print dso, $1 }' \
    "$tmp/samples" | sort -u >"$tmp/unknown"
: >"$tmp/names"
cut -d' ' -f1 "$tmp/unknown" | sort -u | while read -r dso; do
    grep "^$dso " "$tmp/unknown" | cut -d' ' -f2 | sed 's/^/0x/' >"$tmp/addrs"
    addr2line -f -e "$dso" <"$tmp/addrs" | awk 'NR % 2' |
        paste -d' ' "$tmp/addrs" - | sed "s|^0x|$dso |" >>"$tmp/names"
done
awk -v top="$top" '
    FILENAME == ARGV[1] { name[$1 " " $2] = $3; next }
    { dso = $NF; gsub(/[()]/, "", dso); sym = $2; for (i = 3; i < NF; i++) sym = sym " " $i
      total++
      if (dso ~ /kernel/) { kernel++; next }
      if (sym == "[unknown]" && ((dso " " $1) in name)) sym = name[dso " " $1]
      n = split(dso, part, "/"); count[sym " (" part[n] ")"]++ }
    END {
      if (total == 0) exit
      printf "%d samples; kernel %.1f %%, user space %.1f %%\n", total, 100 * kernel / total,
             100 * (total - kernel) / total
      printf "top user-space functions (%% of all samples, self):\n"
      for (s in count) printf "%7.2f %%  %s\n", 100 * count[s] / total, s | "sort -rn | head -n " top
    }' "$tmp/names" "$tmp/samples"
