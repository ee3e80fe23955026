/* SPDX-License-Identifier: MIT */
/*
 * names.c — every list's names, written once: the public catalogue's (topologies,
 * port models, routings, clock modes, problems, quantities: the X-macros of
 * hypemu.h) and the engine's own (contention policies, SVG colourings, event kinds,
 * end causes: hm_internal.h). Each is a NULL-terminated array indexed by the enum,
 * read by the name functions below, by the config's checks and messages
 * (cli/config.c, cli/config_keys.c) and by `--list` (cli/main.c).
 */
#include "hm_internal.h"

#define NAME(id, name, desc) name,
const char *const hm__topology_names[] = {HM_TOPOLOGY_MAP(NAME) NULL};
const char *const hm__ports_names[] = {HM_PORTS_MAP(NAME) NULL};
const char *const hm__routing_names[] = {HM_ROUTING_MAP(NAME) NULL};
const char *const hm__clock_mode_names[] = {HM_CLOCK_MAP(NAME) NULL};
/* Index 0 is HM_PROBLEM_NONE and HM_QTY_NONE, which have no name of their own. */
static const char *const problem_names[] = {NULL, HM_PROBLEM_MAP(NAME)};
static const char *const qty_names[] = {"", HM_QTY_MAP(NAME)};
#undef NAME
#define NAME(id, name) name,
static const char *const event_names[] = {HM__EVENT_MAP(NAME)};
static const char *const end_names[] = {HM__END_MAP(NAME)};
#undef NAME
/* In the order of hm__contention_t and of HM__SVG_BY_* (out/writers.h). */
const char *const hm__contention_names[] = {"strict", "queue", NULL};
const char *const hm__svg_colour_names[] = {"message", "sender", NULL};

const char *hm_topology_name(hm_topology_kind_t k)
{
    return k < HM_TOPO_COUNT ? hm__topology_names[k] : "?";
}

const char *hm_ports_name(hm_ports_kind_t k)
{
    return k < HM_PORTS_COUNT ? hm__ports_names[k] : "?";
}

const char *hm_routing_name(hm_routing_t k)
{
    return k < HM_ROUTING_COUNT ? hm__routing_names[k] : "?";
}

const char *hm_clock_name(hm_clock_mode_t k)
{
    return k < HM_CLOCK_COUNT ? hm__clock_mode_names[k] : "?";
}

const char *hm_problem_name(hm_problem_t k)
{
    return k < HM_PROBLEM_COUNT ? problem_names[k] : NULL;
}

const char *hm_qty_name(hm_qty_t q)
{
    return q < HM_QTY_COUNT ? qty_names[q] : "?";
}

const char *hm__event_name(hm__event_kind_t k)
{
    return k < HM__EV_COUNT ? event_names[k] : "?";
}

const char *hm__end_name(hm__end_t e)
{
    return e < HM__END_COUNT ? end_names[e] : "?";
}
