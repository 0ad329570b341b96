// Swift's window rule (transport/swift.h) on hand-fed delay samples: every expectation is worked
// out here from the paper's Algorithm 1 and target-delay formula, never read back from the code.
#include "transport/swift.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/time.h"

namespace fabricsim::transport {
namespace swift_test {

constexpr int64_t kUs = kPsPerUs;

// Base RTT 10 us and no hop term (only the base RTT known), BDP 100 packets: base target
// 1.25 x 10 = 12.5 us, fs_range 5 x 12.5 = 62.5 us; per hop set to 0.5 us here.
SwiftParams params() {
  SwiftParams p = swift_defaults(10 * kUs, 0, 0, 100);
  p.per_hop_ps = kUs / 2;
  return p;
}

TEST(Swift, TheDefaultTargetIsAQuarterAboveEachPathsBaseRtt) {
  // A fabric whose longest path (3 switches) has a base RTT of 10 us, each switch adding 2 us:
  // a zero-hop round trip is 4 us, so base target 5 us and 2.5 us per hop; a path of h switches
  // (base RTT 4 + 2h us) gets 1.25 x its own at a large window.
  const SwiftParams p = swift_defaults(10 * kUs, 2 * kUs, 3, 100);
  for (int h = 1; h <= 3; ++h) {
    SwiftCwnd s(p, h, 100);  // fs(100) = 0
    EXPECT_NEAR(s.target_delay_ps(), 1.25 * (4 + 2 * h) * kUs, 1) << h << " hops";
  }
}

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

TEST(Swift, ATimeoutCutsByMaxMdfAndRepeatedTimeoutsResetTheWindow) {
  SwiftParams p = params();
  p.retx_reset = 3;
  SwiftCwnd s(p, 2, 80);
  s.on_timeout(0);
  EXPECT_NEAR(s.cwnd_pkts(), 40, 1e-9) << "x (1 - max_mdf)";
  s.on_timeout(1);  // within an RTT of the cut (no sample yet: last RTT 0, so allowed)
  EXPECT_NEAR(s.cwnd_pkts(), 20, 1e-9);
  s.on_timeout(2);  // the third in a row
  EXPECT_NEAR(s.cwnd_pkts(), p.min_cwnd, 1e-12) << "retx_reset timeouts: back to min_cwnd";
  SwiftCwnd f(p, 2, 80);
  f.on_ack(1, 10 * kUs, 0);  // an RTT sample of 10 us, below target: +1/80
  f.on_fast_recovery(5 * kUs);
  EXPECT_NEAR(f.cwnd_pkts(), (80 + 1.0 / 80) / 2, 1e-9) << "fast recovery: x (1 - max_mdf)";
  f.on_fast_recovery(9 * kUs);
  EXPECT_NEAR(f.cwnd_pkts(), (80 + 1.0 / 80) / 2, 1e-9) << "at most once per RTT (10 us)";
}

// The QP sender: window in bytes, pacing below one packet, and a delay sample per ACK from the
// PSN's first transmission.
TEST(Swift, TheSenderTurnsTheWindowIntoBytesAndPacesBelowOnePacket) {
  SwiftParams p = params();
  p.min_cwnd = 0.25;
  constexpr int64_t kLine = 100'000'000'000;
  constexpr int kMtu = 4096;
  constexpr int64_t kWire = 4158;
  SwiftCc cc(p, 2, kLine, kMtu, kWire);
  EXPECT_EQ(cc.window_bytes(), 100 * kMtu) << "starts at max_cwnd (one BDP): line rate";
  EXPECT_EQ(cc.rate_bps(), kLine) << "a window of a packet or more is not paced";
  EXPECT_EQ(SwiftCc::stamp_slots(p), 128u) << "max_cwnd 100 + 2, to a power of two";
  // PSN 7 first sent at 1 us, acknowledged at 31 us: delay 30 us > target 13.5 + fs(100) = 13.5
  // us: cut by max(1 - 0.8 x 16.5 / 30, 0.5) = 0.56.
  cc.on_sent(7, true, 1 * kUs);
  cc.on_ack(7, 1, 31 * kUs);
  EXPECT_NEAR(cc.cwnd().cwnd_pkts(), 56, 1e-9);
  EXPECT_EQ(cc.cwnd().last_rtt_ps(), 30 * kUs);
  // A retransmitted PSN gives no sample (Karn): nothing moves.
  cc.on_sent(8, false, 40 * kUs);
  cc.on_ack(8, 1, 200 * kUs);
  EXPECT_NEAR(cc.cwnd().cwnd_pkts(), 56, 1e-9);
  // Cut to the floor of 0.25 packets with huge delays, once per RTT (30 us, then 1 ms).
  int64_t t = 100 * kUs;
  for (uint32_t psn = 9; cc.cwnd().cwnd_pkts() > p.min_cwnd; ++psn, t += 2000 * kUs) {
    cc.on_sent(psn, true, t);
    cc.on_ack(psn, 1, t + 1000 * kUs);
  }
  EXPECT_EQ(cc.window_bytes(), kMtu) << "below one packet the window is one packet";
  // One full frame per rtt / cwnd = 1000 us / 0.25 = 4 ms: 4158 x 8 bits / 4 ms.
  EXPECT_NEAR(static_cast<double>(cc.rate_bps()), 4158.0 * 8 * 0.25 / 1e-3, 1.0);
}

}  // namespace swift_test
}  // namespace fabricsim::transport
