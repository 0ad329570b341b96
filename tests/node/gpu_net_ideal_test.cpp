// The ideal network of node::GpuNet (node.ideal_fabric, docs/training.md "Ideal network"): a
// big switch whose ports are the NICs' lines. Each NIC's line out and line in carries one
// message per (sending NIC, receiving NIC) pair at a time, in order, and shares its rate fairly
// among pairs; the fabric adds only two cable propagations. Figures derived here by hand:
//
//   node 0 (no PXN)                         node 1
//   GPU0 -PCIe- NIC0 --\                 /-- NIC8 -PCIe- GPU8
//   GPU1 -PCIe- NIC1 ---+-- big switch --+-- NIC9 -PCIe- GPU9
//                        (no contention)
//
// 400 Gb/s lines: S = 1 MiB takes W = S x 8 / 400 Gb/s = 20,971,520 ps on a line. PCIe Gen5 x16
// (57.6 GB/s, tests/node/gpu_net_test.cpp) is faster than the line (50 GB/s), so only the line
// binds. The latency L of an idle path: one PCIe switch crossing on each side (150 ns each,
// GPU and NIC share a switch) and two 3 m cables at 5 ns/m (30 ns): L = 330 ns.
#include <gtest/gtest.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "../support/gpu_arrivals.h"
#include "engine/packet/simulation.h"

namespace fabricsim {
namespace gpu_net_ideal_test {

constexpr int64_t kSize = 1 << 20;
constexpr int64_t kWirePs = kSize * 8 * 1'000'000'000'000 / 400'000'000'000;  // 20,971,520
constexpr int64_t kLatencyPs = 2 * 150'000 + 2 * 3 * 5'000;                   // 330 ns

scenario::Scenario ideal_two_nodes() {
  scenario::Scenario sc;
  sc.topology.tiers = 2;
  sc.topology.radix = 16;
  sc.topology.hosts = 2;
  sc.topology.nics_per_host = 8;
  sc.link.rate_bps = 400'000'000'000;
  sc.link.cable_m = 3.0;
  sc.node.gpus_per_node = 8;
  sc.node.ideal_fabric = true;
  // No PXN: a GPU sends through its own NIC even to another rail (with PXN, GPU 0 -> GPU 9
  // would leave from NIC 1, relayed over NVLink).
  sc.node.pxn = false;
  return sc;
}

using test_support::Arrivals;  // tests/support/gpu_arrivals.h

// Rounding: the fluid model keeps remaining bytes in 1/65536 byte and rounds ends to the
// nearest picosecond at each re-share, so a few ps.
constexpr double kTolPs = 4.0;

TEST(GpuNetIdeal, OneMessageIsItsLineTimePlusTheIdlePath) {
  scenario::Simulation sim(ideal_two_nodes());
  Arrivals arr;
  arr.attach(sim);
  sim.gpu_net()->send(0, 8, kSize, 1);
  sim.run();
  EXPECT_NEAR(static_cast<double>(arr.of(1)), kWirePs + kLatencyPs, kTolPs) << "W + L";
  EXPECT_NEAR(static_cast<double>(sim.gpu_net()->idle_transfer_ps(0, 8, kSize)),
              kWirePs + kLatencyPs, kTolPs);
  EXPECT_EQ(sim.transport().num_messages(), 0u) << "nothing crossed the packet fabric";
}

TEST(GpuNetIdeal, TwoReceiversShareTheSendingLineFairly) {
  // NIC0 -> NIC8 and NIC0 -> NIC9: two pairs, so NIC0's line serves both at once at half rate
  // (the real NIC serves its queue pairs round-robin): both last bytes leave at 2W, and each
  // receiving line, alone, passes them on as they come: both arrive at 2W + L.
  scenario::Simulation sim(ideal_two_nodes());
  Arrivals arr;
  arr.attach(sim);
  sim.gpu_net()->send(0, 8, kSize, 1);
  sim.gpu_net()->send(0, 9, kSize, 2);
  sim.run();
  EXPECT_NEAR(static_cast<double>(arr.of(1)), 2 * kWirePs + kLatencyPs, kTolPs);
  EXPECT_NEAR(static_cast<double>(arr.of(2)), 2 * kWirePs + kLatencyPs, kTolPs);
  const node::GpuNet& g = *sim.gpu_net();
  const node::FluidServer out = g.server(g.resource(node::ResourceKind::kNicLineOut, 0, 0));
  EXPECT_EQ(out.bytes, 2 * kSize);
  EXPECT_NEAR(static_cast<double>(out.busy_ps), 2 * kWirePs, kTolPs) << "busy 2W, never idle";
}

TEST(GpuNetIdeal, OnePairsMessagesGoInOrder) {
  // Two messages NIC0 -> NIC8: one queue pair, first in first out. The first leaves at W and
  // arrives at W + L; the second starts when the first has left and arrives at 2W + L.
  scenario::Simulation sim(ideal_two_nodes());
  Arrivals arr;
  arr.attach(sim);
  sim.gpu_net()->send(0, 8, kSize, 1);
  sim.gpu_net()->send(0, 8, kSize, 2);
  sim.run();
  EXPECT_NEAR(static_cast<double>(arr.of(1)), kWirePs + kLatencyPs, kTolPs);
  EXPECT_NEAR(static_cast<double>(arr.of(2)), 2 * kWirePs + kLatencyPs, kTolPs);
}

TEST(GpuNetIdeal, TwoSendersShareTheReceivingLineFairly) {
  // NIC0 -> NIC8 and NIC1 -> NIC8: each sending line alone, but NIC8's line in takes 2S at
  // 50 GB/s, half each: both arrive at 2W + L (the big switch's output port).
  scenario::Simulation sim(ideal_two_nodes());
  Arrivals arr;
  arr.attach(sim);
  sim.gpu_net()->send(0, 8, kSize, 1);
  sim.gpu_net()->send(1, 8, kSize, 2);
  sim.run();
  EXPECT_NEAR(static_cast<double>(arr.of(1)), 2 * kWirePs + kLatencyPs, kTolPs);
  EXPECT_NEAR(static_cast<double>(arr.of(2)), 2 * kWirePs + kLatencyPs, kTolPs);
}

TEST(GpuNetIdeal, StagedTransfersCrossTheLinesToo) {
  // Without GPUDirect the NIC reads the host bounce buffer: the line out joins that stage and
  // the line in the stage into host memory on the far side. Both messages cross both lines,
  // the pair's in order.
  scenario::Scenario sc = ideal_two_nodes();
  sc.node.gpudirect = false;
  scenario::Simulation sim(sc);
  Arrivals arr;
  arr.attach(sim);
  sim.gpu_net()->send(0, 8, kSize, 1);
  sim.gpu_net()->send(0, 8, kSize, 2);
  sim.run();
  ASSERT_GT(arr.of(1), 0);
  ASSERT_GT(arr.of(2), 0);
  EXPECT_GT(arr.of(2), arr.of(1)) << "one pair, in order";
  EXPECT_GE(arr.of(2), 2 * kWirePs) << "no faster than the line";
  const node::GpuNet& g = *sim.gpu_net();
  EXPECT_EQ(g.server(g.resource(node::ResourceKind::kNicLineOut, 0, 0)).bytes, 2 * kSize);
  EXPECT_EQ(g.server(g.resource(node::ResourceKind::kNicLineIn, 1, 0)).bytes, 2 * kSize);
}

TEST(GpuNetIdeal, TheRealMachineHasNoLineResources) {
  scenario::Scenario sc = ideal_two_nodes();
  sc.node.ideal_fabric = false;
  scenario::Simulation real(sc);
  scenario::Simulation ideal(ideal_two_nodes());
  EXPECT_EQ(ideal.gpu_net()->num_resources(), real.gpu_net()->num_resources() + 2 * 2 * 8)
      << "line out and line in for each of 2 x 8 NICs, on the ideal machine only";
}

}  // namespace gpu_net_ideal_test
}  // namespace fabricsim
