// The NIC/host latency model (net/config.h NicConfig, charged by net/network.cpp per packet and
// transport/rc.cpp per message), checked term by term against hand-derived timelines on RoCEv2.
//
//   NIC0 --3 m-- leaf (450 ns, cut-through) --3 m-- NIC1      leaf-spine radix 4, 400 Gb/s
//
// Every parameter is set here to a distinct round value, so a term charged twice, or in the wrong
// place, shows in the sum. Wire sizes (SPEC §8): a RoCEv2 RDMA WRITE ONLY frame is 78 bytes of
// headers (Ethernet 14, IPv4 20, UDP 8, BTH 12, RETH 16, ICRC 4, FCS 4) + payload padded to 4
// bytes, + 20 bytes of preamble/IFG on the wire; an ACK is 66 + 20 bytes.
#include <gtest/gtest.h>

#include "engine/packet/simulation.h"

namespace fabricsim {
namespace nic_latency_test {

constexpr int64_t kNs = 1000;
constexpr int64_t kPost = 11 * kNs, kDoorbell = 23 * kNs, kDma = 307 * kNs, kTx = 41 * kNs,
                  kRx = 53 * kNs, kMemWrite = 67 * kNs, kPoll = 79 * kNs;
constexpr int64_t kInline = 220;
constexpr int64_t kPropPs = 15'000;    // 3 m
constexpr int64_t kSwitchPs = 450'000;

int64_t ser_ps(int64_t bytes) { return bytes * 20; }  // 20 ps per byte at 400 Gb/s

scenario::Scenario two_nics() {
  scenario::Scenario sc;
  sc.topology.tiers = 2;
  sc.topology.radix = 4;
  sc.topology.hosts = 2;
  sc.link.rate_bps = 400'000'000'000;
  sc.nic_spec.host_post_ps = kPost;
  sc.nic_spec.doorbell_ps = kDoorbell;
  sc.nic_spec.dma_read_ps = kDma;
  sc.nic_spec.inline_max_bytes = kInline;
  sc.nic_spec.tx_latency_ps = kTx;
  sc.nic_spec.rx_latency_ps = kRx;
  sc.nic_spec.mem_write_ps = kMemWrite;
  sc.nic_spec.host_poll_ps = kPoll;
  return sc;
}

int64_t write_wire(int64_t payload) { return 78 + (payload + 3) / 4 * 4 + 20; }

// The last byte reaches NIC1's transport engine: post, doorbell, [DMA read], send pipeline, the
// frame's serialization, two cables, the switch (cut-through: the last byte leaves it as it
// arrives), the receive pipeline.
int64_t arrival_ps(int64_t payload) {
  return kPost + kDoorbell + (payload > kInline ? kDma : 0) + kTx + ser_ps(write_wire(payload)) +
         2 * kPropPs + kSwitchPs + kRx;
}

TEST(NicLatency, InlineWriteIsEveryTermOnce) {
  scenario::Simulation sim(two_nics());
  const uint32_t msg = sim.transport().post(0, 1, 2, 0);
  ASSERT_TRUE(sim.run());
  const transport::MessageRecord& m = sim.transport().message(msg);
  EXPECT_EQ(m.rx_done_ps, arrival_ps(2) + kMemWrite + kPoll)
      << "2 B (inline): no DMA read; the receiver sees it after the memory write and its poll";
  // The ACK leaves NIC1's transport engine at the data's arrival and crosses back through the
  // pipelines only: no host term.
  EXPECT_EQ(m.tx_done_ps,
            arrival_ps(2) + kTx + ser_ps(66 + 20) + 2 * kPropPs + kSwitchPs + kRx)
      << "the requester's completion: the ACK's path back";
}

TEST(NicLatency, AboveTheInlineSizeTheDmaReadIsAdded) {
  for (const int64_t size : {kInline, kInline + 1}) {
    scenario::Simulation sim(two_nics());
    const uint32_t msg = sim.transport().post(0, 1, size, 0);
    ASSERT_TRUE(sim.run());
    EXPECT_EQ(sim.transport().message(msg).rx_done_ps, arrival_ps(size) + kMemWrite + kPoll)
        << size << " bytes";
  }
}

TEST(NicLatency, PerMessageCostsAreChargedOncePerMessageNotPerPacket) {
  // 10 full packets: the per-message terms once, the pipelines once (they overlap the
  // serialization of the packets behind), the wire for every frame.
  constexpr int64_t kSize = 10 * 4096;
  scenario::Simulation sim(two_nics());
  const uint32_t msg = sim.transport().post(0, 1, kSize, 0);
  ASSERT_TRUE(sim.run());
  const int64_t wire = 10 * (4096 + 62 + 20) + 16;  // 62 = 78 - RETH; the RETH on the first only
  const int64_t expected = kPost + kDoorbell + kDma + kTx + ser_ps(wire) + 2 * kPropPs +
                           kSwitchPs + kRx + kMemWrite + kPoll;
  EXPECT_EQ(sim.transport().message(msg).rx_done_ps, expected);
  EXPECT_EQ(transport::ideal_fct_ps(kSize, 1, sim.scenario().roce, sim.scenario().link,
                                    sim.scenario().switch_config, sim.scenario().nic),
            expected)
      << "ideal_fct_ps includes every NIC/host term";
}

TEST(NicLatency, MessagesOfOneQpStartInPostOrder) {
  // A large (DMA-read) message then an inline one posted right after: the NIC takes WQEs in
  // order, so the inline message never overtakes, and its packet follows the first's.
  scenario::Simulation sim(two_nics());
  const uint32_t big = sim.transport().post(0, 1, 4096, 0);
  const uint32_t small = sim.transport().post(0, 1, 2, 0);
  ASSERT_TRUE(sim.run());
  const transport::MessageRecord& a = sim.transport().message(big);
  const transport::MessageRecord& b = sim.transport().message(small);
  EXPECT_EQ(a.rx_done_ps, arrival_ps(4096) + kMemWrite + kPoll);
  EXPECT_EQ(b.rx_done_ps, a.rx_done_ps + ser_ps(write_wire(2))) << "right behind the first";
}

TEST(NicLatency, ZeroProfileIsThePureWireModel) {
  scenario::Scenario sc;
  sc.topology.tiers = 2;
  sc.topology.radix = 4;
  sc.topology.hosts = 2;
  sc.link.rate_bps = 400'000'000'000;
  sc.nic_spec.profile = "zero";
  scenario::Simulation sim(sc);
  const uint32_t msg = sim.transport().post(0, 1, 2, 0);
  ASSERT_TRUE(sim.run());
  EXPECT_EQ(sim.transport().message(msg).rx_done_ps,
            ser_ps(write_wire(2)) + 2 * kPropPs + kSwitchPs);
}

}  // namespace nic_latency_test
}  // namespace fabricsim
