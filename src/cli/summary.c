/* SPDX-License-Identifier: MIT */
/*
 * summary.c — the run summary of README "Outputs", as one JSON object (--json) or as
 * readable lines. The keys come in the order of README "Outputs"; algorithm-specific keys follow.
 */
#include <stdlib.h>
#include <string.h>

#include "out/writers.h"
#include "run.h"

/* A JSON string of text that a node program or a plugin may have written (hm_fail's
 * reason, a verification): a byte that is not part of valid UTF-8 becomes '?', so that
 * such text never costs the summary. */
static json_t *text(const char *s)
{
    size_t n = strlen(s);
    char *t = malloc(n + 1);
    if (!t)
        return NULL;
    for (size_t i = 0; i < n;) {
        int k = hm__utf8_len((const unsigned char *)s + i);
        if (k == 0) {
            t[i++] = '?';
            continue;
        }
        memcpy(t + i, s + i, (size_t)k);
        i += (size_t)k;
    }
    t[n] = 0;
    json_t *j = json_string(t);
    free(t);
    return j;
}

static json_t *bound_obj(const char *expr, int64_t value)
{
    if (!expr || value < 0)
        return json_null();
    return json_pack("{s:s, s:I}", "expression", expr, "value", (json_int_t)value);
}

/* The keys hm__summary_build sets itself (and "ranks", hypemu-mpi's), in any run. */
static const char *const own_keys[] = {
    "topology",          "nodes",        "ports",
    "algorithm",         "variant",      "problem",
    "completion_slots",  "bound",        "lower_bound",
    "transmissions",     "conflicts",    "refused_calls",
    "delayed_packets",   "delay_slots",  "stalls",
    "max_mailbox_depth", "slots_run",    "routed_hops",
    "verified",          "verification", "checked_by",
    "exit_code",         "end",          "stopped",
    "wall_seconds",      "ranks",
};

int hm__summary_own_key(const hm__outcome_t *o, const char *key)
{
    if (o && o->transport_key && strcmp(key, o->transport_key) == 0)
        return 1;
    for (size_t i = 0; i < sizeof own_keys / sizeof *own_keys; i++)
        if (strcmp(key, own_keys[i]) == 0)
            return 1;
    return 0;
}

json_t *hm__summary_build(const hm__config_t *cfg, const hm__result_t *res)
{
    const hm_machine_info_t *in = &cfg->opt.info;
    const hm_report_t *r = &res->report;
    const hm__stats_t *st = &res->outcome->stats;
    json_t *o = json_object();
    int bad = !o; /* any failed allocation: the summary is dropped (exit 4) */
#define SET(key, value) (bad |= json_object_set_new(o, key, value) != 0)
    json_t *variant = json_object_get(cfg->algo_params, "variant");
    SET("topology", json_string(hm_topology_name(in->topology)));
    SET("nodes", json_integer(in->nodes));
    SET("ports", json_string(hm_ports_name(in->ports)));
    SET("algorithm", json_string(cfg->algo->name));
    if (json_is_string(variant)) /* the typed spec's default is filled in by the loader */
        SET("variant", json_incref(variant));
    /* What it solves, from the descriptor (doc/collectives.md): every algorithm that
     * declares a problem. */
    if (cfg->algo->problem != HM_PROBLEM_NONE)
        SET("problem", json_string(hm_problem_name(cfg->algo->problem)));
    SET("completion_slots", json_integer(r->completion_slots));
    SET("bound", bound_obj(r->bound_expr, r->bound));
    SET("lower_bound", bound_obj(r->lower_expr, r->lower));
    SET("transmissions", json_integer(st->transmissions));
    SET("conflicts", json_integer(st->conflicts));
    if (res->outcome->refused) /* README "Refused calls": only when there was one */
        SET("refused_calls", json_integer(res->outcome->refused));
    SET("delayed_packets", json_integer(st->delayed_packets));
    SET("delay_slots", json_integer(st->delay_slots));
    SET("stalls", json_integer(st->stalls));
    SET("max_mailbox_depth", json_integer(st->max_mailbox_depth));
    SET("slots_run", json_integer(st->slots_run));
    if (st->routed_hops) /* hm_send_routed under packet routing: only when a packet was routed */
        SET("routed_hops", json_integer(st->routed_hops));
    /* The transport's own figures: "circuits" (messages, link and port contention) or
     * "free" (real contention, no port model). */
    if (res->outcome->transport)
        SET(res->outcome->transport_key, json_incref(res->outcome->transport));
    if (res->outcome->threads) /* HM_THREAD_FIGURES=1 (doc/contention.md, "The sweep") */
        SET("threads", json_incref(res->outcome->threads));
    SET("verified", json_boolean(r->verified));
    SET("verification", text(r->verification));
    if (res->checked_by) /* README "What verified means" */
        SET("checked_by", json_string(res->checked_by));
    SET("exit_code", json_integer(res->exit_code));
    /* How a run that did not finish ended (conflict, deadlock, max_slots, interrupted,
     * system): the outcome's typed cause. */
    if (res->outcome && res->outcome->end != HM__END_DONE)
        SET("end", json_string(hm__end_name(res->outcome->end)));
    if (res->message)
        SET("stopped", text(res->message));
    SET("wall_seconds", json_real(res->wall_seconds));
    if (r->extra) /* the algorithm's keys never replace the engine's */
        bad |= json_object_update_missing(o, r->extra) != 0;
#undef SET
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

void hm__refused_print(FILE *f, const hm__outcome_t *o)
{
    if (!o || o->refused == 0)
        return;
    fprintf(f,
            "hypemu: %lld refused call%s (each returned HM_EINVAL and the run went on; README "
            "\"Refused calls\"):\n",
            (long long)o->refused, o->refused == 1 ? "" : "s");
    for (int i = 0; i < o->nrefusals; i++)
        fprintf(f, "  node %d, slot %lld: %s\n", o->refusals[i].node,
                (long long)o->refusals[i].slot, o->refusals[i].text);
    if (o->refused > o->nrefusals)
        fprintf(f, "  ... and %lld more\n", (long long)(o->refused - o->nrefusals));
}

/* Integer and real members of a JSON object, 0 when absent. */
static long long ji(const json_t *o, const char *k)
{
    return (long long)json_integer_value(json_object_get(o, k));
}

static double jr(const json_t *o, const char *k)
{
    return json_number_value(json_object_get(o, k));
}

/* The free-running clock's waits, latency and kernel figures, one table each. */
static void print_free_waits(FILE *f, const json_t *v)
{
    const json_t *t = json_object_get(v, "totals"), *lat = json_object_get(t, "latency_ns");
    const json_t *sp = json_object_get(v, "latency_split"), *th = json_object_get(v, "threads");
    fprintf(f, "  %-30s %12s %14s\n", "wait", "count", "seconds");
    fprintf(f, "  %-30s %12lld %14.6f\n", "port (packet in flight)", ji(t, "port_waits"),
            jr(t, "port_wait_ns") * 1e-9);
    fprintf(f, "  %-30s %12lld %14.6f\n", "mailbox full", ji(t, "mailbox_full_waits"),
            jr(t, "mailbox_full_ns") * 1e-9);
    fprintf(f, "  %-30s %12lld %14.6f\n", "receive (no packet)", ji(t, "blocked_receives"),
            jr(t, "blocked_receive_ns") * 1e-9);
    fprintf(f, "  %-30s %12lld %14.6f\n", "latency: wake-up", ji(sp, "woken_packets"),
            jr(sp, "woken_ns") * 1e-9);
    fprintf(f, "  %-30s %12lld %14.6f\n", "latency: waiting in mailbox", ji(sp, "queued_packets"),
            jr(sp, "queued_ns") * 1e-9);
    if (json_is_object(lat))
        fprintf(f, "  latency ns: min %lld, p50 %lld, p99 %lld, max %lld\n", ji(lat, "min"),
                ji(lat, "p50"), ji(lat, "p99"), ji(lat, "max"));
    fprintf(f, "  threads: %lld voluntary and %lld involuntary switches, %lld migrations\n",
            ji(th, "voluntary_switches"), ji(th, "involuntary_switches"), ji(th, "migrations"));
}

static void print_free_locks(FILE *f, const json_t *v)
{
    const char *k;
    json_t *x;
    fprintf(f, "  %-20s %10s %10s %12s %12s %12s\n", "lock", "taken", "waits", "wait s", "held s",
            "max hold ns");
    json_object_foreach((json_t *)json_object_get(v, "locks"), k, x)
        fprintf(f, "  %-20s %10lld %10lld %12.6f %12.6f %12lld\n", k, ji(x, "taken"),
                ji(x, "waits"), jr(x, "wait_ns") * 1e-9, jr(x, "hold_ns") * 1e-9,
                ji(x, "max_hold_ns"));
    size_t i;
    fprintf(f, "  latency log2 histogram (from ns: packets):");
    json_array_foreach(json_object_get(v, "latency_log2_histogram"), i, x)
        fprintf(f, " %lld: %lld", (long long)json_integer_value(json_array_get(x, 0)),
                (long long)json_integer_value(json_array_get(x, 1)));
    fputc('\n', f);
}

/* The free-running clock's object as tables; the per-link and per-node lists only in
 * --json. */
static void print_free(FILE *f, const char *k, json_t *v)
{
    size_t i;
    json_t *x;
    fprintf(f, "%-18s lock waits %lld, blocked %.6f s (most on one node %.6f s)\n", k,
            ji(v, "lock_waits"), jr(v, "blocked_seconds"), jr(v, "max_node_blocked_seconds"));
    print_free_waits(f, v);
    print_free_locks(f, v);
    char *text = json_dumps(json_object_get(v, "host"), JSON_COMPACT | JSON_PRESERVE_ORDER);
    fprintf(f, "  host: %s\n", text ? text : "?");
    free(text);
    fprintf(f, "  %-10s %6s %6s %10s %14s %14s\n", "hottest", "from", "to", "packets",
            "contention ns", "latency p99");
    json_array_foreach(json_object_get(v, "hottest_links"), i, x)
        fprintf(f, "  %-10zu %6lld %6lld %10lld %14lld %14lld\n", i + 1, ji(x, "from"), ji(x, "to"),
                ji(x, "packets"), ji(x, "contention_ns"),
                ji(json_object_get(x, "latency_ns"), "p99"));
    fprintf(f, "%-18s %zu links, %zu nodes: in --json\n", "per_link_node",
            json_array_size(json_object_get(v, "links")),
            json_array_size(json_object_get(v, "nodes")));
}

void hm__summary_print(FILE *f, const json_t *s)
{
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)s, k, v) {
        if (strcmp(k, "stopped") == 0)
            continue; /* already on stderr, line by line */
        if (json_is_object(v) && json_is_real(json_object_get(v, "value"))) {
            fprintf(f, "%-18s %.6f  (%s)\n", k, json_real_value(json_object_get(v, "value")),
                    json_string_value(json_object_get(v, "expression")));
            continue;
        }
        if (json_is_object(v) && json_object_get(v, "expression")) {
            fprintf(f, "%-18s %lld  (%s)\n", k,
                    (long long)json_integer_value(json_object_get(v, "value")),
                    json_string_value(json_object_get(v, "expression")));
            continue;
        }
        if (json_is_object(v) && json_is_array(json_object_get(v, "links"))) {
            print_free(f, k, v);
            continue;
        }
        if (json_is_string(v)) {
            fprintf(f, "%-18s %s\n", k, json_string_value(v));
            continue;
        }
        if (json_is_real(v)) {
            fprintf(f, "%-18s %.6f\n", k, json_real_value(v));
            continue;
        }
        char *text = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
        fprintf(f, "%-18s %s\n", k, text ? text : "?");
        free(text);
    }
}
