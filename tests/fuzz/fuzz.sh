#!/bin/sh
# SPDX-License-Identifier: MIT
# fuzz.sh — `make fuzz`: builds the fuzz targets of tests/fuzz/ with clang's libFuzzer
# (and AddressSanitizer + UndefinedBehaviorSanitizer) in $HM_BUILDDIR/fuzz/, then runs
# each for HM_FUZZ_SECONDS seconds (default 60).
#
#   make fuzz                                   every target, 60 s each
#   make fuzz HM_FUZZ_SECONDS=600 HM_FUZZ_TARGETS=run HM_FUZZ_FLAGS=-jobs=2
#
# Each target starts from its seed corpus and its regressions (tests/fuzz/corpus/T,
# tests/fuzz/regressions/T) and keeps what it learns in fuzz/corpus-T/ of the build
# tree; a crash, a leak, a timeout (20 s) or undefined behaviour stops it, the input
# is saved as fuzz/artifacts/T/crash-... (or leak-, timeout-...) and this script
# exits 1. Copy such an input to tests/fuzz/regressions/T/ and make check replays it
# for ever. Set by the Makefile: FUZZ_CC, HM_SRCDIR, HM_BUILDDIR, HM_FUZZ_SOURCES,
# HM_FUZZ_CPPFLAGS, HM_FUZZ_LIBS.
set -eu

src=$HM_SRCDIR
out=$HM_BUILDDIR/fuzz
seconds=${HM_FUZZ_SECONDS:-60}
targets=${HM_FUZZ_TARGETS:-config set run channel}
cc=${FUZZ_CC:-clang}
san="-fsanitize=address,undefined,float-cast-overflow,implicit-conversion -fno-sanitize-recover=all"
cflags="-std=c11 -O1 -g -fno-omit-frame-pointer $san -D_GNU_SOURCE -DHM_SRCDIR=\"$src\""
cflags="$cflags -I$src/include -I$src/src -I$src/tests/fuzz $HM_FUZZ_CPPFLAGS"

mkdir -p "$out/obj"
# The library, instrumented for coverage (fuzzer-no-link): only what changed.
objs=""
for f in $HM_FUZZ_SOURCES; do
    case $f in *.c) ;; *) continue ;; esac
    o=$out/obj/$(echo "$f" | tr / _ | sed 's/\.c$/.o/')
    if [ ! -e "$o" ] || [ "$src/$f" -nt "$o" ] || [ -n "$(find "$src/src" "$src/include" -name '*.h' -newer "$o")" ]; then
        echo "  FUZZCC   $f"
        # shellcheck disable=SC2086 # word splitting of the flags is intended
        $cc $cflags -fsanitize=fuzzer-no-link -c "$src/$f" -o "$o"
    fi
    objs="$objs $o"
done

status=0
for t in $targets; do
    bin=$out/fuzz_$t
    echo "  FUZZLD   $bin"
    # shellcheck disable=SC2086
    $cc $cflags -fsanitize=fuzzer "$src/tests/fuzz/fuzz_$t.c" "$src/tests/fuzz/common.c" \
        $objs -o "$bin" $HM_FUZZ_LIBS -lpthread -lm
    mkdir -p "$out/corpus-$t" "$out/artifacts/$t"
    echo "==== fuzz $t: ${seconds}s"
    # detect_leaks at exit only: the node threads of a run are joined before it ends.
    # shellcheck disable=SC2086
    if ! ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
        "$bin" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 -max_len=4096 \
        -dict="$src/tests/fuzz/hypemu.dict" -print_final_stats=1 \
        -artifact_prefix="$out/artifacts/$t/" ${HM_FUZZ_FLAGS:-} \
        "$out/corpus-$t" "$src/tests/fuzz/corpus/$t" "$src/tests/fuzz/regressions/$t" \
        >"$out/fuzz-$t.log" 2>&1; then
        status=1
        echo "==== fuzz $t: FAILED; the last lines of $out/fuzz-$t.log:"
        tail -n 40 "$out/fuzz-$t.log"
    fi
    grep -E '^stat::number_of_executed_units|^Done [0-9]+ runs' "$out/fuzz-$t.log" || true
done
ls "$out"/artifacts/*/* 2>/dev/null && echo "fuzz.sh: inputs above to keep in tests/fuzz/regressions/" || true
exit $status
