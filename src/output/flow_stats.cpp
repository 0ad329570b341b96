#include "output/flow_stats.h"

#include <algorithm>
#include <cmath>

namespace fabricsim::output {

int64_t percentile_nearest_rank(const std::vector<int64_t>& sorted, double percent) {
  return sorted[nearest_rank_index(sorted.size(), percent)];
}

size_t nearest_rank_index(size_t count, double percent) {
  const auto n = static_cast<__int128>(count);
  const auto parts_per_million = static_cast<__int128>(std::llround(percent * 1e4));
  // ceil(ppm x n / 1e6) without floating point; rank 0 (percent 0) means the minimum.
  const __int128 rank = (parts_per_million * n + 999'999) / 1'000'000;
  return static_cast<size_t>(std::clamp<__int128>(rank - 1, 0, n - 1));
}

FlowStats compute_flow_stats(const std::vector<scenario::FlowRecord>& flows) {
  FlowStats stats;
  stats.total = static_cast<int64_t>(flows.size());
  std::vector<int64_t> fcts;
  double slowdown_sum = 0;
  int64_t slowdown_count = 0;
  for (const scenario::FlowRecord& f : flows) {
    if (f.finish_ps < 0) continue;
    fcts.push_back(f.fct_ps());
    if (f.ideal_fct_ps > 0) {
      slowdown_sum += f.slowdown();
      ++slowdown_count;
    }
  }
  stats.completed = static_cast<int64_t>(fcts.size());
  if (!fcts.empty()) {
    std::sort(fcts.begin(), fcts.end());
    stats.fct_p50_ps = percentile_nearest_rank(fcts, 50);
    stats.fct_p99_ps = percentile_nearest_rank(fcts, 99);
    stats.fct_max_ps = fcts.back();
  }
  if (slowdown_count > 0) stats.mean_slowdown = slowdown_sum / static_cast<double>(slowdown_count);
  return stats;
}

}  // namespace fabricsim::output
