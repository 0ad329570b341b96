// The transformer generator: a GPT-style model's dimensions and parallel degrees
// (TransformerSpec) -> one training step as a Dag, with per-layer FLOPs and communication bytes
// from the Megatron-LM formulas (docs/training.md, docs/reference/gpu-node.md §5).
//
// Rank layout: Megatron-core's default order "tp-cp-ep-dp-pp" (parallel_state.py
// initialize_model_parallel), context parallelism 1: job-local rank
//   r = t + tp x (d + dp x stage),  d = e + ep x k  (expert index e, expert-data index k)
// so a TP group is tp consecutive ranks (inside one node when tp <= GPUs per node), an EP group
// is ep consecutive DP replicas, and pipeline stages are the outermost blocks.
#pragma once

#include <cstdint>
#include <vector>

#include "workload/dag.h"
#include "workload/training_spec.h"

namespace fabricsim::workload {

struct TransformerStep {
  Dag dag;
  std::vector<double> op_flops;  // per op of dag.ops: the FLOPs of a compute op, 0 otherwise
  int dp = 0;                    // derived data-parallel degree
  int micro_batches = 0;         // per DP replica per step
  int64_t vocab_padded = 0;      // vocabulary after Megatron's padding
  int64_t bucket_params = 0;     // DDP bucket size in parameters (0 = one bucket)
  std::vector<int64_t> stage_dense_params;   // per rank of each stage, reduced over DP
  std::vector<int64_t> stage_expert_params;  // per rank of each stage, reduced over expert-DP
  int virtual_stages = 1;                    // model chunks per stage
};

// Dense peak of the spec's GPU in TFLOPS (peak_tflops override or the profile).
double peak_tflops(const TransformerSpec& spec);

// The data-parallel degree: training.dp, or the job's GPUs / (tp x pp) when it is 0.
int derived_dp(const TransformerSpec& spec, uint32_t gpus);

// Upper limits check_transformer enforces (also the knobs' maxima).
inline constexpr int64_t kMaxLayers = 1 << 16;
inline constexpr int64_t kMaxHidden = 1 << 20;
inline constexpr int64_t kMaxSeqLength = 1 << 20;
inline constexpr int64_t kMaxVocab = 1 << 24;
inline constexpr int64_t kMaxMicroBatch = 1 << 16;
inline constexpr int64_t kMaxExperts = 1 << 16;
// DAG ops of one step: op indices are 32-bit, and at ~155 B per op in DAG, engine and result
// (measured: 325 MB for 2.1 M ops), 2^28 ops is ~40 GB.
inline constexpr int64_t kMaxTransformerOps = int64_t{1} << 28;

// An upper bound on the ops of the spec's step (resource estimates; the limit above).
int64_t transformer_ops_estimate(const TransformerSpec& spec, uint32_t gpus);

// Checks the spec against a job of `gpus` GPUs; throws InputError naming the training.* key.
void check_transformer(const TransformerSpec& spec, uint32_t gpus);

// REQUIRES: nothing; calls check_transformer first.
TransformerStep make_transformer_step(const TransformerSpec& spec, uint32_t gpus);

// FLOPs of one transformer layer's forward pass for one micro-batch, whole layer (before /tp):
// attention 8bsh^2 + 4bs^2h, MLP 16bsh^2 (x top_k in an MoE layer). Narayanan et al. SC'21 §5.1.
// With g key/value heads the QKV projection is 2bsh(h + 2gh/a); with ffn_hidden F the MLP is
// 4bshF, x 1.5 with SwiGLU (Megatron-LM training.py num_floating_point_operations).
double attention_forward_flops(const TransformerSpec& spec);
double mlp_forward_flops(const TransformerSpec& spec, bool moe);
// The column-parallel GEMM's share of the above: QKV, and FC1 (x top_k in an MoE layer).
double attention_column_flops(const TransformerSpec& spec);
double mlp_column_flops(const TransformerSpec& spec, bool moe);

// kv_heads, or heads when 0 (multi-head attention); ffn_hidden, or 4 x hidden when 0.
int kv_heads(const TransformerSpec& spec);
int64_t ffn_hidden(const TransformerSpec& spec);

// Parameters of one layer, whole (before /tp), weights + biases + layer norms: attention
// 4h^2 + 6h and MLP 8h^2 + 7h for GPT-3 (Narayanan et al. §5.1: 12h^2 + 13h); one expert's
// FFN (the MLP without its layer norm).
int64_t attention_params(const TransformerSpec& spec);
int64_t mlp_params(const TransformerSpec& spec);
int64_t expert_params(const TransformerSpec& spec);

// One pipeline stage's schedule: forward or backward blocks of (model chunk, micro-batch) in
// the order the stage runs them. virtual_stages 1: 1F1B (Narayanan et al. SC'21 §2.2.1;
// Megatron-core schedules.py forward_backward_pipelining_without_interleaving); > 1: the
// interleaved 1F1B of §2.2.2 (forward_backward_pipelining_with_interleaving).
struct PipelineBlock {
  bool backward = false;
  int chunk = 0;  // model chunk: the stage's virtual stage chunk x pp + stage
  int micro_batch = 0;
};
std::vector<PipelineBlock> pipeline_schedule(int pp, int virtual_stages, int micro_batches,
                                             int stage);

// MoE routing imbalance (training.moe.imbalance f) over an EP group: the share of the tokens
// routed to experts that the EP rank holding the hottest expert receives, and each other rank.
// The hottest expert gets f x mean, the other E - 1 experts share the rest equally; a rank
// holds E / ep experts. Balanced: 1/ep each.
struct MoeShares {
  double hot = 0;
  double other = 0;
};
MoeShares moe_rank_shares(const TransformerSpec& spec);

}  // namespace fabricsim::workload
