/* SPDX-License-Identifier: MIT */
/*
 * otf2.c — the run as an OTF2 archive (README "Outputs", doc/pictures.md "OTF2"), for
 * the HPC trace tools (otf2-print, Vampir, ViTE), written with the OTF2 library.
 *
 * Each node is an MPI-like process (a location group) with one location; rank r of
 * the one communicator is node r. Per location, in time order:
 *   - Enter/Leave of the region "busy" around hm_busy work, and of "circuit" around
 *     the slots a circuit-routed message holds its route (sender side);
 *   - MpiSend at the slot a transmission was sent, MpiRecv at the slot it was
 *     received (tag: the message number, length: the payload's bytes, 8 for the one
 *     word of a packet without bytes); only transmissions that reached their receiver
 *     are written, so the sends and receives pair up one to one;
 *   - the metrics "packets sent" and "packets received" (accumulated from the start)
 *     after every slot in which they changed.
 * One slot is 1 ms: 1,000 ticks of a 1 MHz clock, as in the Chrome trace. Within a
 * slot, sends come at tick 100 and receives at tick 500, so that a packet sent and
 * received in the same slot still goes forward in time.
 *
 * The archive is a directory (traces.otf2, traces.def, traces/). It is written next
 * to its final name and renamed into place, so a reader never sees half an archive
 * and a failed run keeps the previous one. What it replaces must be such an archive
 * and nothing more (hm__otf2_target, checked with the config): a directory or file of
 * the user's is never removed.
 */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <otf2/otf2.h>

#include "out/writers.h"

#define TICKS_PER_SLOT 1000
enum { REGION_BUSY, REGION_CIRCUIT };
enum { REC_ENTER, REC_SEND, REC_RECV, REC_METRIC, REC_DEPTH, REC_LEAVE };

/* One event of one location, sorted by (node, time, kind, order). */
typedef struct rec_s {
    int32_t node;
    uint8_t kind;
    uint32_t order;
    uint64_t ts;
    int32_t peer, tag;
    uint64_t a, b; /* region; or message length; or the two metric values */
} rec_t;

static int cmp_rec(const void *x, const void *y)
{
    const rec_t *p = x, *q = y;
    if (p->node != q->node)
        return p->node < q->node ? -1 : 1;
    if (p->ts != q->ts)
        return p->ts < q->ts ? -1 : 1;
    if (p->kind != q->kind)
        return p->kind < q->kind ? -1 : 1;
    return (p->order > q->order) - (p->order < q->order);
}

static OTF2_FlushType pre_flush(void *user, OTF2_FileType type, OTF2_LocationRef loc, void *caller,
                                bool final)
{
    (void)user, (void)type, (void)loc, (void)caller, (void) final;
    return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *user, OTF2_FileType type, OTF2_LocationRef loc)
{
    (void)user, (void)type, (void)loc;
    return 0;
}

static const OTF2_FlushCallbacks flush_callbacks = {pre_flush, post_flush};

/* The events of every node, in the order each location must hold them. */
static rec_t *collect(const hm__timeline_t *tl, int nodes, size_t *count, uint64_t *last)
{
    hm__flow_index_t recvs = {0};
    uint64_t *sent = calloc((size_t)nodes, sizeof *sent), *got = calloc((size_t)nodes, sizeof *got);
    /* At most four records per event: a circuit send is enter, send, metric, leave. */
    rec_t *r = malloc((4 * tl->n + 1) * sizeof *r);
    if (!sent || !got || !r || hm__flow_index(tl, HM__EV_RECV, &recvs) != 0) {
        free(sent), free(got), free(r);
        return NULL;
    }
    size_t k = 0;
    *last = 0;
    for (size_t i = 0; i < tl->n; i++) {
        const hm__event_t *e = &tl->ev[i];
        uint64_t t0 = (uint64_t)e->slot * TICKS_PER_SLOT, dur = e->dur > 0 ? (uint64_t)e->dur : 1;
        rec_t base = {.node = e->node, .order = (uint32_t)i, .peer = e->peer, .tag = e->msg};
        int region = -1;
        if (e->kind == HM__EV_BUSY)
            region = REGION_BUSY;
        else if (e->kind == HM__EV_SEND && dur > 1)
            region = REGION_CIRCUIT;
        if (region >= 0) {
            r[k] = base, r[k].kind = REC_ENTER, r[k].ts = t0, r[k++].a = (uint64_t)region;
            r[k] = base, r[k].kind = REC_LEAVE, r[k].ts = t0 + dur * TICKS_PER_SLOT - 1;
            r[k++].a = (uint64_t)region;
        }
        int counted = 0;
        if (e->kind == HM__EV_SEND && hm__flow_find(&recvs, e->flow)) {
            r[k] = base, r[k].kind = REC_SEND, r[k].ts = t0 + 100, r[k++].b = 8;
            sent[e->node]++;
            counted = 1;
        } else if (e->kind == HM__EV_RECV) {
            r[k] = base, r[k].kind = REC_RECV, r[k].ts = t0 + 500, r[k++].b = 8;
            got[e->node]++;
            counted = 1;
            if (e->depth > 0) /* known in slotted mode */
                r[k] = base, r[k].kind = REC_DEPTH, r[k].ts = t0 + 500,
                r[k++].a = (uint64_t)e->depth;
        }
        if (counted) {
            r[k] = base, r[k].kind = REC_METRIC, r[k].ts = t0 + 600;
            r[k].a = sent[e->node], r[k++].b = got[e->node];
        }
        if (t0 + dur * TICKS_PER_SLOT > *last)
            *last = t0 + dur * TICKS_PER_SLOT;
    }
    qsort(r, k, sizeof *r, cmp_rec);
    /* Keep one metric record of each kind per (node, tick): the last, which holds the
     * totals (and the depth after the tick's last receipt). */
    size_t w = 0;
    for (size_t i = 0; i < k; i++) {
        if ((r[i].kind == REC_METRIC || r[i].kind == REC_DEPTH) && i + 1 < k &&
            r[i + 1].kind == r[i].kind && r[i + 1].node == r[i].node && r[i + 1].ts == r[i].ts)
            continue;
        r[w++] = r[i];
    }
    hm__flow_index_free(&recvs);
    free(sent), free(got);
    *count = w;
    return r;
}

/* Regions must nest on a location: a region that would end after the one it opened
 * inside is cut at that one's end. */
static void nest(rec_t *r, size_t n)
{
    uint64_t open_end[16];
    int depth = 0;
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && r[i].node != r[i - 1].node)
            depth = 0;
        if (r[i].kind != REC_ENTER)
            continue;
        while (depth > 0 && open_end[depth - 1] < r[i].ts)
            depth--;
        /* Find its leave: the next LEAVE of the same region on this node. */
        for (size_t j = i + 1; j < n && r[j].node == r[i].node; j++)
            if (r[j].kind == REC_LEAVE && r[j].a == r[i].a && r[j].b == 0) {
                r[j].b = 1; /* matched */
                if (depth > 0 && r[j].ts >= open_end[depth - 1])
                    r[j].ts = open_end[depth - 1] - 1;
                if (depth < 16)
                    open_end[depth++] = r[j].ts;
                break;
            }
    }
    qsort(r, n, sizeof *r, cmp_rec);
}

static int write_events(OTF2_Archive *ar, const rec_t *r, size_t n, int nodes, uint64_t *counts)
{
    OTF2_Type types[2] = {OTF2_TYPE_UINT64, OTF2_TYPE_UINT64};
    size_t i = 0;
    for (int node = 0; node < nodes; node++) {
        OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(ar, (OTF2_LocationRef)node);
        if (!w)
            return -1;
        OTF2_ErrorCode ok = OTF2_SUCCESS;
        for (; i < n && r[i].node == node && ok == OTF2_SUCCESS; i++) {
            const rec_t *e = &r[i];
            switch (e->kind) {
            case REC_ENTER:
                ok = OTF2_EvtWriter_Enter(w, NULL, e->ts, (OTF2_RegionRef)e->a);
                break;
            case REC_LEAVE:
                ok = OTF2_EvtWriter_Leave(w, NULL, e->ts, (OTF2_RegionRef)e->a);
                break;
            case REC_SEND:
                ok = OTF2_EvtWriter_MpiSend(w, NULL, e->ts, (uint32_t)e->peer, 0, (uint32_t)e->tag,
                                            e->b);
                break;
            case REC_RECV:
                ok = OTF2_EvtWriter_MpiRecv(w, NULL, e->ts, (uint32_t)e->peer, 0, (uint32_t)e->tag,
                                            e->b);
                break;
            case REC_DEPTH: {
                OTF2_MetricValue v = {.unsigned_int = e->a};
                ok = OTF2_EvtWriter_Metric(w, NULL, e->ts, 1, 1, types, &v);
                break;
            }
            default: {
                OTF2_MetricValue v[2];
                v[0].unsigned_int = e->a;
                v[1].unsigned_int = e->b;
                ok = OTF2_EvtWriter_Metric(w, NULL, e->ts, 0, 2, types, v);
                break;
            }
            }
        }
        if (ok != OTF2_SUCCESS ||
            OTF2_EvtWriter_GetNumberOfEvents(w, &counts[node]) != OTF2_SUCCESS ||
            OTF2_Archive_CloseEvtWriter(ar, w) != OTF2_SUCCESS)
            return -1;
    }
    return 0;
}

/* The global definitions' strings: the fixed ones, then "node x" from S_NODE0. */
enum {
    S_EMPTY,
    S_TITLE,
    S_MACHINE,
    S_BUSY,
    S_BUSY_DESC,
    S_CIRC,
    S_CIRC_DESC,
    S_WORLD,
    S_LOCS,
    S_SENT,
    S_SENT_DESC,
    S_RECV,
    S_RECV_DESC,
    S_PACKETS,
    S_DEPTH,
    S_DEPTH_DESC,
    S_NODE0
};

/* Every location's (empty) local definitions. */
static int local_defs(OTF2_Archive *ar, int nodes)
{
    if (OTF2_Archive_OpenDefFiles(ar) != OTF2_SUCCESS)
        return -1;
    for (int node = 0; node < nodes; node++) {
        OTF2_DefWriter *d = OTF2_Archive_GetDefWriter(ar, (OTF2_LocationRef)node);
        if (!d || OTF2_Archive_CloseDefWriter(ar, d) != OTF2_SUCCESS)
            return -1;
    }
    return OTF2_Archive_CloseDefFiles(ar) == OTF2_SUCCESS ? 0 : -1;
}

/* The clock, the strings, the system tree, a process and a location per node. */
static OTF2_ErrorCode write_nodes(OTF2_GlobalDefWriter *g, const hm__outcome_t *run,
                                  const uint64_t *counts, uint64_t last)
{
    int nodes = run->info.nodes;
    const char *fixed[] = {"",
                           run->algorithm,
                           "machine",
                           "busy",
                           "hm_busy: local work (Seidel's copying time)",
                           "circuit",
                           "a circuit-routed message holding its route",
                           "links",
                           "nodes",
                           "packets sent",
                           "transmissions sent so far",
                           "packets received",
                           "transmissions received so far",
                           "packets",
                           "mailbox depth",
                           "packets received and not yet read, just after a receipt"};
    OTF2_ErrorCode ok = OTF2_GlobalDefWriter_WriteClockProperties(
        g, 1000 * TICKS_PER_SLOT, 0, last + 1, OTF2_UNDEFINED_TIMESTAMP);
    for (int s = 0; s < S_NODE0 && ok == OTF2_SUCCESS; s++)
        ok = OTF2_GlobalDefWriter_WriteString(g, (OTF2_StringRef)s, fixed[s]);
    char name[32];
    for (int node = 0; node < nodes && ok == OTF2_SUCCESS; node++) {
        snprintf(name, sizeof name, "node %d", node);
        ok = OTF2_GlobalDefWriter_WriteString(g, (OTF2_StringRef)(S_NODE0 + node), name);
    }
    if (ok == OTF2_SUCCESS)
        ok = OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, S_TITLE, S_MACHINE,
                                                      OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    for (int node = 0; node < nodes && ok == OTF2_SUCCESS; node++) {
        OTF2_StringRef s = (OTF2_StringRef)(S_NODE0 + node);
        ok = OTF2_GlobalDefWriter_WriteLocationGroup(g, (OTF2_LocationGroupRef)node, s,
                                                     OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                                     OTF2_UNDEFINED_LOCATION_GROUP);
        if (ok == OTF2_SUCCESS)
            ok = OTF2_GlobalDefWriter_WriteLocation(g, (OTF2_LocationRef)node, s,
                                                    OTF2_LOCATION_TYPE_CPU_THREAD, counts[node],
                                                    (OTF2_LocationGroupRef)node);
    }
    return ok;
}

/* The metrics: packets sent and received (accumulated), the mailbox depth. */
static OTF2_ErrorCode write_metrics(OTF2_GlobalDefWriter *g, OTF2_ErrorCode ok)
{
    for (int m = 0; m < 2 && ok == OTF2_SUCCESS; m++)
        ok = OTF2_GlobalDefWriter_WriteMetricMember(
            g, (OTF2_MetricMemberRef)m, m ? S_RECV : S_SENT, m ? S_RECV_DESC : S_SENT_DESC,
            OTF2_METRIC_TYPE_USER, OTF2_METRIC_ACCUMULATED_START, OTF2_TYPE_UINT64,
            OTF2_BASE_DECIMAL, 0, S_PACKETS);
    if (ok == OTF2_SUCCESS)
        ok = OTF2_GlobalDefWriter_WriteMetricMember(
            g, 2, S_DEPTH, S_DEPTH_DESC, OTF2_METRIC_TYPE_USER, OTF2_METRIC_ABSOLUTE_POINT,
            OTF2_TYPE_UINT64, OTF2_BASE_DECIMAL, 0, S_PACKETS);
    OTF2_MetricMemberRef mm[3] = {0, 1, 2};
    if (ok == OTF2_SUCCESS)
        ok = OTF2_GlobalDefWriter_WriteMetricClass(g, 0, 2, mm, OTF2_METRIC_ASYNCHRONOUS,
                                                   OTF2_RECORDER_KIND_ABSTRACT);
    if (ok == OTF2_SUCCESS)
        ok = OTF2_GlobalDefWriter_WriteMetricClass(g, 1, 1, mm + 2, OTF2_METRIC_ASYNCHRONOUS,
                                                   OTF2_RECORDER_KIND_ABSTRACT);
    return ok;
}

static int write_defs(OTF2_Archive *ar, const hm__outcome_t *run, const uint64_t *counts,
                      uint64_t last)
{
    int nodes = run->info.nodes;
    if (local_defs(ar, nodes) != 0)
        return -1;
    OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(ar);
    if (!g)
        return -1;
    OTF2_ErrorCode ok = write_nodes(g, run, counts, last);
    if (ok == OTF2_SUCCESS)
        ok = OTF2_GlobalDefWriter_WriteRegion(g, REGION_BUSY, S_BUSY, S_BUSY, S_BUSY_DESC,
                                              OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER,
                                              OTF2_REGION_FLAG_NONE, S_EMPTY, 0, 0);
    if (ok == OTF2_SUCCESS)
        ok = OTF2_GlobalDefWriter_WriteRegion(g, REGION_CIRCUIT, S_CIRC, S_CIRC, S_CIRC_DESC,
                                              OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER,
                                              OTF2_REGION_FLAG_NONE, S_EMPTY, 0, 0);
    uint64_t *members = malloc((size_t)nodes * sizeof *members);
    if (!members)
        return -1;
    for (int node = 0; node < nodes; node++)
        members[node] = (uint64_t)node;
    /* The communicator: its locations, then its ranks (rank r is node r). */
    if (ok == OTF2_SUCCESS)
        ok = OTF2_GlobalDefWriter_WriteGroup(g, 0, S_LOCS, OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                             OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                             (uint32_t)nodes, members);
    if (ok == OTF2_SUCCESS)
        ok = OTF2_GlobalDefWriter_WriteGroup(g, 1, S_WORLD, OTF2_GROUP_TYPE_COMM_GROUP,
                                             OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                             (uint32_t)nodes, members);
    free(members);
    if (ok == OTF2_SUCCESS)
        ok = OTF2_GlobalDefWriter_WriteComm(g, 0, S_WORLD, 1, OTF2_UNDEFINED_COMM,
                                            OTF2_COMM_FLAG_NONE);
    ok = write_metrics(g, ok);
    if (OTF2_Archive_CloseGlobalDefWriter(ar, g) != OTF2_SUCCESS)
        ok = OTF2_ERROR_INVALID;
    return ok == OTF2_SUCCESS ? 0 : -1;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

static void remove_tree(const char *path)
{
    nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* ---- the target: only an archive of ours is replaced ------------------------------- */

static const char *kind_of(mode_t mode)
{
    return S_ISREG(mode)    ? "a regular file"
           : S_ISCHR(mode)  ? "a character device"
           : S_ISBLK(mode)  ? "a block device"
           : S_ISFIFO(mode) ? "a FIFO"
           : S_ISSOCK(mode) ? "a socket"
                            : "not a directory";
}

/* traces/: the per-location files the OTF2 library writes, N.evt and N.def. */
static int location_file(const char *name)
{
    size_t digits = strspn(name, "0123456789");
    return digits > 0 && (strcmp(name + digits, ".evt") == 0 || strcmp(name + digits, ".def") == 0);
}

/* The first entry of directory `dir` that is not ours (ok(name) says which are): its
 * name in `other`; 1 if there is one, 0 if none, -1 if the directory cannot be read. */
static int stranger(const char *dir, int (*ok)(const char *), char *other, size_t len)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int found = 0;
    for (struct dirent *e; !found && (e = readdir(d));)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 && !ok(e->d_name)) {
            snprintf(other, len, "%s", e->d_name);
            found = 1;
        }
    closedir(d);
    return found;
}

static int archive_entry(const char *name)
{
    return strcmp(name, "traces.otf2") == 0 || strcmp(name, "traces.def") == 0 ||
           strcmp(name, "traces") == 0;
}

int hm__otf2_target(const char *dir, char *why, size_t len)
{
    struct stat st;
    if (stat(dir, &st) != 0)
        return 0; /* nothing there; or a path the writer cannot use, which it reports */
    if (!S_ISDIR(st.st_mode)) {
        snprintf(why, len, "%s", kind_of(st.st_mode));
        return -1;
    }
    char *anchor = hm__strdup_printf("%s/traces.otf2", dir);
    char *locs = hm__strdup_printf("%s/traces", dir), other[256];
    struct stat a, l;
    int rc = -1;
    if (!anchor || !locs)
        snprintf(why, len, "a directory (out of memory looking into it)");
    else if (stat(anchor, &a) != 0 || !S_ISREG(a.st_mode))
        snprintf(why, len, "a directory that is not an OTF2 archive (no traces.otf2 in it)");
    else if (stranger(dir, archive_entry, other, sizeof other) != 0)
        snprintf(why, len, "an OTF2 archive with \"%s\" in it, which is not the archive's", other);
    else if (stat(locs, &l) == 0 && !S_ISDIR(l.st_mode))
        snprintf(why, len, "an OTF2 archive whose traces is %s", kind_of(l.st_mode));
    else if (stat(locs, &l) == 0 && stranger(locs, location_file, other, sizeof other) != 0)
        snprintf(why, len, "an OTF2 archive with \"traces/%s\" in it, which is not the archive's",
                 other);
    else
        rc = 0;
    free(anchor);
    free(locs);
    return rc;
}

/* The directory the archive goes into must exist: the OTF2 library would create it
 * and its parents (README "Outputs": no writer creates a directory). */
static int parent_exists(const char *dir, char *err, size_t errlen)
{
    const char *slash = strrchr(dir, '/');
    char *parent = slash ? strndup(dir, slash == dir ? 1 : (size_t)(slash - dir)) : strdup(".");
    struct stat st;
    int e = !parent ? ENOMEM : stat(parent, &st) != 0 ? errno : !S_ISDIR(st.st_mode) ? ENOTDIR : 0;
    free(parent);
    if (e)
        snprintf(err, errlen, "%s", strerror(e));
    return e ? -1 : 0;
}

int hm__write_otf2(const hm__outcome_t *run, const char *dir, char *err, size_t errlen)
{
    char why[400];
    if (parent_exists(dir, err, errlen) != 0)
        return -1;
    /* Checked with the config already; again now, for whatever came there since. */
    if (hm__otf2_target(dir, why, sizeof why) != 0) {
        snprintf(err, errlen, "it is %s; allowed: a new path or an OTF2 archive", why);
        return -1;
    }

    int nodes = run->info.nodes;
    size_t n = 0;
    uint64_t last = 0;
    rec_t *r = collect(&run->timeline, nodes, &n, &last);
    uint64_t *counts = calloc((size_t)nodes, sizeof *counts);
    char *tmp = hm__strdup_printf("%s.tmp-%ld", dir, (long)getpid());
    char *old = hm__strdup_printf("%s.old-%ld", dir, (long)getpid());
    int rc = -1;
    OTF2_Archive *ar = NULL;
    if (!r || !counts || !tmp || !old) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    nest(r, n);
    remove_tree(tmp);
    ar = OTF2_Archive_Open(tmp, "traces", OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
                           OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!ar || OTF2_Archive_SetFlushCallbacks(ar, &flush_callbacks, NULL) != OTF2_SUCCESS ||
        OTF2_Archive_SetSerialCollectiveCallbacks(ar) != OTF2_SUCCESS ||
        OTF2_Archive_SetCreator(ar, "hypemu " HM_VERSION) != OTF2_SUCCESS ||
        OTF2_Archive_OpenEvtFiles(ar) != OTF2_SUCCESS ||
        write_events(ar, r, n, nodes, counts) != 0 ||
        OTF2_Archive_CloseEvtFiles(ar) != OTF2_SUCCESS || write_defs(ar, run, counts, last) != 0) {
        snprintf(err, errlen, "the OTF2 library failed writing %s", tmp);
        goto done;
    }
    OTF2_ErrorCode closed = OTF2_Archive_Close(ar);
    ar = NULL;
    if (closed != OTF2_SUCCESS) {
        snprintf(err, errlen, "the OTF2 library failed closing %s", tmp);
        goto done;
    }
    /* Into place: the previous archive, if any, moves aside first. */
    int had_old = rename(dir, old) == 0;
    if (!had_old && errno != ENOENT) {
        snprintf(err, errlen, "cannot replace %s: %s", dir, strerror(errno));
        goto done;
    }
    if (rename(tmp, dir) != 0) {
        snprintf(err, errlen, "cannot rename %s to %s: %s", tmp, dir, strerror(errno));
        if (had_old)
            (void)rename(old, dir);
        goto done;
    }
    if (had_old)
        remove_tree(old);
    rc = 0;
done:
    if (ar)
        OTF2_Archive_Close(ar);
    if (rc != 0 && tmp)
        remove_tree(tmp);
    free(r), free(counts), free(tmp), free(old);
    return rc;
}
