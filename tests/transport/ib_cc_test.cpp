// InfiniBand congestion control (IBA Annex A10; transport/ib_cc.h): the source's CCTI machine
// against the Annex's rules and the hfi1 delay formula worked out here, then whole fabrics: two
// flows sharing a port converge to their max-min fair share with the port's queue held near the
// marking threshold, and a hot spot's congestion stops spreading by credits to a victim flow.
#include "transport/ib_cc.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "core/error.h"
#include "core/time.h"
#include "engine/packet/simulation.h"
#include "net/network.h"
#include "resolve/resolve.h"

namespace fabricsim::transport {
namespace ib_cc_test {

constexpr int64_t kG = 1'000'000'000;
constexpr int64_t kUs = kPsPerUs;

IbCcParams params(int increase, int64_t timer_ps, int limit, int min) {
  IbCcParams p = ib_cc_defaults();
  p.ccti_increase = increase;
  p.ccti_timer_ps = timer_ps;
  p.ccti_limit = limit;
  p.ccti_min = min;
  return p;
}

// hfi1 set_link_ipg: delay = (max_pkt_time >> shift) x multiplier, so an MTU packet and its
// delay occupy max_pkt_time x (1 + multiplier / 2^shift) and the rate is line over that factor.
double rate_of(double line_bps, IbCcEntry e) {
  return line_bps / (1.0 + e.multiplier / static_cast<double>(1 << e.shift));
}

TEST(IbCcRp, EachBecnStepsTheIndexAndTheTableSetsTheRate) {
  const IbCcParams p = params(1, 5 * 1024 * kPsPerNs, 127, 0);
  IbCcRp rp(p, 400 * kG);
  EXPECT_EQ(rp.rate_bps(), 400 * kG) << "CCT[0] = 0: no delay";
  EXPECT_EQ(rp.next_timer_ps(), kNoTimer) << "nothing to recover from";
  for (int i = 1; i <= 8; ++i) {
    rp.on_cnp(0);
    EXPECT_EQ(rp.ccti(), i);
    EXPECT_NEAR(static_cast<double>(rp.rate_bps()), rate_of(400e9, p.cct[i]), 1.0) << "CCTI " << i;
  }
  // The default table: entry i = shift 2 : multiplier i, so 4 BECNs halve the rate.
  IbCcRp four(p, 400 * kG);
  for (int i = 0; i < 4; ++i) four.on_cnp(0);
  EXPECT_EQ(four.rate_bps(), 200 * kG);
  EXPECT_EQ(four.next_timer_ps(), 5 * 1024 * kPsPerNs) << "the timer starts at the first BECN";
}

TEST(IbCcRp, TheTimerTakesOneStepBackPerExpiryDownToCctiMin) {
  const int64_t t = 10 * 1024 * kPsPerNs;     // CCTI_Timer 10 = 10.24 us
  const IbCcParams p = params(3, t, 127, 1);  // the RP reads it for its whole life
  IbCcRp rp(p, 100 * kG);
  EXPECT_EQ(rp.ccti(), 1) << "CCTI starts at CCTI_Min";
  rp.on_cnp(0);
  rp.on_cnp(kUs);
  EXPECT_EQ(rp.ccti(), 7) << "1 + 2 x CCTI_Increase 3";
  EXPECT_EQ(rp.next_timer_ps(), t) << "a running timer keeps its phase: a BECN does not restart it";
  rp.on_timer(3 * t);  // three expiries due at t, 2t and 3t
  EXPECT_EQ(rp.ccti(), 4);
  EXPECT_EQ(rp.next_timer_ps(), 4 * t);
  rp.on_timer(100 * t);  // down to CCTI_Min and no lower
  EXPECT_EQ(rp.ccti(), 1);
  EXPECT_EQ(rp.next_timer_ps(), kNoTimer) << "at CCTI_Min the timer stops";
}

TEST(IbCcRp, TheIndexStopsAtCctiLimit) {
  IbCcParams p = params(5, kUs, 10, 0);
  IbCcRp rp(p, 100 * kG);
  for (int i = 0; i < 10; ++i) rp.on_cnp(0);
  EXPECT_EQ(rp.ccti(), 10);
  EXPECT_NEAR(static_cast<double>(rp.rate_bps()), rate_of(100e9, p.cct[10]), 1.0);
}

TEST(IbCcParams, OutOfRangeValuesNameTheirKey) {
  IbCcParams p = ib_cc_defaults();
  p.ccti_limit = 128;
  try {
    validate_ib_cc_params(p);
    FAIL() << "a limit past the table's end";
  } catch (const IbCcParamError& e) {
    EXPECT_EQ(e.field, "ib.cc.ccti_limit");
  }
  p = ib_cc_defaults();
  p.cct[3].shift = 4;
  EXPECT_THROW(validate_ib_cc_params(p), IbCcParamError) << "shift is 2 bits";
  p = ib_cc_defaults();
  p.ccti_min = 5;
  p.ccti_limit = 4;
  EXPECT_THROW(validate_ib_cc_params(p), IbCcParamError);
  EXPECT_NO_THROW(validate_ib_cc_params(ib_cc_defaults()));
}

scenario::Scenario ib_leaf_spine(int radix, int hosts, int64_t vl_buffer, bool cc) {
  scenario::Scenario sc;
  sc.seed = 2;
  sc.technology = scenario::Technology::kInfiniband;
  sc.topology.tiers = 2;
  sc.topology.radix = radix;
  sc.topology.hosts = hosts;
  sc.link.rate_bps = 100 * kG;
  sc.link.cable_m = 3;
  sc.ib.link.vl_buffer_bytes = vl_buffer;
  sc.ib.cc.enabled = cc;
  return sc;
}

TEST(IbCcFabric, TwoFlowsShareAPortFairlyWithItsQueueNearTheThreshold) {
  // NIC 1 and NIC 2 send to NIC 0 through their leaf: the leaf's port to NIC 0 is the one
  // congested port. Its goodput is B = 100G x 4096 / 4122 (LRH 8 + BTH 12 + ICRC 4 + VCRC 2 per
  // 4096-byte packet; IB's data rate has no preamble or gap); max-min fairness gives each B/2.
  scenario::Scenario sc = ib_leaf_spine(8, 16, 0, true);
  scenario::Simulation sim(sc);
  for (uint32_t s = 1; s <= 2; ++s) sim.transport().post(s, 0, 4'000'000'000, 0);
  const double goodput = 100e9 * 4096.0 / 4122.0;
  const net::Network& net = sim.network();
  const uint32_t bottleneck = net.port(net.nic_port(0)).peer;  // the leaf's port to NIC 0
  const int64_t threshold = ib_cc_defaults().threshold_bytes;
  constexpr int64_t kEnd = 2'000 * kUs;
  constexpr int64_t kHalf = kEnd / 2;
  int64_t at_half[2] = {0, 0};
  double queue_sum = 0;
  int64_t queue_max = 0;
  int64_t samples = 0;
  for (int64_t t = kUs; t <= kEnd; t += kUs) {
    sim.run(t);
    if (t == kHalf) {
      for (int i = 0; i < 2; ++i) at_half[i] = sim.transport().message(i).delivered_bytes;
    }
    if (t > kHalf) {
      int64_t q = 0;
      for (const net::ClassQueue& c : net.queues(bottleneck).cls) q += c.bytes;
      queue_sum += static_cast<double>(q);
      queue_max = std::max(queue_max, q);
      ++samples;
    }
  }
  double total = 0;
  for (int i = 0; i < 2; ++i) {
    const double bps =
        (sim.transport().message(i).delivered_bytes - at_half[i]) * 8.0 / (kHalf * 1e-12);
    total += bps;
    EXPECT_NEAR(bps / (goodput / 2), 1.0, 0.10) << "flow " << i << " within 10% of B/2";
  }
  EXPECT_GT(total / goodput, 0.90) << "the port stays busy";
  std::printf("two flows: link %.3f of B, queue mean %.0f B, max %lld B (threshold %lld B)\n",
              total / goodput, queue_sum / samples, static_cast<long long>(queue_max),
              static_cast<long long>(threshold));
  // A mark reaches its source one round trip later (~2 us here: 2 x 3 m, two switch traversals
  // and the HCAs' pipelines); until the CCTI rises the two sources overfill the port at up to
  // the line rate, so the queue stays within the threshold plus a few round trips' excess.
  const double rtt_excess_bytes = 100e9 / 8 * 2e-6;  // one RTT at line rate: 25 KB
  EXPECT_LT(queue_sum / samples, threshold + 2 * rtt_excess_bytes)
      << "mean queue near the marking threshold " << threshold;
  EXPECT_LT(queue_max, threshold + 8 * rtt_excess_bytes) << "peak queue";
  EXPECT_GT(sim.transport().counters().cnps_sent, 0) << "the port marked FECN";
}

// hol-blocking-ib.yaml's flows: six 2 MB senders on leaves 1 and 2 incast into NIC 0 through
// one spine; the victim, NIC 7 -> NIC 12, shares leaf 1's uplink and that spine with three of
// them but not their bottleneck. With 1 MiB per VL, credits back the hot spot up into leaf 1's
// uplink, and the victim waits behind it (docs/infiniband.md "Buffers").
struct HolOutcome {
  int64_t upstream_credit_waits = 0;  // at switch ports (every port but the HCAs')
  int64_t victim_fct_ps = 0;
  int64_t incast_end_ps = 0;
};

HolOutcome hol(bool cc) {
  scenario::Scenario sc = ib_leaf_spine(8, 16, 1 << 20, cc);
  scenario::Simulation sim(sc);
  for (uint32_t s : {4u, 5u, 6u, 8u, 9u, 10u}) sim.transport().post(s, 0, 2'000'000, 0);
  sim.run(5 * kUs);
  const uint32_t victim = sim.transport().post(7, 12, 2'000'000, 0);
  sim.run();
  HolOutcome o;
  const net::Network& net = sim.network();
  for (uint32_t p = 0; p < net.num_ports(); ++p) {
    if (!net.port(p).is_nic) o.upstream_credit_waits += net.queues(p).credit_waits;
  }
  const MessageRecord& v = sim.transport().message(victim);
  o.victim_fct_ps = v.rx_done_ps - v.post_ps;
  for (uint32_t m = 0; m < victim; ++m) {
    o.incast_end_ps = std::max(o.incast_end_ps, sim.transport().message(m).rx_done_ps);
  }
  return o;
}

TEST(IbCcFabric, CongestionControlStopsTheHotSpotSpreadingByCredits) {
  const HolOutcome off = hol(false);
  const HolOutcome on = hol(true);
  std::printf(
      "hot spot: credit waits %lld -> %lld, victim FCT %.1f -> %.1f us, incast end "
      "%.1f -> %.1f us\n",
      static_cast<long long>(off.upstream_credit_waits),
      static_cast<long long>(on.upstream_credit_waits), off.victim_fct_ps * 1e-6,
      on.victim_fct_ps * 1e-6, off.incast_end_ps * 1e-6, on.incast_end_ps * 1e-6);
  // The incast moves 12 MB through one 100 Gb/s port: at least 12 MB x 4122/4096 / 100 Gb/s.
  const double incast_floor_ps = 12e6 * 4122.0 / 4096.0 * 8 / 100e9 * 1e12;
  ASSERT_GT(off.upstream_credit_waits, 100) << "without CC the hot spot backs up by credits";
  EXPECT_LT(on.upstream_credit_waits, off.upstream_credit_waits / 10)
      << "with CC the sources slow down before the switches run out of credits";
  EXPECT_LT(on.victim_fct_ps, 0.8 * off.victim_fct_ps) << "the victim no longer waits behind it";
  EXPECT_GE(on.incast_end_ps, incast_floor_ps);
  // What CC costs the hot spot: its sources overshoot and recover on the timer (docs/cc.md).
  EXPECT_LT(on.incast_end_ps, 1.25 * incast_floor_ps) << "the hot spot keeps most of its port";
}

// Per traffic class (IBA A10 CACongestionSetting Control_Map): NIC 1 on SL 0 and NIC 2 on SL 1
// send into NIC 0 with CC enabled for SL 0 only. Both are marked at the congested port; only
// SL 0's QP steps its CCTI, so it is paced below the line rate while SL 1's QP keeps it and,
// the two VLs sharing the port, SL 1's flow gets the larger share.
TEST(IbCcFabric, TheControlMapSelectsTheServiceLevelsThatReact) {
  scenario::Scenario sc = ib_leaf_spine(8, 16, 0, true);
  sc.ib.cc.service_levels = std::vector<int>{0};
  scenario::Simulation sim(sc);
  const uint32_t on = sim.transport().post(1, 0, 4'000'000'000, 0, 0);
  const uint32_t off = sim.transport().post(2, 0, 4'000'000'000, 0, 1);
  int64_t lowest_rate[2] = {INT64_MAX, INT64_MAX};
  std::vector<QpSample> qps;
  for (int64_t t = kUs; t <= 500 * kUs; t += kUs) {
    sim.run(t);
    qps.clear();
    sim.transport().sample_qps(qps, false);
    for (const QpSample& q : qps) {
      const int i = q.src_nic == 1 ? 0 : 1;
      lowest_rate[i] = std::min(lowest_rate[i], q.rate_bps);
    }
  }
  const int64_t b_on = sim.transport().message(on).delivered_bytes;
  const int64_t b_off = sim.transport().message(off).delivered_bytes;
  std::printf("control map {0}: SL 0 lowest rate %.1f Gb/s, %lld B; SL 1 lowest %.1f Gb/s, %lld B\n",
              lowest_rate[0] * 1e-9, static_cast<long long>(b_on), lowest_rate[1] * 1e-9,
              static_cast<long long>(b_off));
  EXPECT_GT(sim.transport().counters().cnps_sent, 0) << "the port marked FECN";
  EXPECT_LT(lowest_rate[0], 100 * kG) << "SL 0 reacts: its CCTI rose";
  EXPECT_EQ(lowest_rate[1], 100 * kG) << "SL 1 is off in the Control_Map: line rate throughout";
  EXPECT_GT(b_off, b_on) << "the QP that does not back off takes the larger share";
  sc.ib.cc.service_levels = std::vector<int>{};
  try {
    scenario::resolve(sc);
    FAIL() << "an empty Control_Map accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key_path(), "fabric.ib.cc.service_levels");
  }
}

}  // namespace ib_cc_test
}  // namespace fabricsim::transport
