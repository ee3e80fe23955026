/* SPDX-License-Identifier: MIT */
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

/* MPI programs (doc/mpi-programs.md): whether a is a program hypemu-mpicc built (its plugin
 * defines the symbol hm_mpi_program), and a's descriptor solving problem (algorithm.problem:
 * the problem's parameters, setup, inputs and check), or NULL when problem names none of the
 * collective problems (allowed, in words, into allowed). */
int hm__plugin_mpi(const hm_algorithm_t *a);
const hm_algorithm_t *hm__plugin_mpi_problem(const hm_algorithm_t *a, const char *problem,
                                             char *allowed, size_t len);

/* The file of the plugin that declared algorithm a, or NULL for a built-in one. */
const char *hm__plugin_file(const hm_algorithm_t *a);

/* Whether the problem's own check (algo/common/problem.c) judges algorithm a's runs: a
 * catalogue collective, or a plugin whose problem makes its setup and its check. */
int hm__problem_checked(const hm_algorithm_t *a);

/* From now on a node program that crashes (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT in a
 * node thread) is reported on stderr as "hypemu: node N (algorithm X, plugin FILE) crashed
 * in slot T: SIGSEGV", in one write, before the process ends by that signal (README "Exit
 * codes"); a crash in an algorithm's hook named by hm__crash_context as "hypemu: verify of
 * algorithm X (plugin FILE) crashed: SIGSEGV". */
void hm__crash_report_install(void);

/* The calling thread runs hook (setup, verify, teardown) of algorithm a, or nothing
 * (a NULL). */
void hm__crash_context(const hm_algorithm_t *a, const char *hook);

/* "FILE:LINE" of the instruction at pc of the plugin `file` loaded at base (a node
 * process's fault, cli/sandbox.c), into out; "" where it has no line table, pc is 0, or
 * hypemu was built without libdw. */
void hm__crash_where_in(const char *file, uint64_t base, uint64_t pc, char *out, size_t len);

/* ---- the sandbox (README "Sandbox"; cli/sandbox.c) -------------------------------------- */

/* From now on (on 1) hm__plugin_load reads a plugin's descriptors from a node process of
 * the sandbox, never loading it into this process, and its algorithms' node programs
 * run in node processes; built-in algorithms stay in threads. */
void hm__plugin_sandbox(int on);
int hm__plugin_sandboxed(void);

/* The description of plugin file as its sandboxed node process reads it (a JSON text,
 * malloc'd), or NULL with err. */
char *hm__sbx_describe(const char *file, char *err, size_t errlen);

/* Before a sandboxed algorithm's setup: keeps s's config name and parameters for its node
 * processes, and with remote runs the plugin's own setup in a node process of plugin
 * file (s->out_size, s->cost, s->error); 0 or -1. */
int hm__sbx_setup(hm_setup_t *s, const char *file, int remote);

/* The own verify of algorithm a of plugin file, in a node process of the sandbox, on a
 * copy of the outcome o (stores, output areas, machine, r->completion_slots): fills r's
 * verified, verification, error and extra (a fresh report: the caller keeps only what may
 * add a failure). 0, or -1 with err when it could not run (it died, no answer in 10 s). */
struct hm__outcome_s;
int hm__sbx_verify(const char *file, const hm_algorithm_t *a, const struct hm__outcome_s *o,
                   hm_report_t *r, char *err, size_t errlen);

/* The node program of every sandboxed algorithm: starts the node's process and serves
 * it until its node program returns. */
void hm__sbx_node_main(hm_node_t *n, void *state);

/* One request of channel c, from node n's thread: copied into buf (HM__SBX_BUF + 1
 * bytes), checked, made, answered; 1 in *done after the last. 0, or -1 when the request
 * cannot be read (the run is stopped, naming the node). tests/fuzz/fuzz_channel.c. */
struct hm__sbx_chan_s;
int hm__sbx_serve_one(hm_node_t *n, struct hm__sbx_chan_s *c, char *buf, int *done);

#endif
