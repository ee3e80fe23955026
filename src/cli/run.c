/* SPDX-License-Identifier: MIT */
/*
 * run.c — one run: setup, machine, threads, outcome, verify, outputs, summary. The
 * machine is destroyed as soon as its outcome is taken; verify, the writers and the
 * summary read the outcome only.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "out/writers.h"
#include "plugin.h"
#include "progress.h"
#include "run.h"

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A writer of README "Outputs", with what it needs from the config. */
typedef int (*writer_fn)(const hm__config_t *cfg, const hm__result_t *res, FILE *f);

static int w_timeline(const hm__config_t *cfg, const hm__result_t *res, FILE *f)
{
    return hm__write_timeline_nodes(res->outcome, cfg->out_show, f);
}

static int w_events(const hm__config_t *cfg, const hm__result_t *res, FILE *f)
{
    (void)cfg;
    return hm__write_events(res->outcome, f);
}

static int w_trace(const hm__config_t *cfg, const hm__result_t *res, FILE *f)
{
    (void)cfg;
    return hm__write_trace(res->outcome, f);
}

/* The picture's title is the summary in one line: what ran, how long, against which
 * bound, and the verdict. NULL when out of memory. */
static char *run_title(const hm__config_t *cfg, const hm__result_t *res)
{
    const hm_machine_info_t *in = &res->outcome->info;
    const hm_report_t *r = &res->report;
    json_t *variant = json_object_get(cfg->algo_params, "variant");
    char bound[160] = "";
    if (r->bound_expr && r->bound >= 0)
        snprintf(bound, sizeof bound, ", bound %s = %lld", r->bound_expr, (long long)r->bound);
    return hm__strdup_printf("%s%s%s on %s, %d nodes, %s ports: %lld slots%s, %s", cfg->algo->name,
                             json_is_string(variant) ? " " : "",
                             json_is_string(variant) ? json_string_value(variant) : "",
                             hm_topology_name(in->topology), in->nodes, hm_ports_name(in->ports),
                             (long long)r->completion_slots, bound,
                             r->verified ? "verified" : r->verification);
}

static int w_svg(const hm__config_t *cfg, const hm__result_t *res, FILE *f)
{
    char *title = run_title(cfg, res);
    if (!title) {
        errno = ENOMEM;
        return -1;
    }
    int rc = hm__write_svg(res->outcome, title, cfg->svg_colour, f);
    free(title);
    return rc;
}

/* The player, titled like the picture. */
static int w_html(const hm__config_t *cfg, const hm__result_t *res, FILE *f)
{
    char *title = run_title(cfg, res);
    if (!title) {
        errno = ENOMEM;
        return -1;
    }
    const char *clock = hm_clock_name(cfg->opt.clock);
    int rc = hm__write_html(res->outcome, title, clock, f);
    free(title);
    return rc;
}

static void add_message(hm__result_t *res, const char *fmt, const char *path, const char *why)
{
    char *line = hm__strdup_printf(fmt, path, why);
    char *msg = hm__strdup_printf("%s%s%s", res->message ? res->message : "",
                                  res->message ? "\n" : "", line ? line : path);
    free(line);
    free(res->message);
    res->message = msg;
}

/* The temporary file being written, if any: a second Ctrl-C removes it before the
 * process dies (main.c, README "Exit codes"). Atomic, as a signal handler reads it. */
static _Atomic(char *) temp_output;

void hm__cli_discard_temp_output(void)
{
    char *path = atomic_load(&temp_output);
    if (path)
        unlink(path);
}

/* ---- the output budget (output.max_bytes, README "Output budget") ------------------ */

/* One requested output: its config key, path, writer and estimated size. */
typedef struct out_s {
    const char *key, *path;
    writer_fn fn; /* NULL: the OTF2 directory */
    int64_t size;
    int counted; /* a file (or a new one) that takes disk space: not a device or pipe */
} out_t;

/* A file written through the budget: the writes beyond `left` bytes fail (EFBIG), so
 * that no output grows past the budget even where its estimate was low. */
typedef struct capped_s {
    FILE *f;
    int64_t left;
    int over;
} capped_t;

static ssize_t capped_write(void *cookie, const char *buf, size_t size)
{
    capped_t *c = cookie;
    if ((int64_t)size > c->left) {
        c->over = 1;
        errno = EFBIG;
        return -1;
    }
    size_t w = fwrite(buf, 1, size, c->f);
    c->left -= (int64_t)w;
    return w ? (ssize_t)w : -1;
}

static int capped_close(void *cookie)
{
    capped_t *c = cookie;
    return fclose(c->f);
}

/* "212.4 MiB (222726610 bytes)" */
static const char *show_bytes(char buf[64], int64_t n)
{
    static const char *const unit[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double v = (double)n;
    int u = 0;
    while (v >= 1024 && u < 6)
        v /= 1024, u++;
    if (u == 0)
        snprintf(buf, 64, "%lld bytes", (long long)n);
    else
        snprintf(buf, 64, "%.1f %s (%lld bytes)", v, unit[u], (long long)n);
    return buf;
}

/* The refusal: every counted output with its estimate, the budget, how to raise it. */
static void over_budget(const hm__config_t *cfg, hm__result_t *res, const out_t *outs, int n,
                        int64_t total)
{
    char a[64], b[64];
    char *msg = hm__strdup_printf("outputs not written: they would take about %s, more than "
                                  "output.max_bytes = %s:",
                                  show_bytes(a, total), show_bytes(b, cfg->out_max_bytes));
    for (int i = 0; i < n && msg; i++) {
        if (!outs[i].counted)
            continue;
        char *m = hm__strdup_printf("%s\n  %s (%s): about %s", msg, outs[i].key, outs[i].path,
                                    show_bytes(a, outs[i].size));
        free(msg);
        msg = m;
    }
    add_message(res, "%s%s", msg ? msg : "outputs not written: over output.max_bytes",
                "\nraise the budget with --set output.max_bytes=BYTES (0: no limit), or ask for "
                "fewer outputs (output.nodes narrows the timeline)");
    free(msg);
}

/* Write one output. A regular file (or a new one) is written to a temporary file in
 * the same directory and renamed over its name once complete (README "Outputs"): a
 * reader never sees a cut file, and a run that fails keeps the previous one. A device
 * or a pipe (/dev/null, /dev/stdout) is written in place. *left is what remains of the
 * budget (INT64_MAX: none); a file that would pass it is removed. */
static int write_one(const hm__config_t *cfg, hm__result_t *res, const out_t *o, int64_t *left)
{
    const char *path = o->path;
    char why[320]; /* the player's limit (README "Player"): refused before any file */
    if (o->fn == w_html && hm__html_refusal(res->outcome, why, sizeof why)) {
        add_message(res, "%s: not written: %s", path, why);
        return -1;
    }
    char *tmp = o->counted ? hm__strdup_printf("%s.tmp-%ld", path, (long)getpid()) : NULL;
    if (o->counted && !tmp) {
        add_message(res, "cannot write %s: %s", path, strerror(ENOMEM));
        return -1;
    }
    atomic_store(&temp_output, tmp);
    capped_t cap = {fopen(o->counted ? tmp : path, "w"), o->counted ? *left : INT64_MAX, 0};
    FILE *f = NULL;
    if (cap.f) {
        f = fopencookie(&cap, "w", (cookie_io_functions_t){NULL, capped_write, NULL, capped_close});
        if (!f)
            fclose(cap.f);
    }
    int ok = f && o->fn(cfg, res, f) == 0;
    int err = errno;
    if (f && fclose(f) != 0)
        ok = 0, err = errno;
    if (ok && tmp && rename(tmp, path) != 0)
        ok = 0, err = errno;
    if (!ok && tmp)
        unlink(tmp);
    atomic_store(&temp_output, NULL);
    free(tmp);
    if (ok) {
        *left = cap.left;
        return 0;
    }
    if (cap.over) {
        char a[64];
        add_message(res,
                    "%s: not written: it passed what was left of output.max_bytes (%s); "
                    "raise it with --set output.max_bytes=BYTES (0: no limit)",
                    path, show_bytes(a, *left));
        return -1;
    }
    add_message(res, "cannot write %s: %s", path, strerror(err));
    return -1;
}

/* The outputs the config asks for, with their estimated sizes; returns how many. */
static int requested(const hm__config_t *cfg, const hm__outcome_t *oc, out_t *outs)
{
    const out_t all[] = {
        {"output.timeline", cfg->out_timeline, w_timeline, 0, 0},
        {"output.events", cfg->out_events, w_events, 0, 0},
        {"output.trace", cfg->out_trace, w_trace, 0, 0},
        {"output.svg", cfg->out_svg, w_svg, 0, 0},
        {"output.otf2", cfg->out_otf2, NULL, 0, 0},
        {"output.html", cfg->out_html, w_html, 0, 0},
    };
    int n = 0;
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) {
        if (!all[i].path)
            continue;
        out_t o = all[i];
        struct stat st;
        o.counted = !o.fn || stat(o.path, &st) != 0 || S_ISREG(st.st_mode);
        o.size = i == 0   ? hm__size_timeline(oc, cfg->out_show)
                 : i == 1 ? hm__size_events(oc)
                 : i == 2 ? hm__size_trace(oc)
                 : i == 3 ? hm__size_svg(oc)
                 : i == 4 ? hm__size_otf2(oc)
                          : hm__size_html(oc);
        outs[n++] = o;
    }
    return n;
}

static int write_outputs(const hm__config_t *cfg, hm__result_t *res)
{
    if (!cfg->opt.record_events || !res->outcome)
        return 0;
    out_t outs[6];
    int n = requested(cfg, res->outcome, outs);
    int64_t total = 0, left = cfg->out_max_bytes ? cfg->out_max_bytes : INT64_MAX;
    for (int i = 0; i < n; i++)
        if (outs[i].counted)
            total = total > INT64_MAX - outs[i].size ? INT64_MAX : total + outs[i].size;
    if (cfg->out_max_bytes && total > cfg->out_max_bytes) {
        over_budget(cfg, res, outs, n, total);
        return -1;
    }
    int rc = 0;
    for (int i = 0; i < n; i++)
        if (outs[i].fn)
            rc |= write_one(cfg, res, &outs[i], &left);
#ifdef HM_HAVE_OTF2
    char err[512];
    if (cfg->out_otf2 && hm__write_otf2(res->outcome, cfg->out_otf2, err, sizeof err) != 0) {
        add_message(res, "cannot write %s: %s", cfg->out_otf2, err);
        rc = -1;
    }
#endif
    return rc;
}

/* Why a run that stopped early is not verified (the summary's "verification"). */
static const char *unverified_because(hm__end_t end)
{
    switch (end) {
    case HM__END_CONFLICT:
        return "port-model violation under strict contention";
    case HM__END_DEADLOCK:
        return "deadlock";
    case HM__END_MAX_SLOTS:
        return "clock.max_slots reached";
    case HM__END_INTERRUPTED:
        return "interrupted";
    case HM__END_RULES:
        return "a node program broke the rules of the node API";
    case HM__END_SLOT_TIMEOUT:
        return "a node did not end its slot within clock.slot_timeout";
    case HM__END_ABORTED:
        return "a node program aborted it";
    default:
        return "system error";
    }
}

/* The run's clock.max_slots (doc/config.md, clock.max_slots): the config's; where it sets none
 * and setup knows the algorithm's exact cost (hm_setup_t.cost: the collectives), twice
 * that cost when it is above the default, so that no run is cut at the default below its
 * own formula, and one slower than its formula still ends and fails verification. */
static int64_t max_slots_for(const hm__config_t *cfg, const hm_setup_t *setup)
{
    int64_t lim = cfg->opt.max_slots;
    if (cfg->max_slots_given || setup->cost < lim / 2)
        return lim;
    return setup->cost > HM__MAX_SLOTS_MAX / 2 ? HM__MAX_SLOTS_MAX : 2 * setup->cost;
}

/* Build the machine, run it, keep its outcome and destroy it. Returns the end cause,
 * or -1 (res->message says why) if there is no outcome. */
static int run_machine(const hm__config_t *cfg, const hm_setup_t *setup, hm__result_t *res)
{
    char err[512] = "";
    hm__machine_t *m = NULL;
    hm__options_t opt = cfg->opt;
    opt.out_size = setup->out_size;
    opt.max_slots = max_slots_for(cfg, setup);
    opt.params = cfg->algo_params;
    if (hm__machine_create(&m, &opt, cfg->algo, setup->state, err, sizeof err) != 0) {
        res->message = strdup(err);
        hm__machine_destroy(m);
        return -1;
    }
    double t0 = seconds_now();
    hm__progress_t *progress = hm__progress_start(m, cfg->progress);
    hm__machine_run(m);
    hm__progress_stop(progress);
    res->wall_seconds = seconds_now() - t0;
    if (hm__outcome_take(m, &res->outcome) != 0)
        res->message = strdup("out of memory merging the node logs");
    res->abandoned = m->abandoned;
    hm__machine_destroy(m);
    if (!res->outcome)
        return -1;
    if (res->outcome->reason)
        res->message = strdup(res->outcome->reason);
    return (int)res->outcome->end;
}

/* A run stopped by clock.max_slots below the exact cost its setup knew (hm_setup_t.cost:
 * the collectives, whose verify reports the same formula): the message names the cost and
 * how to raise the limit. */
static void name_cost(const hm_report_t *r, int64_t cost, int64_t max_slots, hm__result_t *res)
{
    if (cost <= max_slots || r->bound != cost || !res->message)
        return;
    char *m =
        hm__strdup_printf("%s; the algorithm's exact cost is %lld slots (%s): set "
                          "clock.max_slots to %lld or more (--set clock.max_slots=%lld)",
                          res->message, (long long)r->bound, r->bound_expr ? r->bound_expr : "",
                          (long long)r->bound, (long long)r->bound);
    if (m) {
        free(res->message);
        res->message = m;
    }
}

/* Verify the outcome (cli/verdict.c); returns the exit code. */
static int verify(const hm__config_t *cfg, const hm_setup_t *setup, hm__result_t *res)
{
    const hm__outcome_t *o = res->outcome;
    hm_report_t *r = &res->report;
    int64_t max_slots = max_slots_for(cfg, setup);
    int64_t completion = o->stats.last_activity + 1;
    /* A busy period may reach past clock.max_slots; the run did not (issue 10: no
     * completion time beyond the bound it stopped at). */
    if (o->end == HM__END_MAX_SLOTS && completion > max_slots)
        completion = max_slots;
    hm__verdict(cfg, setup, completion, res);
    int rc = hm__exit_code_of(o->end);
    if (r->error && rc == HM_EXIT_OK) {
        free(res->message);
        res->message = hm__strdup_printf("verify: %s", r->error);
        rc = HM_EXIT_SYSTEM;
    }
    if (o->end == HM__END_MAX_SLOTS)
        name_cost(r, setup->cost, max_slots, res);
    if (o->end != HM__END_DONE) {
        r->verified = 0;
        snprintf(r->verification, sizeof r->verification, "not verified: the run stopped (%s)",
                 unverified_because(o->end));
    }
    if (rc == HM_EXIT_OK && !r->verified)
        rc = HM_EXIT_VERIFY;
    return rc;
}

int hm__run_config(const hm__config_t *cfg, hm__result_t *res)
{
    memset(res, 0, sizeof *res);
    const hm_algorithm_t *algo = cfg->algo;
    /* The same setup as --validate's (config.c). */
    hm_setup_t setup;
    int src = hm__config_setup(cfg, &setup, &res->message);
    if (src != HM_EXIT_OK)
        return res->exit_code = src;
    if (run_machine(cfg, &setup, res) < 0) {
        if (algo->teardown)
            algo->teardown(setup.state);
        return res->exit_code = HM_EXIT_SYSTEM;
    }
    res->exit_code = verify(cfg, &setup, res);
    if (write_outputs(cfg, res) != 0 && res->exit_code == HM_EXIT_OK)
        res->exit_code = HM_EXIT_SYSTEM;
    res->summary = hm__summary_build(cfg, res);
    if (!res->summary) {
        free(res->message);
        res->message = strdup("out of memory building the summary");
        res->exit_code = HM_EXIT_SYSTEM;
    }
    /* A node thread left running may still read the state: it stays, reachable from
     * the machine kept with that thread (engine/watchdog.c). */
    if (algo->teardown && !res->abandoned)
        algo->teardown(setup.state);
    res->report.state = NULL;
    return res->exit_code;
}

int hm__write_fd(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t w = write(fd, buf, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (w == 0)
                errno = EIO;
            return -1;
        }
        buf += w;
        len -= (size_t)w;
    }
    return 0;
}

void hm__result_report(const hm__result_t *res)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem)
        return;
    if (res->message)
        fprintf(mem, "hypemu: %s\n", res->message);
    if (res->summary)
        hm__refused_print(mem, res->outcome);
    if (fclose(mem) == 0)
        (void)hm__write_fd(STDERR_FILENO, text, len);
    free(text);
}

void hm__result_free(hm__result_t *res)
{
    hm__outcome_free(res->outcome);
    json_decref(res->report.extra);
    json_decref(res->summary);
    free(res->message);
    memset(res, 0, sizeof *res);
}
