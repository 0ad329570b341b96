// transport::Transport (transport/transport.h): workloads run on any implementation of it, and
// the RoCE engine's answers through it match figures derived by hand.
#include <gtest/gtest.h>

#include <deque>
#include <vector>

#include "core/scheduler.h"
#include "engine/packet/simulation.h"
#include "transport/transport.h"
#include "workload/workload.h"

namespace fabricsim {
namespace interface_test {

// A transport that knows no packets: post() queues the message and the test delivers them in
// order. Enough to show the workload needs nothing beyond the interface.
class QueueTransport final : public transport::Transport {
 public:
  uint32_t post(uint32_t src, uint32_t dst, int64_t size_bytes, uint64_t tag, int) override {
    transport::MessageRecord m;
    m.src_nic = src;
    m.dst_nic = dst;
    m.size_bytes = size_bytes;
    m.tag = tag;
    msgs.push_back(m);
    pending.push_back(static_cast<uint32_t>(msgs.size() - 1));
    ++owed().unacked;
    return static_cast<uint32_t>(msgs.size() - 1);
  }
  // Delivers the oldest posted message; false when none is left.
  bool deliver_one() {
    if (pending.empty()) return false;
    const uint32_t id = pending.front();
    pending.pop_front();
    --owed().unacked;
    if (on_delivered) on_delivered(id);
    return true;
  }
  const transport::MessageRecord& message(uint32_t id) const override { return msgs[id]; }
  uint32_t num_messages() const override { return static_cast<uint32_t>(msgs.size()); }
  const transport::TransportCounters& counters() const override { return counters_; }
  void on_event(uint32_t, uint32_t) override {}
  int64_t ideal_fct_ps(int64_t, int, const net::LinkConfig&, const net::SwitchConfig&,
                       const net::NicConfig&) const override {
    return 0;
  }
  double payload_rate_bps(int64_t link_rate_bps) const override {
    return static_cast<double>(link_rate_bps);
  }
  int64_t failure_affected_connections() const override { return 0; }
  int64_t failure_recovered_ps() const override { return -1; }
  int64_t failure_unrecovered_connections() const override { return 0; }

  std::vector<transport::MessageRecord> msgs;
  std::deque<uint32_t> pending;
  transport::TransportCounters counters_;
};

TEST(TransportInterface, RingAllReduceRunsOnAnyTransport) {
  // NCCL's ring all-reduce over n ranks: 2(n-1) steps, each rank sends one slice per chunk
  // slice to its successor per step: n x 2(n-1) x slices messages, every one to rank + 1 mod n.
  constexpr int kRanks = 4;
  workload::WorkloadSpec spec;
  spec.kind = workload::WorkloadKind::kCollective;
  spec.size_bytes = 4 * 1000;  // 1000 bytes per chunk
  spec.slice_bytes = 500;      // two slices per chunk
  QueueTransport t;
  Scheduler sched;
  workload::Workload w(spec, kRanks, 100'000'000'000, 1, t, sched);
  t.on_delivered = [&w](uint32_t msg) { w.on_delivered(msg); };
  w.start();
  EXPECT_EQ(t.num_messages(), kRanks * 2u) << "step 0: every rank sends both slices";
  while (t.deliver_one()) {
  }
  const uint32_t expected = kRanks * 2 * (kRanks - 1) * 2;
  EXPECT_EQ(t.num_messages(), expected);
  EXPECT_EQ(w.total_messages(), expected);
  EXPECT_TRUE(w.collective_done());
  EXPECT_EQ(t.unacked_messages(), 0u);
  for (uint32_t id = 0; id < t.num_messages(); ++id) {
    const transport::MessageRecord& m = t.message(id);
    EXPECT_EQ(m.dst_nic, (m.src_nic + 1) % kRanks) << "message " << id;
    EXPECT_EQ(m.size_bytes, 500) << "message " << id;
  }
}

scenario::Scenario two_tier() {
  scenario::Scenario sc;
  sc.topology.tiers = 2;
  sc.topology.radix = 16;
  sc.topology.hosts = 16;
  sc.link.rate_bps = 100'000'000'000;
  return sc;
}

TEST(TransportInterface, RoceThroughTheInterfaceRecordsEndpointsAndCompletesEachMessageOnce) {
  scenario::Simulation sim(two_tier());
  transport::Transport& t = sim.transport();
  ASSERT_NE(sim.roce(), nullptr) << "the default fabric runs the RoCE engine";
  std::vector<int> seen;
  t.on_delivered = [&seen](uint32_t msg) {
    if (msg >= seen.size()) seen.resize(msg + 1);
    ++seen[msg];
  };
  const uint32_t pairs[][2] = {{1, 9}, {2, 3}, {9, 1}, {15, 0}};
  for (uint32_t i = 0; i < 4; ++i) {
    EXPECT_EQ(t.post(pairs[i][0], pairs[i][1], 100'000, i), i) << "ids are dense from 0";
  }
  EXPECT_EQ(t.unacked_messages(), 4u);
  ASSERT_TRUE(sim.run());
  EXPECT_EQ(t.unacked_messages(), 0u);
  ASSERT_EQ(t.num_messages(), 4u);
  ASSERT_EQ(seen.size(), 4u);
  for (uint32_t i = 0; i < 4; ++i) {
    const transport::MessageRecord& m = t.message(i);
    EXPECT_EQ(seen[i], 1) << "message " << i << " completes exactly once";
    EXPECT_EQ(m.src_nic, pairs[i][0]);
    EXPECT_EQ(m.dst_nic, pairs[i][1]);
    EXPECT_EQ(m.tag, i);
    EXPECT_GT(m.rx_done_ps, m.ready_ps);
    EXPECT_EQ(m.delivered_bytes, 100'000);
  }
  EXPECT_EQ(t.counters().data_bytes_delivered, 4 * 100'000);
}

TEST(TransportInterface, RoceIdleFiguresMatchTheRoceV2Frame) {
  // A RoCEv2 WRITE MIDDLE frame: Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 + ICRC 4 + FCS 4 = 62
  // bytes around the payload (IBTA Annex A17; IEEE 802.3), plus 8 preamble/SFD + 12 IFG on the
  // wire: a 4096-byte MTU packet occupies 4178 byte times.
  scenario::Scenario sc = two_tier();
  scenario::Simulation sim(sc);
  const transport::Transport& t = sim.transport();
  EXPECT_NEAR(t.payload_rate_bps(100'000'000'000), 100e9 * 4096 / 4178, 1.0);
  // One more MTU packet in the middle of a message adds one such frame's serialization:
  // 4178 x 8 bits / 100 Gb/s = 334.24 ns.
  const int64_t two = t.ideal_fct_ps(2 * 4096, 3, sc.link, sc.switch_config, sc.nic);
  const int64_t three = t.ideal_fct_ps(3 * 4096, 3, sc.link, sc.switch_config, sc.nic);
  EXPECT_NEAR(static_cast<double>(three - two), 334'240.0, 1.0);
}

}  // namespace interface_test
}  // namespace fabricsim
