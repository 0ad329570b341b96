// node::PsNetwork alone: max-min shares, rate caps, head starts, batched arrivals and the
// event protocol, on hand-made resources (rates in bits per second, times in picoseconds).
#include "node/fluid_ps.h"

#include <gtest/gtest.h>

#include <cstdint>
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

}  // namespace
}  // namespace fabricsim::node
