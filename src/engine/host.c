/* SPDX-License-Identifier: MIT */
/*
 * host.c — how many threads the host lets this process create (README "Many
 * nodes"). Every node is a thread, and creating one fails at the first of these
 * limits that is reached:
 *
 *   kernel.pid_max        every thread takes a task id; counts all tasks of the host
 *   kernel.threads-max    the kernel's ceiling on tasks
 *   vm.max_map_count      mappings per process: a thread's stack and its guard page
 *   RLIMIT_NPROC          ulimit -u: tasks per user (not enforced for root)
 *   RLIMIT_AS             ulimit -v: the address space of the process (a stack each)
 *   RLIMIT_DATA           ulimit -d: its private writable mappings (a stack each)
 *   memory                a thread's kernel stack and structures, its touched stack
 *
 * The figures come from /proc and getrlimit at the moment of the call; the tasks
 * already on the host (/proc/loadavg) and this process's mappings are subtracted.
 * HYPEMU_PROC names another directory to read them from, laid out as /proc (the tests
 * give a host with small limits that way: README "Many nodes").
 */
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "hm_internal.h"

/* /proc/NAME, or $HYPEMU_PROC/NAME, opened for reading (-1 if it cannot be). These files are
 * read with read(2) into buffers on the stack: this runs when a thread could not be created,
 * often for want of memory, when stdio would fall back to reading a byte at a time, and a
 * sysctl file read at an offset other than 0 reads as empty (pid_max 32768 would read as
 * 3). */
static int open_proc(const char *name)
{
    const char *root = getenv("HYPEMU_PROC");
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", root && *root ? root : "/proc", name);
    return open(path, O_RDONLY | O_CLOEXEC);
}

/* The start of /proc/NAME into buf (NUL-terminated); its length, or -1. */
static ssize_t slurp(const char *name, char *buf, size_t cap)
{
    int fd = open_proc(name);
    if (fd < 0)
        return -1;
    size_t n = 0;
    ssize_t r;
    while (n < cap - 1 && (r = read(fd, buf + n, cap - 1 - n)) > 0)
        n += (size_t)r;
    close(fd);
    buf[n] = 0;
    return (ssize_t)n;
}

/* The first integer in a /proc file after `key` (NULL: at the start), or -1. */
static int64_t read_proc(const char *name, const char *key)
{
    char buf[16384];
    if (slurp(name, buf, sizeof buf) < 0)
        return -1;
    const char *p = key ? strstr(buf, key) : buf;
    long long v = -1;
    if (!p || sscanf(p + (key ? strlen(key) : 0), "%lld", &v) != 1)
        return -1;
    return v;
}

/* Tasks (threads) on the host: the fourth field of /proc/loadavg, "running/total". */
static int64_t host_tasks(void)
{
    char buf[256];
    long long total = 0;
    if (slurp("loadavg", buf, sizeof buf) < 0 || sscanf(buf, "%*s %*s %*s %*d/%lld", &total) != 1)
        total = 0;
    return total;
}

static int64_t count_lines(const char *name)
{
    int fd = open_proc(name);
    if (fd < 0)
        return 0;
    int64_t n = 0;
    char buf[16384];
    ssize_t r;
    while ((r = read(fd, buf, sizeof buf)) > 0)
        for (ssize_t i = 0; i < r; i++)
            n += buf[i] == '\n';
    close(fd);
    return n;
}

typedef struct limit_s {
    const char *name;
    int64_t value; /* the limit, -1 if unknown or unlimited */
    int64_t room;  /* threads it still allows this process */
    const char *fix;
    char used[96]; /* what already counts against it */
} limit_t;

enum { L_PID_MAX, L_THREADS_MAX, L_MAP_COUNT, L_NPROC, L_AS, L_DATA, L_MEMORY, L_COUNT };

/* A resource limit of this process (ulimit), in its unit; -1 when unlimited or when
 * root is exempt from it. */
static int64_t rlimit_of(int resource, int64_t unit, int root_exempt)
{
    struct rlimit rl = {RLIM_INFINITY, RLIM_INFINITY};
    if (getrlimit(resource, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY ||
        (root_exempt && geteuid() == 0))
        return -1;
    return (int64_t)(rl.rlim_cur / (rlim_t)unit);
}

/* Every limit on the threads of this process, with the room it leaves, at this moment.
 * A thread takes a task id, two mappings (its stack and guard page), its stack and guard
 * page of address space and of data (ulimit -v, ulimit -d: both count private
 * mappings), and memory: 24 KiB of the kernel's (a 16 KiB kernel stack and its task
 * structures), the pages of its stack it touches (an eighth of it: two pages of the
 * default 64 KiB) and 2 KiB of the node's own (README "Many nodes" has the figures). */
static void read_limits(limit_t *lim, size_t stack)
{
    int64_t tasks = host_tasks(), maps = count_lines("self/maps");
    int64_t threads = read_proc("self/status", "Threads:");
    int64_t vm_kb = read_proc("self/status", "VmSize:"),
            data_kb = read_proc("self/status", "VmData:");
    int64_t mem_kb = read_proc("meminfo", "MemAvailable:");
    int64_t mapped = (int64_t)stack + 4096, per_thread = 26 * 1024 + (int64_t)stack / 8;
    vm_kb = vm_kb > 0 ? vm_kb : 0;
    data_kb = data_kb > 0 ? data_kb : 0;
    threads = threads > 0 ? threads : 1;
    const limit_t all[L_COUNT] = {
        {"kernel.pid_max", read_proc("sys/kernel/pid_max", NULL), 0,
         "sysctl -w kernel.pid_max=4194304", ""},
        {"kernel.threads-max", read_proc("sys/kernel/threads-max", NULL), 0,
         "sysctl -w kernel.threads-max=...", ""},
        {"vm.max_map_count", read_proc("sys/vm/max_map_count", NULL), 0,
         "sysctl -w vm.max_map_count=262144", ""},
        {"RLIMIT_NPROC (ulimit -u)", rlimit_of(RLIMIT_NPROC, 1, 1), 0, "ulimit -u ...", ""},
        {"RLIMIT_AS (ulimit -v, kB)", rlimit_of(RLIMIT_AS, 1024, 0), 0, "ulimit -v unlimited", ""},
        {"RLIMIT_DATA (ulimit -d, kB)", rlimit_of(RLIMIT_DATA, 1024, 0), 0, "ulimit -d unlimited",
         ""},
        {"memory (MemAvailable, kB)", mem_kb, 0, "fewer nodes or a smaller stack", ""},
    };
    memcpy(lim, all, sizeof all);
    lim[L_PID_MAX].room = lim[L_PID_MAX].value - tasks;
    lim[L_THREADS_MAX].room = lim[L_THREADS_MAX].value - tasks;
    lim[L_MAP_COUNT].room = (lim[L_MAP_COUNT].value - maps) / 2;
    lim[L_NPROC].room = lim[L_NPROC].value - threads;
    lim[L_AS].room = (lim[L_AS].value - vm_kb) * 1024 / mapped;
    lim[L_DATA].room = (lim[L_DATA].value - data_kb) * 1024 / mapped;
    lim[L_MEMORY].room = mem_kb * 1024 / per_thread;
    for (int i = L_PID_MAX; i <= L_THREADS_MAX; i++)
        snprintf(lim[i].used, sizeof lim[i].used, "%lld tasks on the host", (long long)tasks);
    snprintf(lim[L_MAP_COUNT].used, sizeof lim[L_MAP_COUNT].used, "%lld mappings in this process",
             (long long)maps);
    snprintf(lim[L_NPROC].used, sizeof lim[L_NPROC].used, "%lld threads in this process",
             (long long)threads);
    snprintf(lim[L_AS].used, sizeof lim[L_AS].used, "this process maps %lld kB, %lld kB a thread",
             (long long)vm_kb, (long long)(mapped / 1024));
    snprintf(lim[L_DATA].used, sizeof lim[L_DATA].used,
             "this process has %lld kB of data, %lld kB a thread", (long long)data_kb,
             (long long)(mapped / 1024));
    snprintf(lim[L_MEMORY].used, sizeof lim[L_MEMORY].used, "about %lld kB a thread",
             (long long)(per_thread / 1024));
}

int64_t hm__host_thread_limit(int64_t want, size_t stack, char *buf, size_t len)
{
    limit_t lim[L_COUNT];
    read_limits(lim, stack);
    int tight = -1, first_short = -1;
    for (int i = 0; i < L_COUNT; i++) {
        if (lim[i].value < 0)
            continue;
        if (tight < 0 || lim[i].room < lim[tight].room)
            tight = i;
        if (first_short < 0 && lim[i].room < want)
            first_short = i;
    }
    /* The limit that bites is the first one short of room; when none is, the system
     * refused for a reason read nowhere here (a container's pids.max, say), and the
     * tightest limit is only shown. */
    int pick = first_short >= 0 ? first_short : tight;
    if (buf && len) {
        const limit_t *l = &lim[pick >= 0 ? pick : 0];
        if (pick < 0)
            snprintf(buf, len, "no host limit on threads could be read");
        else
            snprintf(buf, len,
                     "%s %s = %lld (%s, room for about %lld more threads; raise it: %s, see "
                     "README \"Many nodes\")",
                     first_short >= 0 ? "the host limit reached is"
                                      : "no host limit read here is reached; the tightest is",
                     l->name, (long long)l->value, l->used, (long long)(l->room > 0 ? l->room : 0),
                     l->fix);
    }
    return tight < 0 ? INT64_MAX : (lim[tight].room > 0 ? lim[tight].room : 0);
}

/* ---- the futex hash -------------------------------------------------------------
 *
 * Every node sleeps in a futex wait (its semaphore, or the clock's shared word), and
 * the kernel keeps the waiters in hash buckets: a wake-up walks the whole chain of its
 * bucket, comparing every waiter's key with its own. Since Linux 6.16 a threaded
 * process gets a private hash of 4 buckets per online CPU, at least 16 and at most the
 * global table's size (256 per CPU): on a 2-CPU host, 16 buckets for every node of a
 * machine, so that a wake-up among 65,536 sleepers walks about 4,096 of them and a
 * broadcast's wake-ups cost the square of the nodes. PR_FUTEX_HASH sizes the process's
 * hash: a power of two at least the node count keeps the chains about one waiter long,
 * at 64 bytes of kernel memory a bucket. The hash only grows (a machine of fewer nodes
 * after a larger one keeps it); older kernels refuse the call, and keep the global
 * table (256 buckets per CPU), whose chains grow with the sleepers again. */
#ifdef __linux__
#include <sys/prctl.h>
#ifndef PR_FUTEX_HASH
#define PR_FUTEX_HASH 78
#define PR_FUTEX_HASH_SET_SLOTS 1
#define PR_FUTEX_HASH_GET_SLOTS 2
#endif
#endif

void hm__host_futex_hash(int64_t threads)
{
#ifdef __linux__
    if (threads <= 16)
        return;
    int64_t want = 16;
    while (want < threads && want < ((int64_t)1 << 22))
        want *= 2;
    int have = prctl(PR_FUTEX_HASH, PR_FUTEX_HASH_GET_SLOTS, 0, 0, 0);
    if (have >= 0 && have < want)
        (void)prctl(PR_FUTEX_HASH, PR_FUTEX_HASH_SET_SLOTS, (unsigned long)want, 0, 0);
#else
    (void)threads;
#endif
}

/* ---- CPUs and affinity (clock.affinity, doc/clocks.md) ---- */

int hm__allowed_cpus(int *cpus)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    int n = 0;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return 0;
    for (int c = 0; c < CPU_SETSIZE && c < HM__AFFINITY_MAX; c++)
        if (CPU_ISSET(c, &set))
            cpus[n++] = c;
    return n;
}

/* compact: consecutive nodes share a CPU, node i on CPU i / ceil(nodes / n); scatter:
 * consecutive nodes on different CPUs, node i on CPU i mod n (spread evenly when
 * there are fewer nodes than CPUs); a list: node i on the list's CPU i mod length. */
int hm__affinity_cpu(const hm__options_t *opt, const int *cpus, int n, int node, int nodes)
{
    switch (opt->affinity) {
    case HM__AFFINITY_COMPACT:
        return n > 0 ? cpus[node / ((nodes + n - 1) / n)] : -1;
    case HM__AFFINITY_SCATTER:
        if (n <= 0)
            return -1;
        return nodes < n ? cpus[(int64_t)node * n / nodes] : cpus[node % n];
    case HM__AFFINITY_LIST:
        return opt->affinity_cpus[node % opt->affinity_n];
    default:
        return -1;
    }
}

/* "model name" of /proc/cpuinfo (the first CPU), or "unknown". */
static void cpu_model(char *buf, size_t len)
{
    snprintf(buf, len, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) != 0 || !colon)
            continue;
        colon += strspn(colon + 1, " \t") + 1;
        colon[strcspn(colon, "\n")] = '\0';
        snprintf(buf, len, "%s", colon);
        break;
    }
    fclose(f);
}

json_t *hm__host_json(const hm__machine_t *m)
{
    static const char *const names[] = {"none", "compact", "scatter", "list"};
    int cpus[HM__AFFINITY_MAX];
    int allowed = hm__allowed_cpus(cpus);
    char model[256], kernel[300] = "unknown";
    cpu_model(model, sizeof model);
    struct utsname u;
    if (uname(&u) == 0)
        snprintf(kernel, sizeof kernel, "%s %s %s", u.sysname, u.release, u.machine);
    json_t *used = json_array();
    if (m->opt.affinity != HM__AFFINITY_NONE) {
        /* The distinct CPUs the node threads were pinned to, ascending. */
        char seen[HM__AFFINITY_MAX] = {0};
        for (int i = 0; i < m->info.nodes; i++) {
            int c = hm__affinity_cpu(&m->opt, cpus, allowed, i, m->info.nodes);
            if (c >= 0 && c < HM__AFFINITY_MAX)
                seen[c] = 1;
        }
        for (int c = 0; c < HM__AFFINITY_MAX; c++)
            if (seen[c])
                json_array_append_new(used, json_integer(c));
    }
    return json_pack("{s:I, s:i, s:s, s:s, s:s, s:o}", "cpus_online",
                     (json_int_t)sysconf(_SC_NPROCESSORS_ONLN), "cpus_allowed", allowed,
                     "cpu_model", model, "kernel", kernel, "affinity", names[m->opt.affinity],
                     "pinned_cpus", used);
}

/* se.nr_migrations of the calling thread, from /proc/self/task/TID/sched (kernels with
 * CONFIG_SCHED_DEBUG); -1 where the file or the line is missing. */
static int64_t migrations(void)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/self/task/%ld/sched", (long)syscall(SYS_gettid));
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    int64_t v = -1;
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (colon && strncmp(line, "se.nr_migrations", 16) == 0) {
            v = strtoll(colon + 1, NULL, 10);
            break;
        }
    }
    fclose(f);
    return v;
}

/* The calling thread as the kernel counts it: fig[0] voluntary and fig[1] involuntary
 * context switches (getrusage RUSAGE_THREAD), fig[2] CPU migrations; -1 unreadable. */
void hm__thread_figures(int64_t fig[3])
{
    struct rusage ru;
    fig[0] = fig[1] = -1;
    if (getrusage(RUSAGE_THREAD, &ru) == 0) {
        fig[0] = ru.ru_nvcsw;
        fig[1] = ru.ru_nivcsw;
    }
    fig[2] = migrations();
}
