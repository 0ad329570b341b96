// mode: hybrid (engine/hybrid/steady_skip.h, docs/modes.md "Hybrid") against figures derived
// independently: the packet transport's ideal time for a message alone (serialization at the
// payload rate plus the idle path's latency), the bottleneck's payload rate for an incast (the
// last of N senders cannot finish before N x size has crossed it), conservation of bytes, and
// packet mode on the same scenario.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/error.h"
#include "engine/packet/simulation.h"
#include "mode_scenarios.h"
#include "resolve/resolve.h"
#include "spec/load.h"

namespace fabricsim::scenario {
namespace hybrid_mode_test {

using mode_scenarios::fat_tree_k4;
using mode_scenarios::kPayloadBps;
using mode_scenarios::kRateBps;

int64_t fct(const Simulation& sim, uint32_t id) {
  const transport::MessageRecord& m = sim.transport().message(id);
  return m.rx_done_ps - m.post_ps;
}

TEST(HybridMode, AMessageAloneIsSkippedAndKeepsItsIdealTime) {
  const int64_t size = 16'000'000;  // 1.3 ms at the payload rate: ~200 base RTTs
  Simulation hybrid(fat_tree_k4(EngineMode::kHybrid));
  const uint32_t id = hybrid.transport().post(0, 15, size, 0);
  ASSERT_TRUE(hybrid.run());
  const Scenario& sc = hybrid.scenario();
  const int64_t ideal =
      hybrid.transport().ideal_fct_ps(size, hybrid.routes().switch_hops(0, 15), sc.link,
                                      sc.switch_config, hybrid.network().nic_config(0));
  const double drain_ps = size * 8.0 / kPayloadBps * 1e12;
  ASSERT_GT(static_cast<double>(ideal), drain_ps);
  // Alone on the path, the stream is steady from its first window: most of it is carried.
  const HybridStats& st = hybrid.hybrid()->stats();
  EXPECT_GE(st.skips, 1);
  EXPECT_GT(static_cast<double>(st.skipped_bytes), 0.8 * size);
  // The skip's rate is the acknowledged PSNs of W windows: within a packet of the line's, so
  // the time stays the ideal one within a few packets' serialization (0.1 % of 1.3 ms).
  EXPECT_NEAR(static_cast<double>(fct(hybrid, id)), static_cast<double>(ideal), 0.001 * ideal);
  // Bytes are conserved: every payload byte counted sent and delivered once.
  const transport::MessageRecord& m = hybrid.transport().message(id);
  EXPECT_EQ(m.sent_bytes, size);
  EXPECT_EQ(m.delivered_bytes, size);
  EXPECT_EQ(hybrid.transport().counters().data_bytes_delivered, size);
  // Each of the six ports of the data path carries the message's wire bytes (SPEC §8: 82
  // bytes per packet and 16 of RETH) within a window's worth of extrapolation.
  const double wire = static_cast<double>(size + 82 * ((size + 4095) / 4096) + 16);
  const net::Network& net = hybrid.network();
  int carrying = 0;
  for (uint32_t p = 0; p < net.num_ports(); ++p) {
    const int64_t b = net.port_tx_bytes(p);
    if (b > size / 2) {
      ++carrying;
      EXPECT_NEAR(static_cast<double>(b), wire, 0.002 * wire) << "port " << p;
    }
  }
  EXPECT_EQ(carrying, 6);
}

// Two streams in opposite directions between NICs 0 and 15: each NIC port sends its own data
// and the ACKs of the stream it receives, ACKs first. Their rates are known without measuring
// (SteadySkip::analytic_rates): the line less the other stream's ACKs, per packet
// (4178 + 84) wire bytes. Both are skipped from their first windows and finish as in packet
// mode.
TEST(HybridMode, StreamsWhoseRatesTheNicPortsSetAreSkippedFromTheStart) {
  const int64_t size = 2'000'000;  // 489 packets: 167 us, ~20 base RTTs
  std::vector<int64_t> f[2];
  double skipped = 0;
  for (const EngineMode mode : {EngineMode::kPacket, EngineMode::kHybrid}) {
    Simulation sim(fat_tree_k4(mode));
    const uint32_t a = sim.transport().post(0, 15, size, 0);
    const uint32_t b = sim.transport().post(15, 0, size, 0);
    ASSERT_TRUE(sim.run());
    f[mode == EngineMode::kHybrid].assign({fct(sim, a), fct(sim, b)});
    if (const SteadySkip* h = sim.hybrid()) {
      skipped = static_cast<double>(h->stats().skipped_bytes) / (2.0 * size);
    }
  }
  // Each stream's data: 489 packets at 100 Gb/s with an ACK (84 wire bytes) between packets.
  const double per_packet_ps = (4178.0 + 84.0) * 8.0 / 100e9 * 1e12;
  for (int i = 0; i < 2; ++i) {
    EXPECT_NEAR(static_cast<double>(f[1][i]), static_cast<double>(f[0][i]), 0.002 * f[0][i]);
    EXPECT_GT(static_cast<double>(f[0][i]), 488 * per_packet_ps) << "the ACKs slow the data";
  }
  EXPECT_GT(skipped, 0.5) << "no W windows of history needed";
}

// Four senders into one receiver (no congestion control, PFC): the receiver's link is the
// bottleneck; packet and hybrid agree per flow, and the last finish is bounded below by the
// bytes over the payload rate.
Scenario incast(EngineMode mode, bool dcqcn) {
  std::string yaml =
      "name: incast4\nseed: 4\nmode: " +
      std::string(mode == EngineMode::kHybrid ? "hybrid" : "packet") +
      "\nfabric:\n  technology: roce\n  link: {rate: 100Gbps, cable: 3m}\n"
      "  switch: {latency: 450ns, buffer: 16MiB}\n"
      "  roce: {mtu: 4096B" +
      std::string(dcqcn ? ", cc: dcqcn, dcqcn_profile: nvidia-default" : "") +
      "}\n  pfc: {enabled: true}\n"
      "topology: {kind: leaf_spine, radix: 8}\nhosts: {count: 16}\n"
      "workload: {kind: pattern, pattern: incast, senders: 4, receiver: 0, flow_size: 25MB}\n";
  return load_scenario_string(yaml, "incast4.yaml").scenario;
}

std::vector<int64_t> finishes(Simulation& sim) {
  sim.start_workload();
  EXPECT_TRUE(sim.run());
  std::vector<int64_t> f;
  for (uint32_t id = 0; id < sim.transport().num_messages(); ++id) f.push_back(fct(sim, id));
  return f;
}

TEST(HybridMode, IncastSharersMatchPacketMode) {
  for (const bool dcqcn : {false, true}) {
    Simulation packet(incast(EngineMode::kPacket, dcqcn));
    Simulation hybrid(incast(EngineMode::kHybrid, dcqcn));
    const std::vector<int64_t> p = finishes(packet);
    const std::vector<int64_t> h = finishes(hybrid);
    ASSERT_EQ(p.size(), 4u);
    ASSERT_EQ(h.size(), 4u);
    const HybridStats& st = hybrid.hybrid()->stats();
    EXPECT_EQ(hybrid.transport().counters().data_bytes_delivered, 4 * 25'000'000);
    if (dcqcn) {
      // DCQCN holds the four below the line rate: rate-controlled QPs are skipped only at
      // rates known without measuring, so nothing is, and hybrid is packet mode exactly.
      EXPECT_EQ(st.skips, 0);
      EXPECT_EQ(h, p);
      continue;
    }
    // Without congestion control PFC shares the receiver's link by ingress port, steadily once
    // the buffers have filled: per flow within 1 %, and the last finish bounded below by the
    // bytes over the payload rate.
    const double floor_ps = 4 * 25e6 * 8.0 / kPayloadBps * 1e12;
    int64_t last_p = 0, last_h = 0;
    for (size_t i = 0; i < 4; ++i) {
      last_p = std::max(last_p, p[i]);
      last_h = std::max(last_h, h[i]);
      EXPECT_NEAR(static_cast<double>(h[i]), static_cast<double>(p[i]), 0.01 * p[i])
          << "flow " << i;
    }
    EXPECT_GT(static_cast<double>(last_h), floor_ps);
    EXPECT_NEAR(static_cast<double>(last_h), static_cast<double>(last_p), 0.01 * last_p);
    EXPECT_GE(st.skips, 1) << "steady once the queues have filled";
  }
}

// A message posted on the receiver of a skipped stream while the skip runs: its first frame
// reaches a frozen port, which undoes the rest of the skip; both messages then finish as in
// packet mode.
TEST(HybridMode, AMessageReachingASkippedGroupEndsTheSkipThere) {
  const int64_t size = 16'000'000;
  std::vector<int64_t> f[2];
  int64_t cut_short = 0;
  for (const EngineMode mode : {EngineMode::kPacket, EngineMode::kHybrid}) {
    Simulation sim(fat_tree_k4(mode));
    const uint32_t a = sim.transport().post(0, 15, size, 0);
    EXPECT_FALSE(sim.run(400'000'000));  // 400 us in: A alone, steady, skipping
    const uint32_t b = sim.transport().post(4, 15, size / 4, 0);
    ASSERT_TRUE(sim.run());
    f[mode == EngineMode::kHybrid].assign({fct(sim, a), fct(sim, b)});
    if (const SteadySkip* h = sim.hybrid()) cut_short = h->stats().cut_short;
    EXPECT_EQ(sim.transport().counters().data_bytes_delivered, size + size / 4);
  }
  EXPECT_GE(cut_short, 1) << "B reached A's group during a skip";
  for (int i = 0; i < 2; ++i) {
    EXPECT_NEAR(static_cast<double>(f[1][i]), static_cast<double>(f[0][i]), 0.01 * f[0][i])
        << (i == 0 ? "A" : "B");
  }
}

TEST(HybridMode, SameSeedSameResult) {
  Simulation a(incast(EngineMode::kHybrid, true));
  Simulation b(incast(EngineMode::kHybrid, true));
  EXPECT_EQ(finishes(a), finishes(b));
  EXPECT_EQ(a.hybrid()->stats().skipped_packets, b.hybrid()->stats().skipped_packets);
  EXPECT_EQ(a.events(), b.events());
}

TEST(HybridMode, WhatItCannotCarryIsRefusedNamingTheKey) {
  const auto key_of = [](const std::string& sets) {
    std::string yaml =
        "name: r\nmode: hybrid\ntopology: {kind: fat_tree, tiers: 2, radix: 4}\n"
        "hosts: {count: 8}\nworkload: {kind: pattern, pattern: permutation, flow_size: 1MB}\n";
    try {
      const LoadedScenario l = load_scenario_string(yaml, "r.yaml", {sets});
      resolve(l.scenario);
    } catch (const InputError& e) {
      return e.key_path();
    }
    return std::string("accepted");
  };
  EXPECT_EQ(key_of("fabric.technology=uet"), "fabric.technology");
  EXPECT_EQ(key_of("fabric.technology=tcp"), "fabric.technology");
  EXPECT_EQ(key_of("fabric.roce.cc=swift"), "fabric.roce.cc");
  EXPECT_EQ(key_of("fabric.roce.spray=true"), "fabric.roce.spray");
  EXPECT_EQ(key_of("routing.load_balancing=adaptive"), "routing.load_balancing");
  EXPECT_EQ(key_of("fabric.roce.cc=dcqcn"), "accepted");
  EXPECT_EQ(key_of("fabric.technology=ib"), "accepted");
}

}  // namespace hybrid_mode_test
}  // namespace fabricsim::scenario
