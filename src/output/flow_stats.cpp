#include "output/flow_stats.h"

#include <algorithm>
#include <cmath>

namespace fabricsim::output {

int64_t percentile_nearest_rank(const std::vector<int64_t>& sorted, double percent) {
  return sorted[nearest_rank_index(sorted.size(), percent)];
}

FlowStats compute_flow_stats(const std::vector<scenario::FlowRecord>& flows) {
  return scenario::summarize_flows(flows).stats;
}

}  // namespace fabricsim::output
