// The explicit flow list (workload.pattern: flows): parsing, errors with their line, and the
// NIC-range check that needs the topology.
#include <gtest/gtest.h>

#include "core/error.h"
#include "resolve/resolve.h"
#include "spec/load.h"
#include "engine/run.h"

namespace fabricsim::scenario {
namespace flows_test {

constexpr const char* kHeader =
    "topology: {kind: leaf_spine, radix: 8}\n"
    "hosts: {count: 16}\n"
    "workload:\n"
    "  kind: pattern\n"
    "  pattern: flows\n";

std::string error_of(const std::string& yaml) {
  try {
    load_scenario_string(yaml, "f.yaml");
  } catch (const LoadError& e) {
    return e.what();
  }
  return "";
}

TEST(FlowList, ParsesSourcesDestinationsSizesAndStarts) {
  const LoadedScenario s = load_scenario_string(
      std::string(kHeader) + "  flows: [[1, 0, 1MB, 0us], [7, 12, 2KiB, 1.5us]]\n", "f.yaml");
  const auto& flows = s.scenario.workload.flows;
  ASSERT_EQ(flows.size(), 2u);
  EXPECT_EQ(flows[1].src, 7) << "source NIC";
  EXPECT_EQ(flows[1].dst, 12) << "destination NIC";
  EXPECT_EQ(flows[1].size_bytes, 2048) << "KiB is 1024 bytes";
  EXPECT_EQ(flows[1].start_ps, 1'500'000) << "1.5 us in ps";
}

TEST(FlowList, AFifthElementIsTheServiceLevel) {
  const LoadedScenario s = load_scenario_string(
      std::string(kHeader) + "  flows: [[1, 0, 1MB, 0us, 3], [2, 0, 1MB, 0us]]\n", "f.yaml");
  EXPECT_EQ(s.scenario.workload.flows[0].sl, 3) << "explicit SL";
  EXPECT_EQ(s.scenario.workload.flows[1].sl, -1) << "no SL: the fabric's";
  EXPECT_EQ(error_of(std::string(kHeader) + "  flows:\n    - [1, 0, 1MB, 0us, 16]\n"),
            "f.yaml:7: workload.flows[0]: the fifth element is an InfiniBand SL, 0 to 15");
}

TEST(FlowList, MalformedEntriesNameTheEntryAndLine) {
  EXPECT_EQ(error_of(std::string(kHeader) + "  flows:\n    - [1, 0, 1MB]\n"),
            "f.yaml:7: workload.flows[0]: expected [src NIC, dst NIC, size, start] or [src, dst, "
            "size, start, SL] like [1, 0, 1MB, 0us], got a list")
      << "three fields instead of four";
  EXPECT_EQ(error_of(std::string(kHeader) + "  flows: [[3, 3, 1MB, 0us]]\n"),
            "f.yaml:6: workload.flows[0]: a flow needs two different NICs")
      << "self flow";
  EXPECT_EQ(error_of(std::string(kHeader) + "  flows: [[1, 0, 1000, 0us]]\n"),
            "f.yaml:6: workload.flows[0]: missing unit in '1000'; expected a size like 64MiB")
      << "size without unit";
  EXPECT_EQ(error_of(std::string(kHeader) + "  flow_size: 1MB\n  senders: 2\n"),
            "f.yaml:7: workload.senders: only valid with pattern: incast")
      << "incast keys under pattern: flows";
}

TEST(FlowList, NicsBeyondTheTopologyAreRefused) {
  const LoadedScenario s =
      load_scenario_string(std::string(kHeader) + "  flows: [[1, 16, 1MB, 0us]]\n", "f.yaml");
  try {
    (void)resolve(s.scenario);
    FAIL() << "NIC 16 does not exist in a 16-NIC fabric";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key_path(), "workload.flows") << e.what();
  }
}

}  // namespace flows_test
}  // namespace fabricsim::scenario
