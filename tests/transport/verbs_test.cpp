// Verbs other than RC RDMA WRITE: RDMA READ (request + responses), SEND, UC and UD, on
// InfiniBand and RoCE. Timings are derived here from the IB wire format (SPEC §8: LRH 8, BTH 12,
// RETH 16, AETH 4, DETH 8, ICRC 4, VCRC 2; no preamble or gap), not read from the simulator.
// The NIC profile is `zero` (no NIC or host latency): these tests are about wire bytes.
//
//   leaf-spine radix 8, 100 Gb/s, 3 m: NICs 0-3 on leaf 0, 4-7 on leaf 1; NIC0 -> NIC4 crosses
//   leaf 0, a spine and leaf 1 (3 switches, 4 cables), cut-through, 130 ns per IB switch.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>

#include "core/error.h"
#include "engine/run.h"
#include "engine/packet/simulation.h"

namespace fabricsim {
namespace verbs_test {

constexpr int64_t kRateBps = 100'000'000'000;
constexpr int64_t kMtu = 4096;
constexpr int64_t kPropPs = 15'000;       // 3 m x 5 ns/m
constexpr int64_t kIbSwitchPs = 130'000;  // scenario::IbSpec default

int64_t ser_ps(int64_t bytes) { return bytes * 8 * 1'000'000'000'000 / kRateBps; }

scenario::Scenario ib_fabric(transport::Operation op, transport::Service service) {
  scenario::Scenario sc;
  sc.technology = scenario::Technology::kInfiniband;
  sc.topology.tiers = 2;
  sc.topology.radix = 8;
  sc.topology.hosts = 16;
  sc.link.rate_bps = kRateBps;
  sc.link.cable_m = 3;
  sc.roce.operation = op;
  sc.roce.service = service;
  sc.nic_spec.profile = "zero";
  return sc;
}

// The same leaf-spine as lossy RoCE: each data frame is lost with `loss_rate` per link crossing.
scenario::Scenario lossy_roce(double loss_rate) {
  scenario::Scenario sc;
  sc.topology.tiers = 2;
  sc.topology.radix = 8;
  sc.topology.hosts = 16;
  sc.link.rate_bps = kRateBps;
  sc.link.loss_rate = loss_rate;
  return sc;
}

TEST(RdmaRead, IdlePathTimeIsRequestOneWayThenResponsesStreamed) {
  constexpr int64_t kSize = 1'000'000;  // 245 packets: 244 x 4096 + 576
  scenario::Simulation sim(ib_fabric(transport::Operation::kRead, transport::Service::kRc));
  const uint32_t msg = sim.transport().post(0, 4, kSize, 0);
  sim.run();
  const transport::MessageRecord& m = sim.transport().message(msg);
  ASSERT_GE(m.rx_done_ps, 0) << "the READ completed";
  // Request: LRH+BTH+RETH+ICRC+VCRC = 42 bytes, one way over 4 cables and 3 switches.
  const int64_t path_ps = 4 * kPropPs + 3 * kIbSwitchPs;
  const int64_t request_ps = ser_ps(42) + path_ps;
  // Responses: 26 bytes of headers each, +4 AETH on the first and the last.
  int64_t response_wire = 0;
  for (int i = 0; i < 245; ++i) {
    const int64_t payload = i < 244 ? kMtu : kSize - 244 * kMtu;
    response_wire += payload + 26 + (i == 0 || i == 244 ? 4 : 0);
  }
  const int64_t expected = request_ps + ser_ps(response_wire) + path_ps;
  EXPECT_NEAR(static_cast<double>(m.rx_done_ps), static_cast<double>(expected), 1000.0)
      << "request one way, then 245 responses back to back, then the last one's path";
  EXPECT_EQ(m.delivered_bytes, kSize) << "every byte once";
  EXPECT_EQ(m.tx_done_ps, m.rx_done_ps) << "a READ completes at the requester with its data";
  EXPECT_EQ(sim.transport().counters().read_requests, 1) << "one request per message";
  EXPECT_EQ(sim.transport().counters().ack_packets, 0) << "responses are not acknowledged";
}

TEST(RdmaRead, LostResponsesAreRequestedAgainAndEveryReadCompletesOnce) {
  // Lossy RoCE (1% loss per link crossing) forces re-issued READs.
  scenario::Scenario sc = lossy_roce(0.01);
  sc.roce.operation = transport::Operation::kRead;
  sc.roce.ack_timeout_exponent = 6;  // 262 us
  scenario::Simulation sim(sc);
  std::map<uint32_t, int> completions;
  sim.transport().on_delivered = [&](uint32_t m) { ++completions[m]; };
  for (uint32_t i = 0; i < 4; ++i) sim.transport().post(i, 4 + i, 300'000, 0);
  for (uint32_t i = 0; i < 4; ++i) sim.transport().post(i, 4 + i, 100'000, 0);  // same QPs
  sim.run();
  ASSERT_EQ(completions.size(), 8u) << "every READ completed";
  int64_t sent = 0, delivered = 0, dropped = 0;
  for (uint32_t m = 0; m < 8; ++m) {
    EXPECT_EQ(completions[m], 1) << "READ " << m << " completed exactly once";
    const transport::MessageRecord& msg = sim.transport().message(m);
    sent += msg.sent_bytes;
    delivered += msg.delivered_bytes;
    dropped += msg.dropped_bytes;
    EXPECT_GE(msg.delivered_bytes, msg.size_bytes) << "all of READ " << m << "'s data arrived";
  }
  for (uint32_t i = 0; i < 4; ++i) {
    EXPECT_LT(sim.transport().message(i).rx_done_ps, sim.transport().message(4 + i).rx_done_ps)
        << "READs on one QP complete in order";
  }
  EXPECT_GT(sim.transport().counters().retransmitted_packets, 0) << "losses were repaired";
  EXPECT_EQ(sent, delivered + dropped) << "response bytes conserved";
}

TEST(Verbs, SendCarriesNoRethAndUdOneDethPerPacket) {
  // Same 3-switch path; only the wire bytes differ between WRITE, SEND and UD SEND.
  auto finish = [](transport::Operation op, transport::Service service, int64_t size) {
    scenario::Simulation sim(ib_fabric(op, service));
    const uint32_t msg = sim.transport().post(0, 4, size, 0);
    sim.run();
    return sim.transport().message(msg).rx_done_ps;
  };
  const int64_t path_ps = 4 * kPropPs + 3 * kIbSwitchPs;
  const int64_t write = finish(transport::Operation::kWrite, transport::Service::kRc, 2 * kMtu);
  const int64_t send = finish(transport::Operation::kSend, transport::Service::kRc, 2 * kMtu);
  const int64_t ud = finish(transport::Operation::kSend, transport::Service::kUd, 2048);
  EXPECT_EQ(write, ser_ps(2 * kMtu + 2 * 26 + 16) + path_ps) << "WRITE: RETH on the first packet";
  EXPECT_EQ(send, ser_ps(2 * kMtu + 2 * 26) + path_ps) << "SEND: no RETH";
  EXPECT_EQ(ud, ser_ps(2048 + 26 + 8) + path_ps) << "UD: one packet with a DETH";
}

TEST(Verbs, UdRefusesAMessageLargerThanTheMtu) {
  scenario::Simulation sim(ib_fabric(transport::Operation::kSend, transport::Service::kUd));
  EXPECT_THROW(sim.transport().post(0, 4, kMtu + 1, 0), InputError)
      << "a UD message is a single packet";
}

TEST(Verbs, UnreliableConnectionSendsNoAcksAndLosesWholeMessages) {
  // UC on lossy RoCE: no ACK, no retransmission; a message that lost a packet is never delivered
  // and the requester still counts it as sent.
  scenario::Scenario sc = lossy_roce(0.002);
  sc.roce.service = transport::Service::kUc;
  scenario::Simulation sim(sc);
  for (int i = 0; i < 200; ++i) sim.transport().post(0, 4, 64 * 1024, 0);
  sim.run();
  int delivered = 0;
  for (uint32_t m = 0; m < 200; ++m) {
    const transport::MessageRecord& msg = sim.transport().message(m);
    EXPECT_GE(msg.tx_done_ps, 0) << "UC: done at the requester once sent";
    if (msg.rx_done_ps >= 0) {
      ++delivered;
      EXPECT_EQ(msg.dropped_bytes, 0) << "a delivered UC message lost nothing";
    } else {
      EXPECT_GT(msg.dropped_bytes, 0) << "an undelivered one lost a packet";
    }
  }
  EXPECT_EQ(sim.transport().counters().ack_packets, 0) << "UC is never acknowledged";
  EXPECT_EQ(sim.transport().counters().retransmitted_packets, 0) << "and never retransmits";
  EXPECT_LT(delivered, 200) << "with 0.2% loss per link some of 200 x 16-packet messages died";
  EXPECT_GT(delivered, 100) << "most survive: (1-0.002)^(16x4) = 88% expected";
}

}  // namespace verbs_test
}  // namespace fabricsim
