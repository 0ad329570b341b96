#include "cli/progress.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "core/units.h"

namespace fabricsim::cli {
namespace {

constexpr int kBarWidth = 20;
constexpr auto kRedrawInterval = std::chrono::milliseconds(100);


// Columns of the terminal behind `stream`, 0 when unknown.
int terminal_columns(std::FILE* stream) {
  winsize ws{};
  if (ioctl(fileno(stream), TIOCGWINSZ, &ws) != 0) return 0;
  return ws.ws_col;
}

}  // namespace

std::string format_clock(double seconds) {
  if (!(seconds >= 0) || seconds > 359999) return "--:--";  // unknown, or beyond 99:59:59
  const auto s = static_cast<int64_t>(std::llround(seconds));
  char buf[32];
  if (s >= 3600) {
    std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", static_cast<long long>(s / 3600),
                  static_cast<long long>(s / 60 % 60), static_cast<long long>(s % 60));
  } else {
    std::snprintf(buf, sizeof buf, "%lld:%02lld", static_cast<long long>(s / 60),
                  static_cast<long long>(s % 60));
  }
  return buf;
}

std::string format_progress_line(const ProgressLine& p, int max_columns) {
  const double fraction = std::clamp(p.fraction, 0.0, 1.0);
  const int filled = static_cast<int>(fraction * kBarWidth);
  std::string rate = "-";
  if (p.elapsed_s > 0) rate = format_count(static_cast<double>(p.events) / p.elapsed_s);
  // The rate so far, held: the time left is the time spent per unit of work times what is left.
  const double eta_s = fraction > 0 ? p.elapsed_s * (1 - fraction) / fraction : -1;
  char percent[16];
  std::snprintf(percent, sizeof percent, "%5.1f%%", fraction * 100);  // fixed width: no jitter

  const std::string label = p.run_label.empty() ? "" : "[" + p.run_label + "] ";
  const std::string bar =
      "[" + std::string(filled, '#') + std::string(kBarWidth - filled, '.') + "] ";
  const std::string sim = "  sim " + format_time(p.sim_time_ps);
  const std::string speed = "  " + rate + " ev/s";
  const std::string elapsed = "  " + format_clock(p.elapsed_s) + " elapsed,";
  const std::string eta = " ETA " + format_clock(eta_s);
  std::string line = label + bar + percent + sim + speed + elapsed + eta;
  if (max_columns <= 0) return line;
  // Too wide for the terminal: drop the bar, then the elapsed time, the rate and the simulated
  // time, keeping the run, the percentage and the ETA to the last; then cut.
  const std::string pct = format_fixed(fraction * 100, 1) + "%";
  const std::string eta_alone = "  ETA " + format_clock(eta_s);
  for (const std::string& shorter :
       {line, label + pct + sim + speed + elapsed + eta, label + pct + sim + speed + eta_alone,
        label + pct + sim + eta_alone, label + pct + eta_alone}) {
    if (static_cast<int>(shorter.size()) <= max_columns) return shorter;
  }
  line = label + pct + eta_alone;
  line.resize(std::min(line.size(), static_cast<size_t>(max_columns)));
  return line;
}

ProgressBar::ProgressBar() : ProgressBar(isatty(STDERR_FILENO) != 0, stderr) {
  tty_width_ = enabled_;
}

ProgressBar::ProgressBar(bool enabled, std::FILE* stream, Clock clock)
    : enabled_(enabled),
      stream_(stream),
      clock_(std::move(clock)),
      tty_width_(false),
      start_(clock_()),
      last_draw_(start_) {}

ProgressBar::~ProgressBar() { finish(); }

void ProgressBar::begin_run(const std::string& name, int index, int count) {
  label_ = name + " " + std::to_string(index) + "/" + std::to_string(count);
  start_ = clock_();
  drew_once_ = false;
}

void ProgressBar::update(const scenario::ProgressSample& sample) {
  if (!enabled_) return;
  const auto now = clock_();
  if (drew_once_ && now - last_draw_ < kRedrawInterval && sample.fraction < 1.0) return;
  last_draw_ = now;
  drew_once_ = true;
  draw(ProgressLine{label_, sample.fraction, sample.sim_time_ps, sample.events,
                    std::chrono::duration<double>(now - start_).count()});
}

void ProgressBar::draw(const ProgressLine& line) {
  // One column less than the terminal: writing into the last column makes some terminals wrap.
  const int columns = tty_width_ ? terminal_columns(stream_) - 1 : 0;
  const std::string text = format_progress_line(line, std::max(columns, 0));
  // Pad over what a longer previous line left on screen.
  const size_t pad = drawn_columns_ > text.size() ? drawn_columns_ - text.size() : 0;
  std::fprintf(stream_, "\r%s%*s", text.c_str(), static_cast<int>(pad), "");
  std::fflush(stream_);
  drawn_columns_ = std::max(text.size(), drawn_columns_);
}

void ProgressBar::finish() {
  if (drawn_columns_ == 0) return;
  // Overwrite the line with spaces, then return to the start of the line.
  std::fprintf(stream_, "\r%*s\r", static_cast<int>(drawn_columns_), "");
  std::fflush(stream_);
  drawn_columns_ = 0;
}

scenario::ProgressFn ProgressBar::callback() {
  return [this](const scenario::ProgressSample& s) { update(s); };
}

}  // namespace fabricsim::cli
