// The transformer's settings: GPU throughput profiles, per-layer FLOPs (Megatron-LM), the checks
// of a configuration against the job's GPUs and the op-count estimate (workload/transformer.h).
// The DAG builder is transformer.cpp.
#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>
#include <string>

#include "core/error.h"
#include "workload/transformer.h"

namespace fabricsim::workload {

const std::vector<GpuProfile>& gpu_profiles() {
  static const std::vector<GpuProfile> profiles = {
      {"h100-sxm", 989.4,
       "NVIDIA H100 Tensor Core GPU datasheet: BF16 1,979 TFLOPS with sparsity, half dense "
       "(docs/reference/gpu-node.md §1.1)"},
      {"h100-pcie", 756.5,
       "NVIDIA H100 datasheet, H100 PCIe: BF16 1,513 TFLOPS with sparsity, half dense "
       "(gpu-node.md §1.1)"},
      {"a100-sxm", 312.0,
       "NVIDIA A100 datasheet: BF16 Tensor Core 312 TFLOPS dense (624 with sparsity); "
       "UNVERIFIED here (datasheet not opened; agrees with Narayanan et al. SC'21: 163 TFLOPS "
       "= 52 % of peak)"},
  };
  return profiles;
}

const GpuProfile* find_gpu_profile(const std::string& name) {
  for (const GpuProfile& p : gpu_profiles()) {
    if (name == p.name) return &p;
  }
  return nullptr;
}

double peak_tflops(const TransformerSpec& spec) {
  if (spec.peak_tflops) return *spec.peak_tflops;
  const GpuProfile* p = find_gpu_profile(spec.gpu);
  return p ? p->dense_bf16_tflops : 0.0;
}

int kv_heads(const TransformerSpec& spec) { return spec.kv_heads > 0 ? spec.kv_heads : spec.heads; }

int64_t ffn_hidden(const TransformerSpec& spec) {
  return spec.ffn_hidden > 0 ? spec.ffn_hidden : int64_t{4} * spec.hidden;
}

namespace {
// Width of the QKV projection's output: h for the queries plus 2 g d for the keys and values,
// d = h / a the head dimension (Megatron-core attention.py: query_projection_size +
// 2 * kv_projection_size with kv_projection_size = kv_channels * num_query_groups).
double qkv_width(const TransformerSpec& spec) {
  const double h = spec.hidden;
  return h + 2.0 * kv_heads(spec) * (h / spec.heads);
}
}  // namespace

double attention_column_flops(const TransformerSpec& spec) {
  const double b = spec.micro_batch, s = spec.seq_length, h = spec.hidden;
  return 2.0 * b * s * h * qkv_width(spec);  // QKV: 6bsh^2 with multi-head attention
}

double attention_forward_flops(const TransformerSpec& spec) {
  const double b = spec.micro_batch, s = spec.seq_length, h = spec.hidden;
  // QKV + scores QK^T 2bs^2h + scores x V 2bs^2h + output projection 2bsh^2. Multi-head:
  // 8bsh^2 + 4bs^2h; with g query groups 4bsh^2 (1 + g/a) + 4bs^2h, the attention term
  // (1 + g/a + s/h) of Megatron-LM training.py num_floating_point_operations.
  return attention_column_flops(spec) + 2.0 * b * s * h * h + 4.0 * b * s * s * h;
}

double mlp_column_flops(const TransformerSpec& spec, bool moe) {
  const double b = spec.micro_batch, s = spec.seq_length, h = spec.hidden;
  const double f = static_cast<double>(ffn_hidden(spec));
  // FC1: h -> F (GeLU) or h -> 2F (SwiGLU's gate and value).
  return 2.0 * b * s * h * f * (spec.swiglu ? 2 : 1) * (moe ? spec.moe_top_k : 1);
}

double mlp_forward_flops(const TransformerSpec& spec, bool moe) {
  const double b = spec.micro_batch, s = spec.seq_length, h = spec.hidden;
  const double f = static_cast<double>(ffn_hidden(spec));
  // FC1 + FC2 (F -> h): 16bsh^2 for GPT-3's F = 4h; SwiGLU x 1.5 (Megatron's
  // gated_linear_multiplier). An MoE layer runs each token through top_k such experts.
  return mlp_column_flops(spec, moe) + 2.0 * b * s * h * f * (moe ? spec.moe_top_k : 1);
}

int64_t attention_params(const TransformerSpec& spec) {
  const int64_t h = spec.hidden;
  const int64_t qkv = h + 2 * int64_t{kv_heads(spec)} * (h / spec.heads);
  // QKV weight and bias, projection weight and bias, layer norm (scale and shift).
  return h * qkv + qkv + h * h + h + 2 * h;
}

int64_t expert_params(const TransformerSpec& spec) {
  const int64_t h = spec.hidden, f = ffn_hidden(spec), gate = spec.swiglu ? 2 : 1;
  // FC1 (h x gate.F) and FC2 (F x h) with biases: 8h^2 + 5h for GPT-3's F = 4h.
  return h * f * gate + f * gate + f * h + h;
}

int64_t mlp_params(const TransformerSpec& spec) {
  return expert_params(spec) + 2 * int64_t{spec.hidden};  // + its layer norm: 8h^2 + 7h
}

namespace {

[[noreturn]] void bad(const char* key, const std::string& message) {
  throw InputError(key, message);
}

std::string str(int64_t v) { return std::to_string(v); }

}  // namespace

int derived_dp(const TransformerSpec& spec, uint32_t gpus) {
  return spec.dp > 0 ? spec.dp : static_cast<int>(gpus / static_cast<uint32_t>(spec.tp * spec.pp));
}

void check_transformer(const TransformerSpec& spec, uint32_t gpus) {
  auto positive = [](const char* key, int64_t v) {
    if (v < 1) bad(key, "must be >= 1, got " + str(v));
  };
  positive("training.layers", spec.layers);
  positive("training.hidden", spec.hidden);
  positive("training.heads", spec.heads);
  positive("training.seq_length", spec.seq_length);
  positive("training.vocab", spec.vocab);
  positive("training.vocab_divisible_by", spec.vocab_divisible_by);
  positive("training.micro_batch", spec.micro_batch);
  positive("training.micro_batches", spec.micro_batches);
  positive("training.bytes_per_element", spec.bytes_per_element);
  positive("training.grad_bytes", spec.grad_bytes);
  positive("training.tp", spec.tp);
  positive("training.pp", spec.pp);
  positive("training.ep", spec.ep);
  positive("training.moe.top_k", spec.moe_top_k);
  positive("training.moe.every", spec.moe_every);
  // Magnitudes that keep every byte and parameter count exact in int64 (b.s.h.bytes < 2^58,
  // experts x 8h^2 < 2^60) and far beyond any published model.
  auto at_most = [](const char* key, int64_t v, int64_t max) {
    if (v > max) bad(key, "must be <= " + str(max) + ", got " + str(v));
  };
  at_most("training.layers", spec.layers, kMaxLayers);
  at_most("training.hidden", spec.hidden, kMaxHidden);
  at_most("training.seq_length", spec.seq_length, kMaxSeqLength);
  at_most("training.vocab", spec.vocab, kMaxVocab);
  at_most("training.micro_batch", spec.micro_batch, kMaxMicroBatch);
  at_most("training.moe.experts", spec.moe_experts, kMaxExperts);
  if (gpus == 0) bad("training", "the job has no GPUs");
  if (!spec.peak_tflops && !find_gpu_profile(spec.gpu)) {
    bad("training.gpu", "unknown GPU profile '" + spec.gpu + "'");
  }
  if (!(peak_tflops(spec) > 0)) bad("training.peak_tflops", "must be > 0");
  if (!(spec.efficiency > 0 && spec.efficiency <= 1)) {
    bad("training.efficiency", "must be in (0, 1]");
  }
  if (spec.hidden % spec.heads != 0) {
    bad("training.heads", str(spec.heads) + " heads do not divide hidden " + str(spec.hidden));
  }
  if (spec.kv_heads < 0) bad("training.kv_heads", "must be >= 0 (0 = heads)");
  if (spec.kv_heads > 0 && spec.heads % spec.kv_heads != 0) {
    bad("training.kv_heads", str(spec.kv_heads) + " key/value heads do not divide the " +
                                 str(spec.heads) + " query heads");
  }
  // Megatron-core splits the query groups over tp (attention.py divides num_query_groups by
  // the TP world size).
  if (spec.kv_heads > 0 && spec.kv_heads % spec.tp != 0) {
    bad("training.kv_heads",
        "tp " + str(spec.tp) + " does not divide the " + str(spec.kv_heads) + " key/value heads");
  }
  if (spec.ffn_hidden < 0) bad("training.ffn_hidden", "must be >= 0 (0 = 4 x hidden)");
  if (spec.ffn_hidden % spec.tp != 0) {
    bad("training.ffn_hidden",
        "tp " + str(spec.tp) + " does not divide ffn_hidden " + str(spec.ffn_hidden));
  }
  if (spec.heads % spec.tp != 0) {
    bad("training.tp", "tp " + str(spec.tp) + " does not divide the " + str(spec.heads) + " heads");
  }
  if (gpus % static_cast<uint32_t>(spec.tp) != 0) {
    bad("training.tp", "tp " + str(spec.tp) + " does not divide the job's " + str(gpus) + " GPUs");
  }
  if (spec.layers % spec.pp != 0) {
    bad("training.pp",
        "pp " + str(spec.pp) + " does not divide the " + str(spec.layers) + " layers");
  }
  if (spec.virtual_stages < 1) bad("training.virtual_stages", "must be >= 1");
  if (spec.virtual_stages > 1) {
    if (spec.pp < 2) {
      bad("training.virtual_stages", "interleaving needs pipeline stages (training.pp >= 2)");
    }
    if (spec.layers % (spec.pp * spec.virtual_stages) != 0) {
      bad("training.virtual_stages",
          "pp x virtual_stages = " + str(int64_t{spec.pp} * spec.virtual_stages) +
              " does not divide the " + str(spec.layers) + " layers");
    }
  }
  if (gpus % static_cast<uint32_t>(spec.tp * spec.pp) != 0) {
    bad("training.pp", "tp x pp = " + str(spec.tp * spec.pp) + " does not divide the job's " +
                           str(gpus) + " GPUs");
  }
  if (spec.dp < 0) bad("training.dp", "must be >= 0 (0 = GPUs / (tp x pp))");
  if (spec.dp > 0 && static_cast<int64_t>(spec.tp) * spec.pp * spec.dp != gpus) {
    bad("training.dp", "tp x pp x dp = " + str(int64_t{spec.tp} * spec.pp * spec.dp) +
                           " differs from the job's " + str(gpus) + " GPUs");
  }
  const int dp = derived_dp(spec, gpus);
  if (dp % spec.ep != 0) {
    bad("training.ep", "ep " + str(spec.ep) + " does not divide dp " + str(dp) +
                           " (experts are split over data-parallel ranks)");
  }
  if (spec.moe_experts < 0) bad("training.moe.experts", "must be >= 0 (0 = dense)");
  if (spec.ep > 1 && spec.moe_experts == 0) {
    bad("training.ep", "ep > 1 needs an MoE model (training.moe.experts > 0)");
  }
  if (spec.moe_experts > 0) {
    if (spec.moe_experts % spec.ep != 0) {
      bad("training.moe.experts",
          str(spec.moe_experts) + " experts do not split over ep " + str(spec.ep));
    }
    if (spec.moe_top_k > spec.moe_experts) {
      bad("training.moe.top_k",
          "top_k " + str(spec.moe_top_k) + " exceeds the " + str(spec.moe_experts) + " experts");
    }
  }
  if (spec.global_batch < 0) bad("training.global_batch", "must be >= 0");
  if (spec.global_batch > 0 && spec.global_batch % (int64_t{spec.micro_batch} * dp) != 0) {
    bad("training.global_batch",
        "global batch " + str(spec.global_batch) +
            " is not a multiple of micro_batch x dp = " + str(int64_t{spec.micro_batch} * dp));
  }
  if (spec.virtual_stages > 1) {
    // Megatron's interleaved schedule runs micro-batches in groups of pp (schedules.py
    // forward_backward_pipelining_with_interleaving asserts num_microbatches % pp == 0).
    const int64_t m = spec.global_batch > 0 ? spec.global_batch / (int64_t{spec.micro_batch} * dp)
                                            : spec.micro_batches;
    if (m % spec.pp != 0) {
      bad(spec.global_batch > 0 ? "training.global_batch" : "training.micro_batches",
          str(m) + " micro-batches are not a multiple of pp " + str(spec.pp) +
              " (the interleaved schedule, training.virtual_stages > 1, needs it)");
    }
  }
  if (!(spec.moe_imbalance >= 1)) {
    bad("training.moe.imbalance", "must be >= 1 (the hottest expert's load over the mean)");
  }
  if (spec.moe_imbalance > 1) {
    if (spec.moe_experts == 0) bad("training.moe.imbalance", "needs training.moe.experts > 0");
    const double most = static_cast<double>(spec.moe_experts) / spec.moe_top_k;
    if (spec.moe_imbalance > most) {
      std::ostringstream bound;
      bound << std::setprecision(4) << most;
      bad("training.moe.imbalance",
          "an expert gets at most every token: imbalance <= experts / top_k = " + bound.str());
    }
  }
  if (spec.bucket_params < 0) bad("training.bucket_params", "must be >= 0");
  if (spec.optimizer_ps < 0) bad("training.optimizer_time", "must be >= 0");
  const int64_t ops = transformer_ops_estimate(spec, gpus);
  if (ops > kMaxTransformerOps) {
    bad(spec.global_batch > 0 ? "training.global_batch" : "training.micro_batches",
        "the step would have about " + str(ops) + " ops (limit " + str(kMaxTransformerOps) +
            "); use fewer micro-batches, layers or GPUs");
  }
}

int64_t transformer_ops_estimate(const TransformerSpec& spec, uint32_t gpus) {
  const int64_t tp_pp = int64_t{std::max(spec.tp, 1)} * std::max(spec.pp, 1);
  const int64_t dp = spec.dp > 0 ? spec.dp : std::max<int64_t>(gpus / tp_pp, 1);
  const int64_t m = spec.global_batch > 0
                        ? spec.global_batch / std::max<int64_t>(int64_t{spec.micro_batch} * dp, 1)
                        : spec.micro_batches;
  // Per rank, layer and micro-batch: 2 forward + 8 backward compute ops (+2 recomputed) and at
  // most 8 (+4) collectives shared by the group; an upper bound.
  int64_t per = spec.recompute ? 24 : 18;
  // Sequence parallelism: each TP all-reduce is two collectives (+4, +6 with recomputation);
  // an imbalanced MoE all-to-all adds ep - 1 sends to or from the hot rank (4 all-to-alls).
  if (spec.sequence_parallel) per += spec.recompute ? 6 : 4;
  if (spec.moe_imbalance > 1) per += 4 * int64_t{std::max(spec.ep, 1) - 1};
  const int64_t layers = spec.layers / std::max(spec.pp, 1) + 1;
  // Interleaving: 2 sends per model chunk and micro-batch, and the parameter all-gathers of the
  // distributed optimizer (one per bucket: at most one per layer and chunk).
  const int64_t chunks = std::max(spec.virtual_stages, 1);
  return int64_t{gpus} * std::max<int64_t>(m, 1) * (layers * per + (chunks > 1 ? 2 * chunks : 0)) +
         (spec.distributed_optimizer ? int64_t{gpus} * (layers + chunks) : 0);
}

}  // namespace fabricsim::workload
