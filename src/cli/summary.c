/*
 * summary.c — the run summary of SPEC section 7, as one JSON object (--json) or as
 * readable lines. The keys come in the SPEC's order; algorithm-specific keys follow.
 */
#include <string.h>

#include "run.h"

static json_t *bound_obj(const char *expr, int64_t value)
{
    if (!expr || value < 0)
        return json_null();
    return json_pack("{s:s, s:I}", "expression", expr, "value", (json_int_t)value);
}

json_t *hm__summary_build(const hm__config_t *cfg, const hm__result_t *res)
{
    const hm_machine_info_t *in = &cfg->opt.info;
    const hm_report_t *r = &res->report;
    const hm__stats_t *st = &res->m->stats;
    json_t *o = json_object();
    json_t *variant = json_object_get(cfg->algo_params, "variant");
    json_object_set_new(o, "topology", json_string(hm_topology_name(in->topology)));
    json_object_set_new(o, "nodes", json_integer(in->nodes));
    json_object_set_new(o, "ports", json_string(hm_ports_name(in->ports)));
    json_object_set_new(o, "algorithm", json_string(cfg->algo->name));
    if (json_is_string(variant))
        json_object_set(o, "variant", variant);
    else {
        /* The default variant, from the descriptor. */
        for (const hm_param_t *p = cfg->algo->params; p && p->name; p++)
            if (strcmp(p->name, "variant") == 0 && p->defval)
                json_object_set_new(o, "variant", json_string(p->defval));
    }
    json_object_set_new(o, "completion_slots", json_integer(r->completion_slots));
    json_object_set_new(o, "bound", bound_obj(r->bound_expr, r->bound));
    json_object_set_new(o, "lower_bound", bound_obj(r->lower_expr, r->lower));
    json_object_set_new(o, "transmissions", json_integer(st->transmissions));
    json_object_set_new(o, "conflicts", json_integer(st->conflicts));
    json_object_set_new(o, "delayed_packets", json_integer(st->delayed_packets));
    json_object_set_new(o, "delay_slots", json_integer(st->delay_slots));
    json_object_set_new(o, "stalls", json_integer(st->stalls));
    json_object_set_new(o, "max_mailbox_depth", json_integer(st->max_mailbox_depth));
    json_object_set_new(o, "slots_run", json_integer(st->slots_run));
    json_object_set_new(o, "verified", json_boolean(r->verified));
    json_object_set_new(o, "verification", json_string(r->verification));
    json_object_set_new(o, "exit_code", json_integer(res->exit_code));
    if (res->message)
        json_object_set_new(o, "stopped", json_string(res->message));
    json_object_set_new(o, "wall_seconds", json_real(res->wall_seconds));
    if (r->extra)
        json_object_update(o, r->extra);
    return o;
}

void hm__summary_print(FILE *f, const json_t *s)
{
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)s, k, v) {
        if (strcmp(k, "stopped") == 0)
            continue; /* already on stderr */
        if (json_is_object(v) && json_object_get(v, "expression")) {
            fprintf(f, "%-18s %lld  (%s)\n", k,
                    (long long)json_integer_value(json_object_get(v, "value")),
                    json_string_value(json_object_get(v, "expression")));
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
