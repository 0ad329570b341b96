// report.html of a training compare and a training run (issue 23 item 2): the page opens with
// the step, whose stacked bars add up to each run's step (and the ideal network's) as
// result.json gives them, whose busbw bars are result.json's, whose timeline draws one rank per
// pipeline stage; flow-level charts come after under a heading naming NCCL chunk messages; no
// table cell has more than four significant digits.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <string>

#include "../support/cli_runner.h"
#include "output/report/report.h"
#include "output/report/vega_bundle.h"

namespace fabricsim {
namespace report_step_test {

namespace fs = std::filesystem;
using nlohmann::json;
using test_support::CliOutcome;
using test_support::read_file;
using test_support::run_fabricsim;
using test_support::ScratchDir;
using test_support::shell_quote;

// Small: 2 hosts x 8 GPUs, TP 4 x PP 2 x DP 2, two layers; a compare of two fabrics takes
// seconds. pp 2 gives two stages (two timeline ranks) and a bubble.
constexpr const char* kTraining = R"(name: report-train
seed: 1
fabric:
  technology: roce
  link: {rate: 400Gbps, cable: 3m}
topology: {kind: rail, radix: 16}
hosts: {count: 2, nics_per_host: 8}
node: {gpus_per_node: 8}
workload: {kind: training}
training: {layers: 2, hidden: 512, heads: 8, seq_length: 256, micro_batches: 2, tp: 4, pp: 2,
           ideal_network: true}
)";

json specs_of(const std::string& html) {
  const std::string open = "<script type=\"application/json\" id=\"fs-specs\">";
  const size_t begin = html.find(open);
  EXPECT_NE(begin, std::string::npos);
  const size_t end = html.find("</script>", begin);
  return json::parse(html.substr(begin + open.size(), end - begin - open.size()));
}

// The chart right after <h3>title</h3>, or nullptr.
const json* chart_titled(const json& charts, const std::string& html, const std::string& title) {
  const size_t at = html.find("<h3>" + title + "</h3>");
  if (at == std::string::npos) return nullptr;
  const size_t div = html.find("<div class=\"chart\" id=\"chart-", at);
  const size_t next = html.find("<h3>", at + 4);
  if (div == std::string::npos || (next != std::string::npos && div > next)) return nullptr;
  return &charts[std::stoul(html.substr(div + 29))];
}

// Significant digits of the first number in a cell ("16.88 ms" -> 4, "0 ps" -> 1, "-" -> 0).
int significant_digits(const std::string& cell) {
  std::smatch m;
  if (!std::regex_search(cell, m, std::regex("[0-9][0-9,]*(\\.[0-9]+)?"))) return 0;
  std::string digits;
  for (char c : m.str()) {
    if (c >= '0' && c <= '9') digits += c;
  }
  // Leading zeros do not count; trailing zeros of an integer do not either ("37750" is
  // 3775 rounded to four digits).
  digits.erase(0, std::min(digits.find_first_not_of('0'), digits.size()));
  if (m.str().find('.') == std::string::npos) {
    while (!digits.empty() && digits.back() == '0') digits.pop_back();
  }
  return static_cast<int>(std::max<size_t>(digits.size(), 1));
}

// Every numeric cell of every table on the page.
std::vector<std::string> number_cells(const std::string& html) {
  std::vector<std::string> cells;
  const std::regex cell("<td class=\"num\">([^<]*)</td>");
  for (auto it = std::sregex_iterator(html.begin(), html.end(), cell); it != std::sregex_iterator();
       ++it) {
    cells.push_back((*it)[1]);
  }
  return cells;
}

// A chart value is `ps` within a millionth; the chart is in ms when its longest bar
// (`longest_ps`) reaches 1 ms, else in us.
bool same_time(double chart_value, double ps, double longest_ps) {
  const double unit = longest_ps >= 1e9 ? 1e-9 : 1e-6;
  return std::fabs(chart_value / unit - ps) <= 1e-6 * ps;
}

// Sums of a stacked chart's values per bar.
std::map<std::string, double> bar_sums(const json& chart) {
  std::map<std::string, double> sums;
  for (const json& row : chart["spec"]["data"][0]["values"]) {
    sums[row["category"].get<std::string>()] += row["value"].get<double>();
  }
  return sums;
}

class ReportStepTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!output::vega_available()) GTEST_SKIP() << "built without libjs-vega";
  }
};

TEST_F(ReportStepTest, TrainingCompareOpensWithTheStep) {
  ScratchDir work("report_step_compare");
  const fs::path file = work.path() / "train.yaml";
  std::ofstream(file) << kTraining;
  const fs::path out = work.path() / "cmp";
  const CliOutcome r = run_fabricsim("compare " + shell_quote(file.string()) +
                                         " --fabrics ib,roce --out " + shell_quote(out.string()),
                                     work.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string html = output::report_html(out);
  const json charts = specs_of(html);

  // Section order: the step, the comparison, then the flow-level charts named for what they are.
  const size_t step = html.find("<h2>Step</h2>");
  const size_t comparison = html.find("<h2>Comparison</h2>");
  const size_t flows = html.find("<h2>Flow level: NCCL chunk messages</h2>");
  ASSERT_NE(step, std::string::npos);
  ASSERT_NE(comparison, std::string::npos);
  ASSERT_NE(flows, std::string::npos);
  EXPECT_LT(step, comparison);
  EXPECT_LT(comparison, flows);
  EXPECT_EQ(html.find("<h2>"), step) << "the step is the first section";
  EXPECT_LT(step, html.find("<h3>FCT CDF</h3>"));
  EXPECT_GT(html.find("<h3>FCT CDF</h3>"), flows);

  // Stacked bars: each fabric's parts add up to its step, the ideal network's to its step.
  const json* bars = chart_titled(charts, html, "Where the step goes");
  ASSERT_NE(bars, nullptr);
  const std::map<std::string, double> sums = bar_sums(*bars);
  std::set<int64_t> ideal_steps;
  double longest_ps = 0;
  for (const char* fabric : {"ib", "roce"}) {
    const json result = json::parse(read_file(out / fabric / "result.json"));
    longest_ps = std::max(longest_ps,
                          result.at("jobs").at(0).at("training").at("step_time_ps").get<double>());
  }
  for (const char* fabric : {"ib", "roce"}) {
    SCOPED_TRACE(fabric);
    const json result = json::parse(read_file(out / fabric / "result.json"));
    const json& t = result.at("jobs").at(0).at("training");
    const double step_ps = t.at("step_time_ps").get<double>();
    ASSERT_TRUE(sums.count(fabric));
    EXPECT_TRUE(same_time(sums.at(fabric), step_ps, longest_ps))
        << sums.at(fabric) << " against " << step_ps;
    ideal_steps.insert(t.at("ideal_network").at("step_time_ps").get<int64_t>());
    // The busbw bars are result.json's figures.
    const json* busbw = chart_titled(charts, html, "Collectives against NCCL's model");
    ASSERT_NE(busbw, nullptr);
    double measured = 0;
    for (const json& c : t.at("collectives")) measured += c.at("busbw_gbytes_per_s").get<double>();
    double drawn = 0;
    for (const json& row : (*busbw)["spec"]["data"][0]["values"]) {
      if (row["group"] == fabric) drawn += row["value"].get<double>();
    }
    EXPECT_NEAR(drawn, measured, 1e-9 * measured);
    // The timeline file: one rank per stage, every stage of the breakdown.
    const auto timeline = test_support::parse_csv(read_file(out / fabric / "step_timeline.csv"));
    std::set<std::string> stages;
    for (size_t i = 1; i < timeline.size(); ++i) stages.insert(timeline[i].at(1));
    EXPECT_EQ(stages.size(), t.at("stages").size());
    EXPECT_EQ(stages.size(), 2u) << "pp 2";
  }
  ASSERT_EQ(ideal_steps.size(), 1u) << "the ideal network does not depend on the switches";
  ASSERT_TRUE(sums.count("ideal network"));
  const double ideal_ps = static_cast<double>(*ideal_steps.begin());
  EXPECT_TRUE(same_time(sums.at("ideal network"), ideal_ps, longest_ps))
      << sums.at("ideal network") << " against " << ideal_ps << " ps";

  // A timeline per fabric, with two stages x (compute, comm) lanes.
  const json* timeline = chart_titled(charts, html, "Timeline of one rank per pipeline stage: ib");
  ASSERT_NE(timeline, nullptr);
  std::set<std::string> lanes;
  for (const json& row : (*timeline)["spec"]["data"][0]["values"]) lanes.insert(row["lane"]);
  EXPECT_EQ(lanes.size(), 4u);

  // Tables: units, at most four significant digits, never raw picoseconds.
  const std::vector<std::string> cells = number_cells(html);
  ASSERT_GT(cells.size(), 20u);
  for (const std::string& cell : cells) {
    EXPECT_LE(significant_digits(cell), 4) << "'" << cell << "'";
  }
  EXPECT_NE(html.find("steps/hour per network $M"), std::string::npos);
  EXPECT_NE(html.find("paused / credit-wait time, summed over ports"), std::string::npos);
  EXPECT_NE(html.find("<div class=\"scroll\"><table>"), std::string::npos);
}

TEST_F(ReportStepTest, TrainingRunOpensWithTheStep) {
  ScratchDir work("report_step_run");
  const fs::path file = work.path() / "train.yaml";
  std::ofstream(file) << kTraining;
  const fs::path out = work.path() / "run";
  const CliOutcome r = run_fabricsim(
      "run " + shell_quote(file.string()) + " --out " + shell_quote(out.string()), work.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string html = output::report_html(out);
  EXPECT_EQ(html.find("<h2>"), html.find("<h2>Step</h2>"));
  EXPECT_LT(html.find("<h2>Step</h2>"), html.find("<h2>Flow level: NCCL chunk messages</h2>"));
  const json charts = specs_of(html);
  const json* bars = chart_titled(charts, html, "Where the step goes");
  ASSERT_NE(bars, nullptr);
  const json result = json::parse(read_file(out / "result.json"));
  const json& t = result.at("jobs").at(0).at("training");
  // Every part the chart draws is one of result.json's breakdown figures, in us or ms.
  const json& b = t.at("breakdown");
  std::map<std::string, double> expected = {{"compute", b.at("compute_ps").get<double>()},
                                            {"pipeline bubble", b.at("bubble_ps").get<double>()}};
  for (const json& row : (*bars)["spec"]["data"][0]["values"]) {
    if (row["category"] != "roce") continue;
    const auto it = expected.find(row["part"].get<std::string>());
    if (it == expected.end()) continue;
    const double v = row["value"].get<double>();
    EXPECT_TRUE(same_time(v, it->second, b.at("step_ps").get<double>()))
        << it->first << ": " << v << " against " << it->second;
  }
  for (const std::string& cell : number_cells(html)) {
    EXPECT_LE(significant_digits(cell), 4) << "'" << cell << "'";
  }
}

// The timeline's bounds (docs/report.md): spans of one kind closer than 1/2000 of the run merge
// into one bar, and at most kMaxTimelineEvents (5,000) bars are drawn, the longest.
TEST_F(ReportStepTest, TimelineMergesNeighboursAndCapsTheBars) {
  ScratchDir work("report_step_timeline");
  const fs::path dir = work.path() / "run";
  fs::create_directories(dir);
  std::ofstream(dir / "result.json")
      << R"({"scenario":"synthetic","technology":"ib","jobs":[{"training":{"finished":true}}]})";
  // 4 stages x 1,500 compute spans of 1 ns every 100 ns, and beside each a 2 ns collective:
  // 150 us in all, merge distance 75 ns < the 98 ns gaps, so 12,000 bars before the cap.
  std::string csv = "job,stage,rank,start_ps,end_ps,kind,label\n";
  for (int stage = 0; stage < 4; ++stage) {
    for (int k = 0; k < 1500; ++k) {
      const int64_t at = int64_t{k} * 100000;
      csv += "0," + std::to_string(stage) + "," + std::to_string(stage * 8) + "," +
             std::to_string(at) + "," + std::to_string(at + 1000) + ",compute,forward\n";
      csv += "0," + std::to_string(stage) + "," + std::to_string(stage * 8) + "," +
             std::to_string(at + 1000) + "," + std::to_string(at + 3000) +
             ",tensor_parallel,all_reduce\n";
    }
  }
  std::ofstream(dir / "step_timeline.csv") << csv;
  const std::string html = output::report_html(dir);
  const json charts = specs_of(html);
  const json* timeline = chart_titled(charts, html, "Timeline of one rank per pipeline stage");
  ASSERT_NE(timeline, nullptr);
  const json& rows = (*timeline)["spec"]["data"][0]["values"];
  EXPECT_EQ(rows.size(), 5000u);
  for (const json& row : rows) {
    EXPECT_EQ(row["kind"], "tensor_parallel") << "the 6,000 longer spans come first";
  }
  EXPECT_NE(html.find("5000 bars from 12000 spans"), std::string::npos);

  // Ten back-to-back compute spans (gap 0, within 1/2000 of the run): one bar, labelled with
  // the count.
  const fs::path one = work.path() / "merged";
  fs::create_directories(one);
  fs::copy_file(dir / "result.json", one / "result.json");
  std::string merged = "job,stage,rank,start_ps,end_ps,kind,label\n";
  for (int k = 0; k < 10; ++k) {
    merged += "0,0,0," + std::to_string(k * 1000) + "," + std::to_string(k * 1000 + 1000) +
              ",compute,forward\n";
  }
  std::ofstream(one / "step_timeline.csv") << merged;
  const std::string html1 = output::report_html(one);
  const json charts1 = specs_of(html1);
  const json* t1 = chart_titled(charts1, html1, "Timeline of one rank per pipeline stage");
  ASSERT_NE(t1, nullptr);
  const json& bars = (*t1)["spec"]["data"][0]["values"];
  ASSERT_EQ(bars.size(), 1u);
  EXPECT_EQ(bars[0]["label"], "forward x10");
  EXPECT_DOUBLE_EQ(bars[0]["end"].get<double>(), 10000 * 1e-6);  // in us
}

}  // namespace report_step_test
}  // namespace fabricsim
