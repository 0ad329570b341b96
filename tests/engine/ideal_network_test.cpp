// training.ideal_network end to end (scenario keys -> run_scenario's second run on
// node::NodeSpec::ideal_fabric -> result): the ideal step is no longer than the real one on a
// RoCE fabric with cross-node data parallelism, network-attributable time is their difference,
// and a step with no cross-node traffic is the same on both networks. Each step's breakdown adds
// up to its step time exactly.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "engine/run.h"
#include "spec/load.h"

namespace fabricsim::scenario {
namespace ideal_network_test {

RunResult run_yaml(const std::string& yaml) {
  const LoadedScenario s = load_scenario_string(yaml, "ideal.yaml");
  return run_scenario(s.scenario);
}

std::string fabric(int nodes) {
  return "name: ideal\nseed: 1\nfabric:\n  technology: roce\n  link: {rate: 400Gbps, cable: 3m}\n"
         "  pfc: {enabled: true}\n  roce: {cc: dcqcn}\n"
         "topology: {kind: rail, radix: 16}\n"
         "hosts: {count: " +
         std::to_string(nodes) + ", nics_per_host: 8}\nnode: {gpus_per_node: 8}\n";
}

// A small GPT: 2 layers, h 1024, s 1024, 2 micro-batches; TP 8 in the node.
constexpr const char* kGpt =
    "{layers: 2, hidden: 1024, heads: 8, seq_length: 1024, micro_batch: 1, micro_batches: 2, "
    "tp: 8, ideal_network: true}";

void expect_adds_up(const StepBreakdownResult& b, int64_t step_ps, const std::string& what) {
  int64_t comm = 0;
  for (const CommPart& c : b.comm) comm += c.time_ps;
  EXPECT_EQ(comm, b.exposed_comm_ps) << what;
  EXPECT_EQ(b.compute_ps + b.bubble_ps + b.skew_ps + b.exposed_comm_ps, step_ps) << what;
  EXPECT_EQ(b.step_ps, step_ps) << what;
}

TEST(IdealNetwork, IdealStepIsNoLongerAndTheDifferenceIsTheNetworks) {
  // 4 nodes: TP 8 in each, DP 4 across them: the gradient all-reduce crosses the fabric.
  const RunResult r = run_yaml(fabric(4) + "workload: {kind: training}\ntraining: " + kGpt + "\n");
  const TrainingResult& t = r.jobs.at(0).training;
  ASSERT_GT(t.step_time_ps, 0);
  ASSERT_GT(t.ideal_step_ps, 0) << "training.ideal_network runs the ideal network";
  // Not a theorem for any DAG (faster messages can reorder a compute stream's queue: Graham's
  // scheduling anomalies, 1969), but this step's only cross-node traffic is DP buckets that
  // end the step, which no reordering can make later.
  EXPECT_LE(t.ideal_step_ps, t.step_time_ps);
  EXPECT_EQ(t.network_ps, t.step_time_ps - t.ideal_step_ps);
  EXPECT_DOUBLE_EQ(t.ideal_efficiency,
                   static_cast<double>(t.ideal_step_ps) / static_cast<double>(t.step_time_ps));
  ASSERT_TRUE(t.has_breakdown);
  ASSERT_TRUE(t.has_ideal_breakdown);
  expect_adds_up(t.breakdown, t.step_time_ps, "real");
  expect_adds_up(t.ideal_breakdown, t.ideal_step_ps, "ideal");
  // Compute is the same work on the same GPUs on both networks.
  EXPECT_EQ(t.breakdown.compute_ps, t.ideal_breakdown.compute_ps);
  EXPECT_EQ(t.breakdown.bubble_ps, 0) << "pp 1: no pipeline bubble";
  std::printf("[ideal] 4 x 8 GPUs, TP 8 DP 4: step %.3f us, ideal %.3f us, network %.3f us; "
              "exposed comm %.3f us (ideal %.3f us)\n",
              t.step_time_ps / 1e6, t.ideal_step_ps / 1e6, t.network_ps / 1e6,
              t.breakdown.exposed_comm_ps / 1e6, t.ideal_breakdown.exposed_comm_ps / 1e6);
}

// The step ran on both machines, the ideal one is no longer, and its breakdown adds up.
void expect_ideal_not_longer(const TrainingResult& t) {
  ASSERT_GT(t.step_time_ps, 0);
  ASSERT_GT(t.ideal_step_ps, 0);
  EXPECT_LE(t.ideal_step_ps, t.step_time_ps);
  ASSERT_TRUE(t.has_ideal_breakdown);
  expect_adds_up(t.ideal_breakdown, t.ideal_step_ps, "ideal");
}

TEST(IdealNetwork, ManyChannelsOnOneNicPairDoNotMakeTheIdealStepLonger) {
  // 16 nodes x 1 GPU, DP 16, distributed optimizer: the step is a 16-rank reduce-scatter and
  // all-gather over a ring across nodes, each ring step 16 channel messages of ~40 KB on one
  // NIC pair. When every ideal message had its NIC's line to itself, the 16 shared the sending
  // PCIe fairly and all ended at once, so NCCL's per-hop latency (~8 us) ran after each step's
  // transfer instead of overlapping the other channels': ideal 573.2 us against the real
  // 444.3 us. The NIC now sends a pair's messages in order, as the real one does on its queue
  // pair, and the channels pipeline (docs/training.md "Ideal network").
  const RunResult r = run_yaml(
      "name: ideal-dp16\nseed: 1\nfabric:\n  technology: roce\n  link: {rate: 400Gbps, cable: 3m}\n"
      "  pfc: {enabled: true}\n  roce: {cc: dcqcn}\ntopology: {kind: rail, radix: 64}\n"
      "hosts: {count: 16, nics_per_host: 1}\nnode: {gpus_per_node: 1, host: {sockets: 1}}\n"
      "workload: {kind: training}\n"
      "training: {layers: 2, hidden: 256, heads: 4, vocab: 4096, seq_length: 256, "
      "micro_batch: 1, micro_batches: 1, tp: 1, distributed_optimizer: true, "
      "ideal_network: true}\n");
  const TrainingResult& t = r.jobs.at(0).training;
  ASSERT_NO_FATAL_FAILURE(expect_ideal_not_longer(t));
  std::printf("[ideal] 16 x 1 GPU, DP 16: step %.3f us, ideal %.3f us\n", t.step_time_ps / 1e6,
              t.ideal_step_ps / 1e6);
}

TEST(IdealNetwork, PipelineAndDataParallelStepIsNoLongerOnTheIdealNetwork) {
  // examples/llama-70b-1024.yaml on 16 nodes (TP 8, PP 8 interleaved, DP 2, distributed
  // optimizer): pipeline sends, DP reduce-scatter and all-gather with several channels per NIC
  // pair, PXN. At 128 nodes (20 s, not a unit test) the ideal network without NIC
  // serialization gave 3.296 ms against the real 3.207 ms; at 16 nodes both models keep
  // ideal <= real, so this guards the property on the full layout.
  const RunResult r = run_yaml(
      "name: ideal-pp\nseed: 1\nfabric:\n  technology: roce\n  link: {rate: 400Gbps, cable: 3m}\n"
      "  pfc: {enabled: true}\n  roce: {cc: dcqcn}\ntopology: {kind: rail, radix: 64}\n"
      "hosts: {count: 16, nics_per_host: 8}\nnode: {gpus_per_node: 8}\n"
      "workload: {kind: training}\n"
      "training: {layers: 16, hidden: 512, heads: 64, kv_heads: 8, ffn_hidden: 1792, "
      "swiglu: true, untie_embeddings: true, vocab: 32000, seq_length: 256, micro_batch: 1, "
      "micro_batches: 8, tp: 8, pp: 8, virtual_stages: 2, sequence_parallel: true, "
      "distributed_optimizer: true, ideal_network: true}\n");
  const TrainingResult& t = r.jobs.at(0).training;
  ASSERT_NO_FATAL_FAILURE(expect_ideal_not_longer(t));
  std::printf("[ideal] 16 x 8 GPUs, TP 8 PP 8 DP 2: step %.3f us, ideal %.3f us\n",
              t.step_time_ps / 1e6, t.ideal_step_ps / 1e6);
}

TEST(IdealNetwork, WithoutCrossNodeTrafficBothNetworksGiveTheSameStep) {
  // One node of a 2-node fabric: TP 8 on NVLink, DP 1. The ideal network changes only the
  // cross-node stage of a transfer (node/gpu_net.cpp, Step::kPost), which this step never
  // reaches, and the node model is the same: tolerance 0 ps.
  const RunResult r = run_yaml(fabric(2) +
                               "jobs:\n  - {name: gpt, nodes: 1, workload: {kind: training}, "
                               "training: " + kGpt + "}\n");
  const TrainingResult& t = r.jobs.at(0).training;
  ASSERT_GT(t.step_time_ps, 0);
  EXPECT_EQ(r.counters.data_packets_sent, 0) << "traffic crossed the fabric";
  EXPECT_EQ(t.ideal_step_ps, t.step_time_ps);
  EXPECT_EQ(t.network_ps, 0);
  EXPECT_EQ(t.ideal_breakdown.exposed_comm_ps, t.breakdown.exposed_comm_ps);
  expect_adds_up(t.breakdown, t.step_time_ps, "real");
}

TEST(IdealNetwork, OffByDefault) {
  const RunResult r = run_yaml(fabric(2) +
                               "workload: {kind: training}\ntraining: {layers: 2, hidden: 512, "
                               "heads: 8, seq_length: 256, tp: 8}\n");
  const TrainingResult& t = r.jobs.at(0).training;
  EXPECT_EQ(t.ideal_step_ps, -1);
  ASSERT_TRUE(t.has_breakdown);
  expect_adds_up(t.breakdown, t.step_time_ps, "real");
}

}  // namespace ideal_network_test
}  // namespace fabricsim::scenario
