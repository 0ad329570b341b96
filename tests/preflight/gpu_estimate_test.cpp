// Issue 23 item 4: the pre-flight's view of GPU runs (preflight/resources_gpu.h) and the run-time
// estimate of a training step (preflight/runtime_estimate.h), against counts derived here from
// the model's shape (Megatron-LM formulas, docs/training.md) and against what a run of the same
// scenario really posts (its transport messages and its events: deterministic counts, not
// timings or memory).
//
//   node 0: GPUs 0-7 (TP 8, NVLink) ---- rail fabric, 8 rails ---- node 1: GPUs 8-15
//   DP all-reduce per TP rank t: GPU t <-> GPU 8 + t, a ring of 2 across the fabric
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <set>
#include <string>

#include "engine/run.h"
#include "preflight/resources.h"
#include "preflight/resources_gpu.h"
#include "preflight/runtime_estimate.h"
#include "resolve/resolve.h"
#include "spec/load.h"
#include "workload/astra_import.h"
#include "workload/dag.h"
#include "workload/transformer.h"

namespace fabricsim::scenario {
namespace gpu_estimate_test {

std::string training_yaml(int nodes, int layers, int m, int tp, int pp, bool overlap) {
  return "name: est\nseed: 1\nfabric:\n  technology: roce\n  link: {rate: 400Gbps, cable: 3m}\n"
         "  pfc: {enabled: true}\n  roce: {cc: dcqcn}\n"
         "topology: {kind: rail, radix: 16}\nhosts: {count: " +
         std::to_string(nodes) +
         ", nics_per_host: 8}\nnode: {gpus_per_node: 8}\nworkload: {kind: training}\n"
         "training: {layers: " +
         std::to_string(layers) + ", hidden: 1024, heads: 8, seq_length: 1024, micro_batch: 1, " +
         "micro_batches: " + std::to_string(m) + ", tp: " + std::to_string(tp) +
         ", pp: " + std::to_string(pp) +
         ", overlap_grad_reduce: " + (overlap ? "true" : "false") + "}\n";
}

Scenario resolved(const std::string& yaml) {
  Scenario sc = load_scenario_string(yaml, "est.yaml").scenario;
  (void)resolve(sc);
  return sc;
}

// The generator's ops (workload/transformer.cpp), one gradient bucket per stage and TP rank:
//   compute per rank: 10 per layer of its stage and micro-batch (2 forward, 8 backward), one
//     optimizer step; the last stage's ranks 3 more per micro-batch (logits forward, its two
//     backward GEMMs);
//   TP all-reduces: 4 per layer and micro-batch per DP replica (Shoeybi et al. §3), tp > 1;
//   PP sends: per micro-batch, one activation and one gradient per rank and stage boundary;
//   DP all-reduces: one per stage and TP rank (dp > 1); the tied embedding's all-reduce over
//     the first and last stage: one per DP replica and TP rank (pp > 1).
int64_t generator_ops(int64_t g, int64_t layers, int64_t m, int64_t tp, int64_t pp) {
  const int64_t dp = g / (tp * pp);
  const int64_t per_stage = tp * dp;
  int64_t ops = g * (10 * (layers / pp) * m + 1) + per_stage * 3 * m;
  if (tp > 1) ops += dp * 4 * layers * m;
  ops += 2 * (pp - 1) * per_stage * m;
  if (dp > 1) ops += pp * tp;
  if (pp > 1) ops += per_stage;
  return ops;
}

TEST(GpuEstimate, TrainingDagOpsFollowTheModelShape) {
  struct Case {
    int nodes, layers, m, tp, pp;
  };
  for (const Case c : {Case{2, 2, 2, 8, 1}, Case{4, 4, 4, 8, 2}, Case{2, 4, 3, 4, 2},
                       Case{4, 8, 8, 8, 4}}) {
    const Scenario sc = resolved(training_yaml(c.nodes, c.layers, c.m, c.tp, c.pp, false));
    const GpuTraffic t = gpu_traffic(sc);
    EXPECT_EQ(t.dag_ops, generator_ops(int64_t{c.nodes} * 8, c.layers, c.m, c.tp, c.pp))
        << c.nodes << " nodes, " << c.layers << " layers, m " << c.m << ", tp " << c.tp
        << ", pp " << c.pp;
    EXPECT_FALSE(t.bounded);
  }
}

// A step too large to build is counted from two smaller ones (the same step at 1 and 2
// micro-batches, or pp and 2 pp when interleaved) on the line through them: every count of
// the step is linear in its micro-batches. Forced here by a build limit just below the step's
// own bound, the line must give exactly what building the whole step gives, and what is live
// at once the same.
TEST(GpuEstimate, AStepTooLargeToBuildIsCountedOnTheLineThroughTwoSmallerOnes) {
  struct Case {
    std::string extra;
    int nodes, layers, m, tp, pp;
  };
  for (const Case& c : {Case{"", 4, 4, 8, 8, 2}, Case{"", 4, 8, 6, 4, 4},
                        Case{", virtual_stages: 2, sequence_parallel: true, "
                             "distributed_optimizer: true",
                             4, 8, 8, 8, 2}}) {
    std::string yaml = training_yaml(c.nodes, c.layers, c.m, c.tp, c.pp, true);
    yaml.insert(yaml.rfind('}'), c.extra);
    const Scenario sc = resolved(yaml);
    const GpuTraffic built = gpu_traffic(sc);
    ASSERT_FALSE(built.bounded);
    const int64_t bound = workload::transformer_ops_estimate(
        sc.training.transformer, static_cast<uint32_t>(c.nodes * 8));
    const GpuTraffic line = gpu_traffic(sc, bound - 1);
    const std::string what = "m " + std::to_string(c.m) + ", pp " + std::to_string(c.pp) + c.extra;
    EXPECT_FALSE(line.bounded) << what;
    EXPECT_EQ(line.dag_ops, built.dag_ops) << what;
    EXPECT_EQ(line.dag_deps, built.dag_deps) << what;
    EXPECT_EQ(line.messages, built.messages) << what;
    EXPECT_EQ(line.collectives, built.collectives) << what;
    EXPECT_EQ(line.net_bytes, built.net_bytes) << what;
    EXPECT_EQ(line.total_bytes, built.total_bytes) << what;
    EXPECT_EQ(line.live_messages, built.live_messages) << what;
    EXPECT_EQ(line.plan_bytes, built.plan_bytes) << what;
    EXPECT_EQ(line.pairs, built.pairs) << what;
    // Below even the small steps' bound: the generator's upper bound, nothing counted live.
    const GpuTraffic none = gpu_traffic(sc, 1);
    EXPECT_TRUE(none.bounded) << what;
    EXPECT_EQ(none.live_messages, -1) << what;
    EXPECT_GE(none.dag_ops, built.dag_ops) << what;
  }
}

// The transport messages the estimate counts are those the run posts: the DP all-reduce rings
// cut as the engine cuts them (loops, slices), the TP all-reduces on NVLink posting none.
TEST(GpuEstimate, TrainingMessagesAreThoseTheRunPosts) {
  const std::string yaml = training_yaml(2, 2, 2, 8, 1, false);
  const Scenario sc = resolved(yaml);
  const GpuTraffic t = gpu_traffic(sc);
  const RunResult r = run_scenario(load_scenario_string(yaml, "est.yaml").scenario);
  ASSERT_TRUE(r.jobs.at(0).training.finished());
  EXPECT_EQ(t.messages, static_cast<int64_t>(r.flows.size()));
  EXPECT_EQ(estimate_resources(sc).messages, static_cast<int64_t>(r.flows.size()));
}

// Connections across the fabric, by hand: a ring reduce-scatter over 8 nodes x 1 GPU on 4
// channels crosses 8 node boundaries per channel. Packet mode gives every channel its own QP
// on each (NCCL's net.cc connects per channel): 8 x 4 = 32; flow mode keeps one connection per
// NIC pair (engine/flow/flow_headers.cpp): 8. The runs' messages went on exactly that many.
TEST(GpuEstimate, ConnectionsArePerChannelExceptInFlowMode) {
  const std::string yaml =
      "name: est\nseed: 1\nfabric:\n  technology: roce\n  link: {rate: 400Gbps, cable: 3m}\n"
      "  pfc: {enabled: true}\ntopology: {kind: rail, radix: 16}\n"
      "hosts: {count: 8, nics_per_host: 1}\nnode: {gpus_per_node: 1, host: {sockets: 1}}\n"
      "workload: {kind: collective, op: reduce_scatter, algorithm: ring, protocol: simple, "
      "size: 4MiB, channels: 4}\n";
  for (const char* mode : {"packet", "flow"}) {
    const std::string y = yaml + "mode: " + mode + "\n";
    const Scenario sc = resolved(y);
    const int64_t expected = std::string(mode) == "flow" ? 8 : 8 * 4;
    EXPECT_EQ(estimate_resources(sc).qps, expected) << mode;
    const RunResult r = run_scenario(load_scenario_string(y, "est.yaml").scenario);
    std::set<uint32_t> used;
    for (const auto& f : r.flows) used.insert(f.qp);
    ASSERT_FALSE(r.flows.empty()) << mode;
    EXPECT_EQ(static_cast<int64_t>(used.size()), expected) << mode << ": QPs the run used";
  }
}

// The live-message bound (GpuTraffic::live_messages) against a count by hand. A ring
// all-reduce over 2 nodes x 8 GPUs, Simple protocol, 2 channels: each channel's ring
//
//   node 0: 0 -> 1 -> ... -> 7 --fabric--> node 1: 8 -> 9 -> ... -> 15 --fabric--> back to 0
//
// crosses the fabric twice, and a ring connection may have nccl_steps / ring_slice_steps =
// 8 / 2 = 4 slices posted and not yet credited (collective_ring.cpp build_ring; NCCL's
// sliceSteps): 2 channels x 2 crossings x 4 = 16 messages live at most, at every size of the
// sweep (one size runs at a time). With 3 nodes, 3 crossings per channel: 24.
TEST(GpuEstimate, LiveMessagesAreTheCrossNodeCreditWindows) {
  auto yaml = [](int nodes) {
    return "name: live\nseed: 1\nfabric:\n  technology: roce\n  link: {rate: 400Gbps, cable: 3m}\n"
           "topology: {kind: rail, radix: 16}\nhosts: {count: " +
           std::to_string(nodes) +
           ", nics_per_host: 8}\nnode: {gpus_per_node: 8}\n"
           "workload: {kind: collective, op: all_reduce, algorithm: ring, protocol: simple, "
           "channels: 2, size: 1MiB, max_size: 64MiB, step_factor: 8}\n";
  };
  const Scenario two = resolved(yaml(2));
  const GpuTraffic t2 = gpu_traffic(two);
  EXPECT_EQ(two.collective.nccl_steps, 8) << "the hand count assumes NCCL's default NCCL_STEPS";
  EXPECT_EQ(t2.live_messages, 2 * 2 * 4);
  EXPECT_LT(t2.live_messages, t2.messages) << "a bound below the total, else it bounds nothing";
  EXPECT_EQ(gpu_traffic(resolved(yaml(3))).live_messages, 2 * 3 * 4);
}

// The dependency bound (CollectiveEngine::cross_node_traffic): a ring message after a loop's
// first step is posted only after the predecessor's previous step arrived, so each connection's
// first-step slices are the only messages that start a chain, and a chain has one message in
// flight at a time. An all-gather of 4 KiB over 4 nodes of 1 GPU: blocks of 1 KiB, one loop of
// one slice (a Simple slice is 2 FIFO steps of NCCL's 4 MiB buffer / NCCL_STEPS 8, far above
// 1 KiB), 3 steps: 3 messages per
// connection, 4 connections, all across the fabric. The credit windows (4 slices each, Simple)
// allow min(4, 3) x 4 = 12 in flight; the chains allow 4, one per connection.
TEST(GpuEstimate, RingChainsBoundTheLiveMessagesBelowTheWindows) {
  const Scenario sc = resolved(
      "name: chains\nseed: 1\nfabric:\n  technology: roce\n  link: {rate: 400Gbps}\n"
      "topology: {kind: leaf_spine, radix: 8}\nhosts: {count: 4, nics_per_host: 1}\n"
      "node: {gpus_per_node: 1, pcie: {gpus_per_switch: 1}, host: {sockets: 1}}\n"
      "workload: {kind: collective, op: all_gather, algorithm: ring, protocol: simple, "
      "channels: 1, size: 4KiB}\n");
  const GpuTraffic t = gpu_traffic(sc);
  EXPECT_EQ(t.messages, 4 * 3) << "4 connections x 3 steps";
  EXPECT_EQ(t.live_messages, 4);
}

// A training step: each communicator runs one collective at a time, different communicators
// overlap (workload/training.h). Two nodes, TP 8, DP 2: the DP all-reduces are 8 rings of 2
// ranks (GPU t and 8 + t), each its own communicator, both hops across the fabric; the TP
// all-reduces stay on NVLink (no transport message). The bound is at least what a run could
// post at once if all 8 overlapped, 8 x 2 x window x channels, and the run's own count of
// messages bounds it from above.
TEST(GpuEstimate, TrainingLiveMessagesCountTheOverlappingDpRings) {
  const Scenario sc = resolved(training_yaml(2, 2, 2, 8, 1, false));
  const GpuTraffic t = gpu_traffic(sc);
  ASSERT_GT(t.live_messages, 0);
  // Per DP ring: 2 crossings x window (4 on a Simple ring, 8 otherwise) x its channels (>= 1).
  EXPECT_GE(t.live_messages, 8 * 2 * 4);
  EXPECT_EQ(t.live_messages % (8 * 2), 0) << "8 rings, 2 crossings each";
}

// The events a run of `yaml` takes, which it counts exactly, against an estimate of them:
// within a factor 2 either way.
void expect_events_within_2x(const std::string& yaml, double estimated) {
  const RunResult r = run_scenario(load_scenario_string(yaml, "est.yaml").scenario);
  const double events = static_cast<double>(r.run.events);
  std::cout << "  estimated " << estimated << " events, the run " << events << "\n";
  EXPECT_GT(estimated, events / 2);
  EXPECT_LT(estimated, events * 2);
}

// describe's run time for a training step: its events, which a run counts exactly. The model
// (packet-hops x 3.37 + 2 per op + 4 per message, docs/performance.md) is an estimate: within
// a factor 2 either way of the events the step takes.
TEST(GpuEstimate, TrainingRunTimeEstimateCountsTheStepsEvents) {
  const std::string yaml = training_yaml(2, 2, 2, 8, 1, true);
  const RuntimeEstimate e = estimate_runtime(resolved(yaml));
  ASSERT_TRUE(e.estimated) << e.why_not;
  EXPECT_TRUE(e.gpu);
  expect_events_within_2x(yaml, e.events);
  EXPECT_DOUBLE_EQ(e.slowest_s, e.events / kGpuSlowestEventsPerSecond);
  EXPECT_DOUBLE_EQ(e.fastest_s, e.events / kGpuFastestEventsPerSecond);
}

// describe's run time in flow mode: per transport message, per transfer inside a node and per
// op (runtime_estimate.h, fitted on six larger runs); within a factor 2 either way of the
// events this step takes. The node transfers are those the TP all-reduces (a ring of 8 on
// NVLink, 2 per layer and micro-batch forward, 2 backward) and the DP rings' NVLink hops post:
// at least one per TP all-reduce and rank.
TEST(GpuEstimate, FlowModeRunTimeEstimateCountsMessagesNodeTransfersAndOps) {
  const std::string yaml = training_yaml(2, 2, 2, 8, 1, true) + "mode: flow\n";
  const Scenario sc = resolved(yaml);
  const GpuTraffic t = gpu_traffic(sc);
  EXPECT_GE(t.node_messages, 2 * (4 * 2 * 2) * 8) << "2 replicas x 16 TP all-reduces x 8 ranks";
  const RuntimeEstimate e = estimate_runtime(sc);
  ASSERT_TRUE(e.estimated) << e.why_not;
  EXPECT_TRUE(e.flow);
  EXPECT_DOUBLE_EQ(e.events, kFlowEventsPerMessage * static_cast<double>(t.messages) +
                                 kFlowEventsPerNodeTransfer * static_cast<double>(t.node_messages) +
                                 kFlowEventsPerOp * static_cast<double>(t.dag_ops));
  expect_events_within_2x(yaml, e.events);
  EXPECT_DOUBLE_EQ(e.slowest_s, e.events / kFlowSlowestEventsPerSecond);
}

// Imported workloads are sized from their records before anything is expanded: the bound is
// 9 ops per GPU and layer without recomputation (3 forward, 6 backward: compute, collective,
// update delay) and holds the DAG the importer builds.
TEST(GpuEstimate, AstraBoundHoldsTheImportedDag) {
  const std::string dir = std::string(FABRICSIM_SOURCE_DIR) + "/tests/workload/data/astra-sim/";
  struct File {
    const char* name;
    int layers;
  };
  for (const File f : {File{"Resnet50_DataParallel.txt", 54}, File{"MLP_ModelParallel.txt", 0},
                       File{"microAllReduce.txt", 0}}) {
    workload::AstraOptions opt;
    opt.gpus = 16;
    opt.gpus_per_node = 8;
    opt.clock_hz = 1'000'000'000;
    const int64_t bound = workload::astra_ops_bound(dir + f.name, opt);
    const workload::Dag dag = workload::import_astra(dir + f.name, opt);
    EXPECT_GE(bound, static_cast<int64_t>(dag.ops.size())) << f.name;
    if (f.layers > 0) {
      EXPECT_EQ(bound, 9 * 16 * f.layers) << f.name;
    }
  }
}

// A large imported workload is sized from its records and never expanded by the pre-flight:
// 1,000 data-parallel layers on 1,024 GPUs bound to 9 x 1,024 x 1,000 ops, above the 2^22 the
// pre-flight builds to count, so the estimate takes the bound (the SimAI file of 1,789
// records spent 32 s and 4.7 GB being expanded before the refusal).
TEST(GpuEstimate, ALargeImportedWorkloadIsBoundedNotExpanded) {
  const std::string path = ::testing::TempDir() + "/fabricsim_large_astra.txt";
  {
    std::ofstream f(path);
    f << "DATA\n1000\n";
    for (int i = 0; i < 1000; ++i) {
      f << "layer" << i << " -1 1000 NONE 0 1000 NONE 0 1000 ALLREDUCE 4096 10\n";
    }
  }
  const Scenario sc = resolved(
      "name: big\ntopology: {kind: rail, radix: 64}\nhosts: {count: 128, nics_per_host: 8}\n"
      "node: {gpus_per_node: 8}\nworkload: {kind: training}\n"
      "training: {source: astra, file: " + path + ", clock_ghz: 1}\n");
  const GpuTraffic t = gpu_traffic(sc);
  EXPECT_TRUE(t.bounded);
  EXPECT_EQ(t.dag_ops, int64_t{9} * 1024 * 1000);
  std::remove(path.c_str());
}

}  // namespace gpu_estimate_test
}  // namespace fabricsim::scenario
