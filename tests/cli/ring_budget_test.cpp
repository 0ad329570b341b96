// The run's guard on queued packets (cli/ring_budget.h, core/ring.h RingMemory): the
// memory pre-flight expects DCQCN to hold a GPU run's queues near Kmax
// (preflight/resources.cpp packets_expected) and no longer counts every switch buffer full, so
// a run whose queues outgrow that expectation beyond what --max-memory leaves stops with one
// line naming fabric.switch.buffer, exit 2, and writes no results; with room it runs.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <string>

#include "../support/cli_runner.h"

namespace ring_budget_test {
namespace fs = std::filesystem;
using fabricsim::test_support::CliOutcome;
using fabricsim::test_support::run_fabricsim;
using fabricsim::test_support::ScratchDir;

const std::string kFile =
    std::string(FABRICSIM_SOURCE_DIR) + "/tests/cli/data/ring_budget_alltoall.yaml";

bool sanitized() {
#if defined(__SANITIZE_ADDRESS__)
  return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  return true;
#endif
#endif
  return false;
}

TEST(RingBudget, ValidateSaysHowFarTheQueuesCouldGo) {
  const ScratchDir dir("fabricsim_ring_budget_validate");
  const CliOutcome v = run_fabricsim("validate " + kFile + " --max-memory 1000GiB", dir.path());
  ASSERT_EQ(v.exit_code, 0) << v.err;
  EXPECT_NE(v.out.find("queued packets are expected near the ECN threshold, up to "),
            std::string::npos)
      << v.out;
}

TEST(RingBudget, QueuesBeyondTheLimitStopTheRunWithOneLine) {
  if (sanitized()) GTEST_SKIP() << "a sanitizer's shadow memory is not the program's";
  const ScratchDir dir("fabricsim_ring_budget_stop");
  const fs::path out = dir.path() / "out";
  // The pre-flight projects ~11.3 MiB for the whole process, the packets part 8 KiB: a 12 MiB
  // limit leaves the rings well under 1 MiB, while the barely reacting DCQCN lets the uplinks
  // queue ~6 MiB of 1 KiB frames (~6,000 packets of 32 bytes each in rings of 8,192 slots).
  const CliOutcome r =
      run_fabricsim("run " + kFile + " --max-memory 12MiB --out " + out.string(), dir.path());
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  ASSERT_EQ(r.err_lines.size(), 1u) << r.err;
  static const std::regex line(
      R"(^.*ring_budget_alltoall\.yaml:11: fabric\.switch\.buffer: the run stopped: the packets queued in the fabric needed [0-9.]+ (KiB|MiB) of memory, more than the [0-9.]+ (KiB|MiB) that the limit 12\.00 MiB \(--max-memory\) leaves them \(the estimate expected .*; every switch buffer full would take .*\): raise the limit or lower fabric\.switch\.buffer$)");
  EXPECT_TRUE(std::regex_match(r.err_lines[0], line)) << r.err_lines[0];
  EXPECT_FALSE(fs::exists(out)) << "nothing is presented as a result";
}

TEST(RingBudget, WithRoomTheSameRunFinishes) {
  const ScratchDir dir("fabricsim_ring_budget_room");
  const fs::path out = dir.path() / "out";
  const CliOutcome r =
      run_fabricsim("run " + kFile + " --max-memory 4GiB --out " + out.string(), dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(out / "result.json"));
}

}  // namespace ring_budget_test
