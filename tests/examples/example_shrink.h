// The overrides that shrink a slow example for the test suite (examples_test.cpp and the flow
// and hybrid mode examples tests run them): the same kind of workload, smaller; and the list of
// examples the mode tests enumerate.
#pragma once

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "../support/cli_runner.h"

namespace fabricsim::example_shrink {

// Overrides that bring an example well under 2 s of wall time while keeping its kind of
// workload. Examples not listed already run fast as written.
inline const std::map<std::string, std::vector<std::string>> kShrink = {
    // 128 ranks x 64 MiB -> 32 ranks x 8 MiB: still a ring all-reduce on the same leaf-spine.
    {"default.yaml", {"hosts.count=32", "workload.size=8MiB"}},
    // The same shape for the ib-vs-roce comparison file (run here as its RoCE side).
    {"ib-vs-roce.yaml", {"hosts.count=32", "workload.size=8MiB"}},
    {"ai-fabrics.yaml", {"hosts.count=32", "workload.size=8MiB"}},
    // GPU examples: the same sweep, collective or step, smaller.
    {"nccl-tests-sweep.yaml", {"workload.max_size=64MiB"}},
    {"nccl-tests-sweep-16x8.yaml", {"workload.max_size=4MiB", "workload.step_factor=8"}},
    {"hierarchical-allreduce.yaml", {"workload.max_size=64MiB"}},
    {"gpt-step.yaml", {"training.layers=4", "training.micro_batches=2"}},
    {"scaling.yaml", {"scaling.nodes=1,2,4", "training.layers=2", "training.micro_batches=2"}},
    // 512 GPUs (dp 8) instead of 1,024, sequence 128: still TP 8 + SP, PP 8 interleaved (v 2),
    // distributed optimizer and GQA on the same rail fabric (15 M events; 49 M unshrunk).
    {"llama-70b-1024.yaml", {"hosts.count=64", "training.seq_length=128"}},
    // 2 and 4 nodes at 64 MiB instead of 2 to 64 nodes at 1 GiB (tests/calibration's
    // nccl_scale_test runs the large points).
    {"nccl-scale.yaml", {"scaling.nodes=2,4", "workload.size=64MiB"}},
    // 2 layers instead of 8: the same straggler and jitter on the same 4 x 8 GPUs (the file's 8
    // keep the pre-flight's fixed packet bound within 2x of the peak in EstimateVsMeasured).
    {"straggler.yaml", {"training.layers=2"}},
    // 4 nodes at 64 MiB instead of 16 at 1 GiB: the same algorithms on the same rail fabric.
    {"sharp-vs-ring.yaml", {"hosts.count=4", "workload.size=64MiB"}},
};

// The example files (names, sorted) of the source tree's examples/ directory.
inline std::vector<std::string> example_names() {
  std::vector<std::string> names;
  const std::filesystem::path dir = std::filesystem::path(FABRICSIM_SOURCE_DIR) / "examples";
  for (const std::filesystem::directory_entry& e : std::filesystem::directory_iterator(dir)) {
    if (e.is_regular_file() && e.path().extension() == ".yaml") {
      names.push_back(e.path().filename().string());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

// " --set K=V" for each of the example's shrink overrides (none when it is not listed).
inline std::string shrink_args(const std::string& name) {
  std::string sets;
  const auto shrink = kShrink.find(name);
  if (shrink != kShrink.end()) {
    for (const std::string& s : shrink->second) sets += " --set " + test_support::shell_quote(s);
  }
  return sets;
}

// `fabricsim run` of the example in engine `mode` (shrunk), results in out_dir/name. If `refused`
// names a key for it, checks that the run was refused naming that key (exit 2) and returns
// false; else checks that it ran (exit 0) and returns true.
inline bool run_in_mode(const std::string& name, const std::string& mode,
                        const std::map<std::string, std::string>& refused,
                        const std::filesystem::path& out_dir) {
  const std::filesystem::path file = std::filesystem::path(FABRICSIM_SOURCE_DIR) / "examples" / name;
  const test_support::CliOutcome o = test_support::run_fabricsim(
      "run " + test_support::shell_quote(file.string()) + " --set mode=" + mode +
          shrink_args(name) + " --out " + test_support::shell_quote((out_dir / name).string()),
      out_dir);
  const auto key = refused.find(name);
  if (key != refused.end()) {
    EXPECT_EQ(o.exit_code, 2) << o.err;
    EXPECT_NE(o.err.find(": " + key->second + ": mode: " + mode), std::string::npos) << o.err;
    return false;
  }
  EXPECT_EQ(o.exit_code, 0) << o.err;
  return o.exit_code == 0;
}

// Deterministic in every mode: the example run twice in engine `mode` (shrunk, under dir/a and
// dir/b) writes byte-identical result.json, flows.csv and links.csv.
inline void expect_same_bytes_twice(const std::string& name, const std::string& mode,
                                    const std::filesystem::path& dir) {
  for (const char* run : {"a", "b"}) {
    std::filesystem::create_directories(dir / run);
    ASSERT_TRUE(run_in_mode(name, mode, {}, dir / run));
  }
  for (const char* file : {"result.json", "flows.csv", "links.csv"}) {
    const std::string a = test_support::read_file(dir / "a" / name / file);
    EXPECT_FALSE(a.empty()) << file;
    EXPECT_EQ(a, test_support::read_file(dir / "b" / name / file)) << file;
  }
}

}  // namespace fabricsim::example_shrink
