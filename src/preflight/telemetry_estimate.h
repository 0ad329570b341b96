// The telemetry samplers' memory for the pre-flight estimate (preflight/resources.cpp): the
// samples held during the run, the chosen series in the result, and the CSV text written.
#pragma once

#include <cstdint>

#include "spec/scenario.h"

namespace fabricsim::scenario {

struct TelemetryEstimate {
  int64_t simulation_bytes = 0;  // every sampled port's and QP's samples, times, result copy
  int64_t result_bytes = 0;      // the chosen series in RunResult
  int64_t output_bytes = 0;      // the two CSV texts
};

// `ports` and `qps` as the pre-flight counts them (every port; an upper bound on connections).
// Samples: max_samples, or stop_time / interval + 1 when that is fewer. Throws InputError
// naming outputs.timeseries.max_samples when the arithmetic overflows.
TelemetryEstimate estimate_telemetry(const TimeseriesSpec& spec, int64_t stop_time_ps,
                                     int64_t ports, int64_t qps);

}  // namespace fabricsim::scenario
