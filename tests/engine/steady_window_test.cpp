// outputs.steady_window: per-flow goodput over the window in which every flow is active,
// checked against max-min shares derived here from the frame layout.
#include <gtest/gtest.h>

#include "net/wire.h"
#include "spec/load.h"
#include "engine/run.h"

namespace fabricsim::scenario {
namespace steady_window_test {

// Payload share of the line rate for full 4096-byte RoCEv2 packets (the first of a message also
// carries a RETH; over megabytes that is negligible): payload / (frame + preamble + IFG).
double payload_fraction() {
  const double frame = net::roce_frame_bytes(4096, false) + net::kWireOnlyBytes;
  return 4096.0 / frame;
}

RunResult run(const std::string& flows) {
  const std::string yaml =
      "fabric: {technology: roce, link: {rate: 100Gbps, cable: 3m}}\n"
      "topology: {kind: leaf_spine, radix: 8}\n"
      "hosts: {count: 8}\n"
      "workload: {kind: pattern, pattern: flows, flows: " + flows + "}\n"
      "outputs: {steady_window: true}\n";
  return run_scenario(load_scenario_string(yaml, "s.yaml").scenario);
}

TEST(SteadyWindow, TwoFlowsIntoOneNicEachGetHalfTheLink) {
  // Max-min: the receiving NIC's link is the only shared resource, so each flow gets half.
  const RunResult r = run("[[0, 2, 4MB, 0us], [1, 2, 4MB, 0us]]");
  const SteadyWindowResult& w = r.steady_window;
  ASSERT_TRUE(w.measured) << w.why_not;
  EXPECT_EQ(w.flows, 2);
  const double half = payload_fraction() / 2;
  EXPECT_NEAR(w.mean_fraction, half, 0.01 * half) << "mean per-flow goodput";
  EXPECT_NEAR(w.min_fraction, half, 0.05 * half) << "FIFO service shares within 5%";
  EXPECT_GT(w.start_ps, 0);
  EXPECT_LE(w.end_ps, r.flows[0].finish_ps > 0 ? std::min(r.flows[0].finish_ps, r.flows[1].finish_ps)
                                                 : 0);
}

TEST(SteadyWindow, ASingleFlowRunsAtThePayloadRate) {
  const RunResult r = run("[[0, 5, 4MB, 0us]]");
  ASSERT_TRUE(r.steady_window.measured) << r.steady_window.why_not;
  EXPECT_NEAR(r.steady_window.mean_fraction, payload_fraction(), 0.005);
  EXPECT_DOUBLE_EQ(r.steady_window.min_fraction, r.steady_window.mean_fraction);
}

TEST(SteadyWindow, AFlowStartingAfterTheFirstCompletionLeavesNoWindow) {
  const RunResult r = run("[[0, 5, 64KB, 0us], [1, 6, 64KB, 100us]]");
  EXPECT_FALSE(r.steady_window.measured) << "flow 1 starts after flow 0 finished";
  EXPECT_FALSE(r.steady_window.why_not.empty());
}

TEST(SteadyWindow, OffByDefault) {
  const RunResult r = run_scenario(
      load_scenario_string("topology: {kind: leaf_spine, radix: 8}\nhosts: {count: 8}\n"
                           "workload: {kind: pattern, pattern: permutation, flow_size: 64KB}\n",
                           "s.yaml")
          .scenario);
  EXPECT_FALSE(r.steady_window_asked);
}

}  // namespace steady_window_test
}  // namespace fabricsim::scenario
