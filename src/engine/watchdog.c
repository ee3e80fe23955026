/* SPDX-License-Identifier: MIT */
/*
 * watchdog.c — the thread that started the run waits here for its node threads, and
 * watches them (README "Watchdog"):
 *
 *   - clock.slot_timeout: a node that stays in one slot (under the free-running clock:
 *     one value of its logical clock) longer than that, in wall time, stops the run
 *     with the end cause slot_timeout (exit 3), naming the node and the slot;
 *   - an interrupt (Ctrl-C, SIGTERM) stops the run at the end of its slot, by the
 *     clock; when a node holds that slot open for more than a second, the run is
 *     stopped here instead, naming the node;
 *   - once the run is stopped, the threads that end are joined; when a node holds its
 *     slot open (pthread_exit or exit() in it, engine/rules.c, or a node that still
 *     runs the same slot a second after the stop) the sleepers are woken here (the
 *     transport's abort). A node that will not come back cannot be ended: its thread
 *     is left running, its machine is never freed, and the run's outcome, outputs and
 *     summary are made from what the slots done left.
 *
 * Nothing here is on the nodes' path: each node says when it sleeps and wakes (two
 * relaxed stores and a release one per wait, hm__wd_sleep and hm__wd_run), and this
 * thread reads them four times a second (beyond 65,536 nodes, a part of them each
 * time: sweep_next). A node that sleeps is never at fault:
 * under the barrier a slot that does not end is held open by a node that runs.
 */
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "hm_internal.h"

#define TICK_NS 250000000LL   /* how often the waiting thread looks */
#define GRACE_NS 1000000000LL /* an interrupt held up, a node still running after a stop */

/* A node stuck since when, or -1: running (not asleep in a wait, not ended), its beat
 * unchanged since this thread first saw it so. */
static int64_t stuck_since(hm_node_t *n, int64_t now)
{
    unsigned beat = atomic_load_explicit(&n->wd_beat, memory_order_acquire);
    int64_t slot = atomic_load_explicit(&n->wd_slot, memory_order_relaxed);
    if (slot < 0 || beat != n->wd_seen || atomic_load(&n->left)) {
        n->wd_seen = beat;
        n->wd_since = now;
        return -1;
    }
    return n->wd_since;
}

/* The nodes one look reads: `count` of the `created`, from `cursor` on (wrapping).
 * For clock.slot_timeout every node on machines of up to 65,536 nodes; beyond, a
 * part of them each look, so that each node is read every max(1 s, slot_timeout / 16)
 * (a stuck node is then found at most two such periods after its timeout: 7.5 s
 * after the default 60 s), and the looks at a machine of half a million nodes do not
 * take the node threads' CPU time. An interrupt held up reads every node. */
#define SWEEP_ALL 65536

/* HYPEMU_WATCHDOG_SWEEP=N puts the bound at N nodes (README "Watchdog"): a test reads
 * a small machine part by part, a benchmark a large one whole. */
static int sweep_bound(void)
{
    const char *e = getenv("HYPEMU_WATCHDOG_SWEEP");
    long v = e ? strtol(e, NULL, 10) : 0;
    return v > 0 && v <= INT32_MAX ? (int)v : SWEEP_ALL;
}

typedef struct sweep_s {
    int cursor, count, created;
} sweep_t;

static sweep_t sweep_all(int created)
{
    return (sweep_t){0, created, created};
}

static sweep_t sweep_next(int *cursor, int created, double limit, int bound)
{
    int64_t looks = (int64_t)(limit / 16 / (TICK_NS / 1e9));
    if (looks < 4)
        looks = 4;
    if (created <= bound || created == 0)
        return sweep_all(created);
    sweep_t w = {*cursor, (int)((created + looks - 1) / looks), created};
    *cursor = (int)(((int64_t)*cursor + w.count) % created);
    return w;
}

/* The node of the sweep stuck the longest, if since at most `before`; -1 if none. */
static int oldest_stuck(hm__machine_t *m, sweep_t w, int64_t now, int64_t before)
{
    int who = -1;
    int64_t best = before + 1;
    for (int k = 0; k < w.count; k++) {
        int i = m->lo + (int)(((int64_t)w.cursor + k) % w.created);
        int64_t since = stuck_since(&m->nodes[i], now);
        if (since >= 0 && since < best) {
            best = since;
            who = i;
        }
    }
    return who;
}

/* The slot node i is stuck in, for a report. */
static long long stuck_slot(const hm__machine_t *m, int i)
{
    return (long long)atomic_load_explicit(&m->nodes[i].wd_slot, memory_order_relaxed);
}

/* The run goes on: does a node stop it (clock.slot_timeout), or an interrupt that a
 * node's slot holds up? *intr is when this thread first saw the interrupt, 0 before.
 * Returns 1 if this stopped the run. */
static int watch(hm__machine_t *m, int created, int *cursor, int bound, int64_t now, int64_t *intr)
{
    double limit = m->opt.slot_timeout;
    int64_t limit_ns = (int64_t)(limit * 1e9);
    int who = -1;
    if (limit > 0 && (who = oldest_stuck(m, sweep_next(cursor, created, limit, bound), now,
                                         now - limit_ns)) >= 0) {
        hm__stop(m, HM__END_SLOT_TIMEOUT,
                 m->opt.clock == HM_CLOCK_FREE
                     ? hm__strdup_printf("node %d did not advance its logical clock past slot "
                                         "%lld within clock.slot_timeout = %g s (free-running "
                                         "clock)",
                                         who, stuck_slot(m, who), limit)
                     : hm__strdup_printf("node %d did not end slot %lld within "
                                         "clock.slot_timeout = %g s",
                                         who, stuck_slot(m, who), limit));
        return 1;
    }
    if (!hm__interrupted(m))
        return 0;
    if (*intr == 0)
        *intr = now;
    if (now - *intr < GRACE_NS ||
        (who = oldest_stuck(m, sweep_all(created), now, now - GRACE_NS)) < 0)
        return 0;
    hm__stop(m, HM__END_INTERRUPTED,
             hm__strdup_printf("interrupted in slot %lld: node %d did not end its slot (its "
                               "thread is left running)",
                               stuck_slot(m, who), who));
    return 1;
}

/* The run was stopped at `stop`. A node that will never end its slot holds it open: it
 * called exit() or pthread_exit in its program (left 2, 3), or it still runs the slot
 * it ran a second after the stop. Counts those into *open and the other nodes not
 * ended yet into *coming (they sleep, or move: they will see the stop). */
static void count_left(hm__machine_t *m, int created, int64_t now, int64_t stop, int *open,
                       int *coming)
{
    *open = *coming = 0;
    for (int i = m->lo; i < m->lo + created; i++) {
        hm_node_t *n = &m->nodes[i];
        int left = atomic_load_explicit(&n->left, memory_order_acquire);
        int64_t since = left ? -1 : stuck_since(n, now);
        if (left == 2 || left == 3 ||
            (since >= 0 && now - (since > stop ? since : stop) >= GRACE_NS))
            ++*open;
        else if (left == 0)
            ++*coming;
    }
}

static void sleep_tick(hm__machine_t *m)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts); /* sem_timedwait's clock */
    ts.tv_nsec += TICK_NS;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    while (sem_timedwait(&m->waiter, &ts) != 0 && errno == EINTR)
        ;
}

/* Join the threads that ended; leave the others running (detached). */
static void join_or_leave(hm__machine_t *m, int created)
{
    for (int i = m->lo; i < m->lo + created; i++) {
        hm_node_t *n = &m->nodes[i];
        int left = atomic_load_explicit(&n->left, memory_order_acquire);
        if (left == 1 || left == 3) {
            pthread_join(n->thread, NULL);
        } else {
            pthread_detach(n->thread);
            m->abandoned++;
        }
    }
}

/* Once the run is stopped, the sleepers must see it. The transports wake them when a
 * slot ends after the stop (engine/clock.c, local.c, free.c); when no slot can end any
 * more (a node holds it open, or this thread stopped the run: a node held it open) the
 * transport's abort wakes them here, and it can run no commit beside it then. A
 * distributed transport's commits carry a stop to every process; when a node of this
 * one holds its slot open a second after the stop, the others would wait for it
 * forever: its abort ends every process, with the stop's reason and exit code
 * (engine/mpi.c). */
void hm__wait_nodes(hm__machine_t *m, int created)
{
    int64_t now = hm__now_ns(), intr = 0, stop = 0;
    for (int i = m->lo; i < m->lo + created; i++)
        (void)stuck_since(&m->nodes[i], now);
    int mine = 0, woken = 0, open = 0, coming = 1, cursor = 0, bound = sweep_bound();
    while (coming > 0 && atomic_load_explicit(&m->exited, memory_order_acquire) < created) {
        sleep_tick(m);
        now = hm__now_ns();
        if (!hm__aborted(m)) {
            mine = watch(m, created, &cursor, bound, now, &intr);
            continue;
        }
        if (stop == 0)
            stop = now;
        count_left(m, created, now, stop, &open, &coming);
        if (!woken && (mine || open > 0) && !m->tp->agree) {
            woken = 1;
            m->tp->abort(m, NULL);
            coming = 1; /* count again after the wake-up */
        } else if (open > 0 && m->tp->agree) {
            /* The other processes wait for this one's slot, which a node holds open:
             * the distributed transport's abort ends them all, with the stop's reason. */
            m->tp->abort(m, m->stop_reason);
        }
    }
    join_or_leave(m, created);
}

/* ---- machines whose threads were left running ------------------------------------ */

static pthread_mutex_t kept_lock = PTHREAD_MUTEX_INITIALIZER;
static hm__machine_t *kept; /* reachable: a leak checker counts them as in use */

void hm__keep_abandoned(hm__machine_t *m)
{
    pthread_mutex_lock(&kept_lock);
    m->next_abandoned = kept;
    kept = m;
    pthread_mutex_unlock(&kept_lock);
}

int hm__threads_left_running(void)
{
    pthread_mutex_lock(&kept_lock);
    int any = kept != NULL;
    pthread_mutex_unlock(&kept_lock);
    return any;
}
