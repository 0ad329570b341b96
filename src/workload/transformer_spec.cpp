// The transformer's settings: GPU throughput profiles, per-layer FLOPs (Megatron-LM), the checks
// of a configuration against the job's GPUs and the op-count estimate (workload/transformer.h).
// The DAG builder is transformer.cpp.
#include <algorithm>
#include <cmath>
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

double attention_forward_flops(const TransformerSpec& spec) {
  const double b = spec.micro_batch, s = spec.seq_length, h = spec.hidden;
  // QKV 6bsh^2 + scores QK^T 2bs^2h + scores x V 2bs^2h + output projection 2bsh^2.
  return 8.0 * b * s * h * h + 4.0 * b * s * s * h;
}

double mlp_forward_flops(const TransformerSpec& spec, bool moe) {
  const double b = spec.micro_batch, s = spec.seq_length, h = spec.hidden;
  // h -> 4h -> h: 2 x 2 x b s h (4h). An MoE layer runs each token through top_k such experts.
  return 16.0 * b * s * h * h * (moe ? spec.moe_top_k : 1);
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
  const int64_t per = spec.recompute ? 24 : 18;
  return int64_t{gpus} * (spec.layers / std::max(spec.pp, 1) + 1) * std::max<int64_t>(m, 1) * per;
}

}  // namespace fabricsim::workload
