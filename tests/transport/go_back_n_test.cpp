// Loss recovery on a lossy fabric: an 8:1 incast into a switch with a tiny shared buffer drops
// packets; NAK + go-back-N and the retransmit timeout must still deliver every message exactly
// once, and every payload byte sent is either delivered or counted as dropped.
#include <gtest/gtest.h>

#include "engine/run.h"
#include "engine/packet/simulation.h"

namespace fabricsim {
namespace go_back_n_test {

scenario::Scenario lossy_incast() {
  scenario::Scenario sc;
  sc.topology.tiers = 2;
  sc.topology.radix = 8;
  sc.topology.hosts = 16;
  sc.link.rate_bps = 100'000'000'000;
  sc.switch_config.buffer_bytes = 64 << 10;  // 64 KiB: ~15 full frames for the whole switch
  sc.roce.ack_timeout_exponent = 4;          // 4.096 us x 16 = 65.5 us, to keep the test short
  sc.workload.kind = workload::WorkloadKind::kPattern;
  sc.workload.pattern = workload::PatternKind::kIncast;
  sc.workload.incast_senders = 8;
  sc.workload.incast_receiver = 0;
  sc.workload.flow_size_bytes = 256 << 10;
  return sc;
}

TEST(GoBackN, IncastWithDropsCompletesEveryMessageAndConservesBytes) {
  const scenario::RunResult r = scenario::run_scenario(lossy_incast());
  ASSERT_TRUE(r.completed) << "every flow must finish despite drops";
  EXPECT_GT(r.counters.dropped_packets, 0) << "the buffer was sized to force drops";
  EXPECT_GT(r.counters.retransmitted_packets, 0) << "drops must cause retransmissions";
  EXPECT_GT(r.counters.naks, 0) << "gaps must be NAKed";
  int64_t sent = 0, delivered = 0, dropped = 0;
  for (const scenario::FlowRecord& f : r.flows) {
    EXPECT_EQ(f.sent_bytes, f.delivered_bytes + f.dropped_bytes) << "flow " << f.id;
    EXPECT_GE(f.delivered_bytes, f.size_bytes) << "flow " << f.id << " lost data";
    EXPECT_GE(f.finish_ps, 0) << "flow " << f.id;
    sent += f.sent_bytes;
    delivered += f.delivered_bytes;
    dropped += f.dropped_bytes;
  }
  EXPECT_EQ(sent, r.counters.data_bytes_sent);
  EXPECT_EQ(delivered, r.counters.data_bytes_delivered);
  EXPECT_EQ(dropped, r.counters.dropped_bytes);
}

TEST(GoBackN, TailLossIsRecoveredByTheRetransmitTimeout) {
  // A single-packet message whose only packet is lost leaves nothing to trigger a NAK: only the
  // timer can recover it. The receiver's cable is down while the packet crosses the fabric
  // (a down port loses what it would transmit) and back up before the timeout.
  scenario::Scenario sc = lossy_incast();
  sc.workload.incast_senders = 1;
  sc.workload.flow_size_bytes = 1000;
  scenario::Simulation sim(sc);
  net::Network& net = sim.network();
  sim.start_workload();
  // The switch port facing NIC 0 (the receiver).
  const uint32_t to_receiver = net.port(net.nic_port(0)).peer;
  net.port(to_receiver).up = false;
  EXPECT_FALSE(sim.run(10'000'000)) << "after 10 us only the retransmit timer is left";
  ASSERT_EQ(net.counters().dropped_packets, 1) << "the packet died at the down port";
  net.port(to_receiver).up = true;
  ASSERT_TRUE(sim.run());
  const transport::MessageRecord& m = sim.transport().message(0);
  EXPECT_GE(m.rx_done_ps, sc.roce.retransmit_timeout_ps()) << "recovered only after the RTO";
  EXPECT_EQ(sim.transport().counters().timeouts, 1) << "exactly one timeout";
  EXPECT_EQ(m.sent_bytes, m.delivered_bytes + m.dropped_bytes) << "conservation";
  EXPECT_EQ(m.dropped_bytes, 1000);
}

TEST(GoBackN, RetriesExhaustedPutTheQpInErrorAndTheRunEnds) {
  // The receiver's cable stays down: the message can never be delivered. After retry_count + 1
  // timeouts the QP enters the error state, the message is reported unfinished and the run
  // stops instead of retransmitting forever.
  scenario::Scenario sc = lossy_incast();
  sc.workload.incast_senders = 1;
  sc.workload.flow_size_bytes = 1000;
  sc.roce.retry_count = 3;
  scenario::Simulation sim(sc);
  net::Network& net = sim.network();
  net.port(net.port(net.nic_port(0)).peer).up = false;
  sim.start_workload();
  ASSERT_TRUE(sim.run()) << "the run must end by itself";
  const transport::TransportCounters& c = sim.transport().counters();
  EXPECT_EQ(c.timeouts, 4) << "retry_count 3: the 4th timeout fails the QP";
  EXPECT_EQ(c.qp_errors, 1);
  EXPECT_EQ(sim.transport().message(0).rx_done_ps, -1) << "never delivered";
  const int64_t rto = sc.roce.retransmit_timeout_ps();
  EXPECT_GE(sim.scheduler().now_ps, 4 * rto) << "four full timeouts elapsed";
  EXPECT_LT(sim.scheduler().now_ps, 5 * rto) << "and nothing after the QP failed";
}

TEST(Simulation, RunCanStopAtATimeAndResumeWithNewMessages) {
  // run(stop) must leave the clock at the stop time so that the caller can post more work.
  scenario::Scenario sc = lossy_incast();
  sc.switch_config.buffer_bytes = 64 << 20;
  scenario::Simulation sim(sc);
  sim.transport().post(1, 0, 1'000'000, 0);
  EXPECT_FALSE(sim.run(20'000'000)) << "stopped at 20 us";
  EXPECT_EQ(sim.scheduler().now_ps, 20'000'000) << "the clock rests at the stop time";
  const uint32_t late = sim.transport().post(2, 3, 64, 0);
  ASSERT_TRUE(sim.run());
  EXPECT_GE(sim.transport().message(late).post_ps, 20'000'000);
  EXPECT_GE(sim.transport().message(late).rx_done_ps, 20'000'000) << "the late message completes";
}

}  // namespace go_back_n_test
}  // namespace fabricsim
