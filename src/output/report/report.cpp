#include "output/report/report.h"

#include <algorithm>
#include <fstream>
#include <iterator>

#include "core/units.h"
#include "output/report/report_sections.h"
#include "output/report/vega_bundle.h"

namespace fabricsim::output {
namespace {

namespace fs = std::filesystem;
using report::Block;
using report::Json;
using report::Page;

bool is_file(const fs::path& file) {
  std::error_code ec;
  return fs::is_regular_file(file, ec);
}

// The flow-level heading of a training run or compare: its "flows" are not the step's
// collectives but the chunk messages NCCL splits them into.
constexpr const char* kChunkHeading = "Flow level: NCCL chunk messages";

Page run_page(const fs::path& dir) {
  const Json result = report::read_json(dir / "result.json").value_or(Json::object());
  Page page;
  page.title = result.value("scenario", dir.filename().string());
  std::string sub = "Run of " + result.value("technology", std::string("?")) + ": " +
                    result.value("fabric", std::string(""));
  if (result.contains("sim_time_ps") && result["sim_time_ps"].is_number()) {
    sub += "; simulated " + format_time(result["sim_time_ps"].get<int64_t>());
  }
  if (result.value("partial", false)) sub += "; PARTIAL (interrupted)";
  page.subtitle = sub;
  // A training run opens with its step; its flows are NCCL's chunk messages, after it.
  const bool training = report::step_training(result) != nullptr;
  if (training) {
    page.sections.emplace_back(
        "Step", report::step_blocks({{result.value("technology", std::string("run")), dir}}));
  }
  page.sections.emplace_back(training ? kChunkHeading : "Flows", report::flow_blocks(dir, result));
  page.sections.emplace_back("Links", report::link_blocks(dir, result));
  page.sections.emplace_back("Time series", report::telemetry_blocks(dir));
  page.sections.emplace_back("Timeline", report::timeline_blocks(dir));
  return page;
}

Page compare_page(const fs::path& dir) {
  const report::Table compare = report::read_table(dir / "compare.csv", true).value();
  if (compare.header.empty() || compare.size() == 0) {
    throw ReportError(dir.string() + "/compare.csv has no runs");
  }
  std::vector<std::pair<std::string, fs::path>> runs;
  std::string names;
  for (size_t r = 0; r < compare.size(); ++r) {
    const std::string& name = compare.field(r, 0);
    runs.emplace_back(name, dir / name);
    names += (names.empty() ? "" : ", ") + name;
  }
  Page page;
  const Json first =
      report::read_json(runs.front().second / "result.json").value_or(Json::object());
  page.title = first.value("scenario", dir.filename().string());
  page.subtitle = "Comparison of " + names;
  bool training = false;
  for (const auto& [name, run_dir] : runs) {
    training |= report::step_training(
                    report::read_json(run_dir / "result.json").value_or(Json::object())) != nullptr;
  }
  if (training) page.sections.emplace_back("Step", report::step_blocks(runs));
  std::vector<Block> blocks = report::compare_blocks(compare, runs, training);
  // compare_blocks: the table and key metrics first, then the flow-level charts.
  const auto flow_begin = std::find_if(blocks.begin(), blocks.end(),
                                       [](const Block& b) { return b.title == "FCT CDF"; });
  std::vector<Block> flows(std::make_move_iterator(flow_begin), std::make_move_iterator(blocks.end()));
  blocks.erase(flow_begin, blocks.end());
  page.sections.emplace_back("Comparison", std::move(blocks));
  page.sections.emplace_back(training ? kChunkHeading : "Flows and links", std::move(flows));
  // Each run's own report (compare with outputs.report writes them first), by relative link.
  std::string links;
  for (const auto& [name, run_dir] : runs) {
    if (!is_file(run_dir / "report.html")) continue;
    const std::string href = report::html_escape(name) + "/report.html";
    links += "<li><a href=\"" + href + "\">" + href + "</a></li>\n";
  }
  if (!links.empty()) {
    Block b;
    b.title = "Each run's report";
    b.html = "<ul>\n" + links + "</ul>\n";
    for (auto& [heading, section] : page.sections) {
      if (heading == "Comparison") section.push_back(std::move(b));
    }
  }
  return page;
}

Page sweep_page(const fs::path& dir) {
  const Json sweep = report::read_json(dir / "sweep.json").value_or(Json::object());
  Page page;
  page.title = "Sweep of " + sweep.value("file", dir.filename().string());
  std::string params;
  if (sweep.contains("parameters") && sweep["parameters"].is_array()) {
    for (const Json& p : sweep["parameters"])
      params += (params.empty() ? "" : ", ") + (p.is_string() ? p.get<std::string>() : p.dump());
  }
  page.subtitle = "Parameters: " + (params.empty() ? std::string("?") : params);
  page.sections.emplace_back("Metrics against parameters", report::sweep_blocks(dir));
  return page;
}

}  // namespace

std::string report_html(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw ReportError(dir.string() + ": not a directory");
  if (!vega_available()) {
    throw ReportError(
        "this fabricsim was built without Debian's libjs-vega, which report.html "
        "inlines: install it (scripts/install-deps) and rebuild");
  }
  Page page;
  if (is_file(dir / "sweep.csv") || is_file(dir / "sweep_aggregate.csv") ||
      is_file(dir / "sweep.json")) {
    page = sweep_page(dir);
  } else if (is_file(dir / "compare.csv")) {
    page = compare_page(dir);
  } else if (is_file(dir / "result.json")) {
    page = run_page(dir);
  } else {
    throw ReportError(dir.string() +
                      ": no result.json, compare.csv or sweep.csv: not a fabricsim "
                      "run, compare or sweep directory");
  }
  return report::page_html(page);
}

void write_report(const fs::path& dir) {
  const std::string html = report_html(dir);
  const fs::path file = dir / "report.html";
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << html;
  out.close();
  if (!out) throw std::runtime_error("cannot write " + file.string());
}

}  // namespace fabricsim::output
