// Swift on the RoCE transport (transport/rc_swift.cpp; docs/cc.md "Swift"): its base RTT and
// window come from the fabric, the window holds a QP, and whole fabrics behave as the rule
// says: two flows share a port fairly with the queue held near the target delay, and an
// incast's queue is bounded by the senders' windows.
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
#include <vector>

#include "core/error.h"
#include "core/time.h"
#include "engine/packet/simulation.h"
#include "net/network.h"
#include "resolve/resolve.h"
#include "resolve/swift_setup.h"
#include "transport/rc.h"
#include "transport/swift.h"
#include "cc_fabric.h"

namespace fabricsim::transport {
namespace swift_rc_test {

using cc_fabric::kG;
using cc_fabric::kUs;
using cc_fabric::queue_bytes;
using cc_fabric::wire_frame_bytes;

scenario::Scenario roce_leaf_spine() { return cc_fabric::roce_leaf_spine(CongestionControl::kSwift); }

TEST(SwiftRc, TheBaseRttAndWindowComeFromTheFabricAndBadValuesNameTheirKey) {
  // The longest host-to-host path of a leaf-spine crosses 4 links and 3 switches: 2 x
  // (propagation + switch latency + the NIC pipelines) + one data frame's serialization per
  // link, as HPCC's T but without its INT header.
  scenario::Scenario sc = roce_leaf_spine();
  const scenario::Resolved r = scenario::resolve(sc);
  const int64_t one_way = 4 * r.sc.link.propagation_ps() + 3 * r.sc.switch_config.latency_ps +
                          r.sc.nic.tx_latency_ps + r.sc.nic.rx_latency_ps;
  const int64_t rtt = 2 * one_way + 4 * serialization_ps(wire_frame_bytes(r.sc.roce), 100 * kG);
  const SwiftParams& p = r.sc.roce.swift_params;
  EXPECT_EQ(p.base_rtt_ps, rtt);
  // A switch hop adds a cable and a switch each way and a frame's serialization; the target is
  // 1.25 x the path's own base RTT: base target 1.25 x the zero-hop RTT, 1.25 x a hop's share.
  const int64_t hop = 2 * r.sc.link.propagation_ps() + 2 * r.sc.switch_config.latency_ps +
                      serialization_ps(wire_frame_bytes(r.sc.roce), 100 * kG);
  EXPECT_EQ(p.per_hop_ps, hop + hop / 4);
  EXPECT_EQ(p.base_target_ps, (rtt - 3 * hop) + (rtt - 3 * hop) / 4);
  EXPECT_NEAR(p.max_cwnd, 100e9 / 8 * rtt * 1e-12 / r.sc.roce.mtu_bytes, 1e-9)
      << "one BDP of MTU packets";
  sc.roce.swift.max_mdf = 1.0;
  try {
    scenario::resolve(sc);
    FAIL() << "max_mdf 1 accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key_path(), "fabric.roce.swift.max_mdf");
  }
  sc = roce_leaf_spine();
  sc.topology.kind = topo::TopologyKind::kFile;
  try {
    (void)scenario::resolve_swift(sc);
    FAIL() << "a base RTT derived for a topology file";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key_path(), "fabric.roce.swift.base_rtt");
  }
  sc.roce.swift.base_rtt_ps = 9 * kUs;
  const SwiftParams given = scenario::resolve_swift(sc);
  EXPECT_EQ(given.base_rtt_ps, 9 * kUs);
  EXPECT_EQ(given.base_target_ps, 9 * kUs + 9 * kUs / 4) << "given: 1.25 x it, no hop term";
  EXPECT_EQ(given.per_hop_ps, 0);
}

TEST(SwiftRc, TheWindowHoldsAQpAndItsDataIsNotEcnCapable) {
  // A lone QP starts at its largest window, here 4 packets (a BDP is ~15): its first flight is
  // those 4 packets, sent in 4 serialization times (1.3 us), then it waits for the first ACK,
  // which cannot be back before one base RTT (4.9 us) after the message was ready.
  scenario::Scenario sc = roce_leaf_spine();
  sc.roce.swift.max_cwnd = 4;
  scenario::Simulation sim(sc);
  const SwiftParams& p = sim.scenario().roce.swift_params;
  const RoceConfig& cfg = sim.roce()->config();
  const uint32_t msg = sim.transport().post(8, 0, 1'000'000, 0);
  sim.run(sim.roce()->message(msg).ready_ps + p.base_rtt_ps * 3 / 4);
  const int64_t sent = sim.network().port_tx_bytes(sim.network().nic_port(8));
  const int64_t window_pkts = 4;
  const int64_t first = data_frame_bytes(cfg, cfg.mtu_bytes, true, false) + wire_only_bytes(cfg);
  EXPECT_EQ(sent, first + (window_pkts - 1) * wire_frame_bytes(cfg))
      << "the window's packets and no more";
  std::vector<QpSample> qps;
  sim.transport().sample_qps(qps, false);
  ASSERT_EQ(qps.size(), 1u);
  EXPECT_STREQ(qps[0].cc, "swift");
  EXPECT_EQ(qps[0].window_bytes, static_cast<int64_t>(std::ceil(p.max_cwnd * cfg.mtu_bytes)));
  sim.run();
  EXPECT_EQ(sim.transport().counters().cnps_sent, 0) << "Swift reads delay, not marks";
}

TEST(SwiftRc, TwoFlowsShareAPortFairlyWithTheQueueNearTheTargetDelay) {
  // NIC 8 and NIC 16 (two other leaves: 3 switch hops) send to NIC 0. Swift grows a window
  // while its delay is below target = base_target + 3 x per_hop + fs(cwnd) and cuts it above,
  // so the queue is held at (target - base RTT) x B or a little above it: the ACK that sees
  // the excess comes a round trip after the queue built, and the cut window drains it another
  // round trip later, while each of the 2 flows adds ai = 1 packet per round trip. So the mean
  // queue delay lies between target - base RTT and that plus 2 rounds x 2 flows x 1 frame / B.
  // The two equal-path flows get equal shares.
  scenario::Simulation sim(roce_leaf_spine());
  const SwiftParams& p = sim.scenario().roce.swift_params;
  const int mtu = sim.roce()->config().mtu_bytes;
  double cwnd_sum = 0;
  int64_t samples = 0;
  std::vector<QpSample> qps;
  const cc_fabric::TwoFlows f = cc_fabric::two_flows(sim, 2'000 * kUs, [&] {
    qps.clear();
    sim.transport().sample_qps(qps, false);
    for (const QpSample& s : qps) cwnd_sum += static_cast<double>(s.window_bytes) / mtu;
    ++samples;
  });
  for (int i = 0; i < 2; ++i) EXPECT_NEAR(f.share[i], 1.0, 0.10) << "flow " << i << " within 10% of B/2";
  // The target at the flows' mean window (the flow-scaling term depends on it).
  const double mean_cwnd = cwnd_sum / static_cast<double>(samples) / 2;
  const SwiftCwnd at_mean(p, 3, mean_cwnd);
  const double target_ps = at_mean.target_delay_ps();
  const double queue_delay_ps = f.queue_mean * 8 / 100e9 * 1e12;
  const double expect_ps = target_ps - static_cast<double>(p.base_rtt_ps);
  const double frame_ps =
      static_cast<double>(wire_frame_bytes(sim.roce()->config())) * 8 / 100e9 * 1e12;
  const double overshoot_ps = 2 * 2 * p.ai_pkts * frame_ps;
  std::printf("swift two flows: link %.3f of B, mean cwnd %.2f pkts, queue delay %.2f us, "
              "target - base RTT %.2f us (target %.2f us, base RTT %.2f us)\n",
              f.link, mean_cwnd, queue_delay_ps * 1e-6, expect_ps * 1e-6, target_ps * 1e-6,
              p.base_rtt_ps * 1e-6);
  EXPECT_GT(f.link, 0.97) << "a standing queue keeps the port busy";
  EXPECT_GE(queue_delay_ps, 0.9 * expect_ps) << "the rule holds the queue up to its target";
  EXPECT_LE(queue_delay_ps, expect_ps + overshoot_ps) << "and a few additive steps above it";
}

TEST(SwiftRc, AnIncastsQueueIsBoundedByTheWindows) {
  // 32 senders (hosts 8..39, on leaves 1..4) each write 512 KB to NIC 0 at once. Each starts
  // with one BDP of window and can have no more in flight: the 32 windows less the BDP the
  // path itself holds bound what can queue at NIC 0's port (plus one frame per sender of
  // window overshoot).
  scenario::Scenario sc = roce_leaf_spine();
  scenario::Simulation sim(sc);
  const SwiftParams& p = sim.scenario().roce.swift_params;
  const RoceConfig& cfg = sim.roce()->config();
  for (uint32_t s = 8; s < 40; ++s) sim.transport().post(s, 0, 512 * 1024, 0);
  const net::Network& net = sim.network();
  const uint32_t bottleneck = net.port(net.nic_port(0)).peer;
  int64_t peak = 0;
  for (int64_t t = kUs / 10; t <= 3'000 * kUs; t += kUs / 10) {
    sim.run(t);
    peak = std::max(peak, queue_bytes(net, bottleneck));
  }
  int64_t end_ps = 0;
  for (uint32_t m = 0; m < 32; ++m) end_ps = std::max(end_ps, sim.transport().message(m).rx_done_ps);
  const double frame = static_cast<double>(wire_frame_bytes(cfg));
  const double window = std::ceil(p.max_cwnd) * frame;
  const double bdp = 100e9 / 8 * p.base_rtt_ps * 1e-12;
  const double floor_ps = 32.0 * 512 * 1024 * 8 / 100e9 * 1e12;
  std::printf("swift incast 32:1: peak queue %lld B (bound %.0f B), done at %.1f us (floor %.1f)\n",
              static_cast<long long>(peak), 32 * window - bdp + 32 * frame, end_ps * 1e-6,
              floor_ps * 1e-6);
  EXPECT_LE(peak, 32 * window - bdp + 32 * frame) << "bounded by the windows";
  ASSERT_GT(end_ps, 0) << "every flow finished";
  EXPECT_GE(end_ps, floor_ps);
  EXPECT_LT(end_ps, 1.3 * floor_ps) << "the port stays busy";
}

}  // namespace swift_rc_test
}  // namespace fabricsim::transport
