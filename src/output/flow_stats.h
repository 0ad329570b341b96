// Statistics over a run's flows, shared by the summary table and result.json so both always
// agree.
#pragma once

#include <cstdint>
#include <vector>

#include "core/quantile_digest.h"
#include "results/flow_summary.h"
#include "results/result.h"

namespace fabricsim::output {

using scenario::FlowStats;  // results/flow_summary.h

// The statistics of a whole list (results/flow_summary.h's builder over it).
FlowStats compute_flow_stats(const std::vector<scenario::FlowRecord>& flows);

}  // namespace fabricsim::output
