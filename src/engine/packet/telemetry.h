// Fixed-interval telemetry samplers (outputs.timeseries.*, docs/telemetry.md): per port, the
// wire bytes sent, the queue per class, the paused time and the InfiniBand credits available;
// per QP, the congestion-control rate or window. Off the hot path: one kTelemetrySample event
// per interval reads counters the fabric keeps anyway (net::Network::port_tx_bytes,
// PortQueues) and Transport::sample_qps; nothing per packet changes, and the sampler only
// reads, so a run's results are the same with it on or off.
//
// Which ports: the listed labels, else every port, and at the end the `top` N by the highest
// queue (all classes) seen at a sample; ties by bytes sent, then by port id. Memory:
// sizeof(PortSample) = 56 bytes per (sample, sampled port), plus 8 bytes per (sample, sampled
// QP) and 8 per sample (preflight/resources.cpp puts it in the pre-flight estimate).
//
// The sampler never keeps a run alive: the run loop drops a sample when nothing but the time
// limit is left to happen, and finish() adds a final partial interval at the run's end, so the
// samples tile [start, end] and their time-integral of bytes is the ports' exact total.
#pragma once

#include <cstdint>
#include <vector>

#include "core/scheduler.h"
#include "net/network.h"
#include "spec/telemetry_types.h"
#include "transport/transport.h"

namespace fabricsim::scenario {

class Telemetry {
 public:
  // Resolves the port labels (InputError naming outputs.timeseries.ports for an unknown one).
  // REQUIRES: spec.interval_ps > 0; the network finalized.
  Telemetry(const TimeseriesSpec& spec, const net::Network& net,
            const transport::Transport& transport, Scheduler& sched);
  void start();       // the first interval begins now
  // A kTelemetrySample event: closes an interval and schedules the next, unless only the
  // final sample (finish) is left of max_samples.
  void on_sample();
  // Closes the last, partial interval at `end_ps` (the run's end) unless a sample fell there.
  void finish(int64_t end_ps);
  // The selected series (top N ports / QPs chosen here).
  TelemetryResult result() const;

  static constexpr int64_t kBytesPerPortSample = sizeof(PortSample);
  static constexpr int64_t kBytesPerQpSample = sizeof(int64_t);

 private:
  // Paused class-time of a port up to now, open pauses included (pfc.cpp closes them only at
  // unpause and finish_pause_accounting; this reads without closing).
  int64_t paused_until_now(uint32_t port) const;
  void take(int64_t now_ps);
  static constexpr int64_t kNotOpen = INT64_MIN;  // a listed QP not opened yet

  TimeseriesSpec spec_;
  const net::Network& net_;
  const transport::Transport& transport_;
  Scheduler& sched_;
  bool listed_ports_ = false;
  std::vector<uint32_t> ports_;        // sampled port ids
  std::vector<int64_t> last_tx_;       // per sampled port, at the previous sample
  std::vector<int64_t> last_paused_;
  std::vector<PortSample> samples_;    // sample-major: ports_.size() per sample
  bool truncated_ = false;
  int64_t start_ps_ = 0;
  int64_t last_ps_ = 0;
  std::vector<int64_t> times_;
  // QPs: the listed ids' values per sample (sample-major), or, for top_qps, every open QP's
  // value per sample with qp_offsets_[s] the start of sample s.
  bool listed_qps_ = false;
  bool sample_qps_ = false;
  std::vector<int64_t> qp_values_;
  std::vector<uint64_t> qp_offsets_;
  mutable std::vector<transport::QpSample> scratch_;
};

}  // namespace fabricsim::scenario
