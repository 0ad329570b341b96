// mode: flow on every example (docs/modes.md): an example either runs in flow mode (exit 0,
// result.json says mode flow, every flow completes and every byte is delivered) or is refused
// with the one key the flow engine cannot represent, for the reason this table gives. The
// directory is enumerated: a new example must be added here, run or refused.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../support/cli_runner.h"
#include "example_shrink.h"

namespace fabricsim {
namespace flow_mode_examples_test {

using nlohmann::json;
using test_support::read_file;
using test_support::ScratchDir;


// Refused examples: the key named, and why a fluid cannot show what the example is about.
const std::map<std::string, std::string> kRefused = {
    {"incast.yaml", "outputs.pcap.frames"},                 // a capture of frames
    {"iwarp-connection-scaling.yaml", "fabric.nic.context_cache.enabled"},  // per-packet lookups
    {"lb-permutation.yaml", "outputs.steady_window"},       // goodput inside messages
    {"pfc-storm.yaml", "faults.nic_stall"},                 // a stalled receive buffer and PFC
    {"report.yaml", "outputs.timeseries"},                  // queue and CC time series
    {"sharp-vs-ring.yaml", "fabric.sharp.enabled"},         // aggregation trees in switches
    {"uet-loss.yaml", "outputs.steady_window"},
    {"vl-qos.yaml", "outputs.pcap.frames"},
};

using example_shrink::example_names;

TEST(FlowModeExamples, EveryExampleRunsInFlowModeOrIsRefusedNamingItsKey) {
  ScratchDir scratch("flowex");
  for (const std::string& name : example_names()) {
    SCOPED_TRACE(name);
    if (!example_shrink::run_in_mode(name, "flow", kRefused, scratch.path())) continue;
    const json r = json::parse(read_file(scratch.path() / name / "result.json"));
    EXPECT_EQ(r["mode"], "flow");
    EXPECT_TRUE(r["completed"].get<bool>());
    EXPECT_EQ(r["flows"]["completed"], r["flows"]["total"]);
    // Conservation: every payload byte sent was delivered, none dropped.
    EXPECT_EQ(r["counters"]["data_bytes_sent"], r["counters"]["data_bytes_delivered"]);
  }
}

TEST(FlowModeExamples, ASeedGivesTheSameBytesTwice) {
  // Deterministic in every mode: the same scenario and seed give byte-identical result.json,
  // flows.csv and links.csv (a pattern with ECMP collisions, a training step on GPUs, and a
  // failure with its re-route).
  ScratchDir scratch("flowdet");
  for (const std::string name : {"permutation.yaml", "gpt-step.yaml", "link-flap-training.yaml"}) {
    SCOPED_TRACE(name);
    example_shrink::expect_same_bytes_twice(name, "flow", scratch.path() / name);
  }
}

}  // namespace flow_mode_examples_test
}  // namespace fabricsim
