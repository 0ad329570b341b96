// The three ASTRA-sim workload files of ../shared/workloads/astra-sim (copied to
// tests/workload/data/astra-sim) run end to end through the scenario: imported, run on a
// 2-node x 8-GPU rail fabric, with every collective of the file executed and the step equal to
// compute + exposed communication. The counts and sizes are read from the files here with a
// plain whitespace split, independently of the importer.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.h"
#include "spec/load.h"
#include "engine/run.h"

namespace fabricsim {
namespace astra_run_test {

const std::string kData = std::string(FABRICSIM_SOURCE_DIR) + "/tests/workload/data/astra-sim/";

// Collectives (comm type != NONE with size > 0) and their total bytes, per the 12-field layer
// lines after the two header lines.
struct FileComm {
  int collectives = 0;
  int64_t bytes = 0;
};

FileComm read_comm(const std::string& file) {
  std::ifstream in(kData + file);
  std::string line;
  std::getline(in, line);  // policy
  std::getline(in, line);  // layer count
  FileComm c;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::vector<std::string> f;
    for (std::string w; fields >> w;) f.push_back(w);
    if (f.size() != 12) continue;
    for (int k : {3, 6, 9}) {
      const int64_t size = std::stoll(f[k + 1]);
      if (f[k] != "NONE" && size > 0) {
        ++c.collectives;
        c.bytes += size;
      }
    }
  }
  return c;
}

scenario::RunResult run_file(const std::string& file) {
  const std::string yaml =
      "name: astra\n"
      "fabric: {technology: ib, link: {rate: 400Gbps, cable: 3m}}\n"
      "topology: {kind: rail, radix: 16}\n"
      "hosts: {count: 2, nics_per_host: 8}\n"
      "node: {gpus_per_node: 8}\n"
      "workload: {kind: training}\n"
      "training: {source: astra, file: " + kData + file + ", clock_ghz: 1}\n";
  return scenario::run_scenario(scenario::load_scenario_string(yaml, "astra.yaml").scenario);
}

TEST(AstraRun, Resnet50RunsEveryAllReduceOfTheFile) {
  const FileComm want = read_comm("Resnet50_DataParallel.txt");
  EXPECT_EQ(want.collectives, 54);
  EXPECT_EQ(want.bytes, 102'011'648);
  const scenario::RunResult r = run_file("Resnet50_DataParallel.txt");
  ASSERT_EQ(r.jobs.size(), 1u);
  const scenario::TrainingResult& t = r.jobs[0].training;
  ASSERT_TRUE(t.present);
  ASSERT_GT(t.step_time_ps, 0);
  EXPECT_EQ(t.step_time_ps, t.compute_ps + t.exposed_comm_ps);
  int64_t n = 0, bytes = 0;
  for (const scenario::PhaseComm& pc : t.comm) {
    n += pc.collectives;
    bytes += pc.bytes;
  }
  EXPECT_EQ(n, want.collectives) << "every all-reduce of the file ran";
  EXPECT_EQ(bytes, want.bytes) << "with the file's sizes";
}

// microAllReduce (HYBRID_TRANSFORMER, MP groups of 8): one forward all-reduce per MP group; the
// 16 GPUs form two groups. MLP_ModelParallel (MODEL): the file's all-gathers (each NPU's input
// x the group, ASTRA-sim 1.0 semantics) and all-reduces, except layer 0's input-gradient
// all-reduce, which ASTRA-sim's MODEL loop never issues (docs/workloads.md).
TEST(AstraRun, TheOtherTwoFilesRunEndToEnd) {
  {
    const scenario::RunResult r = run_file("microAllReduce.txt");
    const scenario::TrainingResult& t = r.jobs.at(0).training;
    ASSERT_GT(t.step_time_ps, 0);
    EXPECT_EQ(t.step_time_ps, t.compute_ps + t.exposed_comm_ps);
    int64_t n = 0;
    for (const scenario::PhaseComm& pc : t.comm) n += pc.collectives;
    EXPECT_EQ(n, 2 * read_comm("microAllReduce.txt").collectives) << "one per MP group of 8";
  }
  {
    const scenario::RunResult r = run_file("MLP_ModelParallel.txt");
    const scenario::TrainingResult& t = r.jobs.at(0).training;
    ASSERT_GT(t.step_time_ps, 0);
    EXPECT_EQ(t.step_time_ps, t.compute_ps + t.exposed_comm_ps);
    int64_t n = 0;
    for (const scenario::PhaseComm& pc : t.comm) n += pc.collectives;
    EXPECT_EQ(n, read_comm("MLP_ModelParallel.txt").collectives - 1)
        << "every collective of the file but layer 0's input-gradient all-reduce";
  }
}

TEST(AstraRun, ABadFileIsReportedAtItsLine) {
  const std::string yaml =
      "name: astra\n"
      "topology: {kind: rail, radix: 16}\n"
      "hosts: {count: 2, nics_per_host: 8}\n"
      "node: {gpus_per_node: 8}\n"
      "workload: {kind: training}\n"
      "training: {source: astra, file: /nonexistent/w.txt}\n";
  const scenario::LoadedScenario loaded = scenario::load_scenario_string(yaml, "astra.yaml");
  try {
    scenario::run_scenario(loaded.scenario);
    ADD_FAILURE() << "a missing workload file was accepted";
  } catch (const InputError& e) {
    const std::string line = scenario::format_input_error(loaded, e);
    EXPECT_EQ(line.rfind("/nonexistent/w.txt:", 0), 0u) << line;
    EXPECT_NE(line.find("training.file"), std::string::npos) << line;
  }
}

}  // namespace astra_run_test
}  // namespace fabricsim
