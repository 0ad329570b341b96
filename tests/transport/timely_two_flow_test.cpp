// TIMELY on RoCE (fabric.roce.cc: timely): two long flows into one 100 Gb/s port, PFC on.
//
//   NIC1 ─┐
//         ├─ leaf ─► NIC0      (leaf-spine, radix 8; the leaf's port to NIC0 is the bottleneck)
//   NIC2 ─┘
//
// What the paper claims and what it does not. TIMELY keeps the RTT between T_low and T_high at
// high utilization: below T_low every sample adds delta, so two senders at full load push the
// queue up until the RTT reaches T_low; above T_high every sample cuts the rate in proportion to
// the excess, so the queue cannot stay there. It does not claim max-min fairness, and Zhu et al.
// ("ECN or Delay", CoNEXT 2016) show that it "can converge to stable regime with arbitrary
// unfairness". So the tests assert the paper's claims (RTT band, utilization) and measure the
// shares against max-min fairness (B / 2 each, B = 100 Gb/s x 4096 / (4096 + 82): the port
// carries RoCEv2 data frames with a 4096-byte MTU): within 10% for two senders with equal paths
// (NIC1, NIC2 above), started together or one 500 us late; for unequal paths (last test) TIMELY
// misses it by far, and the test holds it to the direction of the bias only.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>

#include "core/time.h"
#include "engine/packet/simulation.h"
#include "net/network.h"
#include "transport/rc.h"
#include "transport/timely.h"

namespace fabricsim {
namespace timely_two_flow_test {

constexpr double kRateBps = 100e9;
constexpr double kGoodputBps = kRateBps * 4096.0 / (4096.0 + 82.0);

struct TwoFlowRun {
  double flow_bps[2] = {0, 0};  // goodput over the measured window
  double port_busy = 0;         // bottleneck data goodput / B over the window
  double queue_delay_mean_ps = 0;
  double queue_delay_max_ps = 0;
  double rtt_mean_ps[2] = {0, 0};  // each flow's latest RTT sample, averaged over 1 us ticks
  double above_t_high = 0;         // fraction of ticks at which a flow's RTT exceeded T_high
};

// Flow 0 from NIC1 at time 0, flow 1 from `second_nic` at second_start_ps, both to NIC0 and
// longer than the run; measured over [warm_ps, end_ps].
TwoFlowRun run_two_flows(int64_t second_start_ps, int64_t warm_ps, int64_t end_ps,
                         uint32_t second_nic = 2) {
  scenario::Scenario sc;
  sc.seed = 3;
  sc.topology.tiers = 2;
  sc.topology.radix = 8;
  sc.topology.hosts = 16;
  sc.link.rate_bps = static_cast<int64_t>(kRateBps);
  sc.link.cable_m = 3;
  sc.switch_config.buffer_bytes = 16 << 20;
  sc.switch_config.pfc.enabled = true;
  sc.roce.cc = transport::CongestionControl::kTimely;
  scenario::Simulation sim(sc);
  sim.transport().post(1, 0, 40'000'000'000, 0);
  if (second_start_ps > 0) sim.run(second_start_ps);
  sim.transport().post(second_nic, 0, 40'000'000'000, 0);
  const net::Network& net = sim.network();
  const uint32_t bottleneck = net.port(net.nic_port(0)).peer;  // the leaf's port to NIC 0
  const transport::RoceTransport& roce = *sim.roce();
  TwoFlowRun r;
  int64_t at_warm[2] = {0, 0};
  double queue_sum = 0, rtt_sum[2] = {0, 0};
  int64_t ticks = 0, high_ticks = 0;
  const int64_t t_high_ps = transport::timely_defaults(sc.link.rate_bps).t_high_ps;
  for (int64_t t = second_start_ps + kPsPerUs; t <= end_ps; t += kPsPerUs) {
    sim.run(t);
    if (t == warm_ps) {
      for (int i = 0; i < 2; ++i) at_warm[i] = sim.transport().message(i).delivered_bytes;
    }
    if (t <= warm_ps) continue;
    int64_t q = 0;
    for (const net::ClassQueue& c : net.queues(bottleneck).cls) q += c.bytes;
    const double q_delay_ps = static_cast<double>(q) * 8 / kRateBps * 1e12;
    queue_sum += q_delay_ps;
    r.queue_delay_max_ps = std::max(r.queue_delay_max_ps, q_delay_ps);
    for (uint32_t qp = 0; qp < 2; ++qp) {
      const int64_t rtt = roce.cc(qp).timely()->last_rtt_ps();
      rtt_sum[qp] += static_cast<double>(rtt);
      if (rtt > t_high_ps) ++high_ticks;
    }
    ++ticks;
  }
  const double window_s = static_cast<double>(end_ps - warm_ps) * 1e-12;
  double total = 0;
  for (int i = 0; i < 2; ++i) {
    r.flow_bps[i] = (sim.transport().message(i).delivered_bytes - at_warm[i]) * 8.0 / window_s;
    total += r.flow_bps[i];
    r.rtt_mean_ps[i] = rtt_sum[i] / ticks;
  }
  r.port_busy = total / kGoodputBps;
  r.queue_delay_mean_ps = queue_sum / ticks;
  r.above_t_high = static_cast<double>(high_ticks) / (2.0 * ticks);
  return r;
}

// The assertions both runs share. Bounds, from the rule (transport/timely.h) and the defaults at
// 100 Gb/s (T_low 5 us, T_high 50 us):
// - shares: max-min fairness, B / 2 each within 10% (the project's fairness bound, as
//   tests/calibration/dcqcn_test.cpp) -- what the paper does not promise, measured all the same;
// - utilization above 90% of B: the paper's "near line-rate throughput";
// - mean RTT in [0.9 T_low, T_high]: below T_low every sample adds delta, so two senders at full
//   load cannot rest there, but the rule is applied once per sample and the RTT dithers about
//   T_low by a step (a tenth of T_low is 0.5 us here, 6 KB of queue, 1.5 frames); above T_high
//   every sample cuts, so the mean stays below it;
// - the bottleneck's queueing delay (its bytes / line rate) below T_high at every 1 us tick:
//   it is the RTT minus the base round trip, so T_high bounds it, and it has no other bound in
//   the band (any queue with a zero gradient is a fixed point).
void expect_timely_band(const TwoFlowRun& r, const char* what) {
  const transport::TimelyParams p = transport::timely_defaults(static_cast<int64_t>(kRateBps));
  const double fair = kGoodputBps / 2;
  std::printf(
      "%s: %.2f and %.2f Gb/s (fair %.2f), port %.3f of B, queue delay mean %.2f us max %.2f us, "
      "RTT mean %.2f / %.2f us (T_low %.1f, T_high %.1f us), RTT > T_high at %.1f%% of ticks\n",
      what, r.flow_bps[0] / 1e9, r.flow_bps[1] / 1e9, fair / 1e9, r.port_busy,
      r.queue_delay_mean_ps * 1e-6, r.queue_delay_max_ps * 1e-6, r.rtt_mean_ps[0] * 1e-6,
      r.rtt_mean_ps[1] * 1e-6, p.t_low_ps * 1e-6, p.t_high_ps * 1e-6, 100 * r.above_t_high);
  for (int i = 0; i < 2; ++i) {
    EXPECT_NEAR(r.flow_bps[i] / fair, 1.0, 0.10) << what << ": flow " << i << " within 10% of B/2";
    EXPECT_GT(r.rtt_mean_ps[i], 0.9 * static_cast<double>(p.t_low_ps))
        << what << ": below T_low both flows only increase";
    EXPECT_LT(r.rtt_mean_ps[i], static_cast<double>(p.t_high_ps))
        << what << ": above T_high every sample cuts the rate";
  }
  EXPECT_GT(r.port_busy, 0.90) << what << ": the port stays busy";
  EXPECT_LT(r.queue_delay_max_ps, static_cast<double>(p.t_high_ps)) << what;
  EXPECT_EQ(r.above_t_high, 0.0) << what << ": no sample above T_high once converged";
}

// Measured over the second half of 10 ms: TIMELY's additive step is 100 Mb/s per sample (one
// per ~5 us round trip), so a flow moves from line rate to half of it in well under 5 ms.
TEST(TimelyTwoFlow, SimultaneousStartStaysInTheBand) {
  expect_timely_band(run_two_flows(0, 5 * kPsPerMs, 10 * kPsPerMs), "simultaneous start");
}

// The case fairness is about: flow 1 has the port to itself at line rate for 500 us before
// flow 2 starts from line rate too, so the two begin far apart.
TEST(TimelyTwoFlow, LateJoinerGetsItsShare) {
  const int64_t join_ps = 500 * kPsPerUs;
  expect_timely_band(run_two_flows(join_ps, join_ps + 5 * kPsPerMs, join_ps + 10 * kPsPerMs),
                     "second flow 500 us late");
}

// Two senders whose paths differ: NIC1 on the receiver's leaf (one switch), NIC4 on the next
// leaf (leaf, spine, leaf: three). Max-min fairness still says B / 2 each, and TIMELY does not
// give it, for two reasons in the rule itself: (1) samples come once per round trip, so the
// shorter path takes its additive steps more often; (2) T_low and T_high compare the whole RTT,
// base included, so the longer path reaches T_low with less queue and leaves the always-increase
// region first while the shorter one keeps increasing. Both push the same way: the short path
// gets more. Measured (docs/cc.md): 65.7 vs 32.3 Gb/s at the defaults; with T_low 50 us and
// T_high 500 us unscaled, 56.7 vs 36.7 Gb/s and a ten times larger peak queue. What the test
// holds to is the paper's claims (band, utilization) and the direction of the bias.
TEST(TimelyTwoFlow, DifferentPathLengthsFavourTheShorterRtt) {
  const TwoFlowRun r = run_two_flows(0, 5 * kPsPerMs, 10 * kPsPerMs, /*second_nic=*/4);
  const transport::TimelyParams p = transport::timely_defaults(static_cast<int64_t>(kRateBps));
  std::printf(
      "one switch vs three: %.2f and %.2f Gb/s (fair %.2f), port %.3f of B, RTT mean "
      "%.2f / %.2f us\n",
      r.flow_bps[0] / 1e9, r.flow_bps[1] / 1e9, kGoodputBps / 2e9, r.port_busy,
      r.rtt_mean_ps[0] * 1e-6, r.rtt_mean_ps[1] * 1e-6);
  EXPECT_GT(r.port_busy, 0.90);
  EXPECT_GT(r.flow_bps[0], r.flow_bps[1]) << "the shorter round trip gets the larger share";
  EXPECT_LT(r.rtt_mean_ps[0], r.rtt_mean_ps[1]) << "the paths' base round trips differ";
  for (int i = 0; i < 2; ++i) {
    EXPECT_GT(r.rtt_mean_ps[i], 0.9 * static_cast<double>(p.t_low_ps));
    EXPECT_LT(r.rtt_mean_ps[i], static_cast<double>(p.t_high_ps));
  }
}

}  // namespace timely_two_flow_test
}  // namespace fabricsim
