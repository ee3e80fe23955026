/* SPDX-License-Identifier: MIT */
/* Plugins that try to change the verdict through the API (README "What verified means"),
 * one algorithm each, run by tests/check_rules.sh in thread mode: none may verify a run
 * its check did not, or change a figure of hypemu's summary; each fails with its own
 * sentence, and the summary's checked_by says what checked. */
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include <hypemu.h>

/* The header's binomial broadcast of the root's block (root 0 on a hypercube): right. */
static void bcast(hm_node_t *n, void *state)
{
    (void)state;
    size_t k;
    const int64_t *in = hm_input(n, &k);
    hm_packet_t p = {.msg = 1, .value = k ? in[0] : 0};
    int lowest = hm_degree(n);
    if (hm_id(n) != 0) {
        if (hm_wait_packet(n, &p) < 0)
            return;
        lowest = p.port;
    }
    hm_store(n, p.value);
    uint64_t children = (UINT64_C(1) << lowest) - 1;
    if (children)
        hm_shout(n, children, &p);
}

/* verify writes the engine's summary keys into r->extra. */
static void extra_completion(hm_report_t *r)
{
    json_object_set_new(r->extra, "completion_slots", json_integer(1));
}

static void extra_conflicts(hm_report_t *r)
{
    json_object_set_new(r->extra, "conflicts", json_integer(99));
}

static void extra_verified(hm_report_t *r)
{
    json_object_set_new(r->extra, "verified", json_true());
}

/* verify moves the completion time. */
static void raise_completion(hm_report_t *r)
{
    r->completion_slots += 100;
}

static void lower_completion(hm_report_t *r)
{
    r->completion_slots = 0;
}

/* Faster than light: the root publishes its block in slot 0 and stays busy for 3 slots
 * (the lower bound, the diameter), every other node stores the block in slot 1, no packet
 * sent. */
static _Atomic(int64_t) published;

static void early(hm_node_t *n, void *state)
{
    (void)state;
    size_t k;
    const int64_t *in = hm_input(n, &k);
    if (hm_id(n) == 0) {
        atomic_store(&published, in[0]);
        hm_store(n, in[0]);
        hm_busy(n, 3);
        return;
    }
    if (hm_next_slot(n) != HM_OK)
        return;
    hm_store(n, atomic_load(&published));
}

/* What r->priv pointed to: the outcome and the judge's ledger, whose record of the
 * first value outside its cone, and the values counted from other nodes, are cleared. */
struct ledger {
    const void *o;
    int64_t *from_others;
    unsigned char **declared;
    int found;
};
struct priv {
    const void *o;
    struct ledger *causal;
};

static void clear_ledger(hm_report_t *r)
{
    const struct priv *p = r->priv;
    p->causal->found = 0;
    memset(p->causal->from_others, 0, (size_t)r->machine->nodes * sizeof(int64_t));
}

/* No problem: the plugin's own setup and verify, which vouches for nothing done. */
static int own_setup(hm_setup_t *s)
{
    s->state = NULL;
    return 0;
}

static void quiet(hm_node_t *n, void *state)
{
    (void)n;
    (void)state;
}

static void trust_me(hm_report_t *r)
{
    r->verified = 1;
    strcpy(r->verification, "trust me");
}

#define ALGO(id, fn, check)                                                                        \
    static const hm_algorithm_t algo_##id = {.name = "verdict-" #id,                               \
                                             .topologies = HM_BIT(HM_TOPO_HYPERCUBE),              \
                                             .ports = HM_BIT(HM_PORTS_ALL_PORT),                   \
                                             .problem = HM_PROBLEM_BROADCAST,                      \
                                             .node_main = fn,                                      \
                                             .verify = check};
ALGO(honest, bcast, NULL)
ALGO(extra_completion, bcast, extra_completion)
ALGO(extra_conflicts, bcast, extra_conflicts)
ALGO(extra_verified, bcast, extra_verified)
ALGO(raise_completion, bcast, raise_completion)
ALGO(lower_completion, bcast, lower_completion)
ALGO(clear_ledger, early, clear_ledger)
#define NO_PROBLEM(id, check)                                                                      \
    static const hm_algorithm_t algo_##id = {.name = "verdict-" #id,                               \
                                             .topologies = HM_BIT(HM_TOPO_HYPERCUBE),              \
                                             .ports = HM_BIT(HM_PORTS_ALL_PORT),                   \
                                             .setup = own_setup,                                   \
                                             .node_main = quiet,                                   \
                                             .verify = check};
NO_PROBLEM(no_problem, trust_me)
NO_PROBLEM(no_check, NULL)
HM_PLUGIN(&algo_honest, &algo_extra_completion, &algo_extra_conflicts, &algo_extra_verified,
          &algo_raise_completion, &algo_lower_completion, &algo_clear_ledger, &algo_no_problem,
          &algo_no_check);
