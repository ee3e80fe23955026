/* SPDX-License-Identifier: MIT */
/*
 * problem.h — the eight collective problems (doc/collectives.md): what is computed,
 * independent of the algorithm that computes it. A problem owns
 *
 *   - its inputs, generated in setup from the run's seed (splitmix64, rng.h) with a
 *     block size (values per node, or per node and destination) and a root;
 *   - its reduction operator (sum, max, min over int64) where it reduces;
 *   - its check, from the stores alone: what each node must store, in which order;
 *   - its lower bounds for the machine and port model at hand.
 *
 * A collective algorithm's state is an hma_prob_t (read-only during the run but for
 * each node's own counters); node programs read their input and the root with the
 * public hm_input(n, &count) and hm_root(n), which the engine answers through the
 * descriptor's .input and .root (HMA_PROB_IO).
 *
 * What node x stores (hm_store), in this order, b being the block:
 *
 *   broadcast       every node: the root's b values
 *   scatter         node x: the root's block x (values x*b .. x*b+b-1 of its p*b)
 *   gather          the root: block 0 .. block p-1, block y being node y's b values;
 *                   other nodes nothing
 *   reduce          the root: op over y of value i of node y, i = 0..b-1; others nothing
 *   allreduce       every node: as reduce's root
 *   allgather       every node: as gather's root
 *   reduce-scatter  node x: op over y of value x*b+i of node y (y's block x), i < b
 *   alltoall        node x: for y = 0..p-1, node y's block x (p*b values)
 */
#ifndef HMA_ALGO_PROBLEM_H
#define HMA_ALGO_PROBLEM_H

#include <stddef.h>
#include <stdint.h>

#include "coll_core.h"
#include "hypemu.h"

/* The problem is the public hm_problem_t (HM_PROBLEM_BROADCAST .. HM_PROBLEM_ALLTOALL,
 * hypemu.h); the descriptor's .problem says it for --list --json. */

/* The reduction operators, XX(id, name): the "op" parameter's choices. */
#define HMA_OP_MAP(XX) XX(HMA_OP_SUM, "sum") XX(HMA_OP_MAX, "max") XX(HMA_OP_MIN, "min")

typedef enum { HMA_OP_MAP(HM_ENUM_ID) } hma_op_t;

/* "sum", "max", "min", NULL. */
extern const char *const hma_prob_op_names[];

/* Per node, in its output area (hm_out: every collective declares out_size =
 * sizeof(hma_prob_count_t)), written by that node only, read by verify after the run. */
typedef struct hma_prob_count_s {
    int64_t packets, values, max_values;
} hma_prob_count_t;

typedef struct hma_prob_s {
    hm_problem_t kind;
    int p, d; /* nodes, log2 p (0 on a ring) */
    int ring; /* 0 on the hypercube, 1 on a ring (any p >= 2), 2 on a torus */
    int full; /* 1 on the bus topology: every node a neighbour (any p >= 2) */
    int lg;   /* ceil(log2 p): d on the hypercube */
    int *cyc_at, *cyc_pos, *cyc_next, *cyc_prev; /* ring, torus: the cycle (problem.c) */
    int root;                                    /* -1 for rootless problems */
    int block;                                   /* b */
    hma_op_t op;                                 /* reductions only */
    int64_t **in;                                /* in[x]: node x's input, incount[x] values */
    size_t *incount;
    int64_t *storage;
    int given;   /* 1: the inputs came from the config ("inputs", inputs.c) */
    int64_t aux; /* free for the algorithm (a parameter it reads in setup) */
    int direct;  /* route "direct" (hma_prob_take_route): one circuit a message */
    /* Bus, p not a power of two: the slot in which step j starts (setup fills it, see
     * hma_prob_set_steps), for the nodes that must not send before their step. */
    int64_t step_at[40];
    /* 1: the halving, doubling and scatter-tree steps wait for step_at (unequal parts) */
    int step_waits;
    int64_t ring_step; /* > 0: van de Geijn's ring step t waits for aux + t * ring_step */
    void *alg; /* the algorithm's own read-only data, built in setup; hma_prob_free frees it */
} hma_prob_t;

/* The descriptor's typed parameters (.specs), the same in every collective: the
 * range and default live here only; hma_prob_setup reads them. */
#define HMA_PROB_PARAM_BLOCK                                                                       \
    {                                                                                              \
        .name = "block", .type = HM_PARAM_INT, .min = 1, .max = 65536, .def = 1,                   \
        .help = "values per node (per destination where each has one)"                             \
    }
#define HMA_PROB_PARAM_ROOT                                                                        \
    {                                                                                              \
        .name = "root", .type = HM_PARAM_INT, .max_of = HM_QTY_NODES_MINUS_1,                      \
        .help = "the root node"                                                                    \
    }
#define HMA_PROB_PARAM_OP                                                                          \
    {                                                                                              \
        .name = "op", .type = HM_PARAM_ENUM, .choices = hma_prob_op_names, .def = HMA_OP_SUM,      \
        .help = "reduction operator over int64"                                                    \
    }
/* "route" (the pairwise exchanges and Bruck's algorithms, doc/collectives.md): relay a
 * message to a node that is not a neighbour hop by hop (each hop one message), or send it
 * direct, one circuit along the topology's route (circuit routing: the e-cube path on the
 * hypercube, the shorter arc on the ring; on the bus every partner is a neighbour and
 * both are the same). */
#define HMA_ROUTE_MAP(XX) XX(HMA_ROUTE_RELAY, "relay") XX(HMA_ROUTE_DIRECT, "direct")
typedef enum { HMA_ROUTE_MAP(HM_ENUM_ID) } hma_route_t;
extern const char *const hma_prob_route_names[];
#define HMA_PROB_PARAM_ROUTE                                                                       \
    {                                                                                              \
        .name = "route", .type = HM_PARAM_ENUM, .choices = hma_prob_route_names,                   \
        .def = HMA_ROUTE_RELAY,                                                                    \
        .help = "relay: hop by hop between neighbours; direct: one circuit a message (circuit "    \
                "routing; e-cube path on the hypercube, shorter arc on the ring)"                  \
    }
/* "inputs": node x's input values from the config instead of the seed (inputs.c). */
#define HMA_PROB_PARAM_INPUTS                                                                      \
    {                                                                                              \
        .name = "inputs", .type = HM_PARAM_STRING, .flags = HM_PARAM_OPTIONAL,                     \
        .help = "node x's input values: an array of p arrays of integers, or a file of p lines "   \
                "(relative to the config)",                                                        \
        .default_text = "generated from the seed"                                                  \
    }
#define HMA_PROB_PARAM_END HMA_PROB_PARAM_INPUTS, HM_PARAM_END
/* The largest input value (in absolute value) the config may give: a sum over the
 * largest machine, 2^24 nodes (doc/config.md "Config ranges"), stays within int64 (2^38 * 2^24 =
 * 2^62). */
#define HMA_PROB_INPUT_MAX (INT64_C(1) << 38)
/* Replace the generated inputs by the config's "inputs" when given (inputs.c): 0, or -1
 * with s->error naming algorithm.inputs, what was found and what is allowed. */
int hma_prob_take_inputs(hm_setup_t *s, hma_prob_t *pb);

/* The end of a collective's setup: s->state = pb, and s->cost the algorithm's exact cost,
 * which its own verify computes from the problem and the machine alone (run here over no
 * stores: the check fails, the bound is the formula's). Returns 0, or -1 when pb is NULL. */
int hma_prob_ready(hm_setup_t *s, hma_prob_t *pb);
/* hma_prob_setup, then "route" read into pb->direct: NULL with s->error written where
 * "direct" is not offered (it needs circuit routing but on the bus; not on the torus). */
hma_prob_t *hma_prob_setup_routed(hm_setup_t *s, hm_problem_t kind);
/* Under route direct on the ring, a step of distance dist (every node sending dist
 * positions on) puts min(dist, p - dist) circuits on every link of its direction: the
 * factor ceil(that / link_capacity) of each message's a*m (doc/config.md, ports.cost); 1
 * elsewhere (e-cube circuits of a shift or an XOR step share no link). */
int64_t hma_prob_arc_factor(const hma_prob_t *pb, const hm_machine_info_t *mi, int64_t dist);
/* Bruck's algorithms: the position of node x (node x itself on the bus and under route
 * direct on the hypercube, where step k is the shift x -> x + 2^k mod p; the cycle's,
 * hma_prob_pos, elsewhere), the node at position pos, and the slots under circuit routing:
 * sum over the steps h = 2^k < p of (h hops relayed, or one direct message) of
 * D(factor * b * blocks(p, h)) (factor: hma_prob_arc_factor). */
int hma_prob_bruck_pos(const hma_prob_t *pb, int x);
int hma_prob_bruck_node(const hma_prob_t *pb, int pos);
int64_t hma_prob_bruck_slots(const hma_prob_t *pb, const hm_machine_info_t *mi,
                             int64_t (*blocks)(int64_t p, int64_t h));
/* Bruck's step k (dist = 2^k) at position pos: send k values of v to position
 * pos + dist (one direct message, or relayed dist hops along the cycle), take the
 * step's values from pos - dist into out; 0 or a negative HM_E code. Then the node's
 * answer: buf holds the blocks by distance back from pos, stored by node. */
int hma_prob_bruck_step(hm_node_t *n, const hma_prob_t *pb, int pos, int dist, int k,
                        const int64_t *v, int64_t *out, size_t count);
void hma_prob_bruck_store(hm_node_t *n, const hma_prob_t *pb, int pos, const int64_t *buf);
/* One step of a direct exchange: send k values of v to node `to` in one message
 * (hm_send_to: the neighbour's port on the bus, one circuit under circuit routing),
 * counted as hma_prob_send counts, then take this step's message into out (at most cap
 * values; v may be out). Returns 0 or a negative HM_E code. */
int hma_prob_exchange(hm_node_t *n, const hma_prob_t *pb, int to, int msg, const int64_t *v,
                      size_t k, int64_t *out, size_t cap);

/* The transport of the shared schedules (coll_core.h) over the problem's packets: peers are
 * relative numbers (ring 0: the port hma_prob_port_rel on the bus, the dimension of peer XOR me
 * on the hypercube), cycle positions (ring 1: the port to the next position, hma_prob_next) or
 * chain positions from root (ring 2: hma_prob_next to a higher one, hma_prob_prev to a lower),
 * sends counted by hma_prob_send, receives the next packet (lock step), the problem's op,
 * hm_show, hma_prob_show_parts over off (set it for hma_coll_allgather_ring), hm_next_slot and
 * hma_prob_wait for pb->step_at[step]. */
typedef struct hma_coll_prob_s {
    hm_node_t *n;
    const hma_prob_t *pb;
    int me, ring, root; /* root: of the chain (ring 2) */
    int fold;           /* ring 0 on the bus: peers are new ranks (hma_prob_fold_old), of
                           keep_odd fold - 1; 0: relative numbers */
    const size_t *off;
    hma_coll_io_t io;
} hma_coll_prob_t;
const hma_coll_io_t *hma_coll_prob(hma_coll_prob_t *c, hm_node_t *n, const hma_prob_t *pb, int me,
                                   int ring);
/* Its exchange for the pairwise steps (me a node): one direct message (the bus, or one
 * circuit with route direct), or along the dimensions of me XOR to (e-cube routing, hop by
 * hop), hma_prob_exchange or hma_prob_xor_route. */
int hma_coll_prob_pairwise(void *ctx, int to, int from, int step, const void *v, void *out,
                           size_t count);
/* Its exchange for Bruck's steps (me a cycle position): hma_prob_bruck_step to `to`. */
int hma_coll_prob_bruck(void *ctx, int to, int from, int step, const void *v, void *out,
                        size_t count);

/* Whether problem k has a root (broadcast, scatter, gather, reduce) and whether it
 * reduces (reduce, allreduce, reduce-scatter). */
int hma_prob_rooted(hm_problem_t k);
int hma_prob_reduces(hm_problem_t k);

/* Setup: reads "block", "root" (rooted problems) and "op" (reductions), checks the
 * machine (a hypercube of 2 nodes or more) and generates the inputs. Returns NULL
 * with s->error written. */
hma_prob_t *hma_prob_setup(hm_setup_t *s, hm_problem_t kind);
void hma_prob_free(void *pb);

/* The descriptor's .input and .root: node programs read them with the public
 * hm_input(n, &count) and hm_root(n) (-1 for rootless problems). */
const int64_t *hma_prob_input(const void *state, int node, size_t *count);
int hma_prob_root(const void *state);
#define HMA_PROB_IO .input = hma_prob_input, .root = hma_prob_root

/* acc[i] = acc[i] op v[i], i < k. */
void hma_prob_combine(const hma_prob_t *pb, int64_t *acc, const int64_t *v, size_t k);

/* Send k values (the payload) on a port, counted in the node's counters; tag and msg
 * are shown in the logs. */
int hma_prob_send(hm_node_t *n, const hma_prob_t *pb, int port, int msg, const int64_t *v,
                  size_t k);
/* Wait for the next packet, copy its values into v (at most cap; *k gets the number)
 * and its header into pk (may be NULL). Returns 0 or a negative HM_E code. */
int hma_prob_recv(hm_node_t *n, int64_t *v, size_t cap, size_t *k, hm_packet_t *pk);

/* A node's work array of count values (zeroed), or NULL after hm_fail. */
int64_t *hma_prob_alloc(hm_node_t *n, size_t count);

/* Store k values. */
void hma_prob_store(hm_node_t *n, const int64_t *v, size_t k);
/* Show (hm_show) parts lo, lo+1, .., lo+count-1 (mod p) of buf, whose part i is at
 * off[i] .. off[i+1]-1: a copy only when they wrap round. */
void hma_prob_show_parts(hm_node_t *n, const hma_prob_t *pb, const int64_t *buf, const size_t *off,
                         int lo, int count);

/* The value node x must store at index i, and how many it must store. */
size_t hma_prob_expected_count(const hma_prob_t *pb, int x);
int64_t hma_prob_expected(const hma_prob_t *pb, int x, size_t i);

/* Check every node's stores and declare where each comes from (hm_report_from: the
 * engine then holds them to the light cone and the volume delivered). Returns 1 if
 * right; else 0 with msg "node 5: index 3: found 17, expected 12" (or "missing" /
 * "expected nothing"). */
int hma_prob_check(const hma_prob_t *pb, hm_report_t *r, char *msg, size_t len);
/* The problem's keys in the summary: problem, block, root (rooted problems), op
 * (reductions). */
void hma_prob_summary_keys(const hma_prob_t *pb, hm_report_t *r);

/* The problem's lower bound on the machine under the port model at hand, for an
 * algorithm that puts several values in one packet (combining) or not; under circuit
 * routing the a*m + b model's bound (problem_bounds.c, circuit_lower). */
int64_t hma_prob_lower(const hma_prob_t *pb, const hm_machine_info_t *mi, int combining,
                       const char **expr);
/* The bound that holds for any algorithm whatever it packs into a message (a plugin's):
 * the latency alone, the diameter, the root's eccentricity or ceil(log2 p) under packet
 * routing, ceil(log2 p) shortest circuits (of 0 bytes) under circuit routing (doc/collectives.md,
 * "Lower bounds"). On every topology. */
int64_t hma_prob_lower_any(const hma_prob_t *pb, const hm_machine_info_t *mi, const char **expr);

/* The whole verify of a collective: the problem's check, then completion == the
 * algorithm's exact cost `bound` (expression expr); fills bound, lower bound and the
 * summary's extra keys (problem, block, root, op, packets, values, combining). */
void hma_prob_verify(hm_report_t *r, const char *expr, int64_t bound, int combining);

/* The verify of the binomial trees that carry the whole block each step (bcast-binomial,
 * reduce-binomial): exactly ceil(log2 p) steps, one message of b values each. */
void hma_prob_verify_tree(hm_report_t *r);
/* The same for scatter and gather on the binomial tree (blocks halve or double a level). */
void hma_prob_verify_halving(hm_report_t *r);

/* Under circuit routing to neighbours (Seidel's a*m + b, doc/config.md,
 * ports.cost): the slots one message of k int64 values (8k bytes) lasts on a link of
 * its own, max(1, ceil(a*8k + b)), as src/engine/circuit.c counts them. */
int64_t hma_prob_msg_slots(const hm_machine_info_t *mi, size_t k);
/* sum over i < d of hma_prob_msg_slots(mi, k*2^i): d messages one after the other, each
 * twice the one before (recursive doubling, binomial scatter and gather) or, read
 * backwards, each half the one before (recursive halving). */
int64_t hma_prob_doubling_slots(const hm_machine_info_t *mi, size_t k, int d);

/* The 2^k chunks [b*c/2^k, b*(c+1)/2^k) of b values (hma_prob_offsets) halved k times:
 * sum_{i<k} D(ceil(b*2^i/2^k)), the longest 2^i chunks of each step. */
int64_t hma_prob_halving_slots(const hm_machine_info_t *mi, size_t b, int k);
/* Rabenseifner's reduce and allreduce under circuit routing with a block 2^k (k =
 * hma_prob_fold_k) does not divide: the chunks are of unequal length, so every node
 * waits for the longest message of the step before (pb->step_waits): step_at[first + s]
 * for halving step s (bit k-1-s) and step_at[first + k + s] for doubling or gather step s
 * (bit s), first = 1 after the fold (p not a power of two). Nothing otherwise. Van de
 * Geijn's broadcast on the hypercube uses the same steps: its scatter tree's step s
 * (hma_prob_scatter_tree) carries what halving step s does, its doubling step s
 * (hma_prob_allgather_rd) what doubling step s does. */
void hma_prob_set_halving_steps(hma_prob_t *pb, const hm_machine_info_t *mi);

/* The binomial scatter and gather under circuit routing: the root's messages of
 * p - 2^(lg-1), 2^(lg-2), .., 1 blocks one after the other (the chain to node 1 is the
 * longest; the others' messages are no longer): D(b*(p - 2^(lg-1))) + sum_{i<lg-1}
 * D(b*2^i), that is sum_{i<d} D(b*2^i) on a power of two. */
int64_t hma_prob_tree_slots(const hm_machine_info_t *mi, const hma_prob_t *pb);
#define HMA_PROB_TREE_EXPR                                                                         \
    "ceil(8a*block*(p-2^(ceil(log2(p))-1))+b)+sum_{i<ceil(log2(p))-1} ceil(8a*block*2^i+b)"

/* The verify of the algorithms made of a halving phase and its mirror (scatter then
 * allgather, reduce-scatter then allgather or gather), each in d steps of b*2^i/p values:
 * 2*log2(p) slots, or 2*sum_i D(ceil(b*2^i/p)) under circuit routing. */
void hma_prob_verify_halving_pair(hm_report_t *r);
/* The verify of p - 1 steps of one block each (the ring and chain algorithms: allgather-
 * ring, reduce-scatter-ring, scatter-linear, gather-linear; the pairwise exchanges on the
 * bus): p - 1 slots, (p - 1)*D(b) under circuit routing. */
void hma_prob_verify_steps(hm_report_t *r);
/* The pairwise exchanges' verify: p - 1 slots on the bus, (p/2) log2 p on the hypercube. */
void hma_prob_verify_pairwise(hm_report_t *r);

/* Rabenseifner's algorithms for any p on the bus (Thakur-Rabenseifner-Gropp 2005,
 * section 4.4, MPICH's non-power-of-two handling): k = floor(log2 p) (log2 p on a power
 * of two, hma_prob_fold_k), q = 2^k, rem = p - q. Of the first 2*rem relative numbers
 * the pairs (2i, 2i+1) fold: the one of the other parity than keep_odd sends its b
 * values to its pair in step 0 and drops out (new rank -1); the keeper takes new rank
 * i; r >= 2*rem takes r - rem. hma_prob_fold_new/old map r to the new rank and back. */
int hma_prob_fold_k(const hma_prob_t *pb);
int hma_prob_fold_new(const hma_prob_t *pb, int r, int keep_odd);
int hma_prob_fold_old(const hma_prob_t *pb, int nr, int keep_odd);
/* Step 0 (p not a power of two; nothing otherwise): the dropping node sends buf (len
 * values: the block b for reduce and allreduce, p*b for reduce-scatter), its pair
 * combines them into buf (tmp: len values); every node that stays then waits for
 * pb->step_at[1] (hma_prob_set_steps, not doubling). */
int hma_prob_fold_in(hm_node_t *n, const hma_prob_t *pb, int r, int keep_odd, int64_t *buf,
                     int64_t *tmp, size_t len);
/* Over the q new ranks, buf cut into q parts (off: q + 1 entries): recursive halving
 * (new rank nr ends with part nr reduced; halving step j = 0..k-1 is step first + j,
 * first = 1 when p is not a power of two, and with pb->step_waits every node waits for
 * pb->step_at[first + j] before it: parts of unequal length; on the hypercube, nr = x
 * and keep_odd = 0, the recursive halving reduce-scatter of Thakur-Rabenseifner-Gropp
 * 2005, section 4.6), recursive doubling allgather of the parts,
 * binomial gather of the parts to new rank 0; k steps each, one message a step. */
int hma_prob_halving_fold(hm_node_t *n, const hma_prob_t *pb, int nr, int keep_odd, int64_t *buf,
                          int64_t *tmp, const size_t *off);
int hma_prob_doubling_fold(hm_node_t *n, const hma_prob_t *pb, int nr, int keep_odd, int64_t *buf,
                           const size_t *off);
int hma_prob_gather_fold(hm_node_t *n, const hma_prob_t *pb, int nr, int keep_odd, int64_t *buf,
                         const size_t *off);

/* Relative numbers for the tree and recursive-doubling algorithms (root -1: 0): on the
 * hypercube rel = x XOR root, on the bus (fully connected, any p) rel = x - root mod p.
 * hma_prob_abs is the inverse; hma_prob_port_rel the port of node n to the node of
 * relative number rel (the dimension of the difference on the hypercube). */
int hma_prob_rel(const hma_prob_t *pb, int x, int root);
int hma_prob_abs(const hma_prob_t *pb, int rel, int root);
int hma_prob_port_rel(hm_node_t *n, const hma_prob_t *pb, int rel);

/* Fill pb->step_at[0..lg]: step j starts in slot j (packet routing) or, under circuit
 * routing, after j messages of b values (j*D(b)) or, with doubling, of b, 2b, .. 2^(j-1)b
 * values (sum_{i<j} D(b*2^i)). */
void hma_prob_set_steps(hma_prob_t *pb, const hm_machine_info_t *mi, int doubling);
/* Wait (ending the node's slot) until slot `at` unless it has come. */
int hma_prob_wait(hm_node_t *n, int64_t at);
/* Whether p is a power of two. */
int hma_prob_pow2(const hma_prob_t *pb);

/* Gray-ring helpers: position of node x in the binary reflected Gray code, and the
 * port leading to the next / previous node of the ring. */
int hma_prob_gray_pos(uint32_t x);
int hma_prob_ring_next_port(int pos, int d);
int hma_prob_ring_prev_port(int pos, int d);

/*
 * Building blocks shared by the algorithms, all on relative numbers r (hma_prob_rel:
 * x XOR root on the hypercube, x - root mod p on the bus, x for rootless problems;
 * the binomial trees for any p on the bus, MPICH's: a child r + 2^i exists when it is
 * below p, and its parts end at p) and a buffer whose part c (for relative node c, or
 * chunk c) is buf[off[c] .. off[c+1]), off having p + 1 entries. Each runs in lock
 * step, one slot per step, from the slot the node is in; they return 0 or a negative
 * HM_E code. tmp holds at least off[p] values.
 */
/* Binomial scatter from r = 0, highest dimension first (slots 0..d-1): node r with
 * lowest set bit j receives parts [r, r+2^j) in slot d-1-j. */
int hma_prob_scatter_tree(hm_node_t *n, const hma_prob_t *pb, int r, int64_t *buf,
                          const size_t *off);
/* Its reverse, binomial gather to r = 0 (slots 0..d-1). */
int hma_prob_gather_tree(hm_node_t *n, const hma_prob_t *pb, int r, int64_t *buf,
                         const size_t *off);
/* Recursive doubling allgather: in step k = 0..d-1 exchange parts [r>>k<<k, +2^k). */
int hma_prob_allgather_rd(hm_node_t *n, const hma_prob_t *pb, int r, int64_t *buf,
                          const size_t *off);
/* The cycle the ring and chain algorithms run along: the ring topology itself, a
 * snake through a torus (problem.c: cycle_build, snake_odd when both sides are odd), both rotated
 * to start at the root; or the hypercube's Gray-code ring (position gray^-1(x XOR root)). root -1:
 * 0. Position of node x, node at position pos, and the ports to the next and the previous position.
 */
int hma_prob_pos(const hma_prob_t *pb, int x, int root);
int hma_prob_node(const hma_prob_t *pb, int pos, int root);
int hma_prob_next(const hma_prob_t *pb, int pos, int root);
int hma_prob_prev(const hma_prob_t *pb, int pos, int root);

/* Ring allgather along the Gray ring (p - 1 slots): the node at ring position pos
 * holds part (pos + shift) mod p, parts being numbered by ring position. */
int hma_prob_allgather_ring(hm_node_t *n, const hma_prob_t *pb, int pos, int shift, int64_t *buf,
                            const size_t *off);
/* Relay k values `hops` positions forward along the cycle (hma_prob_pos, root -1): every
 * node does the same, so in each of the hops slots every node sends one packet to the
 * next position and takes one from the previous (no conflict, one-port-full); out (k
 * values) gets what the node `hops` positions back sent. */
int hma_prob_relay(hm_node_t *n, const hma_prob_t *pb, int pos, int hops, int msg, const int64_t *v,
                   int64_t *out, size_t k);

/* Send k values to x XOR s along the dimensions of s, lowest first (e-cube routing,
 * popcount(s) slots: every node does the same, so each hop is a permutation along
 * one dimension); out gets the k values that came from x XOR s. */
int hma_prob_xor_route(hm_node_t *n, const hma_prob_t *pb, int s, const int64_t *v, int64_t *out,
                       size_t k);

/* The p + 1 offsets of total values cut into p near-equal parts, part c being
 * [total*c/p, total*(c+1)/p) (blocks of b when total = p*b); NULL after hm_fail. */
size_t *hma_prob_offsets(hm_node_t *n, size_t total, int p);

#endif
