// Priority flow control (IEEE 802.1Qbb; SPEC §8 "PFC") on RoCEv2 incasts: what PFC guarantees.
// Lossless N:1 incasts, PAUSE propagating hop by hop to the senders, and headroom sized by the
// mlx5 formula. The fabric, the formulas and the probes are in pfc_fabric.h; PAUSE timing and the
// pathologies (storm, head-of-line blocking) are in pfc_pause_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "pfc_fabric.h"

namespace fabricsim::pfc_test {
namespace pfc_test {

// ---------------------------------------------------------------------------------------------
// 1. N:1 incast. Leaf-spine radix 16 (above), 64 NICs, a 1 MiB switch buffer; N random senders
// of 1 MB each into NIC 0.
//   PFC off: the shared buffer admits a queue while it is below the free buffer (alpha = 1), so
//   one egress queue holds at most 512 KiB; N >= 2 line-rate senders into one 100 Gb/s port add
//   (N-1) x 100 Gb/s of backlog for 80 us, ~(N-1) MB > 512 KiB: tail drops.
//   PFC on: leaf ports hold 1 MiB / 16 = 65536 bytes per ingress port, XOFF = 65536 - 41841 =
//   23695; nothing of the data class may be dropped, the senders are paused instead, and the
//   bottleneck stays busy: aggregate goodput close to B (header comment).
class PfcIncast : public ::testing::TestWithParam<int> {};

scenario::Scenario incast(int senders, bool pfc) {
  scenario::Scenario sc = leaf_spine(16, 64, 1 << 20, pfc);
  sc.workload.kind = workload::WorkloadKind::kPattern;
  sc.workload.pattern = workload::PatternKind::kIncast;
  sc.workload.incast_senders = senders;
  sc.workload.incast_receiver = 0;
  sc.workload.flow_size_bytes = kFlowBytes;
  return sc;
}

TEST_P(PfcIncast, LosslessWithPfcAndLossyWithout) {
  const int n = GetParam();
  const scenario::RunResult lossy = scenario::run_scenario(incast(n, false));
  EXPECT_GT(lossy.counters.dropped_packets, 0)
      << n << ":1 incast into a 1 MiB buffer without PFC must overflow (drops expected)";
  EXPECT_EQ(lossy.counters.pause_frames, 0) << "no PAUSE frames with PFC off";

  const scenario::RunResult r = scenario::run_scenario(incast(n, true));
  ASSERT_TRUE(r.completed) << n << ":1 incast with PFC did not complete";
  ASSERT_EQ(r.flows.size(), static_cast<size_t>(n)) << "one flow per sender";
  EXPECT_EQ(r.counters.dropped_packets, 0) << n << ":1 with PFC: no packet may be dropped";
  EXPECT_EQ(r.counters.lossless_drops, 0) << n << ":1 with PFC: headroom never overflows";
  EXPECT_EQ(r.counters.retransmitted_packets, 0) << "nothing lost, nothing retransmitted";
  EXPECT_GT(r.counters.pause_frames, 0) << n << ":1 into one port must trigger PAUSE";
  EXPECT_GT(r.counters.nic_ports_paused, 0) << "the senders' NIC ports are paused";
  EXPECT_LE(r.counters.nic_ports_paused, n) << "only sending NICs can be paused";

  int64_t first_start = INT64_MAX, last_finish = 0, bytes = 0;
  std::set<uint32_t> sources;
  for (const scenario::FlowRecord& f : r.flows) {
    EXPECT_EQ(f.dst_nic, 0u) << "flow " << f.id << " goes to the receiver";
    sources.insert(f.src_nic);
    EXPECT_GE(f.finish_ps, 0) << "flow " << f.id << " did not finish";
    EXPECT_EQ(f.sent_bytes, f.delivered_bytes + f.dropped_bytes)
        << "flow " << f.id << ": sent != delivered + dropped";
    EXPECT_EQ(f.sent_bytes, kFlowBytes) << "flow " << f.id << " sent each byte exactly once";
    EXPECT_EQ(f.delivered_bytes, kFlowBytes) << "flow " << f.id << " delivered exactly its size";
    first_start = std::min(first_start, f.start_ps);
    last_finish = std::max(last_finish, f.finish_ps);
    bytes += f.size_bytes;
  }
  EXPECT_EQ(sources.size(), static_cast<size_t>(n)) << "N distinct senders";
  const double bound_bps = kRateBps * kFlowBytes / message_wire_bytes(kFlowBytes);  // 98.02 Gb/s
  const double goodput_bps = bytes * 8.0 / ((last_finish - first_start) * 1e-12);
  EXPECT_LE(goodput_bps, bound_bps) << "faster than the bottleneck allows";
  EXPECT_GE(goodput_bps, 0.98 * bound_bps)
      << n << ":1 with PFC: goodput " << goodput_bps / 1e9 << " Gb/s, bound " << bound_bps / 1e9
      << " Gb/s: the paused fabric should keep the receiver's port busy";
  std::printf("[ measured ] %d:1 PFC off: %lld drops, %lld timeouts, sim time %.1f us; PFC on: "
              "goodput %.2f Gb/s (bound %.2f), %lld pause frames, %lld NIC ports paused, "
              "paused %.1f us (port total)\n",
              n, static_cast<long long>(lossy.counters.dropped_packets),
              static_cast<long long>(lossy.counters.timeouts), lossy.sim_time_ps / 1e6,
              goodput_bps / 1e9, bound_bps / 1e9, static_cast<long long>(r.counters.pause_frames),
              static_cast<long long>(r.counters.nic_ports_paused), r.counters.paused_ps / 1e6);
}

INSTANTIATE_TEST_SUITE_P(Pfc, PfcIncast, ::testing::Values(2, 8, 32),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return std::to_string(info.param) + "to1";
                         });

// ---------------------------------------------------------------------------------------------
// 2. PAUSE goes upstream hop by hop. Same fabric, PFC on, 16 senders NICs 8-23 (leaf1, leaf2)
// into R = NIC 0 (leaf0): every packet takes sender -> leaf1/2 -> spine -> leaf0 -> R.
//   leaf0's ingress ports from the spines fill (its egress to R runs at 1/16 of the offered
//   load) -> leaf0 PAUSEs the spines' ports towards leaf0 -> those queues back up into the
//   spines' ingress ports from leaf1/leaf2 -> the spines PAUSE leaf1/leaf2's uplinks -> their
//   queues back up into the leaves' ingress ports from the NICs -> the senders' NICs are paused.
TEST(PfcPropagation, PauseReachesTheSendersLeafAndNics) {
  scenario::Simulation sim(leaf_spine(16, 64, 1 << 20, true));
  // Thresholds from the default partition, switch buffer / its port count: a leaf has 16 ports
  // (65536 bytes each, XOFF 23695), a spine 8 (one per leaf: 131072 bytes, XOFF 89231).
  {
    const net::Network& net = sim.network();
    const int64_t headroom = mlx5_headroom(3.0, 100.0, kMtu);  // 41841
    ASSERT_EQ(headroom, 41841) << "(301 + 648 / 100) x 100000 / 1000 + 272 x 4096 / 100";
    for (uint32_t p = 0; p < net.num_ports(); ++p) {
      if (net.port(p).is_nic) continue;
      const int64_t ports = net.switch_at(net.port(p).switch_index).tier == 2 ? 8 : 16;
      const int64_t buffer = (1 << 20) / ports;
      EXPECT_EQ(net.queues(p).pfc_xoff_bytes, buffer - headroom) << "port " << p << " XOFF";
      EXPECT_EQ(net.queues(p).pfc_xon_bytes, buffer - headroom - kMtu) << "port " << p << " XON";
      EXPECT_EQ(net.queues(p).pfc_limit_bytes, buffer) << "port " << p << " limit";
    }
  }
  const uint32_t receiver = 0;
  std::vector<uint32_t> senders;
  for (uint32_t s = 8; s < 24; ++s) {
    senders.push_back(s);
    sim.transport().post(s, receiver, kFlowBytes, 0);
  }
  ASSERT_TRUE(sim.run()) << "the incast finishes";
  const net::Network& net = sim.network();
  EXPECT_EQ(net.counters().dropped_packets, 0) << "lossless: no drop anywhere";
  for (uint32_t m = 0; m < senders.size(); ++m) {
    EXPECT_GE(fct_ps(sim, m), 0) << "flow from NIC " << senders[m] << " finished";
  }

  const uint32_t leaf0 = net.switch_node(leaf_of(net, receiver));
  int64_t leaf0_sent = 0, spine_rx_from_leaf0 = 0, spine_sent_up = 0, leaf12_rx = 0,
          leaf12_sent_down = 0;
  for (uint32_t s : spines(net)) {
    const uint32_t spine = net.switch_node(s);
    leaf0_sent += pauses_sent(net, ports_towards(net, leaf0, spine));
    spine_rx_from_leaf0 += pauses_received(net, ports_towards(net, spine, leaf0));
    for (uint32_t leaf : {leaf_of(net, 8), leaf_of(net, 16)}) {
      const uint32_t l = net.switch_node(leaf);
      spine_sent_up += pauses_sent(net, ports_towards(net, spine, l));
      leaf12_rx += pauses_received(net, ports_towards(net, l, spine));
    }
  }
  int64_t paused_nics = 0;
  for (uint32_t s : senders) {
    const uint32_t leaf = net.switch_node(leaf_of(net, s));
    leaf12_sent_down += pauses_sent(net, ports_towards(net, leaf, net.nic_node(s)));
    paused_nics += net.queues(net.nic_port(s)).pause_frames_received > 0;
  }
  EXPECT_GT(leaf0_sent, 0) << "hop 1: leaf0 PAUSEs the spines (its ingress from them fills)";
  EXPECT_EQ(spine_rx_from_leaf0, leaf0_sent) << "every PAUSE leaf0 sent arrived at a spine";
  EXPECT_GT(spine_sent_up, 0) << "hop 2: spines PAUSE the senders' leaves";
  EXPECT_EQ(leaf12_rx, spine_sent_up) << "every PAUSE a spine sent up arrived at leaf1/leaf2";
  EXPECT_GT(leaf12_sent_down, 0) << "hop 3: the senders' leaves PAUSE the sending NICs";
  EXPECT_GT(paused_nics, 0) << "sender NIC ports received PAUSE (nic_ports_paused > 0)";
  // Nobody pauses the receiver or the idle NICs.
  for (uint32_t nic = 0; nic < net.num_nics(); ++nic) {
    if (nic >= 8 && nic < 24) continue;
    EXPECT_EQ(net.queues(net.nic_port(nic)).pause_frames_received, 0)
        << "NIC " << nic << " sends no data (or only ACKs) and must never be paused";
  }
  std::printf("[ measured ] 16 senders on leaf1/2: PAUSE sent by leaf0 %lld, by spines up %lld, "
              "by leaf1/2 to NICs %lld; %lld of 16 sender NICs paused\n",
              static_cast<long long>(leaf0_sent), static_cast<long long>(spine_sent_up),
              static_cast<long long>(leaf12_sent_down), static_cast<long long>(paused_nics));
}

// ---------------------------------------------------------------------------------------------
// 3. Headroom. Leaf-spine radix 8 (4 leaves x 4 spines, 16 NICs), 100 Gb/s, a long cable on
// every link, fabric.pfc.port_buffer = 160000 bytes, 8 senders on leaf1/leaf2 into NIC 0.
//   headroom(100 m) = (301 + 216) x 100 + 11141 = 62841  -> XOFF 97159, XON 93063
//   headroom(300 m) = (301 + 648) x 100 + 11141 = 106041 -> XOFF 53959, XON 49863
// What can still arrive after XOFF is crossed: the PAUSE waits for at most one frame, crosses
// the cable (+ the far switch's 450 ns), the upstream finishes its frame, and what it already
// sent is on the cable: about 100 Gb/s x (2 x (1.5 us + 0.45 us) + 2 x 0.33 us) = 57 KB at
// 300 m, within the formula's headroom. A 2000-byte headroom is far below it: drops.
scenario::Scenario long_cables(double cable_m, int64_t headroom_bytes) {
  scenario::Scenario sc = leaf_spine(8, 16, 64ll << 20, true);
  sc.link.cable_m = cable_m;
  sc.switch_config.pfc.port_buffer_bytes = 160'000;
  sc.switch_config.pfc.headroom_bytes = headroom_bytes;
  return sc;
}

void post_cross_fabric_incast(scenario::Simulation& sim) {
  for (uint32_t s = 4; s < 12; ++s) sim.transport().post(s, 0, kFlowBytes, 0);
}

class PfcHeadroom : public ::testing::TestWithParam<double> {};

TEST_P(PfcHeadroom, FormulaHeadroomIsLosslessAndThresholdsMatchIt) {
  const double cable_m = GetParam();
  scenario::Simulation sim(long_cables(cable_m, 0));
  const net::Network& net = sim.network();
  const int64_t headroom = mlx5_headroom(cable_m, 100.0, kMtu);
  int checked = 0;
  for (uint32_t p = 0; p < net.num_ports(); ++p) {
    const net::PortQueues& q = net.queues(p);
    // A NIC port's buffer is its receive buffer (fabric.nic.rx_buffer, 1 MiB default).
    const int64_t buffer = net.port(p).is_nic ? (1 << 20) : 160'000;
    EXPECT_EQ(q.pfc_xoff_bytes, buffer - headroom)
        << "port " << p << ": XOFF = buffer - headroom at " << cable_m << " m";
    EXPECT_EQ(q.pfc_xon_bytes, buffer - headroom - kMtu) << "port " << p << ": XON = XOFF - MTU";
    EXPECT_EQ(q.pfc_limit_bytes, buffer) << "port " << p << ": drop only beyond XOFF + headroom";
    ++checked;
  }
  EXPECT_EQ(checked, 2 * 16 + 2 * 16) << "16 NIC cables + 16 leaf-spine cables, two ports each";

  post_cross_fabric_incast(sim);
  ASSERT_TRUE(sim.run()) << "the incast finishes";
  EXPECT_EQ(net.counters().lossless_drops, 0)
      << "formula headroom at " << cable_m << " m must absorb what is in flight";
  EXPECT_EQ(net.counters().dropped_packets, 0) << "no drop of any kind";
  EXPECT_GT(net.counters().pause_frames, 0) << "the thresholds were reached";
  for (uint32_t m = 0; m < 8; ++m) EXPECT_GE(fct_ps(sim, m), 0) << "flow " << m << " finished";
}

TEST_P(PfcHeadroom, UndersizedHeadroomDropsLosslessPackets) {
  const double cable_m = GetParam();
  scenario::Simulation sim(long_cables(cable_m, 2000));
  const net::Network& net = sim.network();
  for (uint32_t p = 0; p < net.num_ports(); ++p) {
    if (net.port(p).is_nic) continue;
    ASSERT_EQ(net.queues(p).pfc_xoff_bytes, 158'000) << "XOFF = 160000 - 2000";
  }
  post_cross_fabric_incast(sim);
  ASSERT_TRUE(sim.run()) << "go-back-N recovers the drops";
  const net::NetCounters& c = net.counters();
  EXPECT_GT(c.lossless_drops, 0)
      << "a 2000-byte headroom at " << cable_m << " m cannot absorb the in-flight data: PFC "
      << "is only as lossless as its headroom";
  EXPECT_EQ(c.dropped_packets, c.lossless_drops) << "every drop is a headroom overflow";
  std::printf("[ measured ] %.0f m, 2000 B headroom: %lld lossless drops, %lld pause frames\n",
              cable_m, static_cast<long long>(c.lossless_drops),
              static_cast<long long>(c.pause_frames));
}

INSTANTIATE_TEST_SUITE_P(Pfc, PfcHeadroom, ::testing::Values(100.0, 300.0),
                         [](const ::testing::TestParamInfo<double>& info) {
                           return std::to_string(static_cast<int>(info.param)) + "m";
                         });
}  // namespace pfc_test
}  // namespace fabricsim::pfc_test
