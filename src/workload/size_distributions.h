// The datacenter flow-size distributions congestion-control papers evaluate on, by name
// (workload.size_distribution), for the Poisson pattern: the tables HPCC's authors publish with
// their simulator (alibaba-edu/High-Precision-Congestion-Control, traffic_gen/, commit 9f4be2a),
// which their paper (Li et al., SIGCOMM 2019, §5.1) and many later ones draw flows from.
//
// Each is a piecewise-linear CDF from (0 B, 0): a draw interpolates linearly between the table's
// points, so sizes below the first point are spread over (0, first] as HPCC's traffic_gen.py
// (custom_rand.py getValueFromPercentile) draws them, and the mean is the trapezoid sum
// (custom_rand.py getAvg). docs/traffic-patterns.md lists each table with its mean.
#pragma once

#include <vector>

#include "workload/workload_spec.h"

namespace fabricsim::workload {

// The CDF of a named distribution (first point (0, 0)); empty for kCustom.
const std::vector<SizeCdfPoint>& named_size_cdf(SizeDistribution d);

// The CDF the Poisson pattern draws from: the named one, else workload.size_cdf (empty: every
// flow is flow_size).
const std::vector<SizeCdfPoint>& effective_size_cdf(const WorkloadSpec& spec);

// The largest size a draw can give (flow_size without a CDF).
int64_t largest_flow_size(const WorkloadSpec& spec);

}  // namespace fabricsim::workload
