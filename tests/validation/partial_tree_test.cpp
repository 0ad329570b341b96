// A partial fat-tree built with the fewest spines/cores (topo/fat_tree.cpp, parallel cables per
// pair) keeps full bisection: a permutation whose every flow crosses the upper tiers runs each
// flow near line rate once packets are spread over all paths (RoCE spraying, lossless).
//
// Derivation: every leaf (edge) has as many uplinks as NIC ports and reaches every spine (core
// group) over the same number of cables, so an even split loads no cable above line rate; each
// flow's bound is the wire goodput 100 Gb/s x 4096 / (4096 + 82). Half the bisection (e.g. a
// 2:1 oversubscribed leaf or half the spines) would cap these flows at 50% of it, so a floor of
// 75% separates full from halved bisection with room for spraying's imperfect balance (the
// spray tests measure 78-92% for the slowest flow of a sprayed permutation on full trees).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "engine/run.h"

namespace fabricsim {
namespace partial_tree_test {

constexpr double kRateBps = 100e9;
constexpr double kGoodputBps = kRateBps * 4096.0 / (4096.0 + 82.0);

scenario::Scenario sprayed(int tiers, int radix, int nics, int shift) {
  scenario::Scenario sc;
  sc.seed = 1;
  sc.topology.tiers = tiers;
  sc.topology.radix = radix;
  sc.topology.hosts = nics;
  sc.link.rate_bps = static_cast<int64_t>(kRateBps);
  sc.link.cable_m = 3.0;
  sc.switch_config.pfc.enabled = true;  // lossless: the paths decide, not drops
  sc.roce.spray = true;
  sc.roce.out_of_order = true;
  sc.roce.spray_paths = 1024;
  sc.workload.kind = workload::WorkloadKind::kPattern;
  sc.workload.pattern = workload::PatternKind::kFlows;
  for (int i = 0; i < nics; ++i) {
    sc.workload.flows.push_back({.src = i,
                                 .dst = (i + shift) % nics,
                                 .size_bytes = 2'000'000,
                                 .start_ps = 0});
  }
  return sc;
}

void expect_near_line_rate(const scenario::Scenario& sc, const std::string& shape) {
  const scenario::RunResult r = scenario::run_scenario(sc);
  ASSERT_TRUE(r.completed);
  EXPECT_NE(r.topology.description.find(shape), std::string::npos) << r.topology.description;
  double slowest = 1e300;
  for (const scenario::FlowRecord& f : r.flows) {
    slowest = std::min(slowest, f.size_bytes * 8.0 / (f.fct_ps() * 1e-12));
  }
  std::printf("[ measured ] %s: slowest flow %.1f%% of the wire goodput\n",
              r.topology.description.c_str(), 100 * slowest / kGoodputBps);
  EXPECT_GT(slowest, 0.75 * kGoodputBps) << r.topology.description;
}

TEST(PartialTree, LeafSpineWithParallelCablesKeepsFullBisection) {
  // 40 NICs, radix 16: 5 leaves of 8, 4 spines with 2 cables per leaf; NIC i -> i + 8, so
  // every flow goes to the next leaf through a spine.
  expect_near_line_rate(sprayed(2, 16, 40, 8), "5 leaves x 4 spines, 2 cables per leaf-spine");
}

TEST(PartialTree, ThreeTierWithFewerCoresKeepsFullBisection) {
  // 48 NICs, k = 8: 3 pods of 16, 8 cores (2 per agg group, 2 cables per agg-core pair);
  // NIC i -> i + 16, so every flow goes to the next pod through a core.
  expect_near_line_rate(sprayed(3, 8, 48, 16), "3 pods, 12 edges, 12 aggs, 8 cores, 2 cables");
}

}  // namespace partial_tree_test
}  // namespace fabricsim
