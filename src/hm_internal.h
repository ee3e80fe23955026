/* SPDX-License-Identifier: MIT */
/*
 * hm_internal.h — the engine's private structures. Nothing in src/algo may include
 * this file: algorithms see include/hypemu.h only.
 *
 * Data flows one way: config (cli/config.c) -> machine (engine/machine.c) -> node
 * threads (engine/node.c, the machine's transport) -> the run's outcome
 * (engine/outcome.c: end cause, figures, stores, the merged timeline) -> writers
 * (out/writers.h) and the summary (cli/summary.c). The machine is destroyed before the
 * writers run.
 *
 * A transport is how packets move and time passes: the slotted clock with packet
 * routing (engine/packet.c) or circuit routing (engine/circuit.c), both driven by the
 * barrier clock (engine/clock.c), the local clock (engine/local.c: the same slots
 * without the barrier), or the free-running clock (engine/free.c). Under packet
 * routing one slot judge (engine/slot_judge.c) takes every slot's decisions, for the
 * whole machine (barrier) or one group of nodes (local). The
 * machine picks one at creation (hm__transport_for); the node API (engine/node.c)
 * calls it through hm__transport_t and has no mode branches.
 */
#ifndef HM_INTERNAL_H
#define HM_INTERNAL_H

/* One header per layer, each including the one before it (src/internal/): */
#include "internal/base.h"      /* exit codes, arrays, events, copies, limits */
#include "internal/judge.h"     /* port models, the slot judge, circuits */
#include "internal/machine.h"   /* the machine and its lifecycle */
#include "internal/node.h"      /* a node, how a run ends */
#include "internal/outcome.h"   /* the outcome, the causal judge, flows */
#include "internal/slot.h"      /* the slotted transports' shared pieces */
#include "internal/transport.h" /* options, figures, ports of an emission, transports, links */

#endif /* HM_INTERNAL_H */
