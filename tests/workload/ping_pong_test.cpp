// pattern: ping_pong (workload/ping_pong.h): each round trip is a ping A -> B posted when the
// previous pong reached A's application, and a pong B -> A posted when the ping reached B's.
// On an idle fabric every round trip therefore equals two single-message latencies, which this
// test measures independently (one message posted by hand, post to the receiver's application)
// and compares, and which it also derives from the wire and NIC parameters.
#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "engine/packet/simulation.h"
#include "workload/ping_pong.h"

namespace fabricsim {
namespace ping_pong_test {

// Two NICs on one leaf (tiers 2, radix 4, 2 hosts): A -> leaf -> B.
scenario::Scenario two_hosts(scenario::Technology tech) {
  scenario::Scenario sc;
  sc.technology = tech;
  sc.topology.tiers = 2;
  sc.topology.radix = 4;
  sc.topology.hosts = 2;
  sc.link.rate_bps = 400'000'000'000;
  sc.link.cable_m = 3.0;
  sc.workload.kind = workload::WorkloadKind::kPattern;
  sc.workload.pattern = workload::PatternKind::kPingPong;
  sc.workload.ping_pong.pairs = {0, 1};
  sc.workload.ping_pong.size_bytes = 2;
  sc.workload.ping_pong.iterations = 50;
  return sc;
}

std::vector<workload::PingPongStats> run_ping_pong(const scenario::Scenario& sc) {
  scenario::Simulation sim(sc);
  sim.start_workload();
  EXPECT_TRUE(sim.run());
  const workload::PingPong* pp = sim.workload().ping_pong();
  EXPECT_NE(pp, nullptr);
  EXPECT_TRUE(pp->done());
  return pp->stats();
}

// One message from `src` to `dst` on the idle fabric, post to the receiver's application.
int64_t one_message_ps(scenario::Scenario sc, uint32_t src, uint32_t dst, int64_t bytes) {
  // A valid flows pattern (resolve() checks the workload) that is never started: the test posts
  // the one message itself.
  sc.workload.pattern = workload::PatternKind::kFlows;
  sc.workload.flows = {workload::ExplicitFlow{static_cast<int>(src), static_cast<int>(dst), bytes}};
  scenario::Simulation sim(sc);
  const uint32_t msg = sim.transport().post(src, dst, bytes, 0);
  EXPECT_TRUE(sim.run());
  const transport::MessageRecord& m = sim.transport().message(msg);
  return m.rx_done_ps - m.post_ps;
}

TEST(PingPong, EachRoundTripIsTwoSingleMessageLatencies) {
  for (scenario::Technology tech : {scenario::Technology::kRoce, scenario::Technology::kInfiniband,
                                    scenario::Technology::kUet}) {
    const scenario::Scenario sc = two_hosts(tech);
    const int64_t there = one_message_ps(sc, 0, 1, 2);
    const int64_t back = one_message_ps(sc, 1, 0, 2);
    const std::vector<workload::PingPongStats> s = run_ping_pong(sc);
    ASSERT_EQ(s.size(), 1u);
    ASSERT_EQ(s[0].iterations, 50);
    ASSERT_EQ(s[0].rtt_ps.size(), 50u);
    for (int64_t rtt : s[0].rtt_ps) EXPECT_EQ(rtt, there + back);
    EXPECT_EQ(s[0].one_way_typical_ps, static_cast<double>(there + back) / 2);
    EXPECT_EQ(s[0].one_way_min_ps, s[0].one_way_max_ps) << "an idle fabric: no spread";
    EXPECT_EQ(s[0].one_way_p99_ps, s[0].one_way_typical_ps);
    EXPECT_DOUBLE_EQ(s[0].transactions_per_s, 1e12 / static_cast<double>(there + back));
  }
}

// The same one-way latency from the parameters: connectx-7 post 50 + doorbell 150 + tx 180 +
// rx 180 + memory write 200 + poll 50 ns (docs/calibration.md), two 3 m cables at 5 ns/m, the
// IB switch's 130 ns, and a 46-byte IB frame (LRH 8 + BTH 12 + RETH 16 + 2 B padded to 4 +
// ICRC 4 + VCRC 2) at 400 Gb/s: 0.92 ns.
TEST(PingPong, IbOneWayMatchesItsParts) {
  const std::vector<workload::PingPongStats> s =
      run_ping_pong(two_hosts(scenario::Technology::kInfiniband));
  const double expected_ps = (50 + 150 + 180 + 180 + 200 + 50) * 1000.0 + 2 * 15'000.0 +
                             130'000.0 + 46 * 8 / 400e9 * 1e12;
  EXPECT_NEAR(s[0].one_way_typical_ps, expected_ps, 46 * 8 / 400e9 * 1e12)
      << "within one frame time (the cut-through header wait)";
}

TEST(PingPong, WarmupRoundTripsAreRunButNotCounted) {
  scenario::Scenario sc = two_hosts(scenario::Technology::kRoce);
  sc.workload.ping_pong.iterations = 7;
  sc.workload.ping_pong.warmup = 3;
  scenario::Simulation sim(sc);
  sim.start_workload();
  ASSERT_TRUE(sim.run());
  EXPECT_EQ(sim.transport().num_messages(), 2u * (7 + 3)) << "a ping and a pong per round trip";
  const std::vector<workload::PingPongStats> s = sim.workload().ping_pong()->stats();
  EXPECT_EQ(s[0].iterations, 7);
  EXPECT_EQ(s[0].warmup, 3);
  EXPECT_EQ(s[0].rtt_ps.size(), 7u);
}

// Two pairs on disjoint NICs run side by side and do not disturb each other: each measures what
// it measures alone. Messages alternate direction, so a pair's own traffic never queues.
TEST(PingPong, DisjointPairsRunSideBySide) {
  scenario::Scenario sc = two_hosts(scenario::Technology::kRoce);
  sc.topology.radix = 8;
  sc.topology.hosts = 4;
  sc.workload.ping_pong.pairs = {0, 1, 2, 3};
  const std::vector<workload::PingPongStats> s = run_ping_pong(sc);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].a, 0);
  EXPECT_EQ(s[0].b, 1);
  EXPECT_EQ(s[1].a, 2);
  EXPECT_EQ(s[1].b, 3);
  const int64_t alone = one_message_ps(sc, 0, 1, 2) + one_message_ps(sc, 1, 0, 2);
  EXPECT_EQ(s[0].one_way_typical_ps, static_cast<double>(alone) / 2);
  EXPECT_EQ(s[1].one_way_typical_ps, s[0].one_way_typical_ps);
}

// A larger message is not inline: it pays the DMA read and a longer serialization, so its round
// trip is longer by exactly twice (once per direction) what a single message grows by.
TEST(PingPong, SizeChangesTheRoundTripAsASingleMessageDoes) {
  scenario::Scenario sc = two_hosts(scenario::Technology::kRoce);
  sc.workload.ping_pong.size_bytes = 64 << 10;
  const std::vector<workload::PingPongStats> s = run_ping_pong(sc);
  const int64_t there = one_message_ps(sc, 0, 1, 64 << 10);
  const int64_t back = one_message_ps(sc, 1, 0, 64 << 10);
  EXPECT_EQ(s[0].one_way_typical_ps, static_cast<double>(there + back) / 2);
  EXPECT_GT(s[0].one_way_typical_ps, 2 * run_ping_pong(two_hosts(scenario::Technology::kRoce))[0]
                                              .one_way_typical_ps);
}

TEST(PingPong, DeterministicForAScenario) {
  const scenario::Scenario sc = two_hosts(scenario::Technology::kUet);
  EXPECT_EQ(run_ping_pong(sc)[0].rtt_ps, run_ping_pong(sc)[0].rtt_ps);
}

// Percentiles over differing round trips (checked on the statistics alone): perftest's median
// (the mean of the two middle values for an even count), nearest-rank p99 and p99.9, halves.
TEST(PingPong, StatisticsAreHalvesOfTheRoundTripPercentiles) {
  const workload::PingPongStats four = workload::summarize_round_trips({40, 10, 30, 20});
  EXPECT_EQ(four.iterations, 4);
  EXPECT_DOUBLE_EQ(four.one_way_min_ps, 5);
  EXPECT_DOUBLE_EQ(four.one_way_typical_ps, 12.5);  // (20 + 30) / 2 / 2
  EXPECT_DOUBLE_EQ(four.one_way_avg_ps, 12.5);
  EXPECT_DOUBLE_EQ(four.one_way_p99_ps, 20);  // rank ceil(0.99 x 4) = 4
  EXPECT_DOUBLE_EQ(four.one_way_max_ps, 20);
  EXPECT_DOUBLE_EQ(four.transactions_per_s, 1e12 / 25);
  std::vector<int64_t> thousand;
  for (int64_t i = 1000; i >= 1; --i) thousand.push_back(2 * i);
  const workload::PingPongStats t = workload::summarize_round_trips(thousand);
  EXPECT_DOUBLE_EQ(t.one_way_typical_ps, 500.5);  // (1000 + 1002) / 2 / 2
  EXPECT_DOUBLE_EQ(t.one_way_p99_ps, 990);        // rank 990 of 2, 4, ..., 2000
  EXPECT_DOUBLE_EQ(t.one_way_p999_ps, 999);
  EXPECT_EQ(t.rtt_ps, thousand) << "the per-iteration list keeps its order";
  EXPECT_EQ(workload::summarize_round_trips({}).iterations, 0);
}

TEST(PingPong, BadPairsAndCountsAreRefusedNamingTheKey) {
  auto refused = [](workload::PingPongSpec spec, int nics, const std::string& key) {
    try {
      workload::check_ping_pong(spec, nics);
      ADD_FAILURE() << "accepted a bad " << key;
    } catch (const InputError& e) {
      EXPECT_EQ(e.key_path(), key) << e.what();
    }
  };
  workload::PingPongSpec ok;
  EXPECT_NO_THROW(workload::check_ping_pong(ok, 2));
  workload::PingPongSpec odd = ok;
  odd.pairs = {0, 1, 2};
  refused(odd, 4, "workload.ping_pong.pairs");
  workload::PingPongSpec self = ok;
  self.pairs = {1, 1};
  refused(self, 4, "workload.ping_pong.pairs");
  workload::PingPongSpec beyond = ok;
  beyond.pairs = {0, 4};
  refused(beyond, 4, "workload.ping_pong.pairs");
  workload::PingPongSpec none = ok;
  none.pairs = {};
  refused(none, 4, "workload.ping_pong.pairs");
  workload::PingPongSpec zero = ok;
  zero.iterations = 0;
  refused(zero, 2, "workload.ping_pong.iterations");
  workload::PingPongSpec empty = ok;
  empty.size_bytes = 0;
  refused(empty, 2, "workload.ping_pong.size");
}

}  // namespace ping_pong_test
}  // namespace fabricsim
