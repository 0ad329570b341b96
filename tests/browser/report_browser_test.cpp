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
  CliOutcome chromium_on(const fs::path& html, const fs::path& work, const std::string& action,
                         uint32_t width = 1200) {
    const std::string command =
        browser_ + " --headless=new --no-sandbox --disable-gpu --enable-logging=stderr --v=0 " +
        "--no-first-run --user-data-dir=" + shell_quote((work / "profile").string()) +
        " --virtual-time-budget=10000 --window-size=" + std::to_string(width) + ",3000 " +
        action + " " +
        shell_quote("file://" + fs::absolute(html).string());
    return run_shell("timeout 60 " + command, work);
  }

  // Renders `html` `width` px wide, checks the DOM and a screenshot; returns the number of
  // charts. The DOM is kept in dom_, the screenshot in shot_.
  size_t expect_renders(const fs::path& html, const fs::path& work, uint32_t width = 1200) {
    const CliOutcome dom = chromium_on(html, work, "--dump-dom", width);
    dom_ = dom.out;
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
    const CliOutcome shot =
        chromium_on(html, work, "--screenshot=" + shell_quote(png.string()), width);
    EXPECT_EQ(shot.exit_code, 0) << shot.err;
    EXPECT_TRUE(fs::exists(png)) << shot.err;
    if (fs::exists(png)) {
      shot_ = read_file(png);
      const test_support::PngStats s = test_support::png_stats(shot_);
      EXPECT_EQ(s.width, width);
      EXPECT_EQ(s.height, 3000u);
      // Charts, axes and text cover well over 1% of the page, in many colours (a blank page is
      // one colour; text alone on white is greys).
      EXPECT_GT(s.non_background_pixels, uint64_t{s.width} * s.height / 100);
      EXPECT_GT(s.distinct_colours, 16u);
    }
    return charts;
  }

  std::string browser_;
  std::string dom_;
  std::string shot_;
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

// A training compare (issue 23): examples/gpt-step.yaml shrunk to 2 layers and 2 micro-batches,
// on IB and RoCE, at 1400 px as a reader's laptop shows it. The page opens with the step section
// (stacked breakdown with the ideal network, network-attributable time, collectives against
// NCCL's model, the timeline of one rank per stage, utilization per tier and rail), and the
// flow-level charts come after under their NCCL-chunk heading; the step's charts are drawn
// (marks, no Vega error), and the top of the screenshot, where the step section is, is not blank.
TEST_F(ReportBrowserTest, TrainingCompareReportShowsTheStepFirst) {
  ScratchDir work("report_browser_training");
  const fs::path out = work.path() / "cmp";
  const CliOutcome r = run_fabricsim(
      "compare " + shell_quote((kSourceDir / "examples" / "gpt-step.yaml").string()) +
          " --fabrics ib,roce --set training.layers=2 --set training.micro_batches=2 --out " +
          shell_quote(out.string()),
      work.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const CliOutcome rep = run_fabricsim("report " + shell_quote(out.string()), work.path());
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  // Stacked step, collectives, two timelines, tier and rail utilization; key metrics; FCT CDF.
  EXPECT_EQ(expect_renders(out / "report.html", work.path(), 1400), 8u);
  const size_t step = dom_.find("<h2>Step</h2>");
  ASSERT_NE(step, std::string::npos);
  EXPECT_EQ(dom_.find("<h2>"), step) << "the step is the first section";
  EXPECT_LT(step, dom_.find("<h2>Flow level: NCCL chunk messages</h2>"));
  // The step's first chart has its bars: 2 fabrics + the ideal network, at least compute and
  // exposed TP each.
  const std::regex first_chart("<h3>Where the step goes</h3>[^]*?<div class=\"chart\" id=\"chart-0\"[^>]*data-marks=\"([0-9]+)\"");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(dom_, m, first_chart)) << "the stacked step chart is chart-0";
  EXPECT_GE(std::stoi(m[1]), 6);
  ASSERT_FALSE(shot_.empty());
  // The first 1,200 rows hold the step section's first charts and tables: well covered, in
  // the charts' colours.
  const test_support::PngStats top = test_support::png_stats(shot_, 0, 1200);
  EXPECT_GT(top.non_background_pixels, uint64_t{1400} * 1200 / 20);
  EXPECT_GT(top.distinct_colours, 16u);
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
