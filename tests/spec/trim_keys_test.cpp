// The trimming and per-port queue keys (knob_registry_trim.cpp): they reach the switch config,
// and out-of-range values give the one-line file:line: key: message error.
#include <gtest/gtest.h>

#include <string>

#include "spec/load.h"

namespace fabricsim::scenario {
namespace trim_keys_test {

std::string error_of(const std::string& yaml) {
  try {
    load_scenario_string(yaml, "s.yaml");
  } catch (const LoadError& e) {
    return e.what();
  }
  return "";
}

TEST(TrimKeys, ReachTheSwitchConfig) {
  const LoadedScenario l = load_scenario_string(
      "fabric:\n"
      "  switch: {port_queue: 178450B}\n"
      "  trim: {header: 256B, victim: htsim}\n",
      "s.yaml");
  EXPECT_EQ(l.scenario.switch_config.port_queue_bytes, 178'450) << "43 x 4150 B (htsim 1 x BDP)";
  EXPECT_EQ(l.scenario.switch_config.trim.header_bytes, 256);
  EXPECT_EQ(l.scenario.switch_config.trim.victim, net::TrimVictim::kArrivalOrNewest);
}

TEST(TrimKeys, DefaultsAreNoCapArrivalAnd64Bytes) {
  const LoadedScenario l = load_scenario_string("name: x\n", "s.yaml");
  EXPECT_EQ(l.scenario.switch_config.port_queue_bytes, 0);
  EXPECT_EQ(l.scenario.switch_config.trim.header_bytes, 64);
  EXPECT_EQ(l.scenario.switch_config.trim.victim, net::TrimVictim::kArrival);
}

TEST(TrimKeys, OutOfRangeIsAnError) {
  const std::string small = error_of("fabric:\n  trim: {header: 32B}\n");
  EXPECT_EQ(small.rfind("s.yaml:2: fabric.trim.header:", 0), 0u) << small;
  const std::string big = error_of("fabric:\n  trim: {header: 2KiB}\n");
  EXPECT_EQ(big.rfind("s.yaml:2: fabric.trim.header:", 0), 0u) << big;
  const std::string neg = error_of("fabric:\n  switch: {port_queue: -1B}\n");
  EXPECT_EQ(neg.rfind("s.yaml:2: fabric.switch.port_queue:", 0), 0u) << neg;
  const std::string victim = error_of("fabric:\n  trim: {victim: oldest}\n");
  EXPECT_EQ(victim.rfind("s.yaml:2: fabric.trim.victim:", 0), 0u) << victim;
}

}  // namespace trim_keys_test
}  // namespace fabricsim::scenario
