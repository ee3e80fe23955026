/* SPDX-License-Identifier: MIT */
/*
 * seidel.h — what st-broadcast, bst-broadcast and rh-broadcast share (Seidel 1993):
 * their parameters, the mapping of any array or mesh onto a power-of-two one
 * (section 5: companions or virtual nodes), the message and the per-node buffers,
 * the node program and the byte-for-byte verification.
 *
 * Logical machine: a 2^d1 x 2^d2 mesh (d1 = 0 for a linear array), logical node
 * (i, j) = i * 2^d2 + j. Each axis of n physical nodes maps onto 2^d logical ones:
 *   power of two    d = lg n, identity;
 *   companions      d = floor(lg n); the first c = n - 2^d odd positions are the
 *                   companions of their left (upper) neighbours (section 5.2), except
 *                   that when the root sits on a companion position the pair swaps,
 *                   so that the root is always a full node; after the broadcast on
 *                   the full nodes each sends the message to its companions (one
 *                   step, or in a mesh the cheaper of a 2 x 2 ST broadcast, two
 *                   steps of ma + b, and a 2 x 2 BST broadcast, three of ma/2 + b);
 *   virtual nodes   d = ceil(lg n); logical positions >= n are simulated by the last
 *                   physical one (section 5.1).
 *
 * Message lengths: an algorithm cuts m into P pieces (the summary's "pieces": 2^nu,
 * 2^(nu+1), 4^nu, 4^(nu+1), 2 * 4^(nu+1) or 2^d); the paper assumes P divides m. For
 * any m the pieces are ceil(m/P) bytes (the last ones shorter) and the plan is
 * step-synchronous, so the cost is the paper's formula at m' = P*ceil(m/P) (mpad) in
 * the transmission terms, m in m*rho and in the companions' steps; and when m < P/2,
 * where the second half of the pieces is empty, minus (m'/2 - m)*a, the last step
 * carrying m bytes instead of m'/2 (doc/seidel.md, "Message lengths").
 */
#ifndef HMA_ALGO_SEIDEL_H
#define HMA_ALGO_SEIDEL_H

#include "circuit_plan.h"

/* How a size that is not a power of two is handled (section 5), and the mesh
 * variants: the only lists of them, the parameters' choices. */
#define HMA_SEIDEL_SIZING_MAP(XX)                                                                  \
    XX(HMA_SIZING_COMPANIONS, "companions")                                                        \
    XX(HMA_SIZING_VIRTUAL, "virtual-nodes")
#define HMA_SEIDEL_VARIANT_MAP(XX)                                                                 \
    XX(HMA_SEIDEL_SIMPLE, "simple")                                                                \
    XX(HMA_SEIDEL_BETTER, "better")                                                                \
    XX(HMA_SEIDEL_COLUMN_ROW, "column-row")

typedef enum { HMA_SEIDEL_SIZING_MAP(HM_ENUM_ID) } hma_sizing_t;
enum { HMA_SEIDEL_VARIANT_MAP(HM_ENUM_ID) };
extern const char *const hma_seidel_sizings[];  /* NULL-terminated */
extern const char *const hma_seidel_variants[]; /* NULL-terminated */

typedef struct hma_seidel_s {
    int mesh;   /* 1 on a mesh */
    int n1, n2; /* physical rows and columns (linear: 1 x n) */
    int d1, d2; /* logical 2^d1 x 2^d2 */
    int nu_cap; /* floor(log2(link_capacity)) */
    int nu;     /* the nu the algorithm uses (<= nu_cap, see each file) */
    int root;   /* physical */
    int li, lj; /* the root's logical row and column */
    int64_t bytes;
    int64_t mpad; /* bytes padded to a multiple of the pieces: the m of the formulas */
    hma_sizing_t sizing;
    int better;                 /* variant "better" (mesh ST and BST) */
    int colrow;                 /* variant "column-row": a full linear broadcast down
                                   the root's column, then along every row */
    int32_t *rowmap, *colmap;   /* logical -> physical row / column */
    int32_t *rowcomp, *colcomp; /* logical -> physical companion row / column, -1 */
    unsigned char *msg;         /* the root's message */
    hma_plan_t *plan;
    /* Filled by the algorithm for verify. */
    const char *bound_expr; /* = expr */
    char expr[256];
    int64_t bound;       /* the paper's cost for the logical machine + companions */
    int companion_steps; /* 0, 1, 2 (ST on 2 x 2) or 3 (BST on 2 x 2) */
    int companion_bst;   /* the companions of a mesh get a 2 x 2 BST broadcast */
    char algo[32];
} hma_seidel_t;

/* Parameters shared by the three algorithms (each table adds "variant" if it has
 * one, then HM_PARAM_END). */
#define HMA_SEIDEL_SPECS_COMMON                                                                    \
    {.name = "root",                                                                               \
     .type = HM_PARAM_INT,                                                                         \
     .max_of = HM_QTY_NODES_MINUS_1,                                                               \
     .help = "the node that holds the message"},                                                   \
        {.name = "message_bytes",                                                                  \
         .type = HM_PARAM_INT,                                                                     \
         .min = 1,                                                                                 \
         .max = 16777216,                                                                          \
         .def = 4096,                                                                              \
         .help = "message length m in bytes (a multiple of 8*2^d gives the paper's costs)"},       \
    {                                                                                              \
        .name = "sizing", .type = HM_PARAM_ENUM, .choices = hma_seidel_sizings,                    \
        .def = HMA_SIZING_COMPANIONS,                                                              \
        .help = "how a size that is not a power of two is handled (Seidel section 5)"              \
    }

/* The mesh variant of st- and bst-broadcast (hma_seidel_variants), default "better". */
#define HMA_SEIDEL_SPEC_VARIANT(help_text)                                                         \
    {                                                                                              \
        .name = "variant", .type = HM_PARAM_ENUM, .choices = hma_seidel_variants,                  \
        .def = HMA_SEIDEL_BETTER, .help = help_text                                                \
    }

/* What the three need of the machine: Seidel's circuit-switched model (README
 * "Port models"), which the free-running clock cannot hold. */
#define HMA_SEIDEL_NEEDS                                                                           \
    {                                                                                              \
        .routing = HM_BIT(HM_ROUTING_CIRCUIT)                                                      \
    }

/* Reads the parameters and maps the machine (allow_virtual: the algorithm can use
 * virtual nodes, with_variant: it has simple|better), makes the message. Returns 0,
 * or -1 with s->error filled. */
int hma_seidel_setup(hm_setup_t *s, const char *algo, int allow_virtual, int with_variant,
                     hma_seidel_t **out);
/* The empty plan of the logical machine, the message in 2^bits pieces. */
/* What an algorithm's plan builder returns: the plan's last step and the paper's cost
 * (expression and value in slots) for the summary's bound. */
typedef struct hma_seidel_built_s {
    int last;
    const char *expr;
    double value;
} hma_seidel_built_t;

/* Builds the plan of one algorithm into st, using line (room for 2^15 nodes) as
 * scratch; returns 0, or -1 with s->error set or on allocation failure. */
typedef int (*hma_seidel_build_fn)(hm_setup_t *s, hma_seidel_t *st, int32_t *line,
                                   hma_seidel_built_t *out);

/* The whole setup of st-, bst- and rh-broadcast: hma_seidel_setup, the algorithm's own
 * build, hma_seidel_finish and the bound; s->state is the finished hma_seidel_t. */
int hma_seidel_setup_with(hm_setup_t *s, const char *algo, int allow_virtual, int with_variant,
                          hma_seidel_build_fn build);

int hma_seidel_plan(hm_setup_t *s, hma_seidel_t *st, int bits);
/* Once the plan of the logical machine is built (its last step is last_step): add
 * the companions' step(s) and sort. Returns 0 or -1. */
int hma_seidel_finish(hm_setup_t *s, hma_seidel_t *st, int last_step);
/* The logical node at logical row i, column j. */
static inline int hma_seidel_lid(const hma_seidel_t *st, int i, int j)
{
    return (i << st->d2) + j;
}

void hma_seidel_node(hm_node_t *n, void *state);
void hma_seidel_verify(hm_report_t *r);
void hma_seidel_teardown(void *state);

/* Duration of one message of `bytes` bytes sharing links with k circuits in all: the
 * cost model, for the bounds (ceil(k/2^nu)*a*m + b, rounded up). */
int64_t hma_seidel_msg_cost(const hm_machine_info_t *mi, int k, double bytes);
/* x rounded up to a whole slot (formulas evaluated in floating point), saturated at
 * HMA_PLAN_MAX_SLOTS: no overflow, whatever the costs. */
int64_t hma_seidel_slots(double x);

#endif

/* If the logical machine is one row or one column (every linear array, and meshes
 * with one logical row or column), fills line with its 2^e logical nodes and pos with
 * the root's position and returns 1 (line: 2^15 entries at most); else returns 0. */
int hma_seidel_line(const hma_seidel_t *st, int32_t *line, int *e, int *pos);

/* The nu an algorithm can use on an axis of 2^e nodes: min(nu_cap, e - 1), >= 0
 * (Table I assumes nu < d; a larger capacity is simply not needed). */
int hma_seidel_nu(const hma_seidel_t *st, int e);

/* Sets the bound: the paper's formula `expr` evaluated to `value` (rounded up to a
 * slot) at m = st->mpad, plus the companions' steps of m*a + b each (real m). Call
 * after hma_seidel_finish. */
void hma_seidel_bound(hma_seidel_t *st, const hm_machine_info_t *mi, const char *expr,
                      double value);

/* ---- meshes: grids of logical nodes ----------------------------------------------
 * A grid is a 2^e1 x 2^e2 sub-mesh of the logical mesh: its node (i, j) is logical
 * (o1 + s1*i, o2 + s2*j). The whole mesh, a submesh interleaved with stride 2^nu, a
 * 2^nu x 2^nu block are all grids. */
typedef struct hma_grid_s {
    const hma_seidel_t *st;
    int o1, s1, e1, o2, s2, e2;
} hma_grid_t;

static inline int hma_grid_id(const hma_grid_t *g, int i, int j)
{
    return hma_seidel_lid(g->st, g->o1 + g->s1 * i, g->o2 + g->s2 * j);
}

/* Simple 2-D spanning tree broadcast of pieces [first, first+count) from (r1, r2):
 * along the root's column then along every row (col_first), or the other way; the
 * first phase's steps follow step1, the second's step2. Returns the last step. */
int hma_grid_st(hma_plan_t *p, const hma_grid_t *g, int r1, int r2, int col_first, int step1,
                int step2, int first, int count);

/* The broadcast phase of Seidel's "better" mesh algorithms (section 3.2.1): in the
 * class submesh T_ab = nodes (2i + a, 2j + b) of g, a simple ST from (r1, r2) of T_ab,
 * red classes (a + b even) column first, black ones row first, the class that starts
 * on the shorter axis delayed by |e1 - e2| steps so that no two classes use one row
 * or column at once. Steps base+1 .. base + 2*max(e1, e2) - 2. */
int hma_grid_rb(hma_plan_t *p, int base, const hma_grid_t *g, int a, int b, int r1, int r2,
                int first, int count);

/* Distribute from (r1, r2) over the whole grid, column first: node (i, j) ends with
 * the `unit` pieces first + (i*2^e2 + j)*unit... Returns the last step. */
int hma_grid_scatter(hma_plan_t *p, int step0, const hma_grid_t *g, int r1, int r2, int first,
                     int unit);
/* The reverse: node (i, j) holds first + (i*2^e2 + j)*unit...; exchanges along the
 * rows, then the columns, leave every node with all of them in order. */
int hma_grid_gather(hma_plan_t *p, int step0, const hma_grid_t *g, int first, int unit);

/* The last phase of the "better" ST and BST (sections 3.2.1, 3.4.1): two exchanges
 * in every 2 x 2 block of g leave each of its nodes with the block's 4 x unit pieces
 * from `first`. Returns the last step. */
int hma_grid_blocks_gather(hma_plan_t *p, int step0, const hma_grid_t *g, int first, int unit);

/* The broadcast of one interleaved submesh in a "better" mesh algorithm, from its
 * node (r1, r2), of the `pieces` pieces from `first`; returns the last step. */
typedef int (*hma_grid_bcast_fn)(hma_plan_t *p, int step0, const hma_grid_t *g, int r1, int r2,
                                 int first);

/* Seidel's "better" mesh algorithms with link capacity 2^nu (sections 3.2.2, 3.4.2):
 * scatter the message over the root's 2^nu x 2^nu block, `pieces` pieces a node; each
 * node of the block broadcasts its pieces in its interleaved submesh (stride 2^nu)
 * with `bcast`; every 2^nu x 2^nu block gathers the whole message. Returns the last
 * step. ST and BST differ only in `bcast` and `pieces`. */
int hma_seidel_mesh_better(hma_seidel_t *st, int nu, int pieces, hma_grid_bcast_fn bcast);
