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

#include "algo/common/problem.h"
#include "cli/plugin.h"
#include "hm_internal.h"

typedef struct plugin_algo_s {
    hm_algorithm_t desc;                /* the plugin's descriptor, NULL hooks filled in */
    const char *file;                   /* the plugin's file, as given */
    void (*own_verify)(hm_report_t *r); /* the plugin's .verify, NULL if none */
} plugin_algo_t;

static void **handles; /* every plugin loaded, to load each once */
static char **files;   /* the file of each, as given */
static size_t nhandles;
static plugin_algo_t **algos; /* every plugin algorithm, in load order */
static size_t nalgos;
static const hm_algorithm_t **catalogue; /* built-ins then algos, NULL-terminated */

/* ---- the problem standing in for NULL hooks (hypemu.h, HM_PLUGIN) ------------------ */

static int problem_setup(hm_setup_t *s)
{
    s->state = hma_prob_setup(s, s->algorithm->problem);
    return s->state ? 0 : -1;
}

/* The problem's check of the stores and its lower bound on the hypercube; no exact cost:
 * the plugin's own completion time is the figure (hma_prob_lower with combining, the
 * bound that holds for any algorithm). */
static void problem_verify(hm_report_t *r)
{
    const hma_prob_t *pb = r->state;
    char why[200];
    /* hma_prob_lower knows Q_d under packet routing only, where a packet lasts one slot
     * whatever its length; under circuit routing (a*m+b) no lower bound is given. */
    if (r->machine->topology == HM_TOPO_HYPERCUBE && !r->machine->circuit)
        r->lower = hma_prob_lower(pb, r->machine, 1, &r->lower_expr);
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
static int load_error(const char *file, char *err, size_t errlen)
{
    const char *why = dlerror();
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
    return fail(err, errlen, file,
                "not a plugin: its symbol hm_plugin is %s, not the table that "
                "HM_PLUGIN(&algo, ...) declares (hypemu.h)%s",
                what, "");
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

int hm__plugin_add(const char *file, const hm_plugin_t *pl, char *err, size_t errlen)
{
    if (check_abi(file, pl, err, errlen) != 0)
        return -1;
    return add_algorithms(file, pl, err, errlen);
}

int hm__plugin_load(const char *path, char *err, size_t errlen)
{
    err[0] = 0;
    /* dlopen searches the library path for a name without '/': a file is meant. */
    char *local = strchr(path, '/') ? NULL : hm__strdup_printf("./%s", path);
    void *h = dlopen(local ? local : path, RTLD_NOW | RTLD_LOCAL);
    free(local);
    if (!h)
        return load_error(path, err, errlen);
    for (size_t i = 0; i < nhandles; i++)
        if (handles[i] == h) {
            dlclose(h); /* loaded already: dlopen only counted one more reference */
            return 0;
        }
    const hm_plugin_t *pl = dlsym(h, "hm_plugin");
    int rc = -1;
    if (!pl)
        fail(err, errlen, path,
             "not a plugin: it has no symbol hm_plugin (declare the algorithms with "
             "HM_PLUGIN(&algo, ...), hypemu.h)%s%s",
             NULL, NULL);
    else if (check_kind(path, pl, err, errlen) == 0 && hm__plugin_add(path, pl, err, errlen) == 0)
        rc = 0;
    void **grown = rc == 0 ? realloc(handles, (nhandles + 1) * sizeof *handles) : NULL;
    if (grown)
        handles = grown;
    char **fgrown = grown ? realloc(files, (nhandles + 1) * sizeof *files) : NULL;
    if (fgrown)
        files = fgrown;
    char *copy = fgrown ? strdup(path) : NULL;
    if (copy) {
        handles[nhandles] = h;
        files[nhandles++] = copy;
        return 0;
    }
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
    return NULL;
}

void hm__plugin_checks(const hm_algorithm_t *a, void (**check)(hm_report_t *),
                       void (**own)(hm_report_t *))
{
    const plugin_algo_t *pa = plugin_of(a);
    *check = !pa ? a->verify : pa->desc.setup == problem_setup ? problem_verify : NULL;
    *own = pa ? pa->own_verify : NULL;
}

void *hm__plugin_check_state(const hm_algorithm_t *a, const hm_setup_t *s, int *failed)
{
    const plugin_algo_t *pa = plugin_of(a);
    *failed = 0;
    if (!pa || pa->desc.setup != problem_setup)
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
