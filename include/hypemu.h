/* SPDX-License-Identifier: MIT */
/*
 * hypemu.h — the public API of hypemu, the message-passing machine emulator.
 *
 * This header is all an algorithm (a "node program") may use. It has two parts:
 *
 *   1. The node API, called from inside a node thread: who am I, who are my
 *      neighbours, send, shout, receive, wait, log, store.
 *   2. The algorithm descriptor: how a node program is registered, how it reads its
 *      parameters before the run (setup) and how it checks the result after the run
 *      (verify).
 *
 * Slot semantics (README "Slot semantics"). Time is counted in whole slots from 0. Every node
 * is a POSIX thread. During slot t a node may send; a packet sent in slot t is
 * received by the neighbour in slot t and can be read by it from slot t + 1, so it can
 * be forwarded in slot t + 1. A node acts in a slot until it calls one of the wait
 * functions; the engine closes slot t once every node active in it has waited or
 * returned, checks every transmission of the slot against the port model, delivers
 * the packets, and opens the next slot in which some node has something to do.
 *
 * A minimal broadcast from node 0 over a hypercube, with every node forwarding what
 * it receives across every dimension below the one it came from (a binomial tree):
 *
 *     static void bcast(hm_node_t *n, void *state)
 *     {
 *         hm_packet_t p = {.msg = 1, .value = 42};
 *         int lowest = hm_degree(n);             // the root forwards on every port
 *         if (hm_id(n) != 0) {
 *             if (hm_wait_packet(n, &p) < 0)     // run aborted: return at once
 *                 return;
 *             lowest = p.port;                   // arrived on port k: children below k
 *         }
 *         hm_store(n, p.value);
 *         uint64_t children = (UINT64_C(1) << lowest) - 1;
 *         if (children)
 *             hm_shout(n, children, &p);         // one emission, all children
 *     }
 *
 * Every function that waits returns 0 on success and a negative HM_E* code when the
 * run is being stopped (deadlock, max_slots, a strict port-model violation, an
 * interrupt). A node
 * program must return from its main function as soon as it sees a negative code.
 *
 * A node program calls the node API from its own node's thread, with its own handle, and
 * ends by returning from node_main. A call with another node's handle or from a thread
 * it created returns HM_EABORT (NULL, or nothing; hm_neighbor, hm_port_to and hm_root,
 * which never return an abort code, give -1, "none") and stops the run, as pthread_exit
 * and exit() in a node program do: exit status 5 (README "Rules of the node API").
 */
#ifndef HYPEMU_H
#define HYPEMU_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

/* The version: HM_VERSION ("MAJOR.MINOR.PATCH"), HM_VERSION_MAJOR, _MINOR, _PATCH,
 * HM_VERSION_HEX (0xMMmmpp) and HM_ABI_VERSION, written by configure. */
#include "hypemu/version.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The version of the library this program runs with, HM_VERSION where it was built (a
 * plugin's own HM_VERSION is that of the hypemu.h it was built with). */
const char *hm_version(void);

/* Return codes. 0 is success; everything else is negative. */
enum {
    HM_OK = 0,
    HM_EABORT = -1, /* the run is stopping: return from the node program */
    HM_EINVAL = -2, /* a refused call: bad argument (port out of range, empty port set...),
                       counted and reported after the run (README "Refused calls") */
    HM_ENOMEM = -3, /* allocation failed */
    HM_ENOENT = -4, /* nothing to receive */
};

/* ------------------------------------------------------------------------ */
/* Node API                                                                  */
/* ------------------------------------------------------------------------ */

typedef struct hm_node_s hm_node_t;

/* A packet. The sender fills msg, origin, value, tag, aux and optionally a byte
 * payload (data, len), which the engine copies at the call. The engine fills the
 * last four fields on receipt. In packet routing one packet takes one slot whatever
 * its length; the length matters only for the message-length cost model. */
typedef struct hm_packet_s {
    int32_t msg;      /* message number chosen by the algorithm (shown in the logs) */
    int32_t origin;   /* node that created the message */
    int64_t value;    /* one word of payload */
    int32_t tag;      /* free for the algorithm: phase, kind of packet... */
    int32_t aux;      /* free for the algorithm */
    const void *data; /* optional bytes; on receipt valid until the node's next
                         receive or wait */
    uint32_t len;     /* number of bytes at data */
    /* Filled by the engine on receipt: */
    int32_t from;      /* the node that transmitted it */
    int32_t port;      /* the receiver's port it arrived on, -1 if routed */
    int64_t sent_slot; /* slot in which the sender called send */
    int64_t recv_slot; /* slot in which it was received */
} hm_packet_t;

/* The grid a mesh or a torus lays its nodes in, and this node's place in it: *rows and
 * *cols, and this node's *row and *col (node = row * cols + col); a linear array and a ring
 * are one row of p nodes. Any pointer may be NULL. Returns 0, or HM_ENOENT on the
 * hypercube and the bus, which have no grid. Ports: on a mesh, a linear array and a torus
 * 0 west (col - 1), 1 east (col + 1), 2 north (row - 1), 3 south (row + 1), wrapping
 * around on the torus, -1 from hm_neighbor where a mesh ends; on a ring 0 to x + 1 and 1
 * to x - 1 (mod p); on Q_d port i to x ^ 2^i; on the bus, at node x, node y is port y
 * when y < x and port y - 1 when y > x (doc/config.md). */
int hm_grid(const hm_node_t *n, int *rows, int *cols, int *row, int *col);

/* Identity and neighbourhood. hm_neighbor and hm_port_to return -1 for "none" only (a
 * port out of range or leading nowhere, a node that is not a neighbour): no abort code,
 * though HM_EABORT is -1 too (a call that breaks the rules stops the run, and the next
 * wait returns HM_EABORT). */
int hm_id(const hm_node_t *n);                 /* this node's number */
int hm_nodes(const hm_node_t *n);              /* number of nodes in the machine */
int hm_degree(const hm_node_t *n);             /* number of ports of this node */
int hm_neighbor(const hm_node_t *n, int port); /* node at the other end, -1 if none */
int hm_port_to(const hm_node_t *n, int node);  /* port that leads to node, -1 if none */

/* The current slot, counted from 0. */
int64_t hm_now(const hm_node_t *n);

/* Send one packet on one port (0 .. hm_degree(n) - 1, also past 63: a bus node has p - 1)
 * in the current slot. */
int hm_send(hm_node_t *n, int port, const hm_packet_t *p);

/* Send one message to any node under circuit routing (doc/config.md, ports.routing and
 * ports.cost, Seidel section 2). The message follows the shortest path (in a mesh along the row
 * first, then the column; in a hypercube the differing dimensions lowest first, e-cube routing; on
 * a ring or a torus the shorter way round), holds every link of the path while it travels and does
 * not involve the nodes on the way. It lasts ceil(k / link_capacity) * a * len + b slots (rounded
 * up to whole slots, at least 1), k being the largest number of circuits that share one of its
 * links when it starts; it is received in its last slot and can be read from the next one.
 *
 * The call does not wait: the engine copies p (and its bytes) and starts the message
 * as soon as the node's transmit port is free (a node transmits one message at a
 * time, in the order of its calls) and the destination's receive port is free (a
 * node receives one message at a time). A message that must wait for a busy receive
 * port (port contention), or that shares a link with more than link_capacity other
 * circuits (link contention), is a conflict: under "strict" contention the run stops,
 * under "queue" it is serialised or slowed as the cost model says, and counted.
 * Returns 0, HM_EINVAL (dest out of range or the node itself: a refused call), HM_ENOMEM or
 * HM_EABORT. Under packet routing dest must be a neighbour (another is a refused call) and
 * this is hm_send on the port that leads to it. */
int hm_send_to(hm_node_t *n, int dest, const hm_packet_t *p);

/* Send one packet to any node, routed by the engine (doc/mpi-programs.md, "Routing"). Under
 * circuit routing this is hm_send_to. Under packet routing a neighbour gets it as from hm_send
 * on the port that leads to it; another node gets it hop by hop along the route hm_send_to's
 * circuits take (hypercube: lowest differing dimension first; ring and torus: the shorter way;
 * mesh: row first, then column): one link and one slot per hop, each hop judged under the port
 * model of the node it leaves, with no code of that node running and no delivery to it (it
 * sees nothing; mailbox.capacity does not bound the transit, whose hops the summary counts as
 * routed_hops). It is received by dest alone, with .from the sender and .port -1, in the slot
 * of its last hop. Packet routing routes under the slotted clock only (the free and local
 * clocks refuse a non-neighbour). Returns 0, HM_EINVAL (a refused call: dest out of range or
 * the node itself, a bad packet), HM_ENOMEM or HM_EABORT. */
int hm_send_routed(hm_node_t *n, int dest, const hm_packet_t *p);

/* Shout: one emission of one packet on every port whose bit is set in ports. Under
 * the shout port model this is a single emission; under the other models it is one
 * packet per port. */
int hm_shout(hm_node_t *n, uint64_t ports, const hm_packet_t *p);

/* Shout on every port of this node, whatever its degree (a bus of more than 65 nodes
 * has more ports than a mask holds): one emission. */
int hm_shout_all(hm_node_t *n, const hm_packet_t *p);

/* Take the oldest packet received in an earlier slot. Returns 0, or HM_ENOENT when
 * there is none. Never waits. */
int hm_recv(hm_node_t *n, hm_packet_t *out);

/* Number of packets waiting to be read with hm_recv. */
int hm_pending(const hm_node_t *n);

/* End this node's slot and sleep until a packet can be read (then take it into out;
 * with out NULL it stays for hm_recv) or until slot `deadline`, whichever comes
 * first; deadline < 0 means no deadline. Returns 0 with a packet, HM_ENOENT at the deadline without
 * one, HM_EABORT when the run stops. If a packet is already waiting it is returned at once, without
 * ending the slot. */
int hm_wait_packet_until(hm_node_t *n, hm_packet_t *out, int64_t deadline);

/* hm_wait_packet_until without a deadline. */
int hm_wait_packet(hm_node_t *n, hm_packet_t *out);

/* Wall time: nanoseconds (CLOCK_MONOTONIC) since the run's node threads were started, in
 * every clock mode. For measuring and for pacing under the free clock: a slotted or local
 * run's result must not depend on it, or it is not deterministic. */
int64_t hm_clock_ns(hm_node_t *n);

/* The free-running clock's timed wait: sleep until a packet can be read (then take it
 * into out, or leave it for hm_recv when out is NULL) or until the wall time deadline_ns
 * (hm_clock_ns's scale), whichever comes first. Returns 0 with a packet, HM_ENOENT at
 * the deadline without one (the node's logical slot unchanged), HM_EABORT when the run
 * stops. A node in this wait is not blocked for the deadlock check: its deadline wakes
 * it. Under the slotted and local clocks a refused call (HM_EINVAL): there is no wall
 * time to wait for, hm_wait_packet_until waits for a slot. */
int hm_wait_packet_ns(hm_node_t *n, hm_packet_t *out, int64_t deadline_ns);

/* End this node's slot and sleep until slot `slot` (> now). Packets arriving meanwhile
 * wait in the mailboxes. Returns 0, HM_EINVAL when slot is not after the current slot (a
 * refused call: the slot does not end) or HM_EABORT. */
int hm_wait_until(hm_node_t *n, int64_t slot);

/* hm_wait_until(n, hm_now(n) + 1). */
int hm_next_slot(hm_node_t *n);

/* Keep the node busy for `slots` slots (local work such as copying: Seidel's rho*m).
 * Counts towards the completion time. Returns 0 or HM_EABORT. */
int hm_busy(hm_node_t *n, int64_t slots);

/* Record a value for verification, in order. Shown in the logs as "store". */
void hm_store(hm_node_t *n, int64_t value);

/* Show what this node holds now (its working buffer: blocks received, partial sums, a
 * running maximum), `count` values, copied at the call: the player (output.html, README
 * "Player") draws it in each node's memory row. Recorded as changes from the buffer last
 * shown, its length and its first 64 values only (the player shows no more); from slot 0
 * to its first call a node holds its input (hm_input). A no-op when no player page is
 * asked for (as hm_log without its outputs); not in the event log. */
void hm_show(hm_node_t *n, const int64_t *values, size_t count);

/* Log an algorithm event (printf format), shown in the timeline and event logs. */
void hm_log(hm_node_t *n, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The node program cannot go on (an allocation failed, say): the run stops at the
 * end of this slot with exit 4 and the message "node N: what" (copied at the call, up
 * to 255 bytes, so a buffer on the caller's stack is fine). Return from the node
 * program after calling it. */
void hm_fail(hm_node_t *n, const char *what);

/* The node program ends the run as failed (an MPI program's MPI_Abort, doc/mpi-programs.md):
 * the run stops at the end of this slot, not verified, with exit 1 and the message "node N:
 * what" (copied, up to 255 bytes). Return from the node program after calling it. */
void hm_abort(hm_node_t *n, const char *what);

/* What this node waits in, in the program's own words, for a deadlock report: while the note
 * is set, the report's line for this node, when it waits for a packet, is the text itself
 * (copied, up to 159 bytes) instead of "node N waits for a packet from any neighbour". The MPI
 * library sets "rank 0 waits in MPI_Recv(source 1, tag 0)" (doc/mpi-programs.md). NULL or ""
 * clears it. */
void hm_wait_note(hm_node_t *n, const char *what);

/* The algorithm's state built by setup (read-only during the run). */
void *hm_state(const hm_node_t *n);

/* The config's algorithm.NAME when it is a string (an enum parameter's choice, its default
 * filled in by the loader), else NULL; valid for the run, read-only. For what the node must
 * read when its state is not its own setup's: an MPI program solving a problem gets the
 * problem's state and reads its collectives' algorithms here (doc/mpi-programs.md,
 * "Collectives"). */
const char *hm_param_string(const hm_node_t *n, const char *name);

/* The problem's root, -1 for a rootless problem (allgather, allreduce, ...) or an
 * algorithm that gives none (the descriptor's .root): -1 is "none" only, never an abort
 * code, as for hm_neighbor. doc/collectives.md. */
int hm_root(const hm_node_t *n);

/* This node's input values for the problem, generated from the run's seed
 * (doc/collectives.md, "Problems"): *count gets their number; NULL with *count 0 when
 * the node has none or the algorithm gives no inputs (the descriptor's .input). Valid
 * for the whole run, read-only. */
const int64_t *hm_input(const hm_node_t *n, size_t *count);

/* The reduction of the run's problem (reduce, allreduce, reduce-scatter: the config's
 * algorithm.op, doc/collectives.md); HM_OP_SUM for an algorithm whose problem does not
 * reduce or that does not read its inputs from the problem. */
typedef enum { HM_OP_SUM, HM_OP_MAX, HM_OP_MIN } hm_op_t;
hm_op_t hm_op(const hm_node_t *n);

/* This node's output area: out_size bytes of the descriptor (or of setup's
 * hm_setup_t.out_size), zeroed before the run,
 * written only by this node's thread; NULL when out_size is 0. Results go here, not
 * into the state. verify reads them with hm_report_out. */
void *hm_out(hm_node_t *n);

/* ------------------------------------------------------------------------ */
/* Machine description, seen by setup and verify                             */
/* ------------------------------------------------------------------------ */

/* Topologies and port models, each one bit so descriptors can say which they need. */
#define HM_TOPOLOGY_MAP(XX)                                                                        \
    XX(HYPERCUBE, "hypercube", "d-dimensional hypercube Q_d, port i joins x and x^2^i")            \
    XX(LINEAR, "linear", "linear array of n nodes, no wrap-around")                                \
    XX(MESH, "mesh", "r x c mesh, node (i,j) = i*c + j, no wrap-around")                           \
    XX(BUS, "bus", "one shared broadcast channel, k processors and output processor k")            \
    XX(RING, "ring", "ring of n nodes, wrap-around: port 0 to x+1, port 1 to x-1 (mod n)")         \
    XX(TORUS, "torus", "r x c torus, node (i,j) = i*c + j, wrap-around in rows and columns")

#define HM_PORTS_MAP(XX)                                                                           \
    XX(ALL_PORT, "all-port", "one packet on every outgoing and every incoming link")               \
    XX(ONE_PORT_FULL, "one-port-full", "send one packet on one link and receive one")              \
    XX(ONE_PORT_HALF, "one-port-half", "send one packet or receive one, not both")                 \
    XX(SHOUT, "shout", "one emission to any set of neighbours, or one reception")                  \
    XX(BUS, "bus", "one shared channel: at most one transmitter, everyone hears it")

typedef enum {
#define XX(id, name, desc) HM_TOPO_##id,
    HM_TOPOLOGY_MAP(XX)
#undef XX
        HM_TOPO_COUNT
} hm_topology_kind_t;

typedef enum {
#define XX(id, name, desc) HM_PORTS_##id,
    HM_PORTS_MAP(XX)
#undef XX
        HM_PORTS_COUNT
} hm_ports_kind_t;

#define HM_BIT(x) (1u << (x))

typedef struct hm_machine_info_s {
    hm_topology_kind_t topology;
    int nodes;
    int dim;        /* hypercube */
    int rows, cols; /* mesh and torus (linear and ring: rows = 1, cols = nodes) */
    hm_ports_kind_t ports;
    int link_capacity; /* packets or circuits per directed link per slot */
    int circuit;       /* 1 under "routing": "circuit" */
    /* Seidel's cost model (doc/config.md, ports.routing and ports.cost), used under
     * circuit routing: a message of m bytes lasts ceil(k/link_capacity)*cost_a*m + cost_b slots;
     * copying m bytes in a node costs cost_rho*m slots; cost_a = link_capacity * cost_abar. */
    double cost_a, cost_abar, cost_b, cost_rho;
    uint64_t seed;
    int clock; /* clock.mode, an hm_clock_mode_t (below): slotted, free or local */
} hm_machine_info_t;

/* ------------------------------------------------------------------------ */
/* Algorithm descriptor                                                      */
/* ------------------------------------------------------------------------ */

/* Clock modes and routings, each one bit so descriptors can say which they need.
 * (README "Slot semantics", doc/clocks.md.) */
#define HM_CLOCK_MAP(XX)                                                                           \
    XX(SLOTTED, "slotted", "the global barrier clock: every node sees the same slot")              \
    XX(FREE, "free", "no barrier: each node's own logical clock, real mailboxes")                  \
    XX(LOCAL, "local", "the slotted semantics with per-node clocks instead of the barrier")

#define HM_ROUTING_MAP(XX)                                                                         \
    XX(PACKET, "packet", "a packet crosses one link, from neighbour to neighbour")                 \
    XX(CIRCUIT, "circuit", "a message holds its whole path (Seidel's cost model)")

/* What an algorithm solves, for the catalogue (hypemu --list --json). The first four
 * keep their numbers; the collective problems follow (their exact stores are in
 * doc/collectives.md). */
#define HM_PROBLEM_MAP(XX)                                                                         \
    XX(BROADCAST, "broadcast", "one or more nodes' messages reach every node")                     \
    XX(ALLGATHER, "allgather", "every node's message reaches every node")                          \
    XX(MAX, "max", "the maximum of the processors' values")                                        \
    XX(SORT, "sort", "the processors' values in order")                                            \
    XX(SCATTER, "scatter", "the root's block x reaches node x")                                    \
    XX(GATHER, "gather", "every node's block reaches the root, in node order")                     \
    XX(REDUCE, "reduce", "the root gets the reduction (sum, max, min) of every node's block")      \
    XX(ALLREDUCE, "allreduce", "every node gets the reduction of every node's block")              \
    XX(REDUCE_SCATTER, "reduce-scatter", "node x gets the reduction of every node's block x")      \
    XX(ALLTOALL, "alltoall", "node y's block x reaches node x, for every pair")

typedef enum {
#define XX(id, name, desc) HM_CLOCK_##id,
    HM_CLOCK_MAP(XX)
#undef XX
        HM_CLOCK_COUNT
} hm_clock_mode_t;

typedef enum {
#define XX(id, name, desc) HM_ROUTING_##id,
    HM_ROUTING_MAP(XX)
#undef XX
        HM_ROUTING_COUNT
} hm_routing_t;

typedef enum {
    HM_PROBLEM_NONE, /* 0: not said (null in the catalogue) */
#define XX(id, name, desc) HM_PROBLEM_##id,
    HM_PROBLEM_MAP(XX)
#undef XX
        HM_PROBLEM_COUNT
} hm_problem_t;

/* Restrictions an algorithm places on the machine, read by config checking and
 * printed by --list. Zero means no restriction, so a descriptor lists only what it
 * needs. */
typedef struct hm_needs_s {
    unsigned routing;      /* HM_BIT(HM_ROUTING_...) it runs under; 0: both */
    unsigned clock_modes;  /* HM_BIT(HM_CLOCK_...) it runs under; 0: every mode. The local
                              clock has the slotted clock's semantics: a mask with
                              HM_CLOCK_SLOTTED allows HM_CLOCK_LOCAL too */
    const char *clock_why; /* why the other modes cannot run it, in words */
    int min_dim;           /* hypercube: the smallest dimension; 0: any */
    int pow2_nodes;        /* 1: the number of nodes must be a power of two */
} hm_needs_t;

typedef enum { HM_PARAM_INT, HM_PARAM_STRING, HM_PARAM_INT_LIST, HM_PARAM_ENUM } hm_param_type_t;

/* A quantity of the machine, as data: a typed parameter's bound or default can name
 * one instead of a constant (root in 0..p-1 is .max_of = HM_QTY_NODES_MINUS_1). */
#define HM_QTY_MAP(XX)                                                                             \
    XX(NODES, "p", "the number of nodes")                                                          \
    XX(NODES_MINUS_1, "p-1", "the highest node number")                                            \
    XX(DIM, "d", "the hypercube's dimension")                                                      \
    XX(DIM_MINUS_1, "d-1", "the highest dimension (0 on Q_0)")                                     \
    XX(PROCESSORS, "k", "bus: the processors, nodes - 1")                                          \
    XX(PROCESSORS_X3, "3k", "bus: three values per processor")

typedef enum {
    HM_QTY_NONE, /* 0: the constant field applies */
#define XX(id, name, desc) HM_QTY_##id,
    HM_QTY_MAP(XX)
#undef XX
        HM_QTY_COUNT
} hm_qty_t;

/* The value of quantity q on machine mi (constant when q is HM_QTY_NONE). */
int64_t hm_qty_value(hm_qty_t q, const hm_machine_info_t *mi, int64_t constant);
/* Its name in the catalogue ("p-1"), "" for HM_QTY_NONE. */
const char *hm_qty_name(hm_qty_t q);

/* Flags of a typed parameter. */
enum {
    HM_PARAM_OPTIONAL = 1, /* the loader does not fill it in: setup asks hm_param_is_set
                              (the default, if any, is what the getter returns) */
    HM_PARAM_DISTINCT = 2, /* INT_LIST: no element twice */
};

/* A typed parameter: the config loader checks it (type, range, choices, length) and
 * fills the "algorithm" object with its default, --list and --list --json print it,
 * setup reads it with hm_param_get_*. The range and the default live here only.
 *
 *     #define SUCC_VARIANT_MAP(XX)                                                  \
 *         XX(SEQUENTIAL, "sequential") XX(INTERLEAVED, "interleaved") XX(ROTATED, "rotated")
 *     enum { SUCC_VARIANT_MAP(HM_ENUM_ID) };
 *     static const char *const succ_variants[] = {SUCC_VARIANT_MAP(HM_ENUM_NAME) NULL};
 *     static const hm_param_spec_t succ_specs[] = {
 *         {.name = "variant", .type = HM_PARAM_ENUM, .choices = succ_variants,
 *          .def = ROTATED, .help = "how the p broadcasts are scheduled"},
 *         {.name = "root", .type = HM_PARAM_INT, .max_of = HM_QTY_NODES_MINUS_1,
 *          .help = "the node that broadcasts"},            // 0..p-1, default 0
 *         HM_PARAM_END,
 *     };
 *     ... in setup: int v = hm_param_get_enum(s, "variant");
 *                   int64_t root = hm_param_get_int(s, "root");
 */
typedef struct hm_param_spec_s {
    const char *name;
    hm_param_type_t type; /* HM_PARAM_INT, HM_PARAM_ENUM or HM_PARAM_INT_LIST */
    const char *help;
    /* INT: range and default. INT_LIST: range of every element. ENUM: def is the index
     * of the default choice. */
    int64_t min, max, def;
    hm_qty_t min_of, max_of, def_of; /* a machine quantity in place of min, max, def */
    const char *const *choices;      /* ENUM: NULL-terminated, from an X-macro */
    int64_t len_min, len_max;        /* INT_LIST: the number of elements */
    hm_qty_t len_min_of, len_max_of;
    unsigned flags;           /* HM_PARAM_OPTIONAL, HM_PARAM_DISTINCT */
    const char *only_if;      /* "variant=esbt": legal only when that enum parameter has that
                                 value (the loader refuses it otherwise) */
    const char *default_text; /* OPTIONAL: what applies when it is absent, in words */
} hm_param_spec_t;

#define HM_PARAM_END                                                                               \
    {                                                                                              \
        .name = NULL                                                                               \
    }
/* X-macro helpers for enum choices: XX(ID, "name", ...) rows. */
#define HM_ENUM_ID(id, ...) id,
#define HM_ENUM_NAME(id, name, ...) name,

struct hm_algorithm_s;

/* What setup receives. params is the config's "algorithm" object, with the typed
 * parameters' defaults filled in by the loader. */
typedef struct hm_setup_s {
    const hm_machine_info_t *machine;
    const json_t *params;
    const char *file;                       /* config file name, for messages */
    void *state;                            /* out: the algorithm's state, given to every node */
    char error[512];                        /* out: message if setup returns nonzero */
    const struct hm_algorithm_s *algorithm; /* whose specs the getters read (may be NULL) */
    size_t out_size; /* out: bytes of each node's output area (hm_out) when they depend on
                        the config; 0 keeps the descriptor's out_size */
    int64_t cost;    /* out: the run's exact slot count when setup knows it, else 0; a config
                        without clock.max_slots then gets twice it when above the default
                        (doc/config.md, clock.max_slots) */
} hm_setup_t;

/* What verify receives and fills after the run. */
typedef struct hm_report_s {
    const hm_machine_info_t *machine;
    void *state;
    int64_t completion_slots;
    /* Filled by verify: */
    int verified;
    char verification[256];
    const char *bound_expr;
    int64_t bound; /* -1 if none */
    const char *lower_expr;
    int64_t lower;     /* -1 if none */
    json_t *extra;     /* object: algorithm-specific keys for the summary */
    const char *error; /* set by verify when it could not check (out of memory): the
                          run exits 4 with this reason */
    const void *priv;  /* the engine's; use hm_report_stores and hm_report_out */
} hm_report_t;

/* Values stored by node `node` during the run (hm_store), in order. */
const int64_t *hm_report_stores(const hm_report_t *r, int node, size_t *count);

/* Node `node`'s output area as the run left it (hm_out), or NULL. */
const void *hm_report_out(const hm_report_t *r, int node);

/* Where checked values come from (README "What verified means"). verify calls it for
 * the values it vouches for: stores first .. first + count - 1 of node `node` carry
 * information from node `source`, or from every node with HM_FROM_ALL (a reduction).
 * After verify the engine holds them to its rules, and a run that breaks one is not
 * verified (exit 1): a value is stored only once a chain of packets the node read leads
 * back to its source (or, where silence carries information and above 4,096 nodes, its
 * source's light cone reaches the node); no node stores more values from other nodes
 * than the words delivered to it (a packet's value counts 1, its payload ceil(len / 8));
 * where the problem passes values on unchanged, a value stored as another node's came
 * in a packet the node read by then (its value or a whole int64 word of its payload). A
 * store declared twice counts once (its first source). Returns 0, or HM_EINVAL (node, source or the
 * range out of bounds; called outside verify), HM_ENOMEM. */
#define HM_FROM_ALL (-1)
int hm_report_from(hm_report_t *r, int node, size_t first, size_t count, int source);

/* Typed parameters, in setup: the value the config gave or the loader filled in, else
 * the spec's default on this machine. Asking for a name that is not in the
 * algorithm's specs is a programming error (the program aborts, naming it). */
int64_t hm_param_get_int(const hm_setup_t *s, const char *name);
/* The index of the chosen value in the spec's choices. */
int hm_param_get_enum(const hm_setup_t *s, const char *name);
/* An INT_LIST: copies up to cap elements into out, returns the number of elements
 * (0 when absent). */
size_t hm_param_get_list(const hm_setup_t *s, const char *name, int64_t *out, size_t cap);
/* 1 if the config gave the parameter (or the loader filled it in), else 0. */
int hm_param_is_set(const hm_setup_t *s, const char *name);
/* The spec named name in specs (terminated by HM_PARAM_END), NULL if none. */
const hm_param_spec_t *hm_param_spec_find(const hm_param_spec_t *specs, const char *name);

/* Write a setup error "FILE: algorithm.PARAM: found FOUND; allowed: ALLOWED" into
 * s->error, naming the parameter, what was found and what is allowed; returns -1. */
int hm_setup_fail(hm_setup_t *s, const char *param, const char *found, const char *allowed);

typedef struct hm_algorithm_s {
    const char *name;              /* stable identifier, e.g. "sbt-broadcast" */
    const char *description;       /* one line */
    const char *paper;             /* paper and section */
    unsigned topologies;           /* HM_BIT(HM_TOPO_...) set */
    unsigned ports;                /* HM_BIT(HM_PORTS_...) where it is legal */
    hm_ports_kind_t default_ports; /* the paper's model, used when the config has none */
    int (*setup)(hm_setup_t *s);
    void (*node_main)(hm_node_t *n, void *state);
    void (*verify)(hm_report_t *r);
    void (*teardown)(void *state);
    const hm_param_spec_t *specs; /* typed parameters, terminated by HM_PARAM_END; or NULL */
    hm_needs_t needs;             /* restrictions ("requires" in --list --json) */
    hm_problem_t problem;         /* what it solves, HM_PROBLEM_NONE if not said */
    size_t out_size;              /* bytes of each node's output area (hm_out), 0 for none */
    /* The problem's inputs and root as the state holds them, behind hm_input and
     * hm_root (NULL: none); called from node threads, so they only read the state. */
    const int64_t *(*input)(const void *state, int node, size_t *count);
    int (*root)(const void *state);
} hm_algorithm_t;

/* The catalogue: NULL-terminated. */
extern const hm_algorithm_t *const hm_algorithms[];
const hm_algorithm_t *hm_algorithm_find(const char *name);

const char *hm_topology_name(hm_topology_kind_t k);
const char *hm_ports_name(hm_ports_kind_t k);
const char *hm_clock_name(hm_clock_mode_t k);
const char *hm_routing_name(hm_routing_t k);
const char *hm_problem_name(hm_problem_t k); /* NULL for HM_PROBLEM_NONE */

/* ------------------------------------------------------------------------ */
/* Node programs outside the tree: plugins (README "Writing node programs   */
/* outside the tree", hypemu(3))                                             */
/* ------------------------------------------------------------------------ */

/* HM_ABI_VERSION (hypemu/version.h, set in configure.ac) is the version of the plugin
 * interface: hm_plugin_t, hm_algorithm_t and the structures it points to. hypemu refuses a
 * plugin built with another one (exit 2, naming the file). */

/* What a plugin exports, under the symbol name hm_plugin; written by HM_PLUGIN. */
typedef struct hm_plugin_s {
    int abi;                                 /* HM_ABI_VERSION of the hypemu.h it was built with */
    unsigned descriptor_size;                /* sizeof(hm_algorithm_t) there */
    const char *version;                     /* HM_VERSION there */
    const hm_algorithm_t *const *algorithms; /* its algorithms, NULL-terminated */
} hm_plugin_t;

#ifdef __cplusplus
#define HM__PLUGIN_LINKAGE extern "C" __attribute__((visibility("default")))
#else
#define HM__PLUGIN_LINKAGE __attribute__((visibility("default")))
#endif

/* Declare the algorithms of a plugin, once, at file scope:
 *
 *     static const hm_algorithm_t flood = {.name = "my-flood", ...};
 *     HM_PLUGIN(&flood);
 *
 * and build it with cc -shared -fPIC -o x.so x.c $(pkg-config --cflags --libs hypemu).
 * A plugin whose .problem names a problem other than max and sort leaves .setup NULL (hypemu
 * refuses it otherwise): the problem makes the inputs (read with hm_root, hm_input and
 * hm_op, which give -1, NULL and HM_OP_SUM to algorithms without inputs), always checks the
 * stores and gives the lower bound, as for the collectives (doc/collectives.md). The
 * plugin's own .verify, if any, runs after the problem's check: it may add a failure, never
 * take one away. verify and teardown may be NULL. */
#define HM_PLUGIN(...)                                                                             \
    static const hm_algorithm_t *const hm__plugin_algorithms[] = {__VA_ARGS__, NULL};              \
    HM__PLUGIN_LINKAGE const hm_plugin_t hm_plugin = {                                             \
        HM_ABI_VERSION, (unsigned)sizeof(hm_algorithm_t), HM_VERSION, hm__plugin_algorithms}

/* The hypemu command line (README "Command line") as a function: the program is
 * main() { return hm_main(argc, argv); }. Returns the exit code. */
int hm_main(int argc, char **argv);

#ifdef __cplusplus
}
#endif
#endif /* HYPEMU_H */
