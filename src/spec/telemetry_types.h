// The telemetry samplers' configuration (outputs.timeseries.*) and what they hand back in the
// run's result (engine/packet/telemetry.h samples, output/timeseries.h writes the two CSVs). Kept
// free of the simulator's headers so scenario.h and result.h can hold them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fabricsim::scenario {

struct TimeseriesSpec {
  int64_t interval_ps = 0;         // sample interval; 0 = off (no event, no memory)
  std::vector<std::string> ports;  // port labels (engine/packet/link_load.h port_label)
  int top = 8;                     // with no ports listed: the N ports of highest sampled queue
  std::vector<int> qps;            // QP / connection ids (the transport's dense ids)
  int top_qps = 8;                 // with no qps listed: the N that sent the most bytes
  // At most this many samples (the last one is the run's end): what bounds the sampler's
  // memory for the pre-flight estimate when the run has no stop_time.
  int max_samples = 10000;
};

// One port over one interval. 56 bytes: the memory per (sample, sampled port).
struct PortSample {
  int64_t tx_bytes = 0;              // wire bytes whose serialization started in the interval
  int64_t paused_ps = 0;             // class-time paused in the interval (summed over classes)
  uint32_t class_bytes[8] = {};      // frame bytes queued per class at the interval's end
  int32_t credits_blocks = -1;       // IB: credits available over data VLs; -1 on Ethernet
  uint32_t reserved = 0;
};
static_assert(sizeof(PortSample) == 56, "docs/telemetry.md states the memory per sample");

struct PortSeries {
  uint32_t port = 0;      // net::Network port id
  std::string label;      // port_label()
  int64_t rate_bps = 0;   // the port's line rate
  std::vector<PortSample> samples;  // one per TelemetryResult::times_ps
};

struct QpSeries {
  uint32_t qp = 0;
  uint32_t src_nic = 0;
  uint32_t dst_nic = 0;
  std::string cc;
  int64_t sent_bytes = 0;  // at the end of the run (what top_qps ranks by)
  // Per sample: the rate (bps) or window (bytes) as the scheme has it; -1 = the QP was not open
  // yet (no row) or the scheme has neither.
  std::vector<int64_t> rate_bps;
  std::vector<int64_t> window_bytes;
};

struct TelemetryResult {
  bool present = false;          // outputs.timeseries.interval > 0
  int64_t interval_ps = 0;
  int64_t start_ps = 0;          // the first interval begins here
  std::vector<int64_t> times_ps; // end of each interval (the last may be a partial interval)
  std::vector<PortSeries> ports;
  std::vector<QpSeries> qps;
  // max_samples was reached: sampling stopped at times_ps[size - 2] and the last sample spans
  // from there to the run's end.
  bool truncated = false;
  std::vector<int> qps_never_opened;  // listed QP ids the run never opened (no rows)
};

}  // namespace fabricsim::scenario
