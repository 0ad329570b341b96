// Statistics over a run's flows, shared by the summary table and result.json so both always
// agree.
#pragma once

#include <cstdint>
#include <vector>

#include "core/quantile_digest.h"
#include "results/flow_summary.h"
#include "results/result.h"

namespace fabricsim::output {

// Nearest-rank percentile: the smallest value such that at least `percent`% of the values are
// <= it, i.e. sorted[ceil(percent / 100 x n) - 1]; percent 0 gives the minimum. Always an element
// of the data (no interpolation), so p99 of 100 FCTs is the 99th smallest. The rank is computed in
// integers from percent rounded to 1e-4, so p99.9 of 1000 values is exactly the 999th.
// REQUIRES: `sorted` ascending and non-empty; 0 <= percent <= 100.
int64_t percentile_nearest_rank(const std::vector<int64_t>& sorted, double percent);

using scenario::FlowStats;  // results/flow_summary.h

// The statistics of a whole list (results/flow_summary.h's builder over it).
FlowStats compute_flow_stats(const std::vector<scenario::FlowRecord>& flows);

}  // namespace fabricsim::output
