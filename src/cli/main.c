/* SPDX-License-Identifier: MIT */
/*
 * main.c — the command line of README "Command line".
 *
 *   hypemu [--json] [--set PATH=VALUE]... CONFIG.json
 *   hypemu --validate [--set PATH=VALUE]... CONFIG.json
 *   hypemu --list [--json] | --help | --version
 *
 * Exit codes: 0 run complete and verified; 1 verification failed or strict
 * port-model violation; 2 bad usage or config; 3 deadlock, clock.max_slots or
 * clock.slot_timeout; 4 system error; 5 a node program broke the rules of the node API;
 * 130 (143) interrupted by SIGINT (SIGTERM): README "Exit codes".
 */
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config_keys.h"
#include "launcher.h"
#include "list.h"
#include "plugin.h"
#include "run.h"

/* Ctrl-C and SIGTERM: the first raises the engine's interrupt flag, so that the run
 * stops at the end of its slot and the summary and every output are written for what
 * was done. A second one, a quarter of a second or more after the first, removes the
 * output file being written and ends the process at once, killed by that signal (the
 * shell reports 130 or 143; README "Exit codes"): the default action comes back and
 * the signal is raised again. A signal sooner than that is the same interrupt
 * delivered twice (timeout(1) signals the process and then its process group). No
 * _exit here: under ThreadSanitizer that runs the sanitizer's finalisation beside
 * running threads. clock_gettime is async-signal-safe. */
static atomic_int interrupt_flag;
static atomic_int interrupt_signal; /* the first signal */
static atomic_llong interrupt_ns;   /* CLOCK_MONOTONIC of the first signal, 0 until set */

static long long monotonic_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec + 1;
}

static void on_signal(int sig)
{
    int none = 0;
    if (atomic_compare_exchange_strong(&interrupt_signal, &none, sig)) {
        atomic_store(&interrupt_ns, monotonic_ns());
        atomic_store(&interrupt_flag, 1);
        return;
    }
    long long first = atomic_load(&interrupt_ns);
    if (first == 0 || monotonic_ns() - first < 250000000LL)
        return; /* the same interrupt, delivered twice */
    /* unlink may set errno, and the raised signal is delivered only once this handler
     * returns (it is blocked while it runs): give the interrupted code its errno back. */
    int saved = errno;
    hm__cli_discard_temp_output();
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, NULL);
    raise(sig);
    errno = saved;
}

static void catch_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: hypemu [--json] [--set PATH=VALUE]... CONFIG.json\n"
            "       hypemu --validate [--set PATH=VALUE]... CONFIG.json\n"
            "       hypemu --list [--json] | --help | --version\n"
            "       (each form takes --plugin FILE first, repeatable, and --sandbox)\n"
            "\n"
            "  --json            print the summary as one JSON object\n"
            "  --set PATH=VALUE  override one config field, repeatable\n"
            "                    (e.g. --set topology.dim=6 --set algorithm.variant=sequential)\n"
            "  --validate        check the config, report every error, run nothing\n"
            "  --list            topologies, port models, algorithms, parameters and papers\n"
            "                    (with --json: the whole catalogue as one JSON document)\n"
            "  --plugin FILE     load the algorithms of a plugin (a shared object built with\n"
            "                    HM_PLUGIN, hypemu.h), repeatable\n"
            "  --sandbox         run the plugins' node programs in node processes of their\n"
            "                    own, shut in by a seccomp filter (README \"Sandbox\")\n"
            "  --timeline-nodes LIST  the text timeline shows these nodes only, e.g. 0-3,8\n"
            "                    (the same as --set output.nodes=LIST)\n"
            "  --repeat N        run N times (1..1000); min, median, max and a 95%% interval\n"
            "                    of the wall time and of each contention figure\n"
            "  --progress        a progress line on stderr during the run, even when stderr\n"
            "                    is not a terminal (by default: on a terminal, after 2 s)\n"
            "  --quiet           no progress line\n"
            "\n"
            "exit codes: 0 verified, 1 verification failed or strict port-model violation,\n"
            "            2 bad usage or config, 3 deadlock, clock.max_slots or\n"
            "            clock.slot_timeout, 4 system error, 5 a node program broke the\n"
            "            rules of the node API\n");
}

/* --validate: the checks of the config, then the algorithm's own setup and teardown,
 * exactly as a run makes them, so that whatever the run would reject is rejected
 * here with the same message. */
static int validate_config(const hm__config_t *cfg, const char *file)
{
    hm_setup_t s;
    char *message;
    int rc = hm__config_setup(cfg, &s, &message);
    if (rc != HM_EXIT_OK) {
        fprintf(stderr, "hypemu: %s\n", message ? message : "algorithm setup failed");
        free(message);
        return rc;
    }
    if (cfg->algo->teardown)
        cfg->algo->teardown(s.state);
    hm__config_warnings(cfg, stderr);
    /* A warning, not an error: the host's room for threads changes with its load
     * (README "Many nodes"). */
    char why[512];
    int64_t nodes = cfg->opt.info.nodes;
    if (hm__host_thread_limit(nodes, hm__stack_size(&cfg->opt), why, sizeof why) < nodes)
        fprintf(stderr,
                "hypemu: %s: warning: the run needs %lld threads (one per node), more than the "
                "host allows now: %s\n",
                file, (long long)nodes, why);
    printf("%s: valid (%s on %s, %d nodes, %s ports)\n", file, cfg->algo->name,
           hm_topology_name(cfg->opt.info.topology), cfg->opt.info.nodes,
           hm_ports_name(cfg->opt.info.ports));
    return HM_EXIT_OK;
}

/* Everything for stdout goes through stdio: before exiting, flush it and check that
 * every write went through (a full disk, /dev/full, an I/O error...). A lost
 * write is a system error, exit 4, said on stderr: the user would otherwise take an
 * empty or cut output for the whole answer. */
static int stdout_done(int rc)
{
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout))
        return rc;
    int e = errno ? errno : EIO;
    fprintf(stderr, "hypemu: cannot write standard output: %s\n", strerror(e));
    return HM_EXIT_SYSTEM;
}

/* --repeat N: N in 1..1000, or -1 after saying what is allowed. */
static int repeat_arg(const char *v)
{
    char *end = NULL;
    long n = v ? strtol(v, &end, 10) : 0;
    if (!v || end == v || *end || n < 1 || n > 1000) {
        fprintf(stderr, "hypemu: --repeat: found %s; allowed: a number of runs 1..1000\n",
                v ? v : "nothing");
        return -1;
    }
    return (int)n;
}

/* --plugin FILE (or --plugin=FILE), wherever it stands: every plugin is loaded before the
 * other options act, so that --list and the config see its algorithms. Returns
 * HM_EXIT_OK or HM_EXIT_USAGE after the message. */
/* The config file of the command line (its one argument that is no option nor an option's
 * value), or NULL. */
static const char *config_arg(int argc, char **argv)
{
    const char *file = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--plugin") == 0 || strcmp(a, "--set") == 0 ||
            strcmp(a, "--timeline-nodes") == 0 || strcmp(a, "--repeat") == 0)
            i++;
        else if (a[0] != '-' || !a[1])
            file = a;
    }
    return file;
}

/* The launcher the command line runs under (launcher.h): hypemu's or hypemu-mpi's. */
static const hm__launcher_t *launcher;

/* --sandbox wherever it stands, "sandbox": true in the config or --set sandbox=true
 * (README "Sandbox"): known before any plugin is loaded. A config that cannot be read
 * here is reported when it is loaded. --list reads the plugins' descriptors only: always
 * in the sandbox, where hypemu has one (hypemu-mpi has none). */
static void sandbox_wanted(int argc, char **argv)
{
#ifdef HM_HAVE_SECCOMP
    int list = launcher->sandbox;
#else
    int list = 0;
#endif
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--sandbox") == 0 || (list && strcmp(argv[i], "--list") == 0) ||
            (i > 1 && strcmp(argv[i - 1], "--set") == 0 && strcmp(argv[i], "sandbox=true") == 0) ||
            strcmp(argv[i], "--set=sandbox=true") == 0)
            hm__plugin_sandbox(1);
    const char *file = config_arg(argc, argv);
    json_t *root = file ? json_load_file(file, 0, NULL) : NULL;
    if (json_is_true(json_object_get(root, "sandbox")))
        hm__plugin_sandbox(1);
    json_decref(root);
}

static int load_plugins(int argc, char **argv)
{
    sandbox_wanted(argc, argv);
    if (!launcher->sandbox && hm__plugin_sandboxed()) {
        fprintf(stderr,
                "%s: --sandbox: node processes run under hypemu only; run the "
                "plugin with hypemu --sandbox, on one host (doc/mpi.md)\n",
                launcher->name);
        return HM_EXIT_USAGE;
    }
    for (int i = 1; i < argc; i++) {
        const char *f = NULL;
        if (strcmp(argv[i], "--plugin") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "hypemu: --plugin needs a file (a shared object)\n");
                return HM_EXIT_USAGE;
            }
            f = argv[++i];
        } else if (strncmp(argv[i], "--plugin=", 9) == 0) {
            f = argv[i] + 9;
        } else if (strcmp(argv[i], "--set") == 0 || strcmp(argv[i], "--timeline-nodes") == 0 ||
                   strcmp(argv[i], "--repeat") == 0) {
            i++; /* their value is not an option */
        }
        char err[1024];
        if (f && hm__plugin_load(f, err, sizeof err) != 0) {
            fprintf(stderr, "hypemu: %s\n", err);
            return HM_EXIT_USAGE;
        }
    }
    return HM_EXIT_OK;
}

/* The command line, as parsed. */
typedef struct args_s {
    int json, validate, progress; /* --progress 1, --quiet -1 */
    int repeat;                   /* --repeat N, 0 without */
    const char *timeline_nodes;   /* --timeline-nodes LIST */
    const char *file;
    char **sets; /* argc entries, nsets used, + --timeline-nodes */
    int nsets;
} args_t;

/* An option that prints and exits (--help, --version, --list): its exit code, or -1
 * if argv[i] is none of them. */
static int print_option(const args_t *g, int argc, char **argv, int i)
{
    const char *a = argv[i];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
        usage(stdout);
    } else if (strcmp(a, "--version") == 0) {
        printf("hypemu %s\n", hm_version());
    } else if (strcmp(a, "--list") == 0) {
        /* --list --json: the catalogue as one JSON document. */
        if (g->json || (i + 1 < argc && strcmp(argv[i + 1], "--json") == 0))
            hm__list_json(stdout);
        else
            hm__list(stdout);
    } else {
        return -1;
    }
    return stdout_done(HM_EXIT_OK);
}

/* One argument (and its value, *i moves past it): -1 to go on, or the exit code. */
static int parse_one(args_t *g, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    int rc = print_option(g, argc, argv, *i);
    if (rc >= 0)
        return rc;
    if (strcmp(a, "--plugin") == 0 || strncmp(a, "--plugin=", 9) == 0) {
        *i += a[8] == 0; /* loaded by load_plugins */
    } else if (strcmp(a, "--sandbox") == 0) {
        /* taken by load_plugins */
    } else if (strcmp(a, "--json") == 0) {
        g->json = 1;
    } else if (strcmp(a, "--validate") == 0) {
        g->validate = 1;
    } else if (strcmp(a, "--progress") == 0 || strcmp(a, "--quiet") == 0) {
        g->progress = a[2] == 'p' ? 1 : -1;
    } else if (strcmp(a, "--set") == 0 || strncmp(a, "--set=", 6) == 0) {
        if (a[5] == '=')
            g->sets[g->nsets++] = argv[*i] + 6;
        else if (*i + 1 < argc)
            g->sets[g->nsets++] = argv[++*i];
        else {
            fprintf(stderr, "hypemu: --set needs PATH=VALUE\n");
            return HM_EXIT_USAGE;
        }
    } else if (strcmp(a, "--repeat") == 0) {
        if ((g->repeat = repeat_arg(*i + 1 < argc ? argv[++*i] : NULL)) < 0)
            return HM_EXIT_USAGE;
    } else if (strcmp(a, "--timeline-nodes") == 0) {
        if (*i + 1 >= argc) {
            fprintf(stderr, "hypemu: --timeline-nodes needs a list of nodes, e.g. 0-3,8\n");
            return HM_EXIT_USAGE;
        }
        g->timeline_nodes = argv[++*i];
    } else if (a[0] == '-' && a[1]) {
        fprintf(stderr,
                "hypemu: unknown option %s; allowed: --json, --set, --timeline-nodes, "
                "--plugin, --sandbox, --validate, --list, --progress, --quiet, --help, "
                "--version, --repeat\n",
                a);
        return HM_EXIT_USAGE;
    } else if (g->file) {
        fprintf(stderr, "hypemu: one config file expected, found %s and %s\n", g->file, a);
        return HM_EXIT_USAGE;
    } else {
        g->file = a;
    }
    return -1;
}

/* Load the config named on the command line, with its overrides. */
static int load(args_t *g, hm__config_t *cfg)
{
    /* --timeline-nodes LIST is --set output.nodes="LIST", last of the overrides; the
     * list stays a string (as JSON, "3" would be a number). */
    char *nodes_set = NULL;
    if (g->timeline_nodes) {
        nodes_set = hm__strdup_printf("output.nodes=\"%s\"", g->timeline_nodes);
        if (!nodes_set)
            return HM_EXIT_SYSTEM;
        g->sets[g->nsets++] = nodes_set;
    }
    int rc = hm__config_load(cfg, g->file, g->sets, g->nsets);
    free(nodes_set);
    if (rc != HM_EXIT_OK) {
        hm__config_print_errors(cfg, stderr);
        hm__config_free(cfg);
    }
    return rc;
}

/* What follows a run goes to stdout with write(2), from a buffer of the process's own: a
 * node program left running may hold stdio's lock on stdout (README "Exit codes"). A lost
 * write is a system error, exit 4, said on stderr as stdout_done says it. */
static int write_stdout(const char *text, size_t len, int rc)
{
    if (text && hm__write_fd(STDOUT_FILENO, text, len) == 0)
        return rc;
    char *msg = hm__strdup_printf("hypemu: cannot write standard output: %s\n",
                                  strerror(text ? errno : ENOMEM));
    if (msg)
        (void)hm__write_fd(STDERR_FILENO, msg, strlen(msg));
    free(msg);
    return HM_EXIT_SYSTEM;
}

/* The summary on stdout: one JSON object (--json) or readable lines. */
static int print_summary(const json_t *summary, int json, int rc)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (mem && json) {
        char *s = json_dumps(summary, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));
        if (s)
            fprintf(mem, "%s\n", s);
        free(s);
    } else if (mem) {
        hm__summary_print(mem, summary);
    }
    if (mem && fclose(mem) != 0) {
        free(text);
        text = NULL;
    }
    rc = write_stdout(text, len, rc);
    free(text);
    return rc;
}

/* --repeat N: the runs, then the statistics, on stdout at once. */
static int repeat(const hm__config_t *cfg, const args_t *g)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    int rc = mem ? hm__run_repeat(cfg, g->repeat, g->json, mem) : HM_EXIT_SYSTEM;
    if (rc == HM_EXIT_INTERRUPTED && interrupt_signal == SIGTERM)
        rc = 128 + SIGTERM;
    if (mem && fclose(mem) != 0) {
        free(text);
        text = NULL;
    }
    if (mem)
        rc = write_stdout(text, len, rc);
    free(text);
    return rc;
}

/* Run the config, print why it stopped (stderr) and its summary (stdout). */
static int run(hm__config_t *cfg, const args_t *g)
{
    hm__result_t res;
    cfg->opt.interrupt = &interrupt_flag;
    cfg->progress = g->progress;
    int mrc = launcher->prepare ? launcher->prepare(cfg, g->repeat) : HM_EXIT_OK;
    if (mrc != HM_EXIT_OK)
        return mrc;
    catch_signals();
    hm__crash_report_install();
    if (g->repeat > 0)
        return repeat(cfg, g);
    int rc = hm__run_config(cfg, &res);
    if (launcher->finish)
        rc = launcher->finish(rc, &res);
    if (rc == HM_EXIT_INTERRUPTED && interrupt_signal == SIGTERM) {
        rc = 128 + SIGTERM;
        if (res.summary)
            json_object_set_new(res.summary, "exit_code", json_integer(rc));
    }
    hm__result_report(&res);
    if (res.summary)
        rc = print_summary(res.summary, g->json, rc);
    hm__result_free(&res);
    return rc;
}

/* A node's thread left running may hold stdio's lock on stdout or stderr (README "Exit
 * codes"): from now on they are new streams on the same files, so that nothing after the
 * run (an exit handler that flushes them: a sanitizer's) waits for that thread. */
static void fresh_stdio(void)
{
    int o = dup(STDOUT_FILENO), e = dup(STDERR_FILENO);
    FILE *out = o >= 0 ? fdopen(o, "w") : NULL, *err = e >= 0 ? fdopen(e, "w") : NULL;
    if (!out && o >= 0)
        close(o);
    if (!err && e >= 0)
        close(e);
    if (out)
        stdout = out;
    if (err) {
        setvbuf(err, NULL, _IONBF, 0);
        stderr = err;
    }
}

const hm__launcher_t hm__launcher_plain = {.name = "hypemu", .sandbox = 1};

int hm_main(int argc, char **argv)
{
    return hm__main(argc, argv, &hm__launcher_plain);
}

int hm__main(int argc, char **argv, const hm__launcher_t *l)
{
    launcher = l;
    if (l->start && l->start(&argc, &argv) != 0)
        return HM_EXIT_SYSTEM;
    args_t g = {0};
    g.sets = calloc((size_t)argc, sizeof *g.sets);
    if (!g.sets)
        return HM_EXIT_SYSTEM;
    int rc = load_plugins(argc, argv) == HM_EXIT_OK ? -1 : HM_EXIT_USAGE;
    for (int i = 1; i < argc && rc < 0; i++)
        rc = parse_one(&g, argc, argv, &i);
    if (rc < 0 && !g.file) {
        usage(stderr);
        rc = HM_EXIT_USAGE;
    }
    hm__config_t cfg;
    if (rc < 0 && (rc = load(&g, &cfg)) == HM_EXIT_OK)
        rc = -1; /* loaded: go on */
    if (l->agree) {
        int agreed = l->agree(rc, &cfg, g.validate, g.repeat);
        if (rc < 0 && agreed >= 0)
            hm__config_free(&cfg);
        rc = agreed;
    }
    if (rc < 0) {
        rc = g.validate ? stdout_done(validate_config(&cfg, g.file)) : run(&cfg, &g);
        hm__config_free(&cfg);
    }
    free(g.sets);
    if (hm__threads_left_running())
        fresh_stdio();
    return rc;
}
