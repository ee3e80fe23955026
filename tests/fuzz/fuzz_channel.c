/* SPDX-License-Identifier: MIT */
/*
 * fuzz_channel.c — fuzz target: the sandbox's channel (README "Sandbox"), the requests
 * of a node process as the engine reads them. Node 0 of a Q_2 under packet routing (a
 * broadcast, clock.max_slots 64) serves the input's requests through the engine's own
 * path, hm__sbx_serve_one (cli/sandbox.c): each record is written into a channel region
 * field by field as a hostile node process could, then copied, checked, made and
 * answered. The other nodes take packets until the run stops.
 *
 * A record: opcode (1 byte), arg (4), arg64 (8), mask (8), want and flags (1: bit 0 want,
 * the others the packet's flags, HM__SBX_PKT_*), len (2, the
 * length field as written: it may lie), msg (4), origin (4), value (8), tag (4), aux (4),
 * pkt.len (4), then min(len, 64, what is left) bytes.
 *
 * Must hold: no crash, no hang, no leak, no undefined behaviour; the run ends with a
 * summary and an exit code of 0 to 5.
 */
#include <stdlib.h>
#include <string.h>

#include "cli/plugin.h"
#include "fuzz.h"
#include "sandbox/channel.h"

static const uint8_t *input;
static size_t input_size;

static uint64_t take(const uint8_t **p, const uint8_t *end, size_t n)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n && *p < end; i++)
        v |= (uint64_t) * (*p)++ << (8 * i);
    return v;
}

static void others(hm_node_t *n)
{
    hm_packet_t p;
    while (hm_wait_packet_until(n, &p, 64) == HM_OK)
        ;
}

static void serve_input(hm_node_t *n, hm__sbx_chan_t *c, char *buf)
{
    const uint8_t *p = input, *end = input + input_size;
    int done = 0;
    while (p < end && !done && !atomic_load(&n->m->aborted)) {
        c->opcode = (int32_t)(int8_t)take(&p, end, 1);
        c->arg = (int32_t)take(&p, end, 4);
        c->arg64 = (int64_t)take(&p, end, 8);
        c->mask = take(&p, end, 8);
        uint64_t byte = take(&p, end, 1);
        c->want = (int32_t)(byte & 1);
        c->flags = (int32_t)(byte >> 1); /* beyond HM__SBX_PKT_*: a request of an unknown kind */
        c->len = (uint32_t)take(&p, end, 2);
        c->pkt.msg = (int32_t)take(&p, end, 4);
        c->pkt.origin = (int32_t)take(&p, end, 4);
        c->pkt.value = (int64_t)take(&p, end, 8);
        c->pkt.tag = (int32_t)take(&p, end, 4);
        c->pkt.aux = (int32_t)take(&p, end, 4);
        c->pkt.len = (uint32_t)take(&p, end, 4);
        size_t k = c->len < 64 ? c->len : 64;
        for (size_t i = 0; i < k && p < end; i++)
            c->buf[i] = (char)*p++;
        if (hm__sbx_serve_one(n, c, buf, &done) != 0)
            break;
    }
}

static void fuzz_node(hm_node_t *n, void *state)
{
    (void)state;
    if (hm_id(n) != 0) {
        others(n);
        return;
    }
    hm__sbx_chan_t *c = calloc(1, hm__sbx_region_size(0));
    char *buf = malloc(HM__SBX_BUF + 1);
    if (c && buf)
        serve_input(n, c, buf);
    free(buf);
    free(c);
}

static const hm_algorithm_t fuzz_algo = {.name = "fuzz-channel",
                                         .topologies = HM_BIT(HM_TOPO_HYPERCUBE),
                                         .ports = HM_BIT(HM_PORTS_ALL_PORT),
                                         .node_main = fuzz_node};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char config[] =
        "{\"topology\": {\"kind\": \"hypercube\", \"dim\": 2}, \"algorithm\": {\"name\": "
        "\"sbt-broadcast\"}, \"clock\": {\"max_slots\": 64}}";
    input = data;
    input_size = size;
    hm__config_t cfg;
    if (hm__config_load_string(&cfg, "channel.json", config, NULL, 0) != HM_EXIT_OK)
        abort();
    cfg.algo = &fuzz_algo;
    hm__result_t res;
    int rc = hm__run_config(&cfg, &res);
    if (getenv("HM_FUZZ_VERBOSE"))
        fprintf(stderr, "fuzz channel: exit %d, %s; %s\n", rc, res.message ? res.message : "",
                res.report.verification);
    if (rc < HM_EXIT_OK || rc > HM_EXIT_RULES || !res.summary)
        abort();
    hm__result_free(&res);
    hm__config_free(&cfg);
    return 0;
}
