// report.html in headless Chromium (issue 13): on a run and on a compare (and a sweep), the page
// renders with no console errors, each chart's SVG has data marks (the page's driver writes
// data-marks on each chart after view.runAsync(); tests/output/report_test.cpp checks the file
// itself), and a screenshot is not blank. Skipped only when no chromium is installed
// (scripts/install-deps installs it).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <regex>
#include <string>

#include "../support/cli_runner.h"
#include "../support/report_fixtures.h"
#include "png_check.h"

namespace fabricsim {
namespace report_browser_test {

namespace fs = std::filesystem;
using test_support::CliOutcome;
using test_support::read_file;
using test_support::run_fabricsim;
using test_support::run_shell;
using test_support::ScratchDir;
using test_support::shell_quote;

const fs::path kSourceDir = FABRICSIM_SOURCE_DIR;

std::string chromium() {
  for (const char* name : {"chromium", "chromium-browser", "google-chrome"}) {
    if (std::system(("command -v " + std::string(name) + " >/dev/null 2>&1").c_str()) == 0)
      return name;
  }
  return "";
}

class ReportBrowserTest : public ::testing::Test {
 protected:
  void SetUp() override {
    browser_ = chromium();
    if (browser_.empty()) GTEST_SKIP() << "chromium is not installed (scripts/install-deps)";
  }

  // Chromium on `html` with a fresh profile in `work`: `action` is --dump-dom or
  // --screenshot=FILE. Virtual time lets the page's async rendering finish before the dump.
  CliOutcome chromium_on(const fs::path& html, const fs::path& work, const std::string& action) {
    const std::string command =
        browser_ + " --headless=new --no-sandbox --disable-gpu --enable-logging=stderr --v=0 " +
        "--no-first-run --user-data-dir=" + shell_quote((work / "profile").string()) +
        " --virtual-time-budget=10000 --window-size=1200,3000 " + action + " " +
        shell_quote("file://" + fs::absolute(html).string());
    return run_shell("timeout 60 " + command, work);
  }

  // Renders `html`, checks the DOM and a screenshot; returns the number of charts.
  size_t expect_renders(const fs::path& html, const fs::path& work) {
    const CliOutcome dom = chromium_on(html, work, "--dump-dom");
    EXPECT_EQ(dom.exit_code, 0) << dom.err;
    const std::string& d = dom.out;
    EXPECT_NE(d.find("data-fs-status=\"ok\""), std::string::npos)
        << "the driver did not finish cleanly; errors: "
        << std::regex_replace(d.substr(d.find("fs-errors"), 2000), std::regex("<[^>]*>"), " ");
    // The error box stays empty (and hidden).
    EXPECT_NE(d.find("<pre id=\"fs-errors\" hidden=\"\"></pre>"), std::string::npos);
    EXPECT_EQ(dom.err.find("Uncaught"), std::string::npos) << dom.err;
    // Every chart container has a positive mark count.
    const std::regex chart("<div class=\"chart\" id=\"(chart-[0-9]+)\"([^>]*)>");
    size_t charts = 0;
    for (auto it = std::sregex_iterator(d.begin(), d.end(), chart); it != std::sregex_iterator();
         ++it) {
      ++charts;
      std::smatch marks;
      const std::string attrs = (*it)[2];
      EXPECT_TRUE(std::regex_search(attrs, marks, std::regex("data-marks=\"([0-9]+)\"")))
          << (*it)[1] << " was not rendered";
      if (!marks.empty()) {
        EXPECT_GT(std::stoi(marks[1]), 0) << (*it)[1] << " has no marks";
      }
    }
    EXPECT_GT(charts, 0u);
    EXPECT_NE(d.find("<svg"), std::string::npos);

    const fs::path png = work / "shot.png";
    const CliOutcome shot = chromium_on(html, work, "--screenshot=" + shell_quote(png.string()));
    EXPECT_EQ(shot.exit_code, 0) << shot.err;
    EXPECT_TRUE(fs::exists(png)) << shot.err;
    if (fs::exists(png)) {
      const test_support::PngStats s = test_support::png_stats(read_file(png));
      EXPECT_EQ(s.width, 1200u);
      EXPECT_EQ(s.height, 3000u);
      // Charts, axes and text cover well over 1% of the page, in many colours (a blank page is
      // one colour; text alone on white is greys).
      EXPECT_GT(s.non_background_pixels, uint64_t{s.width} * s.height / 100);
      EXPECT_GT(s.distinct_colours, 16u);
    }
    return charts;
  }

  std::string browser_;
};

// A run: examples/report.yaml (incast, PFC + DCQCN, time series and trace), then `fabricsim
// report` on its directory. Any file the run did not write is filled in from a fixture in the
// agreed format (none, as the example asks for every output), so every chart kind is rendered.
TEST_F(ReportBrowserTest, RunReportRendersEveryChart) {
  ScratchDir work("report_browser_run");
  const fs::path out = work.path() / "run";
  const CliOutcome r =
      run_fabricsim("run " + shell_quote((kSourceDir / "examples" / "report.yaml").string()) +
                        " --out " + shell_quote(out.string()),
                    work.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_TRUE(fs::exists(out / "report.html")) << "outputs.report: html writes report.html";
  test_support::write_run_fixture(out);
  const CliOutcome again = run_fabricsim("report " + shell_quote(out.string()), work.path());
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(again.out, (out / "report.html").string() + " written\n");
  // Every chart kind of a run (docs/report.md): FCT CDF, slowdown by size and by class,
  // utilization and imbalance per tier, heatmap, queue, paused fraction, utilization over time,
  // per-QP rate, timeline.
  EXPECT_EQ(expect_renders(out / "report.html", work.path()), 11u);
}

// A compare: examples/ib-vs-roce.yaml (outputs.report: html), shrunk as tests/examples shrinks it.
TEST_F(ReportBrowserTest, CompareReportRenders) {
  ScratchDir work("report_browser_compare");
  const fs::path out = work.path() / "cmp";
  const CliOutcome r = run_fabricsim(
      "compare " + shell_quote((kSourceDir / "examples" / "ib-vs-roce.yaml").string()) +
          " --set hosts.count=32 --set workload.size=8MiB --out " + shell_quote(out.string()),
      work.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_TRUE(fs::exists(out / "report.html"));
  EXPECT_TRUE(fs::exists(out / "ib" / "report.html"));
  EXPECT_TRUE(fs::exists(out / "roce" / "report.html"));
  // Table (no chart), key metrics, FCT CDF (a collective's flows), utilization per tier.
  EXPECT_EQ(expect_renders(out / "report.html", work.path()), 3u);
}

TEST_F(ReportBrowserTest, SweepReportRenders) {
  ScratchDir work("report_browser_sweep");
  test_support::write_sweep_fixture(work.path() / "sweep");
  const CliOutcome r =
      run_fabricsim("report " + shell_quote((work.path() / "sweep").string()), work.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(expect_renders(work.path() / "sweep" / "report.html", work.path()), 4u);
}

}  // namespace report_browser_test
}  // namespace fabricsim
