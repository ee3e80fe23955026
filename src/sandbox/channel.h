/* SPDX-License-Identifier: MIT */
/*
 * channel.h — the channel between the engine and one node process of the sandbox
 * (README "Sandbox", hypemu(1) --sandbox): a shared memory region, one per node
 * process, and two futex words in it.
 *
 * The node process (hypemu-node, src/sandbox/runner.c) writes a request into the
 * region and bumps `req`; the engine's node thread (cli/sandbox.c), which stands
 * for the node in the machine, copies the request out of the region, checks it, makes
 * the node API call itself and writes the reply, then bumps `rep`. Nothing the node
 * process writes is trusted: the engine reads each field once, into its own memory,
 * before it looks at it (hm__sbx_decode), and a node process can only ever harm its
 * own node's run.
 *
 * The region also carries what the node process needs to start (its node, the machine,
 * the algorithm's parameters) and its output area (hm_out), which comes back to the
 * engine when its node program returns. Both sides are built from the same sources,
 * so the layout is the compiler's; `magic` tells a node process of another build.
 */
#ifndef HM_SANDBOX_CHANNEL_H
#define HM_SANDBOX_CHANNEL_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "hypemu.h"

#define HM__SBX_MAGIC 0x68736278u /* "hsbx" */
#define HM__SBX_BUF (1u << 20)    /* bytes of a payload, a log line, the inputs */
#define HM__SBX_TEXT 256          /* the config file's and the algorithm's names */

/* What a node process does: describe its plugin's algorithms, run one's setup (for
 * the bytes of its output area and its cost), run one node, or run the plugin's own verify
 * on a copy of the outcome. */
typedef enum { HM__SBX_DESCRIBE = 1, HM__SBX_SETUP, HM__SBX_RUN, HM__SBX_VERIFY } hm__sbx_mode_t;

/* HM__SBX_VERIFY: after the header, the outcome's copy: nodes + 1 offsets (int64, the
 * first store of each node in values, then the total), the values, then each node's output
 * area of `arg` bytes. arg64 is the completion in slots. The result: setup.rc is verified
 * (0 or 1), setup.cost 1 when verify set r->error (its text in setup.error, else the
 * verification there), buf the extra keys as JSON (result_len bytes). */

/* The requests: one per node API call that needs the engine. */
#define HM__SBX_OP_MAP(XX)                                                                         \
    XX(SEND, "hm_send")                                                                            \
    XX(SEND_TO, "hm_send_to")                                                                      \
    XX(SHOUT, "hm_shout")                                                                          \
    XX(SHOUT_ALL, "hm_shout_all")                                                                  \
    XX(RECV, "hm_recv")                                                                            \
    XX(PENDING, "hm_pending")                                                                      \
    XX(WAIT_PACKET, "hm_wait_packet_until")                                                        \
    XX(WAIT_UNTIL, "hm_wait_until")                                                                \
    XX(BUSY, "hm_busy")                                                                            \
    XX(STORE, "hm_store")                                                                          \
    XX(LOG, "hm_log")                                                                              \
    XX(FAIL, "hm_fail")                                                                            \
    XX(NEIGHBOR, "hm_neighbor")                                                                    \
    XX(PORT_TO, "hm_port_to")                                                                      \
    XX(INPUT, "hm_input")                                                                          \
    XX(DONE, "the end of node_main")                                                               \
    XX(SEND_ROUTED, "hm_send_routed")                                                              \
    XX(WAIT_NOTE, "hm_wait_note")                                                                  \
    XX(ABORT, "hm_abort")                                                                          \
    XX(SHOW, "hm_show")                                                                            \
    XX(CLOCK_NS, "hm_clock_ns")                                                                    \
    XX(WAIT_PACKET_NS, "hm_wait_packet_ns")

typedef enum {
    HM__SBX_NONE,
#define XX(id, name) HM__SBX_##id,
    HM__SBX_OP_MAP(XX)
#undef XX
        HM__SBX_OP_COUNT
} hm__sbx_op_t;

/* A packet as it crosses the channel: hm_packet_t without the pointer; its bytes are
 * in buf. */
typedef struct hm__sbx_packet_s {
    int32_t msg, origin;
    int64_t value;
    int32_t tag, aux;
    uint32_t len;
    int32_t from, port;
    int64_t sent_slot, recv_slot;
} hm__sbx_packet_t;

/* The result of HM__SBX_SETUP. */
typedef struct hm__sbx_setup_s {
    int32_t done; /* 1 once written */
    int32_t rc;
    uint64_t out_size;
    int64_t cost;
    char error[512];
} hm__sbx_setup_t;

typedef struct hm__sbx_chan_s {
    /* Written by the engine before the node process starts. */
    uint32_t magic;
    int32_t mode; /* hm__sbx_mode_t */
    int32_t node, nodes, degree, root;
    int32_t op; /* hm_op_t of the run */
    uint64_t out_size;
    uint64_t stack_size; /* the node thread's stack: hm__stack_size (MPI programs: 1 MiB) */
    hm_machine_info_t machine;
    char config[HM__SBX_TEXT];    /* the config file's name (hm_setup_t.file) */
    char algorithm[HM__SBX_TEXT]; /* the algorithm to run */
    uint32_t params_len;          /* the "algorithm" object as JSON text at buf */

    /* The futex words. */
    char pad0[64];
    _Atomic uint32_t req; /* bumped by the node process after each request */
    char pad1[60];
    _Atomic uint32_t rep; /* bumped by the engine after each reply */
    char pad2[60];

    /* The request (node process) and the reply (engine). */
    int32_t opcode; /* hm__sbx_op_t */
    int32_t arg;    /* port, node or destination */
    int64_t arg64;  /* slot, deadline, value, count */
    uint64_t mask;  /* hm_shout's ports */
    int32_t want;   /* hm_wait_packet_until: 1 to take the packet */
    int32_t flags;  /* a send's packet as the program gave it: HM__SBX_PKT_* */
    uint32_t len;   /* bytes at buf: payload, text */
    hm__sbx_packet_t pkt;
    int64_t ret; /* the call's return value */
    int64_t now; /* the node's slot after the call */

    /* A system call the filter refused (the node process's SIGSYS handler). */
    int32_t refused_nr;
    /* A fault of the node process (its handler, before it dies: README "Exit codes"): the
     * faulting instruction (0: none known), where the plugin is loaded, and whether the
     * node thread overflowed its stack. */
    uint64_t fault_pc, plugin_base;
    int32_t overflowed;
    hm__sbx_setup_t setup;
    uint32_t result_len; /* HM__SBX_DESCRIBE: JSON text at buf */

    char buf[HM__SBX_BUF];
    /* then out_size bytes: the node's output area (hm_out) */
} hm__sbx_chan_t;

/* What a send's packet was, when it cannot cross as bytes: the engine makes the same call
 * with the same fault, so that it is refused and counted as in threads. */
enum {
    HM__SBX_PKT_NULL = 1,    /* the packet pointer was NULL */
    HM__SBX_PKT_NODATA = 2,  /* len > 0 with data NULL; pkt.len is that len */
    HM__SBX_PKT_TOOLONG = 4, /* len beyond the channel (HM__SBX_BUF); pkt.len is that len */
};

/* hm_show: arg64 is the buffer's length, buf its first values (int64, at most
 * HM__SBX_SHOW_WORDS: the engine records no more, hm_internal.h HM__SHOW_KEEP). */
#define HM__SBX_SHOW_WORDS 64

/* The exit status of a node process whose filter refused a system call. */
#define HM__SBX_REFUSED_STATUS 159

/* The bytes of a region with an output area of out_size bytes, whole pages. */
size_t hm__sbx_region_size(uint64_t out_size);

/* A request as the engine checked it, in the engine's own memory. */
typedef struct hm__sbx_call_s {
    hm__sbx_op_t op;
    int arg, want;
    int64_t arg64;
    uint64_t mask;
    hm_packet_t pkt;  /* .data points at the engine's copy of the bytes */
    int nopkt;        /* a send with a NULL packet */
    uint32_t toolong; /* a send of a payload beyond the channel: its length */
    uint32_t len;
    const char *why; /* a request that cannot be made: why (op HM__SBX_NONE) */
} hm__sbx_call_t;

/* Copy the request of region c into call, its bytes into buf (HM__SBX_BUF + 1 bytes,
 * text NUL-terminated), checking every field once; 0, or -1 with call->why. */
int hm__sbx_decode(const volatile hm__sbx_chan_t *c, hm__sbx_call_t *call, char *buf);

/* The name of request op for messages, "a request" when out of range. */
const char *hm__sbx_op_name(int op);

#endif /* HM_SANDBOX_CHANNEL_H */
