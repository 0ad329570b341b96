#include "output/progress.h"

#include <unistd.h>

#include <algorithm>
#include <string>

namespace fabricsim::output {
namespace {

constexpr int kBarWidth = 40;
constexpr auto kRedrawInterval = std::chrono::milliseconds(100);

}  // namespace

ProgressBar::ProgressBar() : ProgressBar(isatty(STDERR_FILENO) != 0, stderr) {}

ProgressBar::ProgressBar(bool enabled, std::FILE* stream)
    : enabled_(enabled),
      stream_(stream),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_ - kRedrawInterval) {}

ProgressBar::~ProgressBar() { finish(); }

void ProgressBar::update(double fraction) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - last_draw_ < kRedrawInterval && fraction < 1.0) return;
  last_draw_ = now;
  draw(std::clamp(fraction, 0.0, 1.0));
}

void ProgressBar::draw(double fraction) {
  const int filled = static_cast<int>(fraction * kBarWidth);
  const double elapsed_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const std::string bar = std::string(filled, '#') + std::string(kBarWidth - filled, '.');
  std::fprintf(stream_, "\r[%s] %5.1f%%  %.1f s", bar.c_str(), fraction * 100, elapsed_s);
  std::fflush(stream_);
  drawn_ = true;
}

void ProgressBar::finish() {
  if (!drawn_) return;
  // Overwrite the bar with spaces, then return to the start of the line.
  std::fprintf(stream_, "\r%*s\r", kBarWidth + 20, "");
  std::fflush(stream_);
  drawn_ = false;
}

std::function<void(double)> ProgressBar::callback() {
  return [this](double fraction) { update(fraction); };
}

}  // namespace fabricsim::output
