// A partitioned run spread over MPI ranks (`mpirun -np R fabricsim run FILE --threads T`,
// core/rank_run.h, engine/packet/partitioned_run.cpp): result.json, flows.csv and links.csv
// must be byte-identical to one process's sequential run, on the scenarios of
// partitioned_run_test (tests/engine/partitioned_cases.h: PFC PAUSE frames and InfiniBand
// credits over cut cables between ranks, CNPs, drops reported to a sender on another rank,
// flows starting between windows, UET's and TCP's ACK details and TCP's segment anchors taken
// from another rank, a time limit). Each case runs at 2 ranks of 1 thread and at 3 ranks of
// 2 threads (6 partitions: threads within ranks too), with Open MPI's own mpirun on this
// machine (--oversubscribe: more processes than cores). run.json must say the run was spread
// over the ranks: a run that silently stayed on one rank would pass the comparison untested.
//
// Without mpirun, or with a fabricsim built without MPI (FABRICSIM_MPI=OFF), the tests are
// skipped and say why. As root, Open MPI refuses to start unless told it may
// (OMPI_ALLOW_RUN_AS_ROOT and its confirmation): the test sets both for its own mpirun.
//
// Not run by `make sanitize` (scripts/sanitize leaves the tests named MpiRun out): Open MPI's
// libraries keep allocations to the end of the process that LeakSanitizer reports as leaks.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "../support/cli_runner.h"
#include "partitioned_cases.h"

namespace fabricsim::mpi_run_test {
namespace fs = std::filesystem;
using partitioned_cases::Case;
using partitioned_cases::kCases;
using test_support::CliOutcome;
using test_support::read_file;
using test_support::run_fabricsim;
using test_support::run_shell;
using test_support::shell_quote;

fs::path scratch(const std::string& name) {
  const fs::path d =
      fs::temp_directory_path() / ("fabricsim-mpi-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// Why MPI runs cannot be tested here ("" if they can).
std::string why_no_mpi(const fs::path& dir) {
  if (run_shell("command -v mpirun", dir).exit_code != 0) {
    return "mpirun not found: install openmpi-bin and libopenmpi-dev (scripts/install-deps)";
  }
  return "";
}

// `mpirun --oversubscribe -np ranks fabricsim ARGS` (a time limit so that a hang fails).
CliOutcome mpirun(int ranks, const std::string& args, const fs::path& dir) {
  if (::geteuid() == 0) {  // Open MPI will not start as root without both
    ::setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
    ::setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
  }
  return run_shell("timeout 120 mpirun --oversubscribe -np " + std::to_string(ranks) + " " +
                       shell_quote(FABRICSIM_BINARY) + " " + args,
                   dir);
}

// The skip reason when the binary was built without MPI (it refuses to run under mpirun).
std::string built_without_mpi(const CliOutcome& r) {
  return r.err.find("has no MPI backend") != std::string::npos
             ? "fabricsim was built without MPI (FABRICSIM_MPI=OFF)"
             : "";
}

// The lines of stderr that fabricsim wrote (mpirun adds its own about a non-zero exit).
int fabricsim_lines(const CliOutcome& r) {
  int n = 0;
  for (const std::string& line : r.err_lines) {
    n += line.find("threads:") != std::string::npos || line.rfind("fabricsim", 0) == 0;
  }
  return n;
}

class MpiRun : public testing::TestWithParam<Case> {};

TEST_P(MpiRun, EveryFileIsTheSequentialRunsAtTwoAndThreeRanks) {
  const Case& c = GetParam();
  const fs::path dir = scratch(c.name);
  if (const std::string why = why_no_mpi(dir); !why.empty()) GTEST_SKIP() << why;
  const fs::path file = dir / "s.yaml";
  std::ofstream(file) << c.yaml;
  const fs::path one = dir / "one";
  const CliOutcome seq = run_fabricsim(
      "run " + shell_quote(file.string()) + " --out " + shell_quote(one.string()), dir);
  ASSERT_EQ(seq.exit_code, 0) << seq.err;
  const auto sequential = nlohmann::json::parse(read_file(one / "run.json"));
  const std::string result = read_file(one / "result.json");
  ASSERT_FALSE(result.empty());
  for (const auto& [ranks, threads] : {std::pair{2, 1}, std::pair{3, 2}}) {
    SCOPED_TRACE(testing::Message() << ranks << " ranks x " << threads << " threads");
    const fs::path many = dir / ("r" + std::to_string(ranks));
    const CliOutcome r =
        mpirun(ranks,
               "run " + shell_quote(file.string()) + " --threads " + std::to_string(threads) +
                   " --out " + shell_quote(many.string()),
               dir);
    if (const std::string why = built_without_mpi(r); !why.empty()) GTEST_SKIP() << why;
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto run = nlohmann::json::parse(read_file(many / "run.json"));
    // Spread over the ranks, each with its own partitions, not one process's run.
    ASSERT_EQ(run.value("ranks", 1), ranks) << run.dump();
    ASSERT_EQ(run.value("partitions", 1), ranks * threads) << run.dump();
    // Every rank ran events of its own (rank r has partitions [r x threads, (r + 1) x threads);
    // a partition may have none: a fabric of fewer leaves than partitions).
    const auto& events = run["partition_events"];
    ASSERT_EQ(events.size(), static_cast<size_t>(ranks * threads));
    for (int rank = 0; rank < ranks; ++rank) {
      int64_t own = 0;
      for (int t = 0; t < threads; ++t) own += events[rank * threads + t].get<int64_t>();
      EXPECT_GT(own, 0) << "rank " << rank << " ran nothing";
    }
    // Every rank's own figures, gathered on rank 0 (docs/parallel.md "What each rank builds").
    ASSERT_EQ(run["rank_peak_rss_bytes"].size(), static_cast<size_t>(ranks)) << run.dump();
    ASSERT_EQ(run["rank_build_seconds"].size(), static_cast<size_t>(ranks)) << run.dump();
    for (int rank = 0; rank < ranks; ++rank) {
      EXPECT_GT(run["rank_peak_rss_bytes"][rank].get<int64_t>(), 0) << "rank " << rank;
    }
    EXPECT_EQ(read_file(many / "result.json"), result);
    EXPECT_EQ(read_file(many / "flows.csv"), read_file(one / "flows.csv"));
    EXPECT_EQ(read_file(many / "links.csv"), read_file(one / "links.csv"));
    EXPECT_EQ(run["events"], sequential["events"]);
    EXPECT_EQ(run["sim_time_ps"], sequential["sim_time_ps"]);
  }
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Cases, MpiRun, testing::ValuesIn(kCases),
                         [](const testing::TestParamInfo<Case>& info) {
                           std::string name = info.param.name;
                           for (char& ch : name) {
                             ch = std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
                           }
                           return name;
                         });

TEST(MpiRunRefusals, WhatCannotBeSpreadIsRefusedInOneLine) {
  const fs::path dir = scratch("refused");
  if (const std::string why = why_no_mpi(dir); !why.empty()) GTEST_SKIP() << why;
  // A GPU scenario: not split even across threads (partitioned_run_test).
  std::ofstream(dir / "gpu.yaml")
      << "name: g\nseed: 1\nfabric: {technology: ib, link: {rate: 400Gbps, cable: 3m}}\n"
         "topology: {kind: rail, radix: 16}\nhosts: {count: 2, nics_per_host: 8}\n"
         "node: {gpus_per_node: 8}\nworkload: {kind: collective, op: all_reduce, algorithm: "
         "ring, protocol: simple, size: 8MiB}\n";
  const CliOutcome gpu = mpirun(2, "run " + shell_quote((dir / "gpu.yaml").string()) + " --out " + shell_quote((dir / "g").string()), dir);
  if (const std::string why = built_without_mpi(gpu); !why.empty()) GTEST_SKIP() << why;
  EXPECT_EQ(gpu.exit_code, 2) << gpu.err;
  // One line, from rank 0 (the other rank is silent; mpirun adds its own notice of the exit).
  EXPECT_EQ(fabricsim_lines(gpu), 1) << gpu.err;
  EXPECT_NE(gpu.err.find("threads: this run cannot be spread over 2 MPI ranks"), std::string::npos)
      << gpu.err;
  EXPECT_NE(gpu.err.find("GPU"), std::string::npos) << gpu.err;
  EXPECT_FALSE(fs::exists(dir / "g" / "result.json"));
  // Three ranks on a fabric of two leaves: one rank would have no partition of its own.
  std::ofstream(dir / "small.yaml")
      << "name: s\nseed: 1\nfabric: {technology: roce, link: {rate: 100Gbps, cable: 3m}}\n"
         "topology: {kind: leaf_spine, radix: 4}\nhosts: {count: 4}\n"
         "workload: {kind: pattern, pattern: permutation, flow_size: 10KB}\n";
  const CliOutcome small = mpirun(3, "run " + shell_quote((dir / "small.yaml").string()), dir);
  EXPECT_EQ(small.exit_code, 2) << small.err;
  EXPECT_EQ(fabricsim_lines(small), 1) << small.err;
  EXPECT_NE(small.err.find("fewer than the ranks"), std::string::npos) << small.err;
  // Only `run` is spread over ranks.
  const CliOutcome other = mpirun(2, "validate " + shell_quote((dir / "small.yaml").string()), dir);
  EXPECT_EQ(other.exit_code, 2) << other.err;
  EXPECT_NE(other.err.find("only `fabricsim run`"), std::string::npos) << other.err;
  fs::remove_all(dir);
}

}  // namespace fabricsim::mpi_run_test
