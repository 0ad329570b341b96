// HPCC's sender rule (transport/hpcc.h) on hand-made INT records: every expectation is worked out
// here from the paper's Algorithm 1 with its simulator's choices (hpcc.h), never read back from
// the code under test.
#include "transport/hpcc.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/time.h"

namespace fabricsim::transport {
namespace hpcc_test {

constexpr int64_t kLine = 100'000'000'000;
constexpr int64_t kT = 10 * kPsPerUs;        // base RTT
constexpr double kWmax = 100e9 / 8 * 10e-6;  // B x T = 125,000 bytes

HpccParams params() {
  HpccParams p = hpcc_defaults(kLine, kT);
  return p;
}

net::IntRecord one_hop(uint32_t psn, int64_t ts, int64_t tx, int64_t qlen) {
  net::IntRecord r;
  r.psn = psn;
  r.hops = 1;
  r.hop[0] = net::IntHop{ts, tx, qlen, kLine};
  return r;
}

TEST(Hpcc, DefaultsFollowTheAuthorsSimulator) {
  const HpccParams p = params();
  EXPECT_DOUBLE_EQ(p.eta, 0.95);
  EXPECT_EQ(p.max_stage, 0);
  EXPECT_EQ(p.rate_ai_bps, 40'000'000) << "10 Mb/s x 100G / 25G";
  EXPECT_EQ(p.min_rate_bps, 1'000'000'000);
}

TEST(Hpcc, AnOverloadedHopCutsTheRateByItsUtilizationOverEta) {
  HpccCc cc(params(), kLine);
  EXPECT_EQ(cc.rate_bps(), kLine);
  EXPECT_EQ(cc.window_bytes(), static_cast<int64_t>(kWmax)) << "W = B x T at line rate";
  cc.on_ack(one_hop(0, 0, 0, 62'500), 0, 10);  // the first ACK only stores its records
  EXPECT_EQ(cc.rate_bps(), kLine);
  // 10 us later the hop sent 125,000 more bytes (100 Gb/s) and kept 62,500 queued:
  // u = 1 + 62,500 / (B x T) = 1.5; tau = T, so the EWMA takes u whole.
  cc.on_ack(one_hop(10, kT, 125'000, 62'500), 10, 20);
  const double u = 1.0 + 62'500 / kWmax;
  EXPECT_NEAR(cc.utilization(), u, 1e-12);
  const double rate = 100e9 / (u / 0.95) + 40e6;
  EXPECT_NEAR(static_cast<double>(cc.rate_bps()), rate, 1.0);
  EXPECT_NEAR(static_cast<double>(cc.window_bytes()), kWmax * rate / 100e9, 1.0) << "W = R x T";
}

TEST(Hpcc, TheEwmaWeighsASampleByItsIntervalOverT) {
  HpccCc cc(params(), kLine);
  cc.on_ack(one_hop(0, 0, 0, 0), 0, 10);
  // 2 us at 100 Gb/s, no queue: u = 1, tau = 2 us: EWMA = 0 x 8/10 + 1 x 2/10 = 0.2.
  cc.on_ack(one_hop(10, 2 * kPsPerUs, 25'000, 0), 10, 20);
  EXPECT_NEAR(cc.utilization(), 0.2, 1e-12);
  EXPECT_EQ(cc.rate_bps(), kLine) << "k = 0.2/0.95 < 1: Rc / k is above the line; clamped";
}

TEST(Hpcc, AcksWithinARoundTripReactFromTheSameRc) {
  HpccCc cc(params(), kLine);
  cc.on_ack(one_hop(0, 0, 0, 62'500), 0, 10);
  cc.on_ack(one_hop(10, kT, 125'000, 62'500), 10, 20);  // full update: Rc = R1
  const double u1 = 1.0 + 62'500 / kWmax;
  const double r1 = 100e9 / (u1 / 0.95) + 40e6;
  // PSN 15 < 20 (snd_nxt at the last update): a fast reaction from Rc = R1. Another T at 100
  // Gb/s with 31,250 queued (min with the 62,500 before): u = 1.25.
  cc.on_ack(one_hop(15, 2 * kT, 250'000, 31'250), 15, 25);
  const double u2 = 1.0 + 31'250 / kWmax;
  EXPECT_NEAR(static_cast<double>(cc.rate_bps()), r1 / (u2 / 0.95) + 40e6, 1.0);
  // PSN 19, again fast: still from R1, not from the fast reaction's rate. 10 us at 50 Gb/s,
  // no queue: u = 0.5.
  cc.on_ack(one_hop(19, 3 * kT, 312'500, 0), 19, 26);
  EXPECT_NEAR(static_cast<double>(cc.rate_bps()),
              r1 / (0.5 / 0.95) + 40e6 > 100e9 ? 100e9 : r1 / (0.5 / 0.95) + 40e6, 1.0);
  // PSN 20 >= 20: the next round trip's first ACK, a full update from R1 again.
  cc.on_ack(one_hop(20, 4 * kT, 437'500, 62'500), 20, 30);
  const double u4 = 1.0 + 0 / kWmax;  // min(62,500, 0): the queue was empty at the last record
  EXPECT_NEAR(static_cast<double>(cc.rate_bps()), r1 / (u4 / 0.95) + 40e6, 1.0);
}

TEST(Hpcc, TheMostLoadedHopDecidesAndTheRateStaysAboveItsMinimum) {
  HpccParams p = params();
  HpccCc cc(p, kLine);
  net::IntRecord r0;
  r0.hops = 2;
  r0.hop[0] = net::IntHop{0, 0, 0, kLine};
  r0.hop[1] = net::IntHop{0, 0, 1'000'000, kLine};
  cc.on_ack(r0, 0, 10);
  net::IntRecord r1 = r0;
  r1.hop[0] = net::IntHop{kT, 62'500, 0, kLine};           // u = 0.5
  r1.hop[1] = net::IntHop{kT, 125'000, 1'000'000, kLine};  // u = 1 + 8 = 9
  cc.on_ack(r1, 10, 20);
  EXPECT_NEAR(cc.utilization(), 1.0 + 1'000'000 / kWmax, 1e-12);
  EXPECT_NEAR(static_cast<double>(cc.rate_bps()), 100e9 / (9.0 / 0.95) + 40e6, 1.0);
  // Keep it overloaded: the rate falls by k each round trip, but never below MIN_RATE.
  for (int i = 2; i < 10; ++i) {
    net::IntRecord r = r1;
    r.hop[0].ts_ps = r.hop[1].ts_ps = i * kT;
    r.hop[0].tx_bytes = 62'500 * i;
    r.hop[1].tx_bytes = 125'000 * i;
    cc.on_ack(r, 10 * i, 10 * i + 10);
  }
  EXPECT_EQ(cc.rate_bps(), p.min_rate_bps);
}

TEST(Hpcc, AdditiveStepsWhileBelowEtaWhenMaxStageAllowsThem) {
  HpccParams p = params();
  p.max_stage = 5;  // the paper's maxStage as a value > 0 (UNVERIFIED figure; hpcc.h)
  HpccCc cc(p, kLine);
  cc.on_ack(one_hop(0, 0, 0, 62'500), 0, 10);
  cc.on_ack(one_hop(10, kT, 125'000, 62'500), 10, 20);  // k > 1: multiplicative, stage 0
  const double r1 = 100e9 / ((1.0 + 62'500 / kWmax) / 0.95) + 40e6;
  // Then 0.9 of the line (below eta) for a whole T, no queue: additive, Rc + R_AI.
  cc.on_ack(one_hop(20, 2 * kT, 237'500, 0), 20, 30);
  EXPECT_NEAR(static_cast<double>(cc.rate_bps()), r1 + 40e6, 1.0);
}

TEST(Hpcc, OutOfRangeParametersNameTheirKey) {
  HpccParams p = params();
  p.eta = 1.5;
  try {
    validate_hpcc_params(p, kLine);
    FAIL();
  } catch (const HpccParamError& e) {
    EXPECT_EQ(e.field, "roce.hpcc.eta");
  }
  p = params();
  p.base_rtt_ps = 0;
  EXPECT_THROW(validate_hpcc_params(p, kLine), HpccParamError);
}

}  // namespace hpcc_test
}  // namespace fabricsim::transport
