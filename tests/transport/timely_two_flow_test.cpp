// TIMELY on RoCE (fabric.roce.cc: timely): two long flows into one 100 Gb/s port, PFC on.
//
//   NIC1 ─┐
//         ├─ leaf ─► NIC0
//   NIC2 ─┘
//
// Max-min fairness on one link gives each flow B / 2, B = 100 Gb/s x 4096 / (4096 + 82) (the
// port carries data frames only; RoCEv2 with a 4096-byte MTU). Rates come from bytes delivered,
// never from the rate machine. Bound: within 10% of the fair share (the project's fairness bound,
// as tests/calibration/dcqcn_test.cpp).
#include <gtest/gtest.h>

#include <cmath>

#include "core/time.h"
#include "engine/packet/simulation.h"

namespace fabricsim {
namespace timely_two_flow_test {

constexpr double kRateBps = 100e9;
constexpr double kGoodputBps = kRateBps * 4096.0 / (4096.0 + 82.0);

TEST(TimelyTwoFlow, TwoFlowsShareAPortWithinTenPercentOfFair) {
  scenario::Scenario sc;
  sc.topology.tiers = 2;
  sc.topology.radix = 8;
  sc.topology.hosts = 16;
  sc.link.rate_bps = static_cast<int64_t>(kRateBps);
  sc.switch_config.buffer_bytes = 16 << 20;
  sc.switch_config.pfc.enabled = true;
  sc.roce.cc = transport::CongestionControl::kTimely;
  scenario::Simulation sim(sc);
  for (int i = 1; i <= 2; ++i) sim.transport().post(i, 0, 40'000'000'000, 0);
  const int64_t warm_ps = 1 * kPsPerMs, end_ps = 2 * kPsPerMs;
  sim.run(warm_ps);
  int64_t at_warm[2];
  for (int i = 0; i < 2; ++i) at_warm[i] = sim.transport().message(i).delivered_bytes;
  sim.run(end_ps);
  const double fair = kGoodputBps / 2;
  for (int i = 0; i < 2; ++i) {
    const double bps = (sim.transport().message(i).delivered_bytes - at_warm[i]) * 8.0 /
                       (static_cast<double>(end_ps - warm_ps) * 1e-12);
    std::printf("flow %d: %.2f Gb/s (fair %.2f)\n", i, bps / 1e9, fair / 1e9);
    EXPECT_NEAR(bps, fair, 0.10 * fair) << "flow " << i << " over the second millisecond";
  }
}

}  // namespace timely_two_flow_test
}  // namespace fabricsim
