/* SPDX-License-Identifier: MIT */
/*
 * check_trust.c — the verdict no node program can fool (README "What verified
 * means"): values stored before their source's light cone reached the node, more
 * values from other nodes than the words delivered, a completion below the proven
 * lower bound. Each cheat below gets its results right through the shared address
 * space and must not verify; every catalogue algorithm must verify as before.
 */
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo/common/problem.h"
#include "cli/plugin.h"
#include "helpers.h"

/* ---- cheats through a C global ------------------------------------------------------ */

/* The root's inputs, published through memory instead of packets. */
static _Atomic(const int64_t *) shared_input;
static atomic_size_t shared_count;

/* Publish the root's inputs in slot 0. */
static const int64_t *publish(hm_node_t *n)
{
    size_t k;
    const int64_t *in = hm_input(n, &k);
    if (hm_id(n) == hm_root(n)) {
        atomic_store(&shared_count, k); /* before the pointer that says it is there */
        atomic_store(&shared_input, in);
    }
    return in;
}

/* Store the root's block (under the free-running clock the root may not have published
 * it yet: wait for it in real time). */
static void store_shared(hm_node_t *n)
{
    const int64_t *v;
    while (!(v = atomic_load(&shared_input)))
        sched_yield();
    size_t k = atomic_load(&shared_count);
    for (size_t i = 0; i < k; i++)
        hm_store(n, v[i]);
}

/* Every node stores the root's block in slot 1: faster than light beyond one link. */
static void cheat_next_slot(hm_node_t *n, void *state)
{
    (void)state;
    publish(n);
    if (hm_id(n) != hm_root(n) && hm_next_slot(n) != HM_OK)
        return;
    store_shared(n);
}

/* Every node waits for the root's light cone, then stores the block, no packet sent. */
static void cheat_in_cone(hm_node_t *n, void *state)
{
    (void)state;
    publish(n);
    int dist = __builtin_popcount((unsigned)(hm_id(n) ^ hm_root(n)));
    if (dist > 0 && hm_wait_until(n, dist) != HM_OK)
        return;
    store_shared(n);
}

/* The problem's check and its lower bound, no exact cost: what a plugin that declares
 * a problem gets (hypemu(3), HM_PLUGIN). */
static void problem_verify(hm_report_t *r)
{
    const hma_prob_t *pb = r->state;
    if (r->machine->topology == HM_TOPO_HYPERCUBE && !r->machine->circuit)
        r->lower = hma_prob_lower(pb, r->machine, 1, &r->lower_expr);
    char why[200];
    r->verified = hma_prob_check(pb, r, why, sizeof why);
    snprintf(r->verification, sizeof r->verification, "%s", r->verified ? "right" : why);
}

/* A catalogue algorithm's descriptor (its problem's setup) with the node program and
 * verify replaced: a plugin that declares the problem. */
static hm_algorithm_t with_program(const char *name, void (*fn)(hm_node_t *, void *))
{
    hm_algorithm_t a = *hm_algorithm_find(name);
    a.node_main = fn;
    a.verify = problem_verify;
    return a;
}

/* Q_2, root 3 holding 13: node 0 is two links from the root. */
#define Q2_BCAST(ports, extra)                                                                     \
    "{\"topology\": {\"kind\": \"hypercube\", \"dim\": 2}, \"ports\": {" ports "},"                \
    "\"algorithm\": {\"name\": \"bcast-binomial\", \"root\": 3, "                                  \
    "\"inputs\": [[], [], [], [13]]}" extra "}"

START_TEST(test_cheat_faster_than_light)
{
    hm_algorithm_t a = with_program("bcast-binomial", cheat_next_slot);
    hm_trun_t r = hm_t_run_algo(Q2_BCAST("\"model\": \"one-port-full\"", ""), &a);
    ck_assert_int_eq(r.rc, 1);
    ck_assert(!json_is_true(json_object_get(r.summary, "verified")));
    ck_assert_str_eq(hm_t_str(&r, "verification"),
                     "node 0 stored value #1 (13) in slot 1, but it comes from node 3, 2 links "
                     "away: nothing of node 3 reaches node 0 before slot 2 (one link per slot)");
    hm_t_free(&r);
}
END_TEST

START_TEST(test_cheat_one_slot_q6)
{
    /* The example: a broadcast "in 1 slot" on Q_6 against a lower bound of 6. */
    hm_algorithm_t a = with_program("bcast-binomial", cheat_next_slot);
    hm_trun_t r = hm_t_run_algo("{\"topology\": {\"kind\": \"hypercube\", \"dim\": 6},"
                                "\"ports\": {\"model\": \"all-port\"},"
                                "\"algorithm\": {\"name\": \"bcast-binomial\", \"root\": 0}}",
                                &a);
    ck_assert_int_eq(r.rc, 1);
    const char *v = hm_t_str(&r, "verification");
    ck_assert_msg(strncmp(v, "node 3 stored value #1 (", 24) == 0, "%s", v);
    ck_assert_msg(strstr(v, ") in slot 1, but it comes from node 0, 2 links away: nothing of node "
                            "0 reaches node 3 before slot 2 (one link per slot)") != NULL,
                  "%s", v);
    hm_t_free(&r);
}
END_TEST

START_TEST(test_cheat_volume)
{
    /* In time, but nothing was sent: the value cannot have come through the network. */
    hm_algorithm_t a = with_program("bcast-binomial", cheat_in_cone);
    hm_trun_t r = hm_t_run_algo(Q2_BCAST("\"model\": \"one-port-full\"", ""), &a);
    ck_assert_int_eq(r.rc, 1);
    ck_assert_str_eq(hm_t_str(&r, "verification"),
                     "node 0 stored 1 value from other nodes but was delivered only 0 words (a "
                     "packet's value counts 1, its payload ceil(len/8)): values cannot travel "
                     "outside the packets");
    hm_t_free(&r);
}
END_TEST

START_TEST(test_cheat_circuit)
{
    /* Under circuit routing with b = 5 the shortest message lasts 5 slots. */
    hm_algorithm_t a = with_program("bcast-binomial", cheat_in_cone);
    hm_trun_t r = hm_t_run_algo(Q2_BCAST("\"model\": \"one-port-full\", \"routing\": \"circuit\","
                                         "\"cost\": {\"a\": 1, \"b\": 5}",
                                         ""),
                                &a);
    ck_assert_int_eq(r.rc, 1);
    ck_assert_str_eq(hm_t_str(&r, "verification"),
                     "node 0 stored value #1 (13) in slot 2, but it comes from node 3: nothing of "
                     "node 3 reaches node 0 before slot 5 (the shortest circuit lasts 5 slots)");
    hm_t_free(&r);
}
END_TEST

START_TEST(test_cheat_free_and_local)
{
    /* The logical clocks of the free-running clock and the local clock obey the cone. */
    static const char *const modes[] = {"free", "local"};
    for (int i = 0; i < 2; i++) {
        /* The root publishes again in each run: nothing of the run before may be read. */
        atomic_store(&shared_input, NULL);
        atomic_store(&shared_count, 0);
        char extra[96];
        snprintf(extra, sizeof extra, ", \"clock\": {\"mode\": \"%s\"}", modes[i]);
        char cfg[512];
        snprintf(cfg, sizeof cfg, Q2_BCAST("\"model\": \"one-port-full\"", "%s"), extra);
        hm_algorithm_t a = with_program("bcast-binomial", cheat_next_slot);
        hm_trun_t r = hm_t_run_algo(cfg, &a);
        ck_assert_msg(r.rc == 1, "%s: rc %d", modes[i], r.rc);
        ck_assert_str_eq(hm_t_str(&r, "verification"),
                         "node 0 stored value #1 (13) in slot 1, but it comes from node 3, 2 "
                         "links away: nothing of node 3 reaches node 0 before slot 2 (one link "
                         "per slot)");
        hm_t_free(&r);
    }
}
END_TEST

/* ---- a pointer in a packet ------------------------------------------------------------ */

/* Every node's input, reachable from one pointer. */
static _Atomic(const int64_t *) table[8];

/* Allgather on Q_3: each node shouts one packet whose value is a pointer to the table
 * of every node's input, waits for the cone (3 slots), then reads all p blocks
 * through the pointer it received. */
static void cheat_pointer(hm_node_t *n, void *state)
{
    (void)state;
    size_t k;
    atomic_store(&table[hm_id(n)], hm_input(n, &k));
    hm_packet_t pk = {.msg = 1, .value = (int64_t)(intptr_t)table};
    if (hm_shout(n, (UINT64_C(1) << hm_degree(n)) - 1, &pk) != HM_OK ||
        hm_wait_until(n, 3) != HM_OK || hm_recv(n, &pk) != HM_OK)
        return;
    _Atomic(const int64_t *) *t = (_Atomic(const int64_t *) *)(intptr_t)pk.value;
    for (int y = 0; y < hm_nodes(n); y++) {
        const int64_t *in = atomic_load(&t[y]);
        for (size_t i = 0; i < k; i++)
            hm_store(n, in[i]);
    }
}

START_TEST(test_cheat_pointer)
{
    hm_algorithm_t a = with_program("allgather-recursive-doubling", cheat_pointer);
    hm_trun_t r = hm_t_run_algo("{\"topology\": {\"kind\": \"hypercube\", \"dim\": 3},"
                                "\"ports\": {\"model\": \"all-port\"},"
                                "\"algorithm\": {\"name\": \"allgather-recursive-doubling\", "
                                "\"block\": 4}}",
                                &a);
    ck_assert_int_eq(r.rc, 1);
    ck_assert_str_eq(hm_t_str(&r, "verification"),
                     "node 0 stored 28 values from other nodes but was delivered only 3 words (a "
                     "packet's value counts 1, its payload ceil(len/8)): values cannot travel "
                     "outside the packets");
    hm_t_free(&r);
}
END_TEST

/* ---- the causal past: what the packets read carried ---------------------------------- */

/* Every node's inputs, published through memory. */
static _Atomic(const int64_t *) inputs_of[16];

static void publish_mine(hm_node_t *n)
{
    size_t k;
    atomic_store(&inputs_of[hm_id(n)], hm_input(n, &k));
}

/* Allreduce on Q_3 under circuit routing: one junk message per node in slot 0 (to the
 * next node), then the sum of every node's input, read from memory, stored in slot 40,
 * long after the shortest circuit. */
static void cheat_junk_circuit(hm_node_t *n, void *state)
{
    (void)state;
    publish_mine(n);
    hm_packet_t pk = {.msg = 1};
    if (hm_send_to(n, (hm_id(n) + 1) % hm_nodes(n), &pk) != HM_OK || hm_wait_until(n, 40) != HM_OK)
        return;
    while (hm_recv(n, &pk) == HM_OK)
        ;
    int64_t sum = 0;
    for (int y = 0; y < hm_nodes(n); y++)
        sum += atomic_load(&inputs_of[y])[0];
    hm_store(n, sum);
}

START_TEST(test_cheat_circuit_junk)
{
    hm_algorithm_t a = with_program("allreduce-recursive-doubling", cheat_junk_circuit);
    hm_trun_t r =
        hm_t_run_algo("{\"topology\": {\"kind\": \"hypercube\", \"dim\": 3},"
                      "\"ports\": {\"model\": \"one-port-full\", \"routing\": \"circuit\","
                      "\"cost\": {\"a\": 0.5, \"b\": 3}}, \"contention\": \"queue\","
                      "\"algorithm\": {\"name\": \"allreduce-recursive-doubling\", "
                      "\"inputs\": [[1], [2], [3], [4], [5], [6], [7], [8]]}}",
                      &a);
    ck_assert_int_eq(r.rc, 1);
    ck_assert_str_eq(hm_t_str(&r, "verification"),
                     "node 0 stored value #1 (36) in slot 40, which depends on every node, but "
                     "nothing of node 1 had reached it by then through the packets it read (a "
                     "packet carries what its sender had read when it sent it)");
    hm_t_free(&r);
}
END_TEST

/* Recursive-doubling allgather on Q_3 with the honest schedule and volume (2^i words to
 * the partner across dimension i), but zeros in the payloads: the blocks are read from
 * memory, as one static receive buffer shared by every node thread would give them. */
static void cheat_shared_buffer(hm_node_t *n, void *state)
{
    (void)state;
    publish_mine(n);
    int64_t junk[4] = {0};
    for (int i = 0; i < 3; i++) {
        hm_packet_t pk = {.msg = i, .data = junk, .len = (uint32_t)(sizeof junk[0] << i)};
        if (hm_send(n, i, &pk) != HM_OK || hm_wait_packet(n, &pk) != HM_OK)
            return;
    }
    for (int y = 0; y < hm_nodes(n); y++)
        hm_store(n, atomic_load(&inputs_of[y])[0]);
}

START_TEST(test_cheat_shared_buffer)
{
    hm_algorithm_t a = with_program("allgather-recursive-doubling", cheat_shared_buffer);
    hm_trun_t r = hm_t_run_algo("{\"topology\": {\"kind\": \"hypercube\", \"dim\": 3},"
                                "\"ports\": {\"model\": \"all-port\"},"
                                "\"algorithm\": {\"name\": \"allgather-recursive-doubling\", "
                                "\"inputs\": [[10], [11], [12], [13], [14], [15], [16], [17]]}}",
                                &a);
    ck_assert_int_eq(r.rc, 1);
    ck_assert_str_eq(hm_t_str(&r, "verification"),
                     "node 0 stored value #2 (11) in slot 3 as node 1's, but no packet it had read "
                     "by then carried that value (the problem passes values on unchanged: each "
                     "arrives as a packet's value or a whole int64 word of its payload)");
    hm_t_free(&r);
}
END_TEST

/* A plugin broadcast on a 3x4 mesh from node 0: every node sends one junk packet to each
 * neighbour in slot 0 (the volume is right); every node waits for its distance to the root, reads
 * what came and stores the root's value from memory. */
static void junk_mesh(hm_node_t *n, void *state)
{
    (void)state;
    int x = hm_id(n), root = hm_root(n), dist = abs(x / 4 - root / 4) + abs(x % 4 - root % 4);
    publish_mine(n);
    hm_packet_t pk = {.msg = 1};
    for (int port = 0; port < hm_degree(n); port++)
        if (hm_neighbor(n, port) >= 0 && hm_send(n, port, &pk) != HM_OK)
            return;
    if (dist > 0 && hm_wait_until(n, dist) != HM_OK)
        return;
    while (hm_recv(n, &pk) == HM_OK)
        ;
    hm_store(n, atomic_load(&inputs_of[root])[0]);
}

static const hm_algorithm_t junk_mesh_algo = {.name = "junk-mesh",
                                              .topologies = HM_BIT(HM_TOPO_MESH),
                                              .ports = HM_BIT(HM_PORTS_ALL_PORT),
                                              .default_ports = HM_PORTS_ALL_PORT,
                                              .problem = HM_PROBLEM_BROADCAST,
                                              .node_main = junk_mesh};
static const hm_algorithm_t *const junk_mesh_algos[] = {&junk_mesh_algo, NULL};
static const hm_plugin_t junk_mesh_plugin = {HM_ABI_VERSION, (unsigned)sizeof(hm_algorithm_t),
                                             HM_VERSION, junk_mesh_algos};

START_TEST(test_cheat_plugin_mesh)
{
    char err[512];
    ck_assert_msg(hm__plugin_add("junk-mesh.so", &junk_mesh_plugin, err, sizeof err) == 0, "%s",
                  err);
    hm__config_t cfg;
    int loaded = hm__config_load_string(&cfg, "test.json",
                                        "{\"topology\": {\"kind\": \"mesh\", \"rows\": 3, "
                                        "\"cols\": 4}, \"ports\": {\"routing\": \"packet\"}, "
                                        "\"algorithm\": {\"name\": "
                                        "\"junk-mesh\", \"root\": 0}}",
                                        NULL, 0);
    if (loaded != 0)
        hm__config_print_errors(&cfg, stderr);
    ck_assert_int_eq(loaded, 0);
    hm__result_t res;
    hm_trun_t r = {0};
    r.rc = hm__run_config(&cfg, &res);
    r.summary = json_incref(res.summary);
    hm__result_free(&res);
    hm__config_free(&cfg);
    ck_assert_int_eq(r.rc, 1);
    const char *v = hm_t_str(&r, "verification");
    ck_assert_msg(strncmp(v, "node 2 stored value #1 (", 24) == 0, "%s", v);
    ck_assert_msg(strstr(v, ") in slot 2, but it comes from node 0, and no chain of packets node 2 "
                            "read by then leads from node 0 (a packet carries what its sender had "
                            "read when it sent it)") != NULL,
                  "%s", v);
    /* A plugin's problem has its lower bound off the hypercube too: the root's
     * eccentricity on the mesh, 2 + 3 links. */
    json_t *lb = json_object_get(r.summary, "lower_bound");
    ck_assert_str_eq(json_string_value(json_object_get(lb, "expression")), "eccentricity(root)");
    ck_assert_int_eq(hm_t_bound(&r, "lower_bound"), 5);
    hm_t_free(&r);
}
END_TEST

/* ---- the lower bound ---------------------------------------------------------------- */

static void do_nothing(hm_node_t *n, void *state)
{
    (void)n;
    (void)state;
}

/* A verify that vouches for a run of nothing, with a lower bound of d. */
static void verify_yes_bound_d(hm_report_t *r)
{
    r->verified = 1;
    snprintf(r->verification, sizeof r->verification, "all good");
    r->lower_expr = "d";
    r->lower = r->machine->dim;
}

START_TEST(test_below_lower_bound)
{
    hm_algorithm_t a = hm_t_algo(do_nothing, verify_yes_bound_d);
    hm_trun_t r = hm_t_run_algo(hm_t_cube(3, "one-port-full", "strict", NULL), &a);
    ck_assert_int_eq(r.rc, 1);
    ck_assert_str_eq(hm_t_str(&r, "verification"),
                     "0 slots, below the lower bound d = 3 that holds under this model: the "
                     "results cannot all have come through the network");
    ck_assert_int_eq(hm_t_int(&r, "completion_slots"), 0);
    ck_assert_int_eq(hm_t_bound(&r, "lower_bound"), 3);
    hm_t_free(&r);
}
END_TEST

/* ---- hm_report_from itself -------------------------------------------------------------- */

/* The header's binomial broadcast of 42 from node 0: one word to each other node. */
static void bcast42(hm_node_t *n, void *state)
{
    (void)state;
    hm_packet_t p = {.msg = 1, .value = 42};
    int lowest = hm_degree(n);
    if (hm_id(n) != 0) {
        if (hm_wait_packet(n, &p) < 0)
            return;
        lowest = p.port;
    }
    hm_store(n, p.value);
    uint64_t children = (UINT64_C(1) << lowest) - 1;
    if (children)
        hm_shout(n, children, &p);
}

static void verify_twice(hm_report_t *r)
{
    int ok = 1;
    for (int x = 0; x < r->machine->nodes; x++) {
        size_t k;
        const int64_t *v = hm_report_stores(r, x, &k);
        ok &= k == 1 && v[0] == 42;
        /* Declared twice: counted once, so one word delivered is enough. */
        ok &= hm_report_from(r, x, 0, 1, 0) == HM_OK;
        ok &= hm_report_from(r, x, 0, 1, 0) == HM_OK;
        /* Out of range: the store, the node, the source. */
        ok &= hm_report_from(r, x, 1, 1, 0) == HM_EINVAL;
        ok &= hm_report_from(r, x, 0, 2, 0) == HM_EINVAL;
        ok &= hm_report_from(r, x, 0, 1, r->machine->nodes) == HM_EINVAL;
        ok &= hm_report_from(r, x, 0, 1, -2) == HM_EINVAL;
    }
    ok &= hm_report_from(r, -1, 0, 0, 0) == HM_EINVAL;
    ok &= hm_report_from(r, r->machine->nodes, 0, 0, 0) == HM_EINVAL;
    r->verified = ok;
    snprintf(r->verification, sizeof r->verification, ok ? "as declared" : "hm_report_from");
}

START_TEST(test_report_from)
{
    hm_algorithm_t a = hm_t_algo(bcast42, verify_twice);
    hm_trun_t r = hm_t_run_algo(hm_t_cube(3, "shout", "strict", NULL), &a);
    ck_assert_int_eq(r.rc, 0);
    ck_assert_str_eq(hm_t_str(&r, "verification"), "as declared");
    ck_assert_int_eq(hm_t_int(&r, "completion_slots"), 3);
    hm_t_free(&r);
    /* Outside verify there is no ledger. */
    hm_report_t none = {0};
    ck_assert_int_eq(hm_report_from(&none, 0, 0, 0, 0), HM_EINVAL);
    ck_assert_int_eq(hm_report_from(NULL, 0, 0, 0, 0), HM_EINVAL);
}
END_TEST

/* ---- a plugin's own verify, alone ------------------------------------------------------ */

/* A plugin that declares no problem: its own setup, and a verify that vouches for nothing
 * done. Added to the catalogue as a plugin (hm__plugin_add), as --plugin would. */
static int own_setup(hm_setup_t *s)
{
    s->state = NULL;
    return 0;
}

static void trust_me(hm_report_t *r)
{
    r->verified = 1;
    snprintf(r->verification, sizeof r->verification, "trust me");
}

static const hm_algorithm_t trusting = {.name = "trust-own-verify",
                                        .topologies = HM_BIT(HM_TOPO_HYPERCUBE),
                                        .ports = HM_BIT(HM_PORTS_ALL_PORT),
                                        .setup = own_setup,
                                        .node_main = do_nothing,
                                        .verify = trust_me};
static const hm_algorithm_t *const trusting_algos[] = {&trusting, NULL};
static const hm_plugin_t trusting_plugin = {HM_ABI_VERSION, (unsigned)sizeof(hm_algorithm_t),
                                            HM_VERSION, trusting_algos};

/* A run of it on Q_2, its own verify counted or not (hm__config_t.plugin_verify_uncounted:
 * where plugins are not trusted). */
static hm_trun_t run_trusting(int uncounted)
{
    hm_trun_t out = {0};
    hm__config_t cfg;
    ck_assert_int_eq(hm__config_load_string(&cfg, "test.json",
                                            "{\"topology\": {\"kind\": \"hypercube\", \"dim\": 2},"
                                            "\"algorithm\": {\"name\": \"trust-own-verify\"}}",
                                            NULL, 0),
                     0);
    cfg.plugin_verify_uncounted = uncounted;
    hm__result_t res;
    out.rc = hm__run_config(&cfg, &res);
    out.summary = json_incref(res.summary);
    hm__result_free(&res);
    hm__config_free(&cfg);
    return out;
}

START_TEST(test_plugin_word)
{
    char err[512];
    ck_assert_int_eq(hm__plugin_add("trusting.so", &trusting_plugin, err, sizeof err), 0);
    /* Thread mode: its word, and the summary says whose. */
    hm_trun_t r = run_trusting(0);
    ck_assert_int_eq(r.rc, 0);
    ck_assert_str_eq(hm_t_str(&r, "checked_by"), "plugin");
    ck_assert_str_eq(hm_t_str(&r, "verification"), "trust me");
    hm_t_free(&r);
    /* Where plugins are not trusted, "plugin" counts as "none". */
    r = run_trusting(1);
    ck_assert_int_eq(r.rc, 1);
    ck_assert(json_is_false(json_object_get(r.summary, "verified")));
    ck_assert_str_eq(hm_t_str(&r, "checked_by"), "plugin");
    ck_assert_str_eq(hm_t_str(&r, "verification"),
                     "nothing checked this run: a plugin's own verify alone is its author's word "
                     "here");
    hm_t_free(&r);
}
END_TEST

START_TEST(test_nothing_checked)
{
    /* An algorithm with neither a problem's check nor a verify: "none", not verified. */
    hm_algorithm_t a = hm_t_algo(do_nothing, NULL);
    hm_trun_t r = hm_t_run_algo(hm_t_cube(2, "all-port", "strict", NULL), &a);
    ck_assert_int_eq(r.rc, 1);
    ck_assert_str_eq(hm_t_str(&r, "checked_by"), "none");
    ck_assert_str_eq(hm_t_str(&r, "verification"), "nothing checked this run");
    hm_t_free(&r);
    /* A verify of its own, built in (no problem): checked by the algorithm. */
    a = hm_t_algo(bcast42, verify_twice);
    r = hm_t_run_algo(hm_t_cube(3, "shout", "strict", NULL), &a);
    ck_assert_int_eq(r.rc, 0);
    ck_assert_str_eq(hm_t_str(&r, "checked_by"), "test");
    hm_t_free(&r);
}
END_TEST

/* ---- every catalogue algorithm verifies as before ------------------------------------ */

/* Topologies and sizes for the sweep: the smallest that each algorithm's needs allow,
 * and a larger one. */
typedef struct shape_s {
    hm_topology_kind_t topo;
    const char *json;
    int nodes, pow2;
} shape_t;

static const shape_t shapes[] = {
    {HM_TOPO_HYPERCUBE, "{\"kind\": \"hypercube\", \"dim\": 2}", 4, 1},
    {HM_TOPO_HYPERCUBE, "{\"kind\": \"hypercube\", \"dim\": 4}", 16, 1},
    {HM_TOPO_LINEAR, "{\"kind\": \"linear\", \"nodes\": 7}", 7, 0},
    {HM_TOPO_MESH, "{\"kind\": \"mesh\", \"rows\": 3, \"cols\": 4}", 12, 0},
    {HM_TOPO_MESH, "{\"kind\": \"mesh\", \"rows\": 4, \"cols\": 4}", 16, 1},
    {HM_TOPO_RING, "{\"kind\": \"ring\", \"nodes\": 5}", 5, 0},
    {HM_TOPO_RING, "{\"kind\": \"ring\", \"nodes\": 8}", 8, 1},
    {HM_TOPO_TORUS, "{\"kind\": \"torus\", \"rows\": 3, \"cols\": 4}", 12, 0},
    {HM_TOPO_BUS, "{\"kind\": \"bus\", \"nodes\": 5}", 5, 0},
    {HM_TOPO_BUS, "{\"kind\": \"bus\", \"nodes\": 9}", 9, 0},
};

/* What the judge says when it rejects a run: none may appear in the sweep. */
static int judged(const char *v)
{
    return strstr(v, ", but it comes from node") || strstr(v, ", but it depends on every node") ||
           strstr(v, "cannot travel outside the packets") || strstr(v, "below the lower bound") ||
           strstr(v, "through the packets it read") || strstr(v, "no chain of packets") ||
           strstr(v, "no packet it had read by then carried");
}

/* The clock mode of the sweep's runs. */
static const char *sweep_mode = "slotted";

/* One run of algorithm a (its config object `algo`) on shape s under port model pm,
 * routing rt; returns 1 when it verified, 0 when it did not (or the config was
 * refused) for a reason of its own, and fails the test when the judge rejected it. */
static int sweep_one(const hm_algorithm_t *a, const char *algo, const shape_t *s, int pm, int rt)
{
    char cfg[1024];
    snprintf(cfg, sizeof cfg,
             "{\"topology\": %s, \"ports\": {\"model\": \"%s\", \"routing\": \"%s\"%s},"
             "\"contention\": \"queue\", \"algorithm\": %s,"
             "\"clock\": {\"max_slots\": 200000, \"mode\": \"%s\"}, \"seed\": 3}",
             s->json, hm_ports_name((hm_ports_kind_t)pm), hm_routing_name((hm_routing_t)rt),
             rt == HM_ROUTING_CIRCUIT ? ", \"cost\": {\"a\": 0.5, \"b\": 3}" : "", algo,
             sweep_mode);
    hm_trun_t r = hm_t_run(cfg, NULL);
    int ok = 0;
    if (r.summary) {
        const char *v = json_string_value(json_object_get(r.summary, "verification"));
        ck_assert_msg(!v || !judged(v), "%s on %s, %s, %s: %s", algo, s->json,
                      hm_ports_name((hm_ports_kind_t)pm), hm_routing_name((hm_routing_t)rt), v);
        /* A declared problem has a lower bound on every machine it runs on. */
        json_t *pr = json_object_get(r.summary, "problem");
        ck_assert_msg(!json_is_string(pr) ||
                          json_is_object(json_object_get(r.summary, "lower_bound")),
                      "%s on %s, %s, %s: no lower bound for %s", algo, s->json,
                      hm_ports_name((hm_ports_kind_t)pm), hm_routing_name((hm_routing_t)rt),
                      json_string_value(pr));
        ok = r.rc == 0;
    }
    (void)a;
    hm_t_free(&r);
    return ok;
}

/* Algorithm a with its defaults, on every shape, port model and routing it allows. */
static int sweep_algo(const hm_algorithm_t *a, const char *algo)
{
    int verified = 0;
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        if (!(a->topologies & HM_BIT(shapes[s].topo)) || (a->needs.pow2_nodes && !shapes[s].pow2))
            continue;
        for (int pm = 0; pm < HM_PORTS_COUNT; pm++) {
            if (!(a->ports & HM_BIT(pm)))
                continue;
            for (int rt = 0; rt < HM_ROUTING_COUNT; rt++)
                if (!a->needs.routing || (a->needs.routing & HM_BIT(rt)))
                    verified += sweep_one(a, algo, &shapes[s], pm, rt);
        }
    }
    return verified;
}

START_TEST(test_catalogue_verifies)
{
    /* Every algorithm with its defaults, then with each choice of each of its enum
     * parameters (variants, schedules): none may be rejected by the judge. */
    int verified = 0;
    for (size_t i = 0; hm_algorithms[i]; i++) {
        const hm_algorithm_t *a = hm_algorithms[i];
        char algo[256];
        snprintf(algo, sizeof algo, "{\"name\": \"%s\"}", a->name);
        verified += sweep_algo(a, algo);
        for (const hm_param_spec_t *sp = a->specs; sp && sp->name; sp++)
            for (int c = 0; sp->type == HM_PARAM_ENUM && sp->choices[c]; c++) {
                snprintf(algo, sizeof algo, "{\"name\": \"%s\", \"%s\": \"%s\"}", a->name, sp->name,
                         sp->choices[c]);
                verified += sweep_algo(a, algo);
            }
    }
    /* The sweep ran: the count of runs that verified, from an earlier run of it. */
    ck_assert_msg(verified >= 900, "only %d runs verified", verified);
}
END_TEST

START_TEST(test_catalogue_free)
{
    /* The same under the free-running clock, where the algorithms' exact costs do not
     * hold (so fewer verify) but the judge must still reject none: logical clocks obey
     * the light cone. */
    sweep_mode = "free";
    int verified = 0;
    for (size_t i = 0; hm_algorithms[i]; i++) {
        char algo[256];
        snprintf(algo, sizeof algo, "{\"name\": \"%s\"}", hm_algorithms[i]->name);
        verified += sweep_algo(hm_algorithms[i], algo);
    }
    ck_assert_msg(verified >= 100, "only %d runs verified", verified);
}
END_TEST

Suite *hm_suite_trust(void);
Suite *hm_suite_trust(void)
{
    Suite *s = suite_create("trust");
    TCase *tc = tcase_create("cheats");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_cheat_faster_than_light);
    tcase_add_test(tc, test_cheat_one_slot_q6);
    tcase_add_test(tc, test_cheat_volume);
    tcase_add_test(tc, test_cheat_circuit);
    tcase_add_test(tc, test_cheat_free_and_local);
    tcase_add_test(tc, test_cheat_pointer);
    tcase_add_test(tc, test_cheat_circuit_junk);
    tcase_add_test(tc, test_cheat_shared_buffer);
    tcase_add_test(tc, test_cheat_plugin_mesh);
    suite_add_tcase(s, tc);
    tc = tcase_create("rules");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_below_lower_bound);
    tcase_add_test(tc, test_report_from);
    tcase_add_test(tc, test_plugin_word);
    tcase_add_test(tc, test_nothing_checked);
    suite_add_tcase(s, tc);
    tc = tcase_create("catalogue");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_catalogue_verifies);
    tcase_add_test(tc, test_catalogue_free);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(hm_suite_trust());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
