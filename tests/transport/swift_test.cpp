// Swift's window rule (transport/swift.h) on hand-fed delay samples: every expectation is worked
// out here from the paper's Algorithm 1 and target-delay formula, never read back from the code.
#include "transport/swift.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/time.h"

namespace fabricsim::transport {
namespace swift_test {

constexpr int64_t kUs = kPsPerUs;

// Base RTT 10 us, BDP 100 packets: base target 12.5 us, 0.5 us per hop, fs_range 62.5 us.
SwiftParams params() { return swift_defaults(10 * kUs, 100); }

TEST(Swift, TargetIsBasePlusHopsAtALargeWindow) {
  const SwiftParams p = params();
  SwiftCwnd s(p, 2, 100);
  // fs = a / sqrt(100) - a / sqrt(100) = 0: target = 12.5 + 2 x 0.5 us.
  EXPECT_NEAR(s.target_delay_ps(), 13.5 * kUs, 1) << "flow scaling vanishes at fs_max_cwnd";
}

TEST(Swift, FlowScalingReachesItsRangeAtTheSmallestWindow) {
  const SwiftParams p = params();
  SwiftCwnd s(p, 2, 0.1);
  EXPECT_NEAR(s.target_delay_ps(), (13.5 + 62.5) * kUs, 1);
}

TEST(Swift, DelayBelowTargetAddsAiPerRtt) {
  const SwiftParams p = params();
  SwiftCwnd s(p, 2, 50);
  s.on_ack(1, 10 * kUs, 0);
  EXPECT_NEAR(s.cwnd_pkts(), 50 + 1.0 / 50, 1e-9) << "ai x acked / cwnd";
  SwiftCwnd small(p, 2, 0.5);
  small.on_ack(1, 10 * kUs, 0);
  EXPECT_NEAR(small.cwnd_pkts(), 1.5, 1e-9) << "below one packet: ai x acked";
}

TEST(Swift, DecreaseIsProportionalToTheExcessAndAtMostOncePerRtt) {
  const SwiftParams p = params();
  SwiftCwnd s(p, 2, 100);
  s.on_ack(1, 27 * kUs, 0);
  // max(1 - 0.8 (27 - 13.5) / 27, 1 - 0.5) = 0.6
  EXPECT_NEAR(s.cwnd_pkts(), 60, 1e-9);
  s.on_ack(1, 27 * kUs, 26 * kUs);  // within one RTT (27 us) of the cut
  EXPECT_NEAR(s.cwnd_pkts(), 60, 1e-9) << "no second decrease within an RTT";
  s.on_ack(1, 27 * kUs, 27 * kUs);
  EXPECT_LT(s.cwnd_pkts(), 60) << "an RTT later it may decrease again";
}

TEST(Swift, OneDecreaseTakesAtMostMaxMdf) {
  const SwiftParams p = params();
  SwiftCwnd s(p, 2, 100);
  s.on_ack(1, 1000 * kUs, 0);  // 1 - 0.8 x 986.5 / 1000 = 0.21 < 0.5
  EXPECT_NEAR(s.cwnd_pkts(), 50, 1e-9);
}

TEST(Swift, ValidationNamesTheKey) {
  SwiftParams p = params();
  p.max_mdf = 1;
  try {
    validate_swift_params(p);
    FAIL() << "max_mdf = 1 accepted";
  } catch (const SwiftParamError& e) {
    EXPECT_EQ(e.field, "roce.swift.max_mdf");
  }
}

}  // namespace swift_test
}  // namespace fabricsim::transport
