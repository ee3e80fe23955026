/* SPDX-License-Identifier: MIT */
/*
 * private.c — globals private to each rank, as under real MPI (doc/mpi-programs.md,
 * "Globals"): each node thread copies the program's file (found with dladdr) into a
 * directory of its own under $TMPDIR (or /tmp), dlopens the copy (RTLD_LOCAL: its globals,
 * the MPI library's included, are its own), removes the file and the directory at once (the
 * mapping stays, until hypemu exits) and runs the rank there. Where the copy cannot be made (no
 * room, a read-only or forbidden file system, as in the sandbox's node processes, where each rank
 * is a process of its own anyway), the rank runs in the loaded program, whose globals every
 * rank of this process shares.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpiprog.h"

void hm_mpi__node(hm_node_t *n, void *state);
void hm_mpi__rank(hm_node_t *n);

/* Copy file from to a new file to; 0 or -1. */
static int copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = in ? fopen(to, "wb") : NULL;
    char buf[4096];
    size_t k;
    int rc = in && out ? 0 : -1;
    while (rc == 0 && (k = fread(buf, 1, sizeof buf, in)) > 0)
        if (fwrite(buf, 1, k, out) != k)
            rc = -1;
    if (in && ferror(in))
        rc = -1;
    if (out && fclose(out) != 0)
        rc = -1;
    if (in)
        fclose(in);
    return rc;
}

/* Whether this process is a node process of the sandbox (hypemu-node), where no file may be
 * written and the rank is a process of its own. */
static int sandboxed(void)
{
    char exe[4096];
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (k <= 0)
        return 0;
    exe[k] = 0;
    const char *base = strrchr(exe, '/');
    return strcmp(base ? base + 1 : exe, "hypemu-node") == 0;
}

/* This rank's own copy of the program, dlopen'ed, or NULL. */
static void *own_copy(void)
{
    Dl_info info;
    if (getenv("HM_MPI_SHARED_GLOBALS") || sandboxed() || !dladdr((void *)hm_mpi__rank, &info) ||
        !info.dli_fname)
        return NULL;
    const char *tmp = getenv("TMPDIR");
    char dir[4096], file[4200];
    snprintf(dir, sizeof dir, "%s/hypemu-mpi-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir))
        return NULL;
    snprintf(file, sizeof file, "%s/rank.so", dir);
    void *h = copy_file(info.dli_fname, file) == 0 ? dlopen(file, RTLD_NOW | RTLD_LOCAL) : NULL;
    unlink(file);
    rmdir(dir);
    return h;
}

void hm_mpi__node(hm_node_t *n, void *state)
{
    (void)state;
    void *h = own_copy();
    void (*rank)(hm_node_t *) = NULL;
    if (h)
        *(void **)&rank = dlsym(h, "hm_mpi__rank");
    if (rank)
        rank(n);
    else
        hm_mpi__rank(n);
    /* The copy stays loaded until hypemu exits: a rank that ends while others run must not
     * unmap it, or the next copy loaded may take its addresses (ThreadSanitizer then sees
     * one global written by two threads with nothing between them). */
}

/* The C library's random numbers, rand() and random() (one generator, as in glibc),
 * seeded by srand() and srandom(): private to each rank like its globals (hypemu-mpicc
 * renames the program's calls to these; doc/mpi-programs.md, "Globals"). The same
 * generator as the C library's (random_r with its default 128 bytes of state, seeded
 * with 1 until the program seeds it), so that each rank draws what it draws under
 * mpirun, where it is a process of its own. */
static struct random_data rng;
static char rng_state[128];
static int rng_seeded;

void hm_mpi_srand__(unsigned seed);
int hm_mpi_rand__(void);
void hm_mpi_srandom__(unsigned seed);
long hm_mpi_random__(void);

void hm_mpi_srand__(unsigned seed)
{
    memset(&rng, 0, sizeof rng);
    initstate_r(seed, rng_state, sizeof rng_state, &rng);
    rng_seeded = 1;
}

int hm_mpi_rand__(void)
{
    int32_t r = 0;
    if (!rng_seeded)
        hm_mpi_srand__(1);
    random_r(&rng, &r);
    return r;
}

void hm_mpi_srandom__(unsigned seed)
{
    hm_mpi_srand__(seed);
}

long hm_mpi_random__(void)
{
    return hm_mpi_rand__();
}
