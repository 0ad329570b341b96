// Link utilization per tier (scenario/link_load.h, RunResult::links) against one flow whose
// wire bytes are computed here from the wire format (SPEC §8), not read from the simulator.
//
//   3-tier k=4 fat-tree, 16 NICs, 100 Gb/s:
//          core  core  core  core                 tier 3
//         agg agg | agg agg | ... (4 pods)         tier 2
//         edge edge | edge edge | ...              tier 1
//         NIC0 NIC1  NIC2 NIC3 ... NIC15           tier 0
//
// NIC0 -> NIC15 crosses the core: the data takes exactly one port of each of the six groups
// (NIC->t1, t1->t2, t2->t3 up; t3->t2, t2->t1, t1->NIC down) and the ACKs one port of each on
// the way back. Over the span T = the flow's FCT, each data port's utilization is
// wire bytes x 8 / (rate x T), and each group's mean is (data + ACK wire bytes) x 8 / (rate x T)
// divided by the group's port count.
#include "scenario/link_load.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <utility>

#include "scenario/run.h"
#include "scenario/simulation.h"

namespace fabricsim {
namespace {

constexpr int64_t kRateBps = 100'000'000'000;
constexpr int64_t kAckWireBytes = 86;  // SPEC §8: an ACK is 86 bytes on the wire

scenario::Scenario fat_tree_k4() {
  scenario::Scenario sc;
  sc.topology.tiers = 3;
  sc.topology.radix = 4;
  sc.topology.hosts = 16;
  sc.link.rate_bps = kRateBps;
  return sc;
}

// Wire bytes of one RDMA WRITE: 82 bytes of preamble, IFG and headers per packet, 16 more of
// RETH on the first (SPEC §8). `size` and `mtu` are multiples of 4, so no BTH padding.
int64_t write_wire_bytes(int64_t size, int64_t mtu) {
  const int64_t packets = (size + mtu - 1) / mtu;
  return size + 82 * packets + 16;
}

double utilization(int64_t wire_bytes, int64_t span_ps) {
  return static_cast<double>(wire_bytes) * 8.0 / (static_cast<double>(kRateBps) * span_ps * 1e-12);
}

std::string group_name(const scenario::LinkGroupLoad& g) {
  return std::string(g.direction == scenario::LinkDirection::kUp ? "up" : "down") + " of tier " +
         std::to_string(g.tier);
}

TEST(LinkLoad, SingleFlowPathUtilizationIsItsWireBytesOverTheSpan) {
  const int64_t size = 1'000'000;
  scenario::Simulation sim(fat_tree_k4());
  ASSERT_EQ(sim.routes().switch_hops(0, 15), 5) << "test topology: NIC0 -> NIC15 crosses a core";
  const uint32_t msg = sim.transport().post(0, 15, size, 0);
  ASSERT_TRUE(sim.run()) << "one flow on an idle fabric finishes";
  const transport::Message& m = sim.transport().message(msg);
  const int64_t span_ps = m.rx_done_ps - m.post_ps;
  ASSERT_GT(span_ps, 0) << "the flow takes time";
  const net::Network& net = sim.network();

  const int64_t data_wire = write_wire_bytes(size, 4096);
  const int64_t ack_wire = sim.transport().counters().ack_packets * kAckWireBytes;
  const double expected = utilization(data_wire, span_ps);
  EXPECT_EQ(sim.transport().counters().ack_packets, (size + 4095) / 4096)
      << "ack_every 1: one ACK per data packet";

  // The path: the ports that sent exactly the flow's wire bytes, one per group.
  std::map<std::pair<int, int>, int> data_ports;  // (from tier, to tier) -> ports
  for (uint32_t p = 0; p < net.num_ports(); ++p) {
    if (net.port_tx_bytes(p) != data_wire) continue;
    ++data_ports[{scenario::port_tier(net, p), scenario::port_tier(net, net.port(p).peer)}];
    EXPECT_NEAR(scenario::port_utilization(net, p, span_ps), expected, 1e-12 * expected)
        << "port " << p << " on the data path: wire bytes x 8 / (rate x T)";
  }
  const std::map<std::pair<int, int>, int> path = {{{0, 1}, 1}, {{1, 2}, 1}, {{2, 3}, 1},
                                                   {{3, 2}, 1}, {{2, 1}, 1}, {{1, 0}, 1}};
  EXPECT_EQ(data_ports, path) << "the data crosses one port per hop of NIC->edge->agg->core->"
                                 "agg->edge->NIC and no other port sends that many bytes";

  const std::vector<scenario::LinkGroupLoad> groups = scenario::link_group_loads(net, span_ps);
  ASSERT_EQ(groups.size(), 6u) << "three tiers of links, up and down";
  // k=4: 16 NIC links, 16 edge-agg cables, 16 agg-core cables; one port per cable per direction.
  for (const scenario::LinkGroupLoad& g : groups) {
    EXPECT_EQ(g.ports, 16) << group_name(g) << ": one port per cable";
    EXPECT_EQ(g.idle_ports, 14) << group_name(g) << ": only the data port and the ACK port sent";
    EXPECT_NEAR(g.max_utilization, expected, 1e-12 * expected)
        << group_name(g) << ": the busiest port is the data port";
    const double mean = utilization(data_wire + ack_wire, span_ps) / 16;
    EXPECT_NEAR(g.mean_utilization, mean, 1e-12 * mean)
        << group_name(g) << ": mean = (data + ACK wire bytes) over 16 ports";
    EXPECT_NEAR(g.imbalance, expected / mean, 1e-9) << group_name(g) << ": imbalance = max / mean";
  }
  EXPECT_EQ(groups[0].tier, 0) << "uplinks first, from the hosts up";
  EXPECT_EQ(groups[0].direction, scenario::LinkDirection::kUp) << "uplinks first";
  EXPECT_EQ(groups[5].tier, 0) << "downlinks last, ending at the hosts";
  EXPECT_EQ(groups[5].direction, scenario::LinkDirection::kDown) << "downlinks last";
  EXPECT_TRUE(scenario::link_group_loads(net, 0).empty()) << "no span, no groups";
}

// Through run_scenario: T in RunResult is the span from the first start to the last finish.
TEST(LinkLoad, RunResultSpanIsFirstStartToLastFinish) {
  scenario::Scenario sc = fat_tree_k4();
  sc.workload.kind = workload::WorkloadKind::kPattern;
  sc.workload.pattern = workload::PatternKind::kIncast;
  sc.workload.incast_senders = 1;  // a single flow, from a random NIC
  sc.workload.incast_receiver = 0;
  sc.workload.flow_size_bytes = 500'000;
  const scenario::RunResult r = scenario::run_scenario(sc);
  ASSERT_TRUE(r.completed) << "one flow finishes";
  ASSERT_EQ(r.flows.size(), 1u) << "incast with one sender is one flow";
  const scenario::FlowRecord& f = r.flows[0];
  EXPECT_EQ(r.links.span_ps, f.finish_ps - f.start_ps) << "T = first start to last finish";
  ASSERT_FALSE(r.links.groups.empty()) << "a run with traffic reports link groups";
  const double expected = utilization(write_wire_bytes(f.size_bytes, 4096), r.links.span_ps);
  const scenario::LinkGroupLoad& host_up = r.links.groups.front();
  const scenario::LinkGroupLoad& host_down = r.links.groups.back();
  ASSERT_EQ(host_up.tier, 0) << "the first group is NIC -> leaf";
  ASSERT_EQ(host_down.tier, 0) << "the last group is leaf -> NIC";
  EXPECT_NEAR(host_up.max_utilization, expected, 1e-12 * expected)
      << "the sender's NIC link carries the flow's wire bytes over T (sender NIC " << f.src_nic
      << ")";
  EXPECT_NEAR(host_down.max_utilization, expected, 1e-12 * expected)
      << "the receiver's link carries the same bytes";
  EXPECT_EQ(host_up.ports, 16) << "one host link per NIC";
  EXPECT_EQ(host_up.idle_ports, 14) << "only the sender (data) and the receiver (ACKs) sent";
}

}  // namespace
}  // namespace fabricsim
