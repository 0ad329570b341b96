// The parallelisms Megatron-class jobs use, against expectations derived here from their papers:
// sequence parallelism (Korthikanti et al. 2022 §4.2.2), the distributed optimizer (ZeRO,
// Rajbhandari et al. 2020 §7.2; Megatron --use-distributed-optimizer), grouped-query attention
// (Megatron-LM num_floating_point_operations; Llama 2, Touvron et al. 2023) and MoE routing
// imbalance (the hottest expert's load = imbalance x the mean).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <map>

#include "core/error.h"
#include "training_fakes.h"
#include "workload/training.h"
#include "workload/transformer.h"

namespace fabricsim::workload {
namespace transformer_parallelism_test {

using fakes::gpt_like;
using fakes::run_dag;

using Key = std::pair<Phase, CollOp>;

struct Tally {
  std::map<Key, int64_t> count, bytes;
  std::map<Key, std::map<int64_t, int64_t>> sizes;  // size -> count
  double flops = 0;
};

Tally tally(const TransformerStep& step) {
  Tally t;
  for (size_t i = 0; i < step.dag.ops.size(); ++i) {
    const DagOp& op = step.dag.ops[i];
    if (op.kind == DagOp::Kind::kCompute) {
      t.flops += step.op_flops[i];
      continue;
    }
    const DagCollective& c = step.dag.collectives[op.collective];
    const Key key{op.phase, c.op};
    ++t.count[key];
    t.bytes[key] += c.size_bytes;
    ++t.sizes[key][c.size_bytes];
  }
  return t;
}

// Bytes one rank of an n-rank ring sends for a collective of nccl-tests size S: all-reduce
// 2(n-1)/n S, reduce-scatter and all-gather (n-1)/n S each (nccl-tests PERFORMANCE.md busbw
// factors). A ring all-reduce is a reduce-scatter then an all-gather.
double ring_bytes_per_rank(CollOp op, int64_t size, int n) {
  const double f = static_cast<double>(n - 1) / n;
  return (op == CollOp::kAllReduce ? 2 * f : f) * static_cast<double>(size);
}

TEST(SequenceParallel, EachTensorAllReduceBecomesReduceScatterPlusAllGatherOfTheSameSize) {
  for (bool recompute : {false, true}) {
    TransformerSpec spec = gpt_like();
    spec.recompute = recompute;
    const Tally plain = tally(make_transformer_step(spec, 8));
    spec.sequence_parallel = true;
    const TransformerStep step = make_transformer_step(spec, 8);
    const Tally sp = tally(step);
    const int64_t bsh = 2 * 512 * 1024, l = 8, m = 4, dp = 2;
    // Korthikanti §4.2.2: 4 all-gathers and 4 reduce-scatters per layer and micro-batch (forward
    // and backward) instead of 4 all-reduces, +2 each with the recomputed forward; per TP group.
    const int64_t per_layer = recompute ? 6 : 4;
    const Key ar{Phase::kTensorParallel, CollOp::kAllReduce};
    const Key rs{Phase::kTensorParallel, CollOp::kReduceScatter};
    const Key ag{Phase::kTensorParallel, CollOp::kAllGather};
    EXPECT_EQ(plain.count.at(ar), per_layer * l * m * dp);
    EXPECT_EQ(sp.count.count(ar), 0u) << "no TP all-reduce is left";
    EXPECT_EQ(sp.count.at(rs), per_layer * l * m * dp);
    EXPECT_EQ(sp.count.at(ag), per_layer * l * m * dp);
    // Each of the whole b.s.h bf16 tensor.
    EXPECT_EQ(sp.sizes.at(rs).size(), 1u);
    EXPECT_EQ(sp.sizes.at(rs).begin()->first, bsh * 2);
    EXPECT_EQ(sp.sizes.at(ag).begin()->first, bsh * 2);
    // The same bytes on the wire per rank.
    const double before = plain.count.at(ar) * ring_bytes_per_rank(CollOp::kAllReduce, bsh * 2, 2);
    const double after = sp.count.at(rs) * ring_bytes_per_rank(CollOp::kReduceScatter, bsh * 2, 2) +
                         sp.count.at(ag) * ring_bytes_per_rank(CollOp::kAllGather, bsh * 2, 2);
    EXPECT_DOUBLE_EQ(before, after);
    // Nothing else changes: FLOPs, pipeline and data-parallel traffic.
    EXPECT_DOUBLE_EQ(plain.flops, sp.flops);
    const Key pp{Phase::kPipelineParallel, CollOp::kSend};
    const Key dpk{Phase::kDataParallel, CollOp::kAllReduce};
    EXPECT_EQ(plain.bytes.at(pp), sp.bytes.at(pp));
    EXPECT_EQ(plain.bytes.at(dpk), sp.bytes.at(dpk));
  }
}

TEST(SequenceParallel, WithFreeCommunicationTheStepIsUnchanged) {
  // Closed-form runner: a collective takes latency + size x ps/byte, whatever its kind, so a
  // reduce-scatter costs what an all-reduce does there; only the step with free communication
  // (latency 0, 0 ps/byte) compares: SP moves no compute, so it is the same.
  TransformerSpec spec = gpt_like();
  const int64_t plain = run_dag(make_transformer_step(spec, 8).dag, 0, 0).step_ps;
  spec.sequence_parallel = true;
  EXPECT_EQ(run_dag(make_transformer_step(spec, 8).dag, 0, 0).step_ps, plain);
}

TEST(DistributedOptimizer, GradientsReduceScatteredInFp32ParametersAllGatheredInBf16) {
  TransformerSpec spec = gpt_like();
  spec.distributed_optimizer = true;
  const TransformerStep step = make_transformer_step(spec, 8);
  const Tally t = tally(step);
  // Per rank of a stage: (l/pp)(12h^2 + 13h)/tp + embeddings (Narayanan §5.1; as
  // transformer_flops_test), first stage V.h/tp + s.h/tp, last V.h/tp.
  const int64_t h = 1024, V = 50432, s = 512, l = 8, pp = 2, tp = 2, dp = 2;
  const int64_t layers_params = (l / pp) * (12 * h * h + 13 * h) / tp;
  const int64_t first = layers_params + V * h / tp + s * h / tp;
  const int64_t last = layers_params + V * h / tp;
  EXPECT_EQ(t.count.count({Phase::kDataParallel, CollOp::kAllReduce}), 0u);
  // Summed over the tp DP groups of each stage: every parameter's fp32 gradient reduce-
  // scattered once and its bf16 value all-gathered once.
  EXPECT_EQ(t.bytes.at({Phase::kDataParallel, CollOp::kReduceScatter}), 4 * tp * (first + last));
  EXPECT_EQ(t.bytes.at({Phase::kDataParallel, CollOp::kAllGather}), 2 * tp * (first + last));
  EXPECT_EQ(t.count.at({Phase::kDataParallel, CollOp::kReduceScatter}),
            t.count.at({Phase::kDataParallel, CollOp::kAllGather}));
  // Per rank on a ring of dp: (dp-1)/dp (4 + 2) bytes per parameter, against 2 (dp-1)/dp x 4
  // for the all-reduce of fp32 gradients (ZeRO §7.2.1: the same 2 Psi elements moved).
  double wire = 0;
  for (const auto& [size, n] : t.sizes.at({Phase::kDataParallel, CollOp::kReduceScatter}))
    wire += n * ring_bytes_per_rank(CollOp::kReduceScatter, size, dp);
  for (const auto& [size, n] : t.sizes.at({Phase::kDataParallel, CollOp::kAllGather}))
    wire += n * ring_bytes_per_rank(CollOp::kAllGather, size, dp);
  EXPECT_NEAR(wire, (dp - 1.0) / dp * 6.0 * tp * (first + last), 1.0);
  // The step waits for the all-gathers: its last op is one (or the kUpdate after one).
  const TrainingResult r = run_dag(step.dag, 1000, 1);
  int64_t last_gather_end = 0;
  for (size_t i = 0; i < step.dag.ops.size(); ++i) {
    const DagOp& op = step.dag.ops[i];
    if (op.kind == DagOp::Kind::kCollective &&
        step.dag.collectives[op.collective].op == CollOp::kAllGather &&
        op.phase == Phase::kDataParallel) {
      last_gather_end = std::max(last_gather_end, r.op_end_ps[i]);
    }
  }
  EXPECT_EQ(r.step_ps, last_gather_end);
}

TEST(GroupedQueryAttention, AttentionFlopsFollowMegatronsFormula) {
  TransformerSpec spec = gpt_like();
  spec.kv_heads = 4;  // 16 query heads in 4 groups
  const double b = 2, s = 512, h = 1024, g = 4, a = 16;
  // Megatron-LM training.py: attention forward 4bsh^2 (1 + g/a + s/h) (its 12 = 3 x 4: forward
  // and backward); with g = a: 8bsh^2 + 4bs^2h.
  EXPECT_DOUBLE_EQ(attention_forward_flops(spec), 4 * b * s * h * h * (1 + g / a + s / h));
  spec.kv_heads = 0;
  EXPECT_DOUBLE_EQ(attention_forward_flops(spec), 8 * b * s * h * h + 4 * b * s * s * h);
  // Fewer key/value heads: fewer attention parameters, so fewer DP gradient bytes.
  spec.kv_heads = 4;
  const TransformerStep gqa = make_transformer_step(spec, 8);
  const int64_t d = 1024 / 16;
  // Per layer the K and V projections shrink from h x h to h x g.d (weights and biases).
  const int64_t saved_per_layer = 2 * (h * h - h * 4 * d) + 2 * (h - 4 * d);
  spec.kv_heads = 0;
  const TransformerStep mha = make_transformer_step(spec, 8);
  EXPECT_EQ(mha.stage_dense_params[0] - gqa.stage_dense_params[0],
            4 * saved_per_layer / 2);  // 4 layers per stage, / tp
  const Key dpk{Phase::kDataParallel, CollOp::kAllReduce};
  EXPECT_EQ(tally(mha).bytes.at(dpk) - tally(gqa).bytes.at(dpk), 4 * 8 * saved_per_layer);
}

// Llama 2 70B (Touvron et al. 2023, Table 1 and §2.2: 80 layers, d_model 8192, 64 heads, GQA
// with 8 key/value heads, SwiGLU FFN 28672, vocabulary 32,000, untied input and output
// embeddings, RMSNorm, no biases). Its parameters from those dimensions: per layer Q and O
// h^2 each, K and V h x 1024 each, MLP 3 x h x 28672, two norms h each; embeddings 2 x 32000 h;
// final norm h: 68,976,648,192 ("70B").
TEST(GroupedQueryAttention, Llama2_70BParameterCountIsThePublishedModelsWithinOnePercent) {
  TransformerSpec spec;
  spec.layers = 80;
  spec.hidden = 8192;
  spec.heads = 64;
  spec.kv_heads = 8;
  spec.ffn_hidden = 28672;
  spec.swiglu = true;
  spec.vocab = 32000;
  spec.seq_length = 128;  // parameters do not depend on it (no position table in Llama: RoPE)
  spec.untie_embeddings = true;  // Llama's output layer has its own weight
  spec.tp = 8;
  spec.pp = 8;
  const int64_t h = 8192;
  const int64_t llama =
      80 * (2 * h * h + 2 * h * 1024 + 3 * h * 28672 + 2 * h) + 2 * int64_t{32000} * h + h;
  EXPECT_EQ(llama, 68'976'648'192);
  const TransformerStep step = make_transformer_step(spec, 64);
  int64_t total = 0;  // the first and last stage's embedding tables: input and output layer
  for (int64_t p : step.stage_dense_params) total += p * 8;
  EXPECT_NEAR(static_cast<double>(total) / llama, 1.0, 0.01)
      << "generator " << total << " (biases, LayerNorm shifts, vocab padding to 32768 and a "
      << "position table are the difference)";
  EXPECT_NEAR(static_cast<double>(total) / 70e9, 1.0, 0.02) << "the name's 70B, rounded";
  // Untied: no embedding-gradient all-reduce between the first and last stage.
  EXPECT_EQ(tally(step).count.count({Phase::kPipelineParallel, CollOp::kAllReduce}), 0u);
}

TEST(MoeImbalance, TheHottestRankReceivesImbalanceTimesTheMeanAndComputesAsMuchMore) {
  // One expert per EP rank (experts = ep = 4), top-1, so the hottest expert's rank gets f x
  // the mean of the routed tokens.
  TransformerSpec spec = gpt_like();
  spec.tp = 1;
  spec.pp = 1;
  spec.dp = 4;
  spec.ep = 4;
  spec.moe_experts = 4;
  spec.moe_top_k = 1;
  spec.moe_imbalance = 2.5;
  const TransformerStep step = make_transformer_step(spec, 4);
  // Routed bytes per rank per all-to-all: b.s.k.h x 2 (bf16), / tp; the mean rank receives a
  // quarter of every rank's.
  const double routed = 2.0 * 512 * 1 * 1024 * 2;
  const double mean_from_each = routed / 4;
  int64_t to_hot = 0, a2a = 0;
  double hot_from_peer = 0, cold_from_peer = 0;
  for (const DagOp& op : step.dag.ops) {
    if (op.kind != DagOp::Kind::kCollective || op.phase != Phase::kExpertParallel) continue;
    const DagCollective& c = step.dag.collectives[op.collective];
    const auto& g = step.dag.groups[c.group];
    if (c.op == CollOp::kAllToAll) {
      ++a2a;
      cold_from_peer = static_cast<double>(c.size_bytes) / 4;  // size / n to each peer
    } else if (c.op == CollOp::kSend && g[1] % 4 == 0) {
      ++to_hot;
      hot_from_peer = static_cast<double>(c.size_bytes);
    }
  }
  // Per layer and micro-batch: 4 all-to-alls (dispatch, combine, and their backwards), two of
  // them towards the experts; each with ep - 1 = 3 excess sends.
  EXPECT_EQ(a2a, 4 * 8 * 4);
  EXPECT_EQ(to_hot, 2 * 8 * 4 * 3);
  EXPECT_NEAR(cold_from_peer + hot_from_peer, 2.5 * mean_from_each, 1.0);
  // The other three experts share the rest: (4 - 2.5) / 3 of a quarter each.
  EXPECT_NEAR(cold_from_peer, (4 - 2.5) / 3 * mean_from_each, 1.0);
  // Expert FLOPs: the hot rank runs 2.5 x the mean, the total is the balanced one.
  double hot_flops = 0, all_flops = 0;
  for (size_t i = 0; i < step.dag.ops.size(); ++i) {
    const DagOp& op = step.dag.ops[i];
    if (op.kind != DagOp::Kind::kCompute) continue;
    all_flops += step.op_flops[i];
    if (op.rank == 0) hot_flops += step.op_flops[i];
  }
  spec.moe_imbalance = 1;
  const TransformerStep even = make_transformer_step(spec, 4);
  double even_all = 0, even_rank0 = 0;
  for (size_t i = 0; i < even.dag.ops.size(); ++i) {
    if (even.dag.ops[i].kind != DagOp::Kind::kCompute) continue;
    even_all += even.op_flops[i];
    if (even.dag.ops[i].rank == 0) even_rank0 += even.op_flops[i];
  }
  EXPECT_NEAR(all_flops / even_all, 1.0, 1e-12);
  // Rank 0's extra is 1.5 x the MLP FLOPs of a mean rank: 3 x 16bsh^2 per layer per
  // micro-batch (forward + backward), 8 layers, 4 micro-batches.
  const double mlp_mean = 3 * 16.0 * 2 * 512 * 1024.0 * 1024 * 8 * 4;
  EXPECT_NEAR((hot_flops - even_rank0) / (1.5 * mlp_mean), 1.0, 1e-12);
  // The imbalance shows in the step: the hot rank is the critical one.
  const TrainingResult r = run_dag(step.dag, 0, 0);
  EXPECT_EQ(r.critical_rank, 0u);
  EXPECT_GT(r.step_ps, run_dag(even.dag, 0, 0).step_ps);
}

TEST(ParallelismErrors, BadSettingsNameTheirKey) {
  auto key_of = [](TransformerSpec spec, uint32_t gpus) -> std::string {
    try {
      make_transformer_step(spec, gpus);
    } catch (const InputError& e) {
      return e.key_path();
    }
    return "(accepted)";
  };
  TransformerSpec s = gpt_like();
  s.kv_heads = 3;
  EXPECT_EQ(key_of(s, 8), "training.kv_heads") << "3 does not divide 16 heads";
  s.kv_heads = 1;
  EXPECT_EQ(key_of(s, 8), "training.kv_heads") << "tp 2 does not divide 1 group";
  s = gpt_like();
  s.ffn_hidden = 1001;
  EXPECT_EQ(key_of(s, 8), "training.ffn_hidden");
  s = gpt_like();
  s.virtual_stages = 2;
  s.micro_batches = 3;
  EXPECT_EQ(key_of(s, 8), "training.micro_batches") << "3 micro-batches, pp 2";
  s.micro_batches = 4;
  EXPECT_EQ(key_of(s, 8), "(accepted)");
  s.virtual_stages = 3;
  EXPECT_EQ(key_of(s, 8), "training.virtual_stages") << "pp x v = 6 does not divide 8 layers";
  s = gpt_like();
  s.pp = 1;
  s.virtual_stages = 2;
  EXPECT_EQ(key_of(s, 4), "training.virtual_stages") << "no pipeline to interleave";
  s = gpt_like();
  s.moe_imbalance = 2;
  EXPECT_EQ(key_of(s, 8), "training.moe.imbalance") << "dense model";
  s.moe_experts = 4;
  s.moe_top_k = 2;
  s.moe_imbalance = 2.5;
  EXPECT_EQ(key_of(s, 8), "training.moe.imbalance") << "above experts / top_k = 2";
}

}  // namespace transformer_parallelism_test
}  // namespace fabricsim::workload
