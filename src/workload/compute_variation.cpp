#include "workload/compute_variation.h"

#include <cmath>
#include <string>

#include "core/error.h"
#include "core/rng.h"

namespace fabricsim::workload {
namespace {

// The stream of the jitter draws (core/rng.h): one generator per op, seeded from the op index.
constexpr uint64_t kJitterStream = 0x4A495454;  // "JITT"

}  // namespace

ComputeVariationModel::ComputeVariationModel(const ComputeVariation& v, uint32_t ranks,
                                             uint64_t seed)
    : active_(v.any()),
      slow_(ranks, 0),
      slowdown_(v.straggler_slowdown),
      from_ps_(v.straggler_from_ps),
      sigma_(v.jitter_sigma),
      seed_(seed) {
  for (const int r : v.straggler_ranks) {
    if (r < 0 || static_cast<uint32_t>(r) >= ranks) {
      throw InputError("training.straggler_ranks",
                       "rank " + std::to_string(r) + " is not a rank of the job (0.." +
                           std::to_string(static_cast<int64_t>(ranks) - 1) + ")");
    }
    slow_[static_cast<size_t>(r)] = 1;
  }
}

int64_t ComputeVariationModel::duration_ps(uint32_t rank, uint64_t op, int64_t nominal_ps,
                                           int64_t start_ps) const {
  if (!active_ || nominal_ps <= 0) return nominal_ps;
  double factor = 1.0;
  if (slow_[rank] && start_ps >= from_ps_) factor *= slowdown_;
  if (sigma_ > 0) {
    // Box-Muller from two uniforms of the op's own generator; 1 - u keeps the log finite.
    Rng rng(seed_ ^ (op * 0x9E3779B97F4A7C15ull), kJitterStream);
    const double u1 = 1.0 - rng.uniform();
    const double u2 = rng.uniform();
    const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
    factor *= std::exp(sigma_ * z - 0.5 * sigma_ * sigma_);
  }
  return std::llround(static_cast<double>(nominal_ps) * factor);
}

}  // namespace fabricsim::workload
