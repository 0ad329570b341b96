#include "engine/packet/telemetry.h"

#include <algorithm>
#include <numeric>
#include <unordered_map>

#include "core/error.h"
#include "engine/packet/link_load.h"

namespace fabricsim::scenario {

Telemetry::Telemetry(const TimeseriesSpec& spec, const net::Network& net,
                     const transport::Transport& transport, Scheduler& sched)
    : spec_(spec), net_(net), transport_(transport), sched_(sched) {
  listed_ports_ = !spec_.ports.empty();
  if (listed_ports_) {
    std::unordered_map<std::string, uint32_t> by_label;
    by_label.reserve(net.num_ports());
    for (uint32_t p = 0; p < net.num_ports(); ++p) by_label.emplace(port_label(net, p), p);
    for (const std::string& label : spec_.ports) {
      const auto it = by_label.find(label);
      if (it == by_label.end()) {
        throw InputError("outputs.timeseries.ports",
                         "no port '" + label + "' in this fabric (ports are named "
                         "<from>:<local port>-><to>, e.g. '" + port_label(net, 0) +
                         "'; links.csv lists them)");
      }
      if (std::find(ports_.begin(), ports_.end(), it->second) != ports_.end()) {
        throw InputError("outputs.timeseries.ports", "port '" + label + "' is listed twice");
      }
      ports_.push_back(it->second);
    }
  } else if (spec_.top > 0) {
    ports_.resize(net.num_ports());
    std::iota(ports_.begin(), ports_.end(), 0u);
  }
  last_tx_.assign(ports_.size(), 0);
  last_paused_.assign(ports_.size(), 0);
  listed_qps_ = !spec_.qps.empty();
  sample_qps_ = listed_qps_ || spec_.top_qps > 0;
}

int64_t Telemetry::paused_until_now(uint32_t port) const {
  const net::PortQueues& q = net_.queues(port);
  int64_t t = q.paused_ps;
  const uint8_t mask = net_.port(port).paused_mask;
  for (int c = 0; c < net::kPriorities; ++c) {
    if (mask & (1u << c)) t += sched_.now() - q.paused_since_ps[c];
  }
  return t;
}

void Telemetry::start() {
  start_ps_ = last_ps_ = sched_.now();
  for (size_t i = 0; i < ports_.size(); ++i) {
    last_tx_[i] = net_.port_tx_bytes(ports_[i]);
    last_paused_[i] = paused_until_now(ports_[i]);
  }
  sched_.at(sched_.now() + spec_.interval_ps, kTelemetrySample, 0);
}

void Telemetry::on_sample() {
  take(sched_.now());
  if (static_cast<int64_t>(times_.size()) + 1 >= spec_.max_samples) {
    truncated_ = true;  // the rest of the run is one last interval (finish); the summary says so
    return;
  }
  sched_.at(sched_.now() + spec_.interval_ps, kTelemetrySample, 0);
}

void Telemetry::finish(int64_t end_ps) {
  if (end_ps > last_ps_) take(end_ps);
}

void Telemetry::take(int64_t now_ps) {
  times_.push_back(now_ps);
  last_ps_ = now_ps;
  const bool ib = net_.infiniband();
  const int data_vls = ib ? net_.ib_config().data_vls : 0;
  for (size_t i = 0; i < ports_.size(); ++i) {
    const uint32_t p = ports_[i];
    const net::PortQueues& q = net_.queues(p);
    PortSample s;
    const int64_t tx = net_.port_tx_bytes(p);
    const int64_t paused = paused_until_now(p);
    s.tx_bytes = tx - last_tx_[i];
    s.paused_ps = paused - last_paused_[i];
    last_tx_[i] = tx;
    last_paused_[i] = paused;
    for (int c = 0; c < net::kPriorities; ++c) s.class_bytes[c] = q.cls[c].bytes;
    if (ib) {
      // Credits the far receiver has granted and this sender not yet used, per data VL (the
      // same difference credits_fit() tests; IBA 7.9.4 FCCL - FCTBS, in 64-byte blocks).
      int32_t credits = 0;
      for (int vl = 0; vl < data_vls; ++vl) {
        credits += static_cast<int32_t>(q.fc_limit_blocks[vl] - q.fc_sent_blocks[vl]);
      }
      s.credits_blocks = credits;
    }
    samples_.push_back(s);
  }
  if (!sample_qps_) return;
  scratch_.clear();
  transport_.sample_qps(scratch_, false);
  auto value = [](const transport::QpSample& s) {
    return s.rate_bps >= 0 ? s.rate_bps : s.window_bytes;
  };
  if (listed_qps_) {
    for (const int id : spec_.qps) {
      const size_t k = static_cast<size_t>(id);
      qp_values_.push_back(k < scratch_.size() ? value(scratch_[k]) : kNotOpen);
    }
    return;
  }
  qp_offsets_.push_back(qp_values_.size());
  for (const transport::QpSample& s : scratch_) qp_values_.push_back(value(s));
}

TelemetryResult Telemetry::result() const {
  TelemetryResult r;
  r.present = true;
  r.interval_ps = spec_.interval_ps;
  r.start_ps = start_ps_;
  r.times_ps = times_;
  r.truncated = truncated_;
  const size_t n = ports_.size();
  const size_t samples = times_.size();
  // Which sampled ports go out: all listed ones, else the top N by peak queue: the exact peak
  // the network counts per class queue (links.csv peak_queue_bytes), not only what the samples
  // happened to see.
  std::vector<size_t> chosen(n);
  std::iota(chosen.begin(), chosen.end(), size_t{0});
  if (!listed_ports_) {
    std::vector<int64_t> tx(n), peak(n, 0);
    for (size_t i = 0; i < n; ++i) {
      tx[i] = net_.port_tx_bytes(ports_[i]);
      for (const net::ClassQueue& c : net_.queues(ports_[i]).cls) {
        peak[i] = std::max<int64_t>(peak[i], c.peak_bytes);
      }
    }
    std::sort(chosen.begin(), chosen.end(), [&](size_t a, size_t b) {
      if (peak[a] != peak[b]) return peak[a] > peak[b];
      if (tx[a] != tx[b]) return tx[a] > tx[b];
      return ports_[a] < ports_[b];
    });
    chosen.resize(std::min(n, static_cast<size_t>(spec_.top)));
    std::sort(chosen.begin(), chosen.end());  // output in port order
  }
  for (const size_t i : chosen) {
    PortSeries ps;
    ps.port = ports_[i];
    ps.label = port_label(net_, ports_[i]);
    ps.rate_bps = net_.port(ports_[i]).rate_bps;
    ps.samples.reserve(samples);
    for (size_t s = 0; s < samples; ++s) ps.samples.push_back(samples_[s * n + i]);
    r.ports.push_back(std::move(ps));
  }
  if (!sample_qps_) return r;
  std::vector<transport::QpSample> final_state;
  transport_.sample_qps(final_state, true);
  auto series_of = [&](size_t id) {
    QpSeries q;
    q.qp = static_cast<uint32_t>(id);
    if (id < final_state.size()) {
      const transport::QpSample& f = final_state[id];
      q.src_nic = f.src_nic;
      q.dst_nic = f.dst_nic;
      q.cc = f.cc;
      q.sent_bytes = f.sent_bytes;
    }
    const bool rate = id < final_state.size() && final_state[id].rate_bps >= 0;
    q.rate_bps.assign(samples, kNotOpen);
    q.window_bytes.assign(samples, kNotOpen);
    return std::pair<QpSeries, bool>{std::move(q), rate};
  };
  auto put = [](std::pair<QpSeries, bool>& q, size_t s, int64_t v) {
    if (v == kNotOpen) return;
    (q.second ? q.first.rate_bps : q.first.window_bytes)[s] = v;
    (q.second ? q.first.window_bytes : q.first.rate_bps)[s] = -1;
  };
  if (listed_qps_) {
    const size_t m = spec_.qps.size();
    for (size_t j = 0; j < m; ++j) {
      if (static_cast<size_t>(spec_.qps[j]) >= final_state.size()) {
        r.qps_never_opened.push_back(spec_.qps[j]);
      }
      auto q = series_of(static_cast<size_t>(spec_.qps[j]));
      for (size_t s = 0; s < samples; ++s) put(q, s, qp_values_[s * m + j]);
      r.qps.push_back(std::move(q.first));
    }
    return r;
  }
  // top_qps: the connections that sent the most payload; ties by id.
  std::vector<size_t> ids(final_state.size());
  std::iota(ids.begin(), ids.end(), size_t{0});
  std::sort(ids.begin(), ids.end(), [&](size_t a, size_t b) {
    if (final_state[a].sent_bytes != final_state[b].sent_bytes) {
      return final_state[a].sent_bytes > final_state[b].sent_bytes;
    }
    return a < b;
  });
  ids.resize(std::min(ids.size(), static_cast<size_t>(spec_.top_qps)));
  std::sort(ids.begin(), ids.end());
  for (const size_t id : ids) {
    auto q = series_of(id);
    for (size_t s = 0; s < samples; ++s) {
      const uint64_t begin = qp_offsets_[s];
      const uint64_t end = s + 1 < samples ? qp_offsets_[s + 1] : qp_values_.size();
      if (begin + id < end) put(q, s, qp_values_[begin + id]);
    }
    r.qps.push_back(std::move(q.first));
  }
  return r;
}

}  // namespace fabricsim::scenario
