// Nearest-rank percentiles (core/quantile_digest.h, which computes every percentile the
// outputs show) and flow statistics (output/flow_stats.h).
#include "output/flow_stats.h"

#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "core/quantile_digest.h"

namespace fabricsim::output {
namespace flow_stats_test {

// The p-th percentile of `values` as the flow summary computes it.
int64_t percentile_nearest_rank(const std::vector<int64_t>& values, double percent) {
  QuantileDigest<int64_t> q;
  for (const int64_t v : values) q.add(v);
  return q.percentile(percent);
}

std::vector<int64_t> one_to(int64_t n) {
  std::vector<int64_t> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), 1);
  return v;
}

TEST(Percentile, NearestRankDefinition) {
  const std::vector<int64_t> five = {15, 20, 35, 40, 50};
  // The textbook nearest-rank example: p30 -> rank ceil(1.5) = 2, p40 -> rank 2, p50 -> rank 3.
  EXPECT_EQ(percentile_nearest_rank(five, 5), 15) << "p5 of five values is the first";
  EXPECT_EQ(percentile_nearest_rank(five, 30), 20) << "p30: rank ceil(0.3 x 5) = 2";
  EXPECT_EQ(percentile_nearest_rank(five, 40), 20) << "p40: rank exactly 2, no interpolation";
  EXPECT_EQ(percentile_nearest_rank(five, 50), 35) << "p50: rank ceil(2.5) = 3";
  EXPECT_EQ(percentile_nearest_rank(five, 100), 50) << "p100 is the maximum";
  EXPECT_EQ(percentile_nearest_rank(five, 0), 15) << "p0 is the minimum";
}

TEST(Percentile, ExactRanksWithoutFloatingPointDrift) {
  EXPECT_EQ(percentile_nearest_rank(one_to(100), 99), 99) << "p99 of 1..100 is 99, not 100";
  EXPECT_EQ(percentile_nearest_rank(one_to(1000), 99.9), 999) << "p99.9 of 1..1000 is 999";
  EXPECT_EQ(percentile_nearest_rank(one_to(101), 99), 100) << "rank ceil(99.99) = 100";
  EXPECT_EQ(percentile_nearest_rank({42}, 99), 42) << "a single value is every percentile";
}

scenario::FlowRecord flow(int64_t start_ps, int64_t finish_ps, int64_t ideal_ps) {
  scenario::FlowRecord f;
  f.start_ps = start_ps;
  f.finish_ps = finish_ps;
  f.ideal_fct_ps = ideal_ps;
  return f;
}

TEST(FlowStats, CompletedFlowsOnly) {
  const std::vector<scenario::FlowRecord> flows = {flow(0, 100, 50), flow(10, 310, 100),
                                                   flow(0, -1, 100), flow(5, 205, 0)};
  const FlowStats s = compute_flow_stats(flows);
  EXPECT_EQ(s.total, 4) << "every flow counts in the total";
  EXPECT_EQ(s.completed, 3) << "the unfinished flow is not completed";
  EXPECT_EQ(s.fct_p50_ps, 200) << "FCTs 100, 200, 300: median 200";
  EXPECT_EQ(s.fct_p99_ps, 300) << "p99 of three values is the largest";
  EXPECT_EQ(s.fct_max_ps, 300) << "max FCT";
  EXPECT_DOUBLE_EQ(s.mean_slowdown, 2.5) << "mean of 2 and 3; a flow without ideal FCT is skipped";
  EXPECT_EQ(compute_flow_stats({}).completed, 0) << "no flows: all zero";
}

}  // namespace flow_stats_test
}  // namespace fabricsim::output
