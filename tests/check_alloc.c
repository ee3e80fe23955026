/*
 * check_alloc.c — the chaos test (after jansson's): fail the N-th allocation, for
 * every N, and check that a whole run survives it: no crash, no hang, and either the
 * right result or a clean error exit (2 or 4). Each try runs in a child process with
 * an alarm, so a crash or a hang names the allocation that caused it.
 *
 * It replaces malloc, calloc and realloc, so it is built without the sanitizers
 * (which replace them too) and is a program of its own.
 */
#include <check.h>
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/run.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define HM_CHAOS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define HM_CHAOS 0
#endif
#endif
#ifndef HM_CHAOS
#define HM_CHAOS 1
#endif

#if HM_CHAOS
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);

static atomic_long countdown; /* 0: disarmed; n: the n-th allocation from now fails */

static int fail_now(void)
{
    long c = atomic_load_explicit(&countdown, memory_order_relaxed);
    if (c > 0 && atomic_fetch_sub(&countdown, 1) == 1) {
        errno = ENOMEM; /* as the real allocator does; glibc's threads check it */
        return 1;
    }
    return 0;
}

void *malloc(size_t n)
{
    return fail_now() ? NULL : __libc_malloc(n);
}

void *calloc(size_t a, size_t b)
{
    return fail_now() ? NULL : __libc_calloc(a, b);
}

void *realloc(void *p, size_t n)
{
    return fail_now() ? NULL : __libc_realloc(p, n);
}

static const char config[] =
    "{\"topology\":{\"kind\":\"hypercube\",\"dim\":2},"
    "\"algorithm\":{\"name\":\"successive-broadcast\"},"
    "\"output\":{\"events\":\"/dev/null\",\"timeline\":\"/dev/null\",\"trace\":\"/dev/null\"}}";

/* The free-running clock (engine/free.c): a tree broadcast, whose logical slot count
 * (d = 3) does not depend on the scheduling. */
static const char config_free[] =
    "{\"topology\":{\"kind\":\"hypercube\",\"dim\":3},\"clock\":{\"mode\":\"free\"},"
    "\"algorithm\":{\"name\":\"sbt-broadcast\"},"
    "\"output\":{\"events\":\"/dev/null\",\"timeline\":\"/dev/null\",\"trace\":\"/dev/null\"}}";

/* In the child: one run with the n-th allocation failing. Exit 0 if the outcome is
 * acceptable, 10 if the failure was never reached (every allocation point covered),
 * 20 + rc if the run claimed success with a wrong result. */
static int one_try(long n, int free_mode)
{
    alarm(20);
    hm__config_t cfg;
    atomic_store(&countdown, n);
    int rc = hm__config_load_string(&cfg, "chaos.json", free_mode ? config_free : config, NULL, 0);
    hm__result_t res;
    memset(&res, 0, sizeof res);
    if (rc == 0)
        rc = hm__run_config(&cfg, &res);
    int reached = atomic_load(&countdown) <= 0;
    atomic_store(&countdown, 0);
    if (!reached)
        return rc == 0 ? 10 : 30 + rc;
    if (rc == 0) {
        /* Success must be the real result: 2p + d - 2 = 8 slots (free: d = 3 logical
         * slots), verified. */
        json_t *slots = json_object_get(res.summary, "completion_slots");
        if (json_integer_value(slots) != (free_mode ? 3 : 8) ||
            !json_is_true(json_object_get(res.summary, "verified")))
            return 20;
    } else if (rc != 2 && rc != 4) {
        return 40 + rc;
    }
    hm__result_free(&res);
    hm__config_free(&cfg);
    return 0;
}

START_TEST(test_every_allocation_fails_once)
{
    int free_mode = _i;
    long n;
    for (n = 1; n < 100000; n++) {
        pid_t pid = fork();
        ck_assert(pid >= 0);
        if (pid == 0)
            _exit(one_try(n, free_mode));
        int st;
        waitpid(pid, &st, 0);
        ck_assert_msg(WIFEXITED(st), "allocation %ld: the run died of signal %d", n,
                      WIFSIGNALED(st) ? WTERMSIG(st) : 0);
        int code = WEXITSTATUS(st);
        if (code == 10)
            break;
        ck_assert_msg(code == 0, "allocation %ld: unacceptable outcome %d", n, code);
    }
    printf("chaos: a %s run survived each of its %ld allocations failing\n",
           free_mode ? "free-running" : "slotted", n - 1);
    ck_assert_int_gt(n, 100); /* a run makes well over 100 allocations */
}
END_TEST
#endif

int main(void)
{
    Suite *s = suite_create("alloc");
    TCase *tc = tcase_create("chaos");
#if HM_CHAOS
    tcase_add_loop_test(tc, test_every_allocation_fails_once, 0, 2);
#endif
    tcase_set_timeout(tc, 600);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
