/* SPDX-License-Identifier: MIT */
/*
 * replay.c — a fuzz target as a plain program: runs LLVMFuzzerTestOneInput once on
 * every input file named on the command line (a directory: every file in it, in
 * name order). Without arguments it replays the target's seed corpus and its
 * regressions, tests/fuzz/corpus/NAME and tests/fuzz/regressions/NAME: `make check`
 * runs it so, with any compiler. An input that crashes crashes the program; one that
 * runs past 60 s (times CK_TIMEOUT_MULTIPLIER, as Check's timeouts: the sanitizer
 * builds of .ci/run set it) stops it, naming the input.
 */
#include <dirent.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"

static const char *current;
static unsigned timeout_s = 60;

static void on_alarm(int sig)
{
    (void)sig;
    static const char msg[] = "replay: timeout on input ";
    if (write(2, msg, sizeof msg - 1) < 0 || write(2, current, strlen(current)) < 0 ||
        write(2, "\n", 1) < 0)
        _exit(1);
    _exit(1);
}

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: cannot open %s\n", path);
        return -1;
    }
    size_t cap = 4096, n = 0, got;
    uint8_t *buf = malloc(cap);
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            uint8_t *nb = realloc(buf, cap *= 2);
            if (!nb)
                free(buf);
            buf = nb;
        }
    }
    fclose(f);
    if (!buf)
        return -1;
    current = path;
    alarm(timeout_s);
    LLVMFuzzerTestOneInput(buf, n);
    alarm(0);
    free(buf);
    return 0;
}

static int visible(const struct dirent *e)
{
    return e->d_name[0] != '.' && strcmp(e->d_name, "README") != 0;
}

/* Returns the number of inputs run, -1 on error. */
static long replay(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "replay: cannot open %s\n", path);
        return -1;
    }
    if (!S_ISDIR(st.st_mode))
        return replay_file(path) == 0 ? 1 : -1;
    struct dirent **list;
    int n = scandir(path, &list, visible, alphasort);
    if (n < 0)
        return -1;
    long count = 0;
    for (int i = 0; i < n; i++) {
        char file[4096];
        snprintf(file, sizeof file, "%s/%s", path, list[i]->d_name);
        if (count >= 0) {
            long c = replay(file);
            count = c < 0 ? -1 : count + c;
        }
        free(list[i]);
    }
    free(list);
    return count;
}

int main(int argc, char **argv)
{
    signal(SIGALRM, on_alarm);
    const char *mult = getenv("CK_TIMEOUT_MULTIPLIER");
    if (mult && atoi(mult) > 1 && atoi(mult) <= 100)
        timeout_s *= (unsigned)atoi(mult);
    const char *defaults[] = {HM_SRCDIR "/tests/fuzz/corpus/" HM_FUZZ_NAME,
                              HM_SRCDIR "/tests/fuzz/regressions/" HM_FUZZ_NAME};
    int n = argc > 1 ? argc - 1 : 2;
    long total = 0;
    for (int i = 0; i < n; i++) {
        const char *path = argc > 1 ? argv[i + 1] : defaults[i];
        long c = replay(path);
        if (c < 0)
            return 1;
        printf("replay %s: %ld inputs from %s\n", HM_FUZZ_NAME, c, path);
        total += c;
    }
    printf("replay %s: %ld inputs, no crash\n", HM_FUZZ_NAME, total);
    return 0;
}
