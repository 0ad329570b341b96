// In-band network telemetry (net/int_telemetry.h, HPCC SIGCOMM 2019 §3.2): the table's slot
// rules, then the records a data packet collects on a real path, against the cable, the switch
// latency and the frames' wire bytes worked out here.
#include "net/int_telemetry.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>

#include "engine/packet/simulation.h"
#include "net/network.h"

namespace fabricsim::net {
namespace int_telemetry_test {

TEST(IntTable, ASlotHoldsTheRecordsOfThePsnThatBeganItLast) {
  IntTable t(4);
  EXPECT_EQ(t.find(0, 0), nullptr) << "nothing began";
  t.begin(3, 1);
  t.stamp(3, 1, IntHop{10, 100, 0, 400});
  t.stamp(3, 1, IntHop{20, 200, 64, 400});
  const IntRecord* r = t.find(3, 1);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->hops, 2);
  EXPECT_EQ(r->hop[1].qlen_bytes, 64);
  t.begin(3, 5);  // 5 mod 4 = 1: the same slot, a later packet
  EXPECT_EQ(t.find(3, 1), nullptr) << "an overwritten slot reads as absent, not as PSN 5's";
  t.stamp(3, 1, IntHop{30, 300, 0, 400});
  EXPECT_EQ(t.find(3, 5)->hops, 0) << "a stale PSN's hop is not written into PSN 5's records";
  for (int h = 0; h < kIntMaxHops + 2; ++h) t.stamp(3, 5, IntHop{h, h, 0, 400});
  EXPECT_EQ(t.find(3, 5)->hops, kIntMaxHops);
  EXPECT_EQ(t.find(3, 5)->lost, 2) << "hops past the stack's depth are counted, not kept";
  EXPECT_EQ(t.find(0, 1), nullptr) << "QP 0's slots exist (the table grew) but never began";
  EXPECT_THROW(IntTable(6), std::invalid_argument);
}

TEST(IntTelemetry, EachSwitchOnThePathStampsItsEgress) {
  // Leaf-spine, radix 8: NIC 0 on leaf 0, NIC 12 on leaf 3; the path is leaf 0 -> spine ->
  // leaf 3, three switch egresses. Cut-through switches (the default) start a frame out
  // propagation + switch latency after it started into the cable before.
  scenario::Scenario sc;
  sc.topology.tiers = 2;
  sc.topology.radix = 8;
  sc.topology.hosts = 16;
  sc.link.rate_bps = 100'000'000'000;
  sc.link.cable_m = 3;
  scenario::Simulation sim(sc);
  sim.network().enable_int(64);
  const uint32_t m = sim.transport().post(0, 12, 3 * 4096, 0);  // three full packets
  sim.run();
  ASSERT_GE(sim.transport().message(m).rx_done_ps, 0);
  const IntTable* t = sim.network().int_table();
  ASSERT_NE(t, nullptr);
  const int64_t hop_ps = 3 * 5'000 + sc.switch_config.latency_ps;  // 5 ns per metre
  // RoCEv2 RDMA WRITE frames on the wire: 4096 + 82 bytes, + 16 (RETH) on the first.
  const int64_t wire[3] = {4096 + 82 + 16, 4096 + 82, 4096 + 82};
  const double ser_ps[3] = {wire[0] * 8 / 100e9 * 1e12, wire[1] * 8 / 100e9 * 1e12,
                            wire[2] * 8 / 100e9 * 1e12};
  int64_t sent = 0;
  for (uint32_t psn = 0; psn < 3; ++psn) {
    const IntRecord* r = t->find(0, psn);
    ASSERT_NE(r, nullptr) << "PSN " << psn;
    ASSERT_EQ(r->hops, 3) << "leaf, spine, leaf";
    EXPECT_EQ(r->lost, 0);
    sent += wire[psn];
    for (int h = 0; h < 3; ++h) {
      EXPECT_EQ(r->hop[h].rate_bps, 100'000'000'000);
      EXPECT_EQ(r->hop[h].tx_bytes, sent) << "the port's bytes so far, this frame included";
      EXPECT_EQ(r->hop[h].qlen_bytes, 0) << "back-to-back at line rate: nothing queues";
      if (h > 0) {
        EXPECT_EQ(r->hop[h].ts_ps - r->hop[h - 1].ts_ps, hop_ps) << "hop " << h;
      }
    }
    if (psn > 0) {
      // The NIC sends the frames back to back, so each switch does too.
      const IntRecord* prev = t->find(0, psn - 1);
      EXPECT_NEAR(static_cast<double>(r->hop[0].ts_ps - prev->hop[0].ts_ps), ser_ps[psn - 1], 1.0);
    }
  }
  EXPECT_EQ(t->find(0, 3), nullptr) << "no fourth packet";
}

TEST(IntTelemetry, TwoSendersIntoOnePortSeeItsQueue) {
  // NICs 1 and 2 (leaf 0) send to NIC 0 (leaf 0) at line rate: the leaf's port to NIC 0 gets
  // two frames per frame time, so each frame leaves behind the backlog of the other sender's.
  scenario::Scenario sc;
  sc.topology.tiers = 2;
  sc.topology.radix = 8;
  sc.topology.hosts = 16;
  sc.link.rate_bps = 100'000'000'000;
  sc.link.cable_m = 3;
  sc.switch_config.pfc.enabled = true;
  scenario::Simulation sim(sc);
  sim.network().enable_int(64);
  constexpr int kPackets = 32;
  const uint32_t a = sim.transport().post(1, 0, kPackets * 4096, 0);
  const uint32_t b = sim.transport().post(2, 0, kPackets * 4096, 0);
  sim.run();
  const IntTable* t = sim.network().int_table();
  const uint32_t qa = sim.roce()->message(a).qp;
  const uint32_t qb = sim.roce()->message(b).qp;
  int64_t max_q = 0;
  for (uint32_t qp : {qa, qb}) {
    for (uint32_t psn = 0; psn < kPackets; ++psn) {
      const IntRecord* r = t->find(qp, psn);
      ASSERT_NE(r, nullptr);
      ASSERT_EQ(r->hops, 1) << "one switch between NICs of one leaf";
      max_q = std::max(max_q, r->hop[0].qlen_bytes);
    }
  }
  // Two senders at line rate into one port: the backlog grows by one frame per frame time,
  // up to about one sender's whole message (the other's frames drain it at the same pace).
  EXPECT_GT(max_q, (kPackets / 2) * 4096) << "the port's queue shows in its records";
  EXPECT_LE(max_q, (kPackets + 2) * (4096 + 62)) << "never more than one sender's frames";
}

}  // namespace int_telemetry_test
}  // namespace fabricsim::net
