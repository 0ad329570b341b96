#include "core/quantile_digest.h"

namespace fabricsim {

size_t nearest_rank_index(size_t count, double percent) {
  const auto n = static_cast<__int128>(count);
  const auto parts_per_million = static_cast<__int128>(std::llround(percent * 1e4));
  // ceil(ppm x n / 1e6) without floating point; rank 0 (percent 0) means the minimum.
  const __int128 rank = (parts_per_million * n + 999'999) / 1'000'000;
  return static_cast<size_t>(std::clamp<__int128>(rank - 1, 0, n - 1));
}

}  // namespace fabricsim
