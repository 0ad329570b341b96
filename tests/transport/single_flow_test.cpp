// One message on an idle fabric: its completion time is the serialization of every frame at
// line rate plus, for the last frame, propagation over each cable and each switch's latency
// (cut-through), all computed here from the wire format (SPEC §8), not from the simulator, plus
// the NIC/host costs of the default profile (net/config.h NicConfig), added term by term: the
// sender's post, doorbell and DMA read (the message is not inline), the two NIC pipelines, and
// the receiver's memory write and poll.
//
//   3-tier k=4 fat-tree, 16 NICs:      core  core  core  core
//                                       agg agg | agg agg   (pods 0..3)
//                                       edge edge | edge edge
//   NIC0 -> NIC1: same edge, 1 switch; NIC0 -> NIC2: same pod, 3; NIC0 -> NIC8: other pod, 5.
#include <gtest/gtest.h>

#include "engine/packet/simulation.h"

namespace fabricsim {
namespace single_flow_test {

scenario::Scenario fat_tree_k4(net::Forwarding forwarding) {
  scenario::Scenario sc;
  sc.topology.tiers = 3;
  sc.topology.radix = 4;
  sc.topology.hosts = 16;
  sc.link.rate_bps = 400'000'000'000;
  sc.link.cable_m = 3.0;
  sc.switch_config.latency_ps = 450'000;
  sc.switch_config.forwarding = forwarding;
  return sc;
}

// Wire bytes of a RoCEv2 RDMA WRITE of `size` bytes: per packet 82 bytes of preamble, IFG and
// headers (SPEC §8) plus the 16-byte RETH on the first packet.
int64_t write_wire_bytes(int64_t size, int mtu) {
  int64_t wire = 0;
  for (int64_t left = size; left > 0; left -= mtu) {
    wire += std::min<int64_t>(left, mtu) + 82;
  }
  return wire + 16;
}

// The NIC/host part of one message's completion time, from the profile's parameters.
double nic_ps(const scenario::Simulation& sim, int64_t size) {
  const net::NicConfig& n = sim.scenario().nic;
  const int64_t dma = size > n.inline_max_bytes ? n.dma_read_ps : 0;
  return static_cast<double>(n.host_post_ps + n.doorbell_ps + dma + n.tx_latency_ps +
                             n.rx_latency_ps + n.mem_write_ps + n.host_poll_ps);
}

struct Case {
  uint32_t dst;
  int switches;
};

class SingleFlow : public ::testing::TestWithParam<Case> {};

TEST_P(SingleFlow, CutThroughCompletionIsSerializationPlusPathLatency) {
  const Case c = GetParam();
  const int64_t size = 1'000'000;
  scenario::Simulation sim(fat_tree_k4(net::Forwarding::kCutThrough));
  ASSERT_EQ(sim.routes().switch_hops(0, c.dst), c.switches) << "test topology assumption";
  const uint32_t msg = sim.transport().post(0, c.dst, size, 0);
  ASSERT_TRUE(sim.run());
  const double ps_per_byte = 8e12 / 400e9;  // 20 ps per byte at 400 Gb/s
  const double expected_ps = write_wire_bytes(size, 4096) * ps_per_byte +
                             (c.switches + 1) * 3.0 * 5000 + c.switches * 450'000.0 +
                             nic_ps(sim, size);
  ASSERT_GT(nic_ps(sim, size), 0) << "the default profile has NIC latency";
  const double packet_ps = (4096 + 82) * ps_per_byte;
  const double measured_ps = static_cast<double>(sim.transport().message(msg).rx_done_ps);
  EXPECT_NEAR(measured_ps, expected_ps, packet_ps)
      << c.switches << " switches: expected " << expected_ps << " ps";
}

// A store-and-forward pipeline of h+1 equal links finishes after the sum of all frame times
// plus h times the largest frame time (the first frame, which carries the RETH).
TEST_P(SingleFlow, StoreAndForwardAddsLargestFrameTimePerSwitch) {
  const Case c = GetParam();
  const int64_t size = 1'000'000;
  scenario::Simulation sim(fat_tree_k4(net::Forwarding::kStoreAndForward));
  const uint32_t msg = sim.transport().post(0, c.dst, size, 0);
  ASSERT_TRUE(sim.run());
  const double ps_per_byte = 20.0;
  const double largest_frame_ps = (4096 + 82 + 16) * ps_per_byte;
  const double expected_ps = write_wire_bytes(size, 4096) * ps_per_byte +
                             (c.switches + 1) * 15'000.0 + c.switches * 450'000.0 +
                             c.switches * largest_frame_ps + nic_ps(sim, size);
  const double measured_ps = static_cast<double>(sim.transport().message(msg).rx_done_ps);
  EXPECT_NEAR(measured_ps, expected_ps, (4096 + 82) * ps_per_byte)
      << c.switches << " switches, store-and-forward";
}

INSTANTIATE_TEST_SUITE_P(Hops, SingleFlow,
                         ::testing::Values(Case{1, 1}, Case{2, 3}, Case{8, 5}));

TEST(SingleFlowTest, IdlePathGoodputIsLineRateLessHeaders) {
  // A long flow's goodput approaches rate x 4096 / (4096 + 82) (SPEC §8: ~49 GB/s at 400G).
  scenario::Simulation sim(fat_tree_k4(net::Forwarding::kCutThrough));
  const int64_t size = 64ll << 20;
  const uint32_t msg = sim.transport().post(0, 8, size, 0);
  ASSERT_TRUE(sim.run());
  // Goodput of the wire: from the first packet's start (post + send overhead) to the last byte's
  // arrival at the NIC (before the receiver's completion).
  const net::NicConfig& n = sim.scenario().nic;
  const double seconds =
      (sim.transport().message(msg).rx_done_ps - n.completion_ps() - n.send_overhead_ps(size)) *
      1e-12;
  const double goodput_bps = size * 8.0 / seconds;
  const double expected_bps = 400e9 * 4096.0 / (4096.0 + 82.0);
  EXPECT_GT(goodput_bps, 0.99 * expected_bps) << "goodput " << goodput_bps / 1e9 << " Gb/s";
  EXPECT_LE(goodput_bps, expected_bps * 1.0001) << "faster than the wire allows";
}

TEST(SingleFlowTest, ZeroByteMessageStillCostsOneFrame) {
  scenario::Simulation sim(fat_tree_k4(net::Forwarding::kCutThrough));
  const uint32_t msg = sim.transport().post(0, 1, 0, 0);
  ASSERT_TRUE(sim.run());
  // Headers 14+20+8+12, RETH 16, ICRC 4, FCS 4 = 78-byte frame (above the 64-byte minimum),
  // + 20 bytes preamble/IFG; one switch.
  const double expected_ps = 98 * 20.0 + 2 * 15'000.0 + 450'000.0 + nic_ps(sim, 0);
  EXPECT_NEAR(static_cast<double>(sim.transport().message(msg).rx_done_ps), expected_ps, 1.0)
      << "a zero-byte WRITE is one minimum-size frame";
}

}  // namespace single_flow_test
}  // namespace fabricsim
