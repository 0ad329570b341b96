#include "output/sweep_stats.h"

#include <array>
#include <cmath>
#include <stdexcept>

namespace fabricsim::output {
namespace {

// NIST/SEMATECH e-Handbook of Statistical Methods, 1.3.6.7.2, upper critical values of the t
// distribution, alpha = 0.025 (one tail), nu = 1..30: the two-sided 95% interval's multiplier.
constexpr std::array<double, 30> kT975 = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
                                          2.262,  2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
                                          2.110,  2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
                                          2.060,  2.056, 2.052, 2.048, 2.045, 2.042};

// The standard normal's 0.975 quantile (the t quantile's limit as df grows).
constexpr double kZ975 = 1.959963985;

}  // namespace

double t_critical_975(int df) {
  if (df < 1) throw std::invalid_argument("t_critical_975: df must be >= 1");
  if (df <= static_cast<int>(kT975.size())) return kT975[static_cast<size_t>(df - 1)];
  // Abramowitz & Stegun 26.7.5: t = z + g1(z)/df + g2(z)/df^2 + ..., with
  // g1 = (z^3 + z)/4 and g2 = (5z^5 + 16z^3 + 3z)/96; the next term is below 1e-4 for df > 30.
  // The plain normal value (1.960) would make a 31-seed interval 4% too narrow.
  const double z = kZ975;
  const double z3 = z * z * z;
  const double z5 = z3 * z * z;
  const double n = static_cast<double>(df);
  return z + (z3 + z) / (4 * n) + (5 * z5 + 16 * z3 + 3 * z) / (96 * n * n);
}

SampleStats summarize(const std::vector<double>& values) {
  SampleStats s;
  s.n = static_cast<int>(values.size());
  if (s.n == 0) return s;
  double sum = 0;
  for (double v : values) sum += v;
  s.mean = sum / s.n;
  if (s.n < 2) return s;
  double squares = 0;  // two-pass: no cancellation on large, close values (picoseconds)
  for (double v : values) squares += (v - s.mean) * (v - s.mean);
  s.stddev = std::sqrt(squares / (s.n - 1));
  s.ci95_half_width = t_critical_975(s.n - 1) * *s.stddev / std::sqrt(static_cast<double>(s.n));
  return s;
}

}  // namespace fabricsim::output
