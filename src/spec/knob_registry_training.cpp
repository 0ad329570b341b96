// Registry entries of the training generator (training.*): the transformer's dimensions, its
// parallel degrees, the GPU throughput profile and the data-parallel gradient reduction.
// Descriptions and sources restate workload/training_spec.h; checks that involve the job's GPU
// count (degrees dividing it, heads by tp, layers by pp) are workload::check_transformer's.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "spec/knob_bind.h"
#include "spec/knob_tables.h"
#include "spec/knobs.h"
#include "workload/training_spec.h"
#include "workload/transformer.h"

namespace fabricsim::scenario {

using knob_bind::bind;
using knob_bind::bind_enum;

namespace {

constexpr char kGpt3[] =
    "GPT-3 XL 1.3B, Brown et al. 2020 'Language Models are Few-Shot Learners' Table 2.1";

struct IntKey {
  const char* path;
  const char* description;
  const char* source;
  int workload::TransformerSpec::*field;
  double min;
  double max = 0;  // 0 = only the range of the int it fills
};

const IntKey ints[] = {
    {"training.layers", "Transformer layers l", kGpt3, &workload::TransformerSpec::layers, 1,
     static_cast<double>(workload::kMaxLayers)},
    {"training.hidden", "Hidden size h", kGpt3, &workload::TransformerSpec::hidden, 1,
     static_cast<double>(workload::kMaxHidden)},
    {"training.heads", "Attention heads (divides hidden; tp divides it)", kGpt3,
     &workload::TransformerSpec::heads, 1},
    {"training.kv_heads",
     "Key/value heads (grouped-query attention, Megatron --num-query-groups); divides heads, "
     "tp divides it; 0 = heads (multi-head attention)",
     "0: GPT-3's multi-head attention (Brown et al. 2020); GQA: Ainslie et al. 2023, Llama 2 "
     "70B uses 8 (Touvron et al. 2023 §2.2, Table 1)",
     &workload::TransformerSpec::kv_heads, 0},
    {"training.ffn_hidden", "FFN inner size (tp divides it); 0 = 4 x hidden",
     "0: GPT-3's d_ff = 4 d_model (Brown et al. 2020 §2.1; Megatron --ffn-hidden-size default)",
     &workload::TransformerSpec::ffn_hidden, 0},
    {"training.seq_length", "Sequence length s in tokens", kGpt3 /* context 2048 */,
     &workload::TransformerSpec::seq_length, 1, static_cast<double>(workload::kMaxSeqLength)},
    {"training.vocab", "Vocabulary V before padding",
     "GPT-2 BPE vocabulary 50,257 used by GPT-3 (Brown et al. 2020 §2.1; Radford et al. 2019)",
     &workload::TransformerSpec::vocab, 1, static_cast<double>(workload::kMaxVocab)},
    {"training.vocab_divisible_by",
     "The vocabulary is padded to a multiple of this x tp (the output layer is split over tp)",
     "Megatron-LM --make-vocab-size-divisible-by default 128 (UNVERIFIED: source line not "
     "opened)",
     &workload::TransformerSpec::vocab_divisible_by, 1},
    {"training.micro_batch", "Micro-batch size b in sequences",
     "Megatron-LM --micro-batch-size; 1 is the common setting with pipeline parallelism "
     "(Narayanan et al. SC'21 §3)",
     &workload::TransformerSpec::micro_batch, 1, static_cast<double>(workload::kMaxMicroBatch)},
    {"training.micro_batches",
     "Micro-batches per step per data-parallel replica m (ignored when global_batch > 0)",
     "one micro-batch per step: the smallest step; Megatron derives m = B / (b x dp)",
     &workload::TransformerSpec::micro_batches, 1},
    {"training.global_batch",
     "Global batch B in sequences; > 0 sets m = B / (micro_batch x dp), 0 = use micro_batches",
     "Megatron-LM --global-batch-size", &workload::TransformerSpec::global_batch, 0},
    {"training.tp", "Tensor-parallel degree (consecutive ranks: inside a node)",
     "Megatron-core parallel_state order tp-cp-ep-dp-pp; 1 = off", &workload::TransformerSpec::tp,
     1},
    {"training.pp", "Pipeline-parallel degree (stages; 1F1B schedule)",
     "Narayanan et al. SC'21 §2.2; 1 = off", &workload::TransformerSpec::pp, 1},
    {"training.virtual_stages",
     "Model chunks per pipeline stage: > 1 runs the interleaved 1F1B schedule (bubble / v, v x "
     "the pipeline messages); pp x virtual_stages divides layers, pp divides micro_batches",
     "1: non-interleaved 1F1B; interleaved: Narayanan et al. SC'21 §2.2.2 (Megatron "
     "--num-layers-per-virtual-pipeline-stage)",
     &workload::TransformerSpec::virtual_stages, 1, 1024},
    {"training.dp",
     "Data-parallel degree; 0 = the job's GPUs / (tp x pp); tp x pp x dp = the job's GPUs",
     "Megatron derives dp from the world size", &workload::TransformerSpec::dp, 0},
    {"training.ep", "Expert-parallel degree: experts split over ep of the dp ranks (divides dp)",
     "Megatron-core parallel_state (expert groups carved out of data parallelism); 1 = off",
     &workload::TransformerSpec::ep, 1},
    {"training.moe.experts", "Experts per MoE layer; 0 = a dense model",
     "dense GPT-3 (Brown et al. 2020)", &workload::TransformerSpec::moe_experts, 0,
     static_cast<double>(workload::kMaxExperts)},
    {"training.moe.top_k", "Experts each token is routed to",
     "top-2 gating of GShard (Lepikhin et al. 2020); UNVERIFIED as the typical choice",
     &workload::TransformerSpec::moe_top_k, 1},
    {"training.moe.every", "Every k-th layer is an MoE layer (1 = all)",
     "Megatron-core --moe-layer-freq default 1 (UNVERIFIED: source line not opened)",
     &workload::TransformerSpec::moe_every, 1},
};

// The transformer's integer dimensions and degrees, one key per row of `ints`.
std::vector<Knob> int_knobs() {
  std::vector<Knob> k;
  for (const IntKey& key : ints) {
    k.push_back(bind(
        {.path = key.path,
         .type = KnobType::kInt,
         .description = key.description,
         .source = key.source,
         .min = Bound{key.min},
         .max = key.max > 0 ? std::optional<Bound>(Bound{key.max}) : std::nullopt},
        [field = key.field](auto& s) -> auto& { return s.training.transformer.*field; }));
  }
  return k;
}

// The GPU profile names as enum choices (workload/transformer_spec.cpp lists them).
std::vector<std::pair<std::string, std::string>> gpu_choices() {
  std::vector<std::pair<std::string, std::string>> gpus;
  for (const workload::GpuProfile& p : workload::gpu_profiles()) gpus.emplace_back(p.name, p.name);
  return gpus;
}

const std::vector<Knob> kTrainingKnobs = knob_bind::concat(
    {{bind_enum(
          {.path = "training.source",
           .description = "Where the step comes from: transformer (the generator below), astra "
                          "(an ASTRA-sim 1.0 / SimAI text workload: training.file) or chakra (a "
                          "Chakra execution trace, one file per GPU: training.file)",
           .source = "issues 10 and 27; docs/workloads.md"},
          std::vector<std::pair<std::string, workload::TrainingSource>>{
              {"transformer", workload::TrainingSource::kTransformer},
              {"astra", workload::TrainingSource::kAstra},
              {"chakra", workload::TrainingSource::kChakra}},
          [](auto& s) -> auto& { return s.training.source; }),
      bind(
          {.path = "training.file",
           .type = KnobType::kString,
           .description = "source astra: the workload file; source chakra: the trace's prefix, "
                          "read as PREFIX.RANK.et for ranks 0 .. GPUs-1 (ASTRA-sim's "
                          "--workload-configuration). Relative to the scenario file",
           .source = "none",
           .only_with = {{"training.source", "astra", "chakra"}}},
          [](auto& s) -> auto& { return s.training.file; }),
      bind(
          {.path = "training.clock_ghz",
           .type = KnobType::kDouble,
           .description = "source astra: the clock that turns the file's compute cycles into time "
                          "(GHz)",
           .source = "1 GHz = ASTRA-sim's and SimAI's CLOCK_PERIOD of 1 ns (Common.hh in both)",
           .min = Bound{0, true},
           .max = Bound{1000},
           .only_with = {{"training.source", "astra"}}},
          [](auto& s) -> auto& { return s.training.clock_ghz; })},
     int_knobs(),
     {
         bind(
             {.path = "training.bytes_per_element",
              .type = KnobType::kInt,
              .description = "Bytes per activation/weight element (bf16 = 2): TP, PP and "
                             "EP message sizes",
              .source = "bf16 mixed precision (Megatron-LM --bf16; gpu-node.md §5)",
              .one_of = {1, 2, 4}},
             [](auto& s) -> auto& { return s.training.transformer.bytes_per_element; }),
         bind(
             {.path = "training.grad_bytes",
              .type = KnobType::kInt,
              .description = "Bytes per gradient element in the data-parallel reduction "
                             "(4 = fp32 accumulation, 2 = bf16)",
              .source = "Megatron-core DDP grad buffer in fp32 (accumulate_allreduce_grads_"
                        "in_fp32; gpu-node.md §5)",
              .one_of = {2, 4}},
             [](auto& s) -> auto& { return s.training.transformer.grad_bytes; }),
         bind(
             {.path = "training.recompute",
              .type = KnobType::kBool,
              .description = "Full activation recomputation: each layer's forward runs "
                             "again (with its TP all-reduces) before its backward",
              .source = "off: Megatron-LM default; 96 vs 72 FLOPs factor, Narayanan et al. "
                        "SC'21 §5.1"},
             [](auto& s) -> auto& { return s.training.transformer.recompute; }),
         bind(
             {.path = "training.swiglu",
              .type = KnobType::kBool,
              .description = "SwiGLU MLP: FC1 outputs 2 x ffn_hidden (gate and value), three "
                             "h x ffn_hidden matrices, MLP FLOPs x 1.5",
              .source = "off: GPT-3's GeLU MLP; SwiGLU: Shazeer 2020, used by Llama 2 (Touvron "
                        "et al. 2023 §2.2; Megatron --swiglu)"},
             [](auto& s) -> auto& { return s.training.transformer.swiglu; }),
         bind(
             {.path = "training.untie_embeddings",
              .type = KnobType::kBool,
              .description = "The output layer has its own weight instead of sharing the word "
                             "embedding's: no embedding-gradient all-reduce between the first "
                             "and last pipeline stage",
              .source = "off: tied, GPT-2/3 and Megatron's default; on for Llama 2 (Touvron et "
                        "al. 2023; Megatron --untie-embeddings-and-output-weights)"},
             [](auto& s) -> auto& { return s.training.transformer.untie_embeddings; }),
         bind(
             {.path = "training.sequence_parallel",
              .type = KnobType::kBool,
              .description = "Sequence parallelism: each TP all-reduce becomes a reduce-scatter "
                             "+ all-gather of the same size; layer-norm and dropout activations "
                             "split over tp (no effect at tp 1)",
              .source = "off: Megatron-LM default; Korthikanti et al. 2022 'Reducing Activation "
                        "Recomputation in Large Transformer Models' §4.2.2 (--sequence-parallel)"},
             [](auto& s) -> auto& { return s.training.transformer.sequence_parallel; }),
         bind(
             {.path = "training.distributed_optimizer",
              .type = KnobType::kBool,
              .description = "Distributed optimizer (ZeRO-1/2): DP gradient buckets are "
                             "reduce-scattered (grad_bytes) and the updated parameters "
                             "all-gathered (bytes_per_element) instead of one all-reduce",
              .source = "off: Megatron-LM default; --use-distributed-optimizer (Megatron Core "
                        "User Guide, 'Distributed Optimizer'); Rajbhandari et al. 2020 'ZeRO' "
                        "§5, §7.2"},
             [](auto& s) -> auto& { return s.training.transformer.distributed_optimizer; }),
         bind(
             {.path = "training.moe.imbalance",
              .type = KnobType::kDouble,
              .description = "MoE routing imbalance: the hottest expert's token load over the "
                             "mean (1 = balanced, at most experts / top_k); its EP rank receives "
                             "and computes that much more, the others less",
              .source = "1: balanced routing, the load-balancing loss's goal (Fedus et al. 2022 "
                        "'Switch Transformers' §2.2); set it from a router trace",
              .min = Bound{1},
              .max = Bound{static_cast<double>(workload::kMaxExperts)}},
             [](auto& s) -> auto& { return s.training.transformer.moe_imbalance; }),
         bind_enum(
             {.path = "training.gpu",
              .description =
                  "GPU throughput profile: dense BF16 peak h100-sxm 989.4, h100-pcie 756.5, "
                  "a100-sxm 312 TFLOPS",
              .source = "NVIDIA H100 datasheet (1,979 TFLOPS with sparsity, half dense; "
                        "gpu-node.md §1.1); A100 datasheet 312 (UNVERIFIED here)"},
             gpu_choices(), [](auto& s) -> auto& { return s.training.transformer.gpu; }),
         bind(
             {.path = "training.peak_tflops",
              .type = KnobType::kDouble,
              .description = "Dense peak TFLOPS per GPU; overrides training.gpu's",
              .source = "the training.gpu profile",
              .min = Bound{0, true},
              .max = Bound{1e6}},
             [](auto& s) -> auto& { return s.training.transformer.peak_tflops; }),
         bind(
             {.path = "training.efficiency",
              .type = KnobType::kDouble,
              .description = "Model-FLOPs utilisation: compute time = FLOPs / (peak x "
                             "efficiency)",
              .source = "Megatron-LM README: 41-48 % MFU on H100 (weak scaling; "
                        "gpu-node.md §5)",
              .min = Bound{0, true},
              .max = Bound{1}},
             [](auto& s) -> auto& { return s.training.transformer.efficiency; }),
         bind(
             {.path = "training.overlap_grad_reduce",
              .type = KnobType::kBool,
              .description = "Data-parallel gradient buckets all-reduce as soon as ready, "
                             "overlapping the backward; off = one bucket after it",
              .source = "Megatron-core DistributedDataParallelConfig overlap_grad_reduce "
                        "(--overlap-grad-reduce; its library default is off, on here "
                        "as in NVIDIA's published training recipes, UNVERIFIED)"},
             [](auto& s) -> auto& { return s.training.transformer.overlap_grad_reduce; }),
         bind(
             {.path = "training.bucket_params",
              .type = KnobType::kInt,
              .description = "Gradient bucket size in parameters; 0 = Megatron's "
                             "max(40,000,000, 1,000,000 x dp)",
              .source = "Megatron-core distributed_data_parallel.py (gpu-node.md §5)",
              .min = Bound{0},
              .max = Bound{1e15}},
             [](auto& s) -> auto& { return s.training.transformer.bucket_params; }),
         bind(
             {.path = "training.optimizer_time",
              .type = KnobType::kTime,
              .description = "Optimizer step per rank after the gradient reduction",
              .source = "0: not modelled (a synchronisation point only); set it from a "
                        "profile",
              .min = Bound{0}},
             [](auto& s) -> auto& { return s.training.transformer.optimizer_ps; }),
         bind(
             {.path = "training.steps",
              .type = KnobType::kInt,
              .description = "Training iterations; step k+1 starts on a rank once step "
                             "k's optimizer ran there",
              .source = "one step: what step time is reported for",
              .min = Bound{1},
              .max = Bound{1000}},
             [](auto& s) -> auto& { return s.training.steps; }),
         bind(
             {.path = "training.ideal_network",
              .type = KnobType::kBool,
              .description = "Also run the same step on an ideal network (a non-blocking big "
                             "switch: each NIC's line in and out serializes at the line rate, "
                             "one message per NIC pair at a time, pairs sharing fairly; no "
                             "headers, no contention inside, two cable propagations; "
                             "NVLink/PCIe as modelled) and report network-attributable time = "
                             "step - ideal step",
              .source = "off: one run; the ideal network is the big switch of ASTRA-sim's "
                        "congestion-aware analytical backend (its Switch topology) at "
                        "message grain, with latency at the speed-of-light floor "
                        "(docs/training.md)"},
             [](auto& s) -> auto& { return s.training.ideal_network; }),
         bind(
             {.path = "training.straggler_ranks",
              .type = KnobType::kIntList,
              .description = "Job-local ranks that compute training.straggler_slowdown times "
                             "slower (stragglers)",
              .source = "none: every GPU computes at the profile's rate; ASTRA-sim users' "
                        "requests for stragglers (astra-sim#292, #73, #139)",
              .min = Bound{0}},
             [](auto& s) -> auto& { return s.training.variation.straggler_ranks; }),
         bind(
             {.path = "training.straggler_slowdown",
              .type = KnobType::kDouble,
              .description = "Compute-time multiplier of the straggler ranks (1.2 = 20% slower)",
              .source = "1: no slowdown",
              .min = Bound{0.01},
              .max = Bound{100.0}},
             [](auto& s) -> auto& { return s.training.variation.straggler_slowdown; }),
         bind(
             {.path = "training.straggler_from",
              .type = KnobType::kTime,
              .description = "The stragglers slow down for compute ops starting at or after "
                             "this time (throttling that sets in during the run)",
              .source = "0: the whole run",
              .min = Bound{0}},
             [](auto& s) -> auto& { return s.training.variation.straggler_from_ps; }),
         bind(
             {.path = "training.compute_jitter",
              .type = KnobType::kDouble,
              .description = "Sigma of a lognormal factor of mean 1 on every compute op's "
                             "duration, drawn per op from the seed",
              .source = "0: no jitter (UNVERIFIED for real GPUs: kernel-time spread depends on "
                        "clocks, power capping and the kernel; set it from a measurement)",
              .min = Bound{0.0},
              .max = Bound{2.0}},
             [](auto& s) -> auto& { return s.training.variation.jitter_sigma; }),
     }});

}  // namespace

const std::vector<Knob>& training_knobs() { return kTrainingKnobs; }

}  // namespace fabricsim::scenario
