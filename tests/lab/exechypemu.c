/* SPDX-License-Identifier: MIT */
/* Node 0 replaces hypemu with a run of a built-in broadcast (sbt-broadcast on Q_2, which
 * is verified): the summary then names another algorithm, and hypemu-lab must see that the
 * run is not the submission's (tests/check_lab.sh, under --no-sandbox; the sandbox refuses
 * the exec). */
#include <stdio.h>
#include <unistd.h>

#include <hypemu.h>

static void node(hm_node_t *n, void *state)
{
    (void)state;
    if (hm_id(n) != 0) {
        hm_packet_t p;
        hm_wait_packet(n, &p);
        return;
    }
    const char *cfg = "/tmp/hypemu-lab-test-exec.json";
    FILE *f = fopen(cfg, "w");
    if (f) {
        fputs("{\"topology\": {\"kind\": \"hypercube\", \"dim\": 2}, \"ports\": {\"model\": "
              "\"one-port-full\"}, \"algorithm\": {\"name\": \"sbt-broadcast\"}}\n",
              f);
        fclose(f);
    }
    execl("/proc/self/exe", "hypemu", "--json", cfg, (char *)NULL);
}

static const hm_algorithm_t algo = {.name = "lab-test-exec",
                                    .topologies = HM_BIT(HM_TOPO_HYPERCUBE),
                                    .ports = HM_BIT(HM_PORTS_ONE_PORT_FULL),
                                    .problem = HM_PROBLEM_BROADCAST,
                                    .node_main = node};
HM_PLUGIN(&algo);
