/* SPDX-License-Identifier: MIT */
/*
 * bench_simgrid.cpp — the pattern of hypemu's `simultaneous-broadcast` variant
 * `same-order` with k = 2^d (doc/performance.md), simulated with SimGrid (S4U) for a
 * side-by-side timing (`make bench-simgrid`, bench/bench_simgrid.sh).
 *
 *   bench_simgrid D
 *
 * Q_D: 2^D hosts, one link per direction of every hypercube edge. Every node is the
 * root of one SBT broadcast: its packet goes down the completely unbalanced spanning
 * tree rooted at it that crosses the dimensions in increasing order (Stamoulis and
 * Tsitsiklis, section 3.3.1: node z forwards a packet from origin o on every dimension
 * above the highest bit of z xor o). Each node keeps one FIFO queue per outgoing link
 * and, in every slot, sends the head of each non-empty queue (one packet per directed
 * link per slot, all ports); the slot ends with a barrier of all the actors, after
 * which every node reads what arrived and queues its copies. The run ends after the
 * slot in which the last packet was sent.
 *
 * Prints one line: D, nodes, slots, messages (transfers simulated; hypemu reports the
 * same number as "transmissions"), simulated time and wall time in seconds.
 */
#include <simgrid/s4u.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <string>
#include <vector>

namespace sg4 = simgrid::s4u;

namespace
{

int dim = 0, nodes = 0;
std::int64_t total = 0;            /* messages of the whole run: p (p - 1) */
std::vector<std::int64_t> sent_in; /* messages sent in each slot (final after its barrier) */
sg4::BarrierPtr slot_barrier;
std::vector<sg4::Mailbox *> inbox;

/* Dimensions on which node z forwards the packet of origin o. */
std::uint32_t children(std::uint32_t z, std::uint32_t o)
{
    std::uint32_t diff = z ^ o, mask = 0;
    int first = 0;
    while (first < dim && (diff >> first) != 0)
        first++;
    for (int j = first; j < dim; j++)
        mask |= 1u << j;
    return mask;
}

void node(int id)
{
    std::uint32_t x = static_cast<std::uint32_t>(id);
    std::vector<std::deque<std::uint32_t>> q(static_cast<std::size_t>(dim));
    std::uint32_t own = children(x, x);
    for (int j = 0; j < dim; j++)
        if (own >> j & 1)
            q[static_cast<std::size_t>(j)].push_back(x);
    std::int64_t cumulative = 0;
    for (std::size_t slot = 0;; slot++) {
        if (slot >= sent_in.size())
            sent_in.push_back(0); /* actors run one at a time: no lock needed */
        std::vector<sg4::CommPtr> comms;
        for (int j = 0; j < dim; j++) {
            std::deque<std::uint32_t> &fifo = q[static_cast<std::size_t>(j)];
            if (fifo.empty())
                continue;
            std::uintptr_t origin = fifo.front() + 1u; /* SimGrid refuses a null payload */
            fifo.pop_front();
            comms.push_back(inbox[x ^ (1u << j)]->put_async(reinterpret_cast<void *>(origin), 64));
            sent_in[slot]++;
        }
        sg4::Comm::wait_all(comms);
        slot_barrier->wait();
        cumulative += sent_in[slot];
        while (inbox[x]->ready()) {
            std::uint32_t origin = static_cast<std::uint32_t>(
                reinterpret_cast<std::uintptr_t>(inbox[x]->get<void>()) - 1u);
            std::uint32_t fwd = children(x, origin);
            for (int j = 0; j < dim; j++)
                if (fwd >> j & 1)
                    q[static_cast<std::size_t>(j)].push_back(origin);
        }
        if (cumulative == total) /* every actor decides alike: the counts are final */
            break;
    }
    inbox[x]->set_receiver(nullptr);
}

void build_platform()
{
    auto *zone = sg4::create_full_zone("hypercube");
    std::vector<sg4::Host *> hosts;
    for (int i = 0; i < nodes; i++)
        hosts.push_back(zone->create_host("n" + std::to_string(i), 1e9));
    for (int i = 0; i < nodes; i++)
        for (int j = 0; j < dim; j++) {
            int k = i ^ (1 << j);
            const sg4::Link *l =
                zone->create_link("l" + std::to_string(i) + "-" + std::to_string(k), 1e9)
                    ->set_latency(1e-6)
                    ->seal();
            zone->add_route(hosts[static_cast<std::size_t>(i)]->get_netpoint(),
                            hosts[static_cast<std::size_t>(k)]->get_netpoint(), nullptr, nullptr,
                            {sg4::LinkInRoute(l)}, false);
        }
    zone->seal();
}

} // namespace

int main(int argc, char **argv)
{
    sg4::Engine e(&argc, argv);
    if (argc != 2 || std::atoi(argv[1]) < 1 || std::atoi(argv[1]) > 14) {
        std::fprintf(stderr, "usage: bench_simgrid D (the hypercube dimension, 1..14)\n");
        return 2;
    }
    dim = std::atoi(argv[1]);
    nodes = 1 << dim;
    total = static_cast<std::int64_t>(nodes) * (nodes - 1);
    auto t0 = std::chrono::steady_clock::now();
    build_platform();
    slot_barrier = sg4::Barrier::create(static_cast<unsigned>(nodes));
    for (int i = 0; i < nodes; i++) {
        sg4::Host *h = sg4::Host::by_name("n" + std::to_string(i));
        inbox.push_back(sg4::Mailbox::by_name("in" + std::to_string(i)));
        sg4::ActorPtr a = sg4::Actor::create("node" + std::to_string(i), h, node, i);
        inbox.back()->set_receiver(a);
    }
    e.run();
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::int64_t messages = 0;
    for (std::int64_t s : sent_in)
        messages += s;
    std::printf("d %d nodes %d slots %zu messages %lld simulated %.6f s wall %.3f s\n", dim, nodes,
                sent_in.size(), static_cast<long long>(messages), sg4::Engine::get_clock(), wall);
    return messages == total ? 0 : 1;
}
