// The generator's data-parallel step run by the engine (closed-form runner): gradient buckets
// overlap the backward, so step = compute + the tail of the buckets that become ready with the
// last backward op, run in turn on their communicator; without overlap one bucket of every gradient follows the whole backward.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "training_fakes.h"
#include "workload/training.h"
#include "workload/transformer.h"

namespace fabricsim::workload {
namespace transformer_overlap_test {

using fakes::run_dag;

constexpr int64_t kLatency = 5'000;  // 5 ns per collective
constexpr int64_t kPsPerByte = 1;    // 1 TB/s

// Two layers, h = 256, s = 128, b = 1, V = 128 (padded 128), dp = 2, one micro-batch; 1 FLOP =
// 1 ps (peak 1 TFLOPS, efficiency 1).
TransformerSpec small_dp() {
  TransformerSpec s;
  s.layers = 2;
  s.hidden = 256;
  s.heads = 4;
  s.seq_length = 128;
  s.vocab = 128;
  s.dp = 2;
  s.peak_tflops = 1.0;
  s.efficiency = 1.0;
  return s;
}

TEST(TransformerOverlap, StepIsComputePlusTheLastBucketsTail) {
  TransformerSpec spec = small_dp();
  spec.bucket_params = 1;  // every gradient unit (half a layer, the embeddings) its own bucket
  const TransformerStep step = make_transformer_step(spec, 2);
  const TrainingResult r = run_dag(step.dag, kLatency, kPsPerByte);
  const double b = 1, s = 128, h = 256, V = 128, l = 2;
  // Per rank: forward of l layers + logits, backward twice that (Narayanan §5.1), no TP split.
  const double layer = 24 * b * s * h * h + 4 * b * s * s * h;
  const double compute = 3 * (l * layer + 2 * b * s * h * V);
  EXPECT_EQ(r.compute_ps, static_cast<int64_t>(compute));
  // Backward order: logits, layer 2 MLP, layer 2 attention, layer 1 MLP, layer 1 attention,
  // embeddings. Layer 1's attention weight gradient is the last compute op; its bucket and the
  // embedding bucket (ready at the end of backward) are issued then. Earlier buckets finish
  // under the remaining backward (checked below). Both are on the one data-parallel
  // communicator, whose collectives run one at a time in issue order (NCCL kernels on the
  // process group's one stream, workload/training.h): the exposed time is the two in turn.
  const int64_t attn_bytes = static_cast<int64_t>((4 * h * h + 6 * h) * 4);
  const int64_t emb_bytes = static_cast<int64_t>((V * h + s * h) * 4);
  const int64_t mlp_bytes = static_cast<int64_t>((8 * h * h + 7 * h) * 4);
  ASSERT_LT(kLatency + mlp_bytes * kPsPerByte, 2 * (8 * b * s * h * h + 4 * b * s * s * h))
      << "layer 1's MLP bucket hides under layer 1's attention backward";
  const int64_t tail = 2 * kLatency + (attn_bytes + emb_bytes) * kPsPerByte;
  EXPECT_EQ(r.exposed_comm_ps, tail);
  EXPECT_EQ(r.step_ps, static_cast<int64_t>(compute) + tail);
  EXPECT_EQ(r.comm_count[static_cast<int>(Phase::kDataParallel)], 2 * 2 + 1)
      << "2 halves x 2 layers + the embeddings";
}

TEST(TransformerOverlap, WithoutOverlapOneBucketFollowsTheBackward) {
  TransformerSpec spec = small_dp();
  spec.overlap_grad_reduce = false;
  const TransformerStep step = make_transformer_step(spec, 2);
  const TrainingResult r = run_dag(step.dag, kLatency, kPsPerByte);
  const double s = 128, h = 256, V = 128;
  const int64_t params = static_cast<int64_t>(2 * (12 * h * h + 13 * h) + V * h + s * h);
  EXPECT_EQ(r.comm_count[static_cast<int>(Phase::kDataParallel)], 1);
  EXPECT_EQ(r.comm_bytes[static_cast<int>(Phase::kDataParallel)], params * 4);
  EXPECT_EQ(r.exposed_comm_ps, kLatency + params * 4 * kPsPerByte);
}

// Two steps: the second starts on each rank after the first's optimizer, so it repeats it.
TEST(TransformerOverlap, StepsRepeatTheIteration) {
  TransformerSpec spec = small_dp();
  const TransformerStep step = make_transformer_step(spec, 2);
  const TrainingResult one = run_dag(step.dag, kLatency, kPsPerByte);
  const TrainingResult three = run_dag(step.dag, kLatency, kPsPerByte, 3);
  EXPECT_EQ(three.total_ps, 3 * one.total_ps);
  EXPECT_EQ(three.compute_ps, 3 * one.compute_ps);
}

// Tensor parallelism (tp 2, one layer, dp 1): the two forward all-reduces sit on the critical
// path (Shoeybi et al. 2019, the g operator); in backward each half's all-reduce runs beside
// the weight gradient of its column-parallel GEMM (QKV 6bsh^2/tp, FC1 8bsh^2/tp), so only the
// part of it longer than that GEMM is exposed. The all-reduce (c = 5 ns + 65,536 B x 400 ps)
// is longer than QKV's weight gradient and shorter than FC1's.
TEST(TransformerOverlap, TensorParallelAllReducesHideOnlyUnderTheColumnWeightGradient) {
  TransformerSpec spec;
  spec.layers = 1;
  spec.hidden = 256;
  spec.heads = 4;
  spec.seq_length = 128;
  spec.vocab = 128;
  spec.tp = 2;
  spec.peak_tflops = 1.0;
  spec.efficiency = 1.0;
  const TransformerStep step = make_transformer_step(spec, 2);
  constexpr int64_t kPsPerByteTp = 400;
  const TrainingResult r = run_dag(step.dag, kLatency, kPsPerByteTp);
  const double b = 1, s = 128, h = 256, V = 256 /* 128 padded to 128 x tp */, tp = 2;
  const double attn = 8 * b * s * h * h + 4 * b * s * s * h, mlp = 16 * b * s * h * h;
  const double logits = 2 * b * s * h * V;
  const int64_t compute = static_cast<int64_t>(3 * (attn + mlp + logits) / tp);
  const int64_t c = kLatency + static_cast<int64_t>(b * s * h * 2) * kPsPerByteTp;
  const int64_t qkv_wgrad = static_cast<int64_t>(6 * b * s * h * h / tp);
  const int64_t fc1_wgrad = static_cast<int64_t>(8 * b * s * h * h / tp);
  ASSERT_GT(c, qkv_wgrad);
  ASSERT_LT(c, fc1_wgrad);
  EXPECT_EQ(r.compute_ps, compute);
  EXPECT_EQ(r.exposed_comm_ps, 2 * c + (c - qkv_wgrad));
  EXPECT_EQ(r.step_ps, compute + 2 * c + (c - qkv_wgrad));
  const int tpi = static_cast<int>(Phase::kTensorParallel);
  EXPECT_EQ(r.comm_count[tpi], 4);
  EXPECT_EQ(r.comm_ps[tpi], 4 * c);
  EXPECT_EQ(r.comm_not_overlapped_ps[tpi], 2 * c + (c - qkv_wgrad));
}

// Every parallelism at once (tp 2, pp 2, dp 4, ep 2, MoE every other layer, recomputation, two
// steps): every op runs, each rank's compute time is the sum of its ops' durations, and every
// collective of the DAG ran once per step.
TEST(TransformerOverlap, AllParallelismsTogetherRunToCompletion) {
  TransformerSpec spec;
  spec.layers = 4;
  spec.hidden = 256;
  spec.heads = 4;
  spec.seq_length = 128;
  spec.vocab = 1000;
  spec.micro_batches = 3;
  spec.tp = 2;
  spec.pp = 2;
  spec.ep = 2;
  spec.moe_experts = 4;
  spec.moe_every = 2;
  spec.recompute = true;
  spec.bucket_params = 100'000;
  const TransformerStep step = make_transformer_step(spec, 16);
  ASSERT_EQ(step.dp, 4);
  const TrainingResult r = run_dag(step.dag, kLatency, kPsPerByte, 2);
  std::vector<int64_t> busy(step.dag.ranks, 0);
  std::array<int64_t, kPhases> count{};
  for (const DagOp& op : step.dag.ops) {
    if (op.kind == DagOp::Kind::kCompute)
      busy[op.rank] += 2 * op.duration_ps;
    else
      ++count[static_cast<int>(op.phase)];
  }
  for (uint32_t rank = 0; rank < step.dag.ranks; ++rank) {
    EXPECT_EQ(r.rank_compute_ps[rank], busy[rank]) << "rank " << rank;
  }
  for (int p = 0; p < kPhases; ++p) EXPECT_EQ(r.comm_count[p], 2 * count[p]) << "phase " << p;
  EXPECT_GT(count[static_cast<int>(Phase::kExpertParallel)], 0);
  EXPECT_GE(r.exposed_comm_ps, 0);
  EXPECT_EQ(r.total_ps, r.step_end_ps[1] - r.start_ps);
  EXPECT_LT(r.step_end_ps[0], r.step_end_ps[1]);
}

}  // namespace transformer_overlap_test
}  // namespace fabricsim::workload
