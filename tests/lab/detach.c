/* SPDX-License-Identifier: MIT */
/* A right broadcast (lab exercise 1's solution) whose constructor leaves a detached child
 * behind (its own session, its descriptors closed) that rewrites the class CSV named by
 * $LAB_TEST_CSV two seconds later: hypemu-lab class must end it before it writes the CSV
 * (tests/check_lab.sh, under --no-sandbox; the sandbox refuses the fork). */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "../../examples/lab/solutions/ex1-bcast-one-port.c"

__attribute__((constructor)) static void leave_a_child(void)
{
    const char *csv = getenv("LAB_TEST_CSV");
    if (!csv || fork() != 0)
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
