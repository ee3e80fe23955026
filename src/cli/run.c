/*
 * run.c — one run: setup, machine, threads, verify, outputs, summary.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "run.h"

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef int (*writer_fn)(const hm__machine_t *, const hm__timeline_t *, FILE *);

static int write_one(hm__result_t *res, const char *path, writer_fn fn, const hm__timeline_t *tl)
{
    if (!path)
        return 0;
    FILE *f = fopen(path, "w");
    int ok = f && fn(res->m, tl, f) == 0;
    int err = errno;
    if (f && fclose(f) != 0)
        ok = 0, err = errno;
    if (ok)
        return 0;
    char *msg = hm__strdup_printf("%s%scannot write %s: %s", res->message ? res->message : "",
                                  res->message ? "\n" : "", path, strerror(err));
    free(res->message);
    res->message = msg;
    return -1;
}

static int write_outputs(const hm__config_t *cfg, hm__result_t *res)
{
    if (!cfg->opt.record_events || !res->m)
        return 0;
    hm__timeline_t tl;
    if (hm__timeline_merge(res->m, &tl) != 0) {
        free(res->message);
        res->message = hm__strdup_printf("out of memory merging the node logs");
        return -1;
    }
    int rc = 0;
    rc |= write_one(res, cfg->out_timeline, hm__write_timeline, &tl);
    rc |= write_one(res, cfg->out_events, hm__write_events, &tl);
    rc |= write_one(res, cfg->out_trace, hm__write_trace, &tl);
    hm__timeline_free(&tl);
    return rc;
}

int hm__run_config(const hm__config_t *cfg, hm__result_t *res)
{
    memset(res, 0, sizeof *res);
    const hm_algorithm_t *algo = cfg->algo;
    hm_setup_t setup = {.machine = &cfg->opt.info, .params = cfg->algo_params, .file = cfg->file};
    if (algo->setup && algo->setup(&setup) != 0) {
        res->message = strdup(setup.error[0] ? setup.error : "algorithm setup failed");
        return res->exit_code = setup.error[0] ? HM_EXIT_USAGE : HM_EXIT_SYSTEM;
    }
    char err[256] = "";
    int rc = hm__machine_create(&res->m, &cfg->opt, algo, setup.state, err, sizeof err);
    if (rc != HM_EXIT_OK) {
        res->message = strdup(err);
        if (algo->teardown)
            algo->teardown(setup.state);
        return res->exit_code = rc;
    }
    double t0 = seconds_now();
    rc = hm__machine_run(res->m);
    res->wall_seconds = seconds_now() - t0;
    hm__machine_t *m = res->m;
    if (m->stop_reason)
        res->message = strdup(m->stop_reason);

    hm_report_t *r = &res->report;
    r->machine = &m->info;
    r->state = setup.state;
    r->completion_slots = m->stats.last_activity + 1;
    r->bound = r->lower = -1;
    r->extra = json_object();
    r->priv = m;
    if (algo->verify)
        algo->verify(r);
    if (r->error && rc == HM_EXIT_OK) {
        free(res->message);
        res->message = hm__strdup_printf("verify: %s", r->error);
        rc = HM_EXIT_SYSTEM;
    }
    if (rc != HM_EXIT_OK) {
        r->verified = 0;
        snprintf(r->verification, sizeof r->verification, "not verified: the run stopped (%s)",
                 rc == HM_EXIT_VERIFY ? "port-model violation under strict contention"
                 : rc == HM_EXIT_STUCK
                     ? (m->stop_reason && strncmp(m->stop_reason, "deadlock", 8) == 0
                            ? "deadlock"
                            : "clock.max_slots reached")
                     : "system error");
    }
    if (rc == HM_EXIT_OK && !r->verified)
        rc = HM_EXIT_VERIFY;
    res->exit_code = rc;
    if (write_outputs(cfg, res) != 0 && res->exit_code == HM_EXIT_OK)
        res->exit_code = HM_EXIT_SYSTEM;
    res->summary = hm__summary_build(cfg, res);
    if (!res->summary) {
        free(res->message);
        res->message = strdup("out of memory building the summary");
        res->exit_code = HM_EXIT_SYSTEM;
    }
    if (algo->teardown)
        algo->teardown(setup.state);
    r->state = NULL;
    return res->exit_code;
}

void hm__result_free(hm__result_t *res)
{
    hm__machine_destroy(res->m);
    json_decref(res->report.extra);
    json_decref(res->summary);
    free(res->message);
    memset(res, 0, sizeof *res);
}
