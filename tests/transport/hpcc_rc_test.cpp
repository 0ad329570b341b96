// HPCC on the RoCE transport (transport/rc_hpcc.cpp; docs/cc.md "HPCC"): the window holds a QP,
// the INT header is on the wire, and whole fabrics behave as the paper's analysis says: two
// flows share a port at eta of its capacity with no standing queue, and an incast's queue is
// bounded by the senders' windows, far below DCQCN's.
//
//        spine ... spine
//          |  \   /  |
//        leaf 0 ... leaf 7      (leaf-spine, radix 16: 8 hosts per leaf, 100 Gb/s, 3 m)
//        | | |
//       NIC 0 ...               every flow ends at NIC 0: its leaf port is the bottleneck
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>

#include "core/error.h"
#include "core/time.h"
#include "engine/packet/simulation.h"
#include "net/network.h"
#include "resolve/hpcc_setup.h"
#include "resolve/resolve.h"
#include "transport/hpcc.h"
#include "transport/rc.h"
#include "cc_fabric.h"

namespace fabricsim::transport {
namespace hpcc_rc_test {

using cc_fabric::kG;
using cc_fabric::kUs;
using cc_fabric::queue_bytes;
using cc_fabric::roce_leaf_spine;

// A data frame as HPCC sends it: the RoCE frame, its wire overhead and the INT header.
int64_t hpcc_wire_frame_bytes(const RoceConfig& cfg) {
  return data_frame_bytes(cfg, static_cast<uint32_t>(cfg.mtu_bytes), false, false) +
         wire_only_bytes(cfg) + kHpccIntHeaderBytes;
}

TEST(HpccRc, TIsTheLargestBaseRttAndBadValuesNameTheirKey) {
  // Leaf-spine: the longest host-to-host path crosses 4 links and 3 switches. third.cc's T is
  // 2 x (propagation + switch latency + the NIC pipelines) + one data frame's serialization per
  // link.
  scenario::Scenario sc = roce_leaf_spine(CongestionControl::kHpcc);
  const scenario::Resolved r = scenario::resolve(sc);
  const int64_t frame = hpcc_wire_frame_bytes(r.sc.roce);
  const int64_t one_way = 4 * r.sc.link.propagation_ps() + 3 * r.sc.switch_config.latency_ps +
                          r.sc.nic.tx_latency_ps + r.sc.nic.rx_latency_ps;
  const int64_t expect = 2 * one_way + 4 * serialization_ps(frame, 100 * kG);
  EXPECT_EQ(r.hpcc.base_rtt_ps, expect);
  EXPECT_EQ(r.hpcc.eta, 0.95) << "the paper's eta";
  EXPECT_EQ(r.hpcc.rate_ai_bps, 40'000'000) << "run.py: 10 Mb/s x 100G / 25G";
  sc.roce.hpcc.base_rtt_ps = 10 * kUs;
  EXPECT_EQ(scenario::resolve(sc).hpcc.base_rtt_ps, 10 * kUs) << "an override of T";
  sc.roce.hpcc.rate_ai_bps = 200 * kG;
  try {
    scenario::resolve(sc);
    FAIL() << "an additive step above the line rate";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key_path(), "fabric.roce.hpcc.rate_ai");
  }
}

// A topology file carries its own per-link delays and rates, which hpcc_base_rtt_ps (tiers of
// fabric.link.*) does not read: T must be given there, not guessed.
TEST(HpccRc, TOnATopologyFileMustBeGiven) {
  scenario::Scenario sc = roce_leaf_spine(CongestionControl::kHpcc);
  sc.topology.kind = topo::TopologyKind::kFile;
  try {
    (void)scenario::resolve_hpcc(sc);
    FAIL() << "T derived for a topology file";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key_path(), "fabric.roce.hpcc.base_rtt");
  }
  sc.roce.hpcc.base_rtt_ps = 17 * kUs;
  EXPECT_EQ(scenario::resolve_hpcc(sc).base_rtt_ps, 17 * kUs);
}

TEST(HpccRc, TheIntHeaderIsOnDataAndAckFramesAndTheSlotsHoldTheLargestWindow) {
  scenario::Scenario sc = roce_leaf_spine(CongestionControl::kHpcc);
  scenario::Simulation sim(sc);
  const RoceConfig& cfg = sim.roce()->config();
  const int64_t t_ps = scenario::hpcc_base_rtt_ps(sim.scenario());
  const int64_t w_max = 100 * kG / 8 * t_ps / kPsPerSecond;
  ASSERT_NE(sim.network().int_table(), nullptr) << "HPCC turns INT on";
  EXPECT_GE(static_cast<int64_t>(sim.network().int_table()->slots_per_qp()) * cfg.mtu_bytes,
            w_max)
      << "a slot per packet of the largest window B x T";
  const uint32_t msg = sim.transport().post(8, 0, 8 * cfg.mtu_bytes, 0);
  sim.run();
  const int64_t data = 8 * (data_frame_bytes(cfg, cfg.mtu_bytes, false, false) + wire_only_bytes(cfg));
  const uint32_t nic0_port = sim.network().nic_port(0);
  // NIC 0 receives the 8 data frames plus the INT header each (the first's RETH aside): its
  // leaf port sent at least 8 x (frame + 42); NIC 0 sent ACKs carrying 42 bytes each.
  EXPECT_GE(sim.network().port_tx_bytes(sim.network().port(nic0_port).peer),
            data + 8 * kHpccIntHeaderBytes);
  EXPECT_GT(sim.transport().message(msg).rx_done_ps, 0);
  const int64_t ack = net::roce_ack_frame_bytes(cfg.vlan_tag) + wire_only_bytes(cfg);
  EXPECT_EQ(sim.network().port_tx_bytes(nic0_port) % (ack + kHpccIntHeaderBytes), 0)
      << "every ACK NIC 0 sent carries the echoed INT header";
}

TEST(HpccRc, TwoFlowsShareAPortAtEtaWithNoStandingQueue) {
  // NIC 8 and NIC 16 (two other leaves) send to NIC 0. HPCC drives the bottleneck's
  // utilization estimate u = txRate / B + qlen / (B x T) to eta = 0.95 (Algorithm 1). A queue
  // that stands means txRate = B, so u >= 1 > eta and the senders cut: in steady state the
  // queue is empty and the port carries eta x B, each flow eta x B / 2, within 10% of B / 2.
  // What queue is left is the pacing jitter of two independent senders: each paces its packets
  // at eta B / 2, so a frame from one can arrive while the other's is being sent — about one
  // frame per sender at a time.
  scenario::Scenario sc = roce_leaf_spine(CongestionControl::kHpcc);
  scenario::Simulation sim(sc);
  const RoceConfig& cfg = sim.roce()->config();
  for (uint32_t s : {8u, 16u}) sim.transport().post(s, 0, 4'000'000'000, 0);
  const double goodput = 100e9 * cfg.mtu_bytes / static_cast<double>(hpcc_wire_frame_bytes(cfg));
  const net::Network& net = sim.network();
  const uint32_t bottleneck = net.port(net.nic_port(0)).peer;
  constexpr int64_t kEnd = 1'000 * kUs;
  constexpr int64_t kHalf = kEnd / 2;
  int64_t at_half[2] = {0, 0};
  double queue_sum = 0;
  int64_t queue_max = 0;
  int64_t samples = 0;
  for (int64_t t = kUs / 10; t <= kEnd; t += kUs / 10) {
    sim.run(t);
    if (t == kHalf) {
      for (int i = 0; i < 2; ++i) at_half[i] = sim.transport().message(i).delivered_bytes;
    }
    if (t > kHalf) {
      const int64_t q = queue_bytes(net, bottleneck);
      queue_sum += static_cast<double>(q);
      queue_max = std::max(queue_max, q);
      ++samples;
    }
  }
  double total = 0;
  for (int i = 0; i < 2; ++i) {
    const double bps =
        (sim.transport().message(i).delivered_bytes - at_half[i]) * 8.0 / (kHalf * 1e-12);
    total += bps;
    EXPECT_NEAR(bps / (goodput / 2), 1.0, 0.10) << "flow " << i << " within 10% of B/2";
  }
  const double frame = static_cast<double>(hpcc_wire_frame_bytes(cfg));
  std::printf("hpcc two flows: link %.3f of B, queue mean %.0f B, max %lld B (frame %.0f B)\n",
              total / goodput, queue_sum / samples, static_cast<long long>(queue_max), frame);
  EXPECT_NEAR(total / goodput, 0.95, 0.03) << "the port carries eta x B";
  EXPECT_LT(queue_sum / samples, 2 * frame) << "no standing queue: at most the pacing jitter";
  EXPECT_LE(queue_max, 4 * frame) << "two senders' frames colliding, twice over";
  EXPECT_EQ(sim.transport().counters().cnps_sent, 0) << "HPCC's data is not ECN-capable";
}

struct IncastOutcome {
  int64_t peak_queue_bytes = 0;
  int64_t end_ps = 0;
};

// 32 senders (hosts 8..39, on leaves 1..4) each write 512 KB to NIC 0 at once.
IncastOutcome incast(CongestionControl cc) {
  scenario::Scenario sc = roce_leaf_spine(cc);
  scenario::Simulation sim(sc);
  for (uint32_t s = 8; s < 40; ++s) sim.transport().post(s, 0, 512 * 1024, 0);
  const net::Network& net = sim.network();
  const uint32_t bottleneck = net.port(net.nic_port(0)).peer;
  IncastOutcome o;
  // 16 MiB through one 100 Gb/s port takes ~1.4 ms; 3 ms covers the run whatever the scheme.
  for (int64_t t = kUs / 10; t <= 3'000 * kUs; t += kUs / 10) {
    sim.run(t);
    o.peak_queue_bytes = std::max(o.peak_queue_bytes, queue_bytes(net, bottleneck));
  }
  for (uint32_t m = 0; m < 32; ++m) {
    o.end_ps = std::max(o.end_ps, sim.transport().message(m).rx_done_ps);
  }
  return o;
}

TEST(HpccRc, AnIncastsQueueIsBoundedByTheWindowsFarBelowDcqcns) {
  const IncastOutcome hpcc = incast(CongestionControl::kHpcc);
  const IncastOutcome dcqcn = incast(CongestionControl::kDcqcn);
  scenario::Scenario sc = scenario::resolve(roce_leaf_spine(CongestionControl::kHpcc)).sc;
  const int64_t t_ps = scenario::hpcc_base_rtt_ps(sc);
  const int64_t bdp = 100 * kG / 8 * t_ps / kPsPerSecond;  // W_max = B x T
  std::printf("incast 32:1: peak queue HPCC %lld B, DCQCN %lld B (B x T = %lld B); done at "
              "%.1f vs %.1f us\n",
              static_cast<long long>(hpcc.peak_queue_bytes),
              static_cast<long long>(dcqcn.peak_queue_bytes), static_cast<long long>(bdp),
              hpcc.end_ps * 1e-6, dcqcn.end_ps * 1e-6);
  // Each sender starts at line rate with the full window W_max = B x T and can have no more in
  // flight: the 32 windows less the BDP the path itself holds bound what can queue at NIC 0's
  // port (plus one frame per sender of window overshoot).
  const int64_t frame = hpcc_wire_frame_bytes(roce_leaf_spine(CongestionControl::kHpcc).roce);
  EXPECT_LE(hpcc.peak_queue_bytes, 32 * bdp - bdp + 32 * frame) << "bounded by the windows";
  // DCQCN has no window: its senders keep injecting at line rate until the CNPs come back.
  EXPECT_LT(hpcc.peak_queue_bytes, dcqcn.peak_queue_bytes / 2) << "far below DCQCN's";
  // The port's capacity bounds the end: 16 MiB at eta x B takes 16 MiB x 8 / (0.95 x 100G).
  const double floor_ps = 32.0 * 512 * 1024 * 8 / 100e9 * 1e12;
  ASSERT_GT(hpcc.end_ps, 0) << "every flow finished";
  EXPECT_GE(hpcc.end_ps, floor_ps);
  EXPECT_LT(hpcc.end_ps, 1.3 * floor_ps) << "HPCC keeps the port busy";
}

}  // namespace hpcc_rc_test
}  // namespace fabricsim::transport
