// The scenario's training settings (keys training.*, src/spec/knob_registry_training.cpp):
// a transformer's dimensions, its parallel degrees and the GPU throughput profile that turns
// FLOPs into time. workload/transformer.h turns them into a Dag; workload/training.h runs it.
// Every default names its source here and in the knob's `.source` (docs/training.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "workload/compute_variation.h"

namespace fabricsim::workload {

// Dense BF16/FP16 Tensor-core peak of one GPU (docs/reference/gpu-node.md §1.1).
struct GpuProfile {
  const char* name;
  double dense_bf16_tflops;
  const char* source;
};
// h100-sxm (default), h100-pcie, a100-sxm.
const std::vector<GpuProfile>& gpu_profiles();
// nullptr when `name` is not a profile.
const GpuProfile* find_gpu_profile(const std::string& name);

struct TransformerSpec {
  // Model: GPT-3 XL (1.3B) of Brown et al. 2020, Table 2.1 (24 layers, d_model 2048, 16 heads,
  // context 2048); vocabulary 50,257 = the GPT-2 BPE vocabulary GPT-3 uses (§2.1 of the paper).
  int layers = 24;
  int hidden = 2048;
  int heads = 16;
  // Grouped-query attention (Ainslie et al. 2023; Megatron --num-query-groups): key/value heads
  // shared by groups of query heads. 0 = heads (multi-head attention, GPT-3).
  int kv_heads = 0;
  // FFN inner size; 0 = 4 x hidden (GPT-3, Brown et al. 2020 §2.1: d_ff = 4 d_model).
  int ffn_hidden = 0;
  // Gated linear unit (Megatron --swiglu; Shazeer 2020): FC1 produces 2 x ffn_hidden (gate and
  // value), so the MLP has three h x ffn_hidden matrices. Off: GPT-3's GeLU MLP.
  bool swiglu = false;
  int seq_length = 2048;
  int vocab = 50257;
  // Megatron pads the vocabulary to a multiple of this x tp (--make-vocab-size-divisible-by,
  // default 128; megatron/training/tokenizer _vocab_size_with_padding). UNVERIFIED: from the
  // Megatron-LM arguments as commonly used, the source line not opened this session.
  int vocab_divisible_by = 128;

  // Batch: micro-batch b sequences; micro-batches per step per DP replica m. global_batch B > 0
  // replaces m by B / (b x dp) (Megatron: num_microbatches = B / (b x dp)).
  int micro_batch = 1;
  int micro_batches = 1;
  int global_batch = 0;

  // Megatron --untie-embeddings-and-output-weights: the output layer has its own V x h weight
  // (Llama 2 does, Touvron et al. 2023), so the first and last stage do not all-reduce a shared
  // embedding gradient. Off: GPT's tied embeddings (Radford et al. 2019; Megatron's default).
  bool untie_embeddings = false;

  int bytes_per_element = 2;  // bf16 activations and weights (gpu-node.md §5)
  int grad_bytes = 4;         // fp32 gradient accumulation/reduction (Megatron DDP grad buffer)
  bool recompute = false;     // full activation recomputation: one extra forward per layer

  // Parallel degrees. tp x pp x dp = the job's GPUs; dp = 0 derives it. ep divides dp: as in
  // Megatron-core (parallel_state.py, order "tp-cp-ep-dp-pp") experts are split over a slice of
  // the data-parallel ranks.
  int tp = 1;
  int pp = 1;
  int dp = 0;
  int ep = 1;
  // Sequence parallelism (Korthikanti et al. 2022 §4.2.2; Megatron --sequence-parallel): each
  // TP all-reduce becomes a reduce-scatter + all-gather of the same size, and the layer norm
  // and dropout activations are split over tp.
  bool sequence_parallel = false;
  // Model chunks per pipeline stage (Narayanan et al. SC'21 §2.2.2 interleaved 1F1B; Megatron
  // --num-layers-per-virtual-pipeline-stage): 1 = the non-interleaved 1F1B schedule.
  int virtual_stages = 1;
  // Megatron --use-distributed-optimizer (ZeRO-1 sharding of the optimizer state; gradients
  // reduce-scattered, parameters all-gathered: Rajbhandari et al. 2020 §5, §7).
  bool distributed_optimizer = false;

  // Mixture of experts: 0 experts = dense. Every `moe_every`-th layer (1 = all) is MoE; each
  // token goes to top_k experts of the dense FFN's size.
  int moe_experts = 0;
  int moe_top_k = 2;  // Switch/GShard-style top-2 (Lepikhin et al. 2020); UNVERIFIED as "typical"
  int moe_every = 1;
  // Routing imbalance: the hottest expert's token load over the mean load (1 = the balanced
  // routing of an auxiliary-loss-trained router in the limit; Fedus et al. 2022 §2.2 define the
  // expert capacity factor against the same mean). At most experts / top_k (every token to it).
  double moe_imbalance = 1.0;

  // Throughput: compute time = FLOPs / (peak x efficiency).
  std::string gpu = "h100-sxm";
  std::optional<double> peak_tflops;  // overrides the profile's peak
  // Model-FLOPs utilisation: Megatron-LM README reports 41-48 % MFU on H100 (gpu-node.md §5).
  double efficiency = 0.45;

  // Data-parallel gradient reduction (Megatron-core DistributedDataParallel): buckets of
  // max(40,000,000, 1,000,000 x dp) parameters launched as soon as their gradients are ready
  // (overlap_grad_reduce); 0 = that default. Off: one bucket after the whole backward.
  int64_t bucket_params = 0;
  bool overlap_grad_reduce = true;
  // Optimizer step per rank after the gradient reduction; 0 = not modelled (a sync point only).
  int64_t optimizer_ps = 0;
};

// Where the step comes from: the transformer generator, an imported ASTRA-sim 1.0 / SimAI
// text workload (workload/astra_import.h), or a Chakra execution trace (workload/chakra_import.h).
enum class TrainingSource : uint8_t { kTransformer, kAstra, kChakra };

struct TrainingSpec {
  TrainingSource source = TrainingSource::kTransformer;
  // source chakra: `file` is the trace's prefix, read as <file>.<rank>.et for every rank.
  // source astra: the workload file (relative paths are relative to the scenario file) and the
  // clock that turns its compute cycles into time. 1 GHz = ASTRA-sim's and SimAI's own
  // CLOCK_PERIOD of 1 ns per cycle (Common.hh in both), so their timings are reproduced.
  std::string file;
  double clock_ghz = 1.0;
  TransformerSpec transformer;
  int steps = 1;  // iterations; step k+1 starts on a rank once step k's optimizer ran there
  // Also run the step on the ideal network (node::NodeSpec::ideal_fabric; docs/training.md
  // "Ideal network") and report step - ideal step. Off: one run.
  bool ideal_network = false;
  // Stragglers and compute jitter (workload/compute_variation.h).
  ComputeVariation variation;
};

}  // namespace fabricsim::workload
