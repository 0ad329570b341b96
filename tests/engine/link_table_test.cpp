// links.csv's rows (engine/packet/link_table.h, RunResult::link_rows) against quantities computed
// here from the wire format or read from independent fabric counters:
//  - one RDMA WRITE across one switch: the bytes each port sent, from RoCEv2's header sizes
//    (net/wire.h, shared/reference/rocev2.md: 82 bytes per packet of preamble/SFD 8, Ethernet
//    14, IPv4 20, UDP 8, BTH 12, ICRC 4, FCS 4, IFG 12; RETH 16 on the first; an ACK 86);
//  - per-port drops, PFC frames, ECN marks and IB credit waits summed over the ports equal the
//    fabric-wide counters, each kept at a different place in the code;
//  - a failed cable: its two ports and only those show down = 1, and they hold its losses.
//
//        spine 2    spine 3            leaf-spine, radix 4: leaves 0 and 1 (switches 0, 1),
//         |    \  /    |               spines 2 and 3; NICs 0, 1 on leaf 0, 2, 3 on leaf 1.
//        leaf 0    leaf 1
//        0   1     2   3
#include "engine/packet/link_table.h"
#include "results/hottest_links.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "spec/load.h"
#include "engine/run.h"

namespace fabricsim {
namespace link_table_test {

constexpr int64_t kRateBps = 100'000'000'000;
constexpr int64_t kMtu = 4096;
constexpr int64_t kPerPacketWireBytes = 82;  // rocev2.md: 8 + 14 + 20 + 8 + 12 + 4 + 4 + 12
constexpr int64_t kRethBytes = 16;
constexpr int64_t kAckWireBytes = 86;  // 82 - 0 payload + AETH 4

scenario::RunResult run(const std::string& yaml, const std::vector<std::string>& set = {}) {
  return scenario::run_scenario(scenario::load_scenario_string(yaml, "links.yaml", set).scenario);
}

const scenario::LinkRow* find(const std::vector<scenario::LinkRow>& rows, const std::string& from,
                              const std::string& to) {
  for (const scenario::LinkRow& r : rows) {
    if (r.from == from && r.to == to) return &r;
  }
  return nullptr;
}

constexpr const char* kOneSwitch = R"(
name: one-message
seed: 1
fabric:
  technology: roce
  link: {rate: 100Gbps, cable: 3m}
  roce: {mtu: 4096B}
topology: {kind: leaf_spine, radix: 4}
hosts: {count: 4}
workload:
  kind: pattern
  pattern: flows
  flows: [[0, 1, 1000000B, 0us]]
)";

TEST(LinkTable, OneMessageAcrossOneSwitchSendsItsWireBytesOnEachPort) {
  const scenario::RunResult r = run(kOneSwitch);
  ASSERT_TRUE(r.completed);
  const int64_t size = 1'000'000;
  const int64_t packets = (size + kMtu - 1) / kMtu;  // 245
  const int64_t data_wire = size + kPerPacketWireBytes * packets + kRethBytes;
  const int64_t ack_wire = kAckWireBytes * packets;  // ack_every 1 (the default)

  ASSERT_EQ(r.link_rows.size(), 2u * static_cast<size_t>(r.topology.links))
      << "one row per port: both directions of every cable";
  const scenario::LinkRow* up = find(r.link_rows, "nic0", "sw0");
  const scenario::LinkRow* down = find(r.link_rows, "sw0", "nic1");
  const scenario::LinkRow* ack_up = find(r.link_rows, "nic1", "sw0");
  const scenario::LinkRow* ack_down = find(r.link_rows, "sw0", "nic0");
  ASSERT_TRUE(up && down && ack_up && ack_down);
  EXPECT_EQ(up->tx_bytes, data_wire);
  EXPECT_EQ(down->tx_bytes, data_wire);
  EXPECT_EQ(ack_up->tx_bytes, ack_wire);
  EXPECT_EQ(ack_down->tx_bytes, ack_wire);
  EXPECT_EQ(up->link, "nic0:0->sw0");
  EXPECT_EQ(up->direction, "up");
  EXPECT_EQ(up->from_tier, 0);
  EXPECT_EQ(up->to_tier, 1);
  EXPECT_EQ(down->direction, "down");
  EXPECT_EQ(down->rate_bps, kRateBps);
  // Utilization over the LinkLoads span, from the bytes computed above.
  ASSERT_GT(r.links.span_ps, 0);
  EXPECT_DOUBLE_EQ(up->utilization, static_cast<double>(data_wire) * 8.0 /
                                        (static_cast<double>(kRateBps) * r.links.span_ps * 1e-12));
  int64_t nic_uplinks = 0, other = 0;
  for (const scenario::LinkRow& row : r.link_rows) {
    if (row.from_tier == 0) nic_uplinks += row.tx_bytes;
    if (&row != up && &row != down && &row != ack_up && &row != ack_down) other += row.tx_bytes;
    EXPECT_FALSE(row.down);
    EXPECT_EQ(row.drops, 0);
  }
  EXPECT_EQ(other, 0) << "a flow inside one leaf touches no spine link";
  EXPECT_GE(nic_uplinks, size) << "headers, ACKs and preamble/IFG come on top of the payload";
  EXPECT_EQ(nic_uplinks, data_wire + ack_wire);
}

// Seven senders into NIC 0 over a leaf-spine of radix 8 (4 NICs per leaf, 4 spines: the whole
// spine tier, so that each spine-leaf cable carries one remote sender and the only losses are
// at the receiver's downlink).
constexpr const char* kIncast = R"(
name: incast
seed: 6   # spreads the 4 remote senders over the 4 spines (seed 2 did before issue 21 item 3)
fabric:
  technology: roce
  link: {rate: 100Gbps, cable: 3m}
  switch: {buffer: 256KiB}
topology: {kind: leaf_spine, radix: 8, upper_tiers: full}
hosts: {count: 8}
workload: {kind: pattern, pattern: incast, senders: 7, receiver: 0, flow_size: 300KB}
)";

TEST(LinkTable, PerPortDropsSumToTheFabricsDroppedPackets) {
  const scenario::RunResult r = run(kIncast);
  int64_t drops = 0;
  for (const scenario::LinkRow& row : r.link_rows) drops += row.drops;
  ASSERT_GT(r.counters.dropped_packets, 0) << "test scenario: a lossy incast into a small buffer";
  EXPECT_EQ(drops, r.counters.dropped_packets);
  // The losses are at the receiver's downlink (sw0 -> nic0): the hottest link.
  const scenario::LinkRow* hot = find(r.link_rows, "sw0", "nic0");
  ASSERT_NE(hot, nullptr);
  EXPECT_EQ(hot->drops, r.counters.dropped_packets);
  const std::vector<scenario::LinkRow> top = scenario::hottest_links(r.link_rows, 10);
  ASSERT_FALSE(top.empty());
  EXPECT_EQ(top.front().link, hot->link);
  EXPECT_GT(hot->peak_queue_bytes, 0);
  EXPECT_LE(hot->peak_queue_bytes, 256 * 1024) << "no class queue holds more than the buffer";
}

TEST(LinkTable, PfcFramesAndPausedTimeSumToThePfcCounters) {
  const scenario::RunResult r =
      run(kIncast,
          {"fabric.pfc.enabled=true", "fabric.switch.buffer=16MiB", "workload.flow_size=3MB"});
  int64_t sent = 0, received = 0, paused = 0;
  for (const scenario::LinkRow& row : r.link_rows) {
    sent += row.pause_frames_sent;
    received += row.pause_frames_received;
    paused += row.paused_ps;
  }
  ASSERT_GT(r.counters.pause_frames, 0) << "test scenario: PFC pauses the incast";
  EXPECT_EQ(sent, r.counters.pause_frames);
  EXPECT_EQ(received, sent) << "every PAUSE/RESUME sent reached the far end of its cable";
  EXPECT_EQ(paused, r.counters.paused_ps);
  EXPECT_EQ(r.counters.dropped_packets, 0);
}

TEST(LinkTable, EcnMarksSumToTheSwitchesCeMarks) {
  const scenario::RunResult r = run(
      kIncast, {"fabric.pfc.enabled=true", "fabric.switch.buffer=16MiB", "fabric.roce.cc=dcqcn"});
  int64_t marks = 0;
  for (const scenario::LinkRow& row : r.link_rows) {
    marks += row.ecn_marks;
    if (row.from_tier == 0) {
      EXPECT_EQ(row.ecn_marks, 0) << "NICs do not mark: " << row.link;
    }
  }
  ASSERT_GT(r.counters.ecn_marks, 0) << "test scenario: DCQCN's ECN marks the incast";
  EXPECT_EQ(marks, r.counters.ecn_marks);
  const scenario::LinkRow* hot = find(r.link_rows, "sw0", "nic0");
  ASSERT_NE(hot, nullptr);
  EXPECT_GT(hot->ecn_marks, 0) << "the congested egress marks";
}

TEST(LinkTable, CreditWaitsSumToTheInfinibandCounter) {
  const scenario::RunResult r = run(kIncast, {"fabric.technology=ib", "fabric.link.rate=100Gbps"});
  int64_t waits = 0;
  for (const scenario::LinkRow& row : r.link_rows) waits += row.credit_waits;
  ASSERT_GT(r.counters.credit_waits, 0) << "test scenario: an IB incast waits for credits";
  EXPECT_EQ(waits, r.counters.credit_waits);
}

// 2 leaves of 2 NICs and one spine (switch 2) with two parallel cables to each leaf (the fewest
// spines: topo/fat_tree.cpp). The second leaf 0 - spine cable (switch 0, port 3) fails while cross-leaf flows are sending.
constexpr const char* kFailure = R"(
name: failure
seed: 1
fabric:
  technology: roce
  link: {rate: 100Gbps, cable: 3m}
  roce: {ack_timeout_exponent: 4}
topology: {kind: leaf_spine, radix: 4}
hosts: {count: 4}
routing: {ecmp: {convergence: 250us}}
faults: {link_down: {switch: 0, port: 3, at: 20us}}
workload:
  kind: pattern
  pattern: flows
  flows: [[0, 2, 4MB, 0us], [0, 3, 4MB, 0us], [1, 2, 4MB, 0us], [1, 3, 4MB, 0us],
          [2, 0, 4MB, 0us], [3, 1, 4MB, 0us]]
)";

TEST(LinkTable, AFailedLinkIsMarkedDownAndHoldsItsLosses) {
  const scenario::RunResult r = run(kFailure);
  std::vector<const scenario::LinkRow*> down;
  for (const scenario::LinkRow& row : r.link_rows) {
    if (row.down) down.push_back(&row);
  }
  ASSERT_EQ(down.size(), 2u) << "both directions of the one failed cable";
  EXPECT_EQ(down[0]->link, "sw0:3->sw2") << "switch 0's local port 3 faces the spine, switch 2";
  EXPECT_EQ(down[1]->from, "sw2");
  EXPECT_EQ(down[1]->to, "sw0");
  ASSERT_GT(r.counters.link_down_drops, 0) << "test scenario: the failure destroys packets";
  EXPECT_EQ(down[0]->drops + down[1]->drops, r.counters.link_down_drops)
      << "every packet lost to the failure is charged to the failed cable's ports";
  EXPECT_EQ(r.failure.link, "sw0:3->sw2") << "result.json failure.link names it";
}

TEST(LinkTable, HottestLinksAreTheBusiestFirstAndSkipIdlePorts) {
  std::vector<scenario::LinkRow> rows(5);
  const double util[5] = {0.2, 0.0, 0.9, 0.2, 0.5};
  for (uint32_t i = 0; i < 5; ++i) {
    rows[i].port = i;
    rows[i].utilization = util[i];
    rows[i].tx_bytes = util[i] > 0 ? 1 : 0;
  }
  const std::vector<scenario::LinkRow> top = scenario::hottest_links(rows, 3);
  ASSERT_EQ(top.size(), 3u);
  EXPECT_EQ(top[0].port, 2u);
  EXPECT_EQ(top[1].port, 4u);
  EXPECT_EQ(top[2].port, 0u) << "ties: the lower port first";
  EXPECT_EQ(scenario::hottest_links(rows, 10).size(), 4u) << "the idle port is left out";
}

}  // namespace link_table_test
}  // namespace fabricsim
