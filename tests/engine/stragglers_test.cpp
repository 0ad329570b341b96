// Stragglers end to end (training.straggler_*): one node, data parallel 8 (tp 1), one gradient
// bucket after the backward (overlap_grad_reduce off). Every rank computes the same ops, then
// the all-reduce starts when the last rank arrives, on an otherwise idle NVLink. So one rank
// 20% slower must lengthen the step by exactly 0.2 x its nominal compute (the DAG's critical
// path runs through it), make it the critical rank, and show up as the other ranks' skew; a
// slowdown that starts after the step ends changes nothing.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "engine/run.h"
#include "spec/load.h"

namespace fabricsim::scenario {
namespace stragglers_test {

TrainingResult step(const std::string& extra) {
  const std::string yaml =
      "name: straggler\nseed: 1\nfabric: {technology: roce, link: {rate: 400Gbps, cable: 3m}}\n"
      "topology: {kind: rail, radix: 16}\nhosts: {count: 1, nics_per_host: 8}\n"
      "node: {gpus_per_node: 8}\nworkload: {kind: training}\n"
      "training: {layers: 2, hidden: 1024, heads: 8, seq_length: 1024, micro_batch: 1, "
      "micro_batches: 2, tp: 1, overlap_grad_reduce: false" +
      extra + "}\n";
  const LoadedScenario s = load_scenario_string(yaml, "straggler.yaml");
  return run_scenario(s.scenario).jobs.at(0).training;
}

TEST(Stragglers, OneSlowRankLengthensTheStepByItsExtraCompute) {
  const TrainingResult base = step("");
  const TrainingResult slow = step(", straggler_ranks: [3], straggler_slowdown: 1.2");
  ASSERT_GT(base.step_time_ps, 0);
  ASSERT_GT(slow.step_time_ps, 0);
  const int64_t c = base.compute_ps;  // every rank's nominal compute (identical ranks)
  ASSERT_GT(c, 0);
  EXPECT_EQ(slow.breakdown.rank, 3) << "the straggler is the critical rank";
  EXPECT_NEAR(static_cast<double>(slow.compute_ps), 1.2 * static_cast<double>(c), 1.0 * 32)
      << "its compute is 1.2 x (each op rounded to the ps)";
  const double predicted = 0.2 * static_cast<double>(c);
  EXPECT_NEAR(static_cast<double>(slow.step_time_ps - base.step_time_ps), predicted,
              1e-4 * predicted)
      << "the all-reduce starts 0.2 C later and takes as long";
  std::printf("[straggler] step %.3f us -> %.3f us (+%.3f us, predicted 0.2 x compute %.3f us)\n",
              base.step_time_ps / 1e6, slow.step_time_ps / 1e6,
              (slow.step_time_ps - base.step_time_ps) / 1e6, predicted / 1e6);
  // A slowdown from after the step: the same step to the picosecond.
  const TrainingResult late =
      step(", straggler_ranks: [3], straggler_slowdown: 1.2, straggler_from: 1s");
  EXPECT_EQ(late.step_time_ps, base.step_time_ps);
  // From mid-step: only the ops starting later are slower.
  const TrainingResult mid = step(", straggler_ranks: [3], straggler_slowdown: 1.2, "
                                  "straggler_from: " +
                                  std::to_string(c / 2 / 1000) + "ns");
  EXPECT_GT(mid.step_time_ps, base.step_time_ps);
  EXPECT_LT(mid.step_time_ps, slow.step_time_ps);
}

TEST(Stragglers, JitterIsSeededAndReproducible) {
  const TrainingResult a = step(", compute_jitter: 0.1");
  const TrainingResult b = step(", compute_jitter: 0.1");
  const TrainingResult base = step("");
  EXPECT_EQ(a.step_time_ps, b.step_time_ps) << "same seed, same step";
  EXPECT_NE(a.step_time_ps, base.step_time_ps) << "jitter changed the compute";
}

TEST(Stragglers, ARankOutsideTheJobIsBadInput) {
  EXPECT_THROW(step(", straggler_ranks: [8], straggler_slowdown: 1.2"), InputError);
}

}  // namespace stragglers_test
}  // namespace fabricsim::scenario
