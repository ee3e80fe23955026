/*
 * allgather-bruck — Bruck's allgather: ceil(log2 p) steps of doubling distance, any p,
 * on the ring (and the torus's snake, the hypercube's Gray ring), each step's message
 * relayed hop by hop.
 *
 * Steps (Bruck, Ho, Kipnis, Upfal, Weathersby 1997, as in Thakur-Rabenseifner-Gropp
 * 2005, section 4.2, mirrored to run forward). Positions i on the cycle (problem.h,
 * hma_prob_pos); buf[j] is the block of position i - j mod p, buf[0] the node's own.
 * In step k = 0..K-1, K = ceil(log2 p), position i sends buf[0 .. c) with
 * c = min(2^k, p - 2^k) to position i + 2^k and puts what position i - 2^k sent at
 * buf[2^k .. 2^k + c): its blocks of positions i - 2^k - j. Position i + 2^k is not
 * a neighbour: the message is relayed 2^k hops forward, every node relaying at once
 * (hma_prob_relay), so step k takes 2^k slots. At the end buf[j] holds position i - j's
 * block; the node stores them in node order.
 *
 * Cost under unit slots: exactly 2^K - 1 slots (p - 1 when p is a power of two),
 * any p >= 2; packets carry c blocks (combining when p > 2 or b > 1). A node sends
 * and receives in every slot: all-port and one-port-full, no conflict. (Under the
 * fully connected alpha-beta model of the paper the steps cost log2 p latencies; on a
 * ring the relaying makes it as slow as the ring algorithm, the point of the
 * comparison.)
 *
 * Cost under Seidel's a*m + b (circuit routing to neighbours, Hockney's alpha +
 * beta*m; every relay hop one message): step k is 2^k hops of c = min(2^k, p - 2^k)
 * blocks, every node in step: exactly sum_{k<K} 2^k * D(b*c) slots, D(v) =
 * ceil(8a*v + b) (hma_prob_msg_slots), any block and any p.
 */
#include <stdlib.h>

#include "../common/problem.h"

static const hm_param_spec_t ag_bruck_specs[] = {
    HMA_PROB_PARAM_BLOCK,
    HMA_PROB_PARAM_END,
};

static int ag_bruck_setup(hm_setup_t *s)
{
    s->state = hma_prob_setup(s, HM_PROBLEM_ALLGATHER);
    return s->state ? 0 : -1;
}

static void ag_bruck_node(hm_node_t *n, void *state)
{
    const hma_prob_t *pb = state;
    size_t b = (size_t)pb->block, count, all = (size_t)pb->p * b;
    int p = pb->p, pos = hma_prob_pos(pb, hm_id(n), -1);
    int64_t *buf = hma_prob_alloc(n, all);
    if (!buf)
        return;
    const int64_t *in = hm_input(n, &count);
    for (size_t i = 0; i < b; i++)
        buf[i] = in[i];
    for (int k = 0, dist = 1; dist < p; k++, dist *= 2) {
        size_t c = (size_t)(dist < p - dist ? dist : p - dist) * b;
        if (hma_prob_relay(n, pb, pos, dist, k, buf, buf + (size_t)dist * b, c) != HM_OK)
            goto done;
    }
    for (int y = 0; y < p; y++)
        hma_prob_store(n, buf + (size_t)((pos - hma_prob_pos(pb, y, -1) + p) % p) * b, b);
done:
    free(buf);
}

static void ag_bruck_verify(hm_report_t *r)
{
    const hma_prob_t *pb = r->state;
    int64_t full = 1;
    while (full < pb->p)
        full *= 2;
    if (r->machine->circuit) { /* step k: 2^k hops of min(2^k, p-2^k) blocks */
        int64_t t = 0;
        for (int64_t h = 1; h < pb->p; h *= 2) {
            int64_t c = h < pb->p - h ? h : pb->p - h;
            t += h * hma_prob_msg_slots(r->machine, (size_t)(c * pb->block));
        }
        hma_prob_verify(r, "sum_k 2^k*ceil(8a*block*min(2^k,p-2^k)+b)", t,
                        pb->p > 2 || pb->block > 1);
        return;
    }
    hma_prob_verify(r, "2^ceil(log2(p))-1", full - 1, pb->p > 2 || pb->block > 1);
}

const hm_algorithm_t hm_algo_allgather_bruck = {
    .name = "allgather-bruck",
    .description = "allgather: Bruck, ceil(log2 p) steps of distance 2^k relayed along the ring, "
                   "2^ceil(log2 p)-1 slots, any p",
    .paper = "Bruck et al. 1997; Thakur-Rabenseifner-Gropp 2005, section 4.2",
    .topologies = HM_BIT(HM_TOPO_HYPERCUBE) | HM_BIT(HM_TOPO_RING) | HM_BIT(HM_TOPO_TORUS),
    .ports = HM_BIT(HM_PORTS_ALL_PORT) | HM_BIT(HM_PORTS_ONE_PORT_FULL),
    .default_ports = HM_PORTS_ONE_PORT_FULL,
    .specs = ag_bruck_specs,
    .needs = {.clock_modes = HM_BIT(HM_CLOCK_SLOTTED),
              .clock_why = "its relays tell packets apart by the slot they arrive in",
              .min_dim = 1},
    .problem = HM_PROBLEM_ALLGATHER,
    .setup = ag_bruck_setup,
    .node_main = ag_bruck_node,
    .verify = ag_bruck_verify,
    .teardown = hma_prob_free,
    HMA_PROB_IO,
    .out_size = sizeof(hma_prob_count_t), /* the node's counters (hma_prob_send) */
};
