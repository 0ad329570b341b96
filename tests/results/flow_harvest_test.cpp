// The harvest's per-flow records (issue 24 item 1): read once into the flow summary and into a
// streamed flows.csv, kept only when asked. The streamed file must equal the one built from the
// kept records, and the summary the statistics derived by sorting the records' FCTs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

#include "engine/run.h"
#include "output/csv.h"
#include "results/flow_summary.h"
#include "results/flows_csv.h"
#include "spec/load.h"

namespace fabricsim::scenario {
namespace flow_harvest_test {

namespace fs = std::filesystem;

// 16 hosts, a permutation of 256 KB flows plus an incast onto host 0 that makes FCTs differ.
Scenario sample() {
  return load_scenario_string(
             "topology: {kind: leaf_spine, radix: 8}\n"
             "hosts: {count: 16}\n"
             "workload: {kind: pattern, pattern: flows, flows: [[1, 0, 256KB, 0us], [2, 0, 256KB, "
             "0us], [3, 0, 1MB, 0us], [4, 5, 8KB, 1us], [6, 7, 256KB, 0us], [8, 0, 20MB, 0us]]}\n",
             "h.yaml")
      .scenario;
}

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("fabricsim-harvest-" + std::to_string(::getpid()));
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
};

TEST(FlowHarvest, StreamedCsvAndSummaryMatchTheKeptRecords) {
  TempDir dir;
  RunOptions kept;
  kept.flows = {.keep_records = true, .csv_dir = dir.path};
  const RunResult r = run_scenario(sample(), kept);
  ASSERT_EQ(r.flows.size(), 6u);
  ASSERT_TRUE(r.flows_csv);
  EXPECT_EQ(read(r.flows_csv->path()), output::flows_csv_text(r.flows));

  // The summary against the definition: FCTs sorted, nearest rank ceil(p/100 x n).
  std::vector<int64_t> fcts;
  double slowdown_sum = 0;
  for (const FlowRecord& f : r.flows) {
    ASSERT_GE(f.finish_ps, 0);
    fcts.push_back(f.finish_ps - f.start_ps);
    slowdown_sum += static_cast<double>(f.finish_ps - f.start_ps) / f.ideal_fct_ps;
  }
  std::sort(fcts.begin(), fcts.end());
  const FlowStats& s = r.flow_summary.stats;
  EXPECT_EQ(s.total, 6);
  EXPECT_EQ(s.completed, 6);
  EXPECT_EQ(s.fct_p50_ps, fcts[2]) << "ceil(0.5 x 6) = 3rd";
  EXPECT_EQ(s.fct_p99_ps, fcts[5]) << "ceil(0.99 x 6) = 6th";
  EXPECT_EQ(s.fct_max_ps, fcts[5]);
  EXPECT_DOUBLE_EQ(s.mean_slowdown, slowdown_sum / 6);
  EXPECT_FALSE(s.sketched);
  // Buckets: 8KB; 256KB x3 ; 1MB ; 20MB -> <=10KB, 100KB-1MB (1 MB is inside), >10MB.
  ASSERT_EQ(r.flow_summary.by_size.size(), 3u);
  EXPECT_EQ(r.flow_summary.by_size[1].flows, 4);
  EXPECT_EQ(r.flow_summary.last_finish_ps, std::max_element(r.flows.begin(), r.flows.end(),
                                                            [](const auto& a, const auto& b) {
                                                              return a.finish_ps < b.finish_ps;
                                                            })->finish_ps);

  // Without the records: the same summary and the same file, nothing kept per flow.
  RunOptions lean;
  lean.flows = {.keep_records = false, .csv_dir = dir.path};
  const RunResult l = run_scenario(sample(), lean);
  EXPECT_TRUE(l.flows.empty());
  ASSERT_TRUE(l.flows_csv);
  EXPECT_EQ(read(l.flows_csv->path()), read(r.flows_csv->path()));
  EXPECT_EQ(l.flow_summary.stats.fct_p50_ps, s.fct_p50_ps);
  EXPECT_EQ(l.flow_summary.stats.mean_slowdown, s.mean_slowdown);
  EXPECT_EQ(l.aggregate_throughput_gbps, r.aggregate_throughput_gbps);
}

TEST(FlowHarvest, TheFileIsMovedIntoPlaceOnceAndRemovedWhenNeverPlaced) {
  TempDir dir;
  fs::path spilled;
  {
    RunOptions o;
    o.flows = {.keep_records = false, .csv_dir = dir.path};
    const RunResult r = run_scenario(sample(), o);
    spilled = r.flows_csv->path();
    EXPECT_TRUE(fs::exists(spilled));
    EXPECT_EQ(spilled.filename().string().front(), '.') << "hidden while it is not in place";
  }
  EXPECT_FALSE(fs::exists(spilled)) << "a result dropped without being written leaves nothing";

  RunOptions o;
  o.flows = {.keep_records = false, .csv_dir = dir.path};
  const RunResult r = run_scenario(sample(), o);
  const std::string text = read(r.flows_csv->path());
  r.flows_csv->place(dir.path / "a.csv");
  r.flows_csv->place(dir.path / "b.csv");  // a second destination: a copy of the first
  EXPECT_EQ(read(dir.path / "a.csv"), text);
  EXPECT_EQ(read(dir.path / "b.csv"), text);
  size_t hidden = 0;
  for (const auto& e : fs::directory_iterator(dir.path)) hidden += e.path().filename().string()[0] == '.';
  EXPECT_EQ(hidden, 0u) << "the first place() moved the file";
}

}  // namespace flow_harvest_test
}  // namespace fabricsim::scenario
