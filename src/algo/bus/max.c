/* SPDX-License-Identifier: MIT */
/*
 * max — the maximum of k values held one per processor, by broadcasting on one
 * channel (Dechter-Kleinrock 1981, section 1, "MAX algorithm via broadcasting").
 *
 * Machine: the bus topology, processors 0..k-1 (the paper's P_1..P_k) and the output
 * processor k, port model bus (one transmitter per slot, heard by every other node).
 *
 * Steps (schedule "tdma", the paper's):
 *   Turn j, in slot j, belongs to processor j (left to right, P_1 first).
 *   Every processor listens to the values broadcast before its turn and compares each
 *   with its own while no value heard so far dominates it; in its turn it broadcasts
 *   its value only if none did, and stays silent otherwise.
 *   The broadcast values increase, so the last one is the maximum: the output
 *   processor, which hears everything, stores it after turn k - 1.
 *
 * Cost: k turns. A silent turn takes algorithm.silent_slots slots (0 or 1). With 1
 * (default) the silent processor keeps the channel for an empty slot (shown busy in
 * the timeline) and the run takes exactly k slots. With 0 an empty turn is the
 * paper's negligible empty slot: it is still given an engine slot, so that the turn
 * order is kept, but it counts for nothing in `channel_slots` = broadcasts +
 * silent_slots * silent turns, the channel time the summary reports; completion_slots
 * then ends with the last real broadcast.
 *
 * Comparisons (section 1.b): a broadcast counts as one (parallel) comparison when at
 * least one processor still in the race (its turn to come, not yet dominated)
 * compares its value with it. The mean over random orders obeys the paper's
 * recurrence T(k) = 1 + (1/k) sum_{i=0}^{k-1} T(i) with T(0) = T(1) = 0, whose exact
 * solution is T(k) = H_k - 1/2 for k >= 2 (H_k the harmonic number; subtract the
 * recurrence for k - 1 from the one for k: T(k) = T(k-1) + 1/k for k >= 3, T(2) = 1),
 * below the paper's bound log2 k. Real broadcasts are the left-to-right maxima,
 * H_k on average.
 *
 * Trials: algorithm.trials = T runs T independent instances, instance 0 on the given
 * (or drawn) values and each further one on a seeded permutation of them. They share
 * the TDMA turns: in its turn processor j sends one packet carrying its value for
 * every instance in which it is not dominated (an empty turn if there is none), so
 * the channel still carries one transmitter per slot, and every count (broadcasts,
 * silent turns, comparisons) is kept per instance. The summary gives their totals
 * and means next to the exact T(k).
 *
 * Schedule "none" drops the turn order: every processor transmits its value in slot
 * 0, leaving the k transmitters to the port model. Under contention "strict" that is
 * the collision report (exit 1); under "queue" the bus serialises them, k broadcasts
 * in k slots, and the output processor still stores the maximum.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/rng.h"
#include "bus.h"
#include "hypemu.h"

#define MAX_SCHEDULE_MAP(XX)                                                                       \
    XX(TDMA, "tdma")                                                                               \
    XX(NONE, "none")

enum { MAX_SCHEDULE_MAP(HM_ENUM_ID) };
static const char *const max_schedules[] = {MAX_SCHEDULE_MAP(HM_ENUM_NAME) NULL};

/* What each processor saw, in its output area (hm_out; setup sizes it: two int32_t per
 * instance), read back by verify: rec[2t] is 1 + the slot in which it spoke in
 * instance t (0: silent), rec[2t + 1] is 1 + the send slot of the last broadcast of
 * instance t that it compared with its value (0: none). A processor compares every
 * broadcast it hears from the start until one dominates it, so the broadcasts compared
 * by somebody are those sent up to the latest of these slots. */
#define REC_SPOKE(rec, t) ((rec)[2 * (t)])
#define REC_COMPARED(rec, t) ((rec)[2 * (t) + 1])

typedef struct max_state_s {
    int k;            /* processors; the output processor is node k */
    int64_t trials;   /* instances */
    int silent_slots; /* 0 or 1 */
    int schedule;
    int64_t *v; /* v[t * k + j]: processor j's value in instance t */
} max_state_t;

/* One instance's entry in a packet's payload (trials > 1). */
typedef struct max_entry_s {
    int64_t trial;
    int64_t value;
} max_entry_t;

static const hm_param_spec_t max_specs[] = {
    HMA_BUS_SPEC_VALUES("the processors' values, P_1 first", 0, 0, HM_QTY_PROCESSORS,
                        HM_QTY_PROCESSORS),
    HMA_BUS_SPEC_N("k", "without values: a random permutation of 1..n (seeded)", 0, 0,
                   HM_QTY_PROCESSORS, HM_QTY_PROCESSORS, HM_QTY_PROCESSORS),
    {.name = "trials",
     .type = HM_PARAM_INT,
     .min = 1,
     .max = 100000,
     .def = 1,
     .help = "independent instances (seeded permutations)"},
    HMA_BUS_SPEC_SILENT_SLOTS,
    {.name = "schedule",
     .type = HM_PARAM_ENUM,
     .choices = max_schedules,
     .def = TDMA,
     .help = "tdma: the paper's turns; none: everyone at once (collides)"},
    HM_PARAM_END,
};

static void max_free(void *state)
{
    max_state_t *st = state;
    if (!st)
        return;
    free(st->v);
    free(st);
}

static int max_setup(hm_setup_t *s)
{
    int k = s->machine->nodes - 1;
    int64_t trials = hm_param_get_int(s, "trials"), silent = hm_param_get_int(s, "silent_slots");
    int64_t n;
    hma_rng_t rng;
    hma_rng_seed(&rng, s->machine->seed);
    int64_t *first;
    if (hma_bus_read_values(s, &rng, &first, &n))
        return -1;
    max_state_t *st = calloc(1, sizeof *st);
    if (!st) {
        free(first);
        return -1;
    }
    st->k = k;
    st->trials = trials;
    st->silent_slots = (int)silent;
    st->schedule = hm_param_get_enum(s, "schedule");
    st->v = malloc((size_t)(trials * k) * sizeof *st->v);
    if (!st->v) {
        free(first);
        max_free(st);
        return -1;
    }
    for (int64_t t = 0; t < trials; t++) {
        memcpy(st->v + t * k, first, (size_t)k * sizeof *first);
        if (t > 0)
            hma_bus_shuffle(&rng, st->v + t * k, k);
    }
    free(first);
    s->state = st;
    s->out_size = (size_t)trials * 2 * sizeof(int32_t);
    return 0;
}

/* A node's part in the round. A processor: in_race[t], no broadcast of instance t so
 * far dominates its value, and e, the payload of its broadcast (trials > 1). The
 * output processor: best[t], the best value of instance t heard, and from[t], its
 * processor (-1: none yet). */
typedef struct max_node_s {
    hm_node_t *n;
    const max_state_t *st;
    char *in_race;
    max_entry_t *e;
    int64_t *best;
    int *from;
} max_node_t;

/* Hand every (instance, value) entry of broadcast p to each: the value field for one
 * instance, the payload for several. */
static void for_entries(max_node_t *c, const hm_packet_t *p,
                        void (*each)(max_node_t *, const hm_packet_t *, int64_t, int64_t))
{
    if (c->st->trials == 1) {
        each(c, p, 0, p->value);
        return;
    }
    for (size_t i = 0; i < p->len / sizeof(max_entry_t); i++) {
        max_entry_t e;
        memcpy(&e, (const unsigned char *)p->data + i * sizeof e, sizeof e);
        each(c, p, e.trial, e.value);
    }
}

/* Broadcast p carries value v of instance t: compare while still in the race. */
static void compare(max_node_t *c, const hm_packet_t *p, int64_t t, int64_t v)
{
    int me = hm_id(c->n);
    if (!c->in_race[t])
        return;
    REC_COMPARED((int32_t *)hm_out(c->n), t) = (int32_t)p->sent_slot + 1;
    if (!hma_bus_beats(c->st->v[t * c->st->k + me], me, v, p->from))
        c->in_race[t] = 0;
}

/* The output processor keeps the best value of each instance. */
static void keep_best(max_node_t *c, const hm_packet_t *p, int64_t t, int64_t v)
{
    if (c->from[t] < 0 || hma_bus_beats(v, p->from, c->best[t], c->from[t])) {
        c->best[t] = v;
        c->from[t] = p->from;
    }
}

static void proc_hear(void *ctx, const hm_packet_t *p)
{
    for_entries(ctx, p, compare);
}

static void output_hear(void *ctx, const hm_packet_t *p)
{
    max_node_t *c = ctx;
    for_entries(c, p, keep_best);
    hm_show(c->n, c->best, 1); /* the running maximum (of instance 0) */
}

/* The turn: broadcast this processor's value in every instance where it is still in
 * the race (under schedule none: in all); returns the number of instances it speaks
 * in, 0 for a silent turn. */
static int proc_speak(void *ctx, hm_node_t *n, hm_packet_t *p)
{
    max_node_t *c = ctx;
    const max_state_t *st = c->st;
    int me = hm_id(n);
    int64_t count = 0;
    *p = (hm_packet_t){.msg = me + 1, .origin = me};
    for (int64_t t = 0; t < st->trials; t++) {
        if (!c->in_race[t] && st->schedule != NONE)
            continue;
        int64_t v = st->v[t * st->k + me];
        if (count == 0)
            p->value = v;
        if (c->e)
            c->e[count] = (max_entry_t){t, v};
        count++;
        REC_SPOKE((int32_t *)hm_out(n), t) = (int32_t)hm_now(n) + 1;
    }
    if (count == 0)
        return 0;
    p->aux = (int32_t)(count < INT32_MAX ? count : INT32_MAX);
    if (c->e) {
        p->data = c->e;
        p->len = (uint32_t)((size_t)count * sizeof *c->e);
    }
    if (st->trials == 1)
        hm_log(n, "P%d broadcasts %lld", me + 1, (long long)p->value);
    return 1;
}

/* The round of turns on the channel: under tdma turn j in slot j, until slot k; under
 * none everyone's turn in slot 0, then the k - 1 other broadcasts (all k for the output
 * processor, which has no turn). */
static hma_bus_round_t max_round(const max_state_t *st, int turn)
{
    if (st->schedule == TDMA)
        return (hma_bus_round_t){turn, st->k, 0, st->silent_slots};
    return (hma_bus_round_t){turn < 0 ? -1 : 0, -1, turn < 0 ? st->k : st->k - 1, st->silent_slots};
}

/* A processor: listen until its turn, speak or stay silent, then drain the channel
 * until the last turn so that its mailboxes never fill. */
static void processor(hm_node_t *n, const max_state_t *st)
{
    max_node_t c = {.n = n, .st = st, .in_race = malloc((size_t)st->trials)};
    hm_show(n, st->v + hm_id(n), 1); /* its value (of instance 0) */
    if (st->trials > 1)
        c.e = malloc((size_t)st->trials * sizeof *c.e);
    if (c.in_race && (st->trials == 1 || c.e)) {
        memset(c.in_race, 1, (size_t)st->trials);
        static const hma_bus_ops_t ops = {.before = proc_hear, .speak = proc_speak};
        hma_bus_round_t round = max_round(st, hm_id(n));
        hma_bus_round(n, &round, &ops, &c);
    } else {
        hm_fail(n, "out of memory");
    }
    free(c.in_race);
    free(c.e);
}

/* The output processor: hears every broadcast and keeps the best value of each
 * instance; under the turn order that is simply the last one. */
static void output(hm_node_t *n, const max_state_t *st)
{
    max_node_t c = {.n = n,
                    .st = st,
                    .best = malloc((size_t)st->trials * sizeof *c.best),
                    .from = malloc((size_t)st->trials * sizeof *c.from)};
    if (c.best && c.from) {
        for (int64_t t = 0; t < st->trials; t++)
            c.from[t] = -1;
        static const hma_bus_ops_t ops = {.after = output_hear};
        hma_bus_round_t round = max_round(st, -1);
        if (hma_bus_round(n, &round, &ops, &c) != HM_EABORT)
            for (int64_t t = 0; t < st->trials; t++)
                if (c.from[t] >= 0)
                    hm_store(n, c.best[t]);
    } else {
        hm_fail(n, "out of memory");
    }
    free(c.best);
    free(c.from);
}

static void max_node(hm_node_t *n, void *state)
{
    const max_state_t *st = state;
    if (hm_id(n) == st->k)
        output(n, st);
    else
        processor(n, st);
}

/* The exact mean number of comparisons: the paper's recurrence, step by step. */
static double expected_comparisons(int k)
{
    double sum = 0, tk = 0; /* sum = T(0) + ... + T(i-1) */
    for (int i = 0; i <= k; i++) {
        tk = i < 2 ? 0 : 1 + sum / i;
        sum += tk;
    }
    return tk;
}

/* What the processors' records say: broadcasts, comparisons (one per broadcast of an
 * instance that somebody still in the race compared), and the slot in which each
 * processor spoke in instance 0 (-1: silent). */
static void count_records(const hm_report_t *r, const max_state_t *st, int64_t *broadcasts,
                          int64_t *comparisons, int64_t *slot_of)
{
    int k = st->k;
    *broadcasts = *comparisons = 0;
    for (int64_t t = 0; t < st->trials; t++) {
        int64_t last = 0; /* 1 + the latest send slot compared in instance t */
        for (int j = 0; j < k; j++) {
            const int32_t *rec = hm_report_out(r, j);
            if (REC_COMPARED(rec, t) > last)
                last = REC_COMPARED(rec, t);
        }
        for (int j = 0; j < k; j++) {
            const int32_t *rec = hm_report_out(r, j);
            int64_t spoke = REC_SPOKE(rec, t);
            if (t == 0)
                slot_of[j] = spoke - 1;
            *broadcasts += spoke > 0;
            *comparisons += spoke > 0 && spoke <= last;
        }
    }
}

/* Instance 0's speakers in the order they spoke (slot order = turn order under tdma;
 * under none they all sent in slot 0, listed by node), as arrays and as "P1 P3". */
static void list_speakers(const max_state_t *st, const int64_t *slot_of, json_t *speakers,
                          json_t *said, char *order, size_t len)
{
    order[0] = 0;
    for (int s = 0; s < st->k + 1; s++)
        for (int j = 0; j < st->k; j++)
            if (slot_of[j] == s) {
                json_array_append_new(speakers, json_integer(j));
                json_array_append_new(said, json_integer(st->v[j]));
                size_t used = strlen(order);
                snprintf(order + used, len - used, "%sP%d", used ? " " : "", j + 1);
            }
}

/* The first instance whose maximum the output processor did not store, or -1. */
static int64_t first_wrong(const hm_report_t *r, const max_state_t *st)
{
    int k = st->k;
    size_t cnt;
    const int64_t *out = hm_report_stores(r, k, &cnt);
    for (int64_t t = 0; t < st->trials; t++) {
        int best = 0;
        for (int j = 1; j < k; j++)
            if (hma_bus_beats(st->v[t * k + j], j, st->v[t * k + best], best))
                best = j;
        if ((size_t)t >= cnt || out[t] != st->v[t * k + best])
            return t;
    }
    return cnt != (size_t)st->trials ? st->trials : -1;
}

static void max_extra(hm_report_t *r, const max_state_t *st, int64_t broadcasts,
                      int64_t comparisons, int64_t silent)
{
    int64_t T = st->trials;
    json_t *x = r->extra;
    json_object_set_new(x, "trials", json_integer(T));
    json_object_set_new(x, "broadcasts", json_integer(broadcasts));
    hma_bus_channel_extra(x, broadcasts, silent, st->silent_slots);
    json_object_set_new(x, "comparisons", json_integer(comparisons));
    json_object_set_new(x, "mean_broadcasts", json_real((double)broadcasts / (double)T));
    json_object_set_new(x, "mean_comparisons", json_real((double)comparisons / (double)T));
    json_object_set_new(x, "expected_comparisons",
                        json_pack("{s:s, s:f}", "expression",
                                  "T(k)=1+(1/k)sum_{i<k}T(i), T(0)=T(1)=0; = H_k-1/2", "value",
                                  expected_comparisons(st->k)));
    json_object_set_new(x, "comparisons_bound",
                        json_pack("{s:s, s:f}", "expression", "log2(k)", "value", log2(st->k)));
}

static void max_verify(hm_report_t *r)
{
    const max_state_t *st = r->state;
    int k = st->k;
    int64_t T = st->trials;
    size_t cnt;
    const int64_t *out = hm_report_stores(r, k, &cnt);
    int64_t wrong = first_wrong(r, st);
    int64_t broadcasts = 0, comparisons = 0;
    int64_t *slot_of = malloc((size_t)k * sizeof *slot_of);
    json_t *speakers = json_array(), *said = json_array();
    char order[512] = "";
    if (!slot_of) {
        r->error = "out of memory counting the comparisons";
    } else {
        count_records(r, st, &broadcasts, &comparisons, slot_of);
        list_speakers(st, slot_of, speakers, said, order, sizeof order);
    }
    free(slot_of);
    int64_t silent = st->schedule == TDMA ? T * k - broadcasts : 0;

    r->verified = wrong < 0;
    if (wrong < 0) /* each instance's maximum depends on every processor's value */
        hm_report_from(r, k, 0, (size_t)T, HM_FROM_ALL);
    if (wrong >= 0)
        snprintf(r->verification, sizeof r->verification,
                 "the output processor did not store the maximum of instance %lld",
                 (long long)wrong);
    else if (T == 1)
        snprintf(r->verification, sizeof r->verification,
                 "the output processor stored the maximum %lld; %lld real broadcasts (%s), "
                 "%lld silent turns",
                 (long long)out[0], (long long)broadcasts, order, (long long)silent);
    else
        snprintf(r->verification, sizeof r->verification,
                 "the output processor stored the maximum of each of the %lld instances",
                 (long long)T);
    r->bound_expr = "k";
    r->bound = k;
    /* Each maximum depends on every processor, all one link from the output processor
     * (silence says something too): no run is shorter than the bus's diameter. */
    r->lower_expr = "diameter";
    r->lower = 1;
    max_extra(r, st, broadcasts, comparisons, silent);
    if (T == 1 && wrong < 0)
        json_object_set_new(r->extra, "result", json_integer(out[0]));
    if (T == 1) {
        json_object_set_new(r->extra, "speakers", speakers);
        json_object_set_new(r->extra, "broadcast_values", said);
    } else {
        json_decref(speakers);
        json_decref(said);
    }
}

const hm_algorithm_t hm_algo_max = {
    .name = "max",
    .description = "maximum of k values on a broadcast channel; output processor k stores it",
    .paper = "Dechter-Kleinrock 1981, section 1 (MAX algorithm, recurrence (1))",
    .topologies = HM_BIT(HM_TOPO_BUS),
    .ports = HM_BIT(HM_PORTS_BUS),
    .default_ports = HM_PORTS_BUS,
    .specs = max_specs,
    .needs = {.routing = HM_BIT(HM_ROUTING_PACKET)},
    .problem = HM_PROBLEM_MAX,
    .setup = max_setup,
    .node_main = max_node,
    .verify = max_verify,
    .teardown = max_free,
};
