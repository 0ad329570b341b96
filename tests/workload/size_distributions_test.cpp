// workload.size_distribution (workload/size_distributions.h): each named table is the one HPCC's
// authors publish (traffic_gen/*.txt at 9f4be2a, restated here from the files), its mean is the
// trapezoid sum HPCC's traffic_gen uses for the arrival rate, Poisson draws follow the CDF at
// every table point (binomial bounds) and offer the asked-for load, and a named table beside
// size_cdf is refused.
#include "workload/size_distributions.h"

#include <gtest/gtest.h>

#include <cmath>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/time.h"
#include "workload/workload.h"

namespace fabricsim::workload {
namespace size_distributions_test {

constexpr int64_t kRate = 100'000'000'000;  // 100 Gb/s

// The files' lines, "size percent" (bytes, cumulative %).
using Table = std::vector<std::pair<double, double>>;
const Table kWebSearch = {{0, 0},         {10000, 15},   {20000, 20},    {30000, 30},
                          {50000, 40},    {80000, 53},   {200000, 60},   {1000000, 70},
                          {2000000, 80},  {5000000, 90}, {10000000, 97}, {30000000, 100}};
const Table kFbHadoop = {{0, 0},         {100, 1},       {200, 2},          {300, 5},
                         {350, 15},      {400, 20},      {500, 30},         {600, 40},
                         {700, 50},      {1000, 60},     {2000, 67},        {7000, 70},
                         {30000, 72},    {50000, 82},    {80000, 87},       {120000, 90},
                         {300000, 95},   {1000000, 97.5}, {2000000, 99},    {10000000, 100}};
const Table kAliStorage = {{0, 0},         {4000, 22.93},  {8000, 69.21},
                           {16000, 80.61}, {32000, 90.47}, {64000, 93.53},
                           {128000, 96.77}, {256000, 97.53}, {2000000, 100}};

struct Case {
  SizeDistribution d;
  const Table* table;
  double mean_bytes;  // custom_rand.py getAvg by hand (the trapezoid sum over the lines / 100)
};
// web_search: 15x5000 + 5x15000 + 10x25000 + 10x40000 + 13x65000 + 7x140000 + 10x600000
//   + 10x1.5e6 + 10x3.5e6 + 7x7.5e6 + 3x2e7 = 171,125,000 / 100 = 1,711,250 B.
// fb_hadoop: 12,042,075 / 100 = 120,420.75 B; ali_storage: 4,086,980 / 100 = 40,869.8 B.
const std::vector<Case> kCases = {{SizeDistribution::kWebSearch, &kWebSearch, 1'711'250.0},
                                  {SizeDistribution::kFbHadoop, &kFbHadoop, 120'420.75},
                                  {SizeDistribution::kAliStorage, &kAliStorage, 40'869.8}};

double trapezoid_mean(const Table& t) {
  double s = 0;
  for (size_t i = 1; i < t.size(); ++i) {
    s += (t[i].first + t[i - 1].first) / 2 * (t[i].second - t[i - 1].second);
  }
  return s / 100;
}

WorkloadSpec poisson(SizeDistribution d, double load, int64_t duration_ps) {
  WorkloadSpec s;
  s.kind = WorkloadKind::kPattern;
  s.pattern = PatternKind::kPoisson;
  s.load = load;
  s.duration_ps = duration_ps;
  s.size_distribution = d;
  return s;
}

TEST(SizeDistributions, TablesAreThePublishedFilesAndTheMeanIsTheirs) {
  for (const Case& c : kCases) {
    const std::vector<SizeCdfPoint>& cdf = named_size_cdf(c.d);
    ASSERT_EQ(cdf.size(), c.table->size());
    for (size_t i = 0; i < cdf.size(); ++i) {
      EXPECT_EQ(static_cast<double>(cdf[i].size_bytes), (*c.table)[i].first) << i;
      EXPECT_DOUBLE_EQ(cdf[i].cumulative, (*c.table)[i].second / 100) << i;
    }
    EXPECT_NEAR(trapezoid_mean(*c.table), c.mean_bytes, 1e-6 * c.mean_bytes);
    EXPECT_NEAR(mean_size(poisson(c.d, 0.3, kPsPerMs)), c.mean_bytes, 1e-9 * c.mean_bytes);
    EXPECT_EQ(largest_flow_size(poisson(c.d, 0.3, kPsPerMs)),
              static_cast<int64_t>(c.table->back().first));
  }
  EXPECT_TRUE(named_size_cdf(SizeDistribution::kCustom).empty());
}

// 16 NICs at load 0.5 for long enough for ~200 k draws of each table: the fraction of draws at
// or below each table point is its probability within 4 binomial standard deviations (plus the
// rounding of a draw to whole bytes), and the offered load is the asked-for one.
TEST(SizeDistributions, PoissonDrawsFollowTheTableAndOfferTheLoad) {
  constexpr int kNics = 16;
  for (const Case& c : kCases) {
    // flows = NICs x load x rate x T / (8 x mean): choose T for ~200 k flows.
    const double seconds = 200'000.0 * 8 * c.mean_bytes / (kNics * 0.5 * kRate);
    const auto duration_ps = static_cast<int64_t>(seconds * kPsPerSecond);
    const WorkloadSpec spec = poisson(c.d, 0.5, duration_ps);
    check(spec, kNics);
    const std::vector<PlannedFlow> flows = plan_pattern(spec, kNics, kRate, 5);
    const double n = static_cast<double>(flows.size());
    ASSERT_NEAR(n, 200'000, 4 * std::sqrt(200'000.0)) << "Poisson count";
    for (const auto& [size, percent] : *c.table) {
      if (size == 0) continue;
      double at_or_below = 0;
      for (const PlannedFlow& f : flows) at_or_below += static_cast<double>(f.size_bytes) <= size;
      const double p = percent / 100;
      EXPECT_NEAR(at_or_below / n, p, 4 * std::sqrt(p * (1 - p) / n) + 1e-4)
          << "P(size <= " << size << ")";
    }
    // Offered load: bits over T x NICs x rate. The mean of a heavy-tailed table converges
    // slowly: the bound is 4 standard errors of the sample mean, from the draws' own variance.
    double sum = 0, sum2 = 0;
    for (const PlannedFlow& f : flows) {
      const double x = static_cast<double>(f.size_bytes);
      sum += x;
      sum2 += x * x;
    }
    const double mean = sum / n;
    const double se = std::sqrt((sum2 / n - mean * mean) / n);
    EXPECT_NEAR(mean, c.mean_bytes, 4 * se) << "sample mean vs the table's";
    const double load = sum * 8 / (seconds * kNics * kRate);
    EXPECT_NEAR(load, 0.5, 0.5 * (4 * se / c.mean_bytes + 4 / std::sqrt(n)));
  }
}

TEST(SizeDistributions, ANamedTableBesideSizeCdfIsRefused) {
  WorkloadSpec spec = poisson(SizeDistribution::kWebSearch, 0.3, kPsPerMs);
  spec.size_cdf = {{1000, 1.0}};
  try {
    check(spec, 4);
    FAIL() << "both accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key_path(), "workload.size_distribution");
  }
}

}  // namespace size_distributions_test
}  // namespace fabricsim::workload
