#include "preflight/telemetry_estimate.h"

#include <algorithm>

#include "preflight/resources_counts.h"
#include "engine/packet/telemetry.h"

namespace fabricsim::scenario {

namespace {

// CSV row lengths (output/timeseries.cpp), generous: a time of 16 digits, a port id and label
// ("sw1234:56->sw7890"), two nine-decimal fractions, nine byte counts of up to 10 digits.
constexpr int64_t kPortRowChars = 16 + 8 + 24 + 12 + 9 * 11 + 12 + 12 + 15;
constexpr int64_t kQpRowChars = 16 + 4 * 11 + 8 + 2 * 20;

}  // namespace

TelemetryEstimate estimate_telemetry(const TimeseriesSpec& spec, int64_t stop_time_ps,
                                     int64_t ports, int64_t qps) {
  TelemetryEstimate e;
  if (spec.interval_ps <= 0) return e;
  const preflight::Checked c{"outputs.timeseries.max_samples"};
  int64_t samples = spec.max_samples;
  if (stop_time_ps > 0) samples = std::min(samples, stop_time_ps / spec.interval_ps + 2);
  const int64_t listed_ports = static_cast<int64_t>(spec.ports.size());
  const int64_t sampled_ports = listed_ports > 0 ? listed_ports : spec.top > 0 ? ports : 0;
  const int64_t chosen_ports =
      listed_ports > 0 ? listed_ports : std::min<int64_t>(spec.top, ports);
  const int64_t listed_qps = static_cast<int64_t>(spec.qps.size());
  const int64_t sampled_qps = listed_qps > 0 ? listed_qps : spec.top_qps > 0 ? qps : 0;
  const int64_t chosen_qps = listed_qps > 0 ? listed_qps : std::min<int64_t>(spec.top_qps, qps);
  // Vectors grown by push_back (preflight::grown_elements: up to 1.5x, the copy included).
  const int64_t held =
      c.add(c.mul(preflight::grown_elements(c.mul(samples, sampled_ports)),
                  Telemetry::kBytesPerPortSample),
            c.mul(preflight::grown_elements(c.mul(samples, sampled_qps + 1)),
                  Telemetry::kBytesPerQpSample));
  // result(): the chosen series beside the samples (QPs: a rate and a window per sample).
  e.result_bytes = c.add(c.mul(samples, chosen_ports, Telemetry::kBytesPerPortSample),
                         c.mul(samples, chosen_qps, 2 * sizeof(int64_t)));
  // Transport::sample_qps's scratch and the final pass's copy: one QpSample per connection.
  const int64_t scratch = c.mul(2 * static_cast<int64_t>(sizeof(transport::QpSample)),
                                preflight::grown_elements(sampled_qps));
  e.simulation_bytes = c.add(c.add(held, scratch), e.result_bytes);
  e.output_bytes = c.add(c.mul(preflight::grown_elements(c.mul(samples, chosen_ports)), kPortRowChars),
                         c.mul(preflight::grown_elements(c.mul(samples, chosen_qps)), kQpRowChars));
  return e;
}

}  // namespace fabricsim::scenario
