// A one-line progress display on stderr, drawn only when stderr is a terminal so that logs, pipes
// and CI output stay free of carriage returns:
//
//   [roce 2/2] [########............]  40.0%  sim 1.234 ms  12.35 M ev/s  0:03 elapsed, ETA 0:05
//
// The run label appears in `compare` (which fabric is running, of how many); the percentage is
// scenario::ProgressSample::fraction, the work done (DAG ops and collective bytes of a GPU run,
// bytes delivered of a flow pattern) against the work known before the run began, never the
// simulated time; events per second and the ETA are measured from the wall clock since the run
// began (ETA = elapsed x (1 - fraction) / fraction, the rate so far held).
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>

#include "engine/run_control.h"

namespace fabricsim::cli {

// One state of the line, everything format_progress_line needs.
struct ProgressLine {
  std::string run_label;    // "" or e.g. "roce 2/2"
  double fraction = 0;      // 0..1
  int64_t sim_time_ps = 0;  // simulated time reached
  int64_t events = 0;       // events so far in this run
  double elapsed_s = 0;     // wall time since this run began
};

// The line without carriage return or padding. `max_columns` > 0: a line wider than that drops
// the bar, then is cut to `max_columns` (a terminal wraps a longer one, and \r then redraws only
// its last row).
std::string format_progress_line(const ProgressLine& line, int max_columns = 0);
// Wall durations as a clock: "0:05", "12:34", "1:02:03"; "--:--" for an unknown one (< 0).
std::string format_clock(double seconds);

class ProgressBar {
 public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;

  // Enabled iff stderr is a terminal (isatty(2)); the line fits the terminal's width.
  ProgressBar();
  // For tests: draw on `stream` regardless of what it is, or never; `clock` replaces
  // steady_clock::now so that rates and ETAs are exact.
  ProgressBar(bool enabled, std::FILE* stream, Clock clock = &std::chrono::steady_clock::now);
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  // The updates that follow belong to run `index` of `count`, called `name` (shown as
  // "[name index/count]"); restarts the clock behind the rate and ETA. Without a call: no label.
  void begin_run(const std::string& name, int index, int count);
  // Redraws at most every 100 ms of wall time (and always at fraction 1).
  void update(const scenario::ProgressSample& sample);
  // Erases the line so the summary starts on a clean one. Idempotent.
  void finish();
  // A callback for scenario::RunOptions::progress; the bar must outlive the run.
  scenario::ProgressFn callback();

 private:
  void draw(const ProgressLine& line);

  bool enabled_;
  std::FILE* stream_;
  Clock clock_;
  bool tty_width_;  // fit the line to the terminal the stream is
  std::string label_;
  size_t drawn_columns_ = 0;  // width of the line on screen; 0 = nothing drawn
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
  bool drew_once_ = false;
};

}  // namespace fabricsim::cli
