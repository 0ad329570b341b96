// Fair sharing of NVLink (node::GpuNet over node::PsNetwork) and the NVLS primitives, against
// figures derived here from the node spec, never from the model's own functions:
//
//   node 0: GPU0..7 --NVLink 4 (450 GB/s x 370.8/450 = 370.8 GB/s per direction)-- NVSwitch 3
//
// r = 370.8 GB/s (NCCL SM90_NVLINK_BW 20.6 x 18), L = 600 ns NVSwitch crossing, eta = 0.83
// (node.nvls_efficiency, fitted to NVIDIA/nccl#1455). Expectations are max-min fair shares
// (progressive filling, Bertsekas & Gallager "Data Networks" §6.5.2) worked by hand.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "engine/packet/simulation.h"

namespace fabricsim {
namespace gpu_net_sharing_test {

constexpr double kR = 450e9 * 370.8 / 450.0;  // bytes/s
constexpr double kL = 600'000.0;              // ps
constexpr double kEta = 0.83;
constexpr int64_t kS = int64_t{64} << 20;

scenario::Scenario one_node() {
  scenario::Scenario sc;
  sc.topology.tiers = 2;
  sc.topology.radix = 16;
  sc.topology.hosts = 2;
  sc.topology.nics_per_host = 8;
  sc.node.gpus_per_node = 8;
  return sc;
}

struct Arrivals {
  std::vector<int64_t> at = std::vector<int64_t>(64, -1);
  void attach(scenario::Simulation& sim) {
    node::GpuNet* g = sim.gpu_net();
    g->on_arrived = [this, g](uint64_t cookie) { at.at(cookie) = g->now_ps(); };
  }
};

double ps(double bytes, double rate) { return bytes / rate * 1e12; }

TEST(GpuNetSharing, MaxMinNotProportional) {
  // A: 0->1 (S), B: 0->2 (S), C: 3->2 (S), D: 4->2 (S/4), all at t = 0.
  //   in(2) has B, C, D: r/3 each; out(0) has A and B, B is frozen at r/3, so A = 2r/3
  //   (proportional sharing would give A r/2).
  //   D ends at (S/4)/(r/3) = 0.75 S/r. Then A has S/2 left, B and C 3S/4 each.
  //   Re-share: in(2) has B, C: r/2 each; out(0) has A, B: A = r - r/2 = r/2.
  //   A ends S/2 / (r/2) = S/r later, at 1.75 S/r; B and C then have S/4 left, still r/2 each
  //   (in(2) binds): they end at 1.75 S/r + 0.5 S/r = 2.25 S/r. in(2) carried 2.25 S at r
  //   the whole time, as it must.
  scenario::Simulation sim(one_node());
  Arrivals arr;
  arr.attach(sim);
  node::GpuNet& g = *sim.gpu_net();
  g.send(0, 1, kS, 0);
  g.send(0, 2, kS, 1);
  g.send(3, 2, kS, 2);
  g.send(4, 2, kS / 4, 3);
  sim.run();
  const double t = ps(kS, kR);  // S / r
  EXPECT_NEAR(arr.at[3], kL + 0.75 * t, 3.0) << "D at r/3";
  EXPECT_NEAR(arr.at[0], kL + 1.75 * t, 3.0) << "A at 2r/3, then r/2 after D leaves";
  EXPECT_NEAR(arr.at[1], kL + 2.25 * t, 3.0) << "B";
  EXPECT_NEAR(arr.at[2], kL + 2.25 * t, 3.0) << "C";
  const node::FluidServer in2 = g.server(g.resource(node::ResourceKind::kNvlinkIn, 0, 2));
  EXPECT_EQ(in2.bytes, kS * 2 + kS / 4);
  EXPECT_NEAR(static_cast<double>(in2.busy_ps), 2.25 * t, 3.0);
  EXPECT_EQ(g.active_flows(0), 0u);
}

TEST(GpuNetSharing, OnePairsTransfersGoInOrder) {
  // NCCL moves one connection's steps in order (one CTA): two transfers 0 -> 1 do not share,
  // the second starts when the first's last byte has left: S/r + L and 2S/r + L.
  scenario::Simulation sim(one_node());
  Arrivals arr;
  arr.attach(sim);
  sim.gpu_net()->send(0, 1, kS, 0);
  sim.gpu_net()->send(0, 1, kS, 1);
  sim.run();
  EXPECT_NEAR(arr.at[0], kL + ps(kS, kR), 2.0);
  EXPECT_NEAR(arr.at[1], kL + 2 * ps(kS, kR), 2.0);
}

TEST(GpuNetSharing, TwoConnectionsOfOnePairShareItsNvlink) {
  // Two NCCL channels between GPUs 0 and 1 are two CTAs copying at once: max-min fair, each
  // at r/2, both done at 2S/r + L. One connection's own transfers stay in order: its second
  // transfer starts when its first has left, sharing with the other connection's one.
  {
    scenario::Simulation sim(one_node());
    Arrivals arr;
    arr.attach(sim);
    sim.gpu_net()->send(0, 1, kS, 0, 0, /*connection=*/7);
    sim.gpu_net()->send(0, 1, kS, 1, 0, /*connection=*/8);
    sim.run();
    EXPECT_NEAR(arr.at[0], kL + 2 * ps(kS, kR), 2.0);
    EXPECT_NEAR(arr.at[1], kL + 2 * ps(kS, kR), 2.0);
  }
  {
    // Connection 7 sends S twice, connection 8 sends 2S once. Both share r until 7's first
    // transfer has left (2S/r: 8 has S left), then 7's second and 8 share again until both
    // end at 4S/r: r/2 each for the last S of each.
    scenario::Simulation sim(one_node());
    Arrivals arr;
    arr.attach(sim);
    sim.gpu_net()->send(0, 1, kS, 0, 0, 7);
    sim.gpu_net()->send(0, 1, kS, 1, 0, 7);
    sim.gpu_net()->send(0, 1, 2 * kS, 2, 0, 8);
    sim.run();
    EXPECT_NEAR(arr.at[0], kL + 2 * ps(kS, kR), 2.0);
    EXPECT_NEAR(arr.at[1], kL + 4 * ps(kS, kR), 2.0);
    EXPECT_NEAR(arr.at[2], kL + 4 * ps(kS, kR), 2.0);
  }
}

std::vector<uint32_t> all_gpus() { return {0, 1, 2, 3, 4, 5, 6, 7}; }

TEST(GpuNetSharing, NvlsReduceAndMulticastAloneRunAtEtaTimesNvlink) {
  ASSERT_DOUBLE_EQ(one_node().node.nvls_efficiency, kEta);
  ASSERT_TRUE(one_node().node.nvls);
  scenario::Simulation sim(one_node());
  Arrivals arr;
  arr.attach(sim);
  node::GpuNet& g = *sim.gpu_net();
  ASSERT_TRUE(g.nccl_view().nvls);
  const std::vector<uint32_t> set = all_gpus();
  g.nvls_reduce(set.data(), 8, 3, kS, 0);
  sim.run();
  EXPECT_NEAR(arr.at[0], kL + ps(kS, kR * kEta), 3.0) << "bytes / (r eta) + L";
  const int64_t t0 = sim.scheduler().now_ps;
  g.nvls_multicast(5, set.data(), 8, kS, 1);
  sim.run();
  EXPECT_NEAR(arr.at[1] - t0, kL + ps(kS, kR * kEta), 3.0);
  // The reduce read S from every GPU and wrote S into GPU 3; the multicast read S from GPU 5
  // and wrote S into every GPU.
  for (uint32_t l = 0; l < 8; ++l) {
    EXPECT_EQ(g.server(g.resource(node::ResourceKind::kNvlinkOut, 0, l)).bytes,
              kS + (l == 5 ? kS : 0));
    EXPECT_EQ(g.server(g.resource(node::ResourceKind::kNvlinkIn, 0, l)).bytes,
              kS + (l == 3 ? kS : 0));
  }
}

TEST(GpuNetSharing, NvlsAllReduceTrafficOfEightHeadsIsNinthsOfS) {
  // The single-node NVLS all-reduce's data movement (docs/reference/nccl-at-scale.md §4): each
  // of N = 8 heads reduces its S/N portion from all GPUs and multicasts it back. Every GPU's
  // out carries 8 reduce reads + its own multicast store = (N+1)/N S; its in 1 reduced portion +
  // 8 multicasts = (N+1)/N S. All 16 flows cross 9-flow ports whose NVLS share is r eta, so all
  // run at r eta / 9 and end together at (S/8) / (r eta / 9) = 9 S / (8 r eta), + L.
  scenario::Simulation sim(one_node());
  Arrivals arr;
  arr.attach(sim);
  node::GpuNet& g = *sim.gpu_net();
  const std::vector<uint32_t> set = all_gpus();
  for (uint32_t h = 0; h < 8; ++h) {
    g.nvls_reduce(set.data(), 8, h, kS / 8, h);
    g.nvls_multicast(h, set.data(), 8, kS / 8, 8 + h);
  }
  sim.run();
  const double expected = kL + 9.0 * kS / (8.0 * kR * kEta) * 1e12;
  for (uint32_t c = 0; c < 16; ++c) EXPECT_NEAR(arr.at[c], expected, 4.0) << "flow " << c;
  for (uint32_t l = 0; l < 8; ++l) {  // conservation: (N+1)/N S per GPU per direction
    for (node::ResourceKind k : {node::ResourceKind::kNvlinkOut, node::ResourceKind::kNvlinkIn,
                                 node::ResourceKind::kNvlsOut, node::ResourceKind::kNvlsIn}) {
      EXPECT_EQ(g.server(g.resource(k, 0, l)).bytes, 9 * (kS / 8));
    }
  }
}

TEST(GpuNetSharing, NvlsLeavesUnicastItsFairShareOfThePort) {
  // eta caps NVLS traffic, not the port: a unicast 0 -> 1 beside a reduce over GPUs {0, 2}
  // into 2 shares out(0) half and half (r/2 < r eta), so the unicast's S ends at 2S/r while
  // the reduce (also S) ends with it; alone the unicast would take S/r.
  scenario::Simulation sim(one_node());
  Arrivals arr;
  arr.attach(sim);
  node::GpuNet& g = *sim.gpu_net();
  const uint32_t set[2] = {0, 2};
  g.send(0, 1, kS, 0);
  g.nvls_reduce(set, 2, 2, kS, 1);
  sim.run();
  EXPECT_NEAR(arr.at[0], kL + 2 * ps(kS, kR), 3.0);
  EXPECT_NEAR(arr.at[1], kL + 2 * ps(kS, kR), 3.0);
}

TEST(GpuNetSharing, NvlsSetsMustStayOnOneNode) {
  scenario::Simulation sim(one_node());
  const uint32_t set[2] = {0, 9};
  EXPECT_THROW(sim.gpu_net()->nvls_reduce(set, 2, 0, 1024, 0), std::logic_error);
  scenario::Scenario sc = one_node();
  sc.node.nvls = false;
  scenario::Simulation off(sc);
  EXPECT_FALSE(off.gpu_net()->nccl_view().nvls);
  const uint32_t local[2] = {0, 1};
  EXPECT_THROW(off.gpu_net()->nvls_multicast(0, local, 2, 1024, 0), std::logic_error);
}

}  // namespace gpu_net_sharing_test
}  // namespace fabricsim
