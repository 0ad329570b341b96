// NSCC state machine: each expectation is worked out here from the formulas of uet-htsim's
// uec.cpp as docs/reference/uet-sim.md §1 states them, at the reference network of §0
// (3-tier fat-tree, 100 Gb/s, 1 us per hop, MTU 4150 B = 4086 B payload + 64 B header).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "transport/uet_nscc.h"

namespace fabricsim::transport {
namespace nscc_test {

constexpr int64_t kUs = 1'000'000;
constexpr int64_t kRate = 100'000'000'000;
constexpr int kMtu = 4150;
constexpr int kMss = 4086;

// main_uec.cpp:calculate_rtt: 2 x diameter x hop latency + diameter x (MTU + 64 B ACK)
// serialization, diameter 6 (3 tiers).
int64_t network_rtt_ps() {
  const int64_t mtu_ser_ps = int64_t{kMtu} * 8 * 1'000'000'000'000 / kRate;  // 332 000
  const int64_t ack_ser_ps = int64_t{64} * 8 * 1'000'000'000'000 / kRate;    // 5 120
  return 2 * 6 * kUs + 6 * mtu_ser_ps + 6 * ack_ser_ps;
}

NsccParams reference(bool trimming = true) {
  return nscc_params(network_rtt_ps(), kRate, kMtu, trimming);
}

TEST(NsccParams, ReferenceNetworkDerivations) {
  const NsccParams p = reference();
  EXPECT_EQ(network_rtt_ps(), 14'022'720) << "uet-sim.md §0: 14.023 us";
  EXPECT_EQ(p.target_delay_ps, 14'022'720 * 3 / 4) << "0.75 x RTT with trimming";
  EXPECT_EQ(reference(false).target_delay_ps, 14'022'720) << "1.0 x RTT without trimming";
  // BDP = 14.02272 us x 12.5 GB/s = 175 284 B; maxwnd = 1.5 x BDP.
  EXPECT_EQ(p.max_cwnd_bytes, 262'926);
  EXPECT_EQ(p.min_cwnd_bytes, kMtu);
  EXPECT_EQ(p.mss_bytes, kMss);
  const double a = 175'284.0 / 150'000.0;  // BDP / (100G x 12 us)
  const double b = (14'022'720 * 0.75) / 12e6;
  EXPECT_NEAR(p.scale_a, a, 1e-9);
  EXPECT_NEAR(p.scale_b, b, 1e-6);
  // alpha x target = 4 x MSS x a x b: what one window of zero-delay ACKs adds (16 739 B).
  EXPECT_NEAR(p.alpha * static_cast<double>(p.target_delay_ps), 4.0 * kMss * a * b, 1e-3);
  EXPECT_NEAR(4.0 * kMss * a * b, 16'739, 1.0) << "uet-sim.md §1a";
  EXPECT_NEAR(p.fi_bytes, 5.0 * kMss * a, 1e-6);
  EXPECT_NEAR(p.fi_bytes, 23'874, 1.0);
  EXPECT_NEAR(p.eta_bytes, 0.15 * kMss * a, 1e-6);
  EXPECT_NEAR(p.fi_scale, 0.25 * a, 1e-12);
  EXPECT_EQ(p.gamma, 0.8);
  EXPECT_EQ(p.delay_ewma, 0.0125);
  EXPECT_EQ(p.qa_delay_ps, 4 * p.target_delay_ps);
  EXPECT_EQ(p.adjust_period_ps, network_rtt_ps());
  EXPECT_EQ(p.adjust_bytes, 8 * kMtu);
  EXPECT_EQ(p.max_cwnd_bytes >> p.qa_gate, 32'865) << "QA gate maxwnd/8";
}

// Lowers the window by k packets through RTOs (cwnd -= packet, nothing else changes).
Nscc shrunk(int k) {
  Nscc cc(reference());
  for (int i = 0; i < k; ++i) cc.on_timeout(kMtu);
  return cc;
}

TEST(Nscc, StartsAtMaxWindowAndTimeoutRemovesOnePacket) {
  Nscc cc(reference());
  EXPECT_EQ(cc.cwnd_bytes(), 262'926);
  cc.on_timeout(kMtu);
  EXPECT_EQ(cc.cwnd_bytes(), 262'926 - kMtu);
  Nscc tiny = shrunk(100);
  EXPECT_EQ(tiny.cwnd_bytes(), kMtu) << "floor of one MTU";
}

TEST(Nscc, ProportionalIncreaseAfterEightMtuOfAcks) {
  Nscc cc = shrunk(20);
  const int64_t w0 = 262'926 - 20 * kMtu;
  const NsccParams p = reference();
  const int64_t base = network_rtt_ps();
  const int64_t delay = 2 * kUs;  // above the 1 us fast-increase threshold, below target
  // 9 one-packet ACKs at one instant (< one adjust period after start): the 9th makes the
  // received bytes exceed 8 MTU, so fulfill adds sum(alpha x acked x (target - delay)) / cwnd.
  for (int i = 0; i < 8; ++i) {
    cc.on_ack(1000, kMtu, base + delay, false, 0);
    EXPECT_EQ(cc.cwnd_bytes(), w0) << "no change before fulfill, ack " << i;
  }
  cc.on_ack(1000, kMtu, base + delay, false, 0);
  const double alpha = 4.0 * kMss * p.scale_a * p.scale_b / static_cast<double>(p.target_delay_ps);
  const double inc = 9.0 * alpha * kMtu * static_cast<double>(p.target_delay_ps - delay);
  EXPECT_EQ(cc.cwnd_bytes(), w0 + static_cast<int64_t>(inc / static_cast<double>(w0)));
  EXPECT_GT(cc.cwnd_bytes(), w0 + 1000) << "about 9 x 4150 / W x 4 MSS a b x (1 - d/target)";
}

TEST(Nscc, FairIncreaseAtOrAboveTarget) {
  Nscc cc = shrunk(20);
  const int64_t w0 = 262'926 - 20 * kMtu;
  const int64_t rtt = network_rtt_ps() + reference().target_delay_ps + kUs;
  for (int i = 0; i < 9; ++i) cc.on_ack(1000, kMtu, rtt, false, 0);
  const double fi = 5.0 * kMss * (175'284.0 / 150'000.0);
  EXPECT_EQ(cc.cwnd_bytes(), w0 + static_cast<int64_t>(9.0 * fi * kMtu / static_cast<double>(w0)));
}

TEST(Nscc, EtaOncePerAdjustPeriod) {
  Nscc cc = shrunk(20);
  const int64_t w0 = 262'926 - 20 * kMtu;
  const int64_t rtt = network_rtt_ps() + reference().target_delay_ps + kUs;
  // An ACK one adjust period + 1 ps after the start triggers fulfill by time: fair increase of
  // this one ACK plus eta.
  const int64_t now = network_rtt_ps() + 1;
  cc.on_ack(now, kMtu, rtt, false, 0);
  const double a = 175'284.0 / 150'000.0;
  const int64_t expect = w0 +
                         static_cast<int64_t>(5.0 * kMss * a * kMtu / static_cast<double>(w0)) +
                         static_cast<int64_t>(0.15 * kMss * a);
  EXPECT_EQ(cc.cwnd_bytes(), expect);
}

TEST(Nscc, FastIncreaseAfterAWindowAtLowDelay) {
  Nscc cc = shrunk(32);
  const int64_t w0 = 262'926 - 32 * kMtu;
  const int64_t base = network_rtt_ps();
  // One ACK covering more than a window at zero delay: fast increase fires at once and adds
  // fi_scale x acked directly to cwnd (no pending increase).
  const int64_t acked = w0 + 1;
  cc.on_ack(1000, acked, base, false, 0);
  const double fi_scale = 0.25 * (175'284.0 / 150'000.0);
  const int64_t w1 = w0 + static_cast<int64_t>(static_cast<double>(acked) * fi_scale);
  EXPECT_EQ(cc.cwnd_bytes(), w1);
  // Still below 1 us: every further ACK adds fi_scale x acked.
  cc.on_ack(1000, kMtu, base, false, 0);
  EXPECT_EQ(cc.cwnd_bytes(), w1 + static_cast<int64_t>(kMtu * fi_scale));
  // A delay of 2 us ends it: back to proportional (pending, no immediate change).
  const int64_t w2 = cc.cwnd_bytes();
  cc.on_ack(1000, kMtu, base + 2 * kUs, false, 0);
  EXPECT_EQ(cc.cwnd_bytes(), w2);
}

TEST(Nscc, MultiplicativeDecreaseByGammaOfExcessDelay) {
  const NsccParams p = reference();
  const int64_t target = p.target_delay_ps;
  const int64_t base = network_rtt_ps();
  Nscc cc(p);
  // One marked sample of 100 x target: avg = 0.0125 x 100 x target = 1.25 x target, so the
  // window shrinks by 0.8 x 0.25/1.25 = 16 %.
  const int64_t now = 20 * kUs;  // more than one base RTT after start
  cc.on_ack(now, kMtu, base + 100 * target, true, 0);
  const int64_t avg = static_cast<int64_t>(0.0125 * static_cast<double>(100 * target));
  EXPECT_EQ(cc.avg_delay_ps(), avg);
  const double factor = 1.0 - 0.8 * static_cast<double>(avg - target) / static_cast<double>(avg);
  EXPECT_NEAR(factor, 0.84, 1e-6);
  // 20 us is past the first adjust period, so fulfill adds eta = 0.15 x MSS x a as well.
  const int64_t eta = static_cast<int64_t>(0.15 * kMss * (175'284.0 / 150'000.0));
  const int64_t w1 = static_cast<int64_t>(262'926 * factor) + eta;
  EXPECT_EQ(cc.cwnd_bytes(), w1);
  // At most once per base RTT.
  cc.on_ack(now + base, kMtu, base + 100 * target, true, 0);
  EXPECT_EQ(cc.cwnd_bytes(), w1) << "exactly one base RTT later: not yet";
  cc.on_ack(now + base + 1, kMtu, base + 100 * target, true, 0);
  EXPECT_LT(cc.cwnd_bytes(), w1);
  EXPECT_EQ(cc.decreases(), 2);
}

TEST(Nscc, MultiplicativeDecreaseNeverBelowHalf) {
  const NsccParams p = reference();
  Nscc cc(p);
  // avg = 0.0125 x 1000 x target = 12.5 target: 1 - 0.8 x 11.5/12.5 = 0.264 < 0.5.
  cc.on_ack(20 * kUs, kMtu, network_rtt_ps() + 1000 * p.target_delay_ps, true, 0);
  const int64_t eta = static_cast<int64_t>(0.15 * kMss * (175'284.0 / 150'000.0));
  EXPECT_EQ(cc.cwnd_bytes(), 262'926 / 2 + eta) << "halved, plus eta (past one adjust period)";
}

TEST(Nscc, MarkedBelowTargetLeavesWindow) {
  Nscc cc = shrunk(10);
  const int64_t w0 = cc.cwnd_bytes();
  for (int i = 0; i < 20; ++i) cc.on_ack(1000, kMtu, network_rtt_ps() + 2 * kUs, true, 0);
  EXPECT_EQ(cc.cwnd_bytes(), w0) << "ECN below target only moves the path";
}

TEST(Nscc, QuickAdaptOnNackWhenLittleWasDelivered) {
  const NsccParams p = reference();
  const int64_t base = network_rtt_ps();
  Nscc cc(p);
  cc.on_ack(1 * kUs, kMtu, base + 2 * kUs, false, 0);  // opens the first QA period
  cc.on_ack(2 * kUs, 3 * kMtu, base + 2 * kUs, false, 0);
  // Achieved in the period: 3 MTU = 12 450 B < maxwnd / 8 = 32 865 B: the NACK after the
  // period (base_rtt + target after the first evaluation) sets cwnd to 12 450 B.
  const int64_t qa_end = 1 * kUs + base + p.target_delay_ps;
  cc.on_nack(qa_end + 1, kMtu, false, 50 * kMtu);
  EXPECT_EQ(cc.cwnd_bytes(), 3 * kMtu);
  EXPECT_EQ(cc.quick_adapts(), 1);
  // Until the 50 packets then in flight are accounted for, NACKs and marks change nothing.
  for (int i = 0; i < 40; ++i) cc.on_nack(qa_end + 2, kMtu, false, 50 * kMtu);
  EXPECT_EQ(cc.cwnd_bytes(), 3 * kMtu);
}

TEST(Nscc, NoQuickAdaptWhenEnoughWasDelivered) {
  const NsccParams p = reference();
  const int64_t base = network_rtt_ps();
  Nscc cc(p);
  cc.on_ack(1 * kUs, kMtu, base + 2 * kUs, false, 0);
  cc.on_ack(2 * kUs, 8 * kMtu, base + 2 * kUs, false, 0);  // 33 200 B >= 32 865 B
  const int64_t before = cc.cwnd_bytes();
  cc.on_nack(1 * kUs + base + p.target_delay_ps + 1, kMtu, false, 50 * kMtu);
  EXPECT_EQ(cc.quick_adapts(), 0);
  EXPECT_EQ(cc.cwnd_bytes(), before - kMtu) << "a NACK without QA removes the NACKed bytes";
}

TEST(Nscc, QuickAdaptOnVeryLargeDelay) {
  const NsccParams p = reference();
  const int64_t base = network_rtt_ps();
  Nscc cc(p);
  cc.on_ack(1 * kUs, kMtu, base + 2 * kUs, false, 0);
  const int64_t qa_end = 1 * kUs + base + p.target_delay_ps;
  // Unmarked, delay just above 4 x target, 1 MTU achieved in the period.
  cc.on_ack(qa_end + 1, kMtu, base + 4 * p.target_delay_ps + 1, false, 0);
  EXPECT_EQ(cc.quick_adapts(), 1);
  EXPECT_EQ(cc.cwnd_bytes(), kMtu);
}

TEST(Nscc, LastHopNackWithRcccKeepsWindow) {
  NsccParams p = reference();
  p.receiver_cc = true;
  Nscc cc(p);
  cc.on_nack(1000, kMtu, true, 0);  // first call only opens the QA period
  EXPECT_EQ(cc.cwnd_bytes(), 262'926) << "RCCC paces the last hop";
  cc.on_nack(1000, kMtu, false, 0);
  EXPECT_EQ(cc.cwnd_bytes(), 262'926 - kMtu);
  // A NACK feeds the average a marked sample of one network RTT.
  const int64_t avg1 = static_cast<int64_t>(0.0125 * static_cast<double>(network_rtt_ps()));
  const int64_t avg2 = static_cast<int64_t>(0.0125 * static_cast<double>(network_rtt_ps()) +
                                            0.9875 * static_cast<double>(avg1));
  EXPECT_EQ(cc.avg_delay_ps(), avg2);
}

TEST(Nscc, LowerBaseRttRederivesMaxWindowWhenRescaling) {
  // fabric.uet.nscc_rescale_max_window: the rule of UEC 1.0 §3.6.13.6 and htsim's
  // update_base_rtt.
  NsccParams p = reference();
  p.rescale_max_cwnd = true;
  Nscc cc(p);
  // A 10 us RTT: BDP = 10 us x 12.5 GB/s = 125 000 B, maxwnd 187 500 B, and the window
  // (262 926 B) is bounded to it.
  cc.on_ack(1000, kMtu, 10 * kUs, false, 0);
  EXPECT_EQ(cc.base_rtt_ps(), 10 * kUs);
  EXPECT_EQ(cc.max_cwnd_bytes(), 187'500);
  EXPECT_EQ(cc.cwnd_bytes(), 187'500);
}

TEST(Nscc, LowerBaseRttKeepsTheConfiguredCeilingByDefault) {
  // fabricsim's default: the 10 us minimum becomes the delay reference, the ceiling stays
  // 1.5 x BDP of the network RTT (262 926 B, NsccParams.ReferenceNetworkDerivations).
  Nscc cc(reference());
  cc.on_ack(1000, kMtu, 10 * kUs, false, 0);
  EXPECT_EQ(cc.base_rtt_ps(), 10 * kUs);
  EXPECT_EQ(cc.max_cwnd_bytes(), 262'926);
  EXPECT_EQ(cc.cwnd_bytes(), 262'926);
  // The delay is now measured from the new minimum: a 14 us sample reads 4 us of queueing.
  const int64_t avg_before = cc.avg_delay_ps();
  cc.on_ack(2000, kMtu, 14 * kUs, false, 0);
  EXPECT_EQ(cc.avg_delay_ps(), static_cast<int64_t>(0.0125 * 4e6 + 0.9875 * avg_before));
}

TEST(Nscc, UnmarkedHighDelayEntersAverageAsQuarterBaseRtt) {
  const NsccParams p = reference();
  Nscc cc(p);
  cc.on_ack(1000, kMtu, network_rtt_ps() + 2 * p.target_delay_ps, false, 0);
  EXPECT_EQ(cc.avg_delay_ps(),
            static_cast<int64_t>(0.0125 * 0.25 * static_cast<double>(network_rtt_ps())));
}

}  // namespace nscc_test
}  // namespace fabricsim::transport
