// report.html (output/report/report.h) without a browser: the file is self-contained, every chart spec
// is JSON Vega can take (data inlined, marks present), absent inputs give a note and no chart,
// and the documented caps hold. tests/browser/ renders the same pages in Chromium.
#include "output/report/report.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "../support/cli_runner.h"
#include "../support/report_fixtures.h"
#include "output/report/report_data.h"
#include "output/report/vega_bundle.h"

namespace fabricsim {
namespace report_test {

namespace fs = std::filesystem;
using nlohmann::json;
using test_support::ScratchDir;

// The chart list the page's driver renders: [{target, spec}].
json specs_of(const std::string& html) {
  const std::string open = "<script type=\"application/json\" id=\"fs-specs\">";
  const size_t begin = html.find(open);
  EXPECT_NE(begin, std::string::npos);
  const size_t end = html.find("</script>", begin);
  return json::parse(html.substr(begin + open.size(), end - begin - open.size()));
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

std::vector<std::string> notes_of(const std::string& html) {
  std::vector<std::string> notes;
  const std::regex note("<p class=\"note\">Not drawn: ([^<]*)</p>");
  for (auto it = std::sregex_iterator(html.begin(), html.end(), note); it != std::sregex_iterator();
       ++it) {
    notes.push_back((*it)[1]);
  }
  return notes;
}

// The values array of a chart's first data set.
const json& values_of(const json& chart) { return chart["spec"]["data"][0]["values"]; }

const json* chart_titled(const json& charts, const std::string& html, const std::string& title) {
  // Charts appear in page order; find the index of the chart after the <h3>title</h3>.
  const size_t at = html.find("<h3>" + title + "</h3>");
  if (at == std::string::npos) return nullptr;
  const size_t div = html.find("<div class=\"chart\" id=\"chart-", at);
  const size_t next = html.find("<h3>", at + 4);
  if (div == std::string::npos || (next != std::string::npos && div > next)) return nullptr;
  const size_t index = std::stoul(html.substr(div + 29));
  return &charts[index];
}

class ReportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!output::vega_available()) GTEST_SKIP() << "built without libjs-vega";
  }
};

TEST_F(ReportTest, FileIsSelfContained) {
  ScratchDir dir("report_self_contained");
  test_support::write_run_fixture(dir.path());
  const std::string html = output::report_html(dir.path());
  // No element loads anything from elsewhere: no src= at all, no http(s) href, no stylesheet link.
  EXPECT_FALSE(std::regex_search(html, std::regex(R"(<[a-zA-Z]+[^>]*\ssrc\s*=)")))
      << "a src attribute";
  EXPECT_FALSE(std::regex_search(html, std::regex(R"(href\s*=\s*["']?\s*(https?:)?//)")))
      << "an external href";
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("sourceMappingURL"), std::string::npos);
  // Three inline scripts (hooks, Vega, driver) and the JSON: each "<script" closed once, so no
  // embedded text ended a script early.
  EXPECT_EQ(count(html, "<script"), 4u);
  EXPECT_EQ(count(html, "</script>"), 4u);
  // The Vega modules the charts need are in it (define.current names each one).
  for (const char* module :
       {"vega-util", "vega-dataflow", "vega-scenegraph", "vega-parser", "vega-view", "vega-encode",
        "vega-transforms", "vega-view-transforms"}) {
    EXPECT_NE(html.find("fsVega.define.current = '" + std::string(module) + "'"), std::string::npos)
        << module;
  }
}

TEST_F(ReportTest, EverySpecIsJsonWithDataAndMarks) {
  ScratchDir dir("report_specs");
  test_support::write_run_fixture(dir.path());
  const std::string html = output::report_html(dir.path());
  const json charts = specs_of(html);
  // Every block of the fixture run is drawn: FCT CDF, slowdown by size, by class, utilization,
  // imbalance, heatmap, queue, paused fraction, utilization over time, per-QP rate, timeline.
  EXPECT_EQ(charts.size(), 11u);
  EXPECT_TRUE(notes_of(html).empty()) << notes_of(html).front();
  EXPECT_EQ(count(html, "<div class=\"chart\""), charts.size());
  for (const json& c : charts) {
    ASSERT_TRUE(c["spec"].is_object()) << c["target"];
    ASSERT_TRUE(c["spec"]["marks"].is_array()) << c["target"];
    EXPECT_FALSE(c["spec"]["marks"].empty()) << c["target"];
    EXPECT_FALSE(values_of(c).empty()) << c["target"] << " has no data";
  }
}

TEST_F(ReportTest, MissingInputsGiveNotesNotCharts) {
  ScratchDir dir("report_missing");
  std::ofstream(dir.path() / "result.json") << R"({"scenario":"bare","technology":"ib"})";
  const std::string html = output::report_html(dir.path());
  const std::vector<std::string> notes = notes_of(html);
  const std::vector<std::string> expected = {
      "flows.csv is absent",
      "flows.csv is absent",
      "result.json has no fct_by_class and flows.csv no class column",
      "result.json has no links.tiers groups",
      "links.csv is absent",
      "result.json has no hottest_links and links.csv is absent",
      "timeseries_ports.csv is absent (outputs.timeseries)",
      "timeseries_qps.csv is absent (outputs.timeseries)",
      "trace.json and nccl-tests.csv are absent"};
  EXPECT_EQ(notes, expected);
  EXPECT_TRUE(specs_of(html).empty());
  EXPECT_EQ(html.find("<div class=\"chart\""), std::string::npos);
}

TEST_F(ReportTest, SizeBucketsFromFlowsCsvWhenResultJsonHasNone) {
  ScratchDir dir("report_buckets");
  std::ofstream(dir.path() / "result.json") << R"({"scenario":"b"})";
  // 40 flows: sizes 1 KB, 10 KB, 100 KB, 1 MB, 10 MB in turn; slowdown 1 + i % 4.
  std::ofstream(dir.path() / "flows.csv") << test_support::fixture_flows_csv(40);
  const std::string html = output::report_html(dir.path());
  const json charts = specs_of(html);
  const json* bars = chart_titled(charts, html, "Slowdown by flow size");
  ASSERT_NE(bars, nullptr);
  // Each decade holds 8 flows (i = k, k+5, ..., k+35): slowdowns 1 + i % 4 over those i. For
  // 1 KB (i = 0, 5, ..., 35): i % 4 = 0,1,2,3,0,1,2,3 -> sorted 1,1,2,2,3,3,4,4: p50 = rank 4 = 2,
  // p99 = rank 8 = 4 (nearest rank).
  int checked = 0;
  for (const json& row : values_of(*bars)) {
    if (row["category"] == "<10KB (8)" && row["group"] == "p50") {
      EXPECT_DOUBLE_EQ(row["value"].get<double>(), 2.0);
      ++checked;
    }
    if (row["category"] == "<10KB (8)" && row["group"] == "p99") {
      EXPECT_DOUBLE_EQ(row["value"].get<double>(), 4.0);
      ++checked;
    }
  }
  EXPECT_EQ(checked, 2);
  EXPECT_EQ(bars->at("spec")["scales"][0]["domain"].size(), 5u) << "five decades";
}

// result.json's fct_by_size (nested {"slowdown": {"p50": ...}}) and fct_by_class (flat
// slowdown_p50, the form output/json.cpp writes) are drawn as given; a class with no finished
// flow (null slowdowns) has no bars.
TEST_F(ReportTest, BreakdownsFromResultJson) {
  ScratchDir dir("report_breakdowns");
  test_support::write_run_fixture(dir.path());
  const std::string html = output::report_html(dir.path());
  const json charts = specs_of(html);
  const json* size = chart_titled(charts, html, "Slowdown by flow size");
  ASSERT_NE(size, nullptr);
  EXPECT_EQ(size->at("spec")["scales"][0]["domain"], json({"<10KB (8)", "10KB-100KB (8)"}));
  EXPECT_EQ(values_of(*size).size(), 6u);
  const json* cls = chart_titled(charts, html, "Slowdown by class");
  ASSERT_NE(cls, nullptr);
  EXPECT_EQ(cls->at("spec")["scales"][0]["domain"], json({"class 3 (16)"}));
  ASSERT_EQ(values_of(*cls).size(), 3u);
  EXPECT_DOUBLE_EQ(values_of(*cls)[1]["value"].get<double>(), 4.0) << "p99";
}

TEST_F(ReportTest, CdfIsCappedAndKeepsItsEnds) {
  std::vector<double> values;
  for (int i = 20000; i >= 1; --i) values.push_back(i);
  const auto points = output::report::cdf_points(values);
  ASSERT_EQ(points.size(), output::report::kMaxCdfPoints);
  EXPECT_DOUBLE_EQ(points.front().first, 1.0);
  EXPECT_DOUBLE_EQ(points.front().second, 1.0 / 20000);
  EXPECT_DOUBLE_EQ(points.back().first, 20000.0);
  EXPECT_DOUBLE_EQ(points.back().second, 1.0);
  for (size_t i = 1; i < points.size(); ++i) {
    EXPECT_LT(points[i - 1].first, points[i].first);
    // fraction(x) = x / 20000 for the values 1..20000.
    EXPECT_DOUBLE_EQ(points[i].second, points[i].first / 20000);
  }
  // Below the cap: every value, fraction i / n.
  const auto small = output::report::cdf_points({3, 1, 2});
  ASSERT_EQ(small.size(), 3u);
  EXPECT_DOUBLE_EQ(small[0].second, 1.0 / 3);
  EXPECT_DOUBLE_EQ(small[2].first, 3.0);
}

TEST_F(ReportTest, HeatmapAggregatesByTierAboveTheNodeCap) {
  ScratchDir dir("report_heatmap");
  std::ofstream(dir.path() / "result.json") << R"({"scenario":"h"})";
  // 100 NICs each with a cable to one of 4 switches: 104 nodes > 64.
  std::string links =
      "port,link,from,to,from_tier,to_tier,direction,rate_bps,tx_bytes,utilization,"
      "peak_queue_bytes,drops,pause_frames_sent,pause_frames_received,paused_ps,ecn_marks,"
      "credit_waits,trimmed,down\n";
  for (int n = 0; n < 100; ++n) {
    const std::string nic = "nic" + std::to_string(n), sw = "sw" + std::to_string(n % 4);
    links += std::to_string(2 * n) + ",x," + nic + "," + sw + ",0,1,up,1,1," +
             (n % 2 ? "0.2" : "0.4") + ",0,0,0,0,0,0,0,0,0\n";
    links += std::to_string(2 * n + 1) + ",x," + sw + "," + nic +
             ",1,0,down,1,1,0.1,0,0,0,0,0,0,0,0,0\n";
  }
  std::ofstream(dir.path() / "links.csv") << links;
  const std::string html = output::report_html(dir.path());
  const json charts = specs_of(html);
  const json* heat = chart_titled(charts, html, "Link utilization heatmap");
  ASSERT_NE(heat, nullptr);
  const json& v = values_of(*heat);
  ASSERT_EQ(v.size(), 2u) << "tier 0 -> tier 1 and tier 1 -> tier 0";
  for (const json& row : v) {
    // Uplinks: half at 0.4, half at 0.2 -> mean 0.3; downlinks all 0.1.
    EXPECT_NEAR(row["value"].get<double>(), row["row"] == "tier 0" ? 0.3 : 0.1, 1e-12);
  }
  // At or below the cap: node x node, one cell per cable direction.
  ScratchDir small("report_heatmap_small");
  std::ofstream(small.path() / "result.json") << R"({"scenario":"h"})";
  std::ofstream(small.path() / "links.csv") << test_support::fixture_links_csv(0.9);
  const std::string html2 = output::report_html(small.path());
  const json charts2 = specs_of(html2);
  const json* heat2 = chart_titled(charts2, html2, "Link utilization heatmap");
  ASSERT_NE(heat2, nullptr);
  EXPECT_EQ(values_of(*heat2).size(), 12u);
  EXPECT_EQ(heat2->at("spec")["scales"][0]["domain"],
            json({"nic0", "nic1", "nic2", "nic3", "sw0", "sw1", "sw2"}));
}

TEST_F(ReportTest, TimelineKeepsTheLongestSpansUpToTheCap) {
  ScratchDir dir("report_timeline");
  std::ofstream(dir.path() / "result.json") << R"({"scenario":"t"})";
  // 6000 spans on one rank: span i lasts i ps-as-us; the longest 5000 are i = 1000..5999.
  std::string ev =
      "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":0,\"args\":{\"name\":\"host0\"}}";
  for (int i = 0; i < 6000; ++i) {
    ev += ",{\"ph\":\"X\",\"cat\":\"send\",\"name\":\"s\",\"pid\":0,\"tid\":0,\"ts\":" +
          std::to_string(i) + ",\"dur\":" + std::to_string(i) + "}";
  }
  std::ofstream(dir.path() / "trace.json") << "{\"traceEvents\":[" + ev + "]}";
  const std::string html = output::report_html(dir.path());
  const json charts = specs_of(html);
  const json* gantt = chart_titled(charts, html, "Timeline");
  ASSERT_NE(gantt, nullptr);
  const json& v = values_of(*gantt);
  ASSERT_EQ(v.size(), output::report::kMaxTimelineEvents);
  EXPECT_DOUBLE_EQ(v.front()["start"].get<double>(), 1000.0);
  EXPECT_DOUBLE_EQ(v.back()["end"].get<double>(), 5999.0 * 2);
  EXPECT_EQ(v.front()["lane"], "host0/tid0");
}

// The JSON array form of the trace-event format (no traceEvents object) reads the same; lanes
// take the thread_name metadata; a file that is not JSON is an error naming trace.json.
TEST_F(ReportTest, TimelineReadsTheArrayFormAndNamesLanes) {
  ScratchDir dir("report_trace_array");
  std::ofstream(dir.path() / "result.json") << R"({"scenario":"t"})";
  std::ofstream(dir.path() / "trace.json")
      << R"([{"ph":"M","name":"thread_name","pid":1,"tid":7,"args":{"name":"rank7"}},)"
      << R"({"ph":"X","cat":"send","name":"step 0","pid":1,"tid":7,"ts":1.5,"dur":2.25,"args":{"bytes":4}},)"
      << R"({"ph":"B","name":"ignored","pid":1,"tid":7,"ts":0}])";
  const std::string html = output::report_html(dir.path());
  const json charts = specs_of(html);
  const json* gantt = chart_titled(charts, html, "Timeline");
  ASSERT_NE(gantt, nullptr);
  const json& v = values_of(*gantt);
  ASSERT_EQ(v.size(), 1u) << "only complete (ph X) events";
  EXPECT_EQ(v[0]["lane"], "pid1/rank7");
  EXPECT_EQ(v[0]["kind"], "send");
  EXPECT_EQ(v[0]["label"], "step 0");
  EXPECT_DOUBLE_EQ(v[0]["start"].get<double>(), 1.5);
  EXPECT_DOUBLE_EQ(v[0]["end"].get<double>(), 3.75);
  std::ofstream(dir.path() / "trace.json") << "{\"traceEvents\": [";
  EXPECT_THROW(output::report_html(dir.path()), std::runtime_error);
}

TEST_F(ReportTest, SweepDrawsEachMetricAgainstEachParameterWithCi) {
  ScratchDir dir("report_sweep");
  test_support::write_sweep_fixture(dir.path());
  const std::string html = output::report_html(dir.path());
  const json charts = specs_of(html);
  EXPECT_EQ(charts.size(), 4u) << "2 metrics x 2 parameters";
  const json* chart = chart_titled(charts, html, "fct_p99_us against fabric.ecn.kmin");
  ASSERT_NE(chart, nullptr);
  const json& v = values_of(*chart);
  ASSERT_EQ(v.size(), 6u);
  EXPECT_EQ(v[0]["x"], "20KB");
  EXPECT_EQ(v[0]["series"], "fabric.ecn.kmax=200KB");
  EXPECT_DOUBLE_EQ(v[0]["lo"].get<double>(), 102 - 2.484);
  EXPECT_DOUBLE_EQ(v[0]["hi"].get<double>(), 102 + 2.484);
  EXPECT_TRUE(v[5]["lo"].is_null()) << "no interval where the file has none";
  EXPECT_NE(html.find("17 of 18 runs ok"), std::string::npos);
  EXPECT_NE(html.find("exit 1: boom"), std::string::npos);
}

// The kinds of chart a sweep draws (issue 23): values with a number first ("20KB") are a
// quantity, joined by a line; names (fabric.technology: ib, roce) are categories, points only.
std::set<std::string> mark_types(const json& chart) {
  std::set<std::string> types;
  for (const json& group : chart["spec"]["marks"]) {
    for (const json& m : group.value("marks", json::array())) types.insert(m["type"]);
  }
  return types;
}

TEST_F(ReportTest, SweepJoinsQuantitiesAndNotCategories) {
  ScratchDir dir("report_sweep_categorical");
  test_support::write_sweep_fixture(dir.path() / "sizes");
  const std::string sizes = output::report_html(dir.path() / "sizes");
  const json size_charts = specs_of(sizes);
  const json* kmin = chart_titled(size_charts, sizes, "fct_p99_us against fabric.ecn.kmin");
  ASSERT_NE(kmin, nullptr);
  EXPECT_EQ(mark_types(*kmin), (std::set<std::string>{"line", "symbol", "rule"}));
  fs::create_directories(dir.path() / "fabrics");
  std::ofstream(dir.path() / "fabrics" / "sweep_aggregate.csv")
      << "point,fabric.technology,runs_ok,runs_failed,fct_p99_us_mean,fct_p99_us_sd,"
         "fct_p99_us_ci95\n0,ib,3,0,10200,10,5050\n1,roce,3,0,12000,10,300\n";
  const std::string fabrics = output::report_html(dir.path() / "fabrics");
  const json fabric_charts = specs_of(fabrics);
  const json* tech = chart_titled(fabric_charts, fabrics, "fct_p99_us against fabric.technology");
  ASSERT_NE(tech, nullptr);
  EXPECT_EQ(mark_types(*tech), (std::set<std::string>{"symbol", "rule"}));
}

// Every axis and legend with numbers uses one format: four significant digits, no exponent.
TEST_F(ReportTest, AxesShareOneNumberFormat) {
  ScratchDir dir("report_axes");
  test_support::write_run_fixture(dir.path());
  const json charts = specs_of(output::report_html(dir.path()));
  size_t formatted = 0;
  std::function<void(const json&)> visit = [&](const json& j) {
    if (j.is_object()) {
      if (j.contains("format") && j["format"].is_string()) {
        EXPECT_EQ(j["format"], ",.4~r");
        ++formatted;
      }
      for (const auto& [k, v] : j.items()) visit(v);
    } else if (j.is_array()) {
      for (const json& v : j) visit(v);
    }
  };
  for (const json& c : charts) visit(c["spec"]);
  EXPECT_GT(formatted, 10u);
}

// A fabric priced per NIC (no GPUs) is never charted as "per GPU" (issue 23).
TEST_F(ReportTest, NicOnlyCompareSaysPerNic) {
  ScratchDir dir("report_per_nic");
  std::ofstream(dir.path() / "compare.csv")
      << "fabric,flows_total,fabric_cost_per_gpu_usd,network_power_per_gpu_w\n"
         "ib,40,1250.25,20\nroce,40,980.25,25\n";
  for (const char* run : {"ib", "roce"}) {
    test_support::write_run_fixture(dir.path() / run);
    json result = json::parse(test_support::read_file(dir.path() / run / "result.json"));
    result["cost"] = {{"priced", true}, {"per", "nic"}, {"fabric_usd", 1e5}, {"units", 40}};
    std::ofstream(dir.path() / run / "result.json") << result.dump();
  }
  const std::string html = output::report_html(dir.path());
  EXPECT_EQ(html.find("per GPU"), std::string::npos);
  EXPECT_NE(html.find("<td>network cost per NIC</td><td class=\"num\">1250 USD</td>"),
            std::string::npos);
  EXPECT_NE(html.find("network power per NIC (W)"), std::string::npos);
}

TEST_F(ReportTest, CompareOverlaysEachRunsCdf) {
  ScratchDir dir("report_compare");
  std::ofstream(dir.path() / "compare.csv")
      << "fabric,flows_total,completion_time_ps,fct_p99_ps\nib,40,1000000,900000\nroce,40,2000000,"
         "1800000\n";
  test_support::write_run_fixture(dir.path() / "ib");
  test_support::write_run_fixture(dir.path() / "roce");
  const std::string html = output::report_html(dir.path());
  const json charts = specs_of(html);
  const json* cdf = chart_titled(charts, html, "FCT CDF");
  ASSERT_NE(cdf, nullptr);
  size_t ib = 0, roce = 0;
  for (const json& row : values_of(*cdf)) (row["series"] == "ib" ? ib : roce)++;
  EXPECT_EQ(ib, 40u);
  EXPECT_EQ(roce, 40u);
  const json* metrics = chart_titled(charts, html, "Key metrics");
  ASSERT_NE(metrics, nullptr);
  EXPECT_EQ(values_of(*metrics).size(), 4u) << "completion time and FCT p99 for two runs";
  // The table shows each figure in its unit to four significant digits (issue 23), not the
  // file's raw picoseconds.
  EXPECT_NE(html.find("<td>completion_time_ps</td><td class=\"num\">1.000 us</td>"),
            std::string::npos);
  EXPECT_EQ(html.find(">1000000<"), std::string::npos);
}

TEST_F(ReportTest, BadDirectoryIsAReportError) {
  ScratchDir dir("report_bad");
  EXPECT_THROW(output::report_html(dir.path()), output::ReportError);
  EXPECT_THROW(output::report_html(dir.path() / "missing"), output::ReportError);
  std::ofstream(dir.path() / "result.json") << "{not json";
  EXPECT_THROW(output::report_html(dir.path()), std::runtime_error);
}

TEST(ReportData, ThinIndicesAreEvenAndKeepTheEnds) {
  const auto idx = output::report::thin_indices(10001, 101);
  ASSERT_EQ(idx.size(), 101u);
  for (size_t i = 0; i < idx.size(); ++i) EXPECT_EQ(idx[i], i * 100);
  EXPECT_EQ(output::report::thin_indices(5, 10).size(), 5u);
  EXPECT_TRUE(output::report::thin_indices(0, 10).empty());
}

}  // namespace report_test
}  // namespace fabricsim
