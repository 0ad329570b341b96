// Statistics of one sweep point across its seeds: mean, sample standard deviation and the
// half-width of the two-sided 95% confidence interval of the mean, t_{0.975, S-1} x s / sqrt(S)
// (Student's t interval; docs/sweep.md).
#pragma once

#include <optional>
#include <vector>

namespace fabricsim::output {

// t_{0.975, df}: the upper 2.5% critical value of Student's t distribution with `df` degrees of
// freedom (df >= 1). df 1..30 come from the table of the NIST/SEMATECH e-Handbook of Statistical
// Methods, section 1.3.6.7.2 ("Critical Values of the Student's t Distribution"), column
// 0.025; beyond 30 the Cornish-Fisher expansion of Abramowitz & Stegun 26.7.5 around the normal
// quantile z = 1.959964 (2.021 at df 40, 2.000 at 60, 1.984 at 100, as the NIST table has them).
double t_critical_975(int df);

struct SampleStats {
  int n = 0;  // samples
  double mean = 0;
  std::optional<double> stddev;  // sample standard deviation (n-1 divisor); none when n < 2
  std::optional<double> ci95_half_width;  // t_{0.975,n-1} x s / sqrt(n); none when n < 2
};

// Empty `values` -> n 0, mean 0 and neither optional set.
SampleStats summarize(const std::vector<double>& values);

}  // namespace fabricsim::output
