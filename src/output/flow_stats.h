// Statistics over a run's flows, shared by the summary table and result.json so both always
// agree.
#pragma once

#include <cstdint>
#include <vector>

#include "results/result.h"

namespace fabricsim::output {

// Nearest-rank percentile: the smallest value such that at least `percent`% of the values are
// <= it, i.e. sorted[ceil(percent / 100 x n) - 1]; percent 0 gives the minimum. Always an element
// of the data (no interpolation), so p99 of 100 FCTs is the 99th smallest. The rank is computed in
// integers from percent rounded to 1e-4, so p99.9 of 1000 values is exactly the 999th.
// REQUIRES: `sorted` ascending and non-empty; 0 <= percent <= 100.
int64_t percentile_nearest_rank(const std::vector<int64_t>& sorted, double percent);
// The same rank as an index into a sorted list of n >= 1 values (for non-integer data).
size_t nearest_rank_index(size_t n, double percent);

struct FlowStats {
  int64_t total = 0;
  int64_t completed = 0;
  // Flow completion times over completed flows; 0 when none completed.
  int64_t fct_p50_ps = 0;
  int64_t fct_p99_ps = 0;
  int64_t fct_max_ps = 0;
  // Mean of FCT / ideal FCT over completed flows with a known ideal; 0 when there are none.
  double mean_slowdown = 0;
};

FlowStats compute_flow_stats(const std::vector<scenario::FlowRecord>& flows);

}  // namespace fabricsim::output
