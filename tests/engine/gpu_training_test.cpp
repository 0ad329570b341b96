// End to end: training steps through the whole stack (scenario keys -> GpuWorkload ->
// TrainingEngine -> CollectiveEngine -> GpuNet -> fabric). Expectations come from the input
// itself (the ASTRA-sim file, parsed here with a plain whitespace split) and from the Megatron
// FLOP formula (Narayanan et al., SC'21, eq. 3 terms: 24bsh^2 + 4bs^2h per layer forward,
// 2bshV for the logits, backward = 2 x forward), never from an earlier run.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "spec/load.h"
#include "engine/run.h"

namespace fabricsim::scenario {
namespace gpu_training_test {

RunResult run_yaml(const std::string& yaml) {
  const LoadedScenario s = load_scenario_string(yaml, "train.yaml");
  return run_scenario(s.scenario);
}

std::string fabric(int nodes) {
  return "name: train\nseed: 1\nfabric:\n  technology: roce\n  link: {rate: 400Gbps, cable: 3m}\n"
         "  pfc: {enabled: true}\n  roce: {cc: dcqcn}\n"
         "topology: {kind: rail, radix: 16}\n"
         "hosts: {count: " +
         std::to_string(nodes) + ", nics_per_host: 8}\nnode: {gpus_per_node: 8}\n";
}

// ---- 6. The imported ResNet-50.

struct AstraTotals {
  int64_t compute_ns = 0;  // cycles at 1 GHz
  int allreduces = 0;
  int64_t allreduce_bytes = 0;
  int64_t last_allreduce_bytes = 0;  // layer 0's: the step's last collective
};

// Resnet50_DataParallel.txt: "DATA", the layer count, then per layer: name, reserved, and
// (compute cycles, comm type, comm bytes) for forward, input gradient and weight gradient, then
// the update cycles. Data-parallel order (ASTRA-sim Workload::iterate_data_parallel): every
// forward, then per layer from the last: weight-gradient compute, its collective, the update
// delay after it, and the input-gradient compute except for layer 0.
AstraTotals parse_resnet(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  std::string line, word;
  std::getline(in, line);  // DATA
  std::getline(in, line);
  const int layers = std::stoi(line);
  AstraTotals t;
  for (int i = 0; i < layers && std::getline(in, line); ++i) {
    std::istringstream ss(line);
    std::vector<std::string> f;
    while (ss >> word) f.push_back(word);
    EXPECT_EQ(f.size(), 12u) << line;
    if (f.size() != 12) continue;
    t.compute_ns += std::stoll(f[2]) + std::stoll(f[8]);  // forward, weight gradient
    if (i > 0) t.compute_ns += std::stoll(f[5]);         // input gradient
    for (int c : {3, 6, 9}) {
      if (f[c] != "ALLREDUCE") {
        EXPECT_EQ(f[c], "NONE") << line;
        continue;
      }
      ++t.allreduces;
      t.allreduce_bytes += std::stoll(f[c + 1]);
      t.compute_ns += std::stoll(f[11]);  // the update delay after the collective
      if (i == 0) t.last_allreduce_bytes = std::stoll(f[c + 1]);
    }
  }
  return t;
}

TEST(GpuTrainingEndToEnd, ImportedResnet50StepIsComputePlusExposedCommunication) {
  const std::string path =
      std::string(FABRICSIM_SOURCE_DIR) + "/tests/workload/data/astra-sim/Resnet50_DataParallel.txt";
  const AstraTotals file = parse_resnet(path);
  // The figures for this file; the parse above must find them.
  EXPECT_EQ(file.allreduces, 54);
  EXPECT_EQ(file.allreduce_bytes, 102'011'648);

  const RunResult r = run_yaml(fabric(2) +
                               "workload: {kind: training}\n"
                               "training: {source: astra, file: " +
                               path + ", clock_ghz: 1}\n");
  ASSERT_EQ(r.jobs.size(), 1u);
  const TrainingResult& t = r.jobs[0].training;
  ASSERT_TRUE(t.present);
  ASSERT_GT(t.step_time_ps, 0) << "step did not finish";
  EXPECT_EQ(t.gpus, 16);
  // step = compute + exposed communication, exactly (the critical rank's compute is busy time).
  EXPECT_EQ(t.step_time_ps, t.compute_ps + t.exposed_comm_ps);
  // Every rank runs the same data-parallel compute: the file's cycles at 1 GHz.
  EXPECT_EQ(t.compute_ps, file.compute_ns * 1000);
  // The collectives: all data-parallel, the file's count and bytes.
  int64_t count = 0, bytes = 0;
  for (const PhaseComm& pc : t.comm) {
    EXPECT_EQ(pc.phase, "data_parallel");
    count += pc.collectives;
    bytes += pc.bytes;
  }
  EXPECT_EQ(count, file.allreduces);
  EXPECT_EQ(bytes, file.allreduce_bytes);
  // For scale: layer 0's all-reduce (the step's last collective) alone on the idle fabric.
  // Not a strict lower bound of the exposed time: update delays of earlier layers whose
  // all-reduces finished late still run on the compute stream while it is in flight.
  const RunResult alone = run_yaml(
      fabric(2) + "workload: {kind: collective, op: all_reduce, size: " +
      std::to_string(file.last_allreduce_bytes) + "B}\n");
  const double last_ar_ps = static_cast<double>(alone.jobs.at(0).collectives.at(0).time_ps);
  std::printf("[6] ResNet-50 (astra) on 2 x 8: step %.3f us = compute %.3f us (file: %.3f us) + "
              "exposed %.3f us; %lld all-reduces, %lld B (file: %d, %lld B); layer 0's %lld B "
              "all-reduce alone %.3f us\n",
              t.step_time_ps / 1e6, t.compute_ps / 1e6, file.compute_ns / 1e3,
              t.exposed_comm_ps / 1e6, static_cast<long long>(count),
              static_cast<long long>(bytes), file.allreduces,
              static_cast<long long>(file.allreduce_bytes),
              static_cast<long long>(file.last_allreduce_bytes), last_ar_ps / 1e6);
  EXPECT_GT(t.exposed_comm_ps, 0) << "the last all-reduce is never hidden entirely";
  // And at most every collective's time summed (nothing else is ever waited for).
  int64_t comm_sum = 0;
  for (const PhaseComm& pc : t.comm) comm_sum += pc.time_ps;
  EXPECT_LE(t.exposed_comm_ps, comm_sum);
}

// ---- 8. Scaling, and a step without inter-node traffic.

// A small GPT: 4 layers, h 1024, 8 heads, s 1024, b 1, 2 micro-batches, TP 8 inside each node.
constexpr int kLayers = 4, kHidden = 1024, kSeq = 1024, kMicroBatches = 2, kTp = 8;
constexpr const char* kGpt =
    "{layers: 4, hidden: 1024, heads: 8, seq_length: 1024, micro_batch: 1, micro_batches: 2, "
    "tp: 8}";

// Compute per GPU (one DP replica's micro-batches, split over TP) at the default H100-SXM dense
// BF16 peak 989.4 TFLOPS x efficiency 0.45, in ps. Vocabulary 50,257 padded to a multiple of
// 128 x tp (Megatron's _vocab_size_with_padding): 51,200.
double gpt_compute_ps() {
  const double b = 1, s = kSeq, h = kHidden;
  const double vocab = std::ceil(50257.0 / (128 * kTp)) * 128 * kTp;
  const double layer_fwd = 24 * b * s * h * h + 4 * b * s * s * h;
  const double logits_fwd = 2 * b * s * h * vocab;
  const double flops = kMicroBatches * 3 * (kLayers * layer_fwd + logits_fwd) / kTp;
  return flops / (989.4e12 * 0.45) * 1e12;
}

TEST(GpuTrainingEndToEnd, OneNodeWithTensorParallelismSendsNothingAcrossNodes) {
  // One node of a 2-node fabric: TP 8 on NVLink, DP 1. No packet crosses the fabric; the step is
  // the FLOP-derived compute plus the exposed TP all-reduces, which are Megatron's 2 forward +
  // 2 backward per layer per micro-batch, each b x s x h x 2 bytes (bf16).
  // (The step is not compute alone: TP all-reduces sit on the critical path.)
  const RunResult r = run_yaml(fabric(2) +
                               "jobs:\n  - {name: gpt, nodes: 1, workload: {kind: training}, "
                               "training: " +
                               kGpt + "}\n");
  const TrainingResult& t = r.jobs.at(0).training;
  ASSERT_GT(t.step_time_ps, 0);
  EXPECT_EQ(r.counters.data_packets_sent, 0) << "traffic crossed the fabric";
  EXPECT_EQ(t.step_time_ps, t.compute_ps + t.exposed_comm_ps);
  const double compute = gpt_compute_ps();
  EXPECT_NEAR(static_cast<double>(t.compute_ps), compute, 0.01 * compute);
  ASSERT_EQ(t.comm.size(), 1u);
  EXPECT_EQ(t.comm[0].phase, "tensor_parallel");
  EXPECT_EQ(t.comm[0].collectives, 4 * kLayers * kMicroBatches);
  EXPECT_EQ(t.comm[0].bytes, int64_t{4} * kLayers * kMicroBatches * kSeq * kHidden * 2);
  std::printf("[8] 1 node, TP 8: step %.2f us = compute %.2f us (FLOPs: %.2f us) + exposed TP "
              "%.2f us; %lld TP all-reduces, %lld B; fabric data packets %lld\n",
              t.step_time_ps / 1e6, t.compute_ps / 1e6, compute / 1e6, t.exposed_comm_ps / 1e6,
              static_cast<long long>(t.comm[0].collectives),
              static_cast<long long>(t.comm[0].bytes),
              static_cast<long long>(r.counters.data_packets_sent));
}

TEST(GpuTrainingEndToEnd, ScalingRatiosStartAtOneAndNeverExceedIt) {
  // Fixed per-GPU batch (weak scaling): N nodes do N x the work of one node in at least the
  // same time, since compute per GPU is unchanged and the DP all-reduce only adds, so
  // ratio(N) = step(1) / step(N) <= 1 (1 % tolerance for event-order noise) and ratio(1) = 1.
  const RunResult r =
      run_yaml(fabric(4) + "workload: {kind: training}\ntraining: " + kGpt +
               "\nscaling: {nodes: [1, 2, 4]}\n");
  ASSERT_EQ(r.scaling.size(), 3u);
  const double compute = gpt_compute_ps();
  const int nodes[3] = {1, 2, 4};
  for (size_t i = 0; i < r.scaling.size(); ++i) {
    const ScalingPoint& p = r.scaling[i];
    EXPECT_EQ(p.nodes, nodes[i]);
    EXPECT_EQ(p.gpus, 8 * nodes[i]);
    ASSERT_GT(p.step_time_ps, 0);
    const double ratio = static_cast<double>(r.scaling[0].step_time_ps) / p.step_time_ps;
    std::printf("[8] %d node(s): step %.2f us (compute %.2f us), acceleration ratio %.4f\n",
                p.nodes, p.step_time_ps / 1e6, compute / 1e6, p.acceleration_ratio);
    EXPECT_NEAR(p.acceleration_ratio, ratio, 1e-9) << "ratio = step(1) / step(N)";
    EXPECT_LE(p.acceleration_ratio, 1.01);
    EXPECT_GE(static_cast<double>(p.step_time_ps), compute * 0.99) << "faster than its compute";
  }
  EXPECT_DOUBLE_EQ(r.scaling[0].acceleration_ratio, 1.0);
}

}  // namespace gpu_training_test
}  // namespace fabricsim::scenario
