// node::PsNetwork alone: max-min shares, rate caps, head starts, batched arrivals and the
// event protocol, on hand-made resources (rates in bits per second, times in picoseconds).
#include "node/fluid_ps.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

namespace fabricsim::node {
namespace {

// Drives one group's events to the end; returns (tag, time) in finishing order.
std::vector<std::pair<uint64_t, int64_t>> drain(PsNetwork& ps, uint32_t group) {
  std::vector<std::pair<uint64_t, int64_t>> out;
  int64_t t = 0;
  while (ps.take_schedule(group, &t) || ps.active_flows(group) > 0) {
    ps.on_event(group, t);
    for (const uint64_t tag : ps.finished()) out.emplace_back(tag, t);
    ps.finished().clear();
  }
  return out;
}

TEST(PsNetwork, RateCapLeavesTheRestToOthers) {
  // One 8 Gb/s resource (1 byte per ns): flow 0 capped at 2 Gb/s, flow 1 uncapped gets 6.
  PsNetwork ps(1, 1, {8'000'000'000});
  const uint32_t r = 0;
  const uint32_t a = ps.start(&r, 1, 1000, 2e9, 0, 0, 0, true);
  const uint32_t b = ps.start(&r, 1, 3000, 0.0, 1, 0, 0, true);
  int64_t t = -1;
  ASSERT_TRUE(ps.take_schedule(0, &t));
  EXPECT_EQ(t, 0) << "the instant's arrivals are shared at that instant, once";
  ps.on_event(0, 0);
  EXPECT_DOUBLE_EQ(ps.rate_bps(a), 2e9);
  EXPECT_DOUBLE_EQ(ps.rate_bps(b), 6e9);
  ASSERT_EQ(ps.rated().size(), 2u);
  EXPECT_EQ(ps.rated()[0].first, 0u);
  EXPECT_DOUBLE_EQ(ps.rated()[1].second, 6e9);
  // Both end at 4000 ns: 1000 B at 0.25 B/ns, 3000 B at 0.75 B/ns.
  const auto done = drain(ps, 0);
  ASSERT_EQ(done.size(), 2u);
  EXPECT_EQ(done[0].second, 4'000'000);
  EXPECT_EQ(done[1].second, 4'000'000);
  EXPECT_EQ(ps.busy_ps(r, 4'000'000), 4'000'000);
  EXPECT_EQ(ps.bytes(r), 4000);
}

TEST(PsNetwork, HeadStartCreditsWhatTheShareDrained) {
  // 1 B/ns alone; a 1000 B flow that already ran 400 ns ends 600 ns after its start.
  PsNetwork ps(1, 1, {8'000'000'000});
  const uint32_t r = 0;
  ps.start(&r, 1, 1000, 0.0, 7, 1'000'000, 400'000);
  const auto done = drain(ps, 0);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].second, 1'600'000);
  EXPECT_EQ(ps.bytes(r), 1000) << "accounting counts the whole message";
}

TEST(PsNetwork, StaleEventsAreIgnoredAndFlowRecordsReused) {
  PsNetwork ps(2, 1, {8'000'000'000, 8'000'000'000});
  const uint32_t r = 0;
  int64_t t = 0;
  ps.start(&r, 1, 1000, 0.0, 1, 0);
  ASSERT_TRUE(ps.take_schedule(0, &t));
  ps.on_event(0, t);
  ASSERT_TRUE(ps.take_schedule(0, &t));
  EXPECT_EQ(t, 1'000'000);
  ps.start(&r, 1, 1000, 0.0, 2, 500'000);  // halves the first's rate: its end moves to 1500 ns
  ASSERT_TRUE(ps.take_schedule(0, &t));
  ps.on_event(0, t);
  ASSERT_TRUE(ps.take_schedule(0, &t));
  EXPECT_EQ(t, 1'500'000);
  ps.on_event(0, 1'000'000);  // the superseded event
  EXPECT_TRUE(ps.finished().empty());
  ps.on_event(0, 1'500'000);
  ASSERT_EQ(ps.finished().size(), 1u);
  EXPECT_EQ(ps.finished()[0], 1u);
  ps.finished().clear();
  ASSERT_TRUE(ps.take_schedule(0, &t));
  EXPECT_EQ(t, 2'000'000) << "500 B left at full rate";
  ps.on_event(0, t);
  ps.finished().clear();
  ps.take_schedule(0, &t);
  for (int i = 0; i < 100; ++i) {
    ps.start(&r, 1, 10, 0.0, 3, t);
    ASSERT_TRUE(ps.take_schedule(0, &t));
    ps.on_event(0, t);  // the share
    ASSERT_TRUE(ps.take_schedule(0, &t));
    ps.on_event(0, t);  // the end
    ps.finished().clear();
  }
  EXPECT_LE(ps.flows_allocated(), 2u);
}

TEST(PsNetwork, AFlowReRatedThreeTimesEndsWhereItsPiecesAddUp) {
  // 1 B/ns. A: 3000 B at 0. B: 500 B at 1000 ns, both at 0.5 B/ns: B ends at 2000 ns, A has
  // 3000 - 1000 - 500 = 1500 B left and runs alone. C: 250 B at 2500 ns, A has 1000 B left;
  // both at 0.5 B/ns: C ends at 3000 ns, A has 750 B left, alone again: ends at 3750 ns.
  PsNetwork ps(1, 1, {8'000'000'000});
  const uint32_t r = 0;
  std::vector<std::pair<uint64_t, int64_t>> done;
  int64_t pending = -1;  // the group's event time take_schedule handed out, not yet run
  auto run_until = [&](int64_t until_ps) {
    for (;;) {
      int64_t t = 0;
      if (ps.take_schedule(0, &t)) pending = t;
      if (pending < 0 || pending > until_ps) return;
      const int64_t now = pending;
      pending = -1;
      ps.on_event(0, now);
      for (const uint64_t tag : ps.finished()) done.emplace_back(tag, now);
      ps.finished().clear();
    }
  };
  ps.start(&r, 1, 3000, 0.0, 'A', 0);
  run_until(1'000'000);
  ps.start(&r, 1, 500, 0.0, 'B', 1'000'000);
  run_until(2'500'000);
  ps.start(&r, 1, 250, 0.0, 'C', 2'500'000);
  run_until(10'000'000);
  ASSERT_EQ(done.size(), 3u);
  EXPECT_EQ(done[0], (std::pair<uint64_t, int64_t>{'B', 2'000'000}));
  EXPECT_EQ(done[1], (std::pair<uint64_t, int64_t>{'C', 3'000'000}));
  EXPECT_EQ(done[2], (std::pair<uint64_t, int64_t>{'A', 3'750'000}));
}

TEST(PsNetwork, FlowsEndingTogetherFinishOnceEachInRecordOrder) {
  // Four 100 B flows share 1 B/ns: 0.25 B/ns each, all end at 400 ns. Four more start then on
  // the recycled records, which the free list hands out last-freed first (ids 3, 2, 1, 0 for
  // tags 20..23): they end together at 800 ns and finish in record order, tags 23 down to 20.
  PsNetwork ps(1, 1, {8'000'000'000});
  const uint32_t r = 0;
  for (uint64_t tag = 10; tag < 14; ++tag) ps.start(&r, 1, 100, 0.0, tag, 0);
  const auto first = drain(ps, 0);
  ASSERT_EQ(first.size(), 4u);
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(first[i].first, 10 + i);
    EXPECT_EQ(first[i].second, 400'000);
  }
  for (uint64_t tag = 20; tag < 24; ++tag) ps.start(&r, 1, 100, 0.0, tag, 400'000);
  const auto second = drain(ps, 0);
  ASSERT_EQ(second.size(), 4u) << "each flow finishes once";
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(second[i].first, 23 - i);
    EXPECT_EQ(second[i].second, 800'000);
  }
  EXPECT_EQ(ps.flows_allocated(), 4u);
}

TEST(PsNetwork, WeightedFlowGetsItsWeightInShares) {
  // 8 Gb/s (1 B/ns) shared by a weight-3 flow and a weight-1 flow: 6 and 2 Gb/s (weighted
  // max-min: the level is 8 / (3 + 1) = 2 per unit of weight). The weight-3 flow's 3000 B and
  // the other's 1000 B both end at 4000 ns; alone afterwards nothing is left.
  PsNetwork ps(1, 1, {8'000'000'000});
  const uint32_t r = 0;
  const uint32_t heavy = ps.start(&r, 1, 3000, 0.0, 0, 0, 0, false, 3);
  const uint32_t light = ps.start(&r, 1, 1000, 0.0, 1, 0, 0, false, 1);
  int64_t t = -1;
  ASSERT_TRUE(ps.take_schedule(0, &t));
  ps.on_event(0, t);
  EXPECT_DOUBLE_EQ(ps.rate_bps(heavy), 6e9);
  EXPECT_DOUBLE_EQ(ps.rate_bps(light), 2e9);
  const auto done = drain(ps, 0);
  ASSERT_EQ(done.size(), 2u);
  EXPECT_EQ(done[0].second, 4'000'000);
  EXPECT_EQ(done[1].second, 4'000'000);
}

TEST(PsNetwork, WeightedFlowEqualsThatManyLockstepFlows) {
  // Two resources of 8 and 4 Gb/s. Four identical 2000 B flows over both, plus one 6000 B flow
  // on the 8 Gb/s one alone; then the four replaced by one 8000 B flow of weight 4. Max-min by
  // hand: the 4 Gb/s resource gives the four 1 Gb/s each (0.125 B/ns: 16,000 ns), the lone flow
  // the 8 - 4 = 4 Gb/s left (0.5 B/ns: 12,000 ns). Both runs end exactly there.
  for (const bool folded : {false, true}) {
    PsNetwork ps(1, 2, {8'000'000'000, 4'000'000'000});
    const uint32_t both[2] = {0, 1};
    if (folded) {
      ps.start(both, 2, 8000, 0.0, 10, 0, 0, false, 4);
    } else {
      for (uint64_t k = 0; k < 4; ++k) ps.start(both, 2, 2000, 0.0, 10 + k, 0);
    }
    ps.start(both, 1, 6000, 0.0, 1, 0);
    const auto done = drain(ps, 0);
    ASSERT_EQ(done.size(), folded ? 2u : 5u);
    for (const auto& [tag, end_ps] : done) {
      EXPECT_EQ(end_ps, tag == 1 ? 12'000'000 : 16'000'000) << "folded " << folded;
    }
    EXPECT_EQ(ps.bytes(0), 14000);
    EXPECT_EQ(ps.bytes(1), 8000);
  }
}

TEST(PsNetwork, WeightedCapIsForTheWholeFlow) {
  // A weight-2 flow capped at 2 Gb/s on an 8 Gb/s resource with a weight-1 flow: the cap holds
  // (2 Gb/s, not 2 per unit of weight), the other takes the 6 left.
  PsNetwork ps(1, 1, {8'000'000'000});
  const uint32_t r = 0;
  const uint32_t capped = ps.start(&r, 1, 1000, 2e9, 0, 0, 0, false, 2);
  const uint32_t other = ps.start(&r, 1, 1000, 0.0, 1, 0);
  int64_t t = -1;
  ASSERT_TRUE(ps.take_schedule(0, &t));
  ps.on_event(0, t);
  EXPECT_DOUBLE_EQ(ps.rate_bps(capped), 2e9);
  EXPECT_DOUBLE_EQ(ps.rate_bps(other), 6e9);
  EXPECT_THROW(ps.start(&r, 1, 1000, 0.0, 2, 0, 0, false, 0), std::logic_error);
}

}  // namespace
}  // namespace fabricsim::node
