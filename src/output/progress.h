// A one-line progress bar on stderr, drawn only when stderr is a terminal so that logs, pipes
// and CI output stay free of carriage returns.
#pragma once

#include <chrono>
#include <cstdio>
#include <functional>

namespace fabricsim::output {

class ProgressBar {
 public:
  // Enabled iff stderr is a terminal (isatty(2)).
  ProgressBar();
  // For tests: draw on `stream` regardless of what it is, or never.
  ProgressBar(bool enabled, std::FILE* stream);
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  // `fraction` of the work is done (clamped to 0..1). Redraws at most every 100 ms of wall
  // time, so a simulator calling this per event stays cheap.
  void update(double fraction);
  // Erases the bar so the summary starts on a clean line. Idempotent.
  void finish();
  // A callback for scenario::RunOptions::progress; the bar must outlive the run.
  std::function<void(double)> callback();

 private:
  void draw(double fraction);

  bool enabled_;
  std::FILE* stream_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
};

}  // namespace fabricsim::output
