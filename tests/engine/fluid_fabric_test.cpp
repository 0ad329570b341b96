// The flow engine's max-min solver (engine/flow/fluid_fabric.h) against shares worked out by
// hand (progressive filling, Bertsekas & Gallager §6.5.2), and its incremental re-fill against
// a from-scratch fill of the same flows.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "core/rng.h"
#include "engine/flow/fluid_fabric.h"

namespace fabricsim::scenario {
namespace fluid_fabric_test {

using C = FluidFabric::Crossing;

uint32_t add(FluidFabric& f, std::vector<C> c, int64_t bytes = 1'000'000) {
  return f.add(c.data(), static_cast<int>(c.size()), bytes, 0, 0);
}

TEST(FluidFabric, MaxMinSharesOfTheTextbookExample) {
  // Link 0 (10 Gb/s): flows a, b. Link 1 (10 Gb/s): flows b, c, d. Link 1 is the bottleneck of
  // b, c, d at 10/3 each; a takes what b leaves of link 0: 10 - 10/3.
  FluidFabric f({10e9, 10e9});
  const uint32_t a = add(f, {{0, 1.0}});
  const uint32_t b = add(f, {{0, 1.0}, {1, 1.0}});
  const uint32_t c = add(f, {{1, 1.0}});
  const uint32_t d = add(f, {{1, 1.0}});
  f.reshare(0);
  EXPECT_NEAR(f.rate_bps(b), 10e9 / 3, 1);
  EXPECT_NEAR(f.rate_bps(c), 10e9 / 3, 1);
  EXPECT_NEAR(f.rate_bps(d), 10e9 / 3, 1);
  EXPECT_NEAR(f.rate_bps(a), 10e9 - 10e9 / 3, 1);
}

TEST(FluidFabric, ASprayedFlowLoadsEachLinkWithItsShare) {
  // A flow split half and half over links 0 and 1 (5 and 100 Gb/s), beside a whole flow on
  // link 0: link 0 fills at 0.5 x + x = 5, so both get 10/3 Gb/s; link 1 carries 5/3.
  FluidFabric f({5e9, 100e9});
  const uint32_t sprayed = add(f, {{0, 0.5}, {1, 0.5}});
  const uint32_t whole = add(f, {{0, 1.0}});
  f.reshare(0);
  EXPECT_NEAR(f.rate_bps(sprayed), 10e9 / 3, 1);
  EXPECT_NEAR(f.rate_bps(whole), 10e9 / 3, 1);
}

TEST(FluidFabric, AFlowOfShareKGetsWhatKFlowsWouldAndEndsWithThem) {
  // A folded message of 4 channels (share 4: each channel 1/4 of its 1 MB, crossings weighted
  // 4) beside one whole 1 MB flow on a 10 Gb/s link: 5 flows, 2 Gb/s each, so the folded one
  // drains its 1 MB at 8 Gb/s and ends at 1e6 x 8 / 8e9 = 1 ms, when its 4 channels of 250 kB
  // at 2 Gb/s each would; the whole flow has 0.75 MB left and ends 0.6 ms later alone.
  FluidFabric f({10e9});
  const std::vector<C> folded_c = {{0, 4.0}};
  const uint32_t folded = f.add(folded_c.data(), 1, 1'000'000, 0, 0, 4.0);
  const uint32_t whole = add(f, {{0, 1.0}});
  f.reshare(0);
  EXPECT_NEAR(f.rate_bps(whole), 2e9, 1);
  EXPECT_NEAR(f.rate_bps(folded) * 4, 8e9, 4);  // the rate of each of the channels it holds
  std::vector<FluidFabric::EndEvent> ends = f.take_ends();
  f.take_ends().clear();
  ASSERT_EQ(ends.size(), 2u);
  EXPECT_EQ(ends[0].flow, folded);
  EXPECT_EQ(ends[0].time_ps, 1'000'000'000);
  EXPECT_TRUE(f.on_end(folded, 1'000'000'000));
  f.reshare(1'000'000'000);
  ends = f.take_ends();
  ASSERT_EQ(ends.size(), 1u);
  EXPECT_EQ(ends[0].flow, whole);
  EXPECT_EQ(ends[0].time_ps, 1'600'000'000);  // 0.75e6 x 8 / 10e9 = 0.6 ms after
}

TEST(FluidFabric, EndsFollowTheRatesAsFlowsComeAndGo) {
  // Two flows of 1 MB on one 8 Gb/s link: 4 Gb/s each. The smaller (0.5 MB) ends at
  // 0.5e6 x 8 / 4e9 = 1 ms; the other has 0.5 MB left and drains alone at 8 Gb/s: 0.5 ms more.
  FluidFabric f({8e9});
  const uint32_t small = add(f, {{0, 1.0}}, 500'000);
  const uint32_t big = add(f, {{0, 1.0}}, 1'000'000);
  f.reshare(0);
  std::vector<FluidFabric::EndEvent> ends = f.take_ends();
  f.take_ends().clear();
  ASSERT_EQ(ends.size(), 2u);
  EXPECT_EQ(ends[0].flow, small);
  EXPECT_EQ(ends[0].time_ps, 1'000'000'000);  // 1 ms
  EXPECT_EQ(ends[1].time_ps, 2'000'000'000);  // at 4 Gb/s the big one would end at 2 ms
  EXPECT_TRUE(f.on_end(small, 1'000'000'000));
  f.reshare(1'000'000'000);
  // The big flow sped up: it asks for an earlier event, at 1.5 ms.
  ends = f.take_ends();
  f.take_ends().clear();
  ASSERT_EQ(ends.size(), 1u);
  EXPECT_EQ(ends[0].flow, big);
  EXPECT_EQ(ends[0].time_ps, 1'500'000'000);
  EXPECT_TRUE(f.on_end(big, 1'500'000'000));
  // Its old event at 2 ms finds it gone and does nothing.
  EXPECT_FALSE(f.on_end(big, 2'000'000'000));
  EXPECT_EQ(f.active_flows(), 0u);
}

TEST(FluidFabric, AnEndThatMovedLaterIsAskedForAgain) {
  // One flow alone (ends at 1 ms), then a second joins at 0.5 ms: the first's event at 1 ms
  // comes early and asks for its true end: 0.5 MB left at 4 Gb/s = 1 ms after 0.5 ms.
  FluidFabric f({8e9});
  const uint32_t first = add(f, {{0, 1.0}}, 1'000'000);
  f.reshare(0);
  f.take_ends().clear();
  f.add(std::vector<C>{{0, 1.0}}.data(), 1, 10'000'000, 0, 500'000'000);
  f.reshare(500'000'000);
  f.take_ends().clear();
  EXPECT_FALSE(f.on_end(first, 1'000'000'000));
  ASSERT_EQ(f.take_ends().size(), 1u);
  EXPECT_EQ(f.take_ends()[0].time_ps, 1'500'000'000);
}

TEST(FluidFabric, IncrementalArrivalsEqualAFillFromScratch) {
  // 120 random flows on 40 links, re-shared after each arrival (each re-fill touches only the
  // component the arrival joined): every rate must equal a single fill of all of them.
  const int kLinks = 40;
  std::vector<double> cap(kLinks);
  Rng rng(7, 1);
  for (double& c : cap) c = 1e9 * static_cast<double>(1 + rng.next_u64() % 8);
  FluidFabric inc(cap);
  FluidFabric scratch(cap);
  std::vector<uint32_t> ids_inc;
  std::vector<uint32_t> ids_scratch;
  for (int i = 0; i < 120; ++i) {
    std::vector<C> cross;
    const int hops = 1 + static_cast<int>(rng.next_u64() % 4);
    for (int h = 0; h < hops; ++h) {
      const auto l = static_cast<uint32_t>(rng.next_u64() % kLinks);
      bool dup = false;
      for (const C& c : cross) dup |= c.link == l;
      if (!dup) cross.push_back({l, (rng.next_u64() % 2) ? 1.0 : 0.5});
    }
    ids_inc.push_back(inc.add(cross.data(), static_cast<int>(cross.size()), 1'000'000'000, i, i));
    inc.reshare(i);
    ids_scratch.push_back(
        scratch.add(cross.data(), static_cast<int>(cross.size()), 1'000'000'000, i, 0));
  }
  scratch.reshare(0);
  for (size_t i = 0; i < ids_inc.size(); ++i) {
    EXPECT_NEAR(inc.rate_bps(ids_inc[i]), scratch.rate_bps(ids_scratch[i]),
                1e-9 * scratch.rate_bps(ids_scratch[i]))
        << "flow " << i;
  }
}

TEST(FluidFabric, ADepartureReSharesBothSidesOfASplitComponent) {
  // a on link 0, b on links 0 and 1, c on link 1. When b ends, a and c are in separate
  // components and each must get its whole link.
  FluidFabric f({10e9, 6e9});
  const uint32_t a = add(f, {{0, 1.0}}, 1'000'000'000);
  const uint32_t b = add(f, {{0, 1.0}, {1, 1.0}}, 1000);
  const uint32_t c = add(f, {{1, 1.0}}, 1'000'000'000);
  f.reshare(0);
  EXPECT_NEAR(f.rate_bps(b), 3e9, 1);
  EXPECT_NEAR(f.rate_bps(a), 7e9, 1);
  int64_t b_end = -1;
  for (const auto& e : f.take_ends()) {
    if (e.flow == b) b_end = e.time_ps;
  }
  f.take_ends().clear();
  ASSERT_GT(b_end, 0);
  ASSERT_TRUE(f.on_end(b, b_end));
  f.reshare(b_end);
  EXPECT_NEAR(f.rate_bps(a), 10e9, 1);
  EXPECT_NEAR(f.rate_bps(c), 6e9, 1);
}

TEST(FluidFabric, ARenewedFlowKeepsItsRateAndChangesNoOtherFlow) {
  // Links 0 and 1 at 8 Gb/s. a (0.5 MB) and b (10 MB) share link 0 at 4 Gb/s each; c (10 MB)
  // crosses link 1 alone at 8. a ends at 0.5e6 x 8 / 4e9 = 1 ms; its connection's next message
  // (0.25 MB) carries on in the same record on the same link, so b still shares link 0 with it:
  // 4 Gb/s, the next message ends 0.25e6 x 8 / 4e9 = 0.5 ms later, and no re-fill is asked.
  FluidFabric f({8e9, 8e9});
  const uint32_t a = add(f, {{0, 1.0}}, 500'000);
  const uint32_t b = add(f, {{0, 1.0}}, 10'000'000);
  const uint32_t c = add(f, {{1, 1.0}}, 10'000'000);
  f.reshare(0);
  f.take_ends().clear();
  const std::vector<C> other{{1, 1.0}};
  EXPECT_FALSE(f.renew(a, other.data(), 1, 250'000, 7, 1'000'000'000))
      << "another link: the caller must end it and add the next message";
  EXPECT_FALSE(f.renew(a, std::vector<C>{{0, 1.0}}.data(), 1, 250'000, 7, 999'999'999))
      << "not at its end";
  ASSERT_TRUE(f.renew(a, std::vector<C>{{0, 1.0}}.data(), 1, 250'000, 7, 1'000'000'000));
  EXPECT_FALSE(f.dirty());
  EXPECT_EQ(f.tag(a), 7u);
  EXPECT_NEAR(f.rate_bps(a), 4e9, 1);
  EXPECT_NEAR(f.rate_bps(b), 4e9, 1);
  EXPECT_NEAR(f.rate_bps(c), 8e9, 1);
  ASSERT_EQ(f.take_ends().size(), 1u);
  EXPECT_EQ(f.take_ends()[0].flow, a);
  EXPECT_EQ(f.take_ends()[0].time_ps, 1'500'000'000);
  f.take_ends().clear();
  // Its end then comes as any flow's: removed, b alone on link 0.
  EXPECT_TRUE(f.on_end(a, 1'500'000'000));
  f.reshare(1'500'000'000);
  EXPECT_NEAR(f.rate_bps(b), 8e9, 1);
  EXPECT_EQ(f.renewals(), 1);
}

}  // namespace fluid_fabric_test
}  // namespace fabricsim::scenario
