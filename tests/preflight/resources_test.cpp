// The pre-flight resource estimate (preflight/resources.h): its closed-form counts against what
// the builders really build and the workload really posts, its byte figures against sizeof() of
// the types times independently computed counts, its refusal of counts that overflow, and its
// cost (milliseconds for a 500k-host fabric, since nothing is built).
#include "resolve/resolve.h"
#include "preflight/resources.h"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <cmath>

#include "core/error.h"
#include "core/scheduler.h"
#include "net/network.h"
#include "routing/subnet_manager.h"
#include "spec/load.h"
#include "results/result.h"
#include "engine/run.h"
#include "engine/packet/simulation.h"
#include "topo/topology.h"
#include "transport/rc.h"
#include "workload/workload.h"

namespace fabricsim::scenario {
namespace resources_test {

Scenario scenario_of(const std::string& yaml) {
  Scenario sc = load_scenario_string(yaml, "r.yaml").scenario;
  (void)resolve(sc);
  return sc;
}

int64_t part(const ResourceEstimate& e, const std::string& name) {
  for (const MemoryPart& p : e.parts) {
    if (p.name == name) return p.bytes;
  }
  ADD_FAILURE() << "no part " << name;
  return -1;
}

// The counts the closed forms give match what topo::build really creates, on every shape the
// builders know: leaf-spine full and partial, oversubscribed, 3-tier full and partial, rail.
TEST(ResourceEstimate, TopologyCountsMatchTheBuiltFabric) {
  const char* shapes[] = {
      "topology: {kind: leaf_spine, radix: 8}\nhosts: {count: 32}\n",
      "topology: {kind: leaf_spine, radix: 16}\nhosts: {count: 50}\n",
      "topology: {kind: leaf_spine, radix: 16, oversubscription: 3}\nhosts: {count: 100}\n",
      "topology: {kind: fat_tree, tiers: 3, radix: 8}\nhosts: {count: 128}\n",
      "topology: {kind: fat_tree, tiers: 3, radix: 8}\nhosts: {count: 60, nics_per_host: 2}\n",
      // partial trees: fewest spines/cores (parallel cables), odd sizes, one pod, whole tiers
      "topology: {kind: leaf_spine, radix: 64}\nhosts: {count: 128, nics_per_host: 8}\n",
      "topology: {kind: leaf_spine, radix: 16}\nhosts: {count: 40}\n",
      "topology: {kind: leaf_spine, radix: 16, upper_tiers: full}\nhosts: {count: 40}\n",
      "topology: {kind: fat_tree, tiers: 3, radix: 32}\nhosts: {count: 1024}\n",
      "topology: {kind: fat_tree, tiers: 3, radix: 8}\nhosts: {count: 40}\n",
      "topology: {kind: fat_tree, tiers: 3, radix: 8}\nhosts: {count: 12}\n",
      "topology: {kind: fat_tree, tiers: 3, radix: 8, upper_tiers: full}\nhosts: {count: 40}\n",
      "topology: {kind: rail, radix: 8, upper_tiers: full}\nhosts: {count: 6, nics_per_host: 2}\n",
      // rail: 2 leaves per rail, parallel leaf-spine cables; uneven spines; oversubscribed
      "topology: {kind: rail, radix: 8}\nhosts: {count: 6, nics_per_host: 4}\n",
      "topology: {kind: rail, radix: 16}\nhosts: {count: 2, nics_per_host: 5}\n",
      "topology: {kind: rail, radix: 8, oversubscription: 3}\nhosts: {count: 10, nics_per_host: 2}\n",
  };
  for (const char* yaml : shapes) {
    const Scenario sc = scenario_of(std::string(yaml) + "workload: {kind: collective}\n");
    const ResourceEstimate e = estimate_resources(sc);
    Simulation sim(sc);
    EXPECT_EQ(e.nics, sim.topology().nics) << yaml;
    EXPECT_EQ(e.switches, sim.topology().switches) << yaml;
    EXPECT_EQ(e.cables, sim.topology().cables) << yaml;
    EXPECT_EQ(e.ports, sim.network().num_ports()) << yaml;
  }
}

// InfiniBand: one LID per CA and per switch, LID 0 reserved (IBA: unicast LIDs from 1), which is
// the Subnet Manager's num_lids on a connected fabric.
TEST(ResourceEstimate, LidCountMatchesTheSubnetManager) {
  const Scenario sc = scenario_of(
      "fabric: {technology: ib}\ntopology: {kind: fat_tree, tiers: 3, radix: 8}\n"
      "hosts: {count: 100}\nworkload: {kind: collective}\n");
  const ResourceEstimate e = estimate_resources(sc);
  Simulation sim(sc);
  EXPECT_EQ(e.lids, sim.lid_routes().num_lids);
  // k=8, 4 NICs per edge: 25 edges, ceil(100/16) = 7 pods x 4 aggs, 4 x 4 cores = 69 switches.
  EXPECT_EQ(e.lids, 100 + 69 + 1) << "one LID per CA and per switch, LID 0 reserved";
  // Its LFTs alone: a 32-bit port per (switch, LID) while a sweep is being installed.
  EXPECT_GE(part(e, "routing"), 69 * 170 * 4);
}

// Ring all-reduce: n ranks x 2(n-1) steps x ceil(ceil(S/n)/slice) slices, each one message
// (workload.cpp), counted here by hand and by the workload itself after it ran.
TEST(ResourceEstimate, CollectiveMessagesAreRanksTimesStepsTimesSlices) {
  const Scenario sc = scenario_of(
      "topology: {kind: leaf_spine, radix: 8}\nhosts: {count: 8}\n"
      "workload: {kind: collective, size: 1MiB, slice: 64KiB}\n");
  const ResourceEstimate e = estimate_resources(sc);
  // chunk = 1 MiB / 8 = 128 KiB = 2 slices of 64 KiB; 8 x 14 x 2 = 224.
  EXPECT_EQ(e.messages, 224);
  Simulation sim(sc);
  sim.start_workload();
  sim.run();
  EXPECT_EQ(sim.transport().num_messages(), 224u) << "what the run really posted";
  EXPECT_EQ(e.qps, sim.roce()->num_qps()) << "one QP per rank to its successor";
  EXPECT_GE(part(e, "transport"), 224 * static_cast<int64_t>(sizeof(transport::Message)));
  // The flow summary: each flow's value in 5 digests of 8-byte values (results/flow_summary.h):
  // the all-flows digest's vector bit_ceil(224) = 256 slots, the size buckets' and the classes'
  // (FCT and slowdown each) below 2 x 224 slots between them, a pattern's flows not known to
  // keep to one bucket or class; and flows.csv's buffer, 256 characters a row
  // (results/flows_csv.h).
  EXPECT_EQ(part(e, "flow summary"), (256 + 2 * 448 + 2 * 448) * 8 + 224 * 256);
}

TEST(ResourceEstimate, PatternMessagesAndQps) {
  const std::string fabric = "topology: {kind: leaf_spine, radix: 8}\nhosts: {count: 16}\n";
  const ResourceEstimate perm =
      estimate_resources(scenario_of(fabric + "workload: {kind: pattern, pattern: permutation}\n"));
  EXPECT_EQ(perm.messages, 16);
  EXPECT_EQ(perm.qps, 16);
  const ResourceEstimate a2a = estimate_resources(
      scenario_of(fabric + "workload: {kind: pattern, pattern: all_to_all, flow_size: 4KiB}\n"));
  EXPECT_EQ(a2a.messages, 16 * 15);
  EXPECT_EQ(a2a.qps, 16 * 15);
  const ResourceEstimate incast = estimate_resources(scenario_of(
      fabric + "workload: {kind: pattern, pattern: incast, senders: 5, receiver: 0}\n"));
  EXPECT_EQ(incast.messages, 5);
  const ResourceEstimate list = estimate_resources(
      scenario_of(fabric + "workload:\n  kind: pattern\n  pattern: flows\n"
                           "  flows: [[1, 0, 1MB, 0us], [2, 0, 1MB, 1us], [1, 0, 1MB, 2us]]\n"));
  EXPECT_EQ(list.messages, 3);
  EXPECT_LE(list.qps, 3);
}

// Poisson: the estimate is the mean count plus 4 sigma (+1), so it covers the real draw and is
// not far above it. Mean = NICs x load x rate x duration / (8 x mean size) =
// 16 x 0.5 x 100e9 x 1e-3 / (8 x 64 KiB) = 1525.9.
TEST(ResourceEstimate, PoissonCountBoundsTheDrawnFlows) {
  const Scenario sc = scenario_of(
      "fabric: {link: {rate: 100Gbps}}\ntopology: {kind: leaf_spine, radix: 8}\n"
      "hosts: {count: 16}\n"
      "workload: {kind: pattern, pattern: poisson, load: 0.5, duration: 1ms, flow_size: 64KiB}\n");
  const ResourceEstimate e = estimate_resources(sc);
  const double mean = 16 * 0.5 * 100e9 * 1e-3 / (8.0 * 65536);
  EXPECT_EQ(e.messages, static_cast<int64_t>(std::ceil(mean + 4 * std::sqrt(mean) + 1)));
  const auto drawn = workload::plan_pattern(sc.workload, 16, sc.link.rate_bps, sc.seed);
  EXPECT_GE(e.messages, static_cast<int64_t>(drawn.size()));
  EXPECT_LE(e.messages, static_cast<int64_t>(drawn.size()) * 1.2);
}

// Packets held at once: at most the traffic (its bytes in MTU packets plus one per message)
// and at most what the switches' buffers hold; each slot a Packet, two slots per packet for
// the rings' power-of-two capacity.
TEST(ResourceEstimate, PacketsAreBoundedByTrafficAndByBuffers) {
  const std::string fabric =
      "fabric: {switch: {buffer: 64MiB}, roce: {mtu: 4096B}}\n"
      "topology: {kind: leaf_spine, radix: 8}\nhosts: {count: 16}\n";
  // 16 flows x 1 MiB = 16 x 256 MTU packets + 16 = 4112 << 6 switches x 64 MiB / ~4 KiB.
  const ResourceEstimate small = estimate_resources(
      scenario_of(fabric + "workload: {kind: pattern, pattern: permutation, flow_size: 1MiB}\n"));
  EXPECT_EQ(small.packets, 16 * 256 + 16);
  EXPECT_EQ(part(small, "packets"), 2 * small.packets * static_cast<int64_t>(sizeof(net::Packet)));
  // 16 x 1 GiB of traffic: the 6 switches' buffers bound it, 64 MiB each in frames of 4096
  // bytes of payload plus the RoCEv2 headers (at least 58 bytes: Ethernet 14 + FCS 4, IPv4 20,
  // UDP 8, BTH 12).
  const ResourceEstimate big = estimate_resources(
      scenario_of(fabric + "workload: {kind: pattern, pattern: permutation, flow_size: 1GiB}\n"));
  EXPECT_EQ(big.switches, 6) << "4 leaves of 4 NICs; their 16 uplinks fill 2 spines of 8 ports";
  EXPECT_LE(big.packets, 6 * (64ll << 20) / (4096 + 58));
  EXPECT_GE(big.packets, 6 * (64ll << 20) / (4096 + 200));
}

// A capture keeps one CapturedFrame per frame (and on InfiniBand its flow-control packets).
TEST(ResourceEstimate, CaptureScalesWithItsFrameLimit) {
  const std::string base =
      "topology: {kind: leaf_spine, radix: 8}\nhosts: {count: 16}\nworkload: {kind: collective}\n";
  const int64_t none = part(estimate_resources(scenario_of(base)), "capture");
  const int64_t some = part(
      estimate_resources(scenario_of(base + "outputs: {pcap: {frames: 100000}}\n")), "capture");
  EXPECT_EQ(none, 0);
  EXPECT_GE(some, 100000 * static_cast<int64_t>(sizeof(CapturedFrame)));
  EXPECT_LE(some, 3 * 100000 * static_cast<int64_t>(sizeof(CapturedFrame)));
}

// The report's cases are estimated far beyond a machine, at once, without building anything.
// Evidence that nothing was built: this process's peak RSS barely moves (a 500k-host fabric
// alone would take gigabytes). Wall-clock bounds were used before; they fail under load.
int64_t self_peak_rss_bytes() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<int64_t>(u.ru_maxrss) * 1024;  // Linux: kilobytes
}

TEST(ResourceEstimate, HugeScenariosAreEstimatedWithoutBuildingThem) {
  const int64_t rss_before = self_peak_rss_bytes();
  const ResourceEstimate hosts = estimate_resources(
      scenario_of("topology: {kind: leaf_spine, radix: 1000}\nhosts: {count: 500000}\n"
                  "workload: {kind: pattern, pattern: permutation}\n"));
  // 500k NIC cables + 1000 leaves x 500 spines = 1M cables, 2M ports of Port + PortQueues.
  EXPECT_EQ(hosts.cables, 1'000'000);
  EXPECT_GE(part(hosts, "topology"),
            2'000'000 * static_cast<int64_t>(sizeof(net::Port) + sizeof(net::PortQueues)));
  const ResourceEstimate slices = estimate_resources(
      scenario_of("topology: {kind: leaf_spine, radix: 16}\nhosts: {count: 128}\n"
                  "workload: {kind: collective, size: 64MiB, slice: 512B}\n"));
  // 128 ranks x 254 steps x (64 MiB / 128 / 512 B = 1024) slices (1-byte slices exceed the
  // 32-bit message ids: resolve/ranges.h refuses them before any estimate).
  EXPECT_EQ(slices.messages, 128ll * 254 * 1024);
  EXPECT_GE(slices.peak_bytes(),
            slices.messages * static_cast<int64_t>(sizeof(transport::Message)));
  EXPECT_LT(self_peak_rss_bytes() - rss_before, int64_t{64} << 20)
      << "closed forms only: nothing built";
  Scenario list = scenario_of(
      "topology: {kind: leaf_spine, radix: 16}\nhosts: {count: 128}\n"
      "workload: {kind: pattern, pattern: flows, flows: [[1, 0, 4KiB, 0us]]}\n");
  list.workload.flows.assign(1'660'000, list.workload.flows.front());
  const int64_t rss_list = self_peak_rss_bytes();  // the list itself: 1.66 M x 32 B
  const ResourceEstimate flows = estimate_resources(list);
  EXPECT_EQ(flows.messages, 1'660'000);
  EXPECT_GE(flows.peak_bytes(),
            1'660'000 * static_cast<int64_t>(sizeof(transport::Message) + sizeof(FlowRecord) +
                                             sizeof(workload::PlannedFlow)));
  // Building the run would hold a message, a flow record and a planned flow per flow (~0.5
  // GB); the estimate stays within one more copy of the list (it takes 53 MB more: it copies
  // the scenario, flow list included, which is measured here and left as it is).
  EXPECT_LT(self_peak_rss_bytes() - rss_list,
            2 * 1'660'000 * static_cast<int64_t>(sizeof(workload::ExplicitFlow)))
      << "the 1.66M-flow list is summed, not planned";
}

// Counts whose bytes do not fit the arithmetic are refused with the key that makes them so.
TEST(ResourceEstimate, OverflowingCountsAreRefusedWithTheirKey) {
  // 2^31 - 1 NICs (radix 65536 leaf-spine holds 2^31): all-to-all pairs ~ 4.6e18 flows of
  // 1 MiB: their bytes overflow first.
  // The input ranges (radix <= 1024, hosts <= 2^24, 32-bit message ids) refuse these before
  // any estimate; the estimate must still never wrap when called on an unchecked Scenario.
  Scenario all = scenario_of(
      "topology: {kind: leaf_spine, radix: 16}\nhosts: {count: 16}\n"
      "workload: {kind: pattern, pattern: all_to_all}\n");
  all.topology.radix = 65536;
  all.topology.hosts = 2147483647;
  try {
    estimate_resources(all);
    FAIL() << "all-to-all over 2^31 NICs was estimated";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key_path(), "workload.flow_size");
    EXPECT_NE(std::string(e.what()).find("more than 4 EiB"), std::string::npos) << e.what();
  }
  Scenario ring = scenario_of(
      "topology: {kind: leaf_spine, radix: 16}\nhosts: {count: 16}\n"
      "workload: {kind: collective, size: 1GiB}\n");
  ring.workload.slice_bytes = 1;
  ring.topology.radix = 65536;
  ring.topology.hosts = 100000000;
  try {
    estimate_resources(ring);
    FAIL() << "1e8 ranks x 2e8 steps x 11 slices of Message records was estimated";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key_path(), "workload.slice");
  }
}

TEST(ResourceEstimate, DescribesTheLargestPartsFirst) {
  ResourceEstimate e;
  e.parts = {{"topology", 3 << 20, "hosts.count", {}},
             {"routing", 5 << 20, "hosts.count", {}},
             {"events", 10, "hosts.count", {}}};
  EXPECT_EQ(describe_parts(e), "routing 5.000 MiB, topology 3.000 MiB") << "tiny parts left out";
  EXPECT_EQ(e.largest().name, "routing");
  e.output_bytes = 10 << 20;
  EXPECT_EQ(e.peak_bytes(), 10 << 20) << "outputs are written after the simulation is freed";
  EXPECT_NE(describe_parts(e).find("writing outputs 10.00 MiB"), std::string::npos);
}

TEST(ResourceEstimate, ReadsTheMachine) {
  EXPECT_GT(current_rss_bytes(), 0) << "/proc/self/statm";
  EXPECT_GT(available_memory_bytes(), 0) << "/proc/meminfo MemAvailable";
  EXPECT_GE(code_to_page_in_bytes(), 0);
}

}  // namespace resources_test
}  // namespace fabricsim::scenario
