#include "engine/packet/steady_window.h"

#include <algorithm>
#include <limits>

namespace fabricsim::scenario {

SteadyWindow::SteadyWindow(const transport::Transport& transport, Scheduler& sched,
                           int64_t line_rate_bps, uint64_t flows)
    : transport_(transport), sched_(sched), line_rate_bps_(line_rate_bps), flows_(flows) {}

SteadyWindow::Snapshot SteadyWindow::take() const {
  Snapshot s{sched_.now(), {}};
  const uint32_t n = transport_.num_messages();
  s.placed.resize(n);
  for (uint32_t i = 0; i < n; ++i) s.placed[i] = transport_.message(i).placed_bytes;
  return s;
}

void SteadyWindow::start() { sched_.at(sched_.now(), kWindowSample, 0); }

void SteadyWindow::on_sample() {
  if (closed_) return;
  if (static_cast<int>(snaps_.size()) == kMaxSnapshots) {
    // Keep the even ones: the spacing doubles, and so does the interval from now on.
    std::vector<Snapshot> kept;
    kept.reserve(kMaxSnapshots);
    for (size_t i = 0; i < snaps_.size(); i += 2) kept.push_back(std::move(snaps_[i]));
    snaps_ = std::move(kept);
    interval_ps_ *= 2;
  }
  snaps_.push_back(take());
  sched_.at(sched_.now() + interval_ps_, kWindowSample, 0);
}

void SteadyWindow::on_completion() {
  if (closed_) return;
  closed_ = true;
  end_ = take();
}

SteadyWindowResult SteadyWindow::result() const {
  SteadyWindowResult r;
  if (!closed_) {
    r.why_not = "no flow completed";
    return r;
  }
  const uint32_t n = static_cast<uint32_t>(end_.placed.size());
  if (n < flows_) {
    r.why_not = "a flow started after the first one completed";
    return r;
  }
  int64_t last_start_ps = 0;
  for (uint32_t i = 0; i < n; ++i) {
    last_start_ps = std::max(last_start_ps, transport_.message(i).post_ps);
  }
  const int64_t want_ps = last_start_ps + (end_.time_ps - last_start_ps) / 2;
  // The first snapshot at or after the wanted start that every flow had been posted by.
  const Snapshot* begin = nullptr;
  for (const Snapshot& s : snaps_) {
    if (s.time_ps >= want_ps && s.time_ps < end_.time_ps && s.placed.size() == n) {
      begin = &s;
      break;
    }
  }
  if (begin == nullptr) {
    r.why_not = "no sample between the last flow's start and the first completion";
    return r;
  }
  r.measured = true;
  r.start_ps = begin->time_ps;
  r.end_ps = end_.time_ps;
  r.flows = static_cast<int>(n);
  const double seconds = static_cast<double>(r.end_ps - r.start_ps) * 1e-12;
  double sum = 0;
  r.min_goodput_bps = std::numeric_limits<double>::max();
  for (uint32_t i = 0; i < n; ++i) {
    const double bps = static_cast<double>(end_.placed[i] - begin->placed[i]) * 8.0 / seconds;
    sum += bps;
    r.min_goodput_bps = std::min(r.min_goodput_bps, bps);
    r.max_goodput_bps = std::max(r.max_goodput_bps, bps);
  }
  r.mean_goodput_bps = n == 0 ? 0 : sum / n;
  if (n == 0) r.min_goodput_bps = 0;
  r.mean_fraction = r.mean_goodput_bps / static_cast<double>(line_rate_bps_);
  r.min_fraction = r.min_goodput_bps / static_cast<double>(line_rate_bps_);
  return r;
}

}  // namespace fabricsim::scenario
