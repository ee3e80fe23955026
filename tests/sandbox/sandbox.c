/* SPDX-License-Identifier: MIT */
/* Node programs for tests/check_sandbox.sh (README "Sandbox"): honest ones that must pass
 * under --sandbox as in threads, and cheats and escapes that must fail or be refused
 * there, each ending with its exit code and one line naming the node. Each solves a
 * broadcast of the root's input on a hypercube (doc/collectives.md): the spanning binomial
 * tree, the value travelling in the packet's payload bytes. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <unistd.h>

#include <hypemu.h>

/* The value a cheat shares between node threads (every node process has its own). */
static volatile int64_t shared_value;

/* The spanning binomial tree: the root's value, received from the parent, goes on
 * along the higher dimensions; with junk set, the packets carry 0 and every node stores
 * what the root left in shared_value instead. Returns 0, or -1 when the run stops. */
static int tree(hm_node_t *n, int junk)
{
    size_t count = 0;
    const int64_t *in = hm_input(n, &count);
    int id = hm_id(n), d = hm_degree(n), start = 0;
    int64_t v = 0;
    if (id == hm_root(n)) {
        v = count ? in[0] : -1;
        shared_value = v;
    } else {
        hm_packet_t p;
        if (hm_wait_packet(n, &p) != HM_OK)
            return -1;
        if (p.len == sizeof v)
            memcpy(&v, p.data, sizeof v);
        start = p.port + 1;
    }
    /* What it holds for the player (hm_show): 70 values from the one it got, then that one
     * alone once stored; under --sandbox the page shows the same as in threads. */
    int64_t held[70];
    for (int i = 0; i < 70; i++)
        held[i] = v + i;
    hm_show(n, held, 70);
    for (int k = start; k < d; k++) {
        int64_t w = junk ? 0 : v;
        hm_packet_t p = {.msg = 0, .origin = hm_root(n), .value = w, .data = &w, .len = sizeof w};
        if (hm_send(n, k, &p) != HM_OK || hm_next_slot(n) != HM_OK)
            return -1;
    }
    hm_store(n, junk ? shared_value : v);
    hm_show(n, &v, 1);
    return 0;
}

/* The free clock's timed wait in a node process (hm_clock_ns, hm_wait_packet_ns through
 * the channel): the root, which never receives, waits 20 ms before it sends (HM_ENOENT at
 * the deadline); every other node waits for its parent's packet with a 10 s deadline.
 * Each says on stderr how its wait ended, and stores the root's value. */
static void timed(hm_node_t *n, void *state)
{
    (void)state;
    size_t count = 0;
    const int64_t *in = hm_input(n, &count);
    int id = hm_id(n), d = hm_degree(n), start = 0, root = id == hm_root(n);
    int64_t v = count ? in[0] : -1, t0 = hm_clock_ns(n), wait = root ? 20000000 : 10000000000;
    hm_packet_t p;
    int rc = hm_wait_packet_ns(n, &p, t0 + wait);
    int64_t took = hm_clock_ns(n) - t0;
    fprintf(stderr, "wait: %s\n",
            rc == HM_ENOENT && took >= wait ? "deadline"
            : rc == HM_OK && took < wait    ? "packet"
                                            : "wrong");
    if (!root) {
        if (rc != HM_OK)
            return;
        memcpy(&v, p.data, sizeof v);
        start = p.port + 1;
    }
    for (int k = start; k < d; k++) {
        hm_packet_t q = {.origin = hm_root(n), .value = v, .data = &v, .len = sizeof v};
        if (hm_send(n, k, &q) != HM_OK)
            return;
    }
    hm_store(n, v);
}

/* Honest, and says hello on stdout and stderr, and prints a line that looks like a
 * summary. */
static void honest(hm_node_t *n, void *state)
{
    (void)state;
    printf("hello from node %d\n", hm_id(n));
    printf("{\"verified\": true, \"exit_code\": 0}\n");
    fprintf(stderr, "a warning from node %d\n", hm_id(n));
    hm_log(n, "node %d starts", hm_id(n));
    tree(n, 0);
}

/* Junk payloads and the value from a variable every node thread shares: verified in
 * threads (the judge sees the honest schedule and volume), wrong in node processes. */
static void global(hm_node_t *n, void *state)
{
    (void)state;
    if (hm_id(n) != hm_root(n))
        hm_wait_until(n, 1); /* after the root wrote it, in threads */
    tree(n, 1);
}

/* Node 1 tries something in slot 1, the others run the tree. */
#define AT_NODE_1(n)                                                                               \
    do {                                                                                           \
        if (hm_next_slot(n) != HM_OK)                                                              \
            return;                                                                                \
        if (hm_id(n) != 1) {                                                                       \
            tree(n, 0);                                                                            \
            return;                                                                                \
        }                                                                                          \
    } while (0)

static void do_fork(hm_node_t *n, void *state)
{
    (void)state;
    AT_NODE_1(n);
    if (fork() == 0)
        for (;;)
            pause();
}

static void do_exec(hm_node_t *n, void *state)
{
    (void)state;
    AT_NODE_1(n);
    execl("/bin/true", "true", (char *)NULL);
}

static void do_write_file(hm_node_t *n, void *state)
{
    (void)state;
    AT_NODE_1(n);
    const char *f = getenv("HM_SANDBOX_TEST_FILE");
    FILE *fp = fopen(f ? f : "/tmp/hypemu-sandbox-test", "w");
    if (fp) {
        fputs("written\n", fp);
        fclose(fp);
    }
}

static void do_socket(hm_node_t *n, void *state)
{
    (void)state;
    AT_NODE_1(n);
    socket(AF_INET, SOCK_STREAM, 0);
}

/* Kill hypemu itself. */
static void do_kill_parent(hm_node_t *n, void *state)
{
    (void)state;
    AT_NODE_1(n);
    kill(getppid(), SIGKILL);
}

static void do_ptrace(hm_node_t *n, void *state)
{
    (void)state;
    AT_NODE_1(n);
    ptrace(PTRACE_ATTACH, getppid(), NULL, NULL);
}

static void do_exit0(hm_node_t *n, void *state)
{
    (void)state;
    AT_NODE_1(n);
    fflush(stdout);
    _exit(0);
}

static void do_segv(hm_node_t *n, void *state)
{
    (void)state;
    AT_NODE_1(n);
    volatile int *volatile nowhere = NULL;
    *nowhere = 1;
}

static void do_stop(hm_node_t *n, void *state)
{
    (void)state;
    AT_NODE_1(n);
    raise(SIGSTOP);
}

static void ignore(int sig)
{
    (void)sig;
}

/* A handler of its own for the refusal's signal, then a refused call. */
static void do_sigsys(hm_node_t *n, void *state)
{
    (void)state;
    AT_NODE_1(n);
    signal(SIGSYS, ignore);
    socket(AF_INET, SOCK_STREAM, 0);
    tree(n, 0);
}

/* Node 1 says which descriptors it holds: the sandbox leaves it standard input, output
 * and error only (and the one it reads the list with). */
static void do_fds(hm_node_t *n, void *state)
{
    (void)state;
    if (hm_id(n) == 1) {
        char list[256] = "";
        DIR *d = opendir("/proc/self/fd");
        struct dirent *e;
        while (d && (e = readdir(d)) != NULL)
            if (e->d_name[0] != '.' && atoi(e->d_name) != dirfd(d))
                snprintf(list + strlen(list), sizeof list - strlen(list), " %s", e->d_name);
        if (d)
            closedir(d);
        printf("descriptors:%s\n", list);
    }
    tree(n, 0);
}

/* Node 1 never ends its slot. */
static void do_spin(hm_node_t *n, void *state)
{
    (void)state;
    AT_NODE_1(n);
    for (volatile unsigned long i = 0;; i++)
        ;
}

/* Where the node process says the node is (hm_grid answered in the node process). */
static void grid(hm_node_t *n, void *state)
{
    (void)state;
    int rows = -1, cols = -1, row = -1, col = -1;
    int rc = hm_grid(n, &rows, &cols, &row, &col);
    printf("grid %d: %d x %d, row %d, col %d\n", rc, rows, cols, row, col);
}

static const hm_algorithm_t algo_grid = {.name = "sbx-grid",
                                         .topologies =
                                             HM_BIT(HM_TOPO_HYPERCUBE) | HM_BIT(HM_TOPO_MESH),
                                         .ports = HM_BIT(HM_PORTS_ALL_PORT),
                                         .problem = HM_PROBLEM_BROADCAST,
                                         .node_main = grid};

#define ALGO(id, fn)                                                                               \
    static const hm_algorithm_t algo_##id = {.name = "sbx-" #id,                                   \
                                             .description = "tests/sandbox: " #id,                 \
                                             .topologies = HM_BIT(HM_TOPO_HYPERCUBE),              \
                                             .ports = HM_BIT(HM_PORTS_ALL_PORT),                   \
                                             .problem = HM_PROBLEM_BROADCAST,                      \
                                             .node_main = fn};
ALGO(honest, honest)
ALGO(timed, timed)
ALGO(global, global)
ALGO(fork, do_fork)
ALGO(exec, do_exec)
ALGO(write_file, do_write_file)
ALGO(socket, do_socket)
ALGO(kill_parent, do_kill_parent)
ALGO(ptrace, do_ptrace)
ALGO(exit0, do_exit0)
ALGO(segv, do_segv)
ALGO(stop, do_stop)
ALGO(sigsys, do_sigsys)
ALGO(spin, do_spin)
ALGO(fds, do_fds)

/* No problem: only its own verify, which always says yes. */
static int own_setup(hm_setup_t *s)
{
    s->state = NULL;
    return 0;
}

static void own_node(hm_node_t *n, void *state)
{
    (void)state;
    hm_store(n, 42);
}

static void own_verify(hm_report_t *r)
{
    r->verified = 1;
    snprintf(r->verification, sizeof r->verification, "my own word");
}

static const hm_algorithm_t algo_own = {.name = "sbx-own",
                                        .topologies = HM_BIT(HM_TOPO_HYPERCUBE),
                                        .ports = HM_BIT(HM_PORTS_ALL_PORT),
                                        .setup = own_setup,
                                        .node_main = own_node,
                                        .verify = own_verify};

/* The problem's check passes; the plugin's own verify adds a failure, or crashes. */
static void fail_verify(hm_report_t *r)
{
    r->verified = 0;
    snprintf(r->verification, sizeof r->verification, "my own failure: %zu stores at node 1",
             (size_t)(hm_report_stores(r, 1, &(size_t){0}) != NULL));
}

static void crash_verify(hm_report_t *r)
{
    volatile int *volatile nowhere = NULL;
    *nowhere = r->verified;
}

static void tree_node(hm_node_t *n, void *state)
{
    (void)state;
    tree(n, 0);
}

static const hm_algorithm_t algo_ownfail = {.name = "sbx-ownfail",
                                            .topologies = HM_BIT(HM_TOPO_HYPERCUBE),
                                            .ports = HM_BIT(HM_PORTS_ALL_PORT),
                                            .problem = HM_PROBLEM_BROADCAST,
                                            .node_main = tree_node,
                                            .verify = fail_verify};
static const hm_algorithm_t algo_verifycrash = {.name = "sbx-verifycrash",
                                                .topologies = HM_BIT(HM_TOPO_HYPERCUBE),
                                                .ports = HM_BIT(HM_PORTS_ALL_PORT),
                                                .problem = HM_PROBLEM_BROADCAST,
                                                .node_main = tree_node,
                                                .verify = crash_verify};

HM_PLUGIN(&algo_ownfail, &algo_verifycrash, &algo_honest, &algo_global, &algo_fork, &algo_exec,
          &algo_write_file, &algo_socket, &algo_kill_parent, &algo_ptrace, &algo_exit0, &algo_segv,
          &algo_stop, &algo_sigsys, &algo_spin, &algo_fds, &algo_own, &algo_grid, &algo_timed);
