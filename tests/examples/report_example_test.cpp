// The issue-13 report examples (docs/report.md): examples/report.yaml (an incast with PFC and
// DCQCN whose run writes report.html with time series and a trace) and examples/ib-vs-roce.yaml
// (its compare writes a comparison report and one per fabric). Chromium renders these pages in
// tests/browser/; here: the files exist and hold the charts the run's files call for, and the
// charted figures agree with the run's own counters.
//
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "../support/cli_runner.h"

namespace fabricsim {
namespace report_example_test {

namespace fs = std::filesystem;
using nlohmann::json;
using test_support::CliOutcome;
using test_support::read_file;
using test_support::run_fabricsim;
using test_support::ScratchDir;
using test_support::shell_quote;

const fs::path kSourceDir = FABRICSIM_SOURCE_DIR;

json specs_of(const std::string& html) {
  const std::string open = "<script type=\"application/json\" id=\"fs-specs\">";
  const size_t begin = html.find(open);
  if (begin == std::string::npos) return json::array();
  const size_t end = html.find("</script>", begin);
  return json::parse(html.substr(begin + open.size(), end - begin - open.size()));
}

TEST(ReportExample, IncastReportHasItsTimeSeriesAndTimeline) {
  ScratchDir work("report_example");
  const fs::path out = work.path() / "out";
  const CliOutcome r =
      run_fabricsim("run " + shell_quote((kSourceDir / "examples" / "report.yaml").string()) +
                        " --out " + shell_quote(out.string()),
                    work.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_TRUE(fs::exists(out / "report.html"));
  const std::string html = read_file(out / "report.html");
  for (const char* absent :
       {"timeseries_ports.csv is absent", "timeseries_qps.csv is absent",
        "trace.json and nccl-tests.csv are absent", "links.csv is absent", "flows.csv is absent"}) {
    EXPECT_EQ(html.find(absent), std::string::npos) << absent;
  }
  for (const char* chart : {"<h3>Queue depth of the top ports</h3>", "<h3>Per-QP rate</h3>",
                            "<h3>Timeline</h3>", "<h3>Link utilization heatmap</h3>"}) {
    EXPECT_NE(html.find(chart), std::string::npos) << chart;
  }
  // The run paused (PFC) and marked (DCQCN): its summary counters, which the queue chart must
  // reflect with a non-empty queue somewhere.
  const json result = json::parse(read_file(out / "result.json"));
  EXPECT_GT(result["counters"]["pause_frames"].get<int64_t>(), 0);
  EXPECT_GT(result["counters"]["cnps"].get<int64_t>(), 0);
  double peak_queue_kb = 0;
  const std::string queue_title = "<h3>Queue depth of the top ports</h3>";
  const size_t at = html.find(queue_title);
  ASSERT_NE(at, std::string::npos);
  const size_t div = html.find("id=\"chart-", at);
  const size_t index = std::stoul(html.substr(div + 10));
  const json specs = specs_of(html);  // held: a range-for over a temporary's member dangles
  ASSERT_LT(index, specs.size());
  for (const json& row : specs[index]["spec"]["data"][0]["values"]) {
    peak_queue_kb = std::max(peak_queue_kb, row["y"].get<double>());
  }
  EXPECT_GT(peak_queue_kb, 0.0) << "an incast into one port queues";
}

TEST(ReportExample, IbVsRoceCompareWritesReports) {
  ScratchDir work("report_example_compare");
  const fs::path out = work.path() / "out";
  // Shrunk as tests/examples/examples_test.cpp shrinks it.
  const CliOutcome r = run_fabricsim(
      "compare " + shell_quote((kSourceDir / "examples" / "ib-vs-roce.yaml").string()) +
          " --set hosts.count=32 --set workload.size=8MiB --out " + shell_quote(out.string()),
      work.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const fs::path& f :
       {out / "report.html", out / "ib" / "report.html", out / "roce" / "report.html"}) {
    ASSERT_TRUE(fs::exists(f)) << f;
  }
  const std::string html = read_file(out / "report.html");
  EXPECT_EQ(html.find("Not drawn"), std::string::npos) << "every comparison block is drawn";
  // The overlaid CDF has both fabrics, each with every flow compare.csv says completed.
  const auto rows = test_support::parse_csv(read_file(out / "compare.csv"));
  ASSERT_EQ(rows.size(), 3u);
  const json specs = specs_of(html);
  size_t ib = 0, roce = 0;
  for (const json& c : specs) {
    for (const json& row : c["spec"]["data"][0]["values"]) {
      if (!row.contains("series") || !row.contains("x") || !row.contains("y")) continue;
      (row["series"] == "ib" ? ib : roce)++;
    }
  }
  EXPECT_EQ(ib, std::stoul(rows[1][2]));
  EXPECT_EQ(roce, std::stoul(rows[2][2]));
}

}  // namespace report_example_test
}  // namespace fabricsim
