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
 * Slot semantics (SPEC section 3). Time is counted in whole slots from 0. Every node
 * is a POSIX thread. During slot t a node may send; a packet sent in slot t is
 * received by the neighbour in slot t and can be read by it from slot t + 1, so it can
 * be forwarded in slot t + 1. A node acts in a slot until it calls one of the wait
 * functions; the engine closes slot t once every node active in it has waited or
 * returned, checks every transmission of the slot against the port model, delivers
 * the packets, and opens the next slot in which some node has something to do.
 *
 * A minimal broadcast from node 0 over a hypercube, with every node forwarding what
 * it receives across every dimension above the one it came from (a binomial tree):
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
 * run is being stopped (deadlock, max_slots, a strict port-model violation). A node
 * program must return from its main function as soon as it sees a negative code.
 */
#ifndef HYPEMU_H
#define HYPEMU_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HM_VERSION "0.1.0"

/* Return codes. 0 is success; everything else is negative. */
enum {
    HM_OK = 0,
    HM_EABORT = -1, /* the run is stopping: return from the node program */
    HM_EINVAL = -2, /* bad argument (port out of range, empty port set...) */
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

/* Identity and neighbourhood. */
int hm_id(const hm_node_t *n);                 /* this node's number */
int hm_nodes(const hm_node_t *n);              /* number of nodes in the machine */
int hm_degree(const hm_node_t *n);             /* number of ports of this node */
int hm_neighbor(const hm_node_t *n, int port); /* node at the other end, -1 if none */
int hm_port_to(const hm_node_t *n, int node);  /* port that leads to node, -1 if none */

/* The current slot, counted from 0. */
int64_t hm_now(const hm_node_t *n);

/* Send one packet on one port in the current slot. */
int hm_send(hm_node_t *n, int port, const hm_packet_t *p);

/* Send one message to any node under circuit routing (SPEC section 5, Seidel
 * section 2). The message follows the shortest path (in a mesh along the row first,
 * then the column), holds every link of the path while it travels and does not
 * involve the nodes on the way. It lasts ceil(k / link_capacity) * a * len + b slots
 * (rounded up to whole slots, at least 1), k being the largest number of circuits
 * that share one of its links when it starts; it is received in its last slot and
 * can be read from the next one.
 *
 * The call does not wait: the engine copies p (and its bytes) and starts the message
 * as soon as the node's transmit port is free (a node transmits one message at a
 * time, in the order of its calls) and the destination's receive port is free (a
 * node receives one message at a time). A message that must wait for a busy receive
 * port (port contention), or that shares a link with more than link_capacity other
 * circuits (link contention), is a conflict: under "strict" contention the run stops,
 * under "queue" it is serialised or slowed as the cost model says, and counted.
 * Returns 0, HM_EINVAL (dest out of range or the node itself), HM_ENOMEM or
 * HM_EABORT. Under packet routing dest must be a neighbour and this is hm_send on
 * the port that leads to it. */
int hm_send_to(hm_node_t *n, int dest, const hm_packet_t *p);

/* Shout: one emission of one packet on every port whose bit is set in ports. Under
 * the shout port model this is a single emission; under the other models it is one
 * packet per port. */
int hm_shout(hm_node_t *n, uint64_t ports, const hm_packet_t *p);

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

/* End this node's slot and sleep until slot `slot` (> now). Packets arriving meanwhile
 * wait in the mailboxes. Returns 0 or HM_EABORT. */
int hm_wait_until(hm_node_t *n, int64_t slot);

/* hm_wait_until(n, hm_now(n) + 1). */
int hm_next_slot(hm_node_t *n);

/* Keep the node busy for `slots` slots (local work such as copying: Seidel's rho*m).
 * Counts towards the completion time. Returns 0 or HM_EABORT. */
int hm_busy(hm_node_t *n, int64_t slots);

/* Record a value for verification, in order. Shown in the logs as "store". */
void hm_store(hm_node_t *n, int64_t value);

/* Log an algorithm event (printf format), shown in the timeline and event logs. */
void hm_log(hm_node_t *n, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The node program cannot go on (an allocation failed, say): the run stops at the
 * end of this slot with exit 4 and the message "node N: what". Return from the node
 * program after calling it. */
void hm_fail(hm_node_t *n, const char *what);

/* The algorithm's state built by setup (read-only during the run). */
void *hm_state(const hm_node_t *n);

/* ------------------------------------------------------------------------ */
/* Machine description, seen by setup and verify                             */
/* ------------------------------------------------------------------------ */

/* Topologies and port models, each one bit so descriptors can say which they need. */
#define HM_TOPOLOGY_MAP(XX)                                                                        \
    XX(HYPERCUBE, "hypercube", "d-dimensional hypercube Q_d, port i joins x and x^2^i")            \
    XX(LINEAR, "linear", "linear array of n nodes, no wrap-around")                                \
    XX(MESH, "mesh", "r x c mesh, node (i,j) = i*c + j, no wrap-around")                           \
    XX(BUS, "bus", "one shared broadcast channel, k processors and output processor k")

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
    int rows, cols; /* mesh (linear: rows = 1, cols = nodes) */
    hm_ports_kind_t ports;
    int link_capacity; /* packets or circuits per directed link per slot */
    int circuit;       /* 1 under "routing": "circuit" */
    /* Seidel's cost model (SPEC section 5), used under circuit routing: a message of
     * m bytes lasts ceil(k/link_capacity)*cost_a*m + cost_b slots; copying m bytes in
     * a node costs cost_rho*m slots; cost_a = link_capacity * cost_abar. */
    double cost_a, cost_abar, cost_b, cost_rho;
    uint64_t seed;
} hm_machine_info_t;

/* ------------------------------------------------------------------------ */
/* Algorithm descriptor                                                      */
/* ------------------------------------------------------------------------ */

typedef enum { HM_PARAM_INT, HM_PARAM_STRING, HM_PARAM_INT_LIST } hm_param_type_t;

/* One parameter of an algorithm. For strings, `allowed` lists the values separated by
 * '|', and the config loader rejects anything else; for integers it is documentation
 * ("0..p-1") and setup checks the range. */
typedef struct hm_param_s {
    const char *name;
    hm_param_type_t type;
    const char *allowed;
    const char *defval; /* NULL if required */
    const char *help;
} hm_param_t;

/* What setup receives. params is the config's "algorithm" object. */
typedef struct hm_setup_s {
    const hm_machine_info_t *machine;
    const json_t *params;
    const char *file; /* config file name, for messages */
    void *state;      /* out: the algorithm's state, given to every node */
    char error[512];  /* out: message if setup returns nonzero */
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
    const void *priv;  /* the engine's; use hm_report_stores */
} hm_report_t;

/* Values stored by node `node` during the run (hm_store), in order. */
const int64_t *hm_report_stores(const hm_report_t *r, int node, size_t *count);

/* Helpers for setup: read parameters with defaults and name the JSON path on error.
 * They return 0, or -1 after writing a message "FILE: algorithm.NAME: ..." into
 * s->error. */
int hm_param_int(hm_setup_t *s, const char *name, int64_t def, int64_t min, int64_t max,
                 int64_t *out);
int hm_param_string(hm_setup_t *s, const char *name, const char *def, const char **out);
/* Write a setup error naming the parameter, what was found and what is allowed. */
int hm_setup_fail(hm_setup_t *s, const char *param, const char *found, const char *allowed);

typedef struct hm_algorithm_s {
    const char *name;              /* stable identifier, e.g. "sbt-broadcast" */
    const char *description;       /* one line */
    const char *paper;             /* paper and section */
    unsigned topologies;           /* HM_BIT(HM_TOPO_...) set */
    unsigned ports;                /* HM_BIT(HM_PORTS_...) where it is legal */
    hm_ports_kind_t default_ports; /* the paper's model, used when the config has none */
    const hm_param_t *params;      /* terminated by {NULL} */
    int (*setup)(hm_setup_t *s);
    void (*node_main)(hm_node_t *n, void *state);
    void (*verify)(hm_report_t *r);
    void (*teardown)(void *state);
} hm_algorithm_t;

/* The catalogue: NULL-terminated. */
extern const hm_algorithm_t *const hm_algorithms[];
const hm_algorithm_t *hm_algorithm_find(const char *name);

const char *hm_topology_name(hm_topology_kind_t k);
const char *hm_ports_name(hm_ports_kind_t k);

#ifdef __cplusplus
}
#endif
#endif /* HYPEMU_H */
