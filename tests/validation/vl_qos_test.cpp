// InfiniBand SL -> VL mapping and VL arbitration (IBA 7.6.9; reference infiniband.md §2), checked
// against figures derived here, not read back from the simulator.
//
// Leaf-spine, radix 8, 100 Gb/s, 3 m cables (15 ns), cut-through switches with the IB default
// 130 ns port-to-port latency, two data VLs; the Subnet Manager forwards by DLID, so every
// packet to one NIC leaves a leaf by the same uplink:
//
//        spine4  spine5  spine6  spine7
//            \  \   |   /   /
//          leaf0  leaf1  leaf2  leaf3         NICs 0-3 on leaf0, 4-7 on leaf1, ...
//         / | | \   |
//      N0 N1 N2 N3  N4
//
// Arbitration facts used below (the reference's OpenSM/IBA rules):
//   * Weights count 64-byte blocks; a packet costs ceil(frame/64) blocks and is sent whole even
//     when it overdraws the entry, which then ends. A 4096-byte packet is 4122 bytes (LRH 8 +
//     BTH 12 + payload + ICRC 4 + VCRC 2; +16 RETH on an RDMA WRITE's first) = 65 blocks either
//     way, so weight 65k sends exactly k packets per turn.
//   * The high table goes first while it has a ready VL, until high_limit x 4096 bytes of it have
//     gone with a low VL waiting; then one low packet goes. 255 = no limit; 0 = one packet.
//   * A packet in service is never preempted: a newly ready high VL waits for the rest of the
//     packet on the wire, at most one largest packet (4138 bytes, 331.04 ns at 100 Gb/s).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "net/network.h"
#include "engine/packet/simulation.h"

namespace fabricsim {
namespace vl_qos_test {

constexpr int64_t kRateBps = 100'000'000'000;
constexpr int64_t kPsPerUs = 1'000'000;
constexpr int64_t kMaxPacketBytes = 8 + 12 + 16 + 4096 + 4 + 2;  // WRITE FIRST with RETH: 4138
constexpr int64_t kFlowControlBytes = 6;                         // reference §1

int64_t wire_ps(int64_t bytes) { return bytes * 8 * 1'000'000'000'000 / kRateBps; }

// FCT of an S-byte RDMA WRITE alone on the 4-cable, 3-switch path NIC -> leaf -> spine -> leaf ->
// NIC: its n = ceil(S / 4096) packets (26 bytes of LRH+BTH+ICRC+VCRC each, RETH 16 on the first;
// S a multiple of 4, so no pad) back to back at the sender, then the last packet's cut-through
// crossing: 4 x 15 ns of cable and 3 x 130 ns of switch latency.
int64_t packets_of(int64_t size_bytes) { return (size_bytes + 4095) / 4096; }
int64_t ideal_fct(int64_t size_bytes) {
  return wire_ps(size_bytes + 26 * packets_of(size_bytes) + 16) + 4 * 15'000 + 3 * 130'000;
}

scenario::Scenario ib_fabric(const std::string& sl2vl, const std::string& high,
                             const std::string& low, int high_limit) {
  scenario::Scenario sc;
  sc.seed = 11;
  sc.technology = scenario::Technology::kInfiniband;
  sc.topology.tiers = 2;
  sc.topology.radix = 8;
  sc.topology.hosts = 16;
  sc.link.rate_bps = kRateBps;
  sc.link.cable_m = 3;
  sc.ib.link.data_vls = 2;
  sc.ib.link.vl_buffer_bytes = 131072;  // the window: the shared-VL queue bound below
  sc.ib.sl2vl = sl2vl;
  sc.ib.vlarb_high = high;
  sc.ib.vlarb_low = low;
  sc.ib.link.high_limit = high_limit;
  sc.nic_spec.profile = "zero";  // the FCT bounds below are the wire's and the arbiter's alone
  return sc;
}

// SL 0 -> VL 0 and SL 1 -> VL 1 (the other SLs fold the same way), or every SL on VL 0.
const char* const kTwoVls = "0,1,0,1,0,1,0,1,0,1,0,1,0,1,0,1";
const char* const kOneVl = "0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0";
// An empty high-priority table ("" would be OpenSM's default 0:4): a weight-0 entry is skipped.
const char* const kNoHigh = "0:0";

// ---------------------------------------------------------------------------------------------
// 1. A latency-sensitive SL beside bulk traffic.
//
// Bulk: NICs 1, 2, 3 each send 4 MiB to NIC 4 on SL 0 from t = 0: 300 Gb/s into leaf0's one
// uplink towards NIC 4's LID, so its VL 0 queue grows at 200 Gb/s (fluid: Q(t) = 2 R t bytes /
// 8, a wait of 2t for a newcomer in the same FIFO) until the three bulk ingress ports' VL 0
// buffers are full: each holds 128 KiB (set so: 2048 credits, the IBA window; the default share
// of these switches' buffer is 4 MiB per VL, docs/infiniband.md "Buffers"), so the queue stops at
// 3 x 131072 bytes, a wait of at most 31.46 us (from ~16 us).
// Victim: NIC 0 sends small RDMA WRITEs to NIC 4 on SL 1 at 20, 40, ..., 100 us, each finished
// long before the next in the protected case. It shares leaf0's uplink, the spine's downlink and
// leaf1's port to NIC 4 with the bulk; its own NIC link is idle otherwise.
//
// Expected FCT of a victim message of n packets with ideal (empty-network) FCT I:
//   high table, high_limit 255: I + at most one bulk packet per shared hop (the packet in
//     service; after that the victim's VL always wins), plus a 6-byte flow-control packet that
//     may go ahead of each victim packet at each hop:  I + 3 T(4138) + 3 n T(6).
//   high table, high_limit 0, or its own VL in the low table with equal one-packet weights: one
//     bulk packet goes between any two victim packets at the congested uplink:
//     I + n T(4138) + 2 T(4138) + 3 n T(6).
//   shared VL: behind the bulk queue, at least 0.9 x min(2 t_post, 31.46 us) (fluid estimate
//     capped by the credits, 10% for the first microsecond before the queue builds and for
//     per-packet granularity), and by that much slower than on the high-priority VL.
struct Victim {
  int64_t post_ps;
  int64_t size_bytes;
};
const std::vector<Victim> kVictims = {{20 * kPsPerUs, 4096},
                                      {40 * kPsPerUs, 16 * 1024},
                                      {60 * kPsPerUs, 64 * 1024},
                                      {80 * kPsPerUs, 8 * 1024},
                                      {100 * kPsPerUs, 32 * 1024}};
constexpr uint32_t kVictimNic = 0, kReceiver = 4;
constexpr int64_t kBulkBytes = 4 << 20;

struct VictimResult {
  std::vector<int64_t> fct_ps;
  std::vector<int64_t> ideal_ps;
  std::vector<int64_t> packets;
  bool bulk_done = false;
  int64_t dropped = 0;
};

VictimResult run_victims(const scenario::Scenario& sc) {
  scenario::Simulation sim(sc);
  transport::RoceTransport& t = *sim.roce();
  for (uint32_t nic = 1; nic <= 3; ++nic) t.post(nic, kReceiver, kBulkBytes, 0, 0);
  std::vector<uint32_t> ids;
  for (const Victim& v : kVictims) {
    sim.run(v.post_ps);
    ids.push_back(t.post(kVictimNic, kReceiver, v.size_bytes, 1, 1));
  }
  sim.run();
  VictimResult r;
  for (size_t i = 0; i < ids.size(); ++i) {
    const transport::Message& m = t.message(ids[i]);
    r.fct_ps.push_back(m.rx_done_ps < 0 ? -1 : m.rx_done_ps - m.post_ps);
    r.ideal_ps.push_back(ideal_fct(m.size_bytes));
    r.packets.push_back(packets_of(m.size_bytes));
  }
  r.bulk_done = true;
  for (uint32_t m = 0; m < 3; ++m) r.bulk_done = r.bulk_done && t.message(m).rx_done_ps >= 0;
  r.dropped = sim.network().counters().dropped_packets;
  return r;
}

std::string us(int64_t ps) { return std::to_string(static_cast<double>(ps) / kPsPerUs) + " us"; }

TEST(VlQos, HighPriorityVlProtectsALatencySensitiveSl) {
  const VictimResult high = run_victims(ib_fabric(kTwoVls, "1:255", "0:255", 255));
  const VictimResult shared = run_victims(ib_fabric(kOneVl, "0:255", "0:255", 255));
  for (const VictimResult* r : {&high, &shared}) {
    ASSERT_TRUE(r->bulk_done) << "the bulk flows finish";
    EXPECT_EQ(r->dropped, 0) << "credit flow control drops nothing";
  }
  for (size_t i = 0; i < kVictims.size(); ++i) {
    const std::string at = std::to_string(kVictims[i].size_bytes / 1024) +
                           " KiB victim posted at " + us(kVictims[i].post_ps);
    ASSERT_GE(high.fct_ps[i], 0) << at << ": finished (high VL)";
    ASSERT_GE(shared.fct_ps[i], 0) << at << ": finished (shared VL)";
    const int64_t n = high.packets[i];
    const int64_t bound =
        high.ideal_ps[i] + 3 * wire_ps(kMaxPacketBytes) + 3 * n * wire_ps(kFlowControlBytes);
    EXPECT_GE(high.fct_ps[i], high.ideal_ps[i]) << at << ": no faster than the empty network";
    EXPECT_LE(high.fct_ps[i], bound)
        << at << ": on the high-priority VL the FCT is " << us(high.fct_ps[i]) << ", ideal "
        << us(high.ideal_ps[i]) << ", bound (one bulk packet per shared hop) " << us(bound);
    const int64_t credit_capped_wait = wire_ps(3 * 131072);
    const int64_t fluid_wait = std::min(2 * kVictims[i].post_ps, credit_capped_wait);
    EXPECT_GE(shared.fct_ps[i], fluid_wait * 9 / 10)
        << at << ": sharing VL 0 with the bulk, the FCT " << us(shared.fct_ps[i])
        << " should be about the bulk queue's wait min(2 t, 3 VL buffers) = " << us(fluid_wait);
    EXPECT_GE(shared.fct_ps[i] - high.fct_ps[i], fluid_wait * 9 / 10)
        << at << ": shared VL " << us(shared.fct_ps[i]) << " vs high-priority VL "
        << us(high.fct_ps[i]) << ": the high table must spare the SL the bulk queue's wait";
  }
}

TEST(VlQos, OnePacketTurnsGiveTheVictimEveryOtherPacket) {
  // high_limit 0 on the high table, or the victim's VL in the low table beside VL 0 with the same
  // one-packet weight (64 blocks < 65: each turn is one packet): round robin at the uplink.
  const VictimResult limit0 = run_victims(ib_fabric(kTwoVls, "1:255", "0:255", 0));
  const VictimResult low = run_victims(ib_fabric(kTwoVls, kNoHigh, "0:64,1:64", 0));
  const VictimResult high = run_victims(ib_fabric(kTwoVls, "1:255", "0:255", 255));
  for (size_t i = 0; i < kVictims.size(); ++i) {
    const std::string at = std::to_string(kVictims[i].size_bytes / 1024) + " KiB victim";
    const int64_t n = limit0.packets[i];
    const int64_t bound = limit0.ideal_ps[i] + (n + 2) * wire_ps(kMaxPacketBytes) +
                          3 * n * wire_ps(kFlowControlBytes);
    for (const auto& [name, r] :
         {std::pair{"high_limit 0", &limit0}, std::pair{"low table", &low}}) {
      ASSERT_GE(r->fct_ps[i], 0) << at << " (" << name << "): finished";
      EXPECT_LE(r->fct_ps[i], bound) << at << " (" << name << "): FCT " << us(r->fct_ps[i])
                                     << " vs bound I + (n+2) T(4138) = " << us(bound);
      if (n >= 4) {
        // Every other packet at the bottleneck: about n bulk packets more than unlimited high
        // priority (half of them at least, for the first packet's own wait).
        EXPECT_GE(r->fct_ps[i] - high.fct_ps[i], n / 2 * wire_ps(4122))
            << at << " (" << name << "): " << us(r->fct_ps[i]) << " vs " << us(high.fct_ps[i])
            << " with high_limit 255: a one-packet turn lets bulk interleave";
      }
    }
  }
}

// The same protection where the victim and the bulk leave one NIC: a channel adapter's output
// port arbitrates between its VLs with the same tables (OpenSM programs VLArbitrationTable on CA
// ports too, reference §2), so a 64 KiB SL 1 message posted at 20 us beside a 4 MiB SL 0 flow
// should see at most one bulk packet per hop, as on the switches. (Before CA ports arbitrated,
// round-robin over QPs gave 11.12 us against an ideal 5.73 us.)
TEST(VlQos, SourceNicArbitratesItsVls) {
  for (int high_limit : {255, 16}) {
    scenario::Simulation sim(ib_fabric(kTwoVls, "1:255", "0:255", high_limit));
    transport::RoceTransport& t = *sim.roce();
    t.post(kVictimNic, kReceiver, kBulkBytes, 0, 0);
    sim.run(20 * kPsPerUs);
    const uint32_t id = t.post(kVictimNic, kReceiver + 1, 64 * 1024, 1, 1);
    sim.run();
    const transport::Message& m = t.message(id);
    ASSERT_GE(m.rx_done_ps, 0) << "the victim finished";
    const int64_t ideal = ideal_fct(m.size_bytes);
    const int64_t n = packets_of(m.size_bytes);
    const int64_t bound = ideal + 3 * wire_ps(kMaxPacketBytes) + 3 * n * wire_ps(kFlowControlBytes);
    EXPECT_LE(m.rx_done_ps - m.post_ps, bound)
        << "high_limit " << high_limit << " (>= the message's 16 x 4 KiB): a 64 KiB SL 1 message "
        << "beside SL 0 bulk from the same NIC takes " << us(m.rx_done_ps - m.post_ps) << ", ideal "
        << us(ideal) << ", bound " << us(bound);
  }
}

// ---------------------------------------------------------------------------------------------
// 2. Arbitration on one link, measured packet by packet.
//
// NIC 1 (SL 0 -> VL 0) and NIC 2 (SL 1 -> VL 1) each send 64 MiB of RDMA SEND (every packet 4122
// bytes = 65 blocks) to NIC 0 on the same leaf: 200 Gb/s into leaf0's 100 Gb/s port to NIC 0, so
// both VLs stay backlogged there (4 MiB of VL buffer per ingress port). A tap counts the data
// packets that port sends per VL from 20 us (queues built) to 420 us (~1200 packets).
struct LinkCount {
  int64_t bytes[2] = {0, 0};
  int64_t packets[2] = {0, 0};
  int max_high_run = 0;  // longest run of consecutive VL 1 packets
  int max_low_run = 0;   // and of VL 0 packets
};

struct TapState {
  uint32_t port = 0;
  int64_t from_ps = 0, to_ps = 0;
  LinkCount count;
  int run_vl = -1, run = 0;
};

void on_transmit(void* ctx, int64_t time_ps, uint32_t port, const net::Packet& pkt) {
  auto* s = static_cast<TapState*>(ctx);
  if (port != s->port || pkt.type != net::PacketType::kData) return;
  if (time_ps < s->from_ps || time_ps >= s->to_ps) return;
  ASSERT_LE(pkt.priority, 1) << "only VLs 0 and 1 carry data";
  LinkCount& c = s->count;
  c.bytes[pkt.priority] += pkt.frame_bytes;
  ++c.packets[pkt.priority];
  if (pkt.priority == s->run_vl) {
    ++s->run;
  } else {
    s->run_vl = pkt.priority;
    s->run = 1;
  }
  int& longest = pkt.priority == 1 ? c.max_high_run : c.max_low_run;
  longest = std::max(longest, s->run);
}

LinkCount arbitrate(const std::string& high, const std::string& low, int high_limit) {
  scenario::Scenario sc = ib_fabric(kTwoVls, high, low, high_limit);
  sc.roce.operation = transport::Operation::kSend;  // no RETH: every packet is 65 blocks
  scenario::Simulation sim(sc);
  net::Network& net = sim.network();
  TapState state;
  state.port = net.port(net.nic_port(0)).peer;  // leaf0's port to NIC 0
  state.from_ps = 20 * kPsPerUs;
  state.to_ps = 420 * kPsPerUs;
  net.set_tap(net::Tap{&state, &on_transmit});
  constexpr int64_t kBig = 64 << 20;
  sim.transport().post(1, 0, kBig, 0, 0);
  sim.transport().post(2, 0, kBig, 0, 1);
  sim.run(state.to_ps);
  return state.count;
}

struct Weights {
  int vl0, vl1;
};
class VlArbWeights : public ::testing::TestWithParam<Weights> {};

TEST_P(VlArbWeights, LowTableSharesFollowTheWeights) {
  const Weights w = GetParam();
  const LinkCount c =
      arbitrate(kNoHigh, "0:" + std::to_string(w.vl0) + ",1:" + std::to_string(w.vl1), 0);
  ASSERT_GT(c.packets[0] + c.packets[1], 1000) << "the window holds enough packets to measure";
  ASSERT_GT(c.bytes[0], 0) << "VL 0 sent";
  ASSERT_GT(c.bytes[1], 0) << "VL 1 sent";
  const double measured = static_cast<double>(c.bytes[0]) / static_cast<double>(c.bytes[1]);
  const double want = static_cast<double>(w.vl0) / w.vl1;
  EXPECT_NEAR(measured, want, 0.02 * want)
      << "weights " << w.vl0 << ":" << w.vl1 << " (whole 65-block packets): VL 0 sent "
      << c.bytes[0] << " bytes (" << c.packets[0] << " packets), VL 1 " << c.bytes[1] << " bytes ("
      << c.packets[1] << " packets), ratio " << measured << " vs " << want;
  const int per_turn_1 = (w.vl1 + 64) / 65;  // packets per turn: ceil(weight / 65)
  EXPECT_LE(c.max_high_run, per_turn_1) << "VL 1 never sends more than its weight's packets";
}

INSTANTIATE_TEST_SUITE_P(Weights, VlArbWeights,
                         ::testing::Values(Weights{65, 195}, Weights{130, 195}, Weights{195, 65},
                                           Weights{65, 65}),
                         [](const ::testing::TestParamInfo<Weights>& info) {
                           return std::to_string(info.param.vl0) + "_" +
                                  std::to_string(info.param.vl1);
                         });

TEST(VlArbHighLimit, UnboundedHighStarvesLow) {
  const LinkCount c = arbitrate("1:255", "0:255", 255);
  EXPECT_GT(c.packets[1], 1000) << "the high VL sends at line rate";
  EXPECT_EQ(c.packets[0], 0) << "high_limit 255: the low VL gets nothing while VL 1 is backlogged "
                             << "(VL 0 sent " << c.packets[0] << " packets, VL 1 " << c.packets[1]
                             << ")";
}

TEST(VlArbHighLimit, ZeroGivesLowOnePacketPerHighPacket) {
  const LinkCount c = arbitrate("1:255", "0:255", 0);
  EXPECT_EQ(c.max_high_run, 1) << "high_limit 0: never two high packets while low waits";
  EXPECT_GE(c.packets[0], c.packets[1] - 1)
      << "the low VL gets at least one packet per high packet: VL 0 " << c.packets[0] << ", VL 1 "
      << c.packets[1];
  EXPECT_EQ(c.max_low_run, 1) << "and the high VL, still ready, takes the next turn back";
}

TEST(VlArbHighLimit, FourUnitsAreFourPacketsThenOneLow) {
  // high_limit 4 = 16384 bytes = 256 blocks: high packets go while fewer than 256 blocks have gone
  // since the last low packet, i.e. 4 packets of 65 blocks (195 < 256 before the 4th, 260 after).
  const LinkCount c = arbitrate("1:255", "0:255", 4);
  EXPECT_EQ(c.max_high_run, 4) << "runs of 4 high packets";
  EXPECT_EQ(c.max_low_run, 1) << "then exactly one low packet";
  const double share = static_cast<double>(c.bytes[1]) / (c.bytes[0] + c.bytes[1]);
  EXPECT_NEAR(share, 0.8, 0.02 * 0.8) << "VL 1 gets 4/5 of the link: measured " << share;
}

}  // namespace vl_qos_test
}  // namespace fabricsim
