// README.md lists every field of every output file with its unit and meaning (issue 9 item 12:
// the list had gone stale). These tests compare the README's tables with what the writers
// produce, both ways: a field the code writes and the README omits fails, and so does a README
// row for a field no writer produces.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "output/compare.h"
#include "output/csv.h"
#include "output/nccl_table.h"
#include "output/json.h"
#include "output/links_csv.h"
#include "output/pcap/pcap_trace.h"
#include "output/ping_pong_table.h"
#include "output/step_timeline.h"
#include "output/timeseries.h"

namespace fabricsim::output {
namespace readme_fields_test {

std::string readme() {
  std::ifstream in(std::string(FABRICSIM_SOURCE_DIR) + "/README.md");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The first-column keys of the table under the README paragraph that starts with
// **`file`**, up to the next such paragraph.
std::set<std::string> readme_keys(const std::string& file) {
  std::istringstream in(readme());
  std::set<std::string> keys;
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("**`", 0) == 0) {
      inside = line.rfind("**`" + file + "`**", 0) == 0;
      continue;
    }
    if (line.rfind("## ", 0) == 0) inside = false;
    if (!inside || line.rfind("| `", 0) != 0) continue;
    const size_t end = line.find('`', 3);
    keys.insert(line.substr(3, end - 3));
  }
  return keys;
}

// Every leaf of a JSON document as a dotted path (array elements as `name[]`), and every
// object or array on the way (`parents`).
void flatten(const nlohmann::ordered_json& j, const std::string& path,
             std::set<std::string>& leaves, std::set<std::string>& parents) {
  if (j.is_object()) {
    if (!path.empty()) parents.insert(path);
    for (const auto& [k, v] : j.items())
      flatten(v, path.empty() ? k : path + "." + k, leaves, parents);
  } else if (j.is_array() && !j.empty()) {
    parents.insert(path);
    for (const auto& e : j) flatten(e, path + "[]", leaves, parents);
  } else {
    leaves.insert(path);
  }
}

std::set<std::string> csv_columns(const std::string& text) {
  std::set<std::string> cols;
  std::istringstream header(text.substr(0, text.find('\n')));
  for (std::string c; std::getline(header, c, ',');) cols.insert(c);
  return cols;
}

std::string list(const std::set<std::string>& s) {
  std::string out;
  for (const std::string& k : s) out += " " + k;
  return out;
}

// A result with every optional part present: a collective, a link failure, an InfiniBand SM
// fallback and a link group (the values do not matter, only which keys are written).
scenario::RunResult everything() {
  scenario::RunResult r;
  r.collective.present = true;
  r.failure.link_failed_ps = 1;
  r.failure.link = "sw0:3->sw3";
  r.sm.present = true;
  r.sm.fallback_reason = "why";
  r.steady_window_asked = true;
  r.context_cache.present = true;
  r.sharp.present = true;
  r.sharp.trees.emplace_back();
  r.sharp.failures.emplace_back();
  r.links.groups.push_back(scenario::LinkGroupLoad{.mean_utilization = 0.5});
  scenario::JobResult job;
  job.gpus = {0, 1};
  scenario::CollectiveRow row;
  row.time_ps = 1;
  job.collectives.push_back(row);
  job.training.present = true;
  job.training.comm.emplace_back();
  scenario::StepCollective coll;
  coll.expected_busbw_gbytes_per_s = 1;  // null without a model
  job.training.collectives.push_back(coll);
  job.training.has_breakdown = true;
  job.training.breakdown.comm.emplace_back();
  job.training.stages.push_back(job.training.breakdown);
  job.training.ideal_step_ps = 1;
  job.training.has_ideal_breakdown = true;
  job.training.ideal_breakdown = job.training.breakdown;
  job.slowdown = 1.5;
  r.jobs.push_back(job);
  scenario::ScalingPoint point;
  point.step_time_ps = 1;
  point.algorithm = "ring";  // a collective workload's point carries its algorithm and busbw
  point.ideal_step_time_ps = 1;  // training.ideal_network
  r.scaling.push_back(point);
  scenario::NodeResourceLoad load;
  load.kind = "nvlink_out";
  r.node_resources.push_back(load);
  workload::PingPongStats pp;
  pp.iterations = 1;
  r.ping_pong.push_back(pp);
  scenario::FlowRecord flow;
  flow.finish_ps = 1;
  r.flows.push_back(flow);  // fct_by_size, fct_by_class
  r.flow_summary = scenario::summarize_flows(r.flows);
  scenario::LinkRow link;
  link.tx_bytes = 1;
  r.link_rows.push_back(link);  // hottest_links
  r.engine_mode = "flow";
  r.engine_notes = {"a note"};  // mode_notes
  r.hybrid.present = true;  // mode: hybrid's section
  return r;
}

TEST(ReadmeFields, ResultJsonFieldsAreAllListedAndNoneInvented) {
  std::set<std::string> leaves, parents;
  flatten(result_to_json(everything()), "", leaves, parents);
  const std::set<std::string> documented = readme_keys("result.json");
  ASSERT_FALSE(documented.empty()) << "README.md has a **`result.json`** table";
  std::set<std::string> missing, invented;
  for (const std::string& k : leaves) {
    if (!documented.count(k)) missing.insert(k);
  }
  for (const std::string& k : documented) {
    if (!leaves.count(k) && !parents.count(k)) invented.insert(k);
  }
  EXPECT_TRUE(missing.empty()) << "result.json fields missing from README.md:" << list(missing);
  EXPECT_TRUE(invented.empty()) << "README.md lists result.json fields no run writes:"
                                << list(invented);
}

TEST(ReadmeFields, RunJsonKeysAreListed) {
  std::set<std::string> leaves, parents;
  // Every key a run can write: a split run's profile, a refusal's note and an MPI run's rank
  // count included.
  scenario::RunStats stats;
  stats.partitions = 2;
  stats.partition_note = "why";
  stats.ranks = 2;  // an MPI run's
  flatten(run_stats_to_json(stats), "", leaves, parents);
  EXPECT_EQ(readme_keys("run.json"), leaves);
}

TEST(ReadmeFields, CsvColumnsAreListed) {
  EXPECT_EQ(readme_keys("flows.csv"), csv_columns(flows_csv_text({}, /*with_path=*/true)));
  EXPECT_EQ(readme_keys("links.csv"), csv_columns(links_csv_text({})));
  EXPECT_EQ(readme_keys("compare.csv"), csv_columns(kCompareCsvHeader));
  EXPECT_EQ(readme_keys("routes.csv"), csv_columns(routes_csv_text({})));
  EXPECT_EQ(readme_keys("credits.csv"), csv_columns(credits_csv_text({})));
  EXPECT_EQ(readme_keys("nccl-tests.csv"), csv_columns(kNcclTestsCsvHeader));
  EXPECT_EQ(readme_keys("scaling.csv"), csv_columns(kScalingCsvHeader));
  EXPECT_EQ(readme_keys("step_timeline.csv"), csv_columns(kStepTimelineCsvHeader));
  EXPECT_EQ(readme_keys("ping_pong.csv"), csv_columns(ping_pong_csv_text({})));
  EXPECT_EQ(readme_keys("timeseries_ports.csv"), csv_columns(kTimeseriesPortsHeader));
  EXPECT_EQ(readme_keys("timeseries_qps.csv"), csv_columns(kTimeseriesQpsHeader));
}

}  // namespace readme_fields_test
}  // namespace fabricsim::output
