/* SPDX-License-Identifier: MIT */
/*
 * sandbox.c — the engine's side of the sandbox (README "Sandbox", hypemu(1) --sandbox):
 * each node program of a plugin runs in a node process of its own, hypemu-node
 * (src/sandbox/runner.c), started with exec and shut in by a seccomp filter before the
 * plugin is loaded. The node's thread in the machine stands for it: it serves the node
 * process's requests (sandbox/channel.h) by making the node API calls itself, so the
 * clock, the mailboxes, the port model, the problem's check, the judge and the summary
 * stay in this process, which no node process can write.
 *
 * A node process that ends before its node program returned (a signal, _exit, a system
 * call its filter refused) or that stops (SIGSTOP) stops the run at once with the end
 * cause rules (exit 5) and the line "node N (algorithm X, plugin FILE) crashed in slot
 * T: CAUSE"; its standard output and error come to hypemu's standard error, each line
 * prefixed "node N: ", so that no node writes a line of the summary. Every node process
 * is killed and reaped before its node thread ends: none outlives the run.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifdef HM_HAVE_SECCOMP
#include <seccomp.h>
#endif

#include "cli/plugin.h"
#include "hm_internal.h"
#include "sandbox/channel.h"

extern char **environ;

#ifndef HM_PKGLIBEXECDIR /* set by the Makefile; not in the fuzz targets' builds */
#define HM_PKGLIBEXECDIR "/usr/local/libexec/hypemu"
#endif

size_t hm__sbx_region_size(uint64_t out_size)
{
    size_t page = 4096, n = sizeof(hm__sbx_chan_t) + (size_t)out_size;
    return (n + page - 1) / page * page;
}

const char *hm__sbx_op_name(int op)
{
    static const char *const names[] = {"no request",
#define XX(id, name) name,
                                        HM__SBX_OP_MAP(XX)
#undef XX
    };
    return op >= 0 && op < HM__SBX_OP_COUNT ? names[op] : "a request";
}

int hm__sbx_decode(const volatile hm__sbx_chan_t *c, hm__sbx_call_t *call, char *buf)
{
    memset(call, 0, sizeof *call);
    int op = c->opcode;
    uint32_t len = c->len;
    if (op <= HM__SBX_NONE || op >= HM__SBX_OP_COUNT) {
        call->why = "an unknown request";
        return -1;
    }
    if (len > HM__SBX_BUF) {
        call->why = "a length beyond the channel";
        return -1;
    }
    call->arg = c->arg;
    call->arg64 = c->arg64;
    call->mask = c->mask;
    call->want = c->want != 0;
    call->len = len;
    for (uint32_t i = 0; i < len; i++)
        buf[i] = c->buf[i];
    buf[len] = 0;
    hm__sbx_packet_t w;
    w.msg = c->pkt.msg;
    w.origin = c->pkt.origin;
    w.value = c->pkt.value;
    w.tag = c->pkt.tag;
    w.aux = c->pkt.aux;
    w.len = c->pkt.len;
    int send = op == HM__SBX_SEND || op == HM__SBX_SEND_TO || op == HM__SBX_SHOUT ||
               op == HM__SBX_SHOUT_ALL || op == HM__SBX_SEND_ROUTED;
    int flags = send ? c->flags : 0;
    if (flags & ~(HM__SBX_PKT_NULL | HM__SBX_PKT_NODATA | HM__SBX_PKT_TOOLONG)) {
        call->why = "a packet of an unknown kind";
        return -1;
    }
    if (send && !flags && w.len != len) {
        call->why = "a packet whose length is not the bytes it carries";
        return -1;
    }
    call->nopkt = (flags & HM__SBX_PKT_NULL) != 0;
    call->toolong = flags & HM__SBX_PKT_TOOLONG ? (w.len ? w.len : 1) : 0;
    call->pkt = (hm_packet_t){.msg = w.msg,
                              .origin = w.origin,
                              .value = w.value,
                              .tag = w.tag,
                              .aux = w.aux,
                              .data = len && !(flags & HM__SBX_PKT_NODATA) ? buf : NULL,
                              .len = w.len};
    call->op = (hm__sbx_op_t)op;
    return 0;
}

/* ---- where hypemu-node is ------------------------------------------------------------ */

/* $HYPEMU_NODE; next to this program (in a build tree both are in .libs/, and the
 * library path that the libtool wrapper of hypemu set is inherited); in the libexec
 * directory of the prefix this program is installed in (make install prefix=DIR); the
 * libexec directory configure chose. */
static char *runner_path(void)
{
    const char *env = getenv("HYPEMU_NODE");
    if (env && *env)
        return strdup(env);
    char self[PATH_MAX];
    ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
    char *slash = k > 0 ? (self[k] = 0, strrchr(self, '/')) : NULL;
    if (slash) {
        *slash = 0;
        static const char *const places[] = {"%s/hypemu-node", "%s/../libexec/hypemu/hypemu-node"};
        for (size_t i = 0; i < sizeof places / sizeof places[0]; i++) {
            char *p = hm__strdup_printf(places[i], self);
            if (p && access(p, X_OK) == 0)
                return p;
            free(p);
        }
    }
    return strdup(HM_PKGLIBEXECDIR "/hypemu-node");
}

/* ---- one node process ---------------------------------------------------------------- */

typedef struct proc_s {
    pid_t pid;
    hm__sbx_chan_t *chan;
    size_t size;
    int out;        /* read end of its stdout and stderr */
    char line[512]; /* a line not yet ended */
    size_t nline;
    int node; /* for the prefix; -1 in the plugin's own processes */
    const char *file;
} proc_t;

static int memfd_of(size_t size)
{
    int fd = (int)syscall(SYS_memfd_create, "hypemu-node", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0)
        return -1;
    if (ftruncate(fd, (off_t)size) != 0 ||
        fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Start hypemu-node on plugin file with a region of `size` bytes that init fills.
 * 0, or -1 with err. */
static int proc_start(proc_t *pr, const char *file, uint64_t out_size,
                      void (*init)(hm__sbx_chan_t *, const void *), const void *arg, char *err,
                      size_t errlen)
{
    memset(pr, 0, sizeof *pr);
    pr->pid = -1;
    pr->out = -1;
    pr->node = -1;
    pr->file = file;
    pr->size = hm__sbx_region_size(out_size);
    int fd = memfd_of(pr->size), pipefd[2] = {-1, -1};
    if (fd >= 0)
        pr->chan = mmap(NULL, pr->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (fd < 0 || pr->chan == MAP_FAILED || pipe2(pipefd, O_CLOEXEC) != 0) {
        snprintf(err, errlen, "cannot make a node process's channel: %s", strerror(errno));
        if (pr->chan != MAP_FAILED && pr->chan)
            munmap(pr->chan, pr->size);
        pr->chan = NULL;
        if (fd >= 0)
            close(fd);
        return -1;
    }
    pr->chan->magic = HM__SBX_MAGIC;
    pr->chan->out_size = out_size;
    init(pr->chan, arg);
    char *path = runner_path();
    char ppid[24];
    snprintf(ppid, sizeof ppid, "%ld", (long)getpid());
    char *argv[] = {path ? path : (char *)"hypemu-node", (char *)file, ppid, NULL};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
    posix_spawn_file_actions_adddup2(&fa, pipefd[1], 2);
    posix_spawn_file_actions_adddup2(&fa, fd, 3);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
    /* Nothing else of hypemu's (an output file a writer opened without O_CLOEXEC). */
    posix_spawn_file_actions_addclosefrom_np(&fa, 4);
#endif
    int rc = posix_spawn(&pr->pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fd);
    close(pipefd[1]);
    pr->out = pipefd[0];
    fcntl(pr->out, F_SETFL, O_NONBLOCK);
    if (rc != 0) {
        snprintf(err, errlen, "cannot start the node process %s: %s", argv[0], strerror(rc));
        pr->pid = -1;
    }
    free(path);
    return rc == 0 ? 0 : -1;
}

/* One line of a node process's output, with its prefix, in one write(2). */
static void emit_line(proc_t *pr)
{
    char out[sizeof pr->line + 64];
    int h = pr->node >= 0 ? snprintf(out, 64, "node %d: ", pr->node)
                          : snprintf(out, 64, "plugin %.40s: ", pr->file);
    memcpy(out + h, pr->line, pr->nline);
    out[(size_t)h + pr->nline] = '\n';
    ssize_t w = write(STDERR_FILENO, out, (size_t)h + pr->nline + 1);
    (void)w;
    pr->nline = 0;
}

/* Its output so far, line by line (a line longer than the buffer in pieces); at the end
 * (last) a line not ended too. */
static void proc_drain(proc_t *pr, int last)
{
    char chunk[4096];
    for (;;) {
        ssize_t k = pr->out >= 0 ? read(pr->out, chunk, sizeof chunk) : 0;
        if (k < 0 && errno == EINTR)
            continue;
        for (ssize_t i = 0; i < k; i++) {
            if (chunk[i] != '\n')
                pr->line[pr->nline++] = chunk[i];
            if (chunk[i] == '\n' || pr->nline == sizeof pr->line)
                emit_line(pr);
        }
        if (k <= 0)
            break;
    }
    if (last && pr->nline)
        emit_line(pr);
}

/* Kill it, reap it, take its last output, free the channel. */
static void proc_end(proc_t *pr)
{
    if (pr->pid > 0) {
        kill(pr->pid, SIGKILL);
        while (waitpid(pr->pid, NULL, 0) < 0 && errno == EINTR)
            ;
        pr->pid = -1;
    }
    proc_drain(pr, 1);
    if (pr->out >= 0)
        close(pr->out);
    pr->out = -1;
    if (pr->chan)
        munmap(pr->chan, pr->size);
    pr->chan = NULL;
}

/* The cause of a node process's end or stop from waitid, into why; 1 if it ended or
 * stopped, 0 if it still runs. */
/* What the node process's fault handler left in the channel (README "Exit codes"):
 * " at FILE:LINE" and ": node N overflowed its stack (64 KiB, stack_kib)", or "". */
static void fault_words(const proc_t *pr, char *at, size_t atlen, char *over, size_t overlen)
{
    char where[384];
    hm__crash_where_in(pr->file, pr->chan->plugin_base, pr->chan->fault_pc, where, sizeof where);
    snprintf(at, atlen, "%s%s", where[0] ? " at " : "", where);
    over[0] = 0;
    if (pr->chan->overflowed)
        snprintf(over, overlen, ": node %d overflowed its stack (%llu KiB, stack_kib)", pr->node,
                 (unsigned long long)(pr->chan->stack_size / 1024));
}

static int proc_gone(proc_t *pr, int block, char *why, size_t len)
{
    siginfo_t si;
    memset(&si, 0, sizeof si);
    int flags = WEXITED | WSTOPPED | (block ? 0 : WNOHANG);
    if (waitid(P_PID, (id_t)pr->pid, &si, flags) != 0 || si.si_pid == 0)
        return 0;
    if (si.si_code == CLD_EXITED) {
        if (si.si_status == HM__SBX_REFUSED_STATUS && pr->chan->refused_nr > 0) {
            const char *name = NULL;
#ifdef HM_HAVE_SECCOMP
            name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, pr->chan->refused_nr);
#endif
            snprintf(why, len, "the sandbox refused the system call %s (number %d)",
                     name ? name : "?", (int)pr->chan->refused_nr);
            free((char *)name);
        } else {
            snprintf(why, len,
                     "its process ended (exit status %d) before its node program returned",
                     si.si_status);
        }
        pr->pid = -1;
    } else if (si.si_code == CLD_STOPPED || si.si_code == CLD_TRAPPED) {
        const char *s = sigabbrev_np(si.si_status);
        snprintf(why, len, "its process was stopped by SIG%s", s ? s : "?");
    } else {
        const char *s = sigabbrev_np(si.si_status);
        char at[400], over[160];
        fault_words(pr, at, sizeof at, over, sizeof over);
        snprintf(why, len, "SIG%s", s ? s : "?");
        strncat(why, at, len - strlen(why) - 1);
        strncat(why, over, len - strlen(why) - 1);
        pr->pid = -1;
    }
    return 1;
}

/* Wait for a process that describes or sets up, at most 10 s. 0, or -1 with err. */
static int proc_wait(proc_t *pr, const char *what, char *err, size_t errlen)
{
    char why[200];
    for (int ms = 0; ms < 10000; ms += 2) {
        proc_drain(pr, 0);
        if (proc_gone(pr, 0, why, sizeof why)) {
            if (pr->pid < 0 && (pr->chan->setup.done || pr->chan->result_len))
                return 0;
            snprintf(err, errlen, "%s: %s", what, why);
            return -1;
        }
        nanosleep(&(struct timespec){.tv_nsec = 2 * 1000 * 1000}, NULL);
    }
    snprintf(err, errlen, "%s: no answer in 10 s", what);
    return -1;
}

/* ---- describing a plugin and its setup, sandboxed --------------------------------------- */

static void init_describe(hm__sbx_chan_t *c, const void *arg)
{
    (void)arg;
    c->mode = HM__SBX_DESCRIBE;
}

char *hm__sbx_describe(const char *file, char *err, size_t errlen)
{
    proc_t pr;
    if (proc_start(&pr, file, 0, init_describe, NULL, err, errlen) != 0) {
        proc_end(&pr);
        return NULL;
    }
    char *json = NULL;
    if (proc_wait(&pr, "describing it in the sandbox", err, errlen) == 0) {
        uint32_t n = pr.chan->result_len;
        json = n <= HM__SBX_BUF ? malloc((size_t)n + 1) : NULL;
        if (json) {
            memcpy(json, pr.chan->buf, n);
            json[n] = 0;
        } else {
            snprintf(err, errlen, "describing it in the sandbox: no description");
        }
    }
    proc_end(&pr);
    return json;
}

/* The run's context: the config's name and the "algorithm" object, as its setup saw
 * them; set by hm__sbx_setup before every run's setup (runs are one after another). */
static char *ctx_file, *ctx_params;

typedef struct setup_arg_s {
    const hm_setup_t *s;
    const char *algo;
} setup_arg_t;

static void put_context(hm__sbx_chan_t *c, const hm_machine_info_t *mi, const char *algo)
{
    c->machine = *mi;
    snprintf(c->config, sizeof c->config, "%s", ctx_file ? ctx_file : "");
    snprintf(c->algorithm, sizeof c->algorithm, "%s", algo);
    size_t n = ctx_params ? strlen(ctx_params) : 0;
    if (n > HM__SBX_BUF)
        n = 0;
    memcpy(c->buf, ctx_params ? ctx_params : "", n);
    c->params_len = (uint32_t)n;
}

static void init_setup(hm__sbx_chan_t *c, const void *arg)
{
    const setup_arg_t *a = arg;
    c->mode = HM__SBX_SETUP;
    put_context(c, a->s->machine, a->algo);
}

int hm__sbx_setup(hm_setup_t *s, const char *file, int remote)
{
    free(ctx_file);
    free(ctx_params);
    ctx_file = s->file ? strdup(s->file) : NULL;
    ctx_params = s->params ? json_dumps(s->params, JSON_COMPACT) : NULL;
    if (!remote)
        return 0;
    proc_t pr;
    setup_arg_t a = {s, s->algorithm->name};
    int rc = -1;
    if (proc_start(&pr, file, 0, init_setup, &a, s->error, sizeof s->error) == 0 &&
        proc_wait(&pr, "its setup in the sandbox", s->error, sizeof s->error) == 0) {
        const hm__sbx_setup_t *r = &pr.chan->setup;
        rc = r->rc == 0 ? 0 : -1;
        if (rc != 0)
            snprintf(s->error, sizeof s->error, "%.*s", (int)sizeof r->error - 1,
                     r->error[0] ? r->error : "algorithm setup failed");
        s->out_size = r->out_size <= (1u << 30) ? (size_t)r->out_size : 0;
        s->cost = r->cost > 0 ? r->cost : 0;
    }
    proc_end(&pr);
    return rc;
}

/* ---- the plugin's own verify, sandboxed ------------------------------------------------- */

typedef struct verify_arg_s {
    const hm__outcome_t *o;
    const hm_algorithm_t *a;
    int64_t completion;
} verify_arg_t;

static void init_verify(hm__sbx_chan_t *c, const void *arg)
{
    const verify_arg_t *v = arg;
    const hm__outcome_t *o = v->o;
    int p = o->info.nodes;
    c->mode = HM__SBX_VERIFY;
    c->nodes = p;
    c->arg = (int32_t)o->out_size;
    c->arg64 = v->completion;
    put_context(c, &o->info, v->a->name);
    int64_t *off = (int64_t *)((char *)c + sizeof *c), *values = off + p + 1;
    off[0] = 0;
    for (int i = 0; i < p; i++) {
        memcpy(values + off[i], o->stores[i].v, o->stores[i].n * sizeof *values);
        off[i + 1] = off[i] + (int64_t)o->stores[i].n;
    }
    if (o->out && o->out_size)
        memcpy(values + off[p], o->out, (size_t)p * o->out_size);
}

int hm__sbx_verify(const char *file, const hm_algorithm_t *a, const hm__outcome_t *o,
                   hm_report_t *r, char *err, size_t errlen)
{
    size_t stores = 0;
    for (int i = 0; i < o->info.nodes; i++)
        stores += o->stores[i].n;
    size_t bytes = ((size_t)o->info.nodes + 1 + stores) * sizeof(int64_t) +
                   (size_t)o->info.nodes * (o->out ? o->out_size : 0);
    if (bytes > ((size_t)1 << 32)) {
        snprintf(err, errlen, "verify: an outcome of %zu bytes is beyond the sandbox's 4 GiB",
                 bytes);
        return -1;
    }
    proc_t pr;
    verify_arg_t v = {o, a, r->completion_slots};
    int rc = -1;
    if (proc_start(&pr, file, bytes, init_verify, &v, err, errlen) == 0 &&
        proc_wait(&pr, "verify in the sandbox", err, errlen) == 0) {
        const hm__sbx_setup_t *res = &pr.chan->setup;
        r->verified = res->rc == 1;
        snprintf(r->verification, sizeof r->verification, "%.*s", (int)sizeof r->verification - 1,
                 res->error);
        r->error = res->cost ? "the plugin's verify could not check" : NULL;
        uint32_t n = pr.chan->result_len;
        json_t *extra = n && n <= HM__SBX_BUF ? json_loadb(pr.chan->buf, n, 0, NULL) : NULL;
        if (json_is_object(extra) && r->extra)
            json_object_update(r->extra, extra);
        json_decref(extra);
        rc = 0;
    }
    proc_end(&pr);
    return rc;
}

/* ---- a node, served --------------------------------------------------------------------- */

typedef struct run_arg_s {
    hm_node_t *n;
    const char *algo;
} run_arg_t;

static void init_run(hm__sbx_chan_t *c, const void *arg)
{
    const run_arg_t *a = arg;
    hm_node_t *n = a->n;
    c->mode = HM__SBX_RUN;
    c->node = hm_id(n);
    c->nodes = hm_nodes(n);
    c->degree = hm_degree(n);
    c->root = hm_root(n);
    c->op = (int32_t)hm_op(n);
    c->stack_size = hm__stack_size(&n->m->opt);
    put_context(c, &n->m->info, a->algo);
}

static void futex_wait(_Atomic uint32_t *w, uint32_t old, long ns)
{
    struct timespec t = {.tv_sec = 0, .tv_nsec = ns};
    syscall(SYS_futex, (uint32_t *)w, FUTEX_WAIT, old, &t, NULL, 0);
}

static void futex_wake(_Atomic uint32_t *w)
{
    syscall(SYS_futex, (uint32_t *)w, FUTEX_WAKE, 1, NULL, NULL, 0);
}

static void put_packet(hm__sbx_chan_t *c, const hm_packet_t *p)
{
    uint32_t len = p->len <= HM__SBX_BUF ? p->len : 0;
    c->pkt = (hm__sbx_packet_t){.msg = p->msg,
                                .origin = p->origin,
                                .value = p->value,
                                .tag = p->tag,
                                .aux = p->aux,
                                .len = len,
                                .from = p->from,
                                .port = p->port,
                                .sent_slot = p->sent_slot,
                                .recv_slot = p->recv_slot};
    if (len)
        memcpy(c->buf, p->data, len);
}

/* A request that sends or takes a packet: 1 with its value in *rc, or 0. */
static int serve_packet(hm_node_t *n, hm__sbx_chan_t *c, const hm__sbx_call_t *call, int64_t *rc)
{
    hm_packet_t in;
    const hm_packet_t *p = call->nopkt ? NULL : &call->pkt;
    if (call->toolong) {
        char why[160];
        snprintf(why, sizeof why,
                 "a payload of %u bytes; under --sandbox a packet carries at most %u bytes",
                 call->toolong, (unsigned)HM__SBX_BUF);
        hm_fail(n, why);
        *rc = HM_EABORT;
        return 1;
    }
    switch (call->op) {
    case HM__SBX_SEND:
        *rc = hm_send(n, call->arg, p);
        return 1;
    case HM__SBX_SEND_TO:
        *rc = hm_send_to(n, call->arg, p);
        return 1;
    case HM__SBX_SEND_ROUTED:
        *rc = hm_send_routed(n, call->arg, p);
        return 1;
    case HM__SBX_SHOUT:
        *rc = hm_shout(n, call->mask, p);
        return 1;
    case HM__SBX_SHOUT_ALL:
        *rc = hm_shout_all(n, p);
        return 1;
    case HM__SBX_RECV:
        if ((*rc = hm_recv(n, &in)) == 0)
            put_packet(c, &in);
        return 1;
    case HM__SBX_WAIT_PACKET:
        if ((*rc = hm_wait_packet_until(n, call->want ? &in : NULL, call->arg64)) == 0 &&
            call->want)
            put_packet(c, &in);
        return 1;
    case HM__SBX_WAIT_PACKET_NS:
        if ((*rc = hm_wait_packet_ns(n, call->want ? &in : NULL, call->arg64)) == 0 && call->want)
            put_packet(c, &in);
        return 1;
    default:
        return 0;
    }
}

/* hm_input's values into the channel; their number. */
static int64_t serve_input(hm_node_t *n, hm__sbx_chan_t *c)
{
    size_t count = 0;
    const int64_t *v = hm_input(n, &count);
    if (count > HM__SBX_BUF / sizeof *v)
        count = HM__SBX_BUF / sizeof *v;
    if (v && count)
        memcpy(c->buf, v, count * sizeof *v);
    return (int64_t)count;
}

/* hm_show: the buffer's length (arg64) and its first values, copied out of the request's
 * bytes (those it lacks are zero), at most HM__SBX_SHOW_WORDS. */
_Static_assert(HM__SBX_SHOW_WORDS == HM__SHOW_KEEP, "hm_show sends what the engine keeps");
static void serve_show(hm_node_t *n, const hm__sbx_call_t *call)
{
    int64_t v[HM__SBX_SHOW_WORDS] = {0};
    size_t got = call->len / sizeof *v;
    if (call->arg64 < 0)
        return;
    if (got > HM__SBX_SHOW_WORDS)
        got = HM__SBX_SHOW_WORDS;
    if (got && call->pkt.data)
        memcpy(v, call->pkt.data, got * sizeof *v);
    hm_show(n, v, (size_t)call->arg64);
}

/* One request, made; returns the call's value. 1 in *done after the last, when the
 * node's output area comes back (its size is the engine's, never the channel's). */
static int64_t serve(hm_node_t *n, hm__sbx_chan_t *c, const hm__sbx_call_t *call, int *done)
{
    int64_t rc = 0;
    const char *text = call->pkt.data ? (const char *)call->pkt.data : "";
    if (serve_packet(n, c, call, &rc))
        return rc;
    switch (call->op) {
    case HM__SBX_PENDING:
        return hm_pending(n);
    case HM__SBX_CLOCK_NS:
        return hm_clock_ns(n);
    case HM__SBX_WAIT_UNTIL:
        return hm_wait_until(n, call->arg64);
    case HM__SBX_BUSY:
        return hm_busy(n, call->arg64);
    case HM__SBX_STORE:
        hm_store(n, call->arg64);
        return 0;
    case HM__SBX_LOG:
        hm_log(n, "%s", text);
        return 0;
    case HM__SBX_FAIL:
        hm_fail(n, text);
        return 0;
    case HM__SBX_WAIT_NOTE:
        hm_wait_note(n, text);
        return 0;
    case HM__SBX_ABORT:
        hm_abort(n, text);
        return 0;
    case HM__SBX_NEIGHBOR:
        return hm_neighbor(n, call->arg);
    case HM__SBX_PORT_TO:
        return hm_port_to(n, call->arg);
    case HM__SBX_INPUT:
        return serve_input(n, c);
    case HM__SBX_SHOW:
        serve_show(n, call);
        return 0;
    case HM__SBX_DONE: {
        size_t out = hm__out_size(&n->m->opt, n->m->algo);
        if (n->out && out)
            memcpy(n->out, (const char *)c + sizeof *c, out);
        *done = 1;
        return 0;
    }
    default:
        return HM_EINVAL;
    }
}

static void crashed(hm_node_t *n, const char *why);

int hm__sbx_serve_one(hm_node_t *n, hm__sbx_chan_t *c, char *buf, int *done)
{
    hm__sbx_call_t call;
    if (hm__sbx_decode(c, &call, buf) != 0) {
        crashed(n, call.why);
        return -1;
    }
    c->ret = serve(n, c, &call, done);
    c->now = hm_now(n);
    atomic_fetch_add_explicit(&c->rep, 1, memory_order_release);
    futex_wake(&c->rep);
    return 0;
}

static void crashed(hm_node_t *n, const char *why)
{
    const char *file = hm__plugin_file(n->m->algo);
    hm__rules_stop(n->m, hm__strdup_printf(
                             "node %d (algorithm %s, plugin %s) crashed in slot %lld: %s", hm_id(n),
                             n->m->algo->name, file ? file : "?", (long long)hm_now(n), why));
}

/* Wait for the next request: 1 when there is one (*seen is its number), 0 when the node
 * process is gone (reported) or the run was stopped and it does not ask within a second. */
static int next_request(hm_node_t *n, proc_t *pr, uint32_t *seen)
{
    char why[600];
    long waited_ns = 0;
    for (;;) {
        uint32_t r = atomic_load_explicit(&pr->chan->req, memory_order_acquire);
        if (r != *seen) {
            *seen = r;
            return 1;
        }
        futex_wait(&pr->chan->req, r, 10 * 1000 * 1000);
        proc_drain(pr, 0);
        if (atomic_load_explicit(&pr->chan->req, memory_order_acquire) != r)
            continue;
        if (proc_gone(pr, 0, why, sizeof why)) {
            if (!hm__aborted(n->m))
                crashed(n, why);
            return 0;
        }
        if (hm__aborted(n->m) && (waited_ns += 10 * 1000 * 1000) > 1000L * 1000 * 1000)
            return 0;
    }
}

void hm__sbx_node_main(hm_node_t *n, void *state)
{
    (void)state;
    proc_t pr;
    char err[300];
    run_arg_t a = {n, n->m->algo->name};
    if (proc_start(&pr, hm__plugin_file(n->m->algo), hm__out_size(&n->m->opt, n->m->algo), init_run,
                   &a, err, sizeof err) != 0) {
        hm_fail(n, err);
        proc_end(&pr);
        return;
    }
    pr.node = hm_id(n);
    char *buf = malloc(HM__SBX_BUF + 1); /* the request's bytes, copied */
    if (!buf)
        hm_fail(n, "out of memory serving its node process");
    uint32_t seen = 0;
    for (int done = 0; buf && !done && next_request(n, &pr, &seen);)
        if (hm__sbx_serve_one(n, pr.chan, buf, &done) != 0)
            break;
    free(buf);
    proc_end(&pr);
}
