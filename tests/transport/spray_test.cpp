// RoCE per-packet spraying, the responder's bounded reorder buffer and its go-back-N fallback
// (transport/rc_spray.cpp; issue 11 part 3: "strict in-order delivery hampers load balancing").
//
// Reorder buffer. One sprayed flow crosses a 2-tier leaf-spine (k = 4: two spines) from NIC 0
// to NIC 2; the cable from NIC 0's leaf up to one spine is made D = 10 us longer than the other:
//
//        spine0    spine1
//          |  \    /  |
//          |   \  /   |           leaf0 -> spine1: +D propagation
//          |    \/    |
//        leaf0      leaf1
//        /   \      /   \ .
//     NIC0  NIC1  NIC2  NIC3      flow NIC0 -> NIC2, 4 MiB, sprayed over both spines
//
// Each path carries about half of a line-rate flow, so nothing queues and the only spread is D.
// A packet on the fast path arrives D before one sent at the same time on the slow one, and in
// D the sender emits D / t_pkt packets: the responder sees PSNs up to that far ahead of the
// oldest slow-path packet still on the cable. t_pkt is a full frame's serialization: RoCEv2
// frame = 14 Ethernet + 20 IPv4 + 8 UDP + 12 BTH + 4096 payload + 4 ICRC + 4 FCS = 4158 bytes,
// plus 8 preamble + 12 IFG = 4178 bytes on the wire (IEEE 802.3, IBTA Annex A17), 334.24 ns at
// 100 Gb/s; D / t_pkt = 29.9 packets. A reorder buffer of 8 is below it (fallbacks); one of 64
// is above it with a margin of two for the split between paths (no fallback).
//
// Permutation. On a 2-tier k = 8 leaf-spine (16 NICs, 4 spines) every NIC sends one long flow
// to another. Per-flow ECMP puts some flows on a shared uplink or downlink for their whole life
// (a fraction (1 - 1/n)^n of n paths stays idle, SPEC §8), so the slowest flow gets half the
// line rate or less; spraying spreads every flow over all four spines.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <vector>

#include "core/error.h"
#include "engine/run.h"
#include "engine/packet/simulation.h"
#include "transport/rc.h"

namespace fabricsim {
namespace spray_test {

constexpr int64_t kRateBps = 100'000'000'000;
constexpr int64_t kExtraDelayPs = 10'000'000;  // D = 10 us
constexpr int64_t kFlowBytes = 4 << 20;

// The independently derived spread, in packets: D over a full RoCEv2 frame's wire time.
double spread_packets() {
  const double wire_bytes = 14 + 20 + 8 + 12 + 4096 + 4 + 4 + 8 + 12;  // 4178
  const double t_pkt_ps = wire_bytes * 8 * 1e12 / static_cast<double>(kRateBps);
  return static_cast<double>(kExtraDelayPs) / t_pkt_ps;
}

scenario::Scenario two_path_flow(bool out_of_order, int reorder_buffer) {
  scenario::Scenario sc;
  sc.topology.tiers = 2;
  sc.topology.radix = 4;
  sc.topology.hosts = 4;
  // Two spines, one cable each (the partial tree's default would be one spine with two
  // parallel cables: the same two paths, numbered differently).
  sc.topology.upper_tiers = topo::UpperTiers::kFull;
  sc.link.rate_bps = kRateBps;
  sc.roce.spray = true;
  sc.roce.out_of_order = out_of_order;
  sc.roce.reorder_buffer_packets = reorder_buffer;
  sc.roce.ack_timeout_exponent = 10;  // 4.2 ms: a stall would show as a timeout, not hang
  sc.workload.kind = workload::WorkloadKind::kPattern;
  sc.workload.pattern = workload::PatternKind::kFlows;
  sc.workload.flows = {{.src = 0, .dst = 2, .size_bytes = kFlowBytes, .start_ps = 0}};
  return sc;
}

struct TwoPathRun {
  transport::TransportCounters counters;
  int64_t fct_ps = -1;
  std::vector<int> deliveries;  // per message: how often the application saw it complete
  int64_t delivered_bytes = 0;
  int64_t sent_bytes = 0;
  int64_t dropped_bytes = 0;
};

TwoPathRun run_two_path(bool out_of_order, int reorder_buffer) {
  scenario::Simulation sim(two_path_flow(out_of_order, reorder_buffer));
  net::Network& net = sim.network();
  // Lengthen leaf0's last uplink (to a spine: its far end is not a NIC).
  const uint32_t leaf = net.leaf_switch(net.leaf_slot_of_nic(0));
  const uint32_t node = net.switch_node(leaf);
  uint32_t uplink = net::kNoPort;
  for (uint32_t p = net.node_first_port(node); p < net.node_first_port(node) +
                                                      net.node_port_count(node); ++p) {
    if (!net.port(p).far_is_nic) uplink = p;
  }
  EXPECT_NE(uplink, net::kNoPort);
  net.port(uplink).delay_ps += kExtraDelayPs;

  TwoPathRun r;
  transport::Transport& t = sim.transport();
  sim.start_workload();
  auto inner = t.on_delivered;
  t.on_delivered = [&r, inner](uint32_t msg) {
    if (r.deliveries.size() <= msg) r.deliveries.resize(msg + 1, 0);
    ++r.deliveries[msg];
    if (inner) inner(msg);
  };
  EXPECT_TRUE(sim.run()) << "the flow must finish";
  r.counters = t.counters();
  const transport::MessageRecord& m = t.message(0);
  r.fct_ps = m.rx_done_ps - m.post_ps;
  r.delivered_bytes = m.delivered_bytes;
  r.sent_bytes = m.sent_bytes;
  r.dropped_bytes = m.dropped_bytes;
  return r;
}

TEST(Spray, ReorderBufferBelowThePathSpreadFallsBackToGoBackN) {
  const double spread = spread_packets();
  ASSERT_GT(spread, 2 * 8.0) << "the small buffer must be well below the spread";
  ASSERT_LT(2 * spread, 64.0) << "the large buffer must be well above it";
  const TwoPathRun small = run_two_path(true, 8);
  const TwoPathRun large = run_two_path(true, 64);
  const TwoPathRun none = run_two_path(false, 4096);  // no reorder buffer at all
  std::cout << "path spread " << spread << " packets; go-back-N fallbacks: buffer 8 -> "
            << small.counters.go_back_n_fallbacks << " (" << small.counters.go_back_n_retransmits
            << " resent, FCT " << small.fct_ps * 1e-6 << " us), buffer 64 -> "
            << large.counters.go_back_n_fallbacks << " (FCT " << large.fct_ps * 1e-6
            << " us), no buffer -> " << none.counters.go_back_n_fallbacks << " ("
            << none.counters.go_back_n_retransmits << " resent, FCT " << none.fct_ps * 1e-6
            << " us)\n";

  EXPECT_GT(small.counters.go_back_n_fallbacks, 0) << "buffer 8 < spread: must overflow";
  EXPECT_GT(small.counters.go_back_n_retransmits, 0) << "each fallback resends from epsn";
  EXPECT_GT(small.counters.ooo_window_drops, 0);
  EXPECT_GT(small.counters.out_of_order_packets, 0) << "it still places what fits";
  EXPECT_EQ(large.counters.go_back_n_fallbacks, 0) << "buffer 64 > spread: never overflows";
  EXPECT_EQ(large.counters.retransmitted_packets, 0) << "nothing to resend";
  EXPECT_GT(large.counters.out_of_order_packets, 0) << "the fast path does run ahead";
  EXPECT_GT(none.counters.go_back_n_fallbacks, 0) << "without a buffer every gap is a NAK";
  EXPECT_EQ(none.counters.out_of_order_packets, 0);
  for (const TwoPathRun* r : {&small, &large, &none}) {
    EXPECT_EQ(r->counters.timeouts, 0) << "fallbacks recover by NAK, not by the timer";
    ASSERT_EQ(r->deliveries.size(), 1u);
    EXPECT_EQ(r->deliveries[0], 1) << "the message completes exactly once";
    EXPECT_EQ(r->sent_bytes, r->delivered_bytes + r->dropped_bytes) << "conservation";
  }
  // With the large buffer the flow runs at line rate: its FCT is the serialization of 1024
  // full frames (the first carries a 16-byte RETH) plus at most D and the base latency.
  const int64_t serialization_ps = static_cast<int64_t>(
      (1024 * 4178.0 + 16) * 8 * 1e12 / static_cast<double>(kRateBps));
  EXPECT_LT(large.fct_ps, serialization_ps + kExtraDelayPs + 5'000'000)
      << "a large enough buffer hides the spread";
  EXPECT_GT(small.fct_ps, large.fct_ps) << "go-back-N costs time";
}

scenario::Scenario permutation(bool spray, int spray_paths = 64) {
  scenario::Scenario sc;
  sc.topology.tiers = 2;
  sc.topology.radix = 8;
  sc.topology.hosts = 16;
  sc.link.rate_bps = kRateBps;
  sc.switch_config.pfc.enabled = true;  // lossless, so the comparison is of paths, not of drops
  sc.roce.spray = spray;
  sc.roce.out_of_order = spray;
  sc.roce.spray_paths = spray_paths;
  sc.workload.kind = workload::WorkloadKind::kPattern;
  sc.workload.pattern = workload::PatternKind::kPermutation;
  sc.workload.flow_size_bytes = kFlowBytes;
  return sc;
}

// The slowest flow's goodput (payload over its completion time) as a fraction of line rate.
double min_goodput(const scenario::RunResult& r) {
  double worst = 1e9;
  for (const scenario::FlowRecord& f : r.flows) {
    worst = std::min(worst, f.size_bytes * 8 * 1e12 / static_cast<double>(f.fct_ps()) /
                                static_cast<double>(kRateBps));
  }
  return worst;
}

TEST(Spray, FallbacksStartExactlyWhereTheBufferIsShorterThanTheSpread) {
  // The fast path delivers a packet while every slow-path packet sent up to D before it is still
  // on the cable: the responder's PSN distance reaches floor(D / t_pkt) = 29, and an arrival is
  // beyond the buffer when its distance >= the buffer. So 29 packets overflow and 30 hold it.
  const int reach = static_cast<int>(spread_packets());
  ASSERT_EQ(reach, 29);
  const TwoPathRun short_by_one = run_two_path(true, reach);
  const TwoPathRun just_enough = run_two_path(true, reach + 1);
  std::cout << "buffer " << reach << ": " << short_by_one.counters.go_back_n_fallbacks
            << " fallbacks; buffer " << reach + 1 << ": "
            << just_enough.counters.go_back_n_fallbacks << "\n";
  EXPECT_GT(short_by_one.counters.go_back_n_fallbacks, 0);
  EXPECT_EQ(just_enough.counters.go_back_n_fallbacks, 0);
}

TEST(Spray, RaisesTheSlowestFlowOfAnEcmpPermutation) {
  const scenario::RunResult ecmp = scenario::run_scenario(permutation(false));
  const scenario::RunResult spray = scenario::run_scenario(permutation(true));
  const scenario::RunResult wide = scenario::run_scenario(permutation(true, 1024));
  ASSERT_TRUE(ecmp.completed && spray.completed && wide.completed);
  const double ecmp_min = min_goodput(ecmp);
  const double spray_min = min_goodput(spray);
  const double wide_min = min_goodput(wide);
  std::cout << "minimum per-flow goodput, % of line rate: ECMP " << 100 * ecmp_min
            << ", spraying over 64 ports " << 100 * spray_min << ", over 1024 ports "
            << 100 * wide_min << " (go-back-N fallbacks " << spray.counters.go_back_n_fallbacks
            << ", placed out of order " << spray.counters.out_of_order_packets << ")\n";
  // Premise: the permutation collides under ECMP (a shared link halves a flow).
  EXPECT_LT(ecmp_min, 0.6) << "this seed's ECMP permutation must have a collision";
  EXPECT_GT(spray_min, 2 * ecmp_min) << "spraying spreads every flow over the four spines";
  // The switch hashes each source port to a spine, so P ports split over 4 spines as a
  // binomial(P, 1/4): relative spread sqrt(3 / P), 22% at P = 64 and 5% at P = 1024. The slowest
  // flow follows its QP's most loaded spine; with 1024 ports it nears the payload rate
  // (4096 / 4178 = 98% of line rate).
  EXPECT_GT(spray_min, 0.7);
  EXPECT_GT(wide_min, 0.9) << "more ports even out the hash";
  EXPECT_GT(spray.counters.out_of_order_packets, 0) << "spraying reorders";
  EXPECT_EQ(spray.counters.go_back_n_fallbacks, 0) << "the default buffer holds the spread";
  for (const scenario::RunResult* r : {&ecmp, &spray, &wide}) {
    for (const scenario::FlowRecord& f : r->flows) {
      EXPECT_EQ(f.sent_bytes, f.delivered_bytes + f.dropped_bytes) << "flow " << f.id;
    }
  }
}

TEST(Spray, RefusedForReadAndOnInfiniband) {
  scenario::Scenario sc = permutation(true);
  sc.roce.operation = transport::Operation::kRead;
  try {
    scenario::run_scenario(sc);
    FAIL() << "spraying READ responses must be refused";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key_path(), "fabric.transport.operation") << e.what();
  }
  sc = permutation(true);
  sc.switch_config.pfc.enabled = false;  // refused on InfiniBand before spraying is looked at
  sc.technology = scenario::Technology::kInfiniband;
  try {
    scenario::run_scenario(sc);
    FAIL() << "InfiniBand has no UDP source port to spray";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key_path(), "fabric.roce.spray") << e.what();
  }
}

TEST(Spray, OneRoundVisitsEverySourcePortOnce) {
  // Oblivious spraying (uet-htsim UecMpOblivious): each round of spray_paths packets uses each
  // of spray_paths source ports exactly once. Captured at the sender on a single flow.
  scenario::Scenario sc = two_path_flow(true, 4096);
  sc.roce.spray_paths = 16;
  sc.workload.flows[0].size_bytes = 48 * 4096;  // three rounds
  scenario::Simulation sim(sc);
  struct Capture {
    uint32_t port;
    std::vector<uint16_t> entropies;
  };
  net::Network& net = sim.network();
  Capture cap{net.nic_port(0), {}};
  net.set_tap({.ctx = &cap,
               .on_transmit = [](void* ctx, int64_t, uint32_t port, const net::Packet& p) {
                 auto* c = static_cast<Capture*>(ctx);
                 if (p.type == net::PacketType::kData && port == c->port) {
                   c->entropies.push_back(p.entropy);
                 }
               }});
  sim.start_workload();
  ASSERT_TRUE(sim.run());
  const std::vector<uint16_t>& ports = cap.entropies;
  ASSERT_EQ(ports.size(), 48u);
  for (int round = 0; round < 3; ++round) {
    std::vector<uint16_t> r(ports.begin() + 16 * round, ports.begin() + 16 * (round + 1));
    std::sort(r.begin(), r.end());
    EXPECT_EQ(std::unique(r.begin(), r.end()), r.end()) << "round " << round << " repeats";
    EXPECT_EQ(r.back() - r.front(), 15) << "16 consecutive ports, the QP's own block";
    EXPECT_EQ(r.front() & 15, 0);
    EXPECT_EQ(r.front() & 0xC000, 0xC000) << "RoCEv2 source-port range";
  }
}

}  // namespace spray_test
}  // namespace fabricsim
