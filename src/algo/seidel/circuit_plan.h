/* SPDX-License-Identifier: MIT */
/*
 * circuit_plan.h — broadcast plans for circuit-switched linear arrays and meshes
 * (Seidel 1993), shared by st-broadcast, bst-broadcast and rh-broadcast.
 *
 * A plan says, for every node, which pieces of the message it sends to whom, in which
 * order, and when it is busy copying. Setup builds it step by step as the paper draws
 * it (a step is one column of the paper's figures); the node program (hma_plan_node)
 * then runs it step-synchronously, as the paper's analysis assumes: a send of step s
 * starts at the step's nominal slot (hma_plan_time: the steps before it, each as long
 * as its longest message under the cost model) once its pieces are there. The node
 * program knows only those start slots; how long each message really takes, whether
 * two meet at a port or share a link, comes from the emulator alone, and the tests
 * hold it to the paper's formulas.
 *
 * The message of `bytes` bytes is cut into `pieces` = 2^k pieces of u = ceil(bytes /
 * pieces) bytes, the last ones cut at the end of the message: piece i is the bytes
 * [min(i*u, bytes), min((i+1)*u, bytes)). So a set of c pieces never holds more than
 * c*u bytes, the paper's c*m'/pieces at m' = pieces*u, and when m >= pieces/2 the
 * first half of the pieces holds exactly m'/2 bytes. A send names a set of pieces by a base and
 * a mask (base & mask = 0): the pieces base | s for every s within mask, carried in
 * increasing order. An aligned range of 2^c pieces is one mask of c low bits; the
 * interleaved sets of the recursive halving distribution and of the mesh BST (every
 * 2nd, 4th... piece) are masks of higher bits; the mesh RH sends masks with holes.
 *
 * Builders address logical nodes 0..logical-1 (a 2^d1 x 2^d2 mesh numbered i*2^d2 + j,
 * a linear array being 1 x 2^d); `map` turns them into physical nodes (companions,
 * virtual nodes: Seidel section 5). A send between two logical nodes that are the
 * same physical node is dropped; with dedup set (virtual nodes) so is a send to a
 * node already due to receive those pieces.
 */
#ifndef HMA_ALGO_CIRCUIT_PLAN_H
#define HMA_ALGO_CIRCUIT_PLAN_H

#include <stdint.h>

#include "hypemu.h"

typedef enum { HMA_PLAN_SEND, HMA_PLAN_BUSY } hma_plan_kind_t;

typedef struct hma_plan_op_s {
    int32_t kind;        /* hma_plan_kind_t */
    int32_t step;        /* the paper's step (orders a node's operations; shown as msg) */
    int32_t peer;        /* SEND: physical destination */
    uint32_t base, mask; /* SEND: pieces base | s for every s within mask */
    int64_t slots;       /* BUSY: slots of local copying */
} hma_plan_op_t;

typedef struct hma_plan_s {
    int nodes;        /* physical */
    int logical;      /* logical nodes the builders address */
    int pieces, bits; /* pieces = 2^bits */
    int64_t bytes;
    int source;          /* physical node that holds the message at the start */
    int32_t *map;        /* logical -> physical (owned) */
    hma_plan_op_t **ops; /* per physical node */
    size_t *nops, *capops;
    uint8_t *due;   /* with dedup: nodes x pieces, the piece is due at the node */
    int dedup;      /* drop sends of pieces already due at the receiver */
    int64_t *start; /* if not NULL: a send of step s <= timed_until waits for slot
                       start[s] */
    int timed_until;
    int64_t timed_end; /* the nominal end of step timed_until */
    int failed;        /* an allocation failed */
    int last_step;
} hma_plan_t;

/* A plan for `nodes` physical nodes, `logical` logical ones mapped by map (copied;
 * NULL: identity), the message of `bytes` bytes in 2^bits pieces held by `source`. */
hma_plan_t *hma_plan_new(int nodes, int logical, const int32_t *map, int64_t bytes, int bits,
                         int source);
void hma_plan_free(hma_plan_t *p);

/* Logical `from` sends pieces first + j*stride (j < count) to logical `to` in step
 * `step`. */
void hma_plan_send(hma_plan_t *p, int step, int from, int to, int first, int count, int stride);
/* The same between physical nodes. count and stride must be powers of two and first
 * aligned (first & (count-1)*stride = 0). */
void hma_plan_send_phys(hma_plan_t *p, int step, int from, int to, int first, int count,
                        int stride);
/* Logical `from` sends the set (base, mask); and between physical nodes. */
void hma_plan_send_set(hma_plan_t *p, int step, int from, int to, uint32_t base, uint32_t mask);
void hma_plan_send_set_phys(hma_plan_t *p, int step, int from, int to, uint32_t base,
                            uint32_t mask);
/* Physical node `node` copies for `slots` slots (Seidel's rho*m) in step `step`. */
void hma_plan_busy(hma_plan_t *p, int step, int node, int64_t slots);
/* Sort every node's operations by step (stable); call once, after building. */
void hma_plan_finish(hma_plan_t *p);
/* Make the plan step-synchronous, as the paper's analysis assumes: a send of step
 * s <= until starts at the nominal start of step s, every step lasting as long as its
 * longest message under the cost model of mi, ceil(k/2^nu)*a*len + b with k the
 * circuits of the step on the message's busiest link and len its number of pieces
 * times ceil(bytes/pieces), the paper's length with the message padded to a multiple
 * of the pieces (busy steps: their busy time). No piece is longer, so every message
 * of a step ends by the step's end, whatever m: two messages never meet at a receive
 * port, and the whole plan lasts the paper's formula at m' = pieces * ceil(m/pieces).
 * Steps after `until` (the companions') wait for the nominal end of step `until`,
 * then run data-driven. Returns 0, -1 (out of memory), -2 (the plan would last
 * HMA_PLAN_MAX_SLOTS slots or more) or -3 (a node sends or receives twice in one step:
 * a builder bug). */
int hma_plan_time(hma_plan_t *p, const hm_machine_info_t *mi, int until);

/* The largest slot count a plan works with: 2^53, exact in a double. */
#define HMA_PLAN_MAX_SLOTS (INT64_C(1) << 53)
/* x rounded up to a whole slot, saturated at +-HMA_PLAN_MAX_SLOTS (NaN: the
 * maximum), so that no double -> int64 conversion can overflow. */
int64_t hma_plan_slots(double x);

/* ---- the paper's building blocks, on a line of 2^e logical nodes ------------
 * line[x] is the logical node at position x; positions are XOR-ed with the root's
 * (Seidel section 4.1), so any position can be the root. Each returns the last step
 * it used (step0 + e). */

/* Spanning tree broadcast (section 3.1.1): in step step0 + s every holder sends the
 * pieces to the position 2^(e-s) away (XOR). */
int hma_plan_st(hma_plan_t *p, int step0, const int32_t *line, int e, int root, int first,
                int count);
/* Distribute (scatter) along the same tree: position x ends with the `unit` pieces
 * first + x*unit ..; with rev (unit 1, first 0) position x ends with piece
 * bitrev_e(x) instead, every send being an interleaved set. */
int hma_plan_scatter(hma_plan_t *p, int step0, const int32_t *line, int e, int root, int first,
                     int unit, int rev);
/* Dimensional exchange, nearest first (section 3.1, Figure 2(a)): position x starts
 * with the `unit` pieces first + x*unit.. and every position ends with all 2^e*unit,
 * in order, without permutation. */
int hma_plan_gather(hma_plan_t *p, int step0, const int32_t *line, int e, int first, int unit);

/* ---- the interleaved subarrays of sections 3.1.2 and 3.3.2 (nu > 0) ----------
 * The line of 2^e logical nodes is cut into 2^(e-nu) metanodes (section 4.2) of 2^nu
 * consecutive positions; subarray i is position i of every metanode. sub is scratch
 * for 2^max(e, nu) nodes. */

/* Step 1 of the interleaved algorithms: distribute, from `root`, in its metanode
 * (position i of it ends with the `unit` pieces first + i*unit ..). */
int hma_plan_metanode_scatter(hma_plan_t *p, int step0, const int32_t *line, int32_t *sub, int nu,
                              int root, int first, int unit);
/* Their last step: dimensional exchange in every metanode (hma_plan_gather). */
int hma_plan_metanodes_gather(hma_plan_t *p, int step0, const int32_t *line, int32_t *sub, int e,
                              int nu, int first, int unit);
/* Subarray i into sub (2^(e-nu) nodes, its position j in metanode j). */
void hma_plan_subarray(int32_t *sub, const int32_t *line, int e, int nu, int i);

/* ---- the node program --------------------------------------------------------- */

/* Run node n's part of plan p. msg is the message (read by the source only); buf is
 * this node's own buffer of p->bytes bytes, written by this node only. Stores a
 * 64-bit FNV-1a checksum of the final buffer. */
void hma_plan_node(hm_node_t *n, const hma_plan_t *p, const unsigned char *msg, unsigned char *buf);

/* FNV-1a over len bytes. */
uint64_t hma_plan_checksum(const unsigned char *b, int64_t len);

static inline uint32_t hma_bitrev(uint32_t x, int bits)
{
    uint32_t r = 0;
    for (int i = 0; i < bits; i++)
        r |= ((x >> i) & 1u) << (bits - 1 - i);
    return r;
}

#endif
