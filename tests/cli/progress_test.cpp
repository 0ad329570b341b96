// The progress line (cli/progress.h): what it shows, computed from a clock the test controls,
// drawn only when enabled, throttled to 10 redraws per second, erased at the end.
#include "cli/progress.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <string>

namespace fabricsim::cli {
namespace progress_test {

using std::chrono::milliseconds;
using Time = std::chrono::steady_clock::time_point;

std::string contents(std::FILE* f) {
  std::rewind(f);
  std::string text;
  for (int c; (c = std::fgetc(f)) != EOF;) text += static_cast<char>(c);
  return text;
}

// The text after the last carriage return: what the terminal shows.
std::string shown(const std::string& text) {
  const size_t cr = text.rfind('\r');
  return cr == std::string::npos ? text : text.substr(cr + 1);
}

// 40% of the work in 4 s of wall time: 0.4 / 4 s = 10% per second, so 60% left takes 6 s.
// 49,382,712 events / 4 s = 12,345,678 events/s, shown with 4 significant digits.
constexpr int64_t kSimPs = 1'234'000'000;  // 1.234 ms
constexpr int64_t kEvents = 49'382'712;
constexpr const char* kLine =
    "[roce 2/2] [########............]  40.0%  sim 1.234 ms  12.35 M ev/s  0:04 elapsed, ETA 0:06";

TEST(ProgressLine, ShowsRunPercentSimTimeRateAndEta) {
  EXPECT_EQ(format_progress_line({"roce 2/2", 0.4, kSimPs, kEvents, 4.0}), kLine);
  EXPECT_EQ(format_progress_line({"", 1.0, kSimPs, 1000, 2.0}),
            "[####################] 100.0%  sim 1.234 ms  500 ev/s  0:02 elapsed, ETA 0:00")
      << "no label outside compare; done = ETA 0";
  EXPECT_EQ(format_progress_line({"", 0.0, 0, 0, 0.0}),
            "[....................]   0.0%  sim 0 ps  - ev/s  0:00 elapsed, ETA --:--")
      << "nothing to extrapolate from yet";
}

TEST(ProgressLine, FitsANarrowTerminal) {
  const std::string narrow = format_progress_line({"roce 2/2", 0.4, kSimPs, kEvents, 4.0}, 80);
  EXPECT_EQ(narrow, "[roce 2/2] 40.0%  sim 1.234 ms  12.35 M ev/s  0:04 elapsed, ETA 0:06")
      << "the bar goes first";
  EXPECT_EQ(format_progress_line({"roce 2/2", 0.4, kSimPs, kEvents, 4.0}, 60),
            "[roce 2/2] 40.0%  sim 1.234 ms  12.35 M ev/s  ETA 0:06")
      << "then the elapsed time";
  EXPECT_EQ(format_progress_line({"roce 2/2", 0.4, kSimPs, kEvents, 4.0}, 40),
            "[roce 2/2] 40.0%  sim 1.234 ms  ETA 0:06")
      << "then the rate";
  EXPECT_EQ(format_progress_line({"roce 2/2", 0.4, kSimPs, kEvents, 4.0}, 30),
            "[roce 2/2] 40.0%  ETA 0:06")
      << "the run, its percentage and ETA last";
  EXPECT_EQ(format_progress_line({"roce 2/2", 0.4, kSimPs, kEvents, 4.0}, 20).size(), 20u)
      << "then the line is cut";
  EXPECT_EQ(format_progress_line({"roce 2/2", 0.4, kSimPs, kEvents, 4.0}, 200), kLine)
      << "a wide terminal gets everything";
}

TEST(ProgressLine, ClockFormat) {
  EXPECT_EQ(format_clock(0), "0:00");
  EXPECT_EQ(format_clock(59.6), "1:00") << "rounded to the second";
  EXPECT_EQ(format_clock(754), "12:34");
  EXPECT_EQ(format_clock(3725), "1:02:05");
  EXPECT_EQ(format_clock(-1), "--:--") << "unknown";
  EXPECT_EQ(format_clock(1e9), "--:--") << "beyond 99:59:59 is no estimate";
}

TEST(ProgressBar, UsesItsClockAndThrottles) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr) << "need a temporary file";
  Time now{};
  {
    ProgressBar bar(true, f, [&now] { return now; });
    now += milliseconds(500);  // before the run begins: not counted
    bar.begin_run("roce", 2, 2);
    bar.callback()({0.0, 0, 0});
    EXPECT_EQ(shown(contents(f)),
              "[roce 2/2] [....................]   0.0%  sim 0 ps  - ev/s  0:00 elapsed, ETA --:--")
        << "the first update draws at once";
    now += milliseconds(50);
    bar.update({0.2, kSimPs / 2, kEvents / 2});
    EXPECT_NE(shown(contents(f)).find("  0.0%"), std::string::npos)
        << "50 ms later: not redrawn (at most every 100 ms)";
    now += milliseconds(3950);
    bar.update({0.4, kSimPs, kEvents});
    EXPECT_EQ(shown(contents(f)), kLine) << "4 s after begin_run";
    now += milliseconds(10);
    bar.update({1.0, kSimPs, kEvents});
    EXPECT_NE(shown(contents(f)).find("100.0%"), std::string::npos) << "completion always draws";
  }
  const std::string text = contents(f);
  EXPECT_EQ(text.back(), '\r') << "finishing returns to the start of a blanked line";
  const std::string blank = text.substr(text.rfind('\r', text.size() - 2) + 1);
  EXPECT_EQ(blank, std::string(std::string(kLine).size(), ' ') + "\r")
      << "the blank covers the widest line drawn";
  std::fclose(f);
}

TEST(ProgressBar, DisabledWritesNothing) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr) << "need a temporary file";
  {
    ProgressBar bar(false, f);
    bar.update({0.5, 1, 1});
    bar.finish();
  }
  EXPECT_EQ(contents(f), "") << "a disabled bar (stderr not a terminal) stays silent";
  std::fclose(f);
}

}  // namespace progress_test
}  // namespace fabricsim::cli
