/*
 * machine.c — builds the virtual machine (topology, mailboxes, one thread per node),
 * runs it to the end and takes it down.
 *
 * Threads get small stacks (opt.stack_size, 64 KiB by default) so that thousands of
 * nodes start. No node runs before every thread exists: each waits on its semaphore
 * and the main thread opens slot 0 once all are created, or aborts them all if one
 * cannot be created (exit 4).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hm_internal.h"

static void *node_thread(void *arg)
{
    hm_node_t *n = arg;
    hm__machine_t *m = n->m;
    while (sem_wait(&n->wake) != 0 && errno == EINTR)
        ;
    if (atomic_load(&m->aborted)) {
        n->wait = HM__WAIT_DONE;
        return NULL;
    }
    n->now = m->now;
    if (!atomic_load(&m->aborted))
        hm__wake_children(n);
    m->algo->node_main(n, m->state);
    hm__blob_release(n->held);
    n->held = NULL;
    if (m->free)
        hm__free_finish(n);
    else
        hm__finish(n);
    return NULL;
}

int hm__machine_create(hm__machine_t **out, const hm__options_t *opt, const hm_algorithm_t *algo,
                       void *state, char *err, size_t errlen)
{
    hm__machine_t *m = calloc(1, sizeof *m);
    *out = m;
    if (!m) {
        snprintf(err, errlen, "out of memory creating the machine");
        return HM_EXIT_SYSTEM;
    }
    m->opt = *opt;
    m->info = opt->info;
    m->algo = algo;
    m->state = state;
    m->stats.last_activity = -1;
    atomic_init(&m->aborted, 0);
    atomic_init(&m->active_left, 0);
    if (hm__topology_build(m, err, errlen) != 0)
        return HM_EXIT_SYSTEM;

    int n = m->info.nodes;
    size_t links = (size_t)n * (size_t)m->maxdeg;
    m->nodes = calloc((size_t)n, sizeof *m->nodes);
    m->occ = calloc(links, sizeof *m->occ);
    m->stall_count = calloc(links, sizeof *m->stall_count);
    hm__use_t *u = &m->use;
    u->send_stamp = calloc((size_t)n, sizeof *u->send_stamp);
    u->recv_stamp = calloc((size_t)n, sizeof *u->recv_stamp);
    u->link_stamp = calloc(links, sizeof *u->link_stamp);
    u->send_count = calloc((size_t)n, sizeof *u->send_count);
    u->recv_count = calloc((size_t)n, sizeof *u->recv_count);
    u->link_count = calloc(links, sizeof *u->link_count);
    u->send_emission = calloc((size_t)n, sizeof *u->send_emission);
    u->send_copy = calloc((size_t)n, sizeof *u->send_copy);
    u->recv_copy = calloc((size_t)n, sizeof *u->recv_copy);
    if (!m->nodes || !m->occ || !m->stall_count || !u->send_stamp || !u->recv_stamp ||
        !u->link_stamp || !u->send_count || !u->recv_count || !u->link_count || !u->send_emission ||
        !u->send_copy || !u->recv_copy) {
        snprintf(err, errlen, "out of memory creating %d nodes", n);
        return HM_EXIT_SYSTEM;
    }
    if (hm__circuit_create(m) != 0) {
        snprintf(err, errlen, "out of memory creating the circuits of %d nodes", n);
        return HM_EXIT_SYSTEM;
    }
    if (m->opt.free_mode && hm__free_create(m) != 0) {
        snprintf(err, errlen, "cannot create the mailboxes of %d nodes", n);
        return HM_EXIT_SYSTEM;
    }
    for (int i = 0; i < n; i++) {
        hm_node_t *nd = &m->nodes[i];
        nd->id = i;
        nd->m = m;
        nd->busy_last = -1;
        nd->wake_at = -1;
        if (sem_init(&nd->wake, 0, 0) != 0) {
            snprintf(err, errlen, "cannot create the semaphore of node %d: %s", i, strerror(errno));
            return HM_EXIT_SYSTEM;
        }
    }
    return HM_EXIT_OK;
}

int hm__machine_run(hm__machine_t *m)
{
    int n = m->info.nodes;
    pthread_attr_t attr;
    if (pthread_attr_init(&attr) != 0) {
        hm__stop(m, HM_EXIT_SYSTEM, hm__strdup_printf("pthread_attr_init failed"));
        return m->exit_code;
    }
    size_t stack = m->opt.stack_size ? m->opt.stack_size : 64 * 1024;
    if (stack < (size_t)PTHREAD_STACK_MIN)
        stack = PTHREAD_STACK_MIN;
    pthread_attr_setstacksize(&attr, stack);

    /* Slot 0: every node is active. */
    for (int i = 0; i < n; i++)
        if (HM__PUSH(m->active, i) != 0) {
            hm__stop(m, HM_EXIT_SYSTEM, hm__strdup_printf("out of memory starting the clock"));
            pthread_attr_destroy(&attr);
            return m->exit_code;
        }
    m->now = 0;
    m->stats.slots_run = 1;
    atomic_store(&m->active_left, n);

    int created = 0;
    for (; created < n; created++) {
        hm_node_t *nd = &m->nodes[created];
        int rc = pthread_create(&nd->thread, &attr, node_thread, nd);
        /* EAGAIN can be passing (other processes' threads, a system limit): try again
         * for about a second before giving up. */
        for (int tries = 0; rc == EAGAIN && tries < 50; tries++) {
            nanosleep(&(struct timespec){.tv_nsec = 20 * 1000 * 1000}, NULL);
            rc = pthread_create(&nd->thread, &attr, node_thread, nd);
        }
        if (rc != 0) {
            hm__stop(m, HM_EXIT_SYSTEM,
                     hm__strdup_printf("cannot create the thread of node %d of %d: %s "
                                       "(raise ulimit -u or use fewer nodes)",
                                       created, n, strerror(rc)));
            break;
        }
        nd->started = 1;
    }
    pthread_attr_destroy(&attr);
    /* Open slot 0 through the wake-up tree, or let the created threads see the abort
     * and leave. */
    for (int i = 0; i < n; i++)
        m->nodes[i].active_index = (size_t)i;
    if (created == n)
        sem_post(&m->nodes[0].wake);
    else
        for (int i = 0; i < created; i++)
            sem_post(&m->nodes[i].wake);
    for (int i = 0; i < created; i++)
        pthread_join(m->nodes[i].thread, NULL);

    if (m->free)
        hm__free_collect(m);
    for (int i = 0; i < n; i++) {
        hm_node_t *nd = &m->nodes[i];
        if (nd->busy_last > m->stats.last_activity)
            m->stats.last_activity = nd->busy_last;
        /* A failed allocation in a node thread explains whatever followed it. */
        if (nd->failed && m->exit_code != HM_EXIT_SYSTEM) {
            free(m->stop_reason);
            m->stop_reason = hm__fail_message(nd);
            m->exit_code = HM_EXIT_SYSTEM;
            atomic_store(&m->aborted, 1);
        }
    }
    return m->exit_code;
}

static void free_copies(hm__copyvec_t *v, size_t from)
{
    for (size_t i = from; i < v->n; i++)
        hm__blob_release(v->v[i].blob);
    free(v->v);
}

void hm__machine_destroy(hm__machine_t *m)
{
    if (!m)
        return;
    if (m->nodes) {
        for (int i = 0; i < m->info.nodes; i++) {
            hm_node_t *nd = &m->nodes[i];
            for (size_t k = 0; k < nd->log.n; k++)
                free(nd->log.v[k].text);
            free(nd->log.v);
            free_copies(&nd->outbox, 0);
            free_copies(&nd->inbox, nd->inbox_head);
            hm__blob_release(nd->held);
            free(nd->stores.v);
            sem_destroy(&nd->wake);
        }
    }
    hm__circuit_destroy(m);
    hm__free_destroy(m);
    free_copies(&m->pending, 0);
    free_copies(&m->stalled, 0);
    free(m->cand.v);
    free(m->woken.v);
    free(m->active.v);
    free(m->timers.v);
    free(m->nodes);
    free(m->occ);
    free(m->stall_count);
    free(m->deg);
    free(m->nbr);
    free(m->rport);
    hm__use_t *u = &m->use;
    free(u->send_stamp);
    free(u->recv_stamp);
    free(u->link_stamp);
    free(u->send_count);
    free(u->recv_count);
    free(u->link_count);
    free(u->send_emission);
    free(u->send_copy);
    free(u->recv_copy);
    free(m->stop_reason);
    free(m);
}
