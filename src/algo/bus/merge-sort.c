/* SPDX-License-Identifier: MIT */
/*
 * merge-sort — n values sorted into nonincreasing order by k processors sharing one
 * broadcast channel (Dechter-Kleinrock 1981, section 2, "Parallel MERGE-SORT via
 * broadcasting").
 *
 * Machine: the bus topology, processors 0..k-1 (the paper's P_1..P_k) and the output
 * processor k, port model bus.
 *
 * Input: the list (algorithm.values, or n values drawn with the seed) is cut into k
 * consecutive blocks, P_1 first. When k does not divide n the first n mod k
 * processors get one element more (the paper assumes k | n and says the general case
 * is easy); a processor may hold none.
 *
 * Phase 1: every processor sorts its block into a stack, largest on top, with a
 * merge sort that counts its comparisons. The paper measures time in comparisons
 * (section 1.b: "the number of comparisons as the measure of complexity"); with
 * algorithm.compare_slots = c > 0 each comparison is c slots of hm_busy work, and
 * phase 2 starts when the slowest processor is done, at c * C_1 with C_1 the largest
 * count (a synchronous machine: the processors that finish first wait). With c = 0
 * (the default) local work takes no slot, as before.
 *
 * Phase 2: n cycles, each a run of the MAX algorithm over the tops of the stacks, in
 * which each processor, starting with the cycle's initiator and going right (cyclic),
 * has one turn of one slot and broadcasts its top only if no value heard in the cycle
 * dominates it. The last value broadcast in the cycle is the cycle's maximum: the
 * output processor appends it to the merged list and its processor pops it. Who
 * initiates the next cycle (section 2.a, item 2):
 *   a)   the cycle had m > 1 broadcasts: P_{i_{m-1}}, the one before the maximum, which
 *        rebroadcasts a_{i_{m-1}};
 *   b.1) m = 1 and a_{i_1} was not the first element of the first cycle it took part
 *        in: its predecessor in that cycle;
 *   b.2) m = 1 and it was: the same processor if its stack is not empty, else the
 *        first processor to its right that has elements.
 * The first cycle is initiated by P_1 (or the first processor with elements).
 *
 * Every node keeps the paper's stack as a replica built from what it hears: a
 * broadcast pushes (an initiator's rebroadcast is already on top), the end of a
 * cycle pops the maximum, and the next initiator is the processor of the new top, or,
 * when the stack is empty (case b.2), the popped element's processor or the first to
 * its right with elements (everyone counts every processor's pops). In case a the new
 * top is a_{i_{m-1}}; in case b.1 it is the element pushed just before a_{i_1} in its
 * first cycle, and the stack is empty exactly in case b.2. A processor has at most
 * one element on the stack, so it never holds more than k. The output processor logs
 * one line per cycle (the turns, "-" for an empty one, the merged element, the stack
 * and the case), the paper's table in the timeline.
 *
 * turns = async (the closing NOTE: "the order by which processors broadcast in each
 * cycle is not affecting the results. The only important thing is to be able to
 * determine 1) when a cycle ends and 2) who initiates the next cycle"): the initiator
 * still opens the cycle, but the other k - 1 processors take their turns in an order
 * drawn afresh for every cycle (from the seed and the cycle number, so every node
 * derives the same one, as it would observe it on an asynchronous channel). A cycle
 * still ends after k turns and the next initiator follows from the stack: the output
 * is the same sorted list, and Lemmas 1, 2 and Theorem 1 still hold (their proofs use
 * only the stack); only S and the table change.
 *
 * Cost: Theorem 1, n <= S(n, k) <= 2n - 1 broadcasts, initiators' rebroadcasts
 * included. Time in comparisons (the Conclusion, worst case): phase 1 at most
 * (n/k) log2(n/k) comparisons per processor, phase 2 one (parallel) comparison per
 * broadcast, at most 2n - 1: (n/k) log2(n/k) + 2n - 1 = (n log n)/k - (n log k)/k +
 * 2n - 1. The paper prints the second term as (n log k)/n, which does not match its
 * own abstract ((n/k) log(n/k) + 2n - 1); the summary reports both and verify holds
 * the run (C_1 + S, k | n) to the abstract's, the smaller one (doc/bus.md). Every cycle has k
 * turns, so the run takes n*k slots when an empty turn costs a slot (algorithm.silent_slots = 1,
 * the default); with silent_slots = 0 an empty turn is free in the channel time the summary reports
 * (`channel_slots` = S + silent_slots * silent turns), though the emulator still gives it a slot to
 * keep the turn order.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/rng.h"
#include "bus.h"
#include "hypemu.h"

typedef struct msort_state_s {
    int k; /* processors; the output processor is node k */
    int64_t n;
    int silent_slots;
    int compare_slots; /* slots per comparison of phase 1, 0 = local work is free */
    int any_order;     /* turns async: a drawn turn order in every cycle */
    int64_t sort_max;  /* C_1: the most comparisons a processor's phase 1 takes */
    uint64_t seed;
    int64_t *v;     /* the input list */
    int64_t *first; /* first[j]: start of P_(j+1)'s block in v; first[k] = n */
} msort_state_t;

/* The turn orders of phase 2, the only list of them. */
#define MSORT_TURNS_MAP(XX)                                                                        \
    XX(TURNS_CYCLIC, "cyclic")                                                                     \
    XX(TURNS_ASYNC, "async")
enum { MSORT_TURNS_MAP(HM_ENUM_ID) };
static const char *const msort_turns[] = {MSORT_TURNS_MAP(HM_ENUM_NAME) NULL};

static const hm_param_spec_t msort_specs[] = {
    HMA_BUS_SPEC_VALUES("the list, cut into k consecutive blocks", 1, 100000, HM_QTY_NONE,
                        HM_QTY_NONE),
    HMA_BUS_SPEC_N("3k", "without values: a random permutation of 1..n", 1, 100000, HM_QTY_NONE,
                   HM_QTY_NONE, HM_QTY_PROCESSORS_X3),
    HMA_BUS_SPEC_SILENT_SLOTS,
    {.name = "compare_slots",
     .type = HM_PARAM_INT,
     .min = 0,
     .max = 1000,
     .def = 0,
     .help = "slots one comparison of phase 1's local sort takes (0: local work is free)"},
    {.name = "turns",
     .type = HM_PARAM_ENUM,
     .choices = msort_turns,
     .def = TURNS_CYCLIC,
     .help = "cyclic: turns from the initiator rightwards (section 2.a); async: the closing "
             "note's asynchronous version, any order after the initiator"},
    HM_PARAM_END,
};

static void msort_free(void *state)
{
    msort_state_t *st = state;
    if (!st)
        return;
    free(st->v);
    free(st->first);
    free(st);
}

/* Phase 1's sort: top-down merge sort into nonincreasing order, counting the
 * comparisons (at most m log2 m for m elements). tmp holds m values. */
static int64_t sort_count(int64_t *v, int64_t *tmp, int64_t m)
{
    if (m < 2)
        return 0;
    int64_t h = m / 2, c = sort_count(v, tmp, h) + sort_count(v + h, tmp, m - h);
    int64_t i = 0, j = h, o = 0;
    while (i < h && j < m) {
        c++;
        tmp[o++] = v[j] > v[i] ? v[j++] : v[i++];
    }
    while (i < h)
        tmp[o++] = v[i++];
    while (j < m)
        tmp[o++] = v[j++];
    memcpy(v, tmp, (size_t)m * sizeof *v);
    return c;
}

static int msort_setup(hm_setup_t *s)
{
    int k = s->machine->nodes - 1;
    int64_t silent = hm_param_get_int(s, "silent_slots");
    int64_t compare = hm_param_get_int(s, "compare_slots");
    int turns = hm_param_get_enum(s, "turns");
    hma_rng_t rng;
    hma_rng_seed(&rng, s->machine->seed);
    msort_state_t *st = calloc(1, sizeof *st);
    if (!st)
        return -1;
    st->k = k;
    st->silent_slots = (int)silent;
    st->compare_slots = (int)compare;
    st->any_order = turns == TURNS_ASYNC;
    st->seed = s->machine->seed;
    st->first = malloc(((size_t)k + 1) * sizeof *st->first);
    if (!st->first || hma_bus_read_values(s, &rng, &st->v, &st->n)) {
        msort_free(st);
        return -1;
    }
    /* Blocks: n / k each, one more for the first n mod k processors. */
    int64_t q = st->n / k, extra = st->n % k;
    st->first[0] = 0;
    for (int j = 0; j < k; j++)
        st->first[j + 1] = st->first[j] + q + (j < extra);
    /* C_1, so that every node knows when phase 2 starts. */
    int64_t *tmp = malloc(2 * ((size_t)q + 1) * sizeof *tmp);
    if (!tmp) {
        msort_free(st);
        return -1;
    }
    for (int j = 0; j < k; j++) {
        int64_t m = st->first[j + 1] - st->first[j];
        memcpy(tmp, st->v + st->first[j], (size_t)m * sizeof *tmp);
        int64_t c = sort_count(tmp, tmp + q + 1, m);
        if (c > st->sort_max)
            st->sort_max = c;
    }
    free(tmp);
    s->state = st;
    return 0;
}

/* turns = async: the turn order of cycle c, initiator first; order[t] = processor of
 * turn t, pos[j] = turn of processor j. Sync: cyclic from the initiator. */
static void turn_order(const msort_state_t *st, int64_t c, int init, int *order, int *pos)
{
    int k = st->k;
    for (int t = 0; t < k; t++)
        order[t] = (init + t) % k;
    if (st->any_order) {
        hma_rng_t rng;
        hma_rng_seed(&rng, st->seed ^ (UINT64_C(0xd1b54a32d192ed03) * (uint64_t)(c + 1)));
        for (int t = k - 1; t > 1; t--) {
            int u = 1 + (int)hma_rng_below(&rng, (uint64_t)t);
            int x = order[t];
            order[t] = order[u];
            order[u] = x;
        }
    }
    for (int t = 0; t < k; t++)
        pos[order[t]] = t;
}

/* What every node knows about phase 2: the paper's stack and who has elements. */
typedef struct replica_s {
    int k;
    int depth;
    int *proc; /* stack, bottom first: processor and value */
    int64_t *val;
    int64_t *left;   /* left[j]: elements P_(j+1) still holds */
    int init;        /* initiator of the current cycle */
    int rebroadcast; /* its first broadcast repeats the top of the stack */
    int cur;         /* processor of the cycle's last broadcast so far, -1 */
    int64_t curval;
    int bcasts; /* broadcasts in the current cycle */
} replica_t;

static int replica_init(replica_t *r, const msort_state_t *st)
{
    memset(r, 0, sizeof *r);
    r->k = st->k;
    r->proc = malloc((size_t)st->k * sizeof *r->proc);
    r->val = malloc((size_t)st->k * sizeof *r->val);
    r->left = malloc((size_t)st->k * sizeof *r->left);
    if (!r->proc || !r->val || !r->left)
        return -1;
    for (int j = 0; j < st->k; j++)
        r->left[j] = st->first[j + 1] - st->first[j];
    /* Cycle 1: P_1, or the first processor with elements. */
    r->init = 0;
    while (r->left[r->init] == 0)
        r->init++;
    r->rebroadcast = 0;
    r->cur = -1;
    return 0;
}

static void replica_free(replica_t *r)
{
    free(r->proc);
    free(r->val);
    free(r->left);
}

/* Processor q broadcast v in the current cycle. */
static void replica_heard(replica_t *r, int q, int64_t v)
{
    if (!(r->bcasts == 0 && r->rebroadcast)) {
        r->proc[r->depth] = q;
        r->val[r->depth] = v;
        r->depth++;
    }
    r->cur = q;
    r->curval = v;
    r->bcasts++;
}

/* The cycle is over: pop its maximum (the top) and find the next initiator. Returns
 * the case that decided it: 'a', '1' (b.1) or '2' (b.2), or 0 if nobody broadcast
 * (only when a node has left the run, e.g. out of memory). */
static char replica_end_cycle(replica_t *r, int *owner, int64_t *value)
{
    int m = r->bcasts;
    if (m == 0 || r->depth == 0)
        return 0;
    r->depth--;
    *owner = r->proc[r->depth];
    *value = r->val[r->depth];
    r->left[*owner]--;
    char why = m > 1 ? 'a' : r->depth > 0 ? '1' : '2';
    if (r->depth > 0) {
        r->init = r->proc[r->depth - 1];
        r->rebroadcast = 1;
    } else {
        int x = *owner;
        for (int i = 0; i < r->k && r->left[x] == 0; i++)
            x = (x + 1) % r->k;
        r->init = x;
        r->rebroadcast = 0;
    }
    r->cur = -1;
    r->bcasts = 0;
    return why;
}

static int cmp_desc(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x < y) - (x > y);
}

/* A node's view of the current cycle: its replica and, on the output processor, who
 * spoke in which turn (turn_on NULL elsewhere); on a processor, its sorted block mine
 * and the index of its top. */
typedef struct cycle_s {
    replica_t *r;
    int64_t cycle, base; /* the cycle (from 0) and its first slot */
    int64_t *turn_val;
    char *turn_on;
    const int64_t *mine;
    int64_t top, held;
} cycle_t;

/* A broadcast heard in the cycle: into the replica; the output processor also notes
 * who spoke in which turn. */
static void cycle_hear(void *ctx, const hm_packet_t *p)
{
    cycle_t *cy = ctx;
    replica_heard(cy->r, p->from, p->value);
    if (cy->turn_on) {
        int64_t t = p->sent_slot - cy->base;
        if (t >= 0 && t < cy->r->k) {
            cy->turn_on[t] = 1;
            cy->turn_val[t] = p->value;
        }
    }
}

/* A processor's turn: broadcast the top of its stack if it beats what the channel
 * holds, else stay silent. */
static int cycle_speak(void *ctx, hm_node_t *n, hm_packet_t *p)
{
    cycle_t *cy = ctx;
    const replica_t *r = cy->r;
    int me = hm_id(n);
    if (cy->top >= cy->held ||
        (r->cur >= 0 && !hma_bus_beats(cy->mine[cy->top], me, r->curval, r->cur)))
        return 0;
    *p = (hm_packet_t){.msg = (int32_t)(cy->cycle + 1), .origin = me, .value = cy->mine[cy->top]};
    return 1;
}

/* Its broadcast: the stores count S (verify), and it is on the stack. */
static void cycle_spoke(void *ctx, hm_node_t *n, const hm_packet_t *p)
{
    cycle_t *cy = ctx;
    hm_store(n, p->value);
    replica_heard(cy->r, hm_id(n), p->value);
}

/* The output processor's line for one cycle: the paper's table row. */
static void log_cycle(hm_node_t *n, const replica_t *r, int64_t cycle, const int *order,
                      const int64_t *turn_val, const char *turn_on, int owner, int64_t value,
                      char why, int last)
{
    size_t cap = (size_t)r->k * 28 + (size_t)r->depth * 22 + 160, len = 0;
    char *line = malloc(cap);
    if (!line) {
        hm_fail(n, "out of memory");
        return;
    }
    len += (size_t)snprintf(line + len, cap - len, "cycle %lld:", (long long)cycle + 1);
    for (int t = 0; t < r->k; t++) {
        int j = order[t];
        if (turn_on[t])
            len +=
                (size_t)snprintf(line + len, cap - len, " P%d %lld", j + 1, (long long)turn_val[t]);
        else
            len += (size_t)snprintf(line + len, cap - len, " P%d -", j + 1);
    }
    len += (size_t)snprintf(line + len, cap - len, " | merged %lld from P%d | stack",
                            (long long)value, owner + 1);
    if (r->depth == 0)
        len += (size_t)snprintf(line + len, cap - len, " empty");
    for (int i = 0; i < r->depth; i++)
        len += (size_t)snprintf(line + len, cap - len, " %lld", (long long)r->val[i]);
    if (last)
        snprintf(line + len, cap - len, " | done");
    else if (why == 'a')
        snprintf(line + len, cap - len, " | case a: P%d rebroadcasts %lld", r->init + 1,
                 (long long)r->val[r->depth - 1]);
    else if (why == '1')
        snprintf(line + len, cap - len, " | case b.1: P%d rebroadcasts %lld", r->init + 1,
                 (long long)r->val[r->depth - 1]);
    else
        snprintf(line + len, cap - len, " | case b.2: P%d starts", r->init + 1);
    hm_log(n, "%s", line);
    free(line);
}

/* Phase 1 on a processor: its block in mine, sorted largest first (the top of the
 * stack), c slots per comparison. Returns the block's size, or -1 (failed or aborted). */
static int64_t sort_block(hm_node_t *n, const msort_state_t *st, int64_t **mine)
{
    int me = hm_id(n);
    int64_t held = st->first[me + 1] - st->first[me];
    *mine = malloc(2 * ((size_t)held + 1) * sizeof **mine);
    if (!*mine) {
        hm_fail(n, "out of memory");
        return -1;
    }
    memcpy(*mine, st->v + st->first[me], (size_t)held * sizeof **mine);
    int64_t comps = sort_count(*mine, *mine + held + 1, held);
    if (st->compare_slots > 0 && comps > 0) {
        hm_log(n, "phase 1: %lld comparisons", (long long)comps);
        if (hm_busy(n, st->compare_slots * comps) != HM_OK)
            return -1;
    }
    return held;
}

static void msort_node(hm_node_t *n, void *state)
{
    const msort_state_t *st = state;
    int me = hm_id(n), k = st->k, is_output = me == k;
    replica_t r;
    int64_t *mine = NULL;
    int *order = malloc(2 * (size_t)k * sizeof *order), *pos = order ? order + k : NULL;
    cycle_t cy = {.r = &r};
    int64_t t1 = (int64_t)st->compare_slots * st->sort_max;
    if (replica_init(&r, st) != 0 || !order) {
        hm_fail(n, "out of memory");
        goto out;
    }

    /* Phase 1: sort the block; phase 2 starts at t1 = c * C_1 for everyone. */
    if (!is_output) {
        if ((cy.held = sort_block(n, st, &mine)) < 0)
            goto out;
        cy.mine = mine;
        hm_show(n, mine, (size_t)cy.held); /* its sorted block */
    } else {
        cy.turn_val = malloc((size_t)k * sizeof *cy.turn_val);
        cy.turn_on = malloc((size_t)k);
        if (!cy.turn_val || !cy.turn_on) {
            hm_fail(n, "out of memory");
            goto out;
        }
    }

    if (t1 > 0 && hm_now(n) < t1 && hm_wait_until(n, t1) != HM_OK)
        goto out;

    /* Phase 2: n cycles of k turns, each a round on the channel. */
    static const hma_bus_ops_t ops = {
        .before = cycle_hear, .after = cycle_hear, .speak = cycle_speak, .spoke = cycle_spoke};
    for (cy.cycle = 0; cy.cycle < st->n; cy.cycle++) {
        cy.base = t1 + cy.cycle * k;
        turn_order(st, cy.cycle, r.init, order, pos);
        if (cy.turn_on)
            memset(cy.turn_on, 0, (size_t)k);
        hma_bus_round_t round = {is_output ? -1 : cy.base + pos[me], cy.base + k, 0,
                                 st->silent_slots};
        if (hma_bus_round(n, &round, &ops, &cy) != HM_OK)
            goto out;
        int owner;
        int64_t value;
        char why = replica_end_cycle(&r, &owner, &value);
        if (!why)
            goto out;
        if (owner == me) {
            cy.top++;
            hm_show(n, cy.mine + cy.top, (size_t)(cy.held - cy.top)); /* what it has left */
        }
        if (is_output) {
            hm_store(n, value);
            log_cycle(n, &r, cy.cycle, order, cy.turn_val, cy.turn_on, owner, value, why,
                      cy.cycle + 1 == st->n);
        }
    }
out:
    replica_free(&r);
    free(order);
    free(mine);
    free(cy.turn_val);
    free(cy.turn_on);
}

/* The first position where the output processor's list differs from the input in
 * nonincreasing order (n if it is short or long), -1 if none; -2 out of memory. */
static int64_t first_bad(const msort_state_t *st, const int64_t *out, size_t cnt)
{
    int64_t n = st->n, bad = -1;
    int64_t *want = malloc((size_t)n * sizeof *want);
    if (!want)
        return -2;
    memcpy(want, st->v, (size_t)n * sizeof *want);
    qsort(want, (size_t)n, sizeof *want, cmp_desc);
    for (int64_t i = 0; i < n && bad < 0; i++)
        if ((size_t)i >= cnt || out[i] != want[i])
            bad = i;
    if (bad < 0 && cnt != (size_t)n)
        bad = n;
    free(want);
    return bad;
}

/* The summary's own keys (doc/algorithms.md, bus). */
static void msort_extra(hm_report_t *r, const msort_state_t *st, int64_t S, double worst,
                        double printed, const int64_t *out, size_t cnt)
{
    int64_t n = st->n, k = st->k, silent = n * k - S;
    int64_t t1 = (int64_t)st->compare_slots * st->sort_max;
    json_t *x = r->extra;
    json_object_set_new(x, "n", json_integer(n));
    json_object_set_new(x, "cycles", json_integer(n));
    json_object_set_new(x, "broadcasts", json_integer(S));
    json_object_set_new(
        x, "broadcasts_bound",
        json_pack("{s:s, s:I}", "expression", "2n-1", "value", (json_int_t)(2 * n - 1)));
    json_object_set_new(x, "broadcasts_lower",
                        json_pack("{s:s, s:I}", "expression", "n", "value", (json_int_t)n));
    hma_bus_channel_extra(x, S, silent, st->silent_slots);
    json_object_set_new(x, "phases",
                        json_pack("{s:I, s:I}", "sort", (json_int_t)t1, "merge",
                                  (json_int_t)(r->completion_slots - t1)));
    if (st->compare_slots > 0) {
        /* The paper's time measure: comparisons (phase 1 on the slowest processor,
         * then one per broadcast). */
        json_object_set_new(x, "comparisons",
                            json_pack("{s:I, s:I, s:I}", "sort", (json_int_t)st->sort_max, "merge",
                                      (json_int_t)S, "total", (json_int_t)(st->sort_max + S)));
        json_object_set_new(x, "compare_slots", json_integer(st->compare_slots));
        json_object_set_new(
            x, "time_bound",
            json_pack("{s:s, s:f}", "expression", "(n/k)log2(n/k)+2n-1", "value", worst));
        json_object_set_new(x, "time_bound_printed",
                            json_pack("{s:s, s:f}", "expression", "(n log n)/k-(n log k)/n+2n-1",
                                      "value", printed));
    }
    if (cnt <= 4096) {
        json_t *res = json_array();
        for (size_t i = 0; i < cnt; i++)
            json_array_append_new(res, json_integer(out[i]));
        json_object_set_new(x, "result", res);
    }
}

static void msort_verify(hm_report_t *r)
{
    const msort_state_t *st = r->state;
    int k = st->k;
    int64_t n = st->n;
    size_t cnt;
    const int64_t *out = hm_report_stores(r, k, &cnt);
    int64_t bad = first_bad(st, out, cnt);
    if (bad == -2)
        r->error = "out of memory checking the order";
    int64_t S = 0;
    for (int j = 0; j < k; j++) {
        size_t c;
        hm_report_stores(r, j, &c);
        S += (int64_t)c;
    }
    int in_bounds = n <= S && S <= 2 * n - 1;
    /* The Conclusion's worst case in comparisons, as the abstract writes it and as
     * the Conclusion prints it (see the header); held to the first when k | n. */
    int64_t t1 = (int64_t)st->compare_slots * st->sort_max;
    double q = (double)n / k, worst = q * log2(q) + 2.0 * (double)n - 1.0;
    double printed = (double)n * log2((double)n) / k - log2((double)k) + 2.0 * (double)n - 1.0;
    int in_time = st->compare_slots == 0 || n % k != 0 || (double)(st->sort_max + S) <= worst;
    r->verified = bad == -1 && in_bounds && in_time;
    if (bad == -1) /* every place of the sorted list depends on every value */
        hm_report_from(r, k, 0, (size_t)n, HM_FROM_ALL);
    if (bad == -2)
        snprintf(r->verification, sizeof r->verification, "out of memory in verify");
    else if (bad >= 0)
        snprintf(r->verification, sizeof r->verification,
                 "the output processor's list is not the input in nonincreasing order "
                 "(first difference at position %lld)",
                 (long long)bad + 1);
    else if (!in_time)
        snprintf(r->verification, sizeof r->verification,
                 "%lld + %lld comparisons, above the worst case (n/k)log2(n/k)+2n-1 = %.2f",
                 (long long)st->sort_max, (long long)S, worst);
    else
        snprintf(r->verification, sizeof r->verification,
                 "the output processor holds the %lld values in nonincreasing order; "
                 "S(n,k) = %lld broadcasts, %s n <= S <= 2n-1 = %lld",
                 (long long)n, (long long)S, in_bounds ? "within" : "OUTSIDE",
                 (long long)(2 * n - 1));
    /* Every cycle has k turns; with compare_slots, phase 1 comes first. */
    r->bound_expr = st->compare_slots ? "compare_slots*C_1+n*k" : "n*k";
    r->bound = t1 + n * k;
    r->lower_expr = "n";
    r->lower = n;
    msort_extra(r, st, S, worst, printed, out, cnt);
}

const hm_algorithm_t hm_algo_merge_sort = {
    .name = "merge-sort",
    .description = "n values sorted on a broadcast channel; output processor k stores them",
    .paper = "Dechter-Kleinrock 1981, section 2 (MERGE-SORT, Theorem 1)",
    .topologies = HM_BIT(HM_TOPO_BUS),
    .ports = HM_BIT(HM_PORTS_BUS),
    .default_ports = HM_PORTS_BUS,
    .specs = msort_specs,
    .needs = {.routing = HM_BIT(HM_ROUTING_PACKET)},
    .problem = HM_PROBLEM_SORT,
    .setup = msort_setup,
    .node_main = msort_node,
    .verify = msort_verify,
    .teardown = msort_free,
};
