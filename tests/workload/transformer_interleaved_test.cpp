// Interleaved 1F1B (Narayanan et al. SC'21 §2.2.2; Megatron-core schedules.py
// forward_backward_pipelining_with_interleaving): with v model chunks per stage the pipeline
// bubble is (p - 1)(t_f + t_b) / v, 1/v of the non-interleaved (p - 1)(t_f + t_b), for v times
// as many pipeline messages. Checked on the closed-form runner with free communication, where
// the step is compute and bubble only:
//
//   stage 0: [c0 mb0][c0 mb1]...[c1 mb0]...        (v chunks of l/(p v) layers each)
//   stage 1:     [c0 mb0][c0 mb1]...
//   ...          chunk c of stage s is virtual stage c p + s
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <tuple>

#include "training_fakes.h"
#include "workload/training.h"
#include "workload/transformer.h"

namespace fabricsim::workload {
namespace transformer_interleaved_test {

using fakes::run_dag;

// tp 1, dp 1: p stages of v chunks of `per_chunk` layers; 1 FLOP = 1 ps (1 TFLOPS x 1.0); a
// one-word vocabulary so that the output layer (2bshV) is ~1/(12 h l) of the step.
TransformerSpec pipeline(int p, int v, int m, int per_chunk) {
  TransformerSpec s;
  s.layers = p * v * per_chunk;
  s.hidden = 256;
  s.heads = 4;
  s.seq_length = 128;
  s.vocab = 1;
  s.vocab_divisible_by = 1;
  s.micro_batch = 1;
  s.micro_batches = m;
  s.pp = p;
  s.virtual_stages = v;
  s.peak_tflops = 1.0;
  s.efficiency = 1.0;
  return s;
}

TEST(InterleavedSchedule, EveryStageRunsEachChunkAndMicroBatchOnceWithMegatronsWarmup) {
  for (int p : {2, 4}) {
    for (int v : {2, 3}) {
      for (int m : {p, 2 * p, 4 * p}) {
        for (int s = 0; s < p; ++s) {
          const auto order = pipeline_schedule(p, v, m, s);
          std::set<std::tuple<bool, int, int>> seen;
          int warm = 0;
          bool backward_seen = false;
          for (const PipelineBlock& b : order) {
            EXPECT_TRUE(seen.insert({b.backward, b.chunk, b.micro_batch}).second);
            if (b.backward) backward_seen = true;
            if (!backward_seen) ++warm;
          }
          EXPECT_EQ(seen.size(), static_cast<size_t>(2 * v * m));
          // Warm-up forwards: (p - s - 1) x 2 + (v - 1) x p, all of them when m = p.
          const int expected_warm = m == p ? v * m : (p - s - 1) * 2 + (v - 1) * p + 1;
          EXPECT_EQ(warm, std::min(expected_warm, v * m)) << p << " " << v << " " << m << " " << s;
          // Forwards of a chunk go in micro-batch order; backwards run the chunks in reverse.
          EXPECT_FALSE(order.front().backward);
          EXPECT_EQ(order.front().chunk, 0);
          EXPECT_EQ(order.back().chunk, 0);
          EXPECT_TRUE(order.back().backward);
        }
      }
    }
  }
}

TEST(InterleavedSchedule, BubbleIsOneVthOfTheNonInterleaved) {
  for (int p : {2, 4}) {
    for (int v : {1, 2, 4}) {
      for (int m : {p, 2 * p, 4 * p}) {
        const TransformerSpec spec = pipeline(p, v, m, 8 / v);  // 8 layers per stage
        const TransformerStep step = make_transformer_step(spec, static_cast<uint32_t>(p));
        const double bs = 128, h = 256;
        const double layer_f = 24 * bs * h * h + 4 * bs * 128 * h;
        const double f = 8 * layer_f, b = 2 * f;  // one stage's forward and backward
        const double logits = 2 * bs * h * 1;
        const TrainingResult r = run_dag(step.dag, 0, 0);
        // Narayanan §2.2.2: ideal m (f + b) plus the bubble (p - 1)(f + b) / v.
        const double expected = m * (f + b) + (p - 1) * (f + b) / v;
        // The output layer (f 2bshV, b 4bshV) runs m times on the last stage and can delay
        // the others' backwards once more per pipeline wave: bounded by 2 m of its passes.
        const double slack = 2 * m * 3 * logits;
        EXPECT_GE(r.step_ps, expected - 1) << "p " << p << " v " << v << " m " << m;
        EXPECT_LE(r.step_ps, expected + slack) << "p " << p << " v " << v << " m " << m;
        const double bubble_fraction = (r.step_ps - m * (f + b)) / (m * (f + b));
        EXPECT_NEAR(bubble_fraction, (p - 1.0) / (v * m), slack / (m * (f + b)))
            << "p " << p << " v " << v << " m " << m;
      }
    }
  }
}

TEST(InterleavedSchedule, PipelineMessagesAreVTimesAsMany) {
  TransformerSpec spec = pipeline(4, 2, 8, 1);
  spec.tp = 2;
  spec.heads = 4;
  spec.dp = 2;
  const uint32_t gpus = 4 * 2 * 2;
  for (int v : {1, 2, 4}) {
    spec.virtual_stages = v;
    spec.layers = 4 * 4;  // divisible by p v for every v here
    const TransformerStep step = make_transformer_step(spec, gpus);
    int64_t sends = 0, bytes = 0;
    for (const DagOp& op : step.dag.ops) {
      if (op.kind != DagOp::Kind::kCollective || op.phase != Phase::kPipelineParallel) continue;
      const DagCollective& c = step.dag.collectives[op.collective];
      if (c.op != CollOp::kSend) continue;
      ++sends;
      bytes += c.size_bytes;
    }
    // p v - 1 virtual-stage boundaries, each crossed by m activations and m gradients, per
    // (d, t) rank pair; b.s.h/tp bf16 elements each (Narayanan §4.1 scatter/gather).
    const int64_t expected = 2 * 8 * (4 * v - 1) * 2 * 2;
    EXPECT_EQ(sends, expected) << "v " << v;
    EXPECT_EQ(bytes, expected * 128 * 256 * 2 / 2) << "v " << v;
  }
}

TEST(InterleavedSchedule, SeveralStepsAndEveryParallelismTogetherRun) {
  // TP 2 x PP 2 (v 2) x DP 2 with SP, distributed optimizer, GQA, two steps: the DAG runs to
  // the end (the engine checks every op ran); a second step starts on a rank once its first
  // step's optimizer and parameter all-gathers are done, so it overlaps only the first's tail.
  TransformerSpec spec = pipeline(2, 2, 4, 2);
  spec.tp = 2;
  spec.dp = 2;
  spec.heads = 8;
  spec.kv_heads = 2;
  spec.sequence_parallel = true;
  spec.distributed_optimizer = true;
  const TransformerStep step = make_transformer_step(spec, 8);
  const TrainingResult one = run_dag(step.dag, 2000, 1, 1);
  const TrainingResult two = run_dag(step.dag, 2000, 1, 2);
  EXPECT_GT(two.total_ps, one.total_ps + one.compute_ps);
  EXPECT_LE(two.total_ps, 2 * one.total_ps);
}

}  // namespace transformer_interleaved_test
}  // namespace fabricsim::workload
