// TIMELY's rate rule (transport/timely.h) on hand-fed RTT samples: every expected rate is worked
// out here from Algorithm 1 of the paper, never read back from the code under test.
#include "transport/timely.h"

#include <gtest/gtest.h>

#include "core/time.h"
#include "transport/rate_cc.h"

namespace fabricsim::transport {
namespace timely_test {

// 10 Gb/s: the defaults are the sources' 10 Gb/s values unscaled (delta 10 Mb/s, T_low 50 us,
// T_high 500 us), so the hand-worked cases below read as the paper's numbers.
constexpr int64_t kLine = 10'000'000'000;
constexpr double kDelta = 10e6;
constexpr int64_t kUs = kPsPerUs;

TEST(Timely, DefaultsScaleWithLineRateAsQueueBytes) {
  const TimelyParams at10 = timely_defaults(kLine);
  EXPECT_EQ(at10.delta_bps, 10'000'000);
  EXPECT_EQ(at10.t_low_ps, 50 * kUs);
  EXPECT_EQ(at10.t_high_ps, 500 * kUs);
  EXPECT_EQ(at10.min_rtt_ps, 20 * kUs);
  // 100 Gb/s: delta x10 (the same fraction of the line); T_low and T_high /10 (the same 62.5 KB
  // and 625 KB of queue: 50 us x 10 Gb/s / 8 = 62.5 KB = 5 us x 100 Gb/s / 8); min_rtt kept.
  const TimelyParams at100 = timely_defaults(10 * kLine);
  EXPECT_EQ(at100.delta_bps, 100'000'000);
  EXPECT_EQ(at100.t_low_ps, 5 * kUs);
  EXPECT_EQ(at100.t_high_ps, 50 * kUs);
  EXPECT_EQ(at100.min_rtt_ps, 20 * kUs) << "a propagation time, not scaled";
  EXPECT_NO_THROW(validate_timely_params(at10));
  EXPECT_NO_THROW(validate_timely_params(at100));
}

TEST(Timely, RttAboveThighCutsInProportionToTheExcess) {
  const TimelyParams p = timely_defaults(kLine);
  TimelyRp rp(p, kLine);
  rp.on_ack(4096, 1000 * kUs, false, 0);
  // rate x (1 - 0.8 (1 - 500/1000)) = 0.6 line
  EXPECT_NEAR(rp.rate_bps(), 0.6 * kLine, 1e3);
}

TEST(Timely, RttBelowTlowAddsDeltaAndLineIsTheCeiling) {
  const TimelyParams p = timely_defaults(kLine);
  TimelyRp rp(p, kLine);
  rp.on_ack(4096, 1000 * kUs, false, 0);  // 0.6 line
  rp.on_ack(4096, 10 * kUs, false, 1);
  EXPECT_NEAR(rp.rate_bps(), 0.6 * kLine + kDelta, 1e3);
  TimelyRp fresh(p, kLine);
  fresh.on_ack(4096, 10 * kUs, false, 0);
  EXPECT_EQ(fresh.rate_bps(), kLine) << "line rate caps the increase";
}

TEST(Timely, PositiveGradientCutsByBetaTimesGradient) {
  const TimelyParams p = timely_defaults(kLine);
  TimelyRp rp(p, kLine);
  rp.on_ack(4096, 1000 * kUs, false, 0);  // rate 0.6 line; prev 1000 us, diff 0
  rp.on_ack(4096, 100 * kUs, false, 1);   // diff = 0.875 x (-900) = -787.5 us; 100 >= T_low:
  // gradient < 0, first of a run: + delta
  double rate = 0.6 * kLine + kDelta;
  EXPECT_NEAR(rp.rate_bps(), rate, 1e3);
  rp.on_ack(4096, 110 * kUs, false, 2);  // diff = 0.125 x (-787.5) + 0.875 x 10 = -89.6875 us
  rate += kDelta;
  EXPECT_NEAR(rp.rate_bps(), rate, 1e3);
  rp.on_ack(4096, 200 * kUs, false, 3);  // diff = 0.125 x (-89.6875) + 0.875 x 90 = 67.5390625
  const double gradient = 67.5390625 / 20.0;
  rate *= 1 - 0.8 * gradient;
  // gradient 3.38 -> a factor below zero: the floor holds
  EXPECT_NEAR(rp.rate_bps(), std::max(rate, kLine / 1000.0), 1e3);
}

TEST(Timely, HyperActiveIncreaseFromTheFifthNonPositiveGradient) {
  const TimelyParams p = timely_defaults(kLine);
  TimelyRp rp(p, kLine);
  rp.on_ack(4096, 1000 * kUs, false, 0);  // 0.6 line
  double rate = 0.6 * kLine;
  // Constant 100 us after the first drop: every diff is negative then decays toward 0 but stays
  // <= 0, so each sample is a non-positive gradient in [T_low, T_high].
  for (int i = 1; i <= 7; ++i) {
    rp.on_ack(4096, 100 * kUs, false, i);
    rate += (i >= 5 ? 5 : 1) * kDelta;
    EXPECT_NEAR(rp.rate_bps(), rate, 1e3) << "sample " << i;
  }
}

TEST(Timely, ValidationNamesTheKey) {
  TimelyParams p = timely_defaults(kLine);
  p.t_high_ps = p.t_low_ps;
  try {
    validate_timely_params(p);
    FAIL() << "T_high = T_low accepted";
  } catch (const TimelyParamError& e) {
    EXPECT_EQ(e.field, "roce.timely.t_high");
  }
}

TEST(Timely, RateCcForwardsAcksToTimelyButDcqcnSkipsThem) {
  const TimelyParams p = timely_defaults(kLine);
  RateCc cc{TimelyRp(p, kLine)};
  EXPECT_TRUE(cc.wants_acks()) << "the transport samples RTTs only for schemes that want ACKs";
  ASSERT_NE(cc.timely(), nullptr);
  cc.on_ack(4096, 1000 * kUs, false, 0);
  EXPECT_NEAR(cc.rate_bps(), 0.6 * kLine, 1e3) << "same cut as the T_high case above";
  EXPECT_EQ(cc.next_timer_ps(), kNoTimer);
  const DcqcnParams d = dcqcn_profile("nvidia-default", kLine);
  RateCc dcqcn{DcqcnRp(d, kLine)};
  EXPECT_FALSE(dcqcn.wants_acks());
}

}  // namespace timely_test
}  // namespace fabricsim::transport
