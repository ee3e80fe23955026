/* SPDX-License-Identifier: MIT */
/*
 * esbt — multinode broadcast on Q_d along collision-avoiding spanning trees: every
 * node broadcasts its packet at once, every node receives the 2^d - 1 others exactly
 * once, in m = ceil((2^d - 1)/d) slots under all-port, which is optimal (each node
 * takes 2^d - 1 packets in through d links).
 *
 * Paper: lecture notes "Distributed Memory Systems: Part III", section "Collision
 * Avoiding Spanning Trees for Multi-Broadcast Operations". The variant "esbt" of
 * the registered algorithm multinode-broadcast (doc/algorithms.md).
 *
 * The idea (notes). Build one spanning tree T_0 rooted at 0 whose edges are
 * scheduled in steps 1..m, with the sets A_i of edges of step i such that
 *   (a) no two edges of A_i flip the same bit (so |A_i| <= d), and
 *   (b) every edge of A_i leaves a node reached in an earlier step (the root in step
 *       0): a node can only forward what it already holds.
 * The tree of node t is T_t = t XOR T_0, with the same steps. By (a), a directed
 * link x -> x^2^j is used in step i by exactly one tree, T_(x XOR y) where (y ->
 * y^2^j) is the edge of A_i across dimension j: the 2^d broadcasts never collide.
 * By (b) every node receives the packet of t in the step T_t schedules. With d
 * edges in every step but the last, m = ceil((2^d - 1)/d).
 *
 * Nodes and steps. Number the nodes != 0 by positions n = 1..2^d - 1; position n
 * is in step ceil(n/d) and its edge flips bit (n - 1) mod d (the notes' m(t)), so
 * (a) holds by construction. What remains is which node takes which position, so
 * that (b) holds and bit (n - 1) mod d of the node is a 1 (its parent then has one 1
 * fewer, and is placed earlier).
 *
 * construction "searched" (the default, shipped). Nodes are placed level by level
 * (level k: the nodes with k ones, the notes' N_k), each level as runs of whole
 * rotation classes (the notes' R_kj: orbits of the left rotation). A class of period
 * q placed at positions n..n+q-1 starts with an element t0 whose bit c = (n-1) mod
 * d is 1; its i-th element is rotl^i(t0), whose bit (c + i) mod d is then 1 too:
 * the rotation walks the 1 along with the dimension, so every element of the run
 * hangs from a node of the previous level. The only way to break (b) is a node
 * whose parent sits in the same step, which can only happen in a step shared by
 * two levels. A depth-first search picks, in order, the classes (ascending by their
 * smallest member) and the start of each run (first in rotation order) and
 * backtracks when a run would put a node in the same step as its parent. Checked
 * here for every d from 1 to 16 (tests/check_esbt.c): 0 conflicts, at most 12
 * backtracks (d = 4: 1, d = 8: 4, d = 9: 3, d = 16: 12, none otherwise); each time it
 * is the last node 1..1 whose parent would share the last step, and the search
 * starts the level-(d-1) class elsewhere.
 *
 * construction "literal": the notes read literally. Levels N_k by ascending k;
 * within N_k the classes by "rightmost concentration" (ascending smallest member,
 * R_k1 holding 0^(d-k)1^k), the elements of a class in left-rotation order from
 * that member; n(t) the position, m(t) = 1 + (n(t) - 1) mod d, the edge into t
 * flips bit m(t) counted from the right (counted from the left, the very first node
 * 0..01 would not hang from the root), and "if t = 1..1 and m(t) = d connect to
 * 101..1 instead" (which never fires for d >= 2: it needs d | 2^d - 1). Nothing
 * makes bit m(t) of t a 1, and nothing keeps a parent out of its child's step:
 *   d = 1, 2, 3, 5, 7, 11, 13  fine (for prime d every class has d elements, d
 *                           divides every |N_k|, so each level starts a fresh step
 *                           at bit 1);
 *   d = 4                   node 15 = 1111 (step 4, bit 2) hangs from 11 = 1011,
 *                           itself reached in step 4: forwarded one slot late, 5
 *                           slots instead of 4, in a slot no other tree uses (so
 *                           no port-model violation; the verification fails);
 *   d = 6, 8, 9, 10, 12     parents in later steps, and cycles: some nodes never
 *                           hang from the root at all (d = 8 under strict: stops
 *                           at slot 23 on link 0->1).
 * The node program below forwards as soon as it can, so a late parent shows as a
 * late forward that collides, under all-port, with the tree that owns the link in
 * that slot ("contention": "strict" stops there, exit 1), as a late packet (the
 * verification fails, exit 1), or as a deadlock (exit 3) when a node of a cycle
 * never gets the packet. The summary reports the construction's own check:
 * "construction_conflicts" and "construction_first_conflict".
 *
 * Node program: in slot i - 1 (step i) node x sends, for every edge (y -> z) of
 * A_i, the packet of t = x XOR y on the port of bit y XOR z. It stores every packet
 * it receives as recv_slot * 2^24 + origin (2^24: the largest machine), so that verify can check
 * both "exactly once" and "in the scheduled step".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/trees.h"
#include "esbt.h"

/* A store holds recv_slot * ESBT_ORIGINS + origin (origins < 2^24, the largest machine). */
#define ESBT_ORIGINS (INT64_C(1) << 24)

enum { SEARCHED = HM_ESBT_SEARCHED, LITERAL = HM_ESBT_LITERAL };
const char *const hm_esbt_construction_names[] = {HM_ESBT_CONSTRUCTION_MAP(HM_ENUM_NAME) NULL};

/* The backtracking search gives up after this many backtracks (it needs at most 12
 * for d <= 16). */
#define ESBT_MAX_BACKTRACKS 1000000L

typedef struct esbt_s {
    int d, p, m, kind;
    uint32_t *order;  /* order[n]: the node at position n (order[0] = 0, the root) */
    uint32_t *parent; /* parent[t] in T_0 */
    int8_t *port;     /* port[t]: the bit t and parent[t] differ in */
    int32_t *pos;     /* pos[t]: t's position */
    long backtracks;
    int conflicts;   /* nodes not reached after their parent, steps reusing a bit */
    int unreached;   /* nodes of T_0 with no path to the root */
    char first[160]; /* the first conflict, in words ("" if none) */
} esbt_t;

static int step_of(const esbt_t *e, int32_t n)
{
    return n <= 0 ? 0 : (n + e->d - 1) / e->d;
}

static void bits(char *buf, uint32_t x, int d)
{
    for (int i = 0; i < d; i++)
        buf[i] = (char)('0' + (x >> (d - 1 - i) & 1));
    buf[d] = '\0';
}

/* ---- the rotation classes -------------------------------------------------- */

typedef struct classes_s {
    int n;
    uint32_t *rep;    /* smallest member */
    int *len;         /* period of the rotation */
    int *level_first; /* classes of level k: level_first[k] .. level_first[k+1]-1 */
} classes_t;

static void classes_free(classes_t *c)
{
    free(c->rep);
    free(c->len);
    free(c->level_first);
}

/* Rotation classes of the nonzero nodes, by level, then by smallest member. */
static int classes_build(classes_t *c, int d, int p)
{
    memset(c, 0, sizeof *c);
    c->rep = malloc((size_t)p * sizeof *c->rep);
    c->len = malloc((size_t)p * sizeof *c->len);
    c->level_first = malloc(((size_t)d + 2) * sizeof *c->level_first);
    uint8_t *seen = calloc((size_t)p, 1);
    if (!c->rep || !c->len || !c->level_first || !seen) {
        free(seen);
        classes_free(c);
        return -1;
    }
    for (int k = 1; k <= d; k++) {
        c->level_first[k] = c->n;
        for (uint32_t t = 1; t < (uint32_t)p; t++) {
            if (seen[t] || __builtin_popcount(t) != k)
                continue;
            int q = 0;
            uint32_t y = t;
            do {
                seen[y] = 1;
                y = hma_rotl(y, 1, d);
                q++;
            } while (y != t);
            c->rep[c->n] = t;
            c->len[c->n] = q;
            c->n++;
        }
    }
    c->level_first[d + 1] = c->n;
    free(seen);
    return 0;
}

/* ---- construction "searched" ----------------------------------------------- */

/* Can class ci, started at rotation r, take positions n..n+len-1? Its start must
 * have bit (n-1) mod d set and every element's parent must be in an earlier step. */
static int run_fits(const esbt_t *e, const classes_t *c, int ci, int r, int32_t n)
{
    int d = e->d, b = (int)((n - 1) % d);
    uint32_t y = hma_rotl(c->rep[ci], r, d);
    if (!(y >> b & 1))
        return 0;
    for (int i = 0; i < c->len[ci]; i++, y = hma_rotl(y, 1, d)) {
        uint32_t par = y ^ (1u << ((b + i) % d));
        if (step_of(e, e->pos[par]) >= step_of(e, n + i))
            return 0;
    }
    return 1;
}

static void run_place(esbt_t *e, const classes_t *c, int ci, int r, int32_t n)
{
    int d = e->d, b = (int)((n - 1) % d);
    uint32_t y = hma_rotl(c->rep[ci], r, d);
    for (int i = 0; i < c->len[ci]; i++, y = hma_rotl(y, 1, d)) {
        int bit = (b + i) % d;
        e->order[n + i] = y;
        e->pos[y] = n + i;
        e->parent[y] = y ^ (1u << bit);
        e->port[y] = (int8_t)bit;
    }
}

static int level_of(const classes_t *c, int d, int depth)
{
    int k = 1;
    while (k < d && depth >= c->level_first[k + 1])
        k++;
    return k;
}

/* Depth-first search over (class, rotation) choices, iteratively: frame k holds the
 * k-th run placed (its class, rotation and first position). */
static int build_searched(esbt_t *e)
{
    classes_t c;
    if (classes_build(&c, e->d, e->p) != 0)
        return -1;
    size_t nc = (size_t)c.n + 1;
    int *fci = malloc(nc * sizeof *fci), *fr = malloc(nc * sizeof *fr);
    int32_t *fn = malloc(nc * sizeof *fn);
    uint8_t *used = calloc(nc, 1);
    int rc = -1;
    if (!fci || !fr || !fn || !used)
        goto out;
    int depth = 0, ci = c.level_first[1], r = 0;
    int32_t n = 1;
    while (depth < c.n) {
        /* The first fitting choice at or after (ci, r) among this level's classes. */
        int end = c.level_first[level_of(&c, e->d, depth) + 1], found = 0;
        for (; ci < end; ci++, r = 0) {
            for (; !used[ci] && r < c.len[ci] && !found; r++)
                found = run_fits(e, &c, ci, r, n);
            if (found) {
                r--;
                break;
            }
        }
        if (found) {
            run_place(e, &c, ci, r, n);
            used[ci] = 1;
            fci[depth] = ci, fr[depth] = r, fn[depth] = n;
            n += c.len[ci];
            depth++;
            ci = depth < c.n ? c.level_first[level_of(&c, e->d, depth)] : 0, r = 0;
            continue;
        }
        /* Nothing fits: undo the previous run and try its next choice. */
        if (depth == 0 || ++e->backtracks > ESBT_MAX_BACKTRACKS)
            goto out;
        depth--;
        ci = fci[depth], r = fr[depth] + 1, n = fn[depth];
        used[ci] = 0;
        for (int i = 0; i < c.len[ci]; i++)
            e->pos[e->order[n + i]] = -1;
    }
    rc = 0;
out:
    free(fci);
    free(fr);
    free(fn);
    free(used);
    classes_free(&c);
    return rc;
}

/* ---- construction "literal" ------------------------------------------------- */

static int build_literal(esbt_t *e)
{
    classes_t c;
    if (classes_build(&c, e->d, e->p) != 0)
        return -1;
    int d = e->d;
    int32_t n = 1;
    for (int ci = 0; ci < c.n; ci++) {
        uint32_t y = c.rep[ci];
        for (int i = 0; i < c.len[ci]; i++, y = hma_rotl(y, 1, d), n++) {
            int mt = 1 + (int)((n - 1) % d); /* the notes' m(t), bit m(t) from the right */
            uint32_t par = y ^ (1u << (mt - 1));
            if (y == (uint32_t)e->p - 1 && mt == d && d >= 2)
                par = y ^ (1u << (d - 2)); /* "connect to 101..1 instead" */
            e->order[n] = y;
            e->pos[y] = n;
            e->parent[y] = par;
            e->port[y] = (int8_t)__builtin_ctz(par ^ y);
        }
    }
    classes_free(&c);
    return 0;
}

/* ---- the construction's own check ------------------------------------------- */

/* Counts the nodes reached no later than their parent and the steps that use a bit
 * twice, names the first, and counts the nodes with no path to the root. */
static int check_construction(esbt_t *e)
{
    int d = e->d, p = e->p;
    char a[20], b[20];
    e->conflicts = 0;
    e->first[0] = '\0';
    for (int32_t n = 1; n < p; n++) {
        uint32_t t = e->order[n], par = e->parent[t];
        int s = step_of(e, n), sp = step_of(e, e->pos[par]);
        if (sp < s)
            continue;
        if (e->conflicts++ == 0) {
            bits(a, t, d);
            bits(b, par, d);
            snprintf(e->first, sizeof e->first,
                     "step %d: node %u (%s) hangs from node %u (%s), reached %s step %d", s, t, a,
                     par, b, sp == s ? "in the same" : "only in the later", sp);
        }
    }
    for (int s = 1; s <= e->m; s++) {
        unsigned used = 0;
        for (int32_t n = (s - 1) * d + 1; n <= s * d && n < p; n++) {
            unsigned bit = 1u << e->port[e->order[n]];
            if ((used & bit) && e->conflicts++ == 0)
                snprintf(e->first, sizeof e->first, "step %d uses dimension %d twice", s,
                         e->port[e->order[n]]);
            used |= bit;
        }
    }
    /* Reachability: 0 unknown, 1 on the current walk, 2 reaches the root, 3 not. */
    uint8_t *mark = calloc((size_t)p, 1);
    uint32_t *walk = malloc((size_t)p * sizeof *walk);
    if (!mark || !walk) {
        free(mark);
        free(walk);
        return -1;
    }
    mark[0] = 2;
    e->unreached = 0;
    for (uint32_t t = 1; t < (uint32_t)p; t++) {
        int len = 0;
        uint32_t y = t;
        while (mark[y] == 0) {
            mark[y] = 1;
            walk[len++] = y;
            y = e->parent[y];
        }
        uint8_t verdict = mark[y] == 2 ? 2 : 3;
        for (int i = 0; i < len; i++)
            mark[walk[i]] = verdict;
    }
    for (int t = 1; t < p; t++)
        e->unreached += mark[t] == 3;
    free(mark);
    free(walk);
    return 0;
}

/* ---- descriptor functions ------------------------------------------------- */

void hm_esbt_teardown(void *state)
{
    esbt_t *e = state;
    if (!e)
        return;
    free(e->order);
    free(e->parent);
    free(e->port);
    free(e->pos);
    free(e);
}

int hm_esbt_setup(hm_setup_t *s)
{
    int kind = hm_param_get_enum(s, "construction");
    if (s->machine->topology != HM_TOPO_HYPERCUBE)
        return hm_setup_fail(s, "name", "a non-hypercube topology", "hypercube only");
    esbt_t *e = calloc(1, sizeof *e);
    if (!e)
        return -1;
    e->d = s->machine->dim;
    e->p = s->machine->nodes;
    e->m = e->d ? (e->p - 1 + e->d - 1) / e->d : 0;
    e->kind = kind;
    e->order = calloc((size_t)e->p, sizeof *e->order);
    e->parent = calloc((size_t)e->p, sizeof *e->parent);
    e->port = calloc((size_t)e->p, sizeof *e->port);
    e->pos = malloc((size_t)e->p * sizeof *e->pos);
    if (!e->order || !e->parent || !e->port || !e->pos) {
        hm_esbt_teardown(e);
        return -1;
    }
    for (int t = 0; t < e->p; t++)
        e->pos[t] = -1;
    e->pos[0] = 0;
    int rc = e->kind == LITERAL ? build_literal(e) : build_searched(e);
    if (rc == 0)
        rc = check_construction(e);
    if (rc != 0) {
        if (e->backtracks > ESBT_MAX_BACKTRACKS)
            snprintf(s->error, sizeof s->error,
                     "%s: algorithm.construction: the search found no tree for d = %d",
                     s->file ? s->file : "(config)", e->d);
        hm_esbt_teardown(e);
        return -1;
    }
    s->state = e;
    return 0;
}

int hm_esbt_conflicts(const void *state, int *unreached, long *backtracks)
{
    const esbt_t *e = state;
    if (unreached)
        *unreached = e->unreached;
    if (backtracks)
        *backtracks = e->backtracks;
    return e->conflicts;
}

/* A send this node owes but cannot make yet: it has not received the packet. */
typedef struct owed_s {
    uint32_t origin;
    int port;
    int64_t due; /* the slot the schedule wanted */
} owed_t;

void hm_esbt_node(hm_node_t *n, void *state)
{
    const esbt_t *e = state;
    uint32_t x = (uint32_t)hm_id(n);
    if (e->p == 1)
        return;
    uint8_t *have = calloc((size_t)e->p / 8 + 1, 1);
    owed_t *owed = NULL;
    size_t nowed = 0, owed_cap = 0;
    if (!have)
        return;
    have[x / 8] |= (uint8_t)(1u << (x % 8));
    int got = 0;
    for (;;) {
        int64_t now = hm_now(n);
        hm_packet_t pk;
        /* Packets received in earlier slots: keep, and make the sends they owe. */
        while (hm_recv(n, &pk) == HM_OK) {
            uint32_t t = (uint32_t)pk.origin;
            hm_store(n, pk.recv_slot * ESBT_ORIGINS + t);
            if (!(have[t / 8] >> (t % 8) & 1))
                got++;
            have[t / 8] |= (uint8_t)(1u << (t % 8));
            for (size_t i = 0; i < nowed;) {
                if (owed[i].origin != t) {
                    i++;
                    continue;
                }
                hm_log(n, "late: forwards the packet of node %u, due in slot %lld", t,
                       (long long)owed[i].due);
                hm_packet_t q = {.msg = (int32_t)t, .origin = (int32_t)t, .value = t};
                hm_send(n, owed[i].port, &q);
                owed[i] = owed[--nowed];
            }
        }
        /* This slot's edges: step now + 1. */
        int32_t lo = (int32_t)now * e->d + 1, hi = lo + e->d - 1;
        for (int32_t k = lo; now < e->m && k <= hi && k < e->p; k++) {
            uint32_t y = e->order[k], t = x ^ e->parent[y];
            int port = e->port[y];
            if (have[t / 8] >> (t % 8) & 1) {
                hm_packet_t q = {.msg = (int32_t)t, .origin = (int32_t)t, .value = t};
                hm_send(n, port, &q);
                continue;
            }
            if (nowed == owed_cap) {
                size_t cap = owed_cap ? 2 * owed_cap : 16;
                owed_t *nv = realloc(owed, cap * sizeof *nv);
                if (!nv)
                    goto out;
                owed = nv, owed_cap = cap;
            }
            owed[nowed++] = (owed_t){.origin = t, .port = port, .due = now};
        }
        if (got == e->p - 1 && nowed == 0 && now >= e->m - 1)
            break;
        int rc = now < e->m - 1 ? hm_next_slot(n) : hm_wait_packet(n, NULL);
        if (rc == HM_EABORT)
            break;
    }
out:
    free(have);
    free(owed);
}

void hm_esbt_verify(hm_report_t *r)
{
    const esbt_t *e = r->state;
    int p = e->p;
    uint8_t *seen = malloc((size_t)p);
    int64_t late = 0;
    char what[200] = "", first_late[200] = "";
    for (int x = 0; x < p && seen && !what[0]; x++) {
        memset(seen, 0, (size_t)p);
        size_t k;
        const int64_t *v = hm_report_stores(r, x, &k);
        for (size_t i = 0; i < k && !what[0]; i++) {
            int64_t t = v[i] % ESBT_ORIGINS, slot = v[i] / ESBT_ORIGINS;
            if (t < 0 || t >= p || t == x || seen[t]) {
                snprintf(what, sizeof what, "node %d received the packet of node %lld twice", x,
                         (long long)t);
                break;
            }
            seen[t] = 1;
            hm_report_from(r, x, i, 1, (int)t);
            int64_t due = step_of(e, e->pos[(uint32_t)x ^ (uint32_t)t]) - 1;
            if (slot != due && late++ == 0)
                snprintf(first_late, sizeof first_late,
                         "node %d received the packet of node %lld in slot %lld, scheduled "
                         "for slot %lld",
                         x, (long long)t, (long long)slot, (long long)due);
        }
        for (int t = 0; t < p && !what[0]; t++)
            if (t != x && !seen[t])
                snprintf(what, sizeof what, "node %d never received the packet of node %d", x, t);
    }
    if (!seen)
        snprintf(what, sizeof what, "out of memory in verify");
    free(seen);
    r->verified = !what[0] && late == 0;
    if (what[0])
        snprintf(r->verification, sizeof r->verification, "%s", what);
    else if (late)
        snprintf(r->verification, sizeof r->verification, "%lld packet(s) late: %s",
                 (long long)late, first_late);
    else
        snprintf(r->verification, sizeof r->verification,
                 "every node received the packet of every other node exactly once, in the "
                 "step its tree schedules");
    r->bound_expr = "ceil((2^d-1)/d)";
    r->bound = e->m;
    r->lower_expr = "max(d,ceil((2^d-1)/d))";
    r->lower = e->m > e->d ? e->m : e->d;
    json_object_set_new(r->extra, "broadcasts", json_integer(p));
    json_object_set_new(r->extra, "construction", json_string(hm_esbt_construction_names[e->kind]));
    json_object_set_new(r->extra, "construction_conflicts", json_integer(e->conflicts));
    if (e->first[0])
        json_object_set_new(r->extra, "construction_first_conflict", json_string(e->first));
    if (e->unreached)
        json_object_set_new(r->extra, "construction_unreached", json_integer(e->unreached));
    if (e->kind == SEARCHED)
        json_object_set_new(r->extra, "search_backtracks", json_integer(e->backtracks));
    json_object_set_new(r->extra, "late_packets", json_integer(late));
}
