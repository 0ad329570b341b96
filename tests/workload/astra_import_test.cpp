// The ASTRA-sim 1.0 / SimAI importer (workload/astra_import.h). Expectations come from the
// files themselves, read here with a plain whitespace split independent of the importer, and
// from the rules of ASTRA-sim's training loops (astra-sim/workload/Workload.cc, quoted in
// docs/workloads.md): which collectives exist, over which ranks, with which sizes, how much
// compute each rank runs, and which op waits for which (checked by timing the DAG with a
// closed-form collective time and no stream contention). Every refusal names its line.
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

namespace fabricsim::workload {
namespace {

const std::string kData = std::string(FABRICSIM_SOURCE_DIR) + "/tests/workload/data/astra-sim/";

// --- the file, read independently of the importer -------------------------------------------

struct RawLayer {
  std::vector<std::string> f;  // the 12 fields
  int64_t num(int k) const { return std::stoll(f[k]); }
};

std::vector<RawLayer> raw_layers(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::vector<RawLayer> out;
  int n = 0;
  while (std::getline(in, line)) {
    if (++n <= 2) continue;
    std::istringstream ss(line);
    RawLayer l;
    std::string t;
    while (ss >> t) l.f.push_back(t);
    if (!l.f.empty()) out.push_back(l);
  }
  return out;
}

// --- DAG inspection ---------------------------------------------------------------------------

AstraOptions options(uint32_t gpus, uint32_t per_node = 8, int64_t clock_hz = 1'000'000'000) {
  AstraOptions o;
  o.gpus = gpus;
  o.gpus_per_node = per_node;
  o.clock_hz = clock_hz;
  return o;
}

struct Coll {
  uint32_t layer;
  Phase phase;
  CollOp op;
  int64_t size;
  std::vector<uint32_t> ranks;
};

std::vector<Coll> collectives(const Dag& d) {
  std::vector<Coll> out;
  for (const DagOp& op : d.ops) {
    if (op.kind != DagOp::Kind::kCollective) continue;
    const DagCollective& c = d.collectives[op.collective];
    out.push_back({op.layer, op.phase, c.op, c.size_bytes, d.groups[c.group]});
  }
  return out;
}

// Sum of compute durations of `rank` in `phase`.
int64_t compute_ps(const Dag& d, uint32_t rank, Phase phase) {
  int64_t sum = 0;
  for (const DagOp& op : d.ops) {
    if (op.kind == DagOp::Kind::kCompute && op.rank == rank && op.phase == phase)
      sum += op.duration_ps;
  }
  return sum;
}

// Structural soundness: dependencies point backwards, computes take time on a real rank,
// collectives run over at least two distinct ranks.
void expect_well_formed(const Dag& d) {
  for (size_t i = 0; i < d.ops.size(); ++i) {
    const DagOp& op = d.ops[i];
    for (uint32_t k = 0; k < op.num_deps; ++k) ASSERT_LT(d.deps[op.first_dep + k], i) << "op " << i;
    if (op.kind == DagOp::Kind::kCompute) {
      EXPECT_GT(op.duration_ps, 0) << "op " << i;
      EXPECT_LT(op.rank, d.ranks) << "op " << i;
    } else {
      const auto& g = d.groups[d.collectives[op.collective].group];
      EXPECT_GE(g.size(), 2u);
      EXPECT_EQ(std::set<uint32_t>(g.begin(), g.end()).size(), g.size());
    }
  }
}

// Finish time of every op when an op starts as soon as its dependencies end (no compute-stream
// contention) and every collective takes `coll_ps`.
std::vector<int64_t> finish_times(const Dag& d, int64_t coll_ps) {
  std::vector<int64_t> end(d.ops.size(), 0);
  for (size_t i = 0; i < d.ops.size(); ++i) {
    const DagOp& op = d.ops[i];
    int64_t start = 0;
    for (uint32_t k = 0; k < op.num_deps; ++k)
      start = std::max(start, end[d.deps[op.first_dep + k]]);
    end[i] = start + (op.kind == DagOp::Kind::kCompute ? op.duration_ps : coll_ps);
  }
  return end;
}

int64_t makespan(const Dag& d, int64_t coll_ps) {
  const auto end = finish_times(d, coll_ps);
  return end.empty() ? 0 : *std::max_element(end.begin(), end.end());
}

// Does op `later` depend (transitively) on op `earlier`?
bool depends_on(const Dag& d, uint32_t later, uint32_t earlier) {
  std::vector<uint32_t> stack{later};
  std::vector<bool> seen(d.ops.size(), false);
  while (!stack.empty()) {
    const uint32_t i = stack.back();
    stack.pop_back();
    if (i == earlier) return true;
    if (seen[i]) continue;
    seen[i] = true;
    const DagOp& op = d.ops[i];
    for (uint32_t k = 0; k < op.num_deps; ++k) stack.push_back(d.deps[op.first_dep + k]);
  }
  return false;
}

uint32_t find_op(const Dag& d, DagOp::Kind kind, Phase phase, uint32_t layer, uint32_t rank = 0,
                 int nth = 0) {
  for (uint32_t i = 0; i < d.ops.size(); ++i) {
    const DagOp& op = d.ops[i];
    if (op.kind != kind || op.phase != phase || op.layer != layer) continue;
    if (kind == DagOp::Kind::kCompute && op.rank != rank) continue;
    if (kind == DagOp::Kind::kCollective) {
      const auto& g = d.groups[d.collectives[op.collective].group];
      if (std::find(g.begin(), g.end(), rank) == g.end()) continue;
    }
    if (nth-- == 0) return i;
  }
  ADD_FAILURE() << "no such op: layer " << layer << " rank " << rank;
  return 0;
}

// The process id keeps concurrent test runs (ctest -j, two build trees) off each other's files;
// they are removed when the test process exits.
struct TempFiles {
  std::set<std::string> paths;
  ~TempFiles() {
    for (const std::string& p : paths) std::remove(p.c_str());
  }
};
TempFiles temp_files;

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path =
      testing::TempDir() + "astra_" + std::to_string(getpid()) + "_" + name + ".txt";
  std::ofstream(path, std::ios::binary) << text;
  temp_files.paths.insert(path);
  return path;
}

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

// --- what is accepted ---------------------------------------------------------------------------

TEST(AstraImport, AcceptsWhitespaceVariantsAndGivesTheSameDag) {
  const std::vector<std::string> layers = {"L0 -1 10 ALLGATHER 100 20 ALLREDUCE 200 30 NONE 0 1",
                                           "L1 -1 40 ALLGATHER 100 50 ALLREDUCE 200 60 NONE 0 1"};
  const std::string clean = "MODEL\n2\n" + layers[0] + "\n" + layers[1] + "\n";
  // Tabs and runs of separators, trailing whitespace, CRLF, blank lines anywhere.
  std::string messy = "\r\nMODEL\t\t \r\n2\t\t\t\r\n\r\n";
  for (const std::string& l : layers) {
    for (char c : l) messy += (c == ' ') ? std::string(" \t ") : std::string(1, c);
    messy += " \t\r\n\n";
  }
  const Dag a = import_astra(write_temp("clean", clean), options(8));
  const Dag b = import_astra(write_temp("messy", messy), options(8));
  ASSERT_EQ(a.ops.size(), b.ops.size());
  EXPECT_EQ(a.deps, b.deps);
  EXPECT_EQ(collectives(a).size(), 2u + 1u);
  EXPECT_EQ(collectives(b).size(), 2u + 1u);
  EXPECT_EQ(compute_ps(b, 3, Phase::kInputGrad), (20 + 50) * 1000);
}

TEST(AstraImport, SameFileSameDag) {
  const std::string path = kData + "Resnet50_DataParallel.txt";
  const Dag a = import_astra(path, options(32));
  const Dag b = import_astra(path, options(32));
  ASSERT_EQ(a.ops.size(), b.ops.size());
  for (size_t i = 0; i < a.ops.size(); ++i) {
    EXPECT_EQ(a.ops[i].kind, b.ops[i].kind);
    EXPECT_EQ(a.ops[i].rank, b.ops[i].rank);
    EXPECT_EQ(a.ops[i].duration_ps, b.ops[i].duration_ps);
    EXPECT_EQ(a.ops[i].first_dep, b.ops[i].first_dep);
    EXPECT_EQ(a.ops[i].num_deps, b.ops[i].num_deps);
  }
  EXPECT_EQ(a.deps, b.deps);
  EXPECT_EQ(a.groups, b.groups);
  EXPECT_EQ(a.name, "Resnet50_DataParallel.txt");
}

// --- what is refused, with its line
// ---------------------------------------------------------------

struct Refusal {
  const char* what;
  std::string text;
  int line;
  const char* message_part;
  AstraOptions opt = options(16);
};

TEST(AstraImport, RefusalsNameTheLine) {
  const std::string ok_layer = "L -1 10 NONE 0 10 NONE 0 10 ALLREDUCE 64 1\n";
  const std::vector<Refusal> cases = {
      {"unknown policy", "PIPELINE\n1\n" + ok_layer, 1, "unknown parallelism policy"},
      {"unsupported policy", "HYBRID_CUSTOMIZED\n1\n" + ok_layer, 1, "not supported"},
      {"unknown key", "HYBRID_TRANSFORMER model_parallel_NPU_group: 8 tp: 2\n1\n" + ok_layer, 1,
       "unknown header key"},
      {"key without colon glued", "HYBRID_TRANSFORMER model_parallel_NPU_group:8\n1\n" + ok_layer,
       1, "unknown header key"},
      {"key value not integer",
       "HYBRID_TRANSFORMER model_parallel_NPU_group: eight\n1\n" + ok_layer, 1,
       "not a non-negative integer"},
      {"key without value", "HYBRID_TRANSFORMER model_parallel_NPU_group:\n1\n" + ok_layer, 1,
       "has no value"},
      {"key twice",
       "HYBRID_TRANSFORMER model_parallel_NPU_group: 8 model_parallel_NPU_group: 8\n1\n" + ok_layer,
       1, "twice"},
      {"key for another policy", "DATA ep: 2\n1\n" + ok_layer, 1, "applies to"},
      {"checkpoints without recomputation",
       "HYBRID_TRANSFORMER model_parallel_NPU_group: 8 checkpoints: 1 0\n1\n" + ok_layer, 1,
       "FWD_IN_BCKWD"},
      {"inference mode key",
       "HYBRID_TRANSFORMER model_parallel_NPU_group: 8 mode: 1\n1\n" + ok_layer, 1,
       "unknown header key"},
      {"transformer without group", "HYBRID_TRANSFORMER\n1\n" + ok_layer, 1,
       "model_parallel_NPU_group"},
      {"count not integer", "DATA\n1x\n" + ok_layer, 2, "number of layer lines"},
      {"count negative", "DATA\n-1\n" + ok_layer, 2, "number of layer lines"},
      {"count zero", "DATA\n0\n", 2, "no layers"},
      {"fewer layers", "DATA\n3\n" + ok_layer + ok_layer, 2, "announces 3 layers"},
      {"more layers", "DATA\n1\n" + ok_layer + "\n" + ok_layer, 5, "more layer lines"},
      {"11 fields", "DATA\n1\nL -1 10 NONE 0 10 NONE 0 10 ALLREDUCE 64\n", 3, "12 fields"},
      {"13 fields", "DATA\n1\nL -1 10 NONE 0 10 NONE 0 10 ALLREDUCE 64 1 x\n", 3, "12 fields"},
      {"fractional cycles", "DATA\n1\nL -1 10.5 NONE 0 10 NONE 0 10 ALLREDUCE 64 1\n", 3,
       "field 3"},
      {"negative cycles", "DATA\n1\nL -1 10 NONE 0 -10 NONE 0 10 ALLREDUCE 64 1\n", 3, "field 6"},
      {"negative size", "DATA\n1\nL -1 10 NONE 0 10 NONE 0 10 ALLREDUCE -64 1\n", 3, "field 11"},
      {"size with unit", "DATA\n1\nL -1 10 NONE 0 10 NONE 0 10 ALLREDUCE 64KB 1\n", 3, "field 11"},
      {"negative delay", "DATA\n1\nL -1 10 NONE 0 10 NONE 0 10 ALLREDUCE 64 -1\n", 3, "field 12"},
      {"reserved not integer", "DATA\n1\nL x 10 NONE 0 10 NONE 0 10 ALLREDUCE 64 1\n", 3,
       "field 2"},
      {"unknown comm type", "DATA\n1\nL -1 10 NONE 0 10 NONE 0 10 BROADCAST 64 1\n", 3,
       "unknown comm type"},
      {"NONE with a suffix", "DATA\n1\nL -1 10 NONE_EP 0 10 NONE 0 10 ALLREDUCE 64 1\n", 3,
       "unknown comm type"},
      {"mixed collective", "DATA\n1\nL -1 10 NONE 0 10 NONE 0 10 ALLREDUCEALLTOALL 64 1\n", 3,
       "ALLREDUCEALLTOALL"},
      {"NONE with bytes", "DATA\n2\n" + ok_layer + "L -1 10 NONE 0 10 NONE 0 10 NONE 64 1\n", 4,
       "NONE"},
      {"DATA with forward comm",
       "DATA\n2\n" + ok_layer + "L -1 10 ALLREDUCE 8 10 NONE 0 10 NONE 0 1\n", 4, "never runs"},
      {"MODEL with weight-grad comm", "MODEL\n1\n" + ok_layer, 3, "never runs"},
      {"MICRO with two layers", "MICRO\n2\n" + ok_layer + ok_layer, 2, "exactly 1 layer"},
      {"all_gpus mismatch", "DATA all_gpus: 8\n1\n" + ok_layer, 1, "all_gpus"},
      {"group does not divide", "HYBRID_TRANSFORMER model_parallel_NPU_group: 3\n1\n" + ok_layer, 1,
       "does not divide"},
      {"group larger than the job",
       "HYBRID_TRANSFORMER model_parallel_NPU_group: 32\n1\n" + ok_layer, 1, "does not divide"},
      {"pipeline",
       "HYBRID_TRANSFORMER model_parallel_NPU_group: 8 pp: 2 pp_comm: 1024\n1\n" + ok_layer, 1,
       "pp: 2"},
      {"pipeline bytes without stages",
       "HYBRID_TRANSFORMER model_parallel_NPU_group: 8 pp: 1 pp_comm 1024\n1\n" + ok_layer, 1,
       "pp_comm"},
      {"ep does not divide DP",
       "HYBRID_TRANSFORMER model_parallel_NPU_group: 4 ep: 3\n1\n" + ok_layer, 1, "ep: 3"},
      {"EP type without ep",
       "HYBRID_TRANSFORMER model_parallel_NPU_group: 4\n2\n" + ok_layer +
           "L -1 10 ALLTOALL_EP 64 10 NONE 0 10 NONE 0 1\n",
       4, "ep: N"},
      {"EP type outside transformer", "DATA\n1\nL -1 10 NONE 0 10 NONE 0 10 ALLREDUCE_DP_EP 64 1\n",
       3, "_EP"},
      {"checkpoint past the end",
       "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 4 checkpoints: 1 5\n1\n" +
           ok_layer,
       1, "past the last layer"},
      {"initiator without checkpoint",
       "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 4 checkpoint_initiates: 1 "
       "1\n2\n" +
           ok_layer + ok_layer,
       1, "no checkpoint"},
      {"DLRM without bottom layer", "HYBRID_DLRM\n3\n" + ok_layer + ok_layer + ok_layer, 1,
       "last bottom"},
      {"empty file", "", 1, "empty"},
      {"no clock", "DATA\n1\n" + ok_layer, 1, "clock", options(16, 8, 0)},
  };
  for (const Refusal& c : cases) {
    const std::string path = write_temp("refuse", c.text);
    try {
      import_astra(path, c.opt);
      ADD_FAILURE() << c.what << ": accepted";
    } catch (const ImportError& e) {
      EXPECT_EQ(e.line(), c.line) << c.what << ": " << e.what();
      EXPECT_EQ(e.file(), path) << c.what;
      EXPECT_EQ(e.key_path(), "training.file") << c.what;
      EXPECT_NE(std::string(e.what()).find(c.message_part), std::string::npos)
          << c.what << ": " << e.what();
    }
  }
}

TEST(AstraImport, MissingFileIsLineZero) {
  try {
    import_astra(testing::TempDir() + "no_such_workload.txt", options(8));
    FAIL() << "accepted";
  } catch (const ImportError& e) {
    EXPECT_EQ(e.line(), 0);
    EXPECT_NE(std::string(e.what()).find("cannot open"), std::string::npos);
  }
}

}  // namespace
}  // namespace fabricsim::workload
