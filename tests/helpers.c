/* SPDX-License-Identifier: MIT */
/*
 * helpers.c — see helpers.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"

static hm_trun_t run(const char *config, const char *const *sets, const hm_algorithm_t *algo,
                     atomic_int *interrupt)
{
    hm_trun_t out = {0};
    int nsets = 0;
    while (sets && sets[nsets])
        nsets++;
    hm__config_t cfg;
    out.rc = hm__config_load_string(&cfg, "test.json", config, (char *const *)sets, nsets);
    if (out.rc != 0) {
        size_t len = 1;
        for (size_t i = 0; i < cfg.nerrors; i++)
            len += strlen(cfg.errors[i]) + 1;
        out.message = calloc(1, len);
        for (size_t i = 0; i < cfg.nerrors; i++) {
            strcat(out.message, cfg.errors[i]);
            strcat(out.message, "\n");
        }
        hm__config_free(&cfg);
        return out;
    }
    if (algo)
        cfg.algo = algo;
    cfg.opt.interrupt = interrupt;
    hm__result_t res;
    out.rc = hm__run_config(&cfg, &res);
    out.summary = json_incref(res.summary);
    out.message = res.message ? strdup(res.message) : NULL;
    hm__result_free(&res);
    hm__config_free(&cfg);
    return out;
}

hm_trun_t hm_t_run(const char *config, const char *const *sets)
{
    return run(config, sets, NULL, NULL);
}

hm_trun_t hm_t_run_algo(const char *config, const hm_algorithm_t *algo)
{
    return run(config, NULL, algo, NULL);
}

hm_trun_t hm_t_run_interrupt(const char *config, const hm_algorithm_t *algo, atomic_int *flag)
{
    return run(config, NULL, algo, flag);
}

hm_algorithm_t hm_t_algo(void (*fn)(hm_node_t *, void *), void (*verify)(hm_report_t *))
{
    hm_algorithm_t a = {
        .name = "test",
        .description = "test program",
        .paper = "none",
        .topologies = HM_BIT(HM_TOPO_HYPERCUBE),
        .ports = 0xff,
        .node_main = fn,
        .verify = verify,
    };
    return a;
}

void hm_t_verify_ok(hm_report_t *r)
{
    r->verified = 1;
    snprintf(r->verification, sizeof r->verification, "test");
}

void hm_t_wait_forever(hm_node_t *n, void *s)
{
    (void)s;
    hm_packet_t p;
    if (hm_wait_packet(n, &p) == HM_OK)
        hm_store(n, 1);
}

char *hm_t_cube(int d, const char *model, const char *contention, const char *extra)
{
    static char buf[1024];
    snprintf(buf, sizeof buf,
             "{\"topology\":{\"kind\":\"hypercube\",\"dim\":%d},"
             "\"ports\":{\"model\":\"%s\"},\"contention\":\"%s\","
             "\"algorithm\":{\"name\":\"sbt-broadcast\"}%s}",
             d, model, contention, extra ? extra : "");
    return buf;
}

void hm_t_flood(hm_node_t *n, void *s)
{
    (void)s;
    if (hm_id(n) != 0)
        return; /* node 1 leaves without reading */
    for (int i = 1; i <= 3; i++) {
        hm_packet_t p = {.msg = i};
        hm_send(n, 0, &p);
        if (i < 3 && hm_next_slot(n) != HM_OK)
            return;
    }
}

void hm_t_sleep_long(hm_node_t *n, void *s)
{
    (void)s;
    hm_wait_until(n, 1000);
}

void hm_t_late_send(hm_node_t *n, void *s)
{
    (void)s;
    hm_packet_t p = {.msg = 7, .value = 42};
    if (hm_id(n) == 0) {
        if (hm_wait_until(n, 1000000000) == HM_OK)
            hm_send(n, 0, &p);
        return;
    }
    if (hm_wait_packet(n, &p) == HM_OK) {
        hm_store(n, p.recv_slot);
        hm_store(n, hm_now(n));
    }
}

void hm_t_free(hm_trun_t *r)
{
    json_decref(r->summary);
    free(r->message);
    memset(r, 0, sizeof *r);
}

int64_t hm_t_int(const hm_trun_t *r, const char *key)
{
    ck_assert_msg(r->summary != NULL, "no summary (rc %d): %s", r->rc,
                  r->message ? r->message : "");
    json_t *v = json_object_get(r->summary, key);
    ck_assert_msg(v != NULL, "summary has no key %s", key);
    if (json_is_boolean(v))
        return json_is_true(v);
    ck_assert_msg(json_is_integer(v), "summary key %s is not an integer", key);
    return json_integer_value(v);
}

int64_t hm_t_bound(const hm_trun_t *r, const char *key)
{
    ck_assert_msg(r->summary != NULL, "no summary (rc %d)", r->rc);
    json_t *v = json_object_get(json_object_get(r->summary, key), "value");
    ck_assert_msg(json_is_integer(v), "summary has no %s.value", key);
    return json_integer_value(v);
}

const char *hm_t_str(const hm_trun_t *r, const char *key)
{
    ck_assert_msg(r->summary != NULL, "no summary (rc %d)", r->rc);
    json_t *v = json_object_get(r->summary, key);
    ck_assert_msg(json_is_string(v), "summary key %s is not a string", key);
    return json_string_value(v);
}

char *hm_t_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (cap - n - 1 == 0) {
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    fclose(f);
    if (buf)
        buf[n] = 0;
    if (len)
        *len = n;
    return buf;
}

char *hm_t_tmpdir(void)
{
    char tmpl[] = "/tmp/hypemu-test-XXXXXX";
    char *d = mkdtemp(tmpl);
    ck_assert_msg(d != NULL, "mkdtemp: %s", strerror(errno));
    return strdup(d);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

void hm_t_rmtree(char *dir)
{
    nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    free(dir);
}

static char *read_fd(int fd)
{
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    ssize_t got;
    while ((got = read(fd, buf + n, cap - n - 1)) > 0) {
        n += (size_t)got;
        if (n + 1 == cap)
            buf = realloc(buf, cap *= 2);
    }
    buf[n] = 0;
    return buf;
}

int hm_t_exec(const char *dir, char **out, char **err, const char *const *args)
{
    char prog[4096];
    snprintf(prog, sizeof prog, "%s/hypemu", HM_BUILDDIR);
    char outpath[] = "/tmp/hypemu-out-XXXXXX", errpath[] = "/tmp/hypemu-err-XXXXXX";
    int ofd = mkstemp(outpath), efd = mkstemp(errpath);
    ck_assert(ofd >= 0 && efd >= 0);
    pid_t pid = fork();
    ck_assert(pid >= 0);
    if (pid == 0) {
        if (chdir(dir ? dir : HM_SRCDIR) != 0)
            _exit(126);
        dup2(ofd, 1);
        dup2(efd, 2);
        int argc = 0;
        while (args[argc])
            argc++;
        char **argv = calloc((size_t)argc + 2, sizeof *argv);
        argv[0] = prog;
        for (int i = 0; i < argc; i++)
            argv[i + 1] = (char *)args[i];
        execv(prog, argv);
        _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    lseek(ofd, 0, SEEK_SET);
    lseek(efd, 0, SEEK_SET);
    char *o = read_fd(ofd), *e = read_fd(efd);
    close(ofd);
    close(efd);
    unlink(outpath);
    unlink(errpath);
    if (out)
        *out = o;
    else
        free(o);
    if (err)
        *err = e;
    else
        free(e);
    ck_assert_msg(WIFEXITED(status), "hypemu did not exit normally (signal %d)",
                  WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    return WEXITSTATUS(status);
}
