// UET entropy choice (transport/uet_lb.h) against the rules of uet-htsim's uec_mp.cpp and
// buffer_reps.cpp (docs/reference/uet-sim.md §3), and RCCC end to end (transport/uet_rccc.h).
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "core/time.h"
#include "engine/packet/simulation.h"
#include "transport/uet.h"
#include "transport/uet_lb.h"

namespace fabricsim {
namespace uet_lb_test {

using transport::UetEntropy;
using transport::UetLoadBalancing;

TEST(UetEntropy, ObliviousVisitsEveryEvOncePerRound) {
  const int paths = 64;
  UetEntropy lb(UetLoadBalancing::kOblivious, paths, 7, 1);
  int upper = -1;
  std::vector<int> previous;
  bool rounds_differ = false;
  for (int round = 0; round < 10; ++round) {
    std::set<int> low;
    std::vector<int> order;
    for (int i = 0; i < paths; ++i) {
      const uint16_t ev = lb.next(0);
      if (upper < 0) upper = ev & ~(paths - 1);
      EXPECT_EQ(ev & ~(paths - 1), upper) << "upper bits: one constant per connection";
      low.insert(ev & (paths - 1));
      order.push_back(ev & (paths - 1));
    }
    EXPECT_EQ(low.size(), static_cast<size_t>(paths)) << "round " << round;
    if (!previous.empty() && order != previous) rounds_differ = true;
    previous = order;
  }
  EXPECT_TRUE(rounds_differ) << "the XOR mask is redrawn each round";
}

TEST(UetEntropy, SinglePathKeepsOneEv) {
  UetEntropy lb(UetLoadBalancing::kSinglePath, 64, 7, 2);
  const uint16_t ev = lb.next(0);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(lb.next(i), ev);
}

TEST(UetEntropy, RepsReusesOnlyUnmarkedEvsOldestFirst) {
  UetEntropy lb(UetLoadBalancing::kReps, 64, 7, 3);
  lb.on_feedback(11, false);
  lb.on_feedback(22, true);  // CE-marked: not recycled
  lb.on_feedback(33, false);
  EXPECT_EQ(lb.cached(), 2);
  EXPECT_EQ(lb.next(0), 11);
  EXPECT_EQ(lb.next(0), 33);
  EXPECT_EQ(lb.cached(), 0);
  // The ring holds 8 (htsim repsBufferSize): the two oldest of 10 give way.
  for (uint16_t ev = 100; ev < 110; ++ev) lb.on_feedback(ev, false);
  EXPECT_EQ(lb.cached(), transport::kRepsBufferSize);
  for (uint16_t ev = 102; ev < 110; ++ev) EXPECT_EQ(lb.next(0), ev);
  // Empty ring: a random EV among the connection's `paths`.
  const uint16_t r = lb.next(0);
  std::set<uint16_t> seen;
  for (int i = 0; i < 1000; ++i) seen.insert(lb.next(0));
  for (uint16_t ev : seen) EXPECT_EQ(ev & ~63, r & ~63);
  EXPECT_GT(seen.size(), 50u) << "random exploration covers most of the 64 EVs";
}

TEST(UetEntropy, RepsFreezesAfterATimeout) {
  UetEntropy lb(UetLoadBalancing::kReps, 64, 7, 4);
  lb.on_feedback(5, false);
  lb.on_feedback(6, false);
  const int64_t t0 = 1'000'000;
  lb.on_timeout(t0);
  EXPECT_TRUE(lb.frozen(t0 + 1));
  // Frozen: cached EVs are reused in turn without being consumed.
  for (int i = 0; i < 6; ++i) EXPECT_EQ(lb.next(t0 + i), i % 2 == 0 ? 5 : 6);
  EXPECT_EQ(lb.cached(), 2);
  const int64_t thaw = t0 + transport::kRepsFreezePs;
  EXPECT_FALSE(lb.frozen(thaw));
  // Then 16 random explorations before recycled EVs are used again.
  for (int i = 0; i < transport::kRepsExploreAfterFreeze; ++i) lb.next(thaw);
  EXPECT_EQ(lb.cached(), 2);
  EXPECT_EQ(lb.next(thaw), 5);
}

TEST(UetRccc, IncastCompletesAtLineRateWithGrantedCredit) {
  scenario::Scenario sc;
  sc.technology = scenario::Technology::kUet;
  sc.topology.tiers = 2;
  sc.topology.radix = 16;
  sc.topology.hosts = 16;
  sc.link.rate_bps = 100'000'000'000;
  sc.uet.nscc = false;
  sc.uet.rccc = true;
  scenario::Simulation sim(sc);
  const int64_t size = 1'000'000;
  for (uint32_t s = 1; s <= 8; ++s) sim.transport().post(s, 0, size, s);
  ASSERT_TRUE(sim.run());
  const auto& t = static_cast<const transport::UetTransport&>(sim.transport());
  int64_t last = 0;
  for (uint32_t i = 0; i < t.num_messages(); ++i) {
    EXPECT_EQ(t.message(i).delivered_bytes, size);
    last = std::max(last, t.message(i).rx_done_ps);
  }
  EXPECT_GT(t.counters().credits_sent, 0);
  // Each sender saw no more credit than its receiver granted.
  for (uint32_t p = 0; p < t.num_pdcs(); ++p) {
    EXPECT_LE(t.pdc(p).credit.granted_seen, t.pdc(p).rx.granted);
  }
  // The receiver's link carries 8 MB of payload: the incast cannot end before that has been
  // serialized at the payload rate, and credit pacing at 0.99 x line rate keeps it near it.
  const double ideal_ps = 8.0 * size * 8 / t.payload_rate_bps(sc.link.rate_bps) * 1e12;
  EXPECT_GT(last, ideal_ps);
  EXPECT_LT(last, 1.1 * ideal_ps) << last / 1e6 << " us vs " << ideal_ps / 1e6 << " us";
}

}  // namespace uet_lb_test
}  // namespace fabricsim
