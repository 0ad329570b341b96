// DCTCP on the RDMA transport (transport/dctcp_rdma.h, transport/rc_dctcp.cpp; docs/cc.md
// "DCTCP"): the rule on hand-fed ACKs, worked out here from HandleAckDctcp's steps, and on a
// fabric, two flows into one port share it fairly with the queue held about the marking
// threshold K, as DCTCP's analysis (Alizadeh et al., SIGCOMM 2010, §3.3) says.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "core/error.h"
#include "core/time.h"
#include "engine/packet/simulation.h"
#include "net/network.h"
#include "resolve/resolve.h"
#include "transport/dctcp_rdma.h"
#include "transport/rc.h"
#include "cc_fabric.h"

namespace fabricsim::transport {
namespace dctcp_rdma_test {

using cc_fabric::kG;
using cc_fabric::kUs;

TEST(DctcpRdma, TheRuleCutsOncePerWindowByHalfAlphaAndAddsOncePerRoundTrip) {
  const DctcpRdmaParams p = dctcp_rdma_defaults(100 * kG, 4096, 5 * kUs);
  EXPECT_EQ(p.g, 1.0 / 16);
  EXPECT_EQ(p.rate_ai_bps, 4096LL * 8 * 1'000'000 / 5) << "one MTU per T: 6.5536 Gb/s";
  DctcpRdma d(p, 100 * kG);
  EXPECT_EQ(d.window_bytes(), 62'500) << "B x T at line rate";
  d.on_ack(1, 10, false);  // the first ACK opens the first batch (to PSN 10): no cut
  EXPECT_EQ(d.rate_bps(), 100 * kG);
  d.on_ack(2, 12, true);  // a mark outside CWR: R x (1 - alpha / 2), alpha starts at 1
  EXPECT_EQ(d.rate_bps(), 50 * kG);
  EXPECT_EQ(d.window_bytes(), 31'250) << "the window follows the rate";
  d.on_ack(5, 14, true);  // in CWR until PSN 12 is acknowledged: no second cut
  EXPECT_EQ(d.rate_bps(), 50 * kG);
  // Past the batch end (10): alpha = 15/16 + 1/16 x min(1, 2 marks / 11 packets); still in CWR
  // (acknowledged to 11, CWR ends past 12), so no increase.
  d.on_ack(11, 16, false);
  EXPECT_NEAR(d.alpha(), 15.0 / 16 + 2.0 / 11 / 16, 1e-12);
  EXPECT_EQ(d.rate_bps(), 50 * kG);
  d.on_ack(13, 18, false);  // CWR ends; the batch (to 16) is not complete: no increase
  EXPECT_EQ(d.rate_bps(), 50 * kG);
  d.on_ack(17, 20, false);  // a new batch with no marks: alpha x 15/16, and + R_AI
  EXPECT_NEAR(d.alpha(), (15.0 / 16 + 2.0 / 11 / 16) * 15 / 16, 1e-12);
  EXPECT_EQ(d.rate_bps(), 50 * kG + p.rate_ai_bps);
}

scenario::Scenario roce_leaf_spine() { return cc_fabric::roce_leaf_spine(CongestionControl::kDctcp); }

TEST(DctcpRdma, TheSwitchesMarkAtKAndBadValuesNameTheirKey) {
  scenario::Scenario sc = roce_leaf_spine();
  const scenario::Resolved r = scenario::resolve(sc);
  const net::EcnConfig& ecn = r.sc.switch_config.ecn;
  EXPECT_TRUE(ecn.enabled);
  EXPECT_EQ(ecn.kmin_bytes, 300'000) << "run.py: 30 KB x 100G / 10G, step marking";
  EXPECT_EQ(ecn.kmax_bytes, 300'000);
  EXPECT_EQ(ecn.pmax, 1.0);
  sc.roce.dctcp.rate_ai_bps = 200 * kG;
  try {
    scenario::resolve(sc);
    FAIL() << "an additive step above the line rate";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key_path(), "fabric.roce.dctcp.rate_ai");
  }
}

struct TwoFlows {
  double link = 0;        // of B
  double queue_mean = 0;  // bytes, every switch port
  double k = 0;
};

// NIC 8 and NIC 16 (two other leaves) send to NIC 0 for 4 ms; `k_bytes` > 0 sets the marking
// threshold.
TwoFlows two_flows(int64_t k_bytes) {
  scenario::Scenario sc = roce_leaf_spine();
  if (k_bytes > 0) sc.ecn.kmin_bytes = sc.ecn.kmax_bytes = k_bytes;
  scenario::Simulation sim(sc);
  const cc_fabric::TwoFlows f = cc_fabric::two_flows(sim, 4'000 * kUs);
  for (int i = 0; i < 2; ++i) EXPECT_NEAR(f.share[i], 1.0, 0.10) << "flow " << i << " within 10% of B/2";
  EXPECT_EQ(sim.transport().counters().cnps_sent, 0) << "marks return as the ACKs' echo";
  return {f.link, f.queue_mean, static_cast<double>(sim.scenario().switch_config.ecn.kmin_bytes)};
}

TEST(DctcpRdma, TwoFlowsShareAPortFairlyWithTheQueueAboutK) {
  // With K = 40 KB, below what the two windows can queue (2 x B x T less the path's B x T, ~61
  // KB), the marks govern: each flow cuts by alpha / 2 once per window of marks, so the queue
  // oscillates about K (DCTCP §3.3: between K - A and K + N packets, A = O(sqrt(N (C x RTT +
  // K)))), and the flows, on equal paths with the same rule, share equally.
  const TwoFlows f = two_flows(40'000);
  std::printf("dctcp two flows, K 40 KB: link %.3f of B, queue mean %.0f B\n", f.link,
              f.queue_mean);
  EXPECT_GT(f.link, 0.97) << "the queue about K keeps the port busy";
  EXPECT_NEAR(f.queue_mean / f.k, 1.0, 0.35) << "the queue sits about K";
}

TEST(DctcpRdma, WithTheSimulatorsKTwoFlowsAreHeldByTheirWindows) {
  // run.py's K (300 KB at 100 Gb/s) is above anything two windows of B x T can queue: each
  // flow has at most ceil(B x T / MTU) packets in flight (15 here), of which the path itself
  // holds B x T; the switch ports count the frame each is serializing as queued too (3 switches
  // per path). No mark, both flows at line-rate windows, the port full and shared equally.
  const TwoFlows f = two_flows(0);
  scenario::Scenario sc = roce_leaf_spine();
  const scenario::Resolved r = scenario::resolve(sc);
  const double bdp = 100e9 / 8 * r.sc.roce.dctcp_params.base_rtt_ps * 1e-12;
  std::printf("dctcp two flows, K 300 KB: link %.3f of B, queue mean %.0f B (B x T %.0f B)\n",
              f.link, f.queue_mean, bdp);
  EXPECT_GT(f.link, 0.97);
  EXPECT_LT(f.queue_mean, f.k) << "below K: the windows, not the marks, hold the queue";
  const RoceConfig& cfg = r.sc.roce;
  const double frame = data_frame_bytes(cfg, cfg.mtu_bytes, false, false) + wire_only_bytes(cfg);
  const double window_pkts = std::ceil(bdp / cfg.mtu_bytes);
  EXPECT_LE(f.queue_mean, 2 * window_pkts * frame - bdp + 2 * 3 * frame)
      << "two windows less the path's BDP";
}

}  // namespace dctcp_rdma_test
}  // namespace fabricsim::transport
