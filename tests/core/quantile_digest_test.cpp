// core/quantile_digest.h: exact nearest-rank percentiles up to 2^18 values, and beyond them a
// DDSketch whose answer is within the stated relative error of the exact nearest-rank value,
// derived here by sorting the same values.
#include "core/quantile_digest.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace fabricsim {
namespace {

constexpr double kPercents[] = {0, 1, 25, 50, 90, 99, 99.9, 99.99, 100};

// The nearest-rank percentile by definition: sorted[ceil(p / 100 x n) - 1] (the minimum at 0),
// with p in parts per million so that 99.9% of 20,000 is the 19,980th, not the float 19,981st.
template <typename V>
V by_sorting(std::vector<V> values, double percent) {
  std::sort(values.begin(), values.end());
  const int64_t ppm = std::llround(percent * 1e4);
  const auto n = static_cast<int64_t>(values.size());
  const int64_t rank = (ppm * n + 999'999) / 1'000'000;
  return values[static_cast<size_t>(std::max<int64_t>(rank, 1)) - 1];
}

TEST(QuantileDigest, NearestRankIndexIsTheCeilingRank) {
  EXPECT_EQ(nearest_rank_index(100, 99), 98u);     // the 99th smallest of 100
  EXPECT_EQ(nearest_rank_index(1000, 99.9), 998u);  // exactly the 999th, no float drift
  EXPECT_EQ(nearest_rank_index(7, 0), 0u);
  EXPECT_EQ(nearest_rank_index(7, 100), 6u);
  EXPECT_EQ(nearest_rank_index(3, 50), 1u);  // ceil(1.5) = 2nd
}

TEST(QuantileDigest, BelowTheLimitEveryPercentileIsTheSortedElement) {
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> d(std::log(1e7), 1.5);
  std::vector<int64_t> values;
  QuantileDigest<int64_t> q;
  for (int i = 0; i < 20'000; ++i) {
    values.push_back(static_cast<int64_t>(d(rng)));
    q.add(values.back());
  }
  EXPECT_FALSE(q.sketched());
  for (const double p : kPercents) EXPECT_EQ(q.percentile(p), by_sorting(values, p)) << p;
  // Adding after a query re-sorts.
  q.add(1);
  values.push_back(1);
  EXPECT_EQ(q.percentile(0), 1);
  EXPECT_EQ(q.percentile(50), by_sorting(values, 50));
}

TEST(QuantileDigest, BeyondTheLimitPercentilesAreWithinTheRelativeError) {
  // Heavy-tailed values over 9 decades (FCTs in ps from ~1 ns to ~1 s), more than 2^18 of them.
  std::mt19937_64 rng(11);
  std::lognormal_distribution<double> d(std::log(1e8), 3.0);
  std::vector<int64_t> values;
  std::vector<double> doubles;
  QuantileDigest<int64_t> q;
  QuantileDigest<double> qd;
  const size_t n = QuantileDigest<int64_t>::kExactValues + 200'000;
  values.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    const double x = std::clamp(d(rng), 1e3, 1e12);
    values.push_back(static_cast<int64_t>(x));
    doubles.push_back(x / 1e6);  // slowdown-like doubles
    q.add(values.back());
    qd.add(doubles.back());
  }
  ASSERT_TRUE(q.sketched());
  const double a = QuantileDigest<int64_t>::kRelativeError;
  for (const double p : kPercents) {
    const auto exact = static_cast<double>(by_sorting(values, p));
    // Within a of the exact value, plus the half unit an integer answer is rounded by.
    EXPECT_LE(std::abs(static_cast<double>(q.percentile(p)) - exact), a * exact + 0.5) << p;
    const double exact_d = by_sorting(doubles, p);
    EXPECT_LE(std::abs(qd.percentile(p) - exact_d), a * exact_d * (1 + 1e-12)) << p;
  }
  EXPECT_EQ(q.percentile(0), *std::min_element(values.begin(), values.end()));
  EXPECT_EQ(q.percentile(100), *std::max_element(values.begin(), values.end()));
  // The sketch's memory: buckets over log(max/min) / log(gamma), not a value each.
  const double gamma = (1 + a) / (1 - a);
  // (a vector may hold up to twice its size)
  EXPECT_LE(q.bytes(), 2 * static_cast<size_t>(std::log(1e9) / std::log(gamma) + 2) * 8);
}

TEST(QuantileDigest, TheSketchDoesNotDependOnTheOrderValuesArrive) {
  std::mt19937_64 rng(3);
  std::uniform_int_distribution<int64_t> d(1, 1'000'000'000);
  std::vector<int64_t> values(QuantileDigest<int64_t>::kExactValues + 10);
  for (int64_t& v : values) v = d(rng);
  QuantileDigest<int64_t> forward, shuffled;
  for (const int64_t v : values) forward.add(v);
  std::shuffle(values.begin(), values.end(), rng);
  for (const int64_t v : values) shuffled.add(v);
  for (const double p : kPercents) EXPECT_EQ(forward.percentile(p), shuffled.percentile(p)) << p;
}

TEST(QuantileDigest, ZeroAndNegativeValuesRankBelowEveryPositiveOne) {
  QuantileDigest<double> q;
  const size_t n = QuantileDigest<double>::kExactValues + 1;
  // A quarter at 0, the rest at 1000: p20 is 0 (the minimum), p50 within 0.1% of 1000.
  for (size_t i = 0; i < n; ++i) q.add(i % 4 == 0 ? 0.0 : 1000.0);
  ASSERT_TRUE(q.sketched());
  EXPECT_EQ(q.percentile(20), 0.0);
  EXPECT_NEAR(q.percentile(50), 1000.0, 1000.0 * QuantileDigest<double>::kRelativeError);
}

}  // namespace
}  // namespace fabricsim
