/* SPDX-License-Identifier: MIT */
/*
 * plugin.c — plugins (README "Writing node programs outside the tree"): dlopen, the
 * checks of hm_plugin and its descriptors, the catalogue they join, the problem's
 * setup, verify and teardown standing in for NULL ones (with hm_root and hm_input). (The
 * report of a node program that crashes: crash.c.)
 *
 * Plugins are loaded by the main thread before any run (command line, config loading)
 * and stay loaded until the process ends, so node threads read this file's tables
 * without locks.
 */
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "algo/common/problem.h"
#include "cli/plugin.h"
#include "hm_internal.h"

typedef struct plugin_algo_s {
    hm_algorithm_t desc;                /* the plugin's descriptor, NULL hooks filled in */
    const char *file;                   /* the plugin's file, as given */
    void (*own_verify)(hm_report_t *r); /* the plugin's .verify, NULL if none */
    int sandboxed;                      /* its node programs run in node processes */
    int (*setup)(hm_setup_t *s);        /* sandboxed: the problem's setup, or NULL */
    int sandboxed_verify;               /* sandboxed: it has a .verify of its own */
    int mpi;                            /* built by hypemu-mpicc (doc/mpi-programs.md) */
    const struct plugin_algo_s *own;    /* an MPI program bound to a problem: the program */
} plugin_algo_t;

static int sandbox_on;

/* A node process costs hypemu one descriptor (the read end of its output's pipe) while it
 * runs: the soft limit on descriptors rises to the hard one, for machines of more than
 * about a thousand nodes. */
void hm__plugin_sandbox(int on)
{
    struct rlimit r;
    if (on && !sandbox_on && getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur < r.rlim_max) {
        r.rlim_cur = r.rlim_max;
        setrlimit(RLIMIT_NOFILE, &r);
    }
    sandbox_on = on;
}

int hm__plugin_sandboxed(void)
{
    return sandbox_on;
}

static void **handles; /* every plugin loaded, to load each once */
static char **files;   /* the file of each, as given */
static size_t nhandles;
static plugin_algo_t **algos; /* every plugin algorithm, in load order */
static size_t nalgos;
static plugin_algo_t **derived; /* MPI programs bound to a problem (algorithm.problem) */
static size_t nderived;
static const hm_algorithm_t **catalogue; /* built-ins then algos, NULL-terminated */

/* ---- the problem standing in for NULL hooks (hypemu.h, HM_PLUGIN) ------------------ */

static int problem_setup(hm_setup_t *s)
{
    s->state = hma_prob_setup(s, s->algorithm->problem);
    return s->state ? 0 : -1;
}

/* The problem's check of the stores and its lower bound; no exact cost: the plugin's own
 * completion time is the figure (hma_prob_lower_any, the bound that holds for any
 * algorithm, on every topology and routing). */
static void problem_verify(hm_report_t *r)
{
    const hma_prob_t *pb = r->state;
    char why[200];
    r->lower = hma_prob_lower_any(pb, r->machine, &r->lower_expr);
    r->verified = hma_prob_check(pb, r, why, sizeof why);
    if (r->verified)
        snprintf(r->verification, sizeof r->verification,
                 "%s: all %d nodes stored the right values in order", hm_problem_name(pb->kind),
                 pb->p);
    else
        snprintf(r->verification, sizeof r->verification, "%s", why);
    hma_prob_summary_keys(pb, r);
}

/* The run's reduction (hypemu.h): the problem state's op behind the problem's hooks, which
 * every problem-checked algorithm has (.input is hma_prob_input); sum for the others. */
_Static_assert((int)HM_OP_SUM == (int)HMA_OP_SUM && (int)HM_OP_MAX == (int)HMA_OP_MAX &&
                   (int)HM_OP_MIN == (int)HMA_OP_MIN,
               "hm_op_t follows hma_op_t");
hm_op_t hm_op(const hm_node_t *n)
{
    const hm_algorithm_t *a = n->m->algo;
    const hma_prob_t *pb = n->m->state;
    if (a->input != hma_prob_input || !pb || !hma_prob_reduces(pb->kind))
        return HM_OP_SUM;
    return (hm_op_t)pb->op;
}

static const hm_param_spec_t specs_plain[] = {HMA_PROB_PARAM_BLOCK, HM_PARAM_END};
static const hm_param_spec_t specs_rooted[] = {HMA_PROB_PARAM_BLOCK, HMA_PROB_PARAM_ROOT,
                                               HM_PARAM_END};
static const hm_param_spec_t specs_reduces[] = {HMA_PROB_PARAM_BLOCK, HMA_PROB_PARAM_OP,
                                                HM_PARAM_END};
static const hm_param_spec_t specs_both[] = {HMA_PROB_PARAM_BLOCK, HMA_PROB_PARAM_ROOT,
                                             HMA_PROB_PARAM_OP, HM_PARAM_END};

/* ---- loading -------------------------------------------------------------------------- */

/* The problems whose setup can stand in for a NULL one. */
static int stands_in(hm_problem_t p)
{
    return p != HM_PROBLEM_NONE && p != HM_PROBLEM_MAX && p != HM_PROBLEM_SORT &&
           p < HM_PROBLEM_COUNT;
}

static int fail(char *err, size_t errlen, const char *file, const char *fmt, const char *a,
                const char *b)
{
    char what[400];
    snprintf(what, sizeof what, fmt, a ? a : "", b ? b : "");
    snprintf(err, errlen, "plugin %s: %s", file, what);
    return -1;
}

/* Who already holds name: a message, or NULL. */
static const char *clash(const char *name, const char **owner)
{
    for (size_t i = 0; hm_algorithms[i]; i++)
        if (strcmp(hm_algorithms[i]->name, name) == 0) {
            *owner = NULL;
            return "a built-in algorithm";
        }
    for (size_t i = 0; i < nalgos; i++)
        if (strcmp(algos[i]->desc.name, name) == 0) {
            *owner = algos[i]->file;
            return "an algorithm of plugin";
        }
    return NULL;
}

static int problem_hooks(const char *file, const hm_algorithm_t *a, hm_algorithm_t *out, char *err,
                         size_t errlen);

/* Check one descriptor and fill in the problem's hooks where it has NULL ones. */
static int check_descriptor(const char *file, const hm_algorithm_t *a, hm_algorithm_t *out,
                            char *err, size_t errlen)
{
    if (!a->name || !a->name[0])
        return fail(err, errlen, file, "an algorithm without a name (.name)", NULL, NULL);
    const char *owner = NULL, *who = clash(a->name, &owner);
    char whom[300];
    snprintf(whom, sizeof whom, "%s%s%s", who ? who : "", owner ? " " : "", owner ? owner : "");
    if (who)
        return fail(err, errlen, file, "algorithm \"%s\": name clash with %s", a->name, whom);
    if (!a->node_main)
        return fail(err, errlen, file, "algorithm \"%s\": no node program (.node_main is NULL)",
                    a->name, NULL);
    if (!a->topologies || !a->ports)
        return fail(err, errlen, file,
                    "algorithm \"%s\": .topologies and .ports must name at least one "
                    "topology and one port model (HM_BIT(HM_TOPO_...), HM_BIT(HM_PORTS_...))",
                    a->name, NULL);
    if ((a->topologies >> HM_TOPO_COUNT) || (a->ports >> HM_PORTS_COUNT) ||
        (unsigned)a->default_ports >= HM_PORTS_COUNT || (unsigned)a->problem >= HM_PROBLEM_COUNT)
        return fail(err, errlen, file,
                    "algorithm \"%s\": .topologies, .ports, .default_ports or .problem out of "
                    "range (use the HM_TOPO_, HM_PORTS_, HM_PROBLEM_ names of hypemu.h)%s",
                    a->name, "");
    *out = *a;
    /* .default_ports left out is all-port (0): when that is not legal, the first legal. */
    if (!(a->ports & HM_BIT(a->default_ports)))
        out->default_ports = (hm_ports_kind_t)__builtin_ctz(a->ports);
    if (a->setup && stands_in(a->problem))
        return fail(err, errlen, file,
                    "algorithm \"%s\": declares .problem %s, whose setup and check always apply, "
                    "so .setup must be NULL (the problem makes the inputs: hm_input, hm_root, "
                    "hm_op; hypemu.h, HM_PLUGIN)",
                    a->name, hm_problem_name(a->problem));
    return a->setup ? 0 : problem_hooks(file, a, out, err, errlen);
}

/* A descriptor without setup: the problem's setup, verify, teardown and inputs stand in. */
static int problem_hooks(const char *file, const hm_algorithm_t *a, hm_algorithm_t *out, char *err,
                         size_t errlen)
{
    if (!stands_in(a->problem))
        return fail(err, errlen, file,
                    "algorithm \"%s\": .setup is NULL, so .problem must name a problem whose "
                    "setup stands in; allowed: broadcast, allgather, scatter, gather, reduce, "
                    "allreduce, reduce-scatter, alltoall%s",
                    a->name, "");
    int rooted = hma_prob_rooted(a->problem), reduces = hma_prob_reduces(a->problem);
    if (!a->specs)
        out->specs = rooted && reduces ? specs_both
                     : rooted          ? specs_rooted
                     : reduces         ? specs_reduces
                                       : specs_plain;
    const char *need[3] = {"block", rooted ? "root" : NULL, reduces ? "op" : NULL};
    for (int i = 0; i < 3; i++)
        if (need[i] && !hm_param_spec_find(out->specs, need[i]))
            return fail(err, errlen, file,
                        "algorithm \"%s\": .setup is NULL and .specs lacks the problem's "
                        "parameter \"%s\" (HM_PLUGIN, hypemu.h)",
                        a->name, need[i]);
    out->setup = problem_setup;
    out->input = hma_prob_input; /* hm_input and hm_root answer from the problem's state */
    out->root = hma_prob_root;
    out->verify = problem_verify; /* its own .verify runs after it: hm__plugin_checks */
    if (!a->teardown)
        out->teardown = hma_prob_free;
    return 0;
}

static int rebuild_catalogue(void)
{
    size_t nb = 0;
    while (hm_algorithms[nb])
        nb++;
    const hm_algorithm_t **c = calloc(nb + nalgos + 1, sizeof *c);
    if (!c)
        return -1;
    memcpy(c, hm_algorithms, nb * sizeof *c);
    for (size_t i = 0; i < nalgos; i++)
        c[nb + i] = &algos[i]->desc;
    free(catalogue);
    catalogue = c;
    return 0;
}

static void drop_since(size_t before)
{
    while (nalgos > before) {
        plugin_algo_t *pa = algos[--nalgos];
        free((char *)pa->file);
        free(pa);
    }
}

/* Check every descriptor of plugin pl, then add them all (or none). */
static int add_algorithms(const char *file, const hm_plugin_t *pl, char *err, size_t errlen)
{
    size_t k = 0;
    while (pl->algorithms && pl->algorithms[k])
        k++;
    if (k == 0)
        return fail(err, errlen, file, "declares no algorithm (HM_PLUGIN(&algo, ...))", NULL, NULL);
    plugin_algo_t **grown = realloc(algos, (nalgos + k) * sizeof *algos);
    if (!grown)
        return fail(err, errlen, file, "out of memory", NULL, NULL);
    algos = grown;
    size_t before = nalgos;
    for (size_t i = 0; i < k; i++) {
        plugin_algo_t *pa = calloc(1, sizeof *pa);
        char *f = strdup(file);
        if (!pa || !f || check_descriptor(file, pl->algorithms[i], &pa->desc, err, errlen) != 0) {
            if (!pa || !f)
                fail(err, errlen, file, "out of memory", NULL, NULL);
            free(f);
            free(pa);
            drop_since(before);
            return -1;
        }
        pa->file = f;
        pa->own_verify = pl->algorithms[i]->verify;
        algos[nalgos++] = pa; /* counted now: a clash between two of its own is found */
    }
    if (rebuild_catalogue() != 0) {
        drop_since(before);
        return fail(err, errlen, file, "out of memory", NULL, NULL);
    }
    return 0;
}

/* dlopen's message, sorted into the three causes a user can act on. */
static int load_error(const char *file, const char *why, char *err, size_t errlen)
{
    if (!why)
        why = "unknown error";
    if (strstr(why, "undefined symbol"))
        return fail(err, errlen, file, "missing symbol: %s", why, NULL);
    if (strstr(why, "invalid ELF header") || strstr(why, "file too short") ||
        strstr(why, "wrong ELF class"))
        return fail(err, errlen, file, "not a plugin (not a shared object of this machine): %s",
                    why, NULL);
    return fail(err, errlen, file, "cannot load: %s", why, NULL);
}

/* hm_plugin must be the table HM_PLUGIN declares: an object at least as large as an
 * hm_plugin_t. A function, a thread-local or a smaller object of that name would be
 * read as a table (its bytes taken for an ABI version); the dynamic symbol table says
 * which kind the symbol is (dladdr1, RTLD_DL_SYMENT). A thread-local's address lies
 * in the thread's storage, in no loaded file. */
static int kind_error(const char *file, const char *what, char *err, size_t errlen)
{
    return fail(err, errlen, file,
                "not a plugin: its symbol hm_plugin is %s, not the table that "
                "HM_PLUGIN(&algo, ...) declares (hypemu.h)%s",
                what, "");
}

static int check_kind(const char *file, const hm_plugin_t *pl, char *err, size_t errlen)
{
    Dl_info info;
    const ElfW(Sym) *sym = NULL;
    int found = dladdr1(pl, &info, (void **)&sym, RTLD_DL_SYMENT);
    int type = found && sym ? ELF64_ST_TYPE(sym->st_info) : STT_NOTYPE; /* the same in ELF32 */
    char what[96];
    if (!found)
        snprintf(what, sizeof what, "outside every loaded file (a thread-local variable)");
    else if (type == STT_FUNC || type == STT_GNU_IFUNC)
        snprintf(what, sizeof what, "a function");
    else if (type == STT_TLS)
        snprintf(what, sizeof what, "a thread-local variable");
    else if (type == STT_OBJECT && sym && sym->st_size < sizeof(hm_plugin_t))
        snprintf(what, sizeof what, "an object of %llu bytes (the table has %zu)",
                 (unsigned long long)sym->st_size, sizeof(hm_plugin_t));
    else
        return 0;
    return kind_error(file, what, err, errlen);
}

static int check_abi(const char *file, const hm_plugin_t *pl, char *err, size_t errlen)
{
    char found[64], here[64];
    if (pl->abi != HM_ABI_VERSION) {
        snprintf(found, sizeof found, "%d", pl->abi);
        snprintf(here, sizeof here, "%d (hypemu %s)", HM_ABI_VERSION, HM_VERSION);
        return fail(err, errlen, file,
                    "ABI mismatch: built for plugin ABI version %s, this hypemu has ABI version "
                    "%s; rebuild the plugin against this hypemu's hypemu.h",
                    found, here);
    }
    if (pl->descriptor_size != sizeof(hm_algorithm_t)) {
        snprintf(found, sizeof found, "%u", pl->descriptor_size);
        snprintf(here, sizeof here, "%zu", sizeof(hm_algorithm_t));
        return fail(err, errlen, file,
                    "ABI mismatch: its algorithm descriptors have %s bytes, this hypemu's %s; "
                    "rebuild the plugin against this hypemu's hypemu.h",
                    found, here);
    }
    return 0;
}

static int no_symbol(const char *path, char *err, size_t errlen)
{
    return fail(err, errlen, path,
                "not a plugin: it has no symbol hm_plugin (declare the algorithms with "
                "HM_PLUGIN(&algo, ...), hypemu.h)%s%s",
                NULL, NULL);
}

static int remember(void *h, const char *path)
{
    void **grown = realloc(handles, (nhandles + 1) * sizeof *handles);
    if (grown)
        handles = grown;
    char **fgrown = grown ? realloc(files, (nhandles + 1) * sizeof *files) : NULL;
    if (fgrown)
        files = fgrown;
    char *copy = fgrown ? strdup(path) : NULL;
    if (!copy)
        return -1;
    handles[nhandles] = h;
    files[nhandles++] = copy;
    return 0;
}

/* ---- loading in the sandbox (README "Sandbox") ------------------------------------------- */

/* Under --sandbox no plugin code runs in this process: a node process of the sandbox
 * loads the plugin and describes its descriptors as JSON (cli/sandbox.c), which is read
 * here as untrusted input and checked as a loaded descriptor is. The hooks that run the
 * plugin's code become the sandbox's: node_main serves a node process, a plugin's own
 * setup runs in one (for its output area's size and its cost), its own verify never runs
 * (a sandboxed plugin's word is not a check), its state, input and root hooks live in the
 * node processes. */

static char *dup_or_null(json_t *v)
{
    return json_is_string(v) ? strdup(json_string_value(v)) : NULL;
}

static int read_choices(json_t *v, hm_param_spec_t *sp)
{
    if (json_is_null(v))
        return 0;
    if (!json_is_array(v) || json_array_size(v) > 64)
        return -1;
    const char **c = calloc(json_array_size(v) + 1, sizeof *c);
    if (!c)
        return -1;
    sp->choices = (const char *const *)c;
    for (size_t k = 0; k < json_array_size(v); k++)
        if (!(c[k] = dup_or_null(json_array_get(v, k))))
            return -1;
    return 0;
}

static int read_spec(json_t *j, hm_param_spec_t *sp)
{
    json_t *name, *help, *choices, *only_if, *deftext;
    int type, min_of, max_of, def_of, len_min_of, len_max_of, flags;
    json_int_t min, max, def, len_min, len_max;
    if (json_unpack(j, "{s:o,s:i,s:o,s:I,s:I,s:I,s:i,s:i,s:i,s:o,s:I,s:I,s:i,s:i,s:i,s:o,s:o}",
                    "name", &name, "type", &type, "help", &help, "min", &min, "max", &max, "def",
                    &def, "min_of", &min_of, "max_of", &max_of, "def_of", &def_of, "choices",
                    &choices, "len_min", &len_min, "len_max", &len_max, "len_min_of", &len_min_of,
                    "len_max_of", &len_max_of, "flags", &flags, "only_if", &only_if, "default_text",
                    &deftext) != 0 ||
        type < 0 || type > HM_PARAM_ENUM || (unsigned)min_of >= HM_QTY_COUNT ||
        (unsigned)max_of >= HM_QTY_COUNT || (unsigned)def_of >= HM_QTY_COUNT ||
        (unsigned)len_min_of >= HM_QTY_COUNT || (unsigned)len_max_of >= HM_QTY_COUNT ||
        !(sp->name = dup_or_null(name)) || (type == HM_PARAM_ENUM && json_is_null(choices)))
        return -1;
    sp->type = (hm_param_type_t)type;
    sp->help = dup_or_null(help);
    sp->min = min, sp->max = max, sp->def = def, sp->len_min = len_min, sp->len_max = len_max;
    sp->min_of = (hm_qty_t)min_of, sp->max_of = (hm_qty_t)max_of, sp->def_of = (hm_qty_t)def_of;
    sp->len_min_of = (hm_qty_t)len_min_of, sp->len_max_of = (hm_qty_t)len_max_of;
    sp->flags = (unsigned)flags;
    sp->only_if = dup_or_null(only_if);
    sp->default_text = dup_or_null(deftext);
    return read_choices(choices, sp);
}

static int remote_setup(hm_setup_t *s);
static void sandboxed_own_verify(hm_report_t *r);

/* One described algorithm into a (whose strings and specs are kept for the process's
 * life, as a loaded plugin's are); 0 or -1. */
static int read_algo(json_t *j, hm_algorithm_t *a)
{
    json_t *name, *desc, *paper, *specs, *why;
    int topo, ports, defp, problem, setup, node_main, verify, teardown, input, root;
    json_int_t out_size;
    hm_needs_t *nd = &a->needs;
    memset(a, 0, sizeof *a);
    if (json_unpack(j,
                    "{s:o,s:o,s:o,s:i,s:i,s:i,s:i,s:I,s:b,s:b,s:b,s:b,s:b,s:b,"
                    "s:{s:i,s:i,s:o,s:i,s:i},s:o}",
                    "name", &name, "description", &desc, "paper", &paper, "topologies", &topo,
                    "ports", &ports, "default_ports", &defp, "problem", &problem, "out_size",
                    &out_size, "setup", &setup, "node_main", &node_main, "verify", &verify,
                    "teardown", &teardown, "input", &input, "root", &root, "needs", "routing",
                    &nd->routing, "clock_modes", &nd->clock_modes, "clock_why", &why, "min_dim",
                    &nd->min_dim, "pow2_nodes", &nd->pow2_nodes, "specs", &specs) != 0 ||
        !json_is_array(specs) || json_array_size(specs) > 64 || out_size < 0 ||
        out_size > (1 << 30))
        return -1;
    (void)teardown, (void)input, (void)root;
    a->verify = verify ? sandboxed_own_verify : NULL; /* a marker: add_described clears it */
    a->name = dup_or_null(name);
    a->description = dup_or_null(desc);
    a->paper = dup_or_null(paper);
    nd->clock_why = dup_or_null(why);
    a->topologies = (unsigned)topo, a->ports = (unsigned)ports;
    a->default_ports = (hm_ports_kind_t)defp, a->problem = (hm_problem_t)problem;
    a->out_size = (size_t)out_size;
    a->setup = setup ? remote_setup : NULL;
    a->node_main = node_main ? hm__sbx_node_main : NULL;
    if (json_array_size(specs)) {
        hm_param_spec_t *sp = calloc(json_array_size(specs) + 1, sizeof *sp);
        if (!sp)
            return -1;
        for (size_t i = 0; i < json_array_size(specs); i++)
            if (read_spec(json_array_get(specs, i), &sp[i]) != 0)
                return -1;
        a->specs = sp;
    }
    return 0;
}

/* The sandboxed plugin algorithm whose descriptor is a. */
static plugin_algo_t *sandboxed_of(const hm_algorithm_t *a)
{
    for (size_t i = 0; i < nalgos; i++)
        if (a == &algos[i]->desc && algos[i]->sandboxed)
            return algos[i];
    for (size_t i = 0; i < nderived; i++)
        if (a == &derived[i]->desc && derived[i]->sandboxed)
            return derived[i];
    return NULL;
}

/* The setup of every sandboxed algorithm: the context of its node processes, then the
 * problem's setup in this process or the plugin's own in a node process. */
static int sandbox_setup(hm_setup_t *s)
{
    plugin_algo_t *pa = sandboxed_of(s->algorithm);
    if (!pa)
        return -1;
    int remote = pa->setup == NULL;
    if (hm__sbx_setup(s, pa->file, remote) != 0)
        return -1;
    return remote ? 0 : pa->setup(s);
}

static int remote_setup(hm_setup_t *s)
{
    return sandbox_setup(s);
}

/* What read_algo allocated for the k descriptors of descs (not added), and descs. */
static void free_described(hm_algorithm_t *descs, size_t k)
{
    for (size_t i = 0; descs && i < k; i++) {
        hm_algorithm_t *a = &descs[i];
        free((char *)a->name);
        free((char *)a->description);
        free((char *)a->paper);
        free((char *)a->needs.clock_why);
        for (hm_param_spec_t *sp = (hm_param_spec_t *)a->specs; sp && sp->name; sp++) {
            free((char *)sp->name);
            free((char *)sp->help);
            free((char *)sp->only_if);
            free((char *)sp->default_text);
            for (size_t c = 0; sp->choices && sp->choices[c]; c++)
                free((char *)sp->choices[c]);
            free((void *)sp->choices);
        }
        free((void *)a->specs);
    }
    free(descs);
}

/* The description's algorithms into the catalogue, as add_algorithms does for a loaded
 * plugin (which copies each descriptor; their strings and specs stay for the process's
 * life). */
static int add_described(const char *path, json_t *list, char *err, size_t errlen)
{
    size_t k = json_is_array(list) ? json_array_size(list) : 0;
    hm_algorithm_t *descs = calloc(k + 1, sizeof *descs);
    const hm_algorithm_t **ptrs = calloc(k + 1, sizeof *ptrs);
    int rc = descs && ptrs ? 0 : fail(err, errlen, path, "out of memory", NULL, NULL);
    for (size_t i = 0; i < k && rc == 0; i++) {
        if (read_algo(json_array_get(list, i), &descs[i]) != 0)
            rc = fail(err, errlen, path,
                      "not a plugin: its description from the sandbox is not readable%s%s", NULL,
                      NULL);
        ptrs[i] = &descs[i];
    }
    size_t before = nalgos;
    hm_plugin_t pl = {HM_ABI_VERSION, sizeof(hm_algorithm_t), HM_VERSION, ptrs};
    if (rc == 0)
        rc = add_algorithms(path, &pl, err, errlen);
    free(ptrs);
    if (rc != 0) {
        free_described(descs, k);
        return -1;
    }
    free(descs);
    for (size_t i = before; i < nalgos; i++) {
        plugin_algo_t *pa = algos[i];
        pa->sandboxed = 1;
        pa->sandboxed_verify = pa->own_verify != NULL;
        pa->own_verify = NULL;
        pa->setup = pa->desc.setup == remote_setup ? NULL : pa->desc.setup;
        pa->desc.setup = sandbox_setup;
        if (!pa->setup) {
            pa->desc.verify = NULL;
            pa->desc.teardown = NULL;
            pa->desc.input = NULL;
            pa->desc.root = NULL;
        }
    }
    return 0;
}

static int load_sandboxed(const char *path, char *err, size_t errlen)
{
    for (size_t i = 0; i < nhandles; i++)
        if (strcmp(files[i], path) == 0)
            return 0;
    char why[300];
    char *text = hm__sbx_describe(path, why, sizeof why);
    if (!text)
        return fail(err, errlen, path, "%s%s", why, NULL);
    json_t *d = json_loads(text, 0, NULL);
    free(text);
    json_t *dl = json_object_get(d, "dlerror");
    json_int_t abi = json_integer_value(json_object_get(d, "abi"));
    json_int_t size = json_integer_value(json_object_get(d, "descriptor_size"));
    int rc = -1;
    size_t before = nalgos;
    if (json_is_string(dl))
        load_error(path, json_string_value(dl), err, errlen);
    else if (json_is_string(json_object_get(d, "kind")))
        kind_error(path, json_string_value(json_object_get(d, "kind")), err, errlen);
    else if (!json_is_integer(json_object_get(d, "abi")))
        no_symbol(path, err, errlen);
    else if (check_abi(path, &(hm_plugin_t){(int)abi, (unsigned)size, HM_VERSION, NULL}, err,
                       errlen) == 0 &&
             add_described(path, json_object_get(d, "algorithms"), err, errlen) == 0)
        rc = 0;
    for (size_t i = before; rc == 0 && i < nalgos; i++) /* hypemu-mpicc's (runner.c) */
        algos[i]->mpi = json_is_true(json_object_get(d, "mpi_program"));
    json_decref(d);
    if (rc == 0 && remember(NULL, path) != 0)
        return fail(err, errlen, path, "out of memory", NULL, NULL);
    return rc;
}

int hm__plugin_add(const char *file, const hm_plugin_t *pl, char *err, size_t errlen)
{
    if (check_abi(file, pl, err, errlen) != 0)
        return -1;
    return add_algorithms(file, pl, err, errlen);
}

int hm__plugin_load(const char *path, char *err, size_t errlen)
{
    err[0] = 0;
    if (sandbox_on)
        return load_sandboxed(path, err, errlen);
    /* dlopen searches the library path for a name without '/': a file is meant. */
    char *local = strchr(path, '/') ? NULL : hm__strdup_printf("./%s", path);
    void *h = dlopen(local ? local : path, RTLD_NOW | RTLD_LOCAL);
    free(local);
    if (!h)
        return load_error(path, dlerror(), err, errlen);
    for (size_t i = 0; i < nhandles; i++)
        if (handles[i] == h) {
            dlclose(h); /* loaded already: dlopen only counted one more reference */
            return 0;
        }
    const hm_plugin_t *pl = dlsym(h, "hm_plugin");
    int rc = -1;
    size_t before = nalgos;
    if (!pl)
        no_symbol(path, err, errlen);
    else if (check_kind(path, pl, err, errlen) == 0 && hm__plugin_add(path, pl, err, errlen) == 0)
        rc = 0;
    for (size_t i = before; rc == 0 && i < nalgos; i++)
        algos[i]->mpi = dlsym(h, "hm_mpi_program") != NULL;
    if (rc == 0 && remember(h, path) == 0)
        return 0;
    if (rc == 0)
        fail(err, errlen, path, "out of memory", NULL, NULL);
    dlclose(h);
    return -1;
}

const char *hm__plugin_loaded(size_t i)
{
    return i < nhandles ? files[i] : NULL;
}

const hm_algorithm_t *const *hm__catalogue(void)
{
    return catalogue ? catalogue : (const hm_algorithm_t *const *)hm_algorithms;
}

const hm_algorithm_t *hm_algorithm_find(const char *name)
{
    const hm_algorithm_t *const *c = hm__catalogue();
    for (size_t i = 0; c[i]; i++)
        if (strcmp(c[i]->name, name) == 0)
            return c[i];
    return NULL;
}

static const plugin_algo_t *plugin_of(const hm_algorithm_t *a);

const char *hm__plugin_file(const hm_algorithm_t *a)
{
    const plugin_algo_t *pa = plugin_of(a);
    return pa ? pa->file : NULL;
}

/* The plugin algorithm whose descriptor is a, or NULL. */
static const plugin_algo_t *plugin_of(const hm_algorithm_t *a)
{
    for (size_t i = 0; i < nalgos; i++)
        if (a == &algos[i]->desc)
            return algos[i];
    for (size_t i = 0; i < nderived; i++)
        if (a == &derived[i]->desc)
            return derived[i];
    return NULL;
}

/* ---- MPI programs (doc/mpi-programs.md) ------------------------------------------------ */

static const char *const mpi_problems[] = {"broadcast",      "allgather", "scatter",
                                           "gather",         "reduce",    "allreduce",
                                           "reduce-scatter", "alltoall",  NULL};
#define MPI_PARAM_PROBLEM                                                                          \
    {                                                                                              \
        .name = "problem", .type = HM_PARAM_ENUM, .choices = mpi_problems,                         \
        .help = "the problem the MPI program solves (hm_mpi_input, hm_mpi_result)"                 \
    }
static const hm_param_spec_t mpi_plain[] = {MPI_PARAM_PROBLEM, HMA_PROB_PARAM_BLOCK,
                                            HMA_PROB_PARAM_END};
static const hm_param_spec_t mpi_rooted[] = {MPI_PARAM_PROBLEM, HMA_PROB_PARAM_BLOCK,
                                             HMA_PROB_PARAM_ROOT, HMA_PROB_PARAM_END};
static const hm_param_spec_t mpi_reduces[] = {MPI_PARAM_PROBLEM, HMA_PROB_PARAM_BLOCK,
                                              HMA_PROB_PARAM_OP, HMA_PROB_PARAM_END};
static const hm_param_spec_t mpi_both[] = {MPI_PARAM_PROBLEM, HMA_PROB_PARAM_BLOCK,
                                           HMA_PROB_PARAM_ROOT, HMA_PROB_PARAM_OP,
                                           HMA_PROB_PARAM_END};

int hm__plugin_mpi(const hm_algorithm_t *a)
{
    const plugin_algo_t *pa = plugin_of(a);
    return pa && pa->mpi;
}

static hm_problem_t mpi_problem_named(const char *name)
{
    for (int k = 0; k < HM_PROBLEM_COUNT; k++)
        if (stands_in((hm_problem_t)k) && strcmp(hm_problem_name((hm_problem_t)k), name) == 0)
            return (hm_problem_t)k;
    return HM_PROBLEM_NONE;
}

/* The problem's parameters, then the program's own (its collectives' algorithms,
 * doc/mpi-programs.md, "Collectives"), in an array kept until exit; prob alone when out of
 * memory. */
static const hm_param_spec_t *mpi_specs(const hm_param_spec_t *prob, const hm_param_spec_t *own)
{
    size_t np = 0, no = 0;
    while (prob[np].name)
        np++;
    while (own && own[no].name)
        no++;
    hm_param_spec_t *all = no ? calloc(np + no + 1, sizeof *all) : NULL;
    if (!all)
        return prob;
    memcpy(all, prob, np * sizeof *all);
    memcpy(all + np, own, no * sizeof *all);
    return all;
}

/* The setup of an MPI program bound to a problem: the program's own first (it checks the
 * algorithms chosen for its collectives, doc/mpi-programs.md, "Collectives"), in a node
 * process under the sandbox, then the problem's, whose state the nodes get. */
static int mpi_setup(hm_setup_t *s)
{
    const plugin_algo_t *d = plugin_of(s->algorithm);
    if (!d || !d->own)
        return -1;
    int rc = d->sandboxed ? hm__sbx_setup(s, d->file, 1) : d->own->desc.setup(s);
    return rc == 0 ? problem_setup(s) : -1;
}

/* A's descriptor with the problem's hooks and parameters (problem_hooks), kept until exit. */
static plugin_algo_t *mpi_derive(const plugin_algo_t *pa, hm_problem_t k)
{
    plugin_algo_t *d = calloc(1, sizeof *d);
    plugin_algo_t **grown = realloc(derived, (nderived + 1) * sizeof *derived);
    char *f = strdup(pa->file), err[300];
    if (grown)
        derived = grown;
    if (!d || !grown || !f) {
        free(d);
        free(f);
        return NULL;
    }
    d->desc = pa->desc;
    d->desc.problem = k;
    d->desc.setup = NULL;
    d->desc.verify = NULL;
    d->desc.teardown = NULL;
    d->desc.specs = NULL;
    problem_hooks(f, &d->desc, &d->desc, err, sizeof err); /* a collective: it stands in */
    int rooted = hma_prob_rooted(k), reduces = hma_prob_reduces(k);
    d->desc.specs = mpi_specs(rooted && reduces ? mpi_both
                              : rooted          ? mpi_rooted
                              : reduces         ? mpi_reduces
                                                : mpi_plain,
                              pa->desc.specs);
    d->file = f;
    d->mpi = 1;
    d->own = pa;
    d->desc.setup = pa->desc.setup ? mpi_setup : d->desc.setup; /* built before the choices */
    if (pa->sandboxed) { /* the problem's setup here, the node programs in node processes */
        d->sandboxed = 1;
        d->setup = d->desc.setup;
        d->desc.setup = sandbox_setup;
    }
    derived[nderived++] = d;
    return d;
}

const hm_algorithm_t *hm__plugin_mpi_problem(const hm_algorithm_t *a, const char *problem,
                                             char *allowed, size_t len)
{
    const plugin_algo_t *pa = plugin_of(a);
    hm_problem_t k = problem ? mpi_problem_named(problem) : HM_PROBLEM_NONE;
    allowed[0] = 0;
    for (size_t i = 0; mpi_problems[i]; i++)
        snprintf(allowed + strlen(allowed), len - strlen(allowed), "%s\"%s\"", i ? ", " : "",
                 mpi_problems[i]);
    if (!pa || !pa->mpi || k == HM_PROBLEM_NONE)
        return NULL;
    for (size_t i = 0; i < nderived; i++)
        if (strcmp(derived[i]->desc.name, a->name) == 0 && derived[i]->desc.problem == k)
            return &derived[i]->desc;
    plugin_algo_t *d = mpi_derive(pa, k);
    return d ? &d->desc : NULL;
}

/* Whether plugin algorithm pa's problem makes its setup and its check. */
static int problem_checked(const plugin_algo_t *pa)
{
    int (*setup)(hm_setup_t *) = pa->sandboxed ? pa->setup : pa->desc.setup;
    return setup == problem_setup || setup == mpi_setup;
}

int hm__problem_checked(const hm_algorithm_t *a)
{
    const plugin_algo_t *pa = plugin_of(a);
    return pa ? problem_checked(pa) : a->input == hma_prob_input;
}

/* A sandboxed plugin's own verify, in a node process on the copy of the outcome that the
 * verdict gives it (cli/verdict.c, cli/sandbox.c); what it could not do is a failure. */
static void sandboxed_own_verify(hm_report_t *r)
{
    const hm__report_priv_t *pp = r->priv;
    const plugin_algo_t *pa = NULL;
    for (size_t i = 0; pp && pp->o && i < nalgos && !pa; i++)
        if (algos[i]->sandboxed && strcmp(algos[i]->desc.name, pp->o->algorithm) == 0)
            pa = algos[i];
    char err[300];
    if (!pa)
        snprintf(err, sizeof err, "verify: the algorithm is not a sandboxed plugin's");
    if (!pa || hm__sbx_verify(pa->file, &pa->desc, pp->o, r, err, sizeof err) != 0) {
        r->verified = 0;
        snprintf(r->verification, sizeof r->verification, "the plugin's %.200s", err);
    }
}

void hm__plugin_checks(const hm_algorithm_t *a, void (**check)(hm_report_t *),
                       void (**own)(hm_report_t *))
{
    const plugin_algo_t *pa = plugin_of(a);
    *check = !pa ? a->verify : problem_checked(pa) ? problem_verify : NULL;
    *own = !pa             ? NULL
           : pa->sandboxed ? (pa->sandboxed_verify ? sandboxed_own_verify : NULL)
                           : pa->own_verify;
}

void *hm__plugin_check_state(const hm_algorithm_t *a, const hm_setup_t *s, int *failed)
{
    const plugin_algo_t *pa = plugin_of(a);
    *failed = 0;
    if (!pa || !problem_checked(pa))
        return NULL;
    hm_setup_t again = *s;
    again.state = NULL;
    void *state = hma_prob_setup(&again, a->problem);
    *failed = !state;
    return state;
}

void hm__plugin_check_state_free(void *state)
{
    hma_prob_free(state);
}
