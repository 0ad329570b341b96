// workload/compute_variation.h: a straggler rank's ops take slowdown x their nominal time from
// `from` on and no other rank's do; the jitter factor is lognormal of mean 1 (its log has mean
// -sigma^2/2 and standard deviation sigma over 200,000 ops, within 4 standard errors); a draw
// depends on (seed, op) only; ranks outside the job are refused.
#include "workload/compute_variation.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/error.h"

namespace fabricsim::workload {
namespace compute_variation_test {

TEST(ComputeVariation, StragglersAreSlowFromTheirStartOnly) {
  ComputeVariation v;
  v.straggler_ranks = {3, 5};
  v.straggler_slowdown = 1.25;
  v.straggler_from_ps = 1'000'000;
  const ComputeVariationModel m(v, 8, 1);
  EXPECT_EQ(m.duration_ps(3, 0, 400'000, 999'999), 400'000) << "before the start";
  EXPECT_EQ(m.duration_ps(3, 1, 400'000, 1'000'000), 500'000);
  EXPECT_EQ(m.duration_ps(5, 2, 400'001, 2'000'000), 500'001) << "rounded to the ps";
  EXPECT_EQ(m.duration_ps(4, 3, 400'000, 2'000'000), 400'000) << "not a straggler";
  EXPECT_EQ(m.duration_ps(3, 4, 0, 2'000'000), 0);
  EXPECT_FALSE(ComputeVariationModel(ComputeVariation{}, 8, 1).active());
}

TEST(ComputeVariation, JitterIsLognormalOfMeanOne) {
  ComputeVariation v;
  v.jitter_sigma = 0.2;
  const ComputeVariationModel m(v, 4, 42);
  constexpr int kOps = 200'000;
  constexpr int64_t kNominal = 1'000'000'000;  // 1 ms: rounding below 1e-9 of the factor
  double sum = 0, sum_log = 0, sum_log2 = 0;
  for (int op = 0; op < kOps; ++op) {
    const double f = static_cast<double>(m.duration_ps(op % 4, op, kNominal, 0)) / kNominal;
    sum += f;
    sum_log += std::log(f);
    sum_log2 += std::log(f) * std::log(f);
  }
  const double n = kOps, s = 0.2;
  // E[f] = 1, Var f = exp(s^2) - 1; E[log f] = -s^2/2, sd(log f) = s.
  EXPECT_NEAR(sum / n, 1.0, 4 * std::sqrt((std::exp(s * s) - 1) / n));
  const double mean_log = sum_log / n;
  EXPECT_NEAR(mean_log, -s * s / 2, 4 * s / std::sqrt(n));
  // The sample variance of a normal has standard error sigma^2 sqrt(2 / (n - 1)).
  EXPECT_NEAR(sum_log2 / n - mean_log * mean_log, s * s, 4 * s * s * std::sqrt(2 / (n - 1)));
  // A draw is a function of (seed, op): the same op again, whatever came between.
  EXPECT_EQ(m.duration_ps(0, 17, kNominal, 0), m.duration_ps(0, 17, kNominal, 5));
  const ComputeVariationModel other(v, 4, 43);
  EXPECT_NE(m.duration_ps(0, 17, kNominal, 0), other.duration_ps(0, 17, kNominal, 0));
}

TEST(ComputeVariation, RanksOutsideTheJobAreRefused) {
  ComputeVariation v;
  v.straggler_ranks = {8};
  v.straggler_slowdown = 1.2;
  try {
    ComputeVariationModel(v, 8, 1);
    FAIL() << "rank 8 of 8 accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key_path(), "training.straggler_ranks");
  }
}

}  // namespace compute_variation_test
}  // namespace fabricsim::workload
