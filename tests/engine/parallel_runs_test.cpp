// The `threads` key (engine/run.cpp for_each_run): a run made of independent simulations runs
// them side by side. Each is a whole simulation sharing nothing mutable with the others, so
// result.json must be byte-identical at any thread count, errors included; the sequential
// semantics (the real run's flow records, scaling's last point) must hold.
#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "engine/run.h"
#include "output/json.h"
#include "spec/load.h"

namespace fabricsim::scenario {
namespace parallel_runs_test {

// A 2-node, 16-GPU training step (TP 8 inside each node, DP 2 across), small enough for the
// suite, with its twin on the ideal network.
std::string training_yaml(int threads) {
  return "name: par\nseed: 3\nfabric: {technology: roce, link: {rate: 400Gbps, cable: 3m}, "
         "pfc: {enabled: true}, roce: {cc: dcqcn}}\ntopology: {kind: rail, radix: 16}\n"
         "hosts: {count: 2, nics_per_host: 8}\nnode: {gpus_per_node: 8}\n"
         "workload: {kind: training}\ntraining: {layers: 2, hidden: 1024, heads: 8, "
         "seq_length: 512, micro_batch: 1, micro_batches: 2, tp: 8, pp: 1, "
         "ideal_network: true}\nthreads: " +
         std::to_string(threads) + "\n";
}

RunResult run_yaml(const std::string& yaml) {
  return run_scenario(load_scenario_string(yaml, "par.yaml").scenario);
}

TEST(ParallelRuns, IdealTwinGivesTheSameResultAtAnyThreadCount) {
  const RunResult one = run_yaml(training_yaml(1));
  ASSERT_EQ(one.jobs.size(), 1u);
  const TrainingResult& t = one.jobs[0].training;
  ASSERT_GT(t.step_time_ps, 0);
  ASSERT_GT(t.ideal_step_ps, 0) << "the twin ran";
  // The ideal network cannot be slower than the real one (docs/training.md "Ideal network").
  EXPECT_LE(t.ideal_step_ps, t.step_time_ps);
  EXPECT_EQ(t.network_ps, t.step_time_ps - t.ideal_step_ps);
  const std::string expected = output::result_json_text(one);
  for (const int threads : {2, 3, 8}) {
    const RunResult many = run_yaml(training_yaml(threads));
    EXPECT_EQ(output::result_json_text(many), expected) << threads << " threads";
    // The flow records are the real run's, as with one thread.
    EXPECT_EQ(many.flows.size(), one.flows.size()) << threads << " threads";
  }
}

TEST(ParallelRuns, ScalingPointsGiveTheSameResultAtAnyThreadCount) {
  // A 64 MiB ring all-reduce on 1, 2 and 4 nodes of 8 GPUs: three simulations.
  auto yaml = [](int threads) {
    return "name: sc\nseed: 1\nfabric: {technology: ib, link: {rate: 400Gbps, cable: 3m}}\n"
           "topology: {kind: rail, radix: 16}\nhosts: {count: 4, nics_per_host: 8}\n"
           "node: {gpus_per_node: 8}\nworkload: {kind: collective, op: all_reduce, algorithm: "
           "ring, protocol: simple, size: 64MiB}\nscaling: {nodes: [1, 2, 4]}\nthreads: " +
           std::to_string(threads) + "\n";
  };
  const RunResult one = run_yaml(yaml(1));
  ASSERT_EQ(one.scaling.size(), 3u);
  for (const ScalingPoint& p : one.scaling) EXPECT_GT(p.step_time_ps, 0) << p.nodes << " nodes";
  // More nodes, more ring steps over the slower NIC: 1 node (NVLink only) is the fastest.
  EXPECT_LT(one.scaling[0].step_time_ps, one.scaling[2].step_time_ps);
  const std::string expected = output::result_json_text(one);
  for (const int threads : {2, 4}) {
    EXPECT_EQ(output::result_json_text(run_yaml(yaml(threads))), expected)
        << threads << " threads";
  }
}

TEST(ParallelRuns, ThreadsKeyIsCheckedLikeEveryKey) {
  for (const char* bad : {"0", "257", "two"}) {
    EXPECT_THROW(run_yaml("name: x\nthreads: " + std::string(bad) + "\n"), LoadError) << bad;
  }
}

}  // namespace parallel_runs_test
}  // namespace fabricsim::scenario
