#!/bin/sh
# SPDX-License-Identifier: MIT
# setup.sh — set up hypemu on a Debian machine and run the example.
#
#   ./setup.sh
#
# 1. Installs the Debian packages the build needs, when some are missing (with sudo
#    unless run as root): build-essential autoconf automake libtool pkg-config
#    libjansson-dev check libseccomp-dev clang-format python3 python3-jsonschema
#    librsvg2-bin libopen-trace-format2-dev otf2-tools man-db
#    pmccabe (tests/check_functions.sh).
#    libopenmpi-dev openmpi-bin (hypemu-mpi, doc/mpi.md).
#    libsimgrid-dev (bench/bench_simgrid: make bench-simgrid, doc/performance.md).
#    chromium (tests/check_html.sh, make doc-figures: the player, README "Player").
#    python3-matplotlib (the plots: doc/plots.md, doc/contention.md).
#    libdw-dev (a crash line's FILE:LINE, README "Exit codes").
# 2. Bootstraps (autoreconf -fi), configures and builds in the source tree.
# 3. Runs ./hypemu configs/q4_successive.json: the successive broadcasts on the
#    4-cube, 34 slots, which writes q4_successive.{timeline.txt,trace.json,events.jsonl}.
#
# Safe to run again: packages already there are not reinstalled, and the bootstrap and
# configure steps are skipped when their outputs are newer than their inputs (make's
# own rules regenerate them after later edits). Exits non-zero if any step fails; the
# exit code of the last step is hypemu's (0: run complete and verified).
# Set HM_SETUP_NO_RUN=1 to stop after the build, HM_CONFIGURE_FLAGS to pass options to
# ./configure (.ci/run: --enable-werror).
set -eu

cd "$(dirname "$0")"

say() { printf 'setup.sh: %s\n' "$*"; }
die() { printf 'setup.sh: error: %s\n' "$*" >&2; exit 1; }

# ---- 1. Debian packages ---------------------------------------------------------
packages="build-essential autoconf automake libtool pkg-config libjansson-dev check libseccomp-dev clang-format python3 python3-jsonschema librsvg2-bin libopen-trace-format2-dev otf2-tools man-db"
packages="$packages pmccabe" # tests/check_functions.sh: function length and complexity
packages="$packages libopenmpi-dev openmpi-bin" # hypemu-mpi (doc/mpi.md)
packages="$packages libsimgrid-dev" # bench/bench_simgrid, make bench-simgrid (doc/performance.md)
packages="$packages chromium" # tests/check_html.sh and make doc-figures open the player (README "Player")
packages="$packages python3-matplotlib" # the plots of doc/ (doc/plots.md, make plot-load, scripts/contention-sweep)
packages="$packages libdw-dev" # a crash line names FILE:LINE of a plugin built with -g (README "Exit codes")

installed() {
    dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null | grep -qx installed
}

if command -v dpkg-query >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
    missing=""
    for p in $packages; do
        # Debian 12 and later ship pkg-config as pkgconf; either provides pkg.m4.
        if [ "$p" = pkg-config ] && installed pkgconf; then
            continue
        fi
        installed "$p" || missing="$missing $p"
    done
    if [ -n "$missing" ]; then
        say "installing missing Debian packages:$missing"
        if [ "$(id -u)" -eq 0 ]; then
            as_root=""
        elif command -v sudo >/dev/null 2>&1; then
            as_root="sudo"
        else
            die "not root and no sudo: install these packages first:$missing"
        fi
        # env passes DEBIAN_FRONTEND through sudo's environment reset.
        $as_root env DEBIAN_FRONTEND=noninteractive apt-get update
        # shellcheck disable=SC2086 # word splitting of the package list is intended
        $as_root env DEBIAN_FRONTEND=noninteractive \
            apt-get install -y --no-install-recommends $missing
    else
        say "Debian packages present"
    fi
else
    say "not a Debian system (no dpkg-query/apt-get): install by hand the equivalents of"
    say "  $packages"
fi

for tool in cc make autoreconf pkg-config; do
    command -v "$tool" >/dev/null 2>&1 || die "$tool not found after installing packages"
done

# ---- 2. Bootstrap, configure, build ------------------------------------------------
# "newer" is true when $1 is missing or older than one of the others.
newer() {
    target=$1
    shift
    [ -e "$target" ] || return 0
    for f in "$@"; do
        [ -n "$(find "$f" -newer "$target" 2>/dev/null)" ] && return 0
    done
    return 1
}

if newer configure configure.ac Makefile.am m4/*.m4 || [ ! -e Makefile.in ]; then
    say "autoreconf -fi"
    autoreconf -fi
fi
if newer config.status configure || [ ! -e Makefile ]; then
    say "./configure ${HM_CONFIGURE_FLAGS:-}"
    # shellcheck disable=SC2086 # word splitting of the options is intended
    ./configure ${HM_CONFIGURE_FLAGS:-}
fi

jobs=$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
say "make -j$jobs"
make -j"$jobs"

# ---- 3. The example ----------------------------------------------------------------
if [ "${HM_SETUP_NO_RUN:-0}" = 1 ]; then
    say "built ./hypemu (HM_SETUP_NO_RUN=1: example not run)"
    exit 0
fi
say "./hypemu configs/q4_successive.json"
./hypemu configs/q4_successive.json
say "done: ./hypemu --help for the command line, make check for the test suite"
