/* SPDX-License-Identifier: MIT */
/* A right broadcast (lab exercise 1's solution) whose constructor leaves a detached child
 * behind (its own session, its descriptors closed) that rewrites the class CSV named by
 * $LAB_TEST_CSV two seconds later: hypemu-lab class must end it before it writes the CSV
 * (tests/check_lab.sh, under --no-sandbox). Not where a seccomp filter runs it (--list
 * reads descriptors in the sandbox, which would refuse the fork): the constructor looks
 * at its own /proc/self/status first. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../examples/lab/solutions/ex1-bcast-one-port.c"

static int filtered(void)
{
    char line[128];
    int yes = 0;
    FILE *f = fopen("/proc/self/status", "r");
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "Seccomp:", 8) == 0)
            yes = atoi(line + 8) != 0;
    if (f)
        fclose(f);
    return yes;
}

__attribute__((constructor)) static void leave_a_child(void)
{
    const char *csv = getenv("LAB_TEST_CSV");
    if (!csv || filtered() || fork() != 0)
        return;
    setsid();
    for (int fd = 0; fd < 1024; fd++)
        close(fd);
    sleep(2);
    int f = open(csv, O_WRONLY | O_TRUNC | O_CREAT, 0644);
    if (f >= 0) {
        (void)!write(f, "forged\n", 7);
        close(f);
    }
    _exit(0);
}
