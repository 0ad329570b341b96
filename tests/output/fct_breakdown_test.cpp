// FCT and slowdown by size bucket and by class (output/fct_breakdown.h) against percentiles
// computed by hand with the nearest-rank rule: the p-th percentile of n sorted values is the
// value of rank ceil(p/100 x n).
#include "output/fct_breakdown.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "output/json.h"
#include "output/summary.h"

namespace fabricsim::output {
namespace fct_breakdown_test {

scenario::FlowRecord flow(int64_t size, int64_t fct_ps, int64_t ideal_ps, int cls = 3) {
  scenario::FlowRecord f;
  f.size_bytes = size;
  f.start_ps = 1000;
  f.finish_ps = fct_ps < 0 ? -1 : 1000 + fct_ps;
  f.ideal_fct_ps = ideal_ps;
  f.traffic_class = cls;
  return f;
}

TEST(FctBreakdown, BucketEdgesAreInclusiveAbove) {
  EXPECT_EQ(fct_bucket(0), 0);
  EXPECT_EQ(fct_bucket(10'000), 0);
  EXPECT_EQ(fct_bucket(10'001), 1);
  EXPECT_EQ(fct_bucket(100'000), 1);
  EXPECT_EQ(fct_bucket(100'001), 2);
  EXPECT_EQ(fct_bucket(1'000'000), 2);
  EXPECT_EQ(fct_bucket(10'000'000), 3);
  EXPECT_EQ(fct_bucket(10'000'001), 4);
  EXPECT_EQ(fct_bucket(int64_t{1} << 40), 4);
}

// Ten small flows with FCTs 10..100 ps (ideal 10 ps: slowdowns 1..10) in shuffled order.
// By hand: p50 = rank ceil(5) = 5th = 50 ps; p99 = rank ceil(9.9) = 10th = 100 ps;
// p99.9 = rank ceil(9.99) = 10th. Slowdowns alike: 5, 10, 10.
TEST(FctBreakdown, PercentilesAreNearestRankOnASmallList) {
  std::vector<scenario::FlowRecord> flows;
  for (const int64_t k : {7, 3, 10, 1, 5, 9, 2, 8, 4, 6}) flows.push_back(flow(5000, 10 * k, 10));
  const std::vector<FctGroup> g = fct_by_size(flows);
  ASSERT_EQ(g.size(), 1u);
  EXPECT_EQ(g[0].label, "<=10KB");
  EXPECT_EQ(g[0].flows, 10);
  EXPECT_EQ(g[0].completed, 10);
  EXPECT_EQ(g[0].fct_p50_ps, 50);
  EXPECT_EQ(g[0].fct_p99_ps, 100);
  EXPECT_EQ(g[0].fct_p999_ps, 100);
  EXPECT_DOUBLE_EQ(g[0].slowdown_p50, 5.0);
  EXPECT_DOUBLE_EQ(g[0].slowdown_p99, 10.0);
  EXPECT_DOUBLE_EQ(g[0].slowdown_p999, 10.0);
}

// 1000 flows of FCT 1..1000 ps: p50 = 500th, p99 = 990th, p99.9 = 999th value.
TEST(FctBreakdown, PercentilesOfAThousandFlows) {
  std::vector<scenario::FlowRecord> flows;
  for (int64_t k = 1000; k >= 1; --k) flows.push_back(flow(2'000'000, k, 1));
  const std::vector<FctGroup> g = fct_by_size(flows);
  ASSERT_EQ(g.size(), 1u);
  EXPECT_EQ(g[0].label, "1MB-10MB");
  EXPECT_EQ(g[0].fct_p50_ps, 500);
  EXPECT_EQ(g[0].fct_p99_ps, 990);
  EXPECT_EQ(g[0].fct_p999_ps, 999);
  EXPECT_DOUBLE_EQ(g[0].slowdown_p999, 999.0);
}

TEST(FctBreakdown, GroupsBySizeAndClassCountUnfinishedFlowsApart) {
  std::vector<scenario::FlowRecord> flows = {
      flow(1000, 100, 50, 0),        // <=10KB, class 0, slowdown 2
      flow(50'000, 300, 100, 3),     // 10KB-100KB, class 3, slowdown 3
      flow(50'000, -1, 100, 3),      // unfinished
      flow(20'000'000, 900, 0, 3),   // >10MB, no ideal: no slowdown
  };
  const std::vector<FctGroup> size = fct_by_size(flows);
  ASSERT_EQ(size.size(), 3u) << "empty buckets are left out";
  EXPECT_EQ(size[0].label, "<=10KB");
  EXPECT_EQ(size[1].label, "10KB-100KB");
  EXPECT_EQ(size[1].flows, 2);
  EXPECT_EQ(size[1].completed, 1);
  EXPECT_EQ(size[1].fct_p50_ps, 300);
  EXPECT_EQ(size[1].min_bytes, 10'000);
  EXPECT_EQ(size[1].max_bytes, 100'000);
  EXPECT_EQ(size[2].label, ">10MB");
  EXPECT_EQ(size[2].max_bytes, -1);
  EXPECT_FALSE(size[2].with_slowdown);

  const std::vector<FctGroup> cls = fct_by_class(flows);
  ASSERT_EQ(cls.size(), 2u);
  EXPECT_EQ(cls[0].traffic_class, 0);
  EXPECT_EQ(cls[0].flows, 1);
  EXPECT_DOUBLE_EQ(cls[0].slowdown_p50, 2.0);
  EXPECT_EQ(cls[1].traffic_class, 3);
  EXPECT_EQ(cls[1].flows, 3);
  EXPECT_EQ(cls[1].completed, 2);
  EXPECT_EQ(cls[1].fct_p50_ps, 300) << "rank ceil(0.5 x 2) = 1st of {300, 900}";
  EXPECT_DOUBLE_EQ(cls[1].slowdown_p99, 3.0) << "only the flow with an ideal FCT";

  const nlohmann::ordered_json j = [&] {
    scenario::RunResult r;
    r.flows = flows;
    r.flow_summary = scenario::summarize_flows(r.flows);
    return result_to_json(r);
  }();
  ASSERT_EQ(j["fct_by_size"].size(), 3u);
  EXPECT_EQ(j["fct_by_size"][2]["bucket"], ">10MB");
  EXPECT_TRUE(j["fct_by_size"][2]["max_bytes"].is_null());
  EXPECT_TRUE(j["fct_by_size"][2]["slowdown_p50"].is_null());
  EXPECT_EQ(j["fct_by_size"][1]["fct_p99_ps"], 300);
  ASSERT_EQ(j["fct_by_class"].size(), 2u);
  EXPECT_EQ(j["fct_by_class"][1]["class"], 3);
  EXPECT_EQ(j["fct_by_class"][1]["completed"], 2);
}

TEST(FctBreakdown, SummaryShowsABreakdownOnlyWithMoreThanOneGroup) {
  scenario::RunResult one;
  one.flows = {flow(1000, 100, 50), flow(2000, 200, 50)};
  one.flow_summary = scenario::summarize_flows(one.flows);
  const std::string a = format_summary(one);
  EXPECT_EQ(a.find("FCT by flow size"), std::string::npos);
  EXPECT_EQ(a.find("FCT by class"), std::string::npos);

  scenario::RunResult two;
  two.flows = {flow(1000, 100, 50, 0), flow(2'000'000, 200, 50, 5)};
  two.flow_summary = scenario::summarize_flows(two.flows);
  const std::string b = format_summary(two);
  EXPECT_NE(b.find("FCT by flow size"), std::string::npos) << b;
  EXPECT_NE(b.find("1MB-10MB"), std::string::npos) << b;
  EXPECT_NE(b.find("FCT by class"), std::string::npos) << b;
  EXPECT_NE(b.find("class 5"), std::string::npos) << b;
}

}  // namespace fct_breakdown_test
}  // namespace fabricsim::output
