#!/bin/sh
# SPDX-License-Identifier: MIT
# embed-player.sh CSS JS — writes to standard output src/out/player.inc: the player's
# style and script (README "Player") as C string literals, one a line, which
# src/out/html.c copies into every page. Run by make (Makefile.am); the sources are
# src/out/player.css and src/out/player.js.
set -eu
lines() {
    # Backslashes and quotes escaped, '?' too (no trigraph can form in C11).
    sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/?/\\?/g' -e 's/^/"/' -e 's/$/\\n",/' "$1"
}
echo "/* Made by scripts/embed-player.sh from src/out/player.css and src/out/player.js. */"
echo "#ifdef HM__PLAYER_CSS"
lines "$1"
echo "#else"
lines "$2"
echo "#endif"
