// The ASTRA-sim 1.0 / SimAI importer (workload/astra_import.h). Expectations come from the
// files themselves, read here with a plain whitespace split independent of the importer, and
// from the rules of ASTRA-sim's training loops (astra-sim/workload/Workload.cc, quoted in
// docs/workloads.md): which collectives exist, over which ranks, with which sizes, how much
// compute each rank runs, and which op waits for which (checked by timing the DAG with a
// closed-form collective time and no stream contention).
// Which text is accepted and which refused is astra_input_test.cpp; helpers are in astra_dag.h.
#include "workload/astra_import.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <numeric>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "core/error.h"

#include "astra_dag.h"

namespace fabricsim::workload::astra_test {
namespace astra_import_test {

// --- the three published files -----------------------------------------------------------------

TEST(AstraImport, Resnet50DataParallelAllReducesAreTheFilesInBackwardOrder) {
  const std::string path = kData + "Resnet50_DataParallel.txt";
  const auto raw = raw_layers(path);
  ASSERT_EQ(raw.size(), 54u);
  const Dag d = import_astra(path, options(16));
  expect_well_formed(d);
  EXPECT_EQ(d.ranks, 16u);

  const auto colls = collectives(d);
  ASSERT_EQ(colls.size(), 54u) << "one weight-gradient all-reduce per layer";
  std::vector<uint32_t> all(16);
  std::iota(all.begin(), all.end(), 0);
  int64_t total = 0;
  for (size_t k = 0; k < colls.size(); ++k) {
    const size_t layer = 53 - k;  // issued as the backward pass reaches each layer
    EXPECT_EQ(colls[k].layer, layer);
    EXPECT_EQ(raw[layer].f[9], "ALLREDUCE");
    EXPECT_EQ(colls[k].op, CollOp::kAllReduce);
    EXPECT_EQ(colls[k].size, raw[layer].num(10)) << "layer " << layer;
    EXPECT_EQ(colls[k].phase, Phase::kDataParallel);
    EXPECT_EQ(colls[k].ranks, all) << "DATA: every collective over all GPUs";
    total += colls[k].size;
  }
  EXPECT_EQ(total, 102'011'648) << "25.5 M fp32 parameters (docs/reference/gpu-node.md §6)";
}

TEST(AstraImport, Resnet50ComputePerRankIsTheFilesCyclesOverTheClock) {
  const std::string path = kData + "Resnet50_DataParallel.txt";
  const auto raw = raw_layers(path);
  int64_t fwd = 0, ig = 0, wg = 0, upd = 0;
  for (size_t i = 0; i < raw.size(); ++i) {
    fwd += raw[i].num(2);
    // ASTRA-sim's DATA loop ends after layer 0's weight gradient: no input gradient for layer 0.
    if (i > 0) ig += raw[i].num(5);
    wg += raw[i].num(8);
    upd += raw[i].num(11);
  }
  for (int64_t clock : {1'000'000'000LL, 2'000'000'000LL}) {  // 1000 and 500 ps per cycle
    const int64_t ps_per_cycle = 1'000'000'000'000 / clock;
    const Dag d = import_astra(path, options(16, 8, clock));
    for (uint32_t r : {0u, 7u, 15u}) {
      EXPECT_EQ(compute_ps(d, r, Phase::kForward), fwd * ps_per_cycle);
      EXPECT_EQ(compute_ps(d, r, Phase::kInputGrad), ig * ps_per_cycle);
      EXPECT_EQ(compute_ps(d, r, Phase::kWeightGrad), wg * ps_per_cycle);
      EXPECT_EQ(compute_ps(d, r, Phase::kUpdate), upd * ps_per_cycle) << "one delay per all-reduce";
    }
  }
}

// ASTRA-sim's data-parallel loop: forward, then per layer from the last: weight gradient, its
// all-reduce issued without blocking, input gradient. The step ends when the last all-reduce
// and its update delay end: makespan = max over layers of (end of its weight-gradient compute +
// collective time + update delay), with the compute chain never waiting for communication.
TEST(AstraImport, Resnet50AllReducesOverlapTheBackwardPass) {
  const std::string path = kData + "Resnet50_DataParallel.txt";
  const auto raw = raw_layers(path);
  const Dag d = import_astra(path, options(16));
  for (int64_t coll_ps : {int64_t{0}, int64_t{2'000'000'000}}) {  // free, and 2 ms each
    int64_t t = 0;
    for (const auto& l : raw) t += l.num(2) * 1000;
    int64_t expect = 0;
    for (size_t i = raw.size(); i-- > 0;) {
      t += raw[i].num(8) * 1000;
      expect = std::max(expect, t + coll_ps + raw[i].num(11) * 1000);
      if (i > 0) t += raw[i].num(5) * 1000;
    }
    EXPECT_EQ(makespan(d, coll_ps), expect) << "collective time " << coll_ps;
  }
}

TEST(AstraImport, MicroAllReduceRunsInTwoModelParallelGroupsOfEight) {
  const std::string path = kData + "microAllReduce.txt";
  const auto raw = raw_layers(path);
  ASSERT_EQ(raw.size(), 1u);
  const Dag d = import_astra(path, options(16));
  expect_well_formed(d);
  const auto colls = collectives(d);
  ASSERT_EQ(colls.size(), 2u) << "16 GPUs / model_parallel_NPU_group 8";
  for (size_t g = 0; g < 2; ++g) {
    std::vector<uint32_t> ranks(8);
    std::iota(ranks.begin(), ranks.end(), static_cast<uint32_t>(8 * g));
    EXPECT_EQ(colls[g].ranks, ranks) << "consecutive ranks (ASTRA-sim break_dimension)";
    EXPECT_EQ(colls[g].op, CollOp::kAllReduce);
    EXPECT_EQ(colls[g].size, raw[0].num(4));
    EXPECT_EQ(colls[g].phase, Phase::kTensorParallel);
  }
  // The forward all-reduce blocks: fwd compute, collective, update delay, then input and
  // weight gradient on the critical path.
  const int64_t ns = 1000, coll_ps = 7'000'000;
  EXPECT_EQ(makespan(d, coll_ps), raw[0].num(2) * ns + coll_ps + raw[0].num(11) * ns +
                                      raw[0].num(5) * ns + raw[0].num(8) * ns);
  const uint32_t ig9 = find_op(d, DagOp::Kind::kCompute, Phase::kInputGrad, 0, 9);
  EXPECT_TRUE(
      depends_on(d, ig9, find_op(d, DagOp::Kind::kCollective, Phase::kTensorParallel, 0, 9)));
  EXPECT_FALSE(
      depends_on(d, ig9, find_op(d, DagOp::Kind::kCollective, Phase::kTensorParallel, 0, 0)))
      << "rank 9 waits for its own group only";
}

TEST(AstraImport, MlpModelParallelGathersForwardAndReducesInputGradients) {
  const std::string path = kData + "MLP_ModelParallel.txt";
  const auto raw = raw_layers(path);
  ASSERT_EQ(raw.size(), 6u);
  const Dag d = import_astra(path, options(8));
  expect_well_formed(d);
  const auto colls = collectives(d);
  std::vector<uint32_t> all(8);
  std::iota(all.begin(), all.end(), 0);
  // Forward: one all-gather per layer. Backward from the last layer: its input-gradient
  // all-reduce, except layer 0's, which ASTRA-sim's loop never issues (`index > 0`).
  ASSERT_EQ(colls.size(), 6u + 5u);
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(colls[i].layer, i);
    EXPECT_EQ(colls[i].op, CollOp::kAllGather);
    // ASTRA-sim's all-gather size is each NPU's input (Ring.cc: final = size x nodes); the DAG
    // carries nccl-tests' gathered total.
    EXPECT_EQ(colls[i].size, raw[i].num(4) * 8);
    EXPECT_EQ(colls[i].ranks, all);
    EXPECT_EQ(colls[i].phase, Phase::kTensorParallel);
  }
  for (size_t k = 0; k < 5; ++k) {
    const size_t layer = 5 - k;
    EXPECT_EQ(colls[6 + k].layer, layer);
    EXPECT_EQ(colls[6 + k].op, CollOp::kAllReduce);
    EXPECT_EQ(colls[6 + k].size, raw[layer].num(7));
    EXPECT_EQ(colls[6 + k].ranks, all);
  }
  // The input-gradient all-reduce of layer i overlaps layer i's weight gradient and blocks
  // layer i-1's input gradient.
  const uint32_t ar5 = find_op(d, DagOp::Kind::kCollective, Phase::kTensorParallel, 5, 0, 1);
  EXPECT_EQ(d.ops[ar5].layer, 5u);
  EXPECT_FALSE(depends_on(d, find_op(d, DagOp::Kind::kCompute, Phase::kWeightGrad, 5), ar5));
  EXPECT_TRUE(depends_on(d, find_op(d, DagOp::Kind::kCompute, Phase::kInputGrad, 4), ar5));
}

// --- groups of the other policies ---------------------------------------------------------------

const char* kTwoLayers =
    "L0 -1 10 ALLGATHER 100 10 ALLREDUCE 200 10 ALLREDUCE 300 1\n"
    "L1 -1 10 ALLGATHER 100 10 ALLREDUCE 200 10 ALLREDUCE 300 1\n";

std::set<std::vector<uint32_t>> groups_of_phase(const Dag& d, Phase p) {
  std::set<std::vector<uint32_t>> out;
  for (const auto& c : collectives(d)) {
    if (c.phase == p) out.insert(c.ranks);
  }
  return out;
}

TEST(AstraImport, HybridDataModelPutsModelParallelismInsideTheNode) {
  const Dag d = import_astra(write_temp("dm", std::string("HYBRID_DATA_MODEL\n2\n") + kTwoLayers),
                             options(16, 4));
  expect_well_formed(d);
  // Model: ASTRA-sim's dimension 0 = the node (4 GPUs); data: the same position across nodes.
  std::set<std::vector<uint32_t>> mp, dp;
  for (uint32_t n = 0; n < 4; ++n) mp.insert({4 * n, 4 * n + 1, 4 * n + 2, 4 * n + 3});
  for (uint32_t k = 0; k < 4; ++k) dp.insert({k, k + 4, k + 8, k + 12});
  EXPECT_EQ(groups_of_phase(d, Phase::kTensorParallel), mp);
  EXPECT_EQ(groups_of_phase(d, Phase::kDataParallel), dp);
  // 2 forward all-gathers + 1 input-gradient all-reduce (layer 1) per MP group, 2 weight-grad
  // all-reduces per DP group.
  EXPECT_EQ(collectives(d).size(), 4u * 3 + 4u * 2);
}

TEST(AstraImport, HybridModelDataPutsDataParallelismInsideTheNode) {
  const Dag d = import_astra(write_temp("md", std::string("HYBRID_MODEL_DATA\n2\n") + kTwoLayers),
                             options(16, 4));
  std::set<std::vector<uint32_t>> mp, dp;
  for (uint32_t n = 0; n < 4; ++n) dp.insert({4 * n, 4 * n + 1, 4 * n + 2, 4 * n + 3});
  for (uint32_t k = 0; k < 4; ++k) mp.insert({k, k + 4, k + 8, k + 12});
  EXPECT_EQ(groups_of_phase(d, Phase::kTensorParallel), mp);
  EXPECT_EQ(groups_of_phase(d, Phase::kDataParallel), dp);
  // With model_parallel_NPU_group: 2 the data dimension is the inner 16 / 2 = 8 ranks.
  const Dag d2 = import_astra(
      write_temp("md2",
                 std::string("HYBRID_MODEL_DATA model_parallel_NPU_group: 2\n2\n") + kTwoLayers),
      options(16, 4));
  for (const auto& g : groups_of_phase(d2, Phase::kTensorParallel)) {
    ASSERT_EQ(g.size(), 2u);
    EXPECT_EQ(g[1] - g[0], 8u);
  }
}

// SimAI (MockNcclGroup): TP = consecutive blocks of model_parallel_NPU_group; DP = one rank per
// TP block; EP = ep consecutive DP indices at the same TP position; DP_EP = the DP indices that
// agree modulo ep. Sizes are nccl-tests sizes (all-gather total); the input-gradient collective
// of the transformer loop blocks.
TEST(AstraImport, SimaiExpertGroupsFollowMockNccl) {
  const std::string text =
      "HYBRID_TRANSFORMER\tmodel_parallel_NPU_group: 2 ep: 4 pp: 1 vpp: 8 ga: 4 all_gpus: 16 "
      "checkpoints: 0 checkpoint_initiates: 0 pp_comm 0\n"
      "2\n"
      "moe -1 10 ALLTOALL_EP 4096 10 ALLGATHER 1600 10 ALLREDUCE_DP_EP 512 1\n"
      "attn -1 10 ALLGATHER 1600 10 REDUCESCATTER 0 10 ALLREDUCE 800 1\n";
  const Dag d = import_astra(write_temp("simai", text), options(16, 8));
  expect_well_formed(d);
  const uint32_t tp = 2, ep = 4;
  auto check = [&](Phase phase, auto same_group, size_t group_size) {
    const auto groups = groups_of_phase(d, phase);
    ASSERT_FALSE(groups.empty());
    for (const auto& g : groups) {
      EXPECT_EQ(g.size(), group_size);
      for (uint32_t r : g) EXPECT_TRUE(same_group(g[0], r)) << g[0] << " vs " << r;
    }
  };
  check(
      Phase::kExpertParallel,
      [&](uint32_t a, uint32_t b) { return a % tp == b % tp && (a / tp) / ep == (b / tp) / ep; },
      ep);
  const auto colls = collectives(d);
  std::set<std::vector<uint32_t>> dpep, dp;
  for (const auto& c : colls) {
    if (c.phase == Phase::kDataParallel && c.size == 512) dpep.insert(c.ranks);
    if (c.phase == Phase::kDataParallel && c.size == 800) dp.insert(c.ranks);
    if (c.op == CollOp::kAllGather) {
      EXPECT_EQ(c.size, 1600) << "SimAI sizes are nccl-tests sizes";
    }
    EXPECT_NE(c.op, CollOp::kReduceScatter) << "REDUCESCATTER 0 moves nothing";
  }
  EXPECT_EQ(dpep.size(), 8u);  // tp x ep groups of 16 / 2 / 4 = 2
  for (const auto& g : dpep) {
    ASSERT_EQ(g.size(), 2u);
    EXPECT_EQ(g[0] % tp, g[1] % tp);
    EXPECT_EQ((g[0] / tp) % ep, (g[1] / tp) % ep);
  }
  EXPECT_EQ(dp.size(), 2u);
  for (const auto& g : dp) EXPECT_EQ(g.size(), 8u);
  // Blocking input gradient (SimAI): layer 0's weight-gradient compute waits for its
  // input-gradient all-gather (ASTRA-sim 1.0 overlaps the two: see the MLP test).
  const uint32_t ag = find_op(d, DagOp::Kind::kCollective, Phase::kTensorParallel, 0, 0);
  EXPECT_EQ(d.collectives[d.ops[ag].collective].op, CollOp::kAllGather);
  EXPECT_TRUE(depends_on(d, find_op(d, DagOp::Kind::kCompute, Phase::kWeightGrad, 0), ag));
}

TEST(AstraImport, FwdInBckwdRecomputesTheCheckpointedSegment) {
  const std::string text =
      "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 checkpoints: 1 0 "
      "checkpoint_initiates: 1 3\n4\n"
      "a -1 10 ALLREDUCE 64 10 NONE 0 10 NONE 0 0\n"
      "b -1 20 ALLREDUCE 64 10 NONE 0 10 NONE 0 0\n"
      "c -1 30 ALLREDUCE 64 10 NONE 0 10 NONE 0 0\n"
      "d -1 40 ALLREDUCE 64 10 NONE 0 10 NONE 0 0\n";
  const Dag d = import_astra(write_temp("ckpt", text), options(4, 4));
  expect_well_formed(d);
  // Layers 0..2 run forward twice: once in the forward pass, once when the backward pass
  // reaches initiator 3 (Workload.cc iterate_hybrid_parallel_Transformer_fwd_in_bckwd).
  EXPECT_EQ(compute_ps(d, 0, Phase::kForward), (10 + 20 + 30 + 40 + 10 + 20 + 30) * 1000);
  EXPECT_EQ(collectives(d).size(), (4u + 3u) * 2) << "2 MP groups of 2";
  const int64_t coll = 1'000'000;
  // forward 100 ns, recomputation of layers 0..2 60 ns, 4 x (input + weight gradient) 80 ns,
  // 7 blocking forward all-reduces.
  EXPECT_EQ(makespan(d, coll), (100 + 60 + 80) * 1000 + 7 * coll);
}

TEST(AstraImport, DlrmEmbeddingAllToAllOverlapsTheBottomMlp) {
  // ASTRA-sim 1.0's header form: the last bottom layer as a bare integer.
  const std::string text =
      "HYBRID_DLRM\t2\n5\n"
      "emb -1 10 ALLTOALL 800 10 ALLTOALL 800 10 NONE 0 1\n"
      "b0 -1 10 NONE 0 10 NONE 0 10 ALLREDUCE 100 1\n"
      "b1 -1 10 NONE 0 10 NONE 0 10 ALLREDUCE 100 1\n"
      "t0 -1 10 NONE 0 10 NONE 0 10 ALLREDUCE 100 1\n"
      "t1 -1 10 NONE 0 10 NONE 0 10 ALLREDUCE 100 1\n";
  const Dag d = import_astra(write_temp("dlrm", text), options(8));
  expect_well_formed(d);
  const uint32_t a2a = find_op(d, DagOp::Kind::kCollective, Phase::kTensorParallel, 0);
  EXPECT_EQ(d.groups[d.collectives[d.ops[a2a].collective].group].size(), 8u);
  EXPECT_FALSE(depends_on(d, find_op(d, DagOp::Kind::kCompute, Phase::kForward, 2), a2a));
  EXPECT_TRUE(depends_on(d, find_op(d, DagOp::Kind::kCompute, Phase::kForward, 3), a2a));
  // 1 forward all-to-all, 4 weight-gradient all-reduces, layer 0's input-gradient all-to-all
  // (issued after layer 3's input gradient).
  EXPECT_EQ(collectives(d).size(), 6u);
  const uint32_t ig_a2a = find_op(d, DagOp::Kind::kCollective, Phase::kTensorParallel, 0, 0, 1);
  EXPECT_TRUE(depends_on(d, ig_a2a, find_op(d, DagOp::Kind::kCompute, Phase::kInputGrad, 3)));
  EXPECT_FALSE(depends_on(d, ig_a2a, find_op(d, DagOp::Kind::kCompute, Phase::kInputGrad, 2)));
}

TEST(AstraImport, MicroIsOneCollectiveAndItsDelay) {
  const Dag d = import_astra(
      write_temp("micro", "MICRO\r\n1\r\nconv1 -1 5 NONE 0 5 NONE 0 5  ALLTOALL 1048576 5\r\n"),
      options(16));
  const auto colls = collectives(d);
  ASSERT_EQ(colls.size(), 1u);
  EXPECT_EQ(colls[0].op, CollOp::kAllToAll);
  EXPECT_EQ(colls[0].size, 1048576);
  EXPECT_EQ(colls[0].ranks.size(), 16u);
  EXPECT_EQ(makespan(d, 3000), 3000 + 5000) << "no compute: iterate_micro_benchmark";
}
}  // namespace astra_import_test
}  // namespace fabricsim::workload::astra_test
