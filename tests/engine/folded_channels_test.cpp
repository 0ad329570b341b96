// collective.fold_channels (workload/collective_plan.h fold_ring_channels): a ring on one node
// moves its channels as one weighted connection per NVLink pair. On an NVSwitch node every
// channel's ring crosses the same GPU pairs with the same credits and latencies, so the
// channels move in lockstep and the folded run must end where the unfolded one does, with the
// same messages counted, for channels x fewer node-layer events. Where the channels' layouts
// differ (a size that gives one channel a loop more) nothing is folded.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "engine/run.h"
#include "spec/load.h"

namespace fabricsim::scenario {
namespace folded_channels_test {

RunResult run_one_node(const std::string& op, const std::string& protocol, int64_t size_bytes,
                       bool fold) {
  const std::string yaml =
      "name: fold\nseed: 1\nfabric:\n  technology: ib\n  link: {rate: 400Gbps, cable: 3m}\n"
      "topology: {kind: rail, radix: 16}\nhosts: {count: 2, nics_per_host: 8}\n"
      "node: {gpus_per_node: 8}\ncollective: {fold_channels: " +
      std::string(fold ? "true" : "false") +
      "}\njobs:\n  - {name: a, nodes: 1, workload: {kind: collective, op: " + op +
      ", algorithm: ring, protocol: " + protocol + ", size: " + std::to_string(size_bytes) + "B" +
      "}}\n";
  return run_scenario(load_scenario_string(yaml, "fold.yaml").scenario);
}

int64_t collective_time_ps(const RunResult& r) {
  EXPECT_EQ(r.jobs.size(), 1u);
  EXPECT_EQ(r.jobs[0].collectives.size(), 1u);
  return r.jobs[0].collectives[0].time_ps;
}

TEST(FoldedChannels, OneNodeRingsEndWhereTheirChannelsDo) {
  // 16 channels (the default) of 8 GPUs. 48 MiB: every channel's 3 MiB is one loop of 8 blocks
  // of 384 KiB (one slice each), the same for every channel, so the channels fold.
  constexpr int64_t kSize = int64_t{48} << 20;
  for (const char* op : {"all_reduce", "all_gather", "reduce_scatter"}) {
    for (const char* protocol : {"simple", "ll128", "ll"}) {
      const RunResult off = run_one_node(op, protocol, kSize, false);
      const RunResult on = run_one_node(op, protocol, kSize, true);
      const int64_t t_off = collective_time_ps(off);
      const int64_t t_on = collective_time_ps(on);
      ASSERT_GT(t_off, 0) << op << " " << protocol;
      // A folded message is one block split evenly and one wire rounding (LL, LL128: data /
      // efficiency rounded up once, not per channel): up to channels bytes less per message of
      // >= 16 x 4 KiB here, and the run ends a few hundred picoseconds apart (measured: LL
      // all-reduce 336 ps early of 294 us, 1.1e-6). 1e-5 bounds it; a folding that lost a
      // channel's share would be 1/16 = 6 % off.
      EXPECT_NEAR(static_cast<double>(t_on), static_cast<double>(t_off), 1e-5 * t_off)
          << op << " " << protocol;
      // The node layer's events (post, arrival, credit, share per message) drop with the
      // messages: the 16 channels cost about what one does.
      EXPECT_LT(on.run.events * 8, off.run.events) << op << " " << protocol;
      // Channels reported as resolved, not as folded.
      EXPECT_EQ(on.jobs[0].collectives[0].channels, off.jobs[0].collectives[0].channels);
    }
  }
}

TEST(FoldedChannels, ChannelsWhoseLayoutsDifferAreNotFolded) {
  // Simple all-gather: a loop holds 8 ranks x 2 MiB chunks = 16 MiB per channel. 16 x 16 MiB + 1
  // byte gives channel 0 one byte more than a loop, so 2 loops against the others' 1: folding
  // them would change channel 0's pipeline, so the plan keeps 16 connections per pair and the
  // run is the unfolded one, event for event.
  constexpr int64_t kSize = (int64_t{256} << 20) + 1;
  const RunResult off = run_one_node("all_gather", "simple", kSize, false);
  const RunResult on = run_one_node("all_gather", "simple", kSize, true);
  EXPECT_EQ(collective_time_ps(on), collective_time_ps(off));
  EXPECT_EQ(on.run.events, off.run.events);
}

TEST(FoldedChannels, TrainingStepWithPipelineAndDataParallelTrafficIsUnchanged) {
  // examples/llama-70b-1024.yaml at 16 nodes (TP 8 on each node's NVLink, PP 8 and DP 2 across
  // nodes, PXN relays sharing NVLink with the TP rings): the folded TP rings share each NVLink
  // port with the other traffic as their 16 channels did (weighted max-min), so the step and
  // every phase end at the same picosecond up to the folded blocks' few bytes.
  const std::string file = std::string(FABRICSIM_SOURCE_DIR) + "/examples/llama-70b-1024.yaml";
  const std::vector<std::string> sets = {"hosts.count=16", "training.seq_length=128",
                                         "training.ideal_network=false"};
  std::vector<std::string> off_sets = sets;
  off_sets.push_back("collective.fold_channels=false");
  const RunResult on = run_scenario(load_scenario(file, sets).scenario);
  const RunResult off = run_scenario(load_scenario(file, off_sets).scenario);
  ASSERT_EQ(on.jobs.size(), 1u);
  ASSERT_TRUE(on.jobs[0].training.present);
  ASSERT_TRUE(off.jobs[0].training.present);
  const double step_on = static_cast<double>(on.jobs[0].training.step_time_ps);
  const double step_off = static_cast<double>(off.jobs[0].training.step_time_ps);
  ASSERT_GT(step_off, 0);
  EXPECT_NEAR(step_on, step_off, 1e-6 * step_off);
  EXPECT_LT(on.run.events, off.run.events);
}

}  // namespace folded_channels_test
}  // namespace fabricsim::scenario
