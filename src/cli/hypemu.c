/* SPDX-License-Identifier: MIT */
/*
 * hypemu.c — the program: the command line of README "Command line" lives in the shared
 * library (hm_main, src/cli/main.c), so that plugins loaded with --plugin and the program
 * use one engine (README "Writing node programs outside the tree").
 */
#include "hypemu.h"

int main(int argc, char **argv)
{
    return hm_main(argc, argv);
}
