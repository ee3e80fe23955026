/* SPDX-License-Identifier: MIT */
/*
 * config_keys.h — the machine config's keys (doc/config.md, hypemu(1)
 * CONFIG KEYS), one row each: path, type, range, default and a line of help. The table
 * is the one place these facts are written: config.c checks against it, `hypemu --list
 * --json` prints it ("config"), and tests/check_config_keys.sh holds doc/config.md's table and
 * hypemu(1) to it. The algorithms' own parameters are their descriptors' specs
 * (hm_param_spec_t), not rows here.
 */
#ifndef HM_CONFIG_KEYS_H
#define HM_CONFIG_KEYS_H

#include <stdint.h>

#include "config.h" /* HM__MAX_SLOTS_MAX, HM__OUT_MAX_BYTES */

/* stack_kib's range: glibc's least thread stack (PTHREAD_STACK_MIN, 16 KiB), and 1 GiB. */
#define HM__STACK_KIB_MIN 16
#define HM__STACK_KIB_MAX (1 << 20)

/* What a key holds. */
#define HM__KEY_TYPE_MAP(XX)                                                                       \
    XX(OBJECT, "object")                                                                           \
    XX(INT, "integer")                                                                             \
    XX(NUMBER, "number")                                                                           \
    XX(ENUM, "enum")                                                                               \
    XX(FILE, "file")                                                                               \
    XX(NODES, "nodes")                                                                             \
    XX(CPUS, "cpus")                                                                               \
    XX(FILES, "files")                                                                             \
    XX(BOOL, "boolean")                                                                            \
    XX(PARAMS, "params")

typedef enum {
#define XX(id, name) HM__KEY_##id,
    HM__KEY_TYPE_MAP(XX)
#undef XX
} hm__key_type_t;

/* The rows, in the order of the messages that list an object's keys ("allowed keys:
 * ..."): id, path, type, min, max, default, choices (ENUM), the default in words where
 * it is not one value (NULL: the value), the topology kinds the key belongs to (NULL:
 * every config), help. ENUM's default is the index of its choice; -1: none. */
#define HM__CONFIG_KEY_MAP(XX)                                                                     \
    XX(TOPOLOGY, "topology", OBJECT, 0, 0, 0, NULL, "required", NULL, "the machine's graph")       \
    XX(TOPOLOGY_KIND, "topology.kind", ENUM, 0, 0, -1, hm__topology_names, "required", NULL,       \
       "the kind of graph")                                                                        \
    XX(TOPOLOGY_DIM, "topology.dim", INT, 0, HM__DIM_MAX, 0, NULL, "required", "hypercube",        \
       "Q_d: nodes 0..2^d-1")                                                                      \
    XX(TOPOLOGY_NODES, "topology.nodes", INT, 1, HM__NODES_MAX, 1, NULL, "required",               \
       "linear, ring", "nodes in a row or round a cycle")                                          \
    XX(TOPOLOGY_BUS_NODES, "topology.nodes", INT, 2, 1025, 2, NULL, "required", "bus",             \
       "k processors and the output processor")                                                    \
    XX(TOPOLOGY_ROWS, "topology.rows", INT, 1, HM__NODES_MAX, 1, NULL, "required", "mesh, torus",  \
       "rows of the grid, rows x cols at most 32768 nodes")                                        \
    XX(TOPOLOGY_COLS, "topology.cols", INT, 1, HM__NODES_MAX, 1, NULL, "required", "mesh, torus",  \
       "columns of the grid")                                                                      \
    XX(PORTS, "ports", OBJECT, 0, 0, 0, NULL, "the defaults below", NULL, "the port model")        \
    XX(PORTS_MODEL, "ports.model", ENUM, 0, 0, -1, hm__ports_names, "the algorithm's paper model", \
       NULL, "what a node may send and receive in one slot")                                       \
    XX(PORTS_LINK_CAPACITY, "ports.link_capacity", INT, 1, 1 << 20, 1, NULL, NULL, NULL,           \
       "packets (or circuits) one directed link carries per slot")                                 \
    XX(PORTS_ROUTING, "ports.routing", ENUM, 0, 0, -1, hm__routing_names,                          \
       "circuit on linear and mesh, packet elsewhere", NULL, "how a message finds its way")        \
    XX(PORTS_COST, "ports.cost", OBJECT, 0, 0, 0, NULL, "the defaults below", NULL,                \
       "Seidel's message-length cost model")                                                       \
    XX(PORTS_COST_A, "ports.cost.a", NUMBER, 0, 1 << 20, 1, NULL, "abar x link_capacity", NULL,    \
       "slots per byte of a message")                                                              \
    XX(PORTS_COST_ABAR, "ports.cost.abar", NUMBER, 0, 1 << 20, 1, NULL, NULL, NULL,                \
       "slots per byte per unit of link capacity")                                                 \
    XX(PORTS_COST_B, "ports.cost.b", NUMBER, 0, INT64_C(1) << 40, 1, NULL, NULL, NULL,             \
       "slots a message costs whatever its length")                                                \
    XX(PORTS_COST_RHO, "ports.cost.rho", NUMBER, 0, 1 << 20, 0, NULL, NULL, NULL,                  \
       "slots per byte copied locally")                                                            \
    XX(MAILBOX, "mailbox", OBJECT, 0, 0, 0, NULL, "the defaults below", NULL, "the mailboxes")     \
    XX(MAILBOX_CAPACITY, "mailbox.capacity", INT, 1, 1 << 20, 4, NULL, NULL, NULL,                 \
       "packets one directed link's mailbox holds")                                                \
    XX(CONTENTION, "contention", ENUM, 0, 0, 0, hm__contention_names, NULL, NULL,                  \
       "a port-model violation stops the run, or the excess packet waits")                         \
    XX(ALGORITHM, "algorithm", PARAMS, 0, 0, 0, NULL, "required", NULL,                            \
       "name: a name from hypemu --list, and its parameters")                                      \
    XX(CLOCK, "clock", OBJECT, 0, 0, 0, NULL, "the defaults below", NULL, "the clock")             \
    XX(CLOCK_MODE, "clock.mode", ENUM, 0, 0, 0, hm__clock_mode_names, NULL, NULL,                  \
       "the global barrier, no barrier, or per-node clocks")                                       \
    XX(CLOCK_MAX_SLOTS, "clock.max_slots", INT, 1, HM__MAX_SLOTS_MAX, 1000000, NULL, NULL, NULL,   \
       "the most slots a run may take (more when the algorithm's exact cost is)")                  \
    XX(CLOCK_AFFINITY, "clock.affinity", CPUS, 0, 0, 0, NULL, "none", NULL,                        \
       "none, compact, scatter, or CPUs \"0-3,8\" or [0, 1]: node threads pinned to CPUs")         \
    XX(CLOCK_SLOT_TIMEOUT, "clock.slot_timeout", NUMBER, 0, 86400, 60, NULL, NULL, NULL,           \
       "seconds of wall time a node may take to end its slot; 0: no limit")                        \
    XX(SEED, "seed", INT, 0, INT64_MAX, 1, NULL, NULL, NULL,                                       \
       "for algorithms that make random choices")                                                  \
    XX(STACK_KIB, "stack_kib", INT, HM__STACK_KIB_MIN, HM__STACK_KIB_MAX, 64, NULL, NULL, NULL,    \
       "KiB of stack a node program has, 1024 for an MPI program unless given")                    \
    XX(OUTPUT, "output", OBJECT, 0, 0, 0, NULL, "none", NULL, "the files to write")                \
    XX(OUTPUT_TIMELINE, "output.timeline", FILE, 0, 0, 0, NULL, "none", NULL,                      \
       "text space-time diagram and event list")                                                   \
    XX(OUTPUT_TRACE, "output.trace", FILE, 0, 0, 0, NULL, "none", NULL, "Chrome Trace Event JSON") \
    XX(OUTPUT_EVENTS, "output.events", FILE, 0, 0, 0, NULL, "none", NULL,                          \
       "JSON Lines, one event a line")                                                             \
    XX(OUTPUT_SVG, "output.svg", FILE, 0, 0, 0, NULL, "none", NULL, "the picture of the run")      \
    XX(OUTPUT_SVG_COLOUR, "output.svg_colour", ENUM, 0, 0, 0, hm__svg_colour_names, NULL, NULL,    \
       "what colours a packet's arrow in output.svg")                                              \
    XX(OUTPUT_OTF2, "output.otf2", FILE, 0, 0, 0, NULL, "none", NULL,                              \
       "OTF2 archive (a directory) for HPC trace tools")                                           \
    XX(OUTPUT_NODES, "output.nodes", NODES, 0, 0, 0, NULL, "every node", NULL,                     \
       "the nodes the text timeline shows: \"0-3,8\"")                                             \
    XX(OUTPUT_MAX_BYTES, "output.max_bytes", INT, 0, INT64_C(1) << 62, HM__OUT_MAX_BYTES, NULL,    \
       NULL, NULL, "the most bytes the output files may take together; 0: no limit")               \
    XX(OUTPUT_HTML, "output.html", FILE, 0, 0, 0, NULL, "none", NULL,                              \
       "the player: a self-contained HTML page that plays the run")                                \
    XX(PLUGINS, "plugins", FILES, 0, 0, 0, NULL, "none", NULL,                                     \
       "plugins to load, relative to the config file's directory")                                 \
    XX(SANDBOX, "sandbox", BOOL, 0, 0, 0, NULL, "false", NULL,                                     \
       "true: the plugins' node programs run in node processes, as with --sandbox")

typedef enum {
#define XX(id, path, type, min, max, def, choices, def_text, kinds, help) HM__K_##id,
    HM__CONFIG_KEY_MAP(XX)
#undef XX
        HM__K_COUNT
} hm__key_id_t;

typedef struct hm__config_key_s {
    const char *path;
    hm__key_type_t type;
    int64_t min, max, def;
    const char *const *choices; /* ENUM: NULL-terminated */
    const char *def_text;
    const char *kinds;
    const char *help;
} hm__config_key_t;

extern const hm__config_key_t hm__config_keys[HM__K_COUNT];
const char *hm__key_type_name(hm__key_type_t t);
/* The keys of the object at `parent` ("" for the top level, "clock", "ports.cost"), in
 * the table's order, each once, those of topology kind `kind` only when kind is not NULL:
 * out gets at most cap - 1 of them, NULL-terminated. */
void hm__config_key_children(const char *parent, const char *kind, const char **out, size_t cap);

#endif
