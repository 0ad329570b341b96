// Priority flow control (IEEE 802.1Qbb; SPEC §8 "PFC", shared/reference/rocev2.md §2) on
// RoCEv2 incasts, checked against figures derived here, not read back from the simulator.
//
// Leaf-spine, radix 16, 100 Gb/s, 3 m cables (the incast tests):
//
//     spine8  spine9 ... spine15           8 spines, every leaf cabled to every spine
//        \  \   |   /   /
//     leaf0  leaf1  ...  leaf7             8 NICs per leaf: NICs 0-7 on leaf0, 8-15 on leaf1, ...
//     R=NIC0
//
// Tests 1-6 use the static split (fabric.pfc.threshold: static); tests 7-9 the default dynamic
// shared-pool threshold. Per ingress port and lossless class (SPEC §8, Linux mlx5
// calculate_xoff() in integer arithmetic):
//   headroom = (301 + 216 x cable_m / 100) x speed_Mbps / 1000 + 272 x MTU / 100     bytes
//   static:  XOFF = port buffer - headroom,  XON = XOFF - MTU
// with the port buffer = switch buffer / ports of that switch unless fabric.pfc.port_buffer is
// set. At 100 Gb/s, 3 m and MTU 4096: headroom = 307 x 100 + 11141 = 41841 bytes.
//
// Goodput into one receiver: only data crosses the bottleneck (leaf0 -> R); ACKs go the other
// way. A message of S bytes is ceil(S/4096) packets of 82 bytes overhead each plus one 16-byte
// RETH, so the bottleneck delivers at most  B = 100 Gb/s x S / (S + 82 ceil(S/4096) + 16).
// A PAUSE quantum is 512 bit times: 5.12 ns at 100 Gb/s.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "net/network.h"
#include "engine/run.h"
#include "engine/packet/simulation.h"

namespace fabricsim {
namespace {

constexpr double kRateBps = 100e9;
constexpr int64_t kMtu = 4096;
constexpr int64_t kFlowBytes = 1'000'000;  // a multiple of 4: no BTH pad on the last packet
constexpr uint8_t kDataClass = 1u << 3;    // RoCE data priority 3 (transport default)
constexpr int64_t kPsPerUs = 1'000'000;

int64_t packets(int64_t bytes) { return (bytes + kMtu - 1) / kMtu; }
// Wire bytes of one RDMA WRITE: payload + 82 per packet + the RETH on its first packet.
int64_t message_wire_bytes(int64_t bytes) { return bytes + 82 * packets(bytes) + 16; }
// Time to serialize `bytes` of wire at 100 Gb/s, in ps.
double wire_ps(double bytes) { return bytes * 8.0 / kRateBps * 1e12; }
// mlx5 calculate_xoff() headroom, integer arithmetic as in the driver (whole metres).
int64_t mlx5_headroom(double cable_m, double gbps, int64_t mtu) {
  const int64_t len = std::llround(cable_m);
  const int64_t mbps = std::max<int64_t>(std::llround(gbps * 1000), 40'000);
  return (301 + 216 * len / 100) * mbps / 1000 + 272 * mtu / 100;
}

// Leaf-spine of `radix`, `hosts` NICs at 100 Gb/s over 3 m cables; PFC as asked.
scenario::Scenario leaf_spine(int radix, int hosts, int64_t switch_buffer, bool pfc,
                              net::PfcThreshold mode = net::PfcThreshold::kStatic) {
  scenario::Scenario sc;
  sc.switch_config.pfc.threshold = mode;
  sc.seed = 3;
  sc.topology.tiers = 2;
  sc.topology.radix = radix;
  sc.topology.hosts = hosts;
  // The fabrics drawn in this file: one spine per leaf uplink, one cable per leaf-spine pair
  // (the partial tree's default builds half as many spines with 2 cables per pair).
  sc.topology.upper_tiers = topo::UpperTiers::kFull;
  sc.link.rate_bps = static_cast<int64_t>(kRateBps);
  sc.link.cable_m = 3.0;
  sc.switch_config.buffer_bytes = switch_buffer;
  sc.switch_config.pfc.enabled = pfc;
  sc.roce.ack_timeout_exponent = 8;  // 1.05 ms: lossy runs recover quickly
  return sc;
}

// The ports of node `from` whose cable leads to node `to`.
std::vector<uint32_t> ports_towards(const net::Network& net, uint32_t from, uint32_t to) {
  std::vector<uint32_t> out;
  for (uint32_t k = 0; k < net.node_port_count(from); ++k) {
    const uint32_t p = net.node_first_port(from) + k;
    if (net.port_node(net.port(p).peer) == to) out.push_back(p);
  }
  return out;
}

int64_t pauses_sent(const net::Network& net, const std::vector<uint32_t>& ports) {
  int64_t n = 0;
  for (uint32_t p : ports) n += net.queues(p).pause_frames_sent;
  return n;
}
int64_t pauses_received(const net::Network& net, const std::vector<uint32_t>& ports) {
  int64_t n = 0;
  for (uint32_t p : ports) n += net.queues(p).pause_frames_received;
  return n;
}

std::vector<uint32_t> spines(const net::Network& net) {
  std::vector<uint32_t> out;
  for (uint32_t s = 0; s < net.num_switches(); ++s) {
    if (net.switch_at(s).tier == 2) out.push_back(s);
  }
  return out;
}

uint32_t leaf_of(const net::Network& net, uint32_t nic) {
  return net.leaf_switch(net.leaf_slot_of_nic(nic));
}

int64_t fct_ps(scenario::Simulation& sim, uint32_t msg) {
  const transport::MessageRecord& m = sim.transport().message(msg);
  return m.rx_done_ps < 0 ? -1 : m.rx_done_ps - m.post_ps;
}

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

// ---------------------------------------------------------------------------------------------
// 4. PAUSE timing. Radix 8 leaf-spine, PFC on, one 1 MB flow NIC 1 -> NIC 0 (both on leaf0):
//
//     NIC1 ──► leaf0 ──► NIC0        leaf0's port towards NIC0 is the one paused
//
// (a) Expiry: NIC 0's MAC sends one PAUSE (quanta Q = 10000) and no refresh: leaf0's port
// towards NIC 0 stops for Q x 512 / 100e9 s = 51.2 us and then resumes on its own. The flow's
// last byte is late by that time less what was left of the frame on the wire when the PAUSE
// arrived (at most one 4178-byte frame, 334.24 ns).
// (b) RESUME: PAUSE(65535) and PAUSE(0) injected ~30 us apart: paused exactly from one to the
// other (both cross the same cable), far short of the 335 us the first one asked for.
// The frames are injected as NIC 0's MAC would send them (Network::nic_send): every PFC sender
// in the model refreshes its PAUSE while congested, so an unrefreshed PAUSE can only be
// injected. A frame entering that way counts as in flight and is never delivered, so sim.run()
// ends when the events run out rather than when the fabric is empty; timings are unaffected.
net::Packet pause_frame(uint32_t nic, int quanta) {
  net::Packet f;
  f.type = net::PacketType::kPause;
  f.qp = kDataClass;
  f.psn = static_cast<uint32_t>(quanta);
  f.frame_bytes = 64;
  f.priority = 7;  // ahead of any queued ACK
  f.src_nic = f.dst_nic = nic;
  return f;
}

// Injects the listed PAUSE frames from NIC 0, each when NIC 1 (the sender, transmitting
// continuously at line rate) starts its first frame at or after the listed time. Injecting from
// the frame tap ties each PAUSE to a frame boundary of the sender, which makes the expected
// paused time exact.
struct Injector {
  net::Network* net = nullptr;
  uint32_t trigger_port = 0;
  std::vector<std::pair<int64_t, int>> pauses;  // (not before, quanta)
  size_t next = 0;
  std::vector<int64_t> sent_at;
  static void on_transmit(void* ctx, int64_t time_ps, uint32_t port, const net::Packet&) {
    auto* self = static_cast<Injector*>(ctx);
    if (port != self->trigger_port || self->next >= self->pauses.size()) return;
    if (time_ps < self->pauses[self->next].first) return;
    self->sent_at.push_back(time_ps);
    self->net->nic_send(0, pause_frame(0, self->pauses[self->next++].second));
  }
};

struct TimedRun {
  int64_t fct = -1;
  int64_t paused_ps = 0;       // leaf0's port towards NIC 0
  int64_t pauses_received = 0;
  std::vector<int64_t> injected_at;
};

TimedRun single_flow(const std::vector<std::pair<int64_t, int>>& pauses) {
  scenario::Simulation sim(leaf_spine(8, 16, 64ll << 20, true));
  net::Network& net = sim.network();
  Injector inj;
  inj.net = &net;
  inj.trigger_port = net.nic_port(1);
  inj.pauses = pauses;
  net.set_tap(net::Tap{&inj, &Injector::on_transmit});
  const uint32_t msg = sim.transport().post(1, 0, kFlowBytes, 0);
  sim.run();
  net.finish_pause_accounting();
  const uint32_t leaf_port =
      ports_towards(net, net.switch_node(leaf_of(net, 0)), net.nic_node(0))[0];
  EXPECT_EQ(net.counters().dropped_packets, 0) << "nothing dropped";
  EXPECT_EQ(inj.next, pauses.size()) << "every PAUSE was injected";
  TimedRun out;
  out.fct = fct_ps(sim, msg);
  out.paused_ps = net.queues(leaf_port).paused_ps;
  out.pauses_received = net.queues(leaf_port).pause_frames_received;
  out.injected_at = inj.sent_at;
  return out;
}

TEST(PfcTiming, PauseExpiresAfterQuantaAndResumeEndsIt) {
  const TimedRun base = single_flow({});
  ASSERT_GT(base.fct, 0) << "the flow finishes";
  EXPECT_EQ(base.paused_ps, 0) << "nothing paused without a PAUSE";

  const int quanta = 10000;
  const int64_t pause_ps = std::llround(quanta * 512.0 / kRateBps * 1e12);  // 51.2 us
  const int64_t frame_ps = std::llround(wire_ps(4096 + 82));                // 334.24 ns
  const TimedRun late = single_flow({{20 * kPsPerUs, quanta}});
  EXPECT_EQ(late.pauses_received, 1) << "one PAUSE, no refresh";
  EXPECT_EQ(late.paused_ps, pause_ps) << "paused exactly quanta x 512 bit times (51.2 us), got "
                                      << late.paused_ps / 1e6 << " us";
  EXPECT_LE(late.fct - base.fct, pause_ps) << "the flow is late by at most the pause";
  EXPECT_GE(late.fct - base.fct, pause_ps - frame_ps - 1)
      << "the flow is late by the pause less at most one frame already on the wire";

  const TimedRun resumed = single_flow({{20 * kPsPerUs, 65535}, {50 * kPsPerUs, 0}});
  ASSERT_EQ(resumed.injected_at.size(), 2u) << "PAUSE and RESUME injected";
  const int64_t gap = resumed.injected_at[1] - resumed.injected_at[0];
  EXPECT_EQ(resumed.pauses_received, 2) << "PAUSE and RESUME";
  // The PAUSE may wait behind an ACK NIC 0 is sending (86 bytes, 6.88 ns); RESUME finds the NIC
  // idle (nothing arrives while its switch port is paused, so it has nothing to ACK).
  EXPECT_LE(resumed.paused_ps, gap) << "paused from PAUSE to RESUME";
  EXPECT_GE(resumed.paused_ps, gap - 7000) << "paused from PAUSE to RESUME";
  EXPECT_LE(resumed.fct - base.fct, gap) << "late by at most the pause";
  EXPECT_GE(resumed.fct - base.fct, gap - frame_ps - 7000) << "late by about the pause";
  std::printf("[ measured ] PAUSE(10000): paused %.4f us, flow late by %.4f us; PAUSE/RESUME "
              "%.4f us apart: paused %.4f us, flow late by %.4f us\n",
              late.paused_ps / 1e6, (late.fct - base.fct) / 1e6, gap / 1e6,
              resumed.paused_ps / 1e6, (resumed.fct - base.fct) / 1e6);
}

// (c) Refresh under a stall. NIC 0 stops draining at 20 us and resumes at 120 us; its receive
// buffer (fabric.nic.rx_buffer) is 128 KiB, XOFF = 131072 - 41841 = 89231 bytes = 22 frames of
// 4158 bytes (4096 payload + 62 frame overhead) arriving every 334.24 ns at line rate, so NIC 0
// sends PAUSE about 21 frame times (7.02 us, + up to one frame) after the stall starts, and
// RESUME at 120 us when it drains. Both cross the same cable, so leaf0's port is paused for
// 100 - 7.02 us (- up to 0.33 us). With pause quanta 100 (0.512 us) the pause would expire
// 60 times over without the half-period refresh (every 0.256 us): the count of PAUSE frames
// received shows the refresh, and no packet may be lost.
TEST(PfcTiming, StalledNicRefreshesPauseUntilItDrains) {
  scenario::Scenario sc = leaf_spine(8, 16, 64ll << 20, true);
  sc.nic.rx_buffer_bytes = 128 << 10;
  sc.switch_config.pfc.pause_quanta = 100;
  scenario::Simulation sim(sc);
  const uint32_t msg = sim.transport().post(1, 0, kFlowBytes, 0);
  sim.scheduler().at(20 * kPsPerUs, kNicStall, 0);
  sim.scheduler().at(120 * kPsPerUs, kNicResume, 0);
  ASSERT_TRUE(sim.run()) << "the flow finishes after the stall";
  net::Network& net = sim.network();
  net.finish_pause_accounting();
  EXPECT_EQ(net.counters().dropped_packets, 0) << "lossless through a 100 us stall";
  EXPECT_GE(fct_ps(sim, msg), 100 * kPsPerUs) << "the stall delays the flow";

  const uint32_t leaf_port =
      ports_towards(net, net.switch_node(leaf_of(net, 0)), net.nic_node(0))[0];
  const net::PortQueues& q = net.queues(leaf_port);
  const int64_t xoff = (128 << 10) - mlx5_headroom(3.0, 100.0, kMtu);
  EXPECT_EQ(net.queues(net.nic_port(0)).pfc_xoff_bytes, xoff) << "NIC XOFF = rx buffer - headroom";
  const int64_t frames_to_xoff = (xoff + 4157) / 4158;  // 22
  const double fill_ps = (frames_to_xoff - 1) * wire_ps(4096 + 82);
  const double expected_ps = 100 * kPsPerUs - fill_ps;
  EXPECT_LE(q.paused_ps, expected_ps + 1000) << "paused " << q.paused_ps / 1e6 << " us";
  EXPECT_GE(q.paused_ps, expected_ps - wire_ps(4096 + 82) - 1000)
      << "paused " << q.paused_ps / 1e6 << " us, expected about " << expected_ps / 1e6;
  const double period_ps = 100 * 512.0 / kRateBps * 1e12 / 2;  // 0.256 us
  // The first PAUSE, one refresh per elapsed half period, and the RESUME.
  const double expected_frames = 2 + std::floor(q.paused_ps / period_ps);
  EXPECT_NEAR(static_cast<double>(q.pause_frames_received), expected_frames, 1)
      << "one PAUSE per half pause time while stalled";
  std::printf("[ measured ] 100 us stall: leaf port paused %.3f us (expected %.3f - up to 0.334), "
              "%lld PAUSE frames received\n",
              q.paused_ps / 1e6, expected_ps / 1e6, static_cast<long long>(q.pause_frames_received));
}

// ---------------------------------------------------------------------------------------------
// 5. PFC storm. Radix 8 leaf-spine (4 leaves x 4 spines, NICs 0-3 on leaf0, 4-7 leaf1, ...),
// 1 MiB switch buffers, PFC on. NIC 0 stops draining at t = 0 and never resumes. Flows of 1 MB:
//   to NIC 0 (never finish): 1 -> 0, 4 -> 0, 8 -> 0, 12 -> 0
//   victims: 4 -> 9 (its NIC also feeds NIC 0), 13 -> 2 (into leaf0 via a spine),
//            5 -> 10, 6 -> 14 (leaf1's uplinks), 2 -> 3 (inside leaf0)
// Whatever heads for NIC 0 can only fill buffers: leaf0 -> NIC0 is paused for good, leaf0's
// ingress ports reach XOFF and pause the spines, and so on up to the senders' NICs, which then
// cannot send their other flows either. The watchdog (200 us here; 100-400 ms in practice)
// declares leaf0 -> NIC0 stormed, drops what heads for NIC 0, and the pauses behind it clear.
struct StormRun {
  std::vector<int64_t> victim_fct;
  std::vector<int64_t> stalled_fct;
  int64_t switch_pauses = 0;
  int64_t leaf0_pauses = 0, spine_pauses = 0, other_leaf_pauses = 0;
  int64_t paused_ps_1ms = 0;
  int64_t paused_ps_2ms = 0;
  int64_t storms = 0;
  int64_t watchdog_drops = 0;
  int64_t lossless_drops = 0;
  int64_t nic_ports_paused = 0;
};

int64_t total_paused_ps(net::Network& net) {
  net.finish_pause_accounting();
  int64_t t = 0;
  for (uint32_t p = 0; p < net.num_ports(); ++p) t += net.queues(p).paused_ps;
  return t;
}

StormRun storm(int64_t watchdog_ps) {
  scenario::Scenario sc = leaf_spine(8, 16, 1 << 20, true);
  sc.nic.rx_buffer_bytes = 128 << 10;
  sc.switch_config.pfc.watchdog_ps = watchdog_ps;
  scenario::Simulation sim(sc);
  std::vector<uint32_t> to_stalled, victims;
  for (uint32_t s : {1u, 4u, 8u, 12u}) to_stalled.push_back(sim.transport().post(s, 0, kFlowBytes, 0));
  for (auto [s, d] : {std::pair{4u, 9u}, {13u, 2u}, {5u, 10u}, {6u, 14u}, {2u, 3u}}) {
    victims.push_back(sim.transport().post(s, d, kFlowBytes, 0));
  }
  sim.scheduler().at(0, kNicStall, 0);
  StormRun out;
  net::Network& net = sim.network();
  EXPECT_FALSE(sim.run(1000 * kPsPerUs)) << "NIC 0 never drains: the run cannot finish";
  // finish_pause_accounting restarts open intervals, which also restarts the watchdog's clock:
  // only sample mid-run without a watchdog.
  if (watchdog_ps == 0) out.paused_ps_1ms = total_paused_ps(net);
  EXPECT_FALSE(sim.run(2000 * kPsPerUs)) << "still not finished at 2 ms";
  out.paused_ps_2ms = total_paused_ps(net);
  for (uint32_t m : victims) out.victim_fct.push_back(fct_ps(sim, m));
  for (uint32_t m : to_stalled) out.stalled_fct.push_back(fct_ps(sim, m));
  for (uint32_t p = 0; p < net.num_ports(); ++p) {
    if (net.port(p).is_nic) continue;
    const int64_t sent = net.queues(p).pause_frames_sent;
    out.switch_pauses += sent;
    const uint32_t sw = static_cast<uint32_t>(net.port(p).switch_index);
    if (net.switch_at(sw).tier == 2) {
      out.spine_pauses += sent;
    } else if (sw == leaf_of(net, 0)) {
      out.leaf0_pauses += sent;
    } else {
      out.other_leaf_pauses += sent;
    }
  }
  for (uint32_t nic = 0; nic < net.num_nics(); ++nic) {
    out.nic_ports_paused += net.queues(net.nic_port(nic)).pause_frames_received > 0;
  }
  out.storms = net.counters().watchdog_storms;
  out.watchdog_drops = net.counters().watchdog_drops;
  out.lossless_drops = net.counters().lossless_drops;
  return out;
}

TEST(PfcStorm, StalledReceiverSpreadsPausesUntilTheWatchdogBreaksThem) {
  const StormRun stuck = storm(0);
  for (size_t i = 0; i < stuck.stalled_fct.size(); ++i) {
    EXPECT_LT(stuck.stalled_fct[i], 0) << "flow " << i << " into the stalled NIC cannot finish";
  }
  EXPECT_GT(stuck.leaf0_pauses, 0) << "leaf0 pauses upstream of the stalled NIC";
  EXPECT_GT(stuck.spine_pauses, 0) << "spines pause: the stall spreads a tier up";
  EXPECT_GT(stuck.other_leaf_pauses, 0) << "the senders' leaves pause: it spreads back down";
  EXPECT_GT(stuck.nic_ports_paused, 1) << "pauses reach sender NICs";
  EXPECT_GT(stuck.paused_ps_2ms, stuck.paused_ps_1ms) << "paused time keeps growing";
  EXPECT_EQ(stuck.lossless_drops, 0) << "a storm stalls, it does not drop";
  EXPECT_LT(stuck.victim_fct[0], 0)
      << "4 -> 9 shares NIC 4 with a flow into the stall: its NIC is paused for good";
  int stuck_victims = 0;
  for (int64_t f : stuck.victim_fct) stuck_victims += f < 0;

  const StormRun broken = storm(200 * kPsPerUs);
  EXPECT_GT(broken.storms, 0) << "the watchdog declares a storm";
  EXPECT_GT(broken.watchdog_drops, 0) << "and drops what heads for the stalled NIC";
  EXPECT_EQ(broken.lossless_drops, 0) << "no headroom overflow";
  for (size_t i = 0; i < broken.stalled_fct.size(); ++i) {
    EXPECT_LT(broken.stalled_fct[i], 0) << "flow " << i << " into the stalled NIC still cannot finish";
  }
  for (size_t i = 0; i < broken.victim_fct.size(); ++i) {
    EXPECT_GE(broken.victim_fct[i], 0) << "victim " << i << " completes once the storm is broken";
  }
  std::printf("[ measured ] storm without watchdog: %d of 5 victims stuck, %lld switch PAUSEs, "
              "(leaf0 %lld, spines %lld, other leaves %lld), paused %.1f us (1 ms) -> %.1f us "
              "(2 ms), %lld NIC ports paused; with a 200 us "
              "watchdog: %lld storms, %lld watchdog drops, victim FCTs",
              stuck_victims, static_cast<long long>(stuck.switch_pauses),
              static_cast<long long>(stuck.leaf0_pauses), static_cast<long long>(stuck.spine_pauses),
              static_cast<long long>(stuck.other_leaf_pauses),
              stuck.paused_ps_1ms / 1e6, stuck.paused_ps_2ms / 1e6,
              static_cast<long long>(stuck.nic_ports_paused), static_cast<long long>(broken.storms),
              static_cast<long long>(broken.watchdog_drops));
  for (int64_t f : broken.victim_fct) std::printf(" %.1f", f / 1e6);
  std::printf(" us (without: ");
  for (int64_t f : stuck.victim_fct) std::printf(f < 0 ? " stuck" : " %.1f", f / 1e6);
  std::printf(" us)\n");
}

// ---------------------------------------------------------------------------------------------
// 6. Head-of-line blocking (congestion spreading). One spine, so that who shares which link is
// fixed by construction: radix 8 with oversubscription 7 gives 7 NICs and 1 uplink per leaf.
//
//                              spine
//        ┌───────┬───────┬───────┼───────┬───────┬───────┐
//      leaf0   leaf1   leaf2   leaf3   leaf4   leaf5   leaf6   leaf7
//      R=0     A=7     W=14    21-27   ...                     49-55
//      V'=1    V=8     15-20
//              W'=9
//
// Incast: 42 NICs send 1 MB each to R: A on leaf1, 15-20 on leaf2, every NIC of leaf3..leaf7.
// The victim V -> W shares only leaf1's uplink with A; the spine's link to leaf2 and leaf2's
// link to W carry nothing else of the data class. The control V' -> W' shares no congested link:
// leaf0's uplink also carries R's ACKs, 86 wire bytes per 4178-byte frame R receives at line
// rate (2.1% of the link), so V' gets ~98% of it: FCT <= 1.025 x ideal.
// Ideal FCT of V: its 1 MB serialized once (81.94 us) + 4 cables x 15 ns + 3 switches x 450 ns.
//   PFC off (a 1 GiB buffer: nothing dropped): A and V both send at line rate and split leaf1's
//   uplink, so V runs at half rate while A sends: FCT ~ 2 x ideal.
//   PFC on (fabric.pfc.port_buffer 128 KiB): leaf0 pauses the spine, whose queue towards leaf0
//   then backs up into its 7 ingress ports (leaf1..leaf7); each reaches XOFF and is paused, and
//   the spine's FIFO towards leaf0 ends up serving them about equally (per-port thresholds make
//   PFC fair between ports, not flows): A drains at ~1/7 of the link. V's packets sit in leaf1's
//   uplink queue between A's, so V advances only as fast as A, ~1/7 of line rate, until A is
//   done: FCT ~ 7 x ideal, although V never touches the congested link.
struct HolRun {
  int64_t victim = 0, control = 0;
  int64_t drops = 0, pauses = 0;
};

HolRun hol(bool pfc) {
  scenario::Scenario sc = leaf_spine(8, 56, 1ll << 30, pfc);
  sc.topology.oversubscription = 7;
  sc.switch_config.pfc.port_buffer_bytes = 128 << 10;
  sc.nic_spec.profile = "zero";  // the ideal FCT below is the wire's alone
  scenario::Simulation sim(sc);
  EXPECT_EQ(spines(sim.network()).size(), 1u) << "radix 8 at 7:1 has a single spine";
  sim.transport().post(7, 0, kFlowBytes, 0);
  for (uint32_t s = 15; s < 56; ++s) sim.transport().post(s, 0, kFlowBytes, 0);
  const uint32_t v = sim.transport().post(8, 14, kFlowBytes, 0);
  const uint32_t c = sim.transport().post(1, 9, kFlowBytes, 0);
  EXPECT_TRUE(sim.run()) << "everything finishes";
  HolRun out;
  out.victim = fct_ps(sim, v);
  out.control = fct_ps(sim, c);
  out.drops = sim.network().counters().dropped_packets;
  out.pauses = sim.network().counters().pause_frames;
  return out;
}

TEST(PfcHeadOfLine, VictimSharingOnlyAnUpstreamLinkSlowsDown) {
  const double ideal_ps =
      wire_ps(static_cast<double>(message_wire_bytes(kFlowBytes))) + 4 * 15'000 + 3 * 450'000;
  const HolRun lossy = hol(false);
  const HolRun lossless = hol(true);
  EXPECT_EQ(lossy.drops, 0) << "a 1 GiB buffer absorbs the incast without PFC";
  EXPECT_EQ(lossless.drops, 0) << "PFC is lossless";
  EXPECT_GT(lossless.pauses, 0) << "PFC acted";
  ASSERT_GT(lossy.victim, 0) << "victim finished (PFC off)";
  ASSERT_GT(lossless.victim, 0) << "victim finished (PFC on)";
  EXPECT_GE(lossy.control, ideal_ps * 0.999) << "nothing beats the ideal FCT";
  EXPECT_LE(lossy.control, ideal_ps * 1.025) << "V' shares only ACKs: ideal FCT without PFC";
  EXPECT_LE(lossless.control, ideal_ps * 1.025) << "V' shares only ACKs: ideal FCT with PFC";
  EXPECT_GE(lossy.victim, 1.9 * ideal_ps) << "without PFC V splits leaf1's uplink with A";
  EXPECT_LE(lossy.victim, 2.05 * ideal_ps) << "without PFC V splits leaf1's uplink with A";
  EXPECT_GE(lossless.victim, 5.0 * ideal_ps)
      << "with PFC V is held behind A's paused packets: expected ~7 x ideal";
  EXPECT_LE(lossless.victim, 9.0 * ideal_ps) << "expected ~7 x ideal (A's share of the spine)";
  std::printf("[ measured ] victim FCT: ideal %.1f us, PFC off %.1f us, PFC on %.1f us; "
              "control %.1f / %.1f us\n",
              ideal_ps / 1e6, lossy.victim / 1e6, lossless.victim / 1e6, lossy.control / 1e6,
              lossless.control / 1e6);
}

}  // namespace
}  // namespace fabricsim
