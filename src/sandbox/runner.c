/* SPDX-License-Identifier: MIT */
/*
 * runner.c — hypemu-node, the node process of the sandbox (README "Sandbox", hypemu(1)
 * --sandbox). hypemu starts it with exec, one per node, as
 *
 *     hypemu-node PLUGIN PARENT_PID        (fd 3: the channel, sandbox/channel.h)
 *
 * and it holds nothing but its own node: its channel, its inputs once asked for, the
 * plugin's state built by the plugin's own setup in this process. Before any code of
 * the plugin runs (its constructors included) it installs a seccomp filter, an
 * allowlist: reading files, memory, futexes, time, writing to the descriptors it has,
 * signals to itself, its own end. No open for writing, no fork or clone (of processes or
 * threads), no execve, no socket, no kill of another process, no ptrace. A refused call
 * ends the process with HM__SBX_REFUSED_STATUS after writing the call's number into the
 * channel; hypemu names the call and stops the run.
 *
 * The node API of hypemu.h is defined here again, exported from this program (linked
 * with -export-dynamic), so that the plugin's calls come here and become requests on
 * the channel; the engine makes each call and replies. The other public functions
 * (hm_param_get_int, ...) are libhypemu's.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <link.h>
#include <linux/futex.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include <linux/landlock.h>
#include <seccomp.h>

#include "hypemu.h"
#include "sandbox/channel.h"
#include "topo/grid_shape.h"

/* The one node of this process (the handle a node program gets: its address only). */
struct hm_node_s {
    int id;
};
static struct hm_node_s self;
static hm__sbx_chan_t *chan;
static const hm_algorithm_t *algo;
static void *state;
static int64_t now;
static char *rx;       /* the last packet's bytes, valid until the next receive or wait */
static int64_t *input; /* the inputs, once asked for */
static size_t ninput;
static int input_asked;

/* Under a sanitizer (the test builds of .ci/run), a node program's own fault stays a
 * signal, as hypemu reports it without one: the sanitizers leave these signals alone
 * here (the environment's options come after these and may say otherwise). */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_sigill=0:handle_abort=0:"
           "allow_user_segv_handler=1";
}
const char *__ubsan_default_options(void);
const char *__ubsan_default_options(void)
{
    return "handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_sigill=0:handle_abort=0";
}
const char *__tsan_default_options(void);
const char *__tsan_default_options(void)
{
    return "handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_sigill=0:handle_abort=0";
}

/* ---- the channel ----------------------------------------------------------------------- */

static void futex_wait(_Atomic uint32_t *w, uint32_t old)
{
    syscall(SYS_futex, (uint32_t *)w, FUTEX_WAIT, old, NULL, NULL, 0);
}

static void futex_wake(_Atomic uint32_t *w)
{
    syscall(SYS_futex, (uint32_t *)w, FUTEX_WAKE, 1, NULL, NULL, 0);
}

/* One request: op with the fields already written; waits for the reply. */
static int64_t call(hm__sbx_op_t op)
{
    uint32_t rep = atomic_load_explicit(&chan->rep, memory_order_acquire);
    chan->opcode = op;
    atomic_fetch_add_explicit(&chan->req, 1, memory_order_release);
    futex_wake(&chan->req);
    while (atomic_load_explicit(&chan->rep, memory_order_acquire) == rep)
        futex_wait(&chan->rep, rep);
    now = chan->now;
    return chan->ret;
}

/* A send's packet into the channel; a NULL packet, NULL data or a payload beyond the
 * channel as flags, for the engine to refuse (sandbox/channel.h). */
static void put_packet(const hm_packet_t *p)
{
    chan->len = 0;
    chan->flags = 0;
    if (!p) {
        chan->flags = HM__SBX_PKT_NULL;
        return;
    }
    chan->pkt = (hm__sbx_packet_t){.msg = p->msg,
                                   .origin = p->origin,
                                   .value = p->value,
                                   .tag = p->tag,
                                   .aux = p->aux,
                                   .len = p->len};
    if (p->len && !p->data)
        chan->flags = HM__SBX_PKT_NODATA;
    else if (p->len > HM__SBX_BUF)
        chan->flags = HM__SBX_PKT_TOOLONG;
    else if (p->len)
        memcpy(chan->buf, p->data, p->len);
    chan->len = chan->flags ? 0 : p->len;
}

static void take_packet(hm_packet_t *out)
{
    const hm__sbx_packet_t *w = &chan->pkt;
    uint32_t len = w->len <= HM__SBX_BUF ? w->len : 0;
    free(rx);
    rx = len ? malloc(len) : NULL;
    if (rx)
        memcpy(rx, chan->buf, len);
    *out = (hm_packet_t){.msg = w->msg,
                         .origin = w->origin,
                         .value = w->value,
                         .tag = w->tag,
                         .aux = w->aux,
                         .data = rx,
                         .len = rx ? len : 0,
                         .from = w->from,
                         .port = w->port,
                         .sent_slot = w->sent_slot,
                         .recv_slot = w->recv_slot};
}

static void put_text(const char *s)
{
    size_t n = s ? strnlen(s, HM__SBX_BUF) : 0;
    memcpy(chan->buf, s ? s : "", n);
    chan->len = (uint32_t)n;
}

/* ---- the node API, as requests --------------------------------------------------------- */

int hm_id(const hm_node_t *n)
{
    (void)n;
    return chan->node;
}

int hm_nodes(const hm_node_t *n)
{
    (void)n;
    return chan->nodes;
}

int hm_degree(const hm_node_t *n)
{
    (void)n;
    return chan->degree;
}

int hm_grid(const hm_node_t *n, int *rows, int *cols, int *row, int *col)
{
    (void)n;
    return hm__grid_shape(&chan->machine, chan->node, rows, cols, row, col);
}

int hm_neighbor(const hm_node_t *n, int port)
{
    (void)n;
    chan->arg = port;
    chan->len = 0;
    return (int)call(HM__SBX_NEIGHBOR);
}

int hm_port_to(const hm_node_t *n, int node)
{
    (void)n;
    chan->arg = node;
    chan->len = 0;
    return (int)call(HM__SBX_PORT_TO);
}

int64_t hm_now(const hm_node_t *n)
{
    (void)n;
    return now;
}

int hm_send(hm_node_t *n, int port, const hm_packet_t *p)
{
    (void)n;
    put_packet(p);
    chan->arg = port;
    return (int)call(HM__SBX_SEND);
}

int hm_send_to(hm_node_t *n, int dest, const hm_packet_t *p)
{
    (void)n;
    put_packet(p);
    chan->arg = dest;
    return (int)call(HM__SBX_SEND_TO);
}

int hm_send_routed(hm_node_t *n, int dest, const hm_packet_t *p)
{
    (void)n;
    put_packet(p);
    chan->arg = dest;
    return (int)call(HM__SBX_SEND_ROUTED);
}

int hm_shout(hm_node_t *n, uint64_t ports, const hm_packet_t *p)
{
    (void)n;
    put_packet(p);
    chan->mask = ports;
    return (int)call(HM__SBX_SHOUT);
}

int hm_shout_all(hm_node_t *n, const hm_packet_t *p)
{
    (void)n;
    put_packet(p);
    return (int)call(HM__SBX_SHOUT_ALL);
}

int hm_recv(hm_node_t *n, hm_packet_t *out)
{
    (void)n;
    chan->len = 0;
    int rc = (int)call(HM__SBX_RECV);
    if (rc == 0 && out)
        take_packet(out);
    return rc;
}

int hm_pending(const hm_node_t *n)
{
    (void)n;
    chan->len = 0;
    return (int)call(HM__SBX_PENDING);
}

/* A wait for a packet until a deadline (a slot, or a wall time): the packet, if one came. */
static int wait_call(hm__sbx_op_t op, hm_packet_t *out, int64_t deadline)
{
    chan->len = 0;
    chan->want = out != NULL;
    chan->arg64 = deadline;
    int rc = (int)call(op);
    if (rc == 0 && out)
        take_packet(out);
    return rc;
}

int hm_wait_packet_until(hm_node_t *n, hm_packet_t *out, int64_t deadline)
{
    (void)n;
    return wait_call(HM__SBX_WAIT_PACKET, out, deadline);
}

int64_t hm_clock_ns(hm_node_t *n)
{
    (void)n;
    return call(HM__SBX_CLOCK_NS);
}

int hm_wait_packet_ns(hm_node_t *n, hm_packet_t *out, int64_t deadline_ns)
{
    (void)n;
    return wait_call(HM__SBX_WAIT_PACKET_NS, out, deadline_ns);
}

int hm_wait_packet(hm_node_t *n, hm_packet_t *out)
{
    return hm_wait_packet_until(n, out, -1);
}

int hm_wait_until(hm_node_t *n, int64_t slot)
{
    (void)n;
    chan->len = 0;
    chan->arg64 = slot;
    return (int)call(HM__SBX_WAIT_UNTIL);
}

int hm_next_slot(hm_node_t *n)
{
    return hm_wait_until(n, now + 1);
}

int hm_busy(hm_node_t *n, int64_t slots)
{
    (void)n;
    chan->len = 0;
    chan->arg64 = slots;
    return (int)call(HM__SBX_BUSY);
}

/* The buffer's length and its first values (the engine records no more, channel.h); a
 * NULL buffer of values is ignored, as in threads. */
void hm_show(hm_node_t *n, const int64_t *values, size_t count)
{
    (void)n;
    if (count && !values)
        return;
    size_t k = count < HM__SBX_SHOW_WORDS ? count : HM__SBX_SHOW_WORDS;
    if (k)
        memcpy(chan->buf, values, k * sizeof *values);
    chan->len = (uint32_t)(k * sizeof *values);
    chan->arg64 = count > (size_t)INT64_MAX ? INT64_MAX : (int64_t)count;
    call(HM__SBX_SHOW);
}

void hm_store(hm_node_t *n, int64_t value)
{
    (void)n;
    chan->len = 0;
    chan->arg64 = value;
    call(HM__SBX_STORE);
}

void hm_log(hm_node_t *n, const char *fmt, ...)
{
    (void)n;
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    text[0] = 0;
    if (fmt)
        vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    put_text(text);
    call(HM__SBX_LOG);
}

void hm_fail(hm_node_t *n, const char *what)
{
    (void)n;
    char text[256];
    snprintf(text, sizeof text, "%s", what ? what : "");
    put_text(text);
    call(HM__SBX_FAIL);
}

void hm_abort(hm_node_t *n, const char *what)
{
    (void)n;
    char text[256];
    snprintf(text, sizeof text, "%s", what ? what : "");
    put_text(text);
    call(HM__SBX_ABORT);
}

void hm_wait_note(hm_node_t *n, const char *what)
{
    (void)n;
    put_text(what ? what : "");
    call(HM__SBX_WAIT_NOTE);
}

void *hm_state(const hm_node_t *n)
{
    (void)n;
    return state;
}

/* The "algorithm" object that hypemu passed (the one its setup saw). */
static json_t *node_params;

const char *hm_param_string(const hm_node_t *n, const char *name)
{
    (void)n;
    return json_string_value(json_object_get(node_params, name));
}

/* With the plugin's own setup, its own hooks answer (they read its state, here); the
 * problem's inputs come from the engine. */
int hm_root(const hm_node_t *n)
{
    (void)n;
    if (algo && algo->setup && algo->root)
        return algo->root(state);
    return chan->root;
}

const int64_t *hm_input(const hm_node_t *n, size_t *count)
{
    (void)n;
    if (algo && algo->setup && algo->input)
        return algo->input(state, chan->node, count);
    if (!input_asked) {
        input_asked = 1;
        chan->len = 0;
        int64_t k = call(HM__SBX_INPUT);
        if (k > 0 && (size_t)k <= HM__SBX_BUF / sizeof *input &&
            (input = malloc((size_t)k * sizeof *input)) != NULL) {
            memcpy(input, chan->buf, (size_t)k * sizeof *input);
            ninput = (size_t)k;
        }
    }
    if (count)
        *count = ninput;
    return ninput ? input : NULL;
}

hm_op_t hm_op(const hm_node_t *n)
{
    (void)n;
    return (hm_op_t)chan->op;
}

void *hm_out(hm_node_t *n)
{
    (void)n;
    return chan->out_size ? (char *)chan + sizeof *chan : NULL;
}

/* ---- what verify reads, from the outcome's copy (HM__SBX_VERIFY) ----------------------- */

static const int64_t *verify_offsets(void)
{
    return (const int64_t *)((const char *)chan + sizeof *chan);
}

const int64_t *hm_report_stores(const hm_report_t *r, int node, size_t *count)
{
    (void)r;
    const int64_t *off = verify_offsets();
    *count = 0;
    if (chan->mode != HM__SBX_VERIFY || node < 0 || node >= chan->nodes)
        return NULL;
    *count = (size_t)(off[node + 1] - off[node]);
    return off + chan->nodes + 1 + off[node];
}

const void *hm_report_out(const hm_report_t *r, int node)
{
    (void)r;
    const int64_t *off = verify_offsets();
    if (chan->mode != HM__SBX_VERIFY || chan->arg <= 0 || node < 0 || node >= chan->nodes)
        return NULL;
    const char *areas = (const char *)(off + chan->nodes + 1 + off[chan->nodes]);
    return areas + (size_t)node * (size_t)chan->arg;
}

/* A sandboxed verify vouches for nothing: what it declares is not the engine's ledger. */
int hm_report_from(hm_report_t *r, int node, size_t first, size_t count, int source)
{
    (void)r, (void)node, (void)first, (void)count, (void)source;
    return HM_OK;
}

/* The plugin's own verify on the copy; its verdict, words and keys into the channel. */
static void verify(void *st)
{
    hm_report_t r;
    memset(&r, 0, sizeof r);
    r.machine = &chan->machine;
    r.state = st;
    r.completion_slots = chan->arg64;
    r.bound = r.lower = -1;
    r.extra = json_object();
    algo->verify(&r);
    hm__sbx_setup_t *out = &chan->setup;
    out->rc = r.verified != 0;
    out->cost = r.error != NULL;
    snprintf(out->error, sizeof out->error, "%s", r.error ? r.error : r.verification);
    size_t n = r.extra ? json_dumpb(r.extra, chan->buf, HM__SBX_BUF, JSON_COMPACT) : 0;
    chan->result_len = n <= HM__SBX_BUF ? (uint32_t)n : 0;
    out->done = 1;
}

/* ---- the filter ------------------------------------------------------------------------ */

/* A refused call: its number into the channel, then the end (exit_group is allowed). */
static void on_sigsys(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    (void)uc;
    chan->refused_nr = si->si_syscall;
    syscall(SYS_exit_group, HM__SBX_REFUSED_STATUS);
}

/* The handler never returns: the restorer the kernel wants is never called. */
static void no_return(void)
{
    syscall(SYS_exit_group, HM__SBX_REFUSED_STATUS);
}

/* on_sigsys, installed with the system call itself: a sanitizer's interceptor of
 * sigaction keeps a table of its own that a later signal() in the plugin would change
 * without the kernel (and without the filter) seeing it. */
static int refusal_handler(void)
{
    struct {
        void (*handler)(int, siginfo_t *, void *);
        unsigned long flags;
        void (*restorer)(void);
        uint64_t mask;
    } ksa = {on_sigsys, SA_SIGINFO | 0x04000000 /* SA_RESTORER */, no_return, 0};
    return (int)syscall(SYS_rt_sigaction, SIGSYS, &ksa, NULL, sizeof ksa.mask);
}

/* Allow call nr when its argument arg compares as op with a (and b: MASKED_EQ). */
static int allow_if(scmp_filter_ctx ctx, int nr, unsigned arg, enum scmp_compare op, scmp_datum_t a,
                    scmp_datum_t b)
{
    struct scmp_arg_cmp cmp = {arg, op, a, b};
    return seccomp_rule_add_array(ctx, SCMP_ACT_ALLOW, nr, 1, &cmp);
}

/* The calls allowed whatever their arguments. */
static const char *const plain[] = {"read",
                                    "readv",
                                    "pread64",
                                    "write",
                                    "writev",
                                    "pwrite64",
                                    "lseek",
                                    "close",
                                    "fstat",
                                    "newfstatat",
                                    "statx",
                                    "stat",
                                    "lstat",
                                    "access",
                                    "faccessat",
                                    "faccessat2",
                                    "readlink",
                                    "readlinkat",
                                    "getcwd",
                                    "getdents64",
                                    "mmap",
                                    "mprotect",
                                    "munmap",
                                    "mremap",
                                    "madvise",
                                    "brk",
                                    "futex",
                                    "set_robust_list",
                                    "get_robust_list",
                                    "rseq",
                                    "rt_sigprocmask",
                                    "rt_sigreturn",
                                    "sigaltstack",
                                    "clock_gettime",
                                    "clock_getres",
                                    "gettimeofday",
                                    "time",
                                    "nanosleep",
                                    "clock_nanosleep",
                                    "sched_yield",
                                    "getpid",
                                    "gettid",
                                    "getppid",
                                    "getuid",
                                    "geteuid",
                                    "getgid",
                                    "getegid",
                                    "uname",
                                    "exit",
                                    "exit_group",
                                    "getrandom",
                                    "fcntl",
                                    "dup",
                                    "dup2",
                                    "dup3",
                                    "sysinfo",
                                    "sched_getaffinity",
                                    "getrusage",
                                    "poll",
                                    "ppoll",
                                    "mincore",
                                    "restart_syscall",
                                    "pause",
                                    "rt_sigsuspend",
                                    NULL};

/* The allowlist. open and openat read-only; rt_sigaction not for SIGSYS (the refusal's
 * handler stays); kill and tgkill only of this process; prlimit64 only to read. */
static int filter(void)
{
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_TRAP);
    if (!ctx)
        return -1;
    int rc = 0;
    for (size_t i = 0; plain[i]; i++) {
        int nr = seccomp_syscall_resolve_name(plain[i]);
        if (nr != __NR_SCMP_ERROR)
            rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0);
    }
    /* isatty and friends: no terminal here. */
    rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOTTY), SCMP_SYS(ioctl), 0);
    const scmp_datum_t wr = O_ACCMODE | O_CREAT | O_TRUNC | O_APPEND;
    scmp_datum_t pid = (scmp_datum_t)getpid();
    rc |= allow_if(ctx, SCMP_SYS(openat), 2, SCMP_CMP_MASKED_EQ, wr, O_RDONLY);
    rc |= allow_if(ctx, SCMP_SYS(open), 1, SCMP_CMP_MASKED_EQ, wr, O_RDONLY);
    rc |= allow_if(ctx, SCMP_SYS(rt_sigaction), 0, SCMP_CMP_NE, SIGSYS, 0);
    rc |= allow_if(ctx, SCMP_SYS(kill), 0, SCMP_CMP_EQ, pid, 0);
    rc |= allow_if(ctx, SCMP_SYS(tgkill), 0, SCMP_CMP_EQ, pid, 0);
    rc |= allow_if(ctx, SCMP_SYS(prlimit64), 2, SCMP_CMP_EQ, 0, 0);
    /* Every thread of the process (the node's, created before). */
    rc |= seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1);
    if (rc == 0)
        rc = seccomp_load(ctx);
    seccomp_release(ctx);
    return rc;
}

/* Where the kernel has Landlock: no file of the whole tree may be written, created,
 * removed or executed by this process and what it starts (reading stays open, for the
 * plugin and the libraries it loads). Before the node's thread exists, which inherits
 * it (landlock_restrict_self binds the calling thread). A kernel without it leaves the
 * seccomp filter, which refuses those calls anyway. */
static void landlock(void)
{
#ifdef SYS_landlock_create_ruleset
    struct landlock_ruleset_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.handled_access_fs =
        LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |
        LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR |
        LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK |
        LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM;
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
    if (abi < 1)
        return;
#ifdef LANDLOCK_ACCESS_FS_REFER
    if (abi >= 2)
        attr.handled_access_fs |= LANDLOCK_ACCESS_FS_REFER;
#endif
#ifdef LANDLOCK_ACCESS_FS_TRUNCATE
    if (abi >= 3)
        attr.handled_access_fs |= LANDLOCK_ACCESS_FS_TRUNCATE;
#endif
    int fd = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof attr.handled_access_fs, 0);
    if (fd < 0)
        return;
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0)
        syscall(SYS_landlock_restrict_self, fd, 0);
    close(fd);
#endif
}

/* ---- describing the plugin -------------------------------------------------------------- */

static json_t *str_or_null(const char *s)
{
    return s ? json_string(s) : json_null();
}

static json_t *describe_specs(const hm_param_spec_t *sp)
{
    json_t *a = json_array();
    for (size_t i = 0; sp && sp[i].name && i < 64; i++) {
        const hm_param_spec_t *s = &sp[i];
        json_t *ch = json_null();
        if (s->choices) {
            ch = json_array();
            for (size_t k = 0; s->choices[k] && k < 64; k++)
                json_array_append_new(ch, json_string(s->choices[k]));
        }
        json_array_append_new(
            a,
            json_pack("{s:o,s:i,s:o,s:I,s:I,s:I,s:i,s:i,s:i,s:o,s:I,s:I,s:i,s:i,s:i,s:o,s:o}",
                      "name", str_or_null(s->name), "type", (int)s->type, "help",
                      str_or_null(s->help), "min", (json_int_t)s->min, "max", (json_int_t)s->max,
                      "def", (json_int_t)s->def, "min_of", (int)s->min_of, "max_of", (int)s->max_of,
                      "def_of", (int)s->def_of, "choices", ch, "len_min", (json_int_t)s->len_min,
                      "len_max", (json_int_t)s->len_max, "len_min_of", (int)s->len_min_of,
                      "len_max_of", (int)s->len_max_of, "flags", (int)s->flags, "only_if",
                      str_or_null(s->only_if), "default_text", str_or_null(s->default_text)));
    }
    return a;
}

static json_t *describe_algo(const hm_algorithm_t *a)
{
    const hm_needs_t *nd = &a->needs;
    return json_pack(
        "{s:o,s:o,s:o,s:i,s:i,s:i,s:i,s:I,s:b,s:b,s:b,s:b,s:b,s:b,s:{s:i,s:i,s:o,s:i,s:i},s:o}",
        "name", str_or_null(a->name), "description", str_or_null(a->description), "paper",
        str_or_null(a->paper), "topologies", (int)a->topologies, "ports", (int)a->ports,
        "default_ports", (int)a->default_ports, "problem", (int)a->problem, "out_size",
        (json_int_t)a->out_size, "setup", a->setup != NULL, "node_main", a->node_main != NULL,
        "verify", a->verify != NULL, "teardown", a->teardown != NULL, "input", a->input != NULL,
        "root", a->root != NULL, "needs", "routing", (int)nd->routing, "clock_modes",
        (int)nd->clock_modes, "clock_why", str_or_null(nd->clock_why), "min_dim", nd->min_dim,
        "pow2_nodes", nd->pow2_nodes, "specs", describe_specs(a->specs));
}

/* The plugin as hypemu's loader would see it, as JSON at buf (plugin.c reads it). */
/* What hm_plugin is when it is not the table HM_PLUGIN declares (a function, a
 * thread-local, too small an object), in the words of hypemu's loader; NULL when it is.
 * Read from the dynamic symbol table (dladdr1), as cli/plugin.c does in threads. */
static const char *wrong_kind(const hm_plugin_t *pl, char *what, size_t len)
{
    Dl_info info;
    const ElfW(Sym) *sym = NULL;
    int found = dladdr1(pl, &info, (void **)&sym, RTLD_DL_SYMENT);
    int type = found && sym ? ELF64_ST_TYPE(sym->st_info) : STT_NOTYPE;
    if (!found)
        snprintf(what, len, "outside every loaded file (a thread-local variable)");
    else if (type == STT_FUNC || type == STT_GNU_IFUNC)
        snprintf(what, len, "a function");
    else if (type == STT_TLS)
        snprintf(what, len, "a thread-local variable");
    else if (type == STT_OBJECT && sym && sym->st_size < sizeof(hm_plugin_t))
        snprintf(what, len, "an object of %llu bytes (the table has %zu)",
                 (unsigned long long)sym->st_size, sizeof(hm_plugin_t));
    else
        return NULL;
    return what;
}

static void describe(void *h)
{
    json_t *d = json_object();
    const hm_plugin_t *pl = h ? dlsym(h, "hm_plugin") : NULL;
    char what[96];
    if (!h) {
        const char *e = dlerror();
        json_object_set_new(d, "dlerror", json_string(e ? e : "unknown error"));
    } else if (!pl) {
        json_object_set_new(d, "symbol", json_false());
    } else if (wrong_kind(pl, what, sizeof what)) {
        json_object_set_new(d, "kind", json_string(what));
    } else {
        json_object_set_new(d, "abi", json_integer(pl->abi));
        json_object_set_new(d, "descriptor_size", json_integer((json_int_t)pl->descriptor_size));
        /* An MPI program (doc/mpi-programs.md): algorithm.problem may name its problem. */
        json_object_set_new(d, "mpi_program", json_boolean(dlsym(h, "hm_mpi_program") != NULL));
        if (pl->abi == HM_ABI_VERSION && pl->descriptor_size == sizeof(hm_algorithm_t)) {
            json_t *algos = json_array();
            for (size_t i = 0; pl->algorithms && pl->algorithms[i] && i < 256; i++)
                json_array_append_new(algos, describe_algo(pl->algorithms[i]));
            json_object_set_new(d, "algorithms", algos);
        }
    }
    size_t n = json_dumpb(d, chan->buf, HM__SBX_BUF, JSON_COMPACT);
    json_decref(d);
    chan->result_len = n <= HM__SBX_BUF ? (uint32_t)n : 0;
}

/* ---- setup and the node ---------------------------------------------------------------- */

static const hm_algorithm_t *find(void *h)
{
    const hm_plugin_t *pl = h ? dlsym(h, "hm_plugin") : NULL;
    for (size_t i = 0; pl && pl->algorithms && pl->algorithms[i]; i++)
        if (pl->algorithms[i]->name && strcmp(pl->algorithms[i]->name, chan->algorithm) == 0)
            return pl->algorithms[i];
    return NULL;
}

/* The plugin's own setup, as hypemu's config loading calls it (hm__config_setup). */
static int setup(hm_setup_t *s, json_t **params)
{
    memset(s, 0, sizeof *s);
    *params = json_loadb(chan->buf, chan->params_len, 0, NULL);
    s->machine = &chan->machine;
    s->params = *params;
    s->file = chan->config;
    s->algorithm = algo;
    return algo->setup ? algo->setup(s) : 0;
}

static sem_t go;

/* ---- a fault (README "Exit codes") -------------------------------------------------------- */

/* The node thread's stack [stack_lo, stack_hi) and the guard below it; its alternate
 * signal stack is the lowest bytes of it, as in the engine's node threads. */
static uintptr_t stack_lo, stack_hi;
static size_t stack_guard;
static _Thread_local int node_thread_here;

static size_t altstack_size(void)
{
    long min = sysconf(_SC_MINSIGSTKSZ), page = sysconf(_SC_PAGESIZE);
    size_t want = (size_t)(min > 0 ? min : 4096) + 16 * 1024;
    size_t pg = page > 0 ? (size_t)page : 4096;
    return (want + pg - 1) / pg * pg;
}

/* The faulting instruction and, in the node thread, whether it overflowed its stack, into
 * the channel; then the end by the signal, which hypemu reports. */
static void on_fault(int sig, siginfo_t *si, void *uc)
{
    uintptr_t a = (uintptr_t)si->si_addr, pc = 0, sp = 0;
#if defined(__x86_64__) && defined(REG_RIP)
    pc = (uintptr_t)((const ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP];
    sp = (uintptr_t)((const ucontext_t *)uc)->uc_mcontext.gregs[REG_RSP];
#else
    (void)uc;
#endif
    if (si->si_code > 0)
        chan->fault_pc = pc;
    int in_stack = a >= stack_lo - stack_guard && a < stack_hi;
    int below = sp && sp < stack_lo && stack_lo - sp <= (uintptr_t)1 << 30;
    if (sig == SIGSEGV && node_thread_here && stack_hi && (in_stack || below))
        chan->overflowed = 1;
    signal(sig, SIG_DFL);
    raise(sig);
}

/* In the node thread, before the filter: its stack, its alternate stack. */
static void node_stack(void)
{
    pthread_attr_t a;
    void *lo = NULL;
    size_t size = 0;
    node_thread_here = 1;
    if (pthread_getattr_np(pthread_self(), &a) != 0)
        return;
    pthread_attr_getstack(&a, &lo, &size);
    pthread_attr_getguardsize(&a, &stack_guard);
    pthread_attr_destroy(&a);
    stack_lo = (uintptr_t)lo;
    stack_hi = (uintptr_t)lo + size;
    stack_t old, alt = {.ss_sp = lo, .ss_size = altstack_size()};
    /* A sanitizer's alternate stack stays: its thread exit frees the one it finds. */
    if (alt.ss_size < size && sigaltstack(NULL, &old) == 0 && (old.ss_flags & SS_DISABLE))
        sigaltstack(&alt, NULL);
}

static void fault_handlers(void)
{
    static const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP};
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
        sigaction(sigs[i], &sa, NULL);
}

/* Where the plugin is loaded, for hypemu's name of a fault's source line. */
static void plugin_base(void *h)
{
    struct link_map *lm = NULL;
    if (h && dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm)
        chan->plugin_base = (uint64_t)lm->l_addr;
}

static void *node_thread(void *arg)
{
    (void)arg;
    node_stack();
    while (sem_wait(&go) != 0)
        ;
    algo->node_main(&self, state);
    fflush(NULL);
    chan->len = 0;
    call(HM__SBX_DONE);
    for (;;)
        pause(); /* hypemu ends the process */
    return NULL;
}

int main(int argc, char **argv)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (argc != 3 || getppid() != (pid_t)atol(argv[2])) {
        fprintf(stderr, "hypemu-node: started by hypemu --sandbox only (README \"Sandbox\")\n");
        return 2;
    }
    struct stat st;
    if (fstat(3, &st) != 0 || (size_t)st.st_size < sizeof *chan)
        return 2;
    chan = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, 3, 0);
    close(3);
    if (chan == MAP_FAILED || chan->magic != HM__SBX_MAGIC)
        return 2;
    setvbuf(stdout, NULL, _IOLBF, 0);
    self.id = chan->node;
    landlock();
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, (chan->stack_size ? (size_t)chan->stack_size : 64 * 1024) +
                                         altstack_size());
    fault_handlers();
    if (chan->mode == HM__SBX_RUN &&
        (sem_init(&go, 0, 0) != 0 || pthread_create(&t, &attr, node_thread, NULL) != 0)) {
        fprintf(stderr, "cannot create the node's thread\n");
        return 1;
    }
    if (refusal_handler() != 0 || filter() != 0) {
        fprintf(stderr, "cannot install the sandbox's seccomp filter\n");
        return 1;
    }
    /* From here on the plugin's code may run. */
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    plugin_base(h);
    if (chan->mode == HM__SBX_DESCRIBE) {
        describe(h);
        _exit(0); /* no exit handlers, the plugin's destructors nor a leak check */
    }
    if (!h || !(algo = find(h))) {
        fprintf(stderr, "cannot load algorithm %s of %s\n", chan->algorithm, argv[1]);
        _exit(1);
    }
    json_t *params = NULL;
    hm_setup_t s;
    int rc = setup(&s, &params);
    if (chan->mode == HM__SBX_VERIFY) {
        if (rc == 0 && algo->verify)
            verify(s.state);
        fflush(NULL);
        _exit(0);
    }
    if (chan->mode == HM__SBX_SETUP) {
        chan->setup =
            (hm__sbx_setup_t){.done = 1, .rc = rc, .out_size = s.out_size, .cost = s.cost};
        memcpy(chan->setup.error, s.error, sizeof chan->setup.error);
        chan->setup.error[sizeof chan->setup.error - 1] = 0;
        fflush(NULL);
        _exit(0);
    }
    if (rc != 0) {
        fprintf(stderr, "setup failed in the node process: %s\n", s.error);
        _exit(1);
    }
    state = s.state;
    node_params = params;
    sem_post(&go);
    for (;;)
        pause(); /* the node thread asks; hypemu ends the process */
}
