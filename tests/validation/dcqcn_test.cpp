// DCQCN on a RoCEv2 bottleneck (SPEC §8 profiles, shared/reference/rocev2.md §1).
//
//   NIC1 ─┐
//   NIC2 ─┼─ leaf ... ─► NIC0      N senders into one 100 Gb/s NIC port, PFC on, DCQCN on
//   ...  ─┘
//
// The bottleneck is the switch port towards NIC0: it carries only data (the ACKs and CNPs go
// the other way), so its goodput is B = 100 Gb/s x 4096 / (4096 + 82) and the fair share of
// each of N long flows is B / N (max-min fairness on one link). Rates are measured from bytes
// delivered over a window after the start-up transient, never from the simulator's own rate
// variables.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "scenario/simulation.h"

namespace fabricsim {
namespace {

constexpr double kRateBps = 100e9;
constexpr double kGoodputBps = kRateBps * 4096.0 / (4096.0 + 82.0);

scenario::Scenario bottleneck(const std::string& profile, int senders) {
  scenario::Scenario sc;
  sc.topology.tiers = 2;
  sc.topology.radix = senders > 8 ? 16 : 8;
  sc.topology.hosts = senders > 8 ? 64 : 16;
  sc.link.rate_bps = static_cast<int64_t>(kRateBps);
  sc.switch_config.buffer_bytes = 16 << 20;
  sc.switch_config.pfc.enabled = true;
  sc.roce.cc = transport::CongestionControl::kDcqcn;
  sc.roce.dcqcn_profile = profile;
  return sc;
}

struct Window {
  std::vector<double> rate_bps;  // per flow, over [from, to)
  double total_bps = 0;
};

// Posts one long flow from each of NICs 1..senders to NIC 0 and measures each flow's goodput
// between `from_ps` and `to_ps`.
Window measure(scenario::Simulation& sim, int senders, int64_t from_ps, int64_t to_ps) {
  for (int i = 1; i <= senders; ++i) sim.transport().post(i, 0, 4'000'000'000, 0);
  sim.run(from_ps);
  std::vector<int64_t> before;
  for (int i = 0; i < senders; ++i) before.push_back(sim.transport().message(i).delivered_bytes);
  sim.run(to_ps);
  Window w;
  const double seconds = (to_ps - from_ps) * 1e-12;
  for (int i = 0; i < senders; ++i) {
    const double bps = (sim.transport().message(i).delivered_bytes - before[i]) * 8.0 / seconds;
    w.rate_bps.push_back(bps);
    w.total_bps += bps;
  }
  return w;
}

class TwoFlows : public ::testing::TestWithParam<std::string> {};

// The convergence time: the start of the first 2 ms window from which every later window (to
// 30 ms) has both flows within 10% of the fair share.
int64_t convergence_ps(const std::string& profile) {
  scenario::Simulation sim(bottleneck(profile, 2));
  for (int i = 1; i <= 2; ++i) sim.transport().post(i, 0, 4'000'000'000, 0);
  const double fair = kGoodputBps / 2;
  const int64_t step = 2'000'000'000;
  int64_t converged_since = -1;
  int64_t before[2] = {0, 0};
  for (int64_t t = step; t <= 15 * step; t += step) {
    sim.run(t);
    bool fair_now = true;
    for (int i = 0; i < 2; ++i) {
      const int64_t bytes = sim.transport().message(i).delivered_bytes;
      const double bps = (bytes - before[i]) * 8.0 / (step * 1e-12);
      before[i] = bytes;
      fair_now = fair_now && std::abs(bps - fair) <= 0.10 * fair;
    }
    if (!fair_now) converged_since = -1;
    else if (converged_since < 0) converged_since = t - step;
  }
  return converged_since;
}

// Only hpcc-paper settles window by window: with nvidia-default the 10 ms averages are fair
// (the test below) but 2 ms windows keep swinging by about +-12% around the fair share.
TEST(TwoFlows, HpccPaperConvergenceTimeIsReported) {
  const int64_t t = convergence_ps("hpcc-paper");
  ASSERT_GE(t, 0) << "hpcc-paper: not within 10% of the fair share by 30 ms";
  RecordProperty("convergence_us", std::to_string(t / 1'000'000));
  std::printf("hpcc-paper: two flows within 10%% of the fair share from %.0f us on\n", t * 1e-6);
  EXPECT_LE(t, 20'000'000'000) << "fair for at least the last 10 ms of the 30 ms run";
}

TEST_P(TwoFlows, ConvergeToTheFairShareAndKeepTheLinkBusy) {
  scenario::Simulation sim(bottleneck(GetParam(), 2));
  const Window w = measure(sim, 2, 10'000'000'000, 20'000'000'000);  // 10-20 ms
  const double fair = kGoodputBps / 2;
  for (int i = 0; i < 2; ++i) {
    EXPECT_NEAR(w.rate_bps[i], fair, 0.10 * fair)
        << GetParam() << ": flow " << i << " at " << w.rate_bps[i] / 1e9 << " Gb/s, fair share "
        << fair / 1e9;
  }
  EXPECT_GE(w.total_bps, 0.90 * kGoodputBps)
      << GetParam() << ": bottleneck at " << w.total_bps / kGoodputBps * 100 << "% of goodput";
  EXPECT_EQ(sim.network().counters().dropped_packets, 0) << "PFC keeps the class lossless";
  EXPECT_GT(sim.transport().counters().cnps_sent, 0) << "the bottleneck marked and CNPs flowed";
}

// dcqcn-paper is measured in the closing note of issue 3: with its sparse marking (Pmax 1%)
// and 50 us CNP interval, two flows stay near 64 / 33 Gb/s for 24 ms here.
INSTANTIATE_TEST_SUITE_P(Profiles, TwoFlows, ::testing::Values("nvidia-default", "hpcc-paper"),
                         [](const auto& info) {
                           std::string n = info.param;
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

TEST(TwoFlows, PaperProfileKeepsTheLinkBusy) {
  scenario::Simulation sim(bottleneck("dcqcn-paper", 2));
  const Window w = measure(sim, 2, 10'000'000'000, 20'000'000'000);
  EXPECT_GE(w.total_bps, 0.90 * kGoodputBps)
      << "bottleneck at " << w.total_bps / kGoodputBps * 100 << "% of goodput";
}

class Incast : public ::testing::TestWithParam<int> {};

TEST_P(Incast, EverySenderGetsItsShareWithoutDrops) {
  const int n = GetParam();
  scenario::Simulation sim(bottleneck("nvidia-default", n));
  const Window w = measure(sim, n, 30'000'000'000, 60'000'000'000);  // 30-60 ms
  const double fair = kGoodputBps / n;
  for (int i = 0; i < n; ++i) {
    EXPECT_NEAR(w.rate_bps[i], fair, 0.15 * fair)
        << n << ":1 incast, sender " << i + 1 << " at " << w.rate_bps[i] / 1e9
        << " Gb/s, bottleneck/N " << fair / 1e9;
  }
  EXPECT_EQ(sim.network().counters().dropped_packets, 0) << "PFC on: no drops";
}

// N = 32 (senders on 8 leaves, reaching NIC 0's leaf through 8 spines) does not meet the 15%
// bound here: senders alone on their spine port get up to 9.6 Gb/s while senders whose ECMP
// path shares a spine port with others get 0.8 Gb/s (bottleneck/N = 3.06), stable over
// 30-60 ms. PFC shares per ingress port, not per flow, and the spine queues mark too. This is
// recorded as open in issue 3 rather than asserted either way.
INSTANTIATE_TEST_SUITE_P(Senders, Incast, ::testing::Values(2, 8));

TEST(Dcqcn, SingleFlowOnAnIdlePathReachesLineRateGoodput) {
  scenario::Simulation sim(bottleneck("nvidia-default", 1));
  const Window w = measure(sim, 1, 1'000'000'000, 5'000'000'000);
  EXPECT_GE(w.rate_bps[0], 0.97 * kGoodputBps)
      << "alone: " << w.rate_bps[0] / 1e9 << " Gb/s of " << kGoodputBps / 1e9;
  EXPECT_EQ(sim.transport().counters().cnps_sent, 0) << "an idle path marks nothing";
}

}  // namespace
}  // namespace fabricsim
