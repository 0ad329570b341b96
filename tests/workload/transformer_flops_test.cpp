// The transformer generator against formulas derived here from the papers: FLOPs per step
// (Narayanan et al. SC'21 §5.1: 72.B.s.l.h^2 (1 + s/6h + V/12lh), 96... with recomputation),
// communication counts and bytes per parallelism (Shoeybi et al. 2019; Narayanan §2.2, §4.1;
// Megatron-core DDP and MoE dispatcher, docs/reference/gpu-node.md §5), and the 1F1B step time
// (m + p - 1)(f + b) of Narayanan §2.2.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <numeric>

#include "training_fakes.h"
#include "workload/training.h"
#include "workload/transformer.h"

namespace fabricsim::workload {
namespace transformer_flops_test {

using fakes::gpt_like;
using fakes::run_dag;

int64_t padded_vocab(int64_t v, int64_t multiple) {
  return (v + multiple - 1) / multiple * multiple;
}

struct Tally {
  std::map<std::pair<Phase, CollOp>, int64_t> count;
  std::map<std::pair<Phase, CollOp>, std::map<int64_t, int64_t>> sizes;  // size -> count
  std::map<std::pair<Phase, CollOp>, int64_t> bytes;
  double flops = 0;
  int64_t compute_ps = 0;
  int64_t compute_ops = 0;
};

Tally tally(const TransformerStep& step) {
  Tally t;
  for (size_t i = 0; i < step.dag.ops.size(); ++i) {
    const DagOp& op = step.dag.ops[i];
    if (op.kind == DagOp::Kind::kCompute) {
      t.flops += step.op_flops[i];
      t.compute_ps += op.duration_ps;
      ++t.compute_ops;
      continue;
    }
    const DagCollective& c = step.dag.collectives[op.collective];
    const auto key = std::make_pair(op.phase, c.op);
    ++t.count[key];
    ++t.sizes[key][c.size_bytes];
    t.bytes[key] += c.size_bytes;
  }
  return t;
}

TEST(TransformerFlops, StepFlopsMatchMegatronFormulaWithoutAndWithRecompute) {
  for (bool recompute : {false, true}) {
    TransformerSpec spec = gpt_like();
    spec.recompute = recompute;
    const TransformerStep step = make_transformer_step(spec, 8);
    const double B = 2.0 * 4 * 2;  // micro_batch x micro_batches x dp
    const double s = 512, l = 8, h = 1024;
    const double V = static_cast<double>(padded_vocab(50257, 128 * 2));
    EXPECT_EQ(step.vocab_padded, 50432);
    const double expected = recompute
                                ? 96 * B * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h))
                                : 72 * B * s * l * h * h * (1 + s / (6 * h) + V / (12 * l * h));
    const Tally t = tally(step);
    EXPECT_NEAR(t.flops / expected, 1.0, 1e-12) << "recompute " << recompute;
    // Compute time = FLOPs / (989.4 TFLOPS x 0.45), each op rounded to 1 ps.
    const double ideal_ps = expected / (989.4 * 0.45);
    EXPECT_NEAR(static_cast<double>(t.compute_ps), ideal_ps, 0.5 * t.compute_ops + 1);
  }
}

TEST(TransformerFlops, MoeLayersRunTopKExperts) {
  TransformerSpec spec = gpt_like();
  spec.tp = 1;
  spec.pp = 1;
  spec.dp = 4;
  spec.ep = 2;
  spec.moe_experts = 8;
  spec.moe_top_k = 2;
  spec.moe_every = 2;  // layers 0, 2, 4, 6 (0-based) are MoE
  const TransformerStep step = make_transformer_step(spec, 4);
  const double B = 2.0 * 4 * 4, s = 512, l = 8, h = 1024;
  const double V = static_cast<double>(padded_vocab(50257, 128));
  const double dense = 72 * B * s * l * h * h * (1 + s / (6 * h) + V / (12 * l * h));
  // Each MoE layer runs (top_k - 1) more FFNs of 16 B s h^2 forward FLOPs, x3 with backward.
  const double expected = dense + 4 * (2 - 1) * 3 * 16 * B * s * h * h;
  EXPECT_NEAR(tally(step).flops / expected, 1.0, 1e-12);
}

TEST(TransformerComm, TensorPipelineAndDataParallelCountsAndBytes) {
  for (bool recompute : {false, true}) {
    TransformerSpec spec = gpt_like();
    spec.recompute = recompute;
    const TransformerStep step = make_transformer_step(spec, 8);
    const Tally t = tally(step);
    const int64_t bsh = 2 * 512 * 1024, l = 8, m = 4, dp = 2, tp = 2, pp = 2;
    // TP: 2 all-reduces forward + 2 backward per layer per micro-batch per TP group (+2 for the
    // recomputed forward), each b.s.h bf16 elements.
    const auto tp_key = std::make_pair(Phase::kTensorParallel, CollOp::kAllReduce);
    EXPECT_EQ(t.count.at(tp_key), (recompute ? 6 : 4) * l * m * dp);
    EXPECT_EQ(t.sizes.at(tp_key).size(), 1u);
    EXPECT_EQ(t.sizes.at(tp_key).begin()->first, bsh * 2);
    // PP: per stage boundary, micro-batch and direction b.s.h elements, split over the TP ranks.
    const auto pp_key = std::make_pair(Phase::kPipelineParallel, CollOp::kSend);
    EXPECT_EQ(t.count.at(pp_key), 2 * (pp - 1) * m * dp * tp);
    EXPECT_EQ(t.bytes.at(pp_key), 2 * (pp - 1) * m * dp * bsh * 2);
    // DP: each rank's gradients (fp32) once per step: per rank of a stage
    // (l/pp)(12h^2 + 13h)/tp, plus the tied word embedding V.h/tp on the first and last stage
    // and the position embedding s.h/tp on the first.
    const int64_t h = 1024, V = 50432, s = 512;
    const int64_t layers_params = (l / pp) * (12 * h * h + 13 * h) / tp;
    const int64_t first = layers_params + V * h / tp + s * h / tp;
    const int64_t last = layers_params + V * h / tp;
    ASSERT_EQ(step.stage_dense_params.size(), 2u);
    EXPECT_EQ(step.stage_dense_params[0], first);
    EXPECT_EQ(step.stage_dense_params[1], last);
    const auto dp_key = std::make_pair(Phase::kDataParallel, CollOp::kAllReduce);
    EXPECT_EQ(t.bytes.at(dp_key), 4 * tp * (first + last));
    // Megatron's bucket: max(40e6, 1e6 x dp) parameters; every bucket but the last of a stage
    // holds at least that many.
    EXPECT_EQ(step.bucket_params, 40'000'000);
    int64_t small = 0;
    for (const auto& [size, n] : t.sizes.at(dp_key)) {
      if (size < 4 * step.bucket_params) small += n;
    }
    EXPECT_LE(small, pp * tp) << "at most one short bucket per (stage, TP rank)";
    EXPECT_EQ(t.count.count(std::make_pair(Phase::kExpertParallel, CollOp::kAllToAll)), 0u);
    // Tied embeddings: one all-reduce of the V.h/tp fp32 gradient between the first and last
    // stage per (d, t) (Megatron-core _allreduce_word_embedding_grads).
    const auto emb_key = std::make_pair(Phase::kPipelineParallel, CollOp::kAllReduce);
    EXPECT_EQ(t.count.at(emb_key), dp * tp);
    EXPECT_EQ(t.bytes.at(emb_key), dp * tp * V * h / tp * 4);
  }
}

TEST(TransformerComm, ExpertAllToAllCountsAndBytes) {
  TransformerSpec spec = gpt_like();
  spec.tp = 2;
  spec.pp = 1;
  spec.dp = 4;
  spec.ep = 2;
  spec.moe_experts = 8;
  spec.moe_top_k = 2;
  const TransformerStep step = make_transformer_step(spec, 8);
  const Tally t = tally(step);
  // Per MoE layer per micro-batch per EP group: dispatch + combine forward, 2 backward; each
  // rank sends its b.s.k.h/tp routed token copies (derived, gpu-node.md §5).
  const int64_t l = 8, m = 4, tp = 2, groups_per_tp = 4 / 2;
  const auto key = std::make_pair(Phase::kExpertParallel, CollOp::kAllToAll);
  EXPECT_EQ(t.count.at(key), 4 * l * m * tp * groups_per_tp);
  EXPECT_EQ(t.sizes.at(key).begin()->first, int64_t{2} * 512 * 2 * 1024 * 2 / tp);
  // Expert gradients reduce over expert-DP groups of dp/ep = 2 ranks: per rank
  // (experts/ep) (8h^2 + 5h)/tp per layer.
  const int64_t h = 1024;
  EXPECT_EQ(step.stage_expert_params[0], l * (8 / 2) * (8 * h * h + 5 * h) / tp);
}

// 1F1B, Narayanan §2.2: with p stages, m micro-batches, per-stage forward f and backward b and
// free communication, step = (m + p - 1)(f + b). The last stage also runs the output layer
// (f_L = f + 2bshV, b_L = b + 4bshV) and is then the slowest; the same schedule argument gives
// step = sum over stages (f_s + b_s) + (m - 1)(f_L + b_L). Peak 1 TFLOPS x efficiency 1 makes
// one FLOP one ps, so the expectation is exact.
TEST(TransformerPipeline, OneFOneBStepIsMPlusPMinusOneSlots) {
  for (int p : {2, 4}) {
    for (int m : {1, 2, 8}) {
      TransformerSpec spec;
      spec.layers = 2 * p;
      spec.hidden = 256;
      spec.heads = 4;
      spec.seq_length = 128;
      spec.vocab = 128;
      spec.micro_batch = 1;
      spec.micro_batches = m;
      spec.pp = p;
      spec.peak_tflops = 1.0;
      spec.efficiency = 1.0;
      const TransformerStep step = make_transformer_step(spec, static_cast<uint32_t>(p));
      const double bs = 128, h = 256;
      const double layer_f = 24 * bs * h * h + 4 * bs * 128 * h;  // b = 1
      const double f = 2 * layer_f, b = 2 * f;                    // 2 layers per stage
      const double logits = 2 * bs * h * 128;
      const double fl = f + logits, bl = b + 2 * logits;
      const double expected = (p - 1) * (f + b) + (fl + bl) + (m - 1) * (fl + bl);
      const TrainingResult r = run_dag(step.dag, 0, 0);
      EXPECT_EQ(r.step_ps, static_cast<int64_t>(expected)) << "p " << p << " m " << m;
      // Without the output layer's extra time this is (m + p - 1)(f + b): the bubble (p-1)/m.
      const double bubble = (expected - m * (fl + bl)) / (m * (fl + bl));
      EXPECT_NEAR(bubble, (p - 1) * (f + b) / (m * (fl + bl)), 1e-12);
    }
  }
}

}  // namespace transformer_flops_test
}  // namespace fabricsim::workload
