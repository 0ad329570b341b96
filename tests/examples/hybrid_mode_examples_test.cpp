// mode: hybrid on every example (docs/modes.md "Hybrid"): an example either runs in hybrid mode
// (exit 0, result.json says mode hybrid with its skip figures, every flow completes and every
// byte sent is delivered) or is refused with the one key the steady-state skipper cannot carry,
// for the reason this table gives. The directory is enumerated: a new example must be added
// here, run or refused.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../support/cli_runner.h"
#include "example_shrink.h"

namespace fabricsim {
namespace hybrid_mode_examples_test {

using nlohmann::json;
using test_support::read_file;
using test_support::ScratchDir;


// Refused examples: the key named, and why a skipped group could not carry it.
const std::map<std::string, std::string> kRefused = {
    {"adaptive-routing.yaml", "routing.sm.adaptive"},  // a path per packet: no groups
    {"cc-zoo-websearch.yaml", "fabric.roce.cc"},       // window schemes' RTT stamps
    {"cc-zoo.yaml", "fabric.roce.cc"},
    {"dragonfly.yaml", "topology.kind"},  // Valiant / UGAL per packet
    {"hpcc-vs-dcqcn.yaml", "fabric.roce.cc"},
    {"incast.yaml", "outputs.pcap.frames"},  // no frames for skipped packets
    {"iwarp-connection-scaling.yaml", "fabric.nic.context_cache.enabled"},
    {"lb-permutation.yaml", "outputs.steady_window"},  // goodput inside a skipped stretch
    {"link-flap-training.yaml", "faults.link_down"},   // skipped groups are not re-routed
    {"multi-plane.yaml", "topology.planes"},           // a plane per packet
    {"pfc-storm.yaml", "faults.nic_stall"},
    {"plb.yaml", "fabric.roce.plb.enabled"},  // re-pathing QPs
    {"report.yaml", "outputs.timeseries"},    // samples inside a skipped stretch
    {"sharp-vs-ring.yaml", "fabric.sharp.enabled"},
    {"sm-failover.yaml", "faults.link_down"},
    {"tcp-vs-rdma.yaml", "fabric.technology"},  // RoCE and InfiniBand RC only
    {"timely.yaml", "fabric.roce.cc"},
    {"uet-loss.yaml", "outputs.steady_window"},
    {"vl-qos.yaml", "outputs.pcap.frames"},
};

using example_shrink::example_names;

TEST(HybridModeExamples, EveryExampleRunsInHybridModeOrIsRefusedNamingItsKey) {
  ScratchDir scratch("hybridex");
  int skipping = 0;
  for (const std::string& name : example_names()) {
    SCOPED_TRACE(name);
    if (!example_shrink::run_in_mode(name, "hybrid", kRefused, scratch.path())) continue;
    const json r = json::parse(read_file(scratch.path() / name / "result.json"));
    EXPECT_EQ(r["mode"], "hybrid");
    EXPECT_TRUE(r["completed"].get<bool>());
    EXPECT_EQ(r["flows"]["completed"], r["flows"]["total"]);
    // Conservation with skipped packets counted once at each end: what was sent (less what
    // the fabric dropped) was delivered.
    EXPECT_EQ(r["counters"]["data_bytes_sent"].get<int64_t>() -
                  r["counters"]["dropped_bytes"].get<int64_t>(),
              r["counters"]["data_bytes_delivered"].get<int64_t>());
    const json& h = r["hybrid"];
    EXPECT_GE(h["skipped_fraction"].get<double>(), 0.0);
    EXPECT_LE(h["skipped_fraction"].get<double>(), 1.0);
    skipping += h["skips"].get<int64_t>() > 0;
  }
  EXPECT_GE(skipping, 2) << "some examples hold steady long enough to skip";
}

TEST(HybridModeExamples, ASeedGivesTheSameBytesTwice) {
  ScratchDir scratch("hybriddet");
  for (const std::string name : {"dcqcn-fairness.yaml", "gpt-step.yaml"}) {
    SCOPED_TRACE(name);
    example_shrink::expect_same_bytes_twice(name, "hybrid", scratch.path() / name);
  }
}

}  // namespace hybrid_mode_examples_test
}  // namespace fabricsim
