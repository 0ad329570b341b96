// Replays, in the normal build, every input the fuzzer (fuzz/, `make fuzz`) broke on, through the
// fuzz target itself: load -> check -> build -> short run -> output formatters. Each file under
// tests/fuzz/regressions/ is one test; it passes when the input ends in one of the CLI's normal
// outcomes (a one-line bad-input error, or a run) instead of a crash or a stray exception.
// Inputs whose fix is not in yet sit in tests/fuzz/regressions/pending/ and run as DISABLED_
// tests (README.md there says what each one breaks and who owns the fix); move a file up one
// directory once fixed.
//
// Also checks the target's own classification on inputs with a known fate, so a harness that
// silently skipped everything could not pass for a clean fuzz run.
#include <gtest/gtest.h>

#include <algorithm>
#include <exception>
#include <filesystem>
#include <string>
#include <vector>

#include "../../fuzz/scenario_target.h"
#include "../support/cli_runner.h"

namespace fuzz_regressions_test {

namespace fs = std::filesystem;
using fabricsim::fuzz::Outcome;
using fabricsim::fuzz::outcome_name;
using fabricsim::fuzz::run_input;
using fabricsim::test_support::read_file;

const fs::path kSourceDir = FABRICSIM_SOURCE_DIR;

// Regular files directly in `dir` (none if it does not exist), sorted so test names are stable;
// README.md is documentation, not an input.
std::vector<fs::path> inputs_in(const fs::path& dir, const std::string& extension = "") {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    if (!e.is_regular_file() || e.path().filename() == "README.md") continue;
    if (!extension.empty() && e.path().extension() != extension) continue;
    files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// A gtest-safe test name from a file name.
std::string param_name(const ::testing::TestParamInfo<fs::path>& info) {
  std::string name = info.param.parent_path().filename().string() + "_" + info.param.stem().string();
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

// The input's outcome, failing the test (with what escaped) if run_input threw.
Outcome replay(const fs::path& file, bool* threw) {
  *threw = true;
  try {
    // The file's own path: a relative training.file (resnet50-dp) is beside it.
    const Outcome o = run_input(read_file(file), fabricsim::fuzz::Budget{}, file.string());
    *threw = false;
    return o;
  } catch (const std::exception& e) {
    ADD_FAILURE() << file << ": " << e.what();
  } catch (...) {
    ADD_FAILURE() << file << ": a non-standard exception escaped";
  }
  return Outcome::kLoadError;
}

class FuzzRegression : public ::testing::TestWithParam<fs::path> {};

TEST_P(FuzzRegression, EndsInANormalOutcome) {
  ASSERT_TRUE(fs::is_regular_file(GetParam())) << GetParam();
  bool threw = false;
  const Outcome o = replay(GetParam(), &threw);
  EXPECT_FALSE(threw) << "outcome " << outcome_name(o);
}

INSTANTIATE_TEST_SUITE_P(Fixed, FuzzRegression,
                         ::testing::ValuesIn(inputs_in(kSourceDir / "tests/fuzz/regressions")),
                         param_name);
// Found, reported, not fixed yet (see regressions/pending/README.md): DISABLED_ keeps them
// listed (ctest shows them as not run) without failing CI; run them with
// --gtest_also_run_disabled_tests.
INSTANTIATE_TEST_SUITE_P(
    DISABLED_Pending, FuzzRegression,
    ::testing::ValuesIn(inputs_in(kSourceDir / "tests/fuzz/regressions/pending")), param_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(FuzzRegression);

// The seed corpus (every example and bench scenario) is valid input: the target must load and
// check each one, then run it or skip it as over budget, never refuse it.
class FuzzSeed : public ::testing::TestWithParam<fs::path> {};

TEST_P(FuzzSeed, IsAcceptedByTheTarget) {
  bool threw = false;
  const Outcome o = replay(GetParam(), &threw);
  ASSERT_FALSE(threw);
  EXPECT_TRUE(o == Outcome::kRan || o == Outcome::kEventBudget || o == Outcome::kOverBudget)
      << GetParam() << ": " << outcome_name(o);
}

std::vector<fs::path> seeds() {
  std::vector<fs::path> files = inputs_in(kSourceDir / "examples", ".yaml");
  for (const fs::path& f : inputs_in(kSourceDir / "bench", ".yaml")) files.push_back(f);
  return files;
}
INSTANTIATE_TEST_SUITE_P(Corpus, FuzzSeed, ::testing::ValuesIn(seeds()), param_name);

// The target's outcomes on inputs whose fate is known from the loader's and resolve()'s
// rules (docs/scenario-keys.md), not from an earlier run.
TEST(FuzzTarget, ClassifiesInputs) {
  // A tiny fabric: 2 leaves x 2 spines, 8 hosts, a 64 KiB ring all-reduce.
  const std::string tiny =
      "topology: {kind: fat_tree, tiers: 2, radix: 8}\n"
      "hosts: {count: 8}\n"
      "workload: {kind: collective, op: all_reduce, size: 64KiB}\n";
  EXPECT_EQ(run_input(tiny), Outcome::kRan);
  EXPECT_EQ(run_input("name: defaults\n"), Outcome::kRan) << "every default: 128 hosts";
  EXPECT_EQ(run_input(""), Outcome::kLoadError) << "an empty scenario";
  EXPECT_EQ(run_input("fabric: {link: {rate: 400}}\n"), Outcome::kLoadError) << "no unit";
  EXPECT_EQ(run_input("- a\n- b\n"), Outcome::kLoadError) << "not a map";
  EXPECT_EQ(run_input("topology: {tiers: 2: 3\n"), Outcome::kLoadError) << "malformed YAML";
  EXPECT_EQ(run_input(tiny + "faults: {nic_stall: {nic: 8}}\n"), Outcome::kInputError)
      << "NIC 8 of 8";
  // Eight 1 GiB flows that all start at 1 ms: the step from 1 ms to 2 ms holds about 1 ms x
  // 400 Gb/s / 4 KiB = 12k packets per flow, several events each, past the 2^18-event stop.
  EXPECT_EQ(run_input("topology: {radix: 8}\nhosts: {count: 16}\n"
                      "workload: {kind: pattern, pattern: flows, flows: [[0, 8, 1GiB, 1ms], "
                      "[1, 9, 1GiB, 1ms], [2, 10, 1GiB, 1ms], [3, 11, 1GiB, 1ms], "
                      "[4, 12, 1GiB, 1ms], [5, 13, 1GiB, 1ms], [6, 14, 1GiB, 1ms], "
                      "[7, 15, 1GiB, 1ms]]}\n"),
            Outcome::kEventBudget);
  EXPECT_EQ(run_input("topology: {radix: 32}\nhosts: {count: 200}\n"), Outcome::kOverBudget)
      << "over 128 NICs";
  EXPECT_EQ(run_input("topology: {radix: 64}\nhosts: {count: 8}\n"), Outcome::kOverBudget)
      << "radix over 32";
  // 64 MiB over 16 ranks in 1-byte slices: 16 x 4 Mi messages posted at the start.
  EXPECT_EQ(run_input("topology: {radix: 8}\nhosts: {count: 16}\n"
                      "workload: {kind: collective, size: 64MiB, slice: 1B}\n"),
            Outcome::kOverBudget);
}

}  // namespace fuzz_regressions_test
