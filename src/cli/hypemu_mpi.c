/* SPDX-License-Identifier: MIT */
/*
 * hypemu_mpi.c — hypemu-mpi's main (doc/mpi.md): hypemu's command line under the MPI
 * launcher (cli/mpi_launch.c).
 */
#include "launcher.h"

extern const hm__launcher_t hm__launcher_mpi;

int main(int argc, char **argv)
{
    return hm__main(argc, argv, &hm__launcher_mpi);
}
