// Checked arithmetic (core/checked.h): the helpers report overflow instead of wrapping, and the
// documented ranges keep the physics products they guard inside int64.
#include "core/checked.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace fabricsim {
namespace checked_test {

TEST(Checked, MultiplyAndAddReportOverflow) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(checked_mul(3'000'000'000, 3'000'000'000), 9'000'000'000'000'000'000);
  EXPECT_FALSE(checked_mul(4'000'000'000, 4'000'000'000)) << "1.6e19 > 9.22e18";
  EXPECT_FALSE(checked_mul(-2, kMax)) << "negative overflow";
  EXPECT_EQ(checked_add(kMax - 1, 1), kMax);
  EXPECT_FALSE(checked_add(kMax, 1));
}

TEST(Checked, SerializationWithoutSilentNarrowing) {
  // 1500 B at 10 Gb/s: 12000 bits / 1e10 bps = 1.2 us.
  EXPECT_EQ(checked_serialization_ps(1500, 10'000'000'000), 1'200'000);
  // Issue 9: 1 MiB at 1 bps is 8388608 s = 8.39e18 ps, just inside int64; 2 MiB is not, and
  // serialization_ps (core/time.h) would have narrowed it to a negative time.
  EXPECT_EQ(checked_serialization_ps(1 << 20, 1), 8'388'608 * kPsPerSecond);
  EXPECT_FALSE(checked_serialization_ps(2 << 20, 1));
}

TEST(Checked, RangesKeepThePhysicsInsideInt64) {
  // The longest PAUSE (65535 quanta x 512 bit times, IEEE 802.1Qbb) at the slowest link:
  // 33553920 bits / 1e6 bps = 33.55 s, inside the horizon.
  const auto pause_ps = checked_serialization_ps(65535 * 512 / 8, kMinLinkRateBps);
  ASSERT_TRUE(pause_ps);
  EXPECT_EQ(*pause_ps, 33'553'920'000'000);
  EXPECT_LT(*pause_ps, kSimHorizonPs);
  // The largest size at the slowest rate overflows only the horizon, not int64: that is the
  // product resolve/ranges.cpp checks against the horizon.
  const auto largest_ps = checked_serialization_ps(kMaxSizeBytes, kMinLinkRateBps);
  ASSERT_TRUE(largest_ps) << "2^40 x 8 / 1e6 s = 8.8e18 ps still fits int64";
  EXPECT_GT(*largest_ps, kSimHorizonPs);
  // A clock at the horizon plus any delay up to the horizon stays inside int64.
  EXPECT_TRUE(checked_add(kSimHorizonPs, kSimHorizonPs));
  // The smallest frame at the fastest rate still takes whole picoseconds: 512 bits / 1e14 bps.
  EXPECT_EQ(checked_serialization_ps(64, kMaxRateBps), 5);
}

}  // namespace checked_test
}  // namespace fabricsim
