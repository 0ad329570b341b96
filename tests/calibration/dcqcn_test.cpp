// DCQCN two-flow convergence, one row per profile (transport/dcqcn.h: nvidia-default,
// dcqcn-paper, hpcc-paper).
//
//   NIC1 ─┐
//         ├─ leaf ─► NIC0     two long flows into one 100 Gb/s port, PFC on, DCQCN on
//   NIC2 ─┘
//
// The published figure: the DCQCN paper (Zhu et al., "Congestion Control for Large-Scale RDMA
// Deployments", SIGCOMM 2015, https://doi.org/10.1145/2785956.2787484) shows flows sharing a
// bottleneck converging to equal shares, in its fluid model, its NS-3 simulations and its
// testbed. The convergence times and error bands of its figures could not be read here
// (UNVERIFIED), so the checks use the bound the project states for fairness: both flows within
// 10% of the max-min fair share, the same bound as tests/validation/dcqcn_test.cpp.
//
// The fair share is derived, not simulated: the bottleneck port carries only data frames, so
// its goodput is B = 100 Gb/s x 4096 / (4096 + 82) (payload / frame on the wire, RoCEv2 with a
// 4096-byte MTU) and max-min fairness on one link gives each of two long flows B / 2.
// Rates come from bytes delivered per window, never from the rate machine's own variables.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "calibration.h"
#include "engine/packet/simulation.h"

namespace fabricsim {
namespace dcqcn_test {

constexpr double kRateBps = 100e9;
constexpr double kGoodputBps = kRateBps * 4096.0 / (4096.0 + 82.0);
constexpr double kFairBound = 0.10;  // within 10% of the fair share

struct Convergence {
  int64_t converged_ps = -1;  // start of the first window from which every later one is fair
  double worst_share = 0;     // min over the two flows of mean rate / fair share, second half
  double best_share = 0;      // max of the same
  double utilisation = 0;     // both flows' mean goodput / B, second half
};

// Two long flows, NIC1 and NIC2 to NIC0, measured in windows of `step_ps` up to `end_ps`. A
// window is fair when both flows' mean rates over it and the `smooth - 1` windows before it are
// within the bound (smooth = 1: the window alone).
Convergence two_flows(const std::string& profile, int64_t step_ps, int64_t end_ps, int smooth = 1) {
  scenario::Scenario sc;
  sc.topology.tiers = 2;
  sc.topology.radix = 8;
  sc.topology.hosts = 16;
  sc.link.rate_bps = static_cast<int64_t>(kRateBps);
  sc.switch_config.buffer_bytes = 16 << 20;
  sc.switch_config.pfc.enabled = true;
  sc.roce.cc = transport::CongestionControl::kDcqcn;
  sc.roce.dcqcn_profile = profile;
  scenario::Simulation sim(sc);
  for (int i = 1; i <= 2; ++i) sim.transport().post(i, 0, 40'000'000'000, 0);
  const double fair = kGoodputBps / 2;
  const int64_t half_ps = end_ps / 2 / step_ps * step_ps;
  Convergence c;
  int64_t before[2] = {0, 0};
  int64_t at_half[2] = {0, 0};
  std::vector<int64_t> history[2] = {{0}, {0}};  // delivered bytes at each window's end
  for (int64_t t = step_ps; t <= end_ps; t += step_ps) {
    sim.run(t);
    bool fair_now = true;
    for (int i = 0; i < 2; ++i) {
      const int64_t bytes = sim.transport().message(i).delivered_bytes;
      history[i].push_back(bytes);
      const size_t back = std::min<size_t>(static_cast<size_t>(smooth), history[i].size() - 1);
      const double bps = (bytes - history[i][history[i].size() - 1 - back]) * 8.0 /
                         (static_cast<double>(back * step_ps) * 1e-12);
      before[i] = bytes;
      if (t == half_ps) at_half[i] = bytes;
      fair_now = fair_now && std::abs(bps - fair) <= kFairBound * fair;
    }
    if (!fair_now)
      c.converged_ps = -1;
    else if (c.converged_ps < 0)
      c.converged_ps = t - step_ps;
  }
  double total = 0;
  c.worst_share = 1e9;
  for (int i = 0; i < 2; ++i) {
    const double bps = (before[i] - at_half[i]) * 8.0 / ((end_ps - half_ps) * 1e-12);
    total += bps;
    c.worst_share = std::min(c.worst_share, bps / fair);
    c.best_share = std::max(c.best_share, bps / fair);
  }
  c.utilisation = total / kGoodputBps;
  EXPECT_EQ(sim.network().counters().dropped_packets, 0) << profile << ": PFC keeps it lossless";
  return c;
}

const char* kPublished = "two flows converge to equal shares of the bottleneck";
const char* kSource =
    "Zhu et al., SIGCOMM 2015 (DCQCN), convergence/fairness figures; times and bands UNVERIFIED, "
    "bound: 10% of max-min fair share";

// Records the three rows of one profile: convergence time, the long-run worst and best shares.
void report(const std::string& profile, const Convergence& c, const char* windows, double end_ms) {
  const std::string scenario = "tests/calibration/dcqcn_test.cpp: 2 flows -> 1 NIC, 100G, PFC, " +
                               profile + ", " + windows + " windows";
  std::printf("%s: converged from %.1f ms, shares %.3f / %.3f of fair, link %.3f\n",
              profile.c_str(), c.converged_ps * 1e-9, c.worst_share, c.best_share, c.utilisation);
  calibration::check_figure({.name = "DCQCN " + profile + ": two-flow convergence time",
                             .published = kPublished,
                             .source = kSource,
                             .scenario = scenario,
                             .unit = "ms",
                             .value = c.converged_ps * 1e-9,
                             // converged, and fair for at least the last half of the run
                             .lo = 0,
                             .hi = end_ms / 2});
  calibration::check_figure({.name = "DCQCN " + profile + ": lower long-run share / fair share",
                             .published = "1 (max-min fair share B/2, B = 100G x 4096/4178)",
                             .source = kSource,
                             .scenario = scenario + ", mean over the second half",
                             .unit = "",
                             .value = c.worst_share,
                             .lo = 1 - kFairBound,
                             .hi = 1 + kFairBound});
  calibration::check_figure({.name = "DCQCN " + profile + ": bottleneck goodput / B",
                             .published = "1 (work-conserving: the link stays busy)",
                             .source = kSource,
                             .scenario = scenario + ", mean over the second half",
                             .unit = "",
                             .value = c.utilisation,
                             // above 1 only by the whole packets a window edge cuts
                             .lo = 0.90,
                             .hi = 1.001});
  EXPECT_LE(c.best_share, 1 + kFairBound) << profile << ": the other flow";
}

TEST(DcqcnCalibration, NvidiaDefaultTwoFlowConvergence) {
  report("nvidia-default", two_flows("nvidia-default", 5'000'000'000, 60'000'000'000), "5 ms", 60);
}

TEST(DcqcnCalibration, HpccPaperTwoFlowConvergence) {
  report("hpcc-paper", two_flows("hpcc-paper", 2'000'000'000, 30'000'000'000), "2 ms", 30);
}

// dcqcn-paper marks with Pmax 1% (SwCC's quote of the paper's RED setting), so each flow is cut
// about once per ms and the restoring force is small; 20 ms windows over 800 ms. Its steady state
// is noisy: single 20 ms windows swing by about +-10% around the fair share for the whole run
// (the start-up transient, 1.34 / 0.62 of fair in the first window, is gone by ~100 ms). So the
// first window from which every later single window stays within 10% dates the last noise
// excursion, not the convergence: over seeds 2-7 it read 540, 740, 480, 380, 40 ms and never
// (issue 21, when simultaneous events stopped breaking ties by insertion order; it read 320 ms
// before, for seed 1). Convergence is therefore judged on a 100 ms trailing mean (five windows),
// which averages out ~100 marking cuts per flow: over seeds 1-7 that reads 120, 0, 0, 0, 0, 0 and
// 0 ms (0: the first window was already fair). The long-run shares are 0.97-1.03 for every seed.
TEST(DcqcnCalibration, DcqcnPaperTwoFlowConvergence) {
  report("dcqcn-paper", two_flows("dcqcn-paper", 20'000'000'000, 800'000'000'000, 5),
         "20 ms (100 ms trailing mean)", 800);
}

}  // namespace dcqcn_test
}  // namespace fabricsim
