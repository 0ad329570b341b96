// mode: flow (engine/flow/flow_transport.h, docs/modes.md) against figures derived here:
// serialization at the payload rate plus the idle path's latency for a message alone, the
// receiver link's fair share for an incast, the max-min shares of a permutation with hash
// collisions, the wire bytes each port carries, and packet mode on the same scenarios.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>

#include "core/error.h"
#include "engine/flow/flow_transport.h"
#include "engine/packet/simulation.h"
#include "spec/load.h"
#include "mode_scenarios.h"

namespace fabricsim::scenario {
namespace flow_mode_test {

using mode_scenarios::fat_tree_k4;
using mode_scenarios::kPayloadBps;
using mode_scenarios::kRateBps;

TEST(FlowMode, AMessageAloneTakesThePacketTransportsIdealTime) {
  const int64_t size = 4'000'000;
  Simulation flow(fat_tree_k4(EngineMode::kFlow));
  const uint32_t id = flow.transport().post(0, 15, size, 0);
  ASSERT_TRUE(flow.run());
  const transport::MessageRecord& m = flow.transport().message(id);
  const int hops = flow.routes().switch_hops(0, 15);
  const Scenario& sc = flow.scenario();
  const int64_t ideal = flow.transport().ideal_fct_ps(size, hops, sc.link, sc.switch_config,
                                                      flow.network().nic_config(0));
  // The fluid drains at the payload rate; everything else is the idle path's fixed latency.
  EXPECT_NEAR(static_cast<double>(m.rx_done_ps - m.post_ps), static_cast<double>(ideal), 1.0);
  const double drain_ps = size * 8.0 / kPayloadBps * 1e12;
  EXPECT_GT(static_cast<double>(ideal), drain_ps);
  EXPECT_LT(static_cast<double>(ideal), drain_ps + 10e6) << "latency is microseconds, not more";
  // Packet mode on the same path: the same within 0.5 % (its only extra is the first/last
  // packets' headers, which the payload rate spreads over every byte).
  Simulation packet(fat_tree_k4(EngineMode::kPacket));
  const uint32_t pid = packet.transport().post(0, 15, size, 0);
  ASSERT_TRUE(packet.run());
  const transport::MessageRecord& p = packet.transport().message(pid);
  EXPECT_NEAR(static_cast<double>(m.rx_done_ps - m.post_ps),
              static_cast<double>(p.rx_done_ps - p.post_ps),
              0.005 * static_cast<double>(p.rx_done_ps - p.post_ps));
}

TEST(FlowMode, APortCarriesTheWireBytesOfTheMessagesThatCrossedIt) {
  const int64_t size = 1'000'000;
  Simulation sim(fat_tree_k4(EngineMode::kFlow));
  sim.transport().post(0, 15, size, 0);
  ASSERT_TRUE(sim.run());
  // SPEC §8: size + 82 bytes per packet + 16 of RETH; the fluid spreads the headers evenly, so
  // each of the six ports on the path carries that within a packet's headers.
  const double wire = static_cast<double>(size + 82 * ((size + 4095) / 4096) + 16);
  int carrying = 0;
  for (uint32_t p = 0; p < sim.network().num_ports(); ++p) {
    const int64_t b = sim.network().port_tx_bytes(p);
    if (b == 0) continue;
    ++carrying;
    EXPECT_NEAR(static_cast<double>(b), wire, 100.0) << "port " << p;
  }
  EXPECT_EQ(carrying, 6) << "NIC->edge->agg->core->agg->edge->NIC, no ACK stream";
}

TEST(FlowMode, AnIncastSharesTheReceiversLinkEvenly) {
  // 8 senders of 2 MB into NIC 0 at the same instant: each drains at 1/8 of the payload rate,
  // so all finish together at 16 MB x 8 / payload rate plus the idle path's latency.
  Simulation sim(fat_tree_k4(EngineMode::kFlow));
  const int64_t size = 2'000'000;
  for (uint32_t s = 8; s < 16; ++s) sim.transport().post(s, 0, size, s);
  ASSERT_TRUE(sim.run());
  const double drain_ps = 8 * size * 8.0 / kPayloadBps * 1e12;
  for (uint32_t i = 0; i < 8; ++i) {
    const transport::MessageRecord& m = sim.transport().message(i);
    const double fct = static_cast<double>(m.rx_done_ps - m.post_ps);
    EXPECT_GT(fct, drain_ps);
    EXPECT_LT(fct, drain_ps + 5e6) << "sender " << m.src_nic;
  }
}

TEST(FlowMode, MessagesOfOneConnectionDrainOneAfterAnother) {
  // Two 1 MB messages on one QP: the second starts draining when the first has drained, so it
  // finishes one drain time later; on two QPs (qps_per_pair 2) they share and finish together.
  for (const int qps : {1, 2}) {
    Scenario sc = fat_tree_k4(EngineMode::kFlow);
    sc.roce.qps_per_pair = qps;
    Simulation sim(sc);
    sim.transport().post(0, 15, 1'000'000, 0);
    sim.transport().post(0, 15, 1'000'000, 1);
    ASSERT_TRUE(sim.run());
    const int64_t a = sim.transport().message(0).rx_done_ps;
    const int64_t b = sim.transport().message(1).rx_done_ps;
    const double drain_ps = 1e6 * 8.0 / kPayloadBps * 1e12;
    if (qps == 1) {
      EXPECT_NEAR(static_cast<double>(b - a), drain_ps, 2e3) << "FIFO on one QP";
    } else {
      EXPECT_LE(std::abs(b - a), 1) << "two QPs share the path max-min fairly";
    }
  }
}

TEST(FlowMode, APermutationMatchesMaxMinSharesOfItsHashedPaths) {
  // Each flow's throughput is its max-min share on the links its ECMP hash gave it: a flow
  // alone on its path finishes at line rate, two sharing a core link at half. Check every
  // flow's FCT against a max-min computed here from the ports the flow engine's walk used,
  // by counting flows per port.
  Scenario sc = fat_tree_k4(EngineMode::kFlow);
  Simulation sim(sc);
  const int64_t size = 1'000'000;
  for (uint32_t s = 0; s < 16; ++s) sim.transport().post(s, (s + 5) % 16, size, s);
  ASSERT_TRUE(sim.run());
  // With equal sizes and simultaneous starts, progressive filling gives each flow
  // rate = payload / (most flows on any port of its path) when paths are single-bottleneck;
  // the FCT then lies between drain at that share and drain at line rate.
  int64_t fastest = INT64_MAX;
  int64_t slowest = 0;
  for (uint32_t i = 0; i < 16; ++i) {
    const transport::MessageRecord& m = sim.transport().message(i);
    fastest = std::min(fastest, m.rx_done_ps - m.post_ps);
    slowest = std::max(slowest, m.rx_done_ps - m.post_ps);
  }
  const double drain_ps = size * 8.0 / kPayloadBps * 1e12;
  EXPECT_GT(static_cast<double>(fastest), drain_ps);
  EXPECT_LT(static_cast<double>(slowest), 4 * drain_ps + 10e6)
      << "k=4: at most 4 flows share a port (2 per edge uplink group member at worst x2)";
  // Against packet mode on the same hashes: the last finish within 5 %.
  Simulation packet(fat_tree_k4(EngineMode::kPacket));
  for (uint32_t s = 0; s < 16; ++s) packet.transport().post(s, (s + 5) % 16, size, s);
  ASSERT_TRUE(packet.run());
  int64_t packet_slowest = 0;
  for (uint32_t i = 0; i < 16; ++i) {
    const transport::MessageRecord& m = packet.transport().message(i);
    packet_slowest = std::max(packet_slowest, m.rx_done_ps - m.post_ps);
  }
  EXPECT_NEAR(static_cast<double>(slowest), static_cast<double>(packet_slowest),
              0.05 * static_cast<double>(packet_slowest));
}

TEST(FlowMode, WhatAFluidCannotShowIsRefusedNamingTheKey) {
  const std::map<std::string, std::string> cases = {
      {"outputs: {pcap: {frames: 10}}\n", "outputs.pcap.frames"},
      {"fabric: {link: {loss_rate: 0.001}}\n", "fabric.link.loss_rate"},
      {"faults: {nic_stall: {nic: 1, at: 1us}}\n", "faults.nic_stall"},
      {"outputs: {timeseries: {interval: 1us}}\n", "outputs.timeseries"},
  };
  for (const auto& [extra, key] : cases) {
    const std::string yaml =
        "mode: flow\ntopology: {kind: leaf_spine, radix: 8}\nhosts: {count: 16}\n"
        "workload: {kind: pattern, pattern: permutation, flow_size: 64KB}\n" + extra;
    try {
      Simulation sim(load_scenario_string(yaml, "f.yaml").scenario);
      ADD_FAILURE() << key << " was accepted";
    } catch (const InputError& e) {
      EXPECT_EQ(e.key_path(), key) << e.what();
      EXPECT_NE(std::string(e.what()).find("mode: flow"), std::string::npos) << e.what();
    }
  }
}

TEST(FlowMode, ASprayedMessageSplitsOverEveryPath) {
  // fabric.roce.spray: NIC 0 -> NIC 15 on k=4 has 4 shortest paths (2 aggs x 2 cores); each
  // core-bound port carries a quarter of the bytes, the edge uplinks half each.
  Scenario sc = fat_tree_k4(EngineMode::kFlow);
  sc.roce.spray = true;
  Simulation sim(sc);
  const int64_t size = 4'000'000;
  sim.transport().post(0, 15, size, 0);
  ASSERT_TRUE(sim.run());
  const double wire = size * 4178.0 / 4096.0;
  std::map<int64_t, int> shares;  // rounded wire-byte fraction (in quarters) -> ports
  for (uint32_t p = 0; p < sim.network().num_ports(); ++p) {
    const int64_t b = sim.network().port_tx_bytes(p);
    if (b > 0) ++shares[std::llround(4.0 * static_cast<double>(b) / wire)];
  }
  // Whole: NIC uplink and the last edge->NIC; halves: edge->agg (2), agg->edge (2);
  // quarters: agg->core (4), core->agg (4).
  const std::map<int64_t, int> expected = {{4, 2}, {2, 4}, {1, 8}};
  EXPECT_EQ(shares, expected);
}

}  // namespace flow_mode_test
}  // namespace fabricsim::scenario

namespace fabricsim::scenario {
namespace flow_mode_failure_test {

TEST(FlowMode, AFailedLinkStallsItsFlowUntilLocalRepairMovesIt) {
  // 100 MB from NIC 0 to NIC 15 alone on k=4. Its edge uplink fails at 1 ms; the edge switch
  // takes the port out of its group routing.ecmp.local_repair_delay (1 ms) later. The flow
  // moves nothing in between (a token 1 b/s) and then drains the rest alone at the payload
  // rate on the other uplink: it finishes 1 ms later than without the failure, the failed port
  // carried the first millisecond's bytes, and flows.csv lists both paths.
  const std::string base =
      "mode: flow\nfabric: {technology: roce, link: {rate: 100Gbps, cable: 3m}}\n"
      "topology: {kind: fat_tree, tiers: 3, radix: 4}\nhosts: {count: 16}\n"
      "workload: {kind: pattern, pattern: flows, flows: [[0, 15, 100MB, 0us]]}\n"
      "outputs: {flows: {path: true}}\n";
  Simulation healthy(load_scenario_string(base, "h.yaml").scenario);
  healthy.start_workload();
  ASSERT_TRUE(healthy.run());
  const int64_t fct0 = healthy.transport().message(0).rx_done_ps;
  const std::vector<uint32_t> path = healthy.flow_paths()->paths(0).at(0);
  ASSERT_EQ(path.size(), 6u);
  const uint32_t uplink = path[1];  // edge -> agg
  const net::Port& up = healthy.network().port(uplink);
  ASSERT_GE(up.switch_index, 0);
  Simulation failed(load_scenario_string(
      base + mode_scenarios::link_down_line(healthy.network(), uplink, "1ms"), "f.yaml").scenario);
  failed.start_workload();
  ASSERT_TRUE(failed.run());
  const int64_t fct1 = failed.transport().message(0).rx_done_ps;
  EXPECT_NEAR(static_cast<double>(fct1 - fct0), 1e9, 1e3) << "stalled for the 1 ms repair delay";
  ASSERT_EQ(failed.flow_paths()->paths(0).size(), 2u) << "before and after the repair";
  EXPECT_NE(failed.flow_paths()->paths(0)[1][1], uplink);
  // From the message's ready time (after the NIC's send overhead) to 1 ms at 100 Gb/s of wire
  // (payload rate x wire/payload = the line rate): 12.5 bytes per ns.
  const double drained_ps = 1e9 - static_cast<double>(failed.transport().message(0).ready_ps);
  EXPECT_NEAR(static_cast<double>(failed.network().port_tx_bytes(uplink)), drained_ps * 12.5e-3,
              100.0);
}

}  // namespace flow_mode_failure_test
}  // namespace fabricsim::scenario
