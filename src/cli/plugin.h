/*
 * plugin.h — plugins (README "Writing node programs outside the tree"): shared objects
 * that declare algorithms with HM_PLUGIN (hypemu.h), loaded with dlopen by --plugin FILE
 * and the config's "plugins" key; the catalogue they join; the report of a node program
 * that crashes.
 */
#ifndef HM_CLI_PLUGIN_H
#define HM_CLI_PLUGIN_H

#include <stddef.h>

#include "hypemu.h"

/* Load the plugin at path (a name without '/' is taken in the current directory) and add
 * its algorithms to the catalogue. Loading a file that is already loaded does nothing.
 * Returns 0, or -1 with a message naming the file in err: not loadable, not a plugin,
 * built for another HM_ABI_VERSION, a name that clashes, a descriptor that lacks what it
 * needs. */
int hm__plugin_load(const char *path, char *err, size_t errlen);

/* The same for a plugin table already in memory (hm_plugin of a file loaded otherwise, or
 * a test's own), named file in messages and crash reports: the ABI and descriptor
 * checks, then its algorithms join the catalogue. */
int hm__plugin_add(const char *file, const hm_plugin_t *pl, char *err, size_t errlen);

/* The checks of a run of algorithm a (README "What verified means"): *check is hypemu's
 * own (a built-in algorithm's verify; for a plugin, its problem's check, or NULL when it
 * declares no problem whose check applies), *own a plugin's own .verify (NULL for a
 * built-in algorithm, or a plugin without one), which runs after *check on copies and
 * may only add a failure. */
void hm__plugin_checks(const hm_algorithm_t *a, void (**check)(hm_report_t *),
                       void (**own)(hm_report_t *));

/* For a plugin algorithm whose problem's check applies: a second state of its problem,
 * made by the same setup from s before the run, that only the check reads (no pointer
 * a node program or verify of the plugin gets leads to it); NULL for any other
 * algorithm, or with *failed set when out of memory. Freed by
 * hm__plugin_check_state_free. */
void *hm__plugin_check_state(const hm_algorithm_t *a, const hm_setup_t *s, int *failed);
void hm__plugin_check_state_free(void *state);

/* The file of the i-th plugin loaded (as given to hm__plugin_load), NULL past the last. */
const char *hm__plugin_loaded(size_t i);

/* The catalogue: the built-in algorithms (hm_algorithms), then the plugins' in the order
 * they were loaded; NULL-terminated. */
const hm_algorithm_t *const *hm__catalogue(void);

/* The file of the plugin that declared algorithm a, or NULL for a built-in one. */
const char *hm__plugin_file(const hm_algorithm_t *a);

/* From now on a node program that crashes (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT in a
 * node thread) is reported on stderr as "hypemu: node N (algorithm X, plugin FILE) crashed
 * in slot T: SIGSEGV", in one write, before the process ends by that signal (README "Exit
 * codes"); a crash in an algorithm's hook named by hm__crash_context as "hypemu: verify of
 * algorithm X (plugin FILE) crashed: SIGSEGV". */
void hm__crash_report_install(void);

/* The calling thread runs hook (setup, verify, teardown) of algorithm a, or nothing
 * (a NULL). */
void hm__crash_context(const hm_algorithm_t *a, const char *hook);

#endif
