// InfiniBand credit-based link-level flow control (reference infiniband.md §1; SPEC §4
// "InfiniBand"), checked against figures derived here.
//
// Leaf-spine, radix 16, 100 Gb/s, 3 m cables: NICs 0-7 on leaf 0, 8-15 on leaf 1, ...
//
// Credits are 64-byte blocks. A 4096-byte RDMA WRITE packet is LRH 8 + BTH 12 + payload +
// ICRC 4 + VCRC 2 = 4122 bytes (+16 RETH on a message's first packet): 65 blocks (4138 bytes:
// also 65). IB has no preamble or inter-frame gap in its data rate, so one receiver can take at
// most B = 100 Gb/s x S / (S + 26 ceil(S/4096) + 16) of goodput from an incast.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/error.h"
#include "net/network.h"
#include "output/summary.h"
#include "spec/load.h"
#include "engine/run.h"
#include "engine/packet/simulation.h"

namespace fabricsim {
namespace ib_credit_test {

constexpr double kRateBps = 100e9;
constexpr int64_t kMtu = 4096;
constexpr int64_t kPsPerUs = 1'000'000;

int64_t packets(int64_t bytes) { return (bytes + kMtu - 1) / kMtu; }
int64_t ib_message_bytes(int64_t bytes) { return bytes + 26 * packets(bytes) + 16; }

scenario::Scenario ib_leaf_spine(int radix, int hosts, int64_t vl_buffer) {
  scenario::Scenario sc;
  sc.seed = 5;
  sc.technology = scenario::Technology::kInfiniband;
  sc.topology.tiers = 2;
  sc.topology.radix = radix;
  sc.topology.hosts = hosts;
  sc.link.rate_bps = static_cast<int64_t>(kRateBps);
  sc.link.cable_m = 3;
  sc.switch_config.buffer_bytes = 16 << 20;
  sc.ib.link.vl_buffer_bytes = vl_buffer;
  return sc;
}

// Every port's credit state at this instant: the sender's available credits are in
// [0, min(far receiver's buffer, the 2048-block window)], and no receiver holds more than its
// buffer.
void expect_credit_invariants(const net::Network& net, const std::string& when) {
  for (uint32_t id = 0; id < net.num_ports(); ++id) {
    const net::PortQueues& q = net.queues(id);
    const net::PortQueues& far = net.queues(net.port(id).peer);
    for (int vl = 0; vl < net::kPriorities; ++vl) {
      const int64_t available =
          static_cast<int64_t>(q.fc_limit_blocks[vl]) - static_cast<int64_t>(q.fc_sent_blocks[vl]);
      ASSERT_GE(available, 0) << "negative credits at port " << id << " VL " << vl << " " << when;
      ASSERT_LE(available, static_cast<int64_t>(far.rx_buffer_blocks))
          << "more credits than the receiver's buffer at port " << id << " VL " << vl << " " << when;
      ASSERT_LE(available, net::kIbMaxAdvertisedBlocks)
          << "more credits than the window at port " << id << " VL " << vl << " " << when;
      ASSERT_LE(q.rx_blocks[vl], q.rx_buffer_blocks)
          << "receiver over its VL buffer at port " << id << " " << when;
    }
  }
}

TEST(IbCredits, IncastOf32IsLosslessAndCreditsStayInBounds) {
  // 32 senders on leaves 1-4 into NIC 0; per-VL buffers of 64 KiB (16 MTU packets) so that
  // credits, not buffer size, hold the senders back.
  scenario::Scenario sc = ib_leaf_spine(16, 64, 64 << 10);
  scenario::Simulation sim(sc);
  constexpr int64_t kFlow = 2'000'000;
  for (uint32_t s = 8; s < 40; ++s) sim.transport().post(s, 0, kFlow, 0);
  // Sample the invariant while the incast is in full swing, then run to the end.
  for (int64_t t = 50; t <= 2000; t += 50) {
    sim.run(t * kPsPerUs / 10);
    expect_credit_invariants(sim.network(), "at " + std::to_string(t / 10.0) + " us");
  }
  sim.run();
  expect_credit_invariants(sim.network(), "at the end");
  const net::NetCounters& nc = sim.network().counters();
  EXPECT_EQ(nc.dropped_packets, 0) << "credit flow control never drops";
  EXPECT_EQ(nc.credit_violations, 0) << "no packet arrived beyond its receiver's credits";
  EXPECT_GT(nc.credit_waits, 0) << "the incast must actually run out of credits";
  int64_t last = 0;
  for (uint32_t m = 0; m < sim.transport().num_messages(); ++m) {
    ASSERT_GE(sim.transport().message(m).rx_done_ps, 0) << "message " << m << " finished";
    last = std::max(last, sim.transport().message(m).rx_done_ps);
  }
  // Goodput at the receiver against the header-overhead ceiling derived above.
  const double goodput = 32.0 * kFlow * 8 / (static_cast<double>(last) * 1e-12);
  const double ceiling = kRateBps * kFlow / static_cast<double>(ib_message_bytes(kFlow));
  EXPECT_GT(goodput, 0.98 * ceiling) << "bottleneck kept busy: " << goodput / 1e9 << " of "
                                     << ceiling / 1e9 << " Gb/s";
  EXPECT_LE(goodput, ceiling * 1.0001) << "cannot beat the wire";
}

TEST(IbCredits, AllToAllAtFullLoadIsLossless) {
  // Every NIC sends to every other at line rate through 8 KiB VL buffers: 128 credits, less than
  // two 4,138-byte MTU packets (65 credits each), so a VL holds one full packet plus smaller ones.
  scenario::Scenario sc = ib_leaf_spine(8, 32, 8 << 10);
  sc.nic_spec.profile = "zero";  // the NIC timing this credit test was written with
  sc.workload.kind = workload::WorkloadKind::kPattern;
  sc.workload.pattern = workload::PatternKind::kAllToAll;
  sc.workload.flow_size_bytes = 128'000;
  const scenario::RunResult r = scenario::run_scenario(sc);
  EXPECT_TRUE(r.completed) << "every flow finished";
  EXPECT_EQ(r.counters.dropped_packets, 0) << "lossless";
  EXPECT_EQ(r.counters.credit_violations, 0) << "credits never overrun a receiver";
  EXPECT_GT(r.counters.credit_waits, 0) << "small buffers: senders waited for credits";
  EXPECT_LE(r.counters.peak_vl_buffer_fraction, 1.0) << "never above the receiver's buffer";
  // Filled as far as whole packets allow: at least one MTU packet's 65 of the 128 credits (how
  // much more depends on which smaller packets, ACKs and last packets, coincide with it).
  EXPECT_GE(r.counters.peak_vl_buffer_fraction, 65.0 / 128) << "buffers were filled";
  int64_t sent = 0;
  for (const scenario::FlowRecord& f : r.flows) {
    EXPECT_EQ(f.delivered_bytes, f.size_bytes) << "flow " << f.id << ": exactly its bytes, once";
    sent += f.sent_bytes;
  }
  EXPECT_EQ(r.counters.retransmitted_packets, 0) << "nothing was lost, so nothing is resent";
}

TEST(IbCredits, BrokenCreditReturnStallsTheSenderAndIsReported) {
  // The leaf port that receives from NIC 0 never returns credits: NIC 0 can send one buffer's
  // worth (64 KiB = 1024 blocks = 15 packets of 65 blocks) and then waits forever. The head-of-
  // queue lifetime (here 1 ms) turns that into a reported credit stall.
  scenario::Scenario sc = ib_leaf_spine(16, 16, 64 << 10);
  sc.ib.link.hoq_lifetime_ps = 1000 * kPsPerUs;
  sc.credit_loss.switch_index = 0;
  sc.credit_loss.port = 0;  // leaf 0's first port: cabled to NIC 0 (host ports come first)
  sc.workload.kind = workload::WorkloadKind::kPattern;
  sc.workload.pattern = workload::PatternKind::kFlows;
  sc.workload.flows = {{0, 9, 1'000'000, 0}, {1, 10, 1'000'000, 0}};
  sc.stop_time_ps = 5000 * kPsPerUs;
  const scenario::RunResult r = scenario::run_scenario(sc);
  EXPECT_FALSE(r.completed) << "the starved flow cannot finish";
  ASSERT_EQ(r.flows.size(), 2u);
  EXPECT_LT(r.flows[0].finish_ps, 0) << "NIC 0's flow is stuck";
  EXPECT_GE(r.flows[1].finish_ps, 0) << "NIC 1's flow is unaffected";
  EXPECT_EQ(r.flows[0].delivered_bytes, 15 * kMtu)
      << "exactly one buffer of credits (1024 blocks / 65 per packet = 15 packets) got through";
  EXPECT_GE(r.counters.credit_stalls, 1) << "the stall is detected";
  // The 16th packet waited from the moment the 15th left: within a few packet times of 0.
  EXPECT_GE(r.counters.first_credit_stall_ps, 1000 * kPsPerUs) << "not before one lifetime";
  EXPECT_LT(r.counters.first_credit_stall_ps, 1010 * kPsPerUs) << "detected one lifetime after";
  EXPECT_EQ(r.counters.dropped_packets, 0) << "a CA has no HOQ discard: nothing is dropped";
  EXPECT_NE(output::format_summary(r).find("credit STALL"), std::string::npos)
      << "the summary reports it:\n" << output::format_summary(r);
}

TEST(IbCredits, StalledSwitchVlDiscardsAfterTheHeadOfQueueLifetime) {
  // Every spine-facing port of leaf 1 stops returning credits: the spines' ports towards leaf 1
  // stall, and after one HOQ lifetime they discard what waits (IBA VL stall), which is reported.
  scenario::Scenario sc = ib_leaf_spine(16, 16, 64 << 10);
  sc.ib.link.hoq_lifetime_ps = 500 * kPsPerUs;
  sc.workload.kind = workload::WorkloadKind::kPattern;
  sc.workload.pattern = workload::PatternKind::kFlows;
  sc.workload.flows = {{0, 8, 4'000'000, 0}};
  sc.stop_time_ps = 3000 * kPsPerUs;
  scenario::Simulation sim(sc);
  net::Network& net = sim.network();
  const net::Switch& leaf1 = net.switch_at(1);
  for (uint32_t k = 0; k < leaf1.num_ports; ++k) {
    const uint32_t port = leaf1.first_port + k;
    if (!net.port(net.port(port).peer).is_nic) net.break_credit_return(port);
  }
  sim.start_workload();
  sim.run(sc.stop_time_ps);
  const net::NetCounters& nc = net.counters();
  EXPECT_GE(nc.credit_stalls, 1) << "a spine port's VL stalled";
  EXPECT_GT(nc.hoq_discards, 0) << "and discarded its head-of-queue packets";
  EXPECT_GE(nc.first_credit_stall_ps, 500 * kPsPerUs) << "only after one lifetime";
  EXPECT_EQ(nc.credit_violations, 0) << "the sender still never overran credits";
  EXPECT_LT(sim.transport().message(0).rx_done_ps, 0) << "the flow cannot complete";
}

// ---- Default buffers: what a real receiver holds and advertises, and the back-pressure. ----
//
// IBA §7.9: FCTBS and FCCL are 12-bit counts of 64-byte blocks compared modulo 4096, so a
// receiver's limit runs at most 2048 credits = 131,072 bytes ahead of the blocks it has received
// (FCCL = ABR + min(free, 2048)); what it may hold is its whole VL buffer (net/config.h).

TEST(IbCreditDefaults, EveryPortHoldsItsShareAndAdvertisesAtMostTheWindow) {
  // Default switch buffer (64 MiB) over 8 ports and 1 VL: 8 MiB = 131,072 blocks per VL; the
  // HCA the ConnectX port buffer, 262,016 B = 4094 blocks. Every sender starts with the window.
  scenario::Scenario sc = ib_leaf_spine(8, 16, 0);
  sc.switch_config.buffer_bytes = 64ll << 20;
  auto expect = [&](auto buffer_blocks, const std::string& what) {
    scenario::Simulation sim(sc);
    const net::Network& net = sim.network();
    for (uint32_t id = 0; id < net.num_ports(); ++id) {
      const net::Port& p = net.port(id);
      const uint32_t ports = p.is_nic ? 0 : net.switch_at(p.switch_index).num_ports;
      const uint32_t blocks = buffer_blocks(p.is_nic, ports);
      EXPECT_EQ(net.queues(id).rx_buffer_blocks, blocks)
          << what << ": port " << id << (p.is_nic ? " (HCA)" : " (switch)");
      const net::PortQueues& sender = net.queues(p.peer);
      EXPECT_EQ(sender.fc_limit_blocks[0] - sender.fc_sent_blocks[0], std::min(blocks, 2048u))
          << what << ": the sender into port " << id << " starts with min(buffer, window)";
    }
  };
  expect([](bool nic, uint32_t ports) { return nic ? 4094u : (64u << 20) / 64 / ports; },
         "64 MiB, 1 VL");
  // Four data VLs: a switch port's share 64 MiB / ports / 4; the ConnectX port buffer
  // 262,016 / 4 = 65,504 bytes = 1023 whole credits, below the window.
  sc.ib.link.data_vls = 4;
  expect([](bool nic, uint32_t ports) { return nic ? 1023u : (64u << 20) / 64 / ports / 4; },
         "64 MiB, 4 VLs");
  // A 512 KiB switch buffer: a leaf's 8 ports get 65,536 bytes = 1024 credits each, a spine's 4
  // ports exactly the window.
  sc.ib.link.data_vls = 1;
  sc.switch_config.buffer_bytes = 512 << 10;
  expect([](bool nic, uint32_t ports) { return nic ? 4094u : (512u << 10) / 64 / ports; },
         "512 KiB, 1 VL");
}

TEST(IbCreditDefaults, ABufferBeyondTheSwitchShareIsRefusedNotClamped) {
  // 16 MiB switch buffer (ib_leaf_spine) over a leaf's 8 ports: 2 MiB per port and VL at most.
  scenario::Scenario sc = ib_leaf_spine(8, 16, (2 << 20) + 64);
  try {
    scenario::Simulation sim(sc);
    FAIL() << "a VL buffer beyond the switch's share must be refused";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key_path(), "fabric.ib.vl_buffer");
    EXPECT_NE(std::string(e.what()).find("exceeds the switch buffer"), std::string::npos)
        << e.what();
  }
  sc.ib.link.vl_buffer_bytes = 2 << 20;
  EXPECT_NO_THROW(scenario::Simulation{sc}) << "exactly the share is allowed";
  // Beyond 128 KiB is a buffer, not a refusal: the window bounds what is in flight, not held.
  const std::string yaml =
      "fabric:\n  technology: ib\n  ib:\n    vl_buffer: 256KiB\n"
      "topology: {kind: leaf_spine, radix: 8}\nhosts: {count: 16}\n";
  EXPECT_NO_THROW(scenario::load_scenario_string(yaml, "buf.yaml"));
}

TEST(IbCreditDefaults, AVlBufferBeyondTheWindowHoldsMoreThanTheWindow) {
  // Four senders on leaves 1-2 into NIC 0 at 100 Gb/s with 1 MiB per switch VL buffer: leaf 0's
  // downlink drains a quarter of what arrives, so its ingress VL buffers (each fed by one spine
  // at line rate) fill beyond the 2048-block window: the limit moves on arrival (ABR) while free
  // space exceeds the window. Senders never hold more than the window of credits.
  scenario::Scenario sc = ib_leaf_spine(8, 16, 1 << 20);
  scenario::Simulation sim(sc);
  for (const uint32_t s : {4u, 5u, 8u, 9u}) sim.transport().post(s, 0, 2'000'000, 0);
  for (int64_t t = 10; t <= 400; t += 10) {
    sim.run(t * kPsPerUs);
    expect_credit_invariants(sim.network(), "at " + std::to_string(t) + " us");
  }
  sim.run();
  const net::Network& net = sim.network();
  uint32_t peak = 0;
  for (uint32_t id = 0; id < net.num_ports(); ++id) {
    if (!net.port(id).is_nic) peak = std::max(peak, net.queues(id).peak_rx_blocks);
  }
  EXPECT_GT(peak, 2048u) << "some switch VL held more than the window";
  EXPECT_LE(peak, (1u << 20) / 64);
  EXPECT_EQ(net.counters().credit_violations, 0);
  EXPECT_EQ(net.counters().dropped_packets, 0);
}

TEST(IbCreditDefaults, PermutationOnAK8FatTreeShowsBackPressure) {
  // Issue 8's criterion: bench/permutation-k8.yaml as an IB subnet (static ftree routes). Colliding
  // flows fill the VL buffers of the shared path, so senders upstream must wait for credits.
  // The VL buffer is what a 64-port switch's share of 64 MiB is (1 MiB): the default radix-8
  // switch's share, 8 MiB, would hold the 2 MB flows' collisions whole.
  scenario::Scenario sc;
  sc.seed = 1;
  sc.technology = scenario::Technology::kInfiniband;
  sc.topology.tiers = 3;
  sc.topology.radix = 8;
  sc.topology.hosts = 128;
  sc.link.rate_bps = static_cast<int64_t>(kRateBps);
  sc.workload.kind = workload::WorkloadKind::kPattern;
  sc.workload.pattern = workload::PatternKind::kPermutation;
  sc.workload.flow_size_bytes = 2'000'000;
  sc.ib.link.vl_buffer_bytes = 1 << 20;
  const scenario::RunResult r = scenario::run_scenario(sc);
  ASSERT_TRUE(r.completed);
  EXPECT_GT(r.counters.credit_waits, 0) << "credits must bind";
  EXPECT_EQ(r.counters.dropped_packets, 0) << "lossless";
  EXPECT_EQ(r.counters.credit_violations, 0);
  EXPECT_LE(r.counters.peak_vl_buffer_fraction, 1.0);
  // A VL buffer of 16,384 blocks holds at most 252 whole 65-block packets (16,380 blocks).
  EXPECT_GE(r.counters.peak_vl_buffer_fraction, 0.99) << "some VL buffer filled up";
}

TEST(IbCreditDefaults, IncastSendersRunAheadOfTheBottleneckByNoMoreThanThePathBuffers) {
  // Six senders on leaves 1 and 2 into NIC 0 (radix-8 leaf-spine, 100 Gb/s, default buffers).
  // Back-pressure means a sender can be ahead of what NIC 0 has received by at most what the
  // VL buffers along its path hold: its leaf's ingress, the spine's ingress and leaf 0's ingress,
  // 131,072 bytes each (an HCA frees blocks on arrival), plus one packet on each of the four
  // 3 m cables (15 ns each, less than one 330 ns packet) and one being clocked out. In payload:
  // 3 x 131072 x 4096/4122 + 5 x 4096 = 411,222 bytes. Without back-pressure (megabyte VL
  // buffers) each sender runs at line rate while NIC 0 takes a sixth: after 100 us the gap
  // would be 5/6 x 1.25 MB, over 1 MB. The VL buffers are set to the window (128 KiB), below
  // the default share, so that buffer and window coincide.
  scenario::Scenario sc = ib_leaf_spine(8, 16, 131072);
  sc.switch_config.buffer_bytes = 64ll << 20;
  scenario::Simulation sim(sc);
  constexpr int64_t kFlow = 2'000'000;
  for (const uint32_t s : {4u, 5u, 6u, 8u, 9u, 10u}) sim.transport().post(s, 0, kFlow, 0);
  const double bound = 3 * 131072.0 * kMtu / (kMtu + 26) + 5 * kMtu;
  double widest = 0;
  for (int64_t t = 20; t <= 900; t += 20) {
    sim.run(t * kPsPerUs);
    for (uint32_t m = 0; m < sim.transport().num_messages(); ++m) {
      const auto& msg = sim.transport().message(m);
      const double gap = static_cast<double>(msg.sent_bytes - msg.delivered_bytes);
      widest = std::max(widest, gap);
      ASSERT_LE(gap, bound) << "message " << m << " at " << t << " us";
    }
  }
  sim.run();
  EXPECT_GT(sim.network().counters().credit_waits, 0);
  EXPECT_GT(widest, 131072.0 * kMtu / (kMtu + 26))
      << "a flow's data did sit in more than one switch's VL buffer";
}

}  // namespace ib_credit_test
}  // namespace fabricsim
