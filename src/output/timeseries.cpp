#include "output/timeseries.h"

#include <cinttypes>
#include <cstdio>

namespace fabricsim::output {

namespace {

void append_fraction(std::string& out, double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.9f", v);
  out += buf;
}

}  // namespace

std::string timeseries_ports_csv_text(const scenario::TelemetryResult& t) {
  std::string out = kTimeseriesPortsHeader;
  out += '\n';
  for (size_t s = 0; s < t.times_ps.size(); ++s) {
    const int64_t end = t.times_ps[s];
    const int64_t span = end - (s == 0 ? t.start_ps : t.times_ps[s - 1]);
    for (const scenario::PortSeries& p : t.ports) {
      const scenario::PortSample& x = p.samples[s];
      out += std::to_string(end) + ',' + std::to_string(p.port) + ',' + p.label + ',';
      // bytes x 8 / (bps x ps x 1e-12), as (bytes x 8e12) / (bps x ps) in doubles
      const double capacity = static_cast<double>(p.rate_bps) * static_cast<double>(span);
      append_fraction(out, capacity > 0 ? static_cast<double>(x.tx_bytes) * 8e12 / capacity : 0.0);
      int64_t total = 0;
      for (const uint32_t b : x.class_bytes) total += b;
      out += ',' + std::to_string(total);
      for (const uint32_t b : x.class_bytes) out += ',' + std::to_string(b);
      out += ',';
      append_fraction(out, span > 0 ? static_cast<double>(x.paused_ps) / static_cast<double>(span)
                                    : 0.0);
      out += ',';
      if (x.credits_blocks >= 0) out += std::to_string(x.credits_blocks);
      out += '\n';
    }
  }
  return out;
}

std::string timeseries_qps_csv_text(const scenario::TelemetryResult& t) {
  std::string out = kTimeseriesQpsHeader;
  out += '\n';
  for (size_t s = 0; s < t.times_ps.size(); ++s) {
    for (const scenario::QpSeries& q : t.qps) {
      const int64_t rate = q.rate_bps[s];
      const int64_t window = q.window_bytes[s];
      if (rate == INT64_MIN && window == INT64_MIN) continue;  // not open yet
      out += std::to_string(t.times_ps[s]) + ',' + std::to_string(q.qp) + ',' +
             std::to_string(q.src_nic) + ',' + std::to_string(q.dst_nic) + ',' + q.cc + ',';
      if (rate >= 0) out += std::to_string(rate);
      out += ',';
      if (window >= 0) out += std::to_string(window);
      out += '\n';
    }
  }
  return out;
}

}  // namespace fabricsim::output
