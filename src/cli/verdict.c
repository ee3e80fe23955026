/* SPDX-License-Identifier: MIT */
/*
 * verdict.c — whether a run is verified (README "What verified means"), one rule for
 * every run:
 *
 *   - hypemu's own check decides: a built-in algorithm's verify, or the problem's check of
 *     a plugin that declares one, run on a state of the problem made for it alone
 *     (hm__plugin_check_state) and on the outcome, which no pointer a plugin gets
 *     leads to;
 *   - a plugin's own verify runs after it, on copies of the report and of the outcome
 *     (hm__outcome_copy), and may only add a failure: its summary keys never replace the
 *     engine's, and a completion_slots it changes is a failure;
 *   - completion_slots is set after both, for a plugin never below the slot of the last
 *     store the check vouched for; then the light cone, the volume delivered and the
 *     lower bound are judged on the engine's own ledger (engine/causal.c).
 *
 * The summary's "checked_by" names what checked: the problem, a built-in algorithm that
 * declares none, "plugin" (the plugin's own verify alone) or "none", which is not
 * verified; where plugins are not trusted (hm__config_t.plugin_verify_uncounted)
 * "plugin" counts as "none".
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "plugin.h"
#include "run.h"

typedef void (*check_fn)(hm_report_t *r);

/* A failure, unless r failed already: the first reason stands. */
static void fail(hm_report_t *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(hm_report_t *r, const char *fmt, ...)
{
    if (!r->verified)
        return;
    r->verified = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->verification, sizeof r->verification, fmt, ap);
    va_end(ap);
}

static void call(const hm_algorithm_t *a, check_fn fn, hm_report_t *r)
{
    hm__crash_context(a, "verify");
    fn(r);
    hm__crash_context(NULL, NULL);
}

/* What the plugin's own verify left in pr joins r: its error, the bounds r lacks, its
 * verdict (the only one when nothing checked before it, else a failure added), its keys
 * that are neither the engine's (a failure) nor r's already. */
static void take_own(hm_report_t *r, const hm_report_t *pr, int checked, const hm__outcome_t *o)
{
    int len = (int)sizeof pr->verification - 1;
    if (pr->error)
        r->error = pr->error;
    if (r->bound < 0 && pr->bound >= 0) {
        r->bound = pr->bound;
        r->bound_expr = pr->bound_expr;
    }
    if (r->lower < 0 && pr->lower >= 0) {
        r->lower = pr->lower;
        r->lower_expr = pr->lower_expr;
    }
    if (!checked) {
        r->verified = pr->verified != 0;
        snprintf(r->verification, sizeof r->verification, "%.*s", len, pr->verification);
    } else if (!pr->verified) {
        fail(r, "%.*s", len, pr->verification);
    }
    if (pr->completion_slots != r->completion_slots)
        fail(r,
             "verify changed completion_slots from %lld to %lld: the run's time is hypemu's "
             "figure, not verify's",
             (long long)r->completion_slots, (long long)pr->completion_slots);
    const char *k;
    json_t *v;
    json_object_foreach(pr->extra, k, v) {
        if (hm__summary_own_key(o, k))
            fail(r,
                 "verify set \"%s\" in r->extra, a key of hypemu's own summary: an "
                 "algorithm's keys never replace the engine's",
                 k);
        else if (!json_object_get(r->extra, k))
            json_object_set(r->extra, k, v);
    }
}

/* What the ledger judges besides the light cone of distances and the volume: the causal
 * past, except where silence carries information (the bus's max and sort), and the words
 * carried where the config recorded them (cli/config.c). */
static void judged(const hm__config_t *cfg, hm__causal_t *c)
{
    hm_problem_t k = cfg->algo->problem;
    hm__causal_rules(c, k != HM_PROBLEM_MAX && k != HM_PROBLEM_SORT, cfg->opt.record_words);
}

/* The plugin's own verify, on copies: the report, the outcome and a ledger of its own,
 * judged after it (its declarations may only add a failure). */
static void own_verify(const hm__config_t *cfg, check_fn own, hm_report_t *r, int checked,
                       const hm__outcome_t *o, void *state)
{
    const hm_algorithm_t *a = cfg->algo;
    hm__outcome_t *copy = hm__outcome_copy(o);
    hm__report_priv_t pp = {copy, copy ? hm__causal_new(copy) : NULL};
    if (pp.causal)
        judged(cfg, pp.causal);
    json_t *extra = json_object();
    if (!pp.causal || !extra) {
        r->error = "out of memory copying the run for the plugin's verify";
    } else {
        hm_report_t pr = *r;
        pr.machine = &copy->info;
        pr.state = state;
        pr.extra = extra;
        pr.priv = &pp;
        call(a, own, &pr);
        char why[sizeof r->verification];
        int rc = hm__causal_judge(pp.causal, why, sizeof why);
        take_own(r, &pr, checked, o);
        if (rc < 0)
            r->error = "out of memory checking the light cone";
        else if (rc > 0 && pr.verified)
            fail(r, "%s", why);
    }
    json_decref(extra);
    hm__causal_free(pp.causal);
    hm__outcome_free(copy);
}

/* What no verify can vouch for: a value stored before its source's light cone reached
 * the node, more values from other nodes than were delivered, a completion below the
 * run's proven lower bound. On a run found right. */
static void judge(hm_report_t *r, const hm__causal_t *causal)
{
    char why[sizeof r->verification];
    int rc = hm__causal_judge(causal, why, sizeof why);
    if (rc < 0) {
        r->error = "out of memory checking the light cone";
        return;
    }
    if (rc > 0) {
        fail(r, "%s", why);
        return;
    }
    if (r->lower >= 0 && r->completion_slots < r->lower)
        fail(r,
             "%lld slots, below the lower bound %s = %lld that holds under this model: the "
             "results cannot all have come through the network",
             (long long)r->completion_slots, r->lower_expr ? r->lower_expr : "",
             (long long)r->lower);
}

/* The summary's "checked_by"; "none" leaves the run unverified. */
static const char *checked_by(const hm__config_t *cfg, check_fn check, check_fn own, hm_report_t *r)
{
    const hm_algorithm_t *a = cfg->algo;
    if (check)
        return a->problem != HM_PROBLEM_NONE ? hm_problem_name(a->problem) : a->name;
    if (own && !cfg->plugin_verify_uncounted)
        return "plugin";
    r->verified = 0;
    snprintf(r->verification, sizeof r->verification, "%s",
             own ? "nothing checked this run: a plugin's own verify alone is its author's word "
                   "here"
                 : "nothing checked this run");
    return own ? "plugin" : "none";
}

/* The checks proper, on a report ready for them. */
static void check_run(const hm__config_t *cfg, const hm_setup_t *setup, hm__result_t *res,
                      const hm__report_priv_t *priv)
{
    hm_report_t *r = &res->report;
    check_fn check, own;
    hm__plugin_checks(cfg->algo, &check, &own);
    if (check)
        call(cfg->algo, check, r);
    if (own && !r->error)
        own_verify(cfg, own, r, check != NULL, priv->o, setup->state);
    res->checked_by = checked_by(cfg, check, own, r);
    /* A plugin's run ends no sooner than its last checked store; a built-in algorithm's
     * figure is its own (a turn of the bus that costs nothing, a schedule's last round). */
    int64_t last = hm__plugin_file(cfg->algo) ? hm__causal_last_slot(priv->causal) : -1;
    if (last > r->completion_slots)
        r->completion_slots = last;
    /* A plugin's problem gives a lower bound on every machine (hma_prob_lower_any); the
     * judge's, the light cone of the farthest value the check vouched for, where it is
     * larger. */
    int64_t cone = hm__plugin_file(cfg->algo) && check && !r->error
                       ? hm__causal_first_possible(priv->causal)
                       : -1;
    if (cone > r->lower) {
        r->lower = cone;
        r->lower_expr = priv->o->info.circuit ? "the shortest circuit" : "light cone";
    }
    if (!r->error && r->verified && priv->o->end == HM__END_DONE)
        judge(r, priv->causal);
}

void hm__verdict(const hm__config_t *cfg, const hm_setup_t *setup, int64_t completion,
                 hm__result_t *res)
{
    const hm__outcome_t *o = res->outcome;
    hm_report_t *r = &res->report;
    int failed;
    void *check_state = hm__plugin_check_state(cfg->algo, setup, &failed);
    hm__report_priv_t priv = {o, hm__causal_new(o)};
    if (priv.causal)
        judged(cfg, priv.causal);
    r->machine = &o->info;
    r->state = check_state ? check_state : setup->state;
    r->completion_slots = completion;
    r->bound = r->lower = -1;
    r->extra = json_object();
    r->priv = &priv;
    if (!priv.causal || !r->extra)
        r->error = "out of memory checking the light cone";
    else if (failed)
        r->error = "out of memory setting up the problem's check";
    else
        check_run(cfg, setup, res, &priv);
    hm__causal_free(priv.causal);
    hm__plugin_check_state_free(check_state);
    r->priv = NULL;
    r->state = setup->state;
}
