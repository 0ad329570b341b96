// What `auto` resolves to on N nodes x 8 H100 (8 x 400 Gb/s NICs, PCIe Gen5, NVSwitch), against
// the selection tables of docs/reference/nccl-at-scale/tables.txt. Those tables come from
// docs/reference/nccl-at-scale/tuning_model.py, a separate restatement of NCCL 2.30.7's
// tuning.cc / enqueue.cc / search.cc outcome in Python, written from the NCCL sources and not
// from fabricsim's C++ (nccl@5067397). The graph inputs are checked on their own against the
// one H100 log line found ("nChannels 8, bw 48.000000/48.000000").
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/error.h"
#include "workload/collective_engine.h"
#include "workload/nccl_graph.h"

namespace fabricsim::workload {
namespace nccl_selection_test {

// The H100 node as NCCL reads it: 18 NVLinks x 20.6 GB/s, Gen5 x16 = 16 x 240 / 80 = 48 GB/s,
// 400 Gb/s ports = 50 GB/s, 8 NICs.
node::NcclView h100() { return node::NcclView{370.8, 48.0, 50.0, 8}; }

class ModelOnlyMachine final : public node::RankTransport {
 public:
  explicit ModelOnlyMachine(uint32_t nodes, bool nvls = false) : nodes_(nodes), nvls_(nvls) {}
  void send(uint32_t, uint32_t, int64_t, uint64_t, int64_t, uint64_t, int32_t, uint32_t,
            node::FoldedStream) override {}
  void timer(int64_t, uint64_t) override {}
  int64_t now_ps() const override { return 0; }
  uint32_t gpus() const override { return nodes_ * 8; }
  uint32_t gpus_per_node() const override { return 8; }
  int64_t idle_transfer_ps(uint32_t, uint32_t, int64_t) const override { return 0; }
  double path_rate_bytes_per_s(uint32_t, uint32_t) const override { return 1e9; }
  node::NcclView nccl_view() const override {
    node::NcclView v = h100();
    v.nvls = nvls_;
    return v;
  }

 private:
  uint32_t nodes_;
  bool nvls_;
};

TEST(NcclGraph, H100MatchesTheLoggedRingGraphAndTheDerivedOnes) {
  // Across nodes: 8 channels x 48 GB/s, not doubled (bw < 50 and more than 4 channels).
  const NcclGraphs multi = nccl_graphs(h100(), 2, 8, 8);
  EXPECT_EQ(multi.ring.channels, 8);
  EXPECT_DOUBLE_EQ(multi.ring.bw_intra_gbps, 48.0);
  EXPECT_DOUBLE_EQ(multi.ring.bw_inter_gbps, 48.0);
  EXPECT_EQ(multi.tree.channels, 8);
  // One node: 6 x 60 (= 360 <= 370.8) found, doubled to 12 x 30.
  const NcclGraphs one = nccl_graphs(h100(), 1, 8, 8);
  EXPECT_EQ(one.ring.channels, 12);
  EXPECT_DOUBLE_EQ(one.ring.bw_intra_gbps, 30.0);
  // NVLS: 8 heads, (8 + 1) x 40 = 360 <= 370.8 < 9 x 50; bwInter 60 on one node, the NET's 48
  // across nodes.
  EXPECT_EQ(one.nvls.channels, 8);
  EXPECT_DOUBLE_EQ(one.nvls.bw_intra_gbps, 40.0);
  EXPECT_DOUBLE_EQ(one.nvls.bw_inter_gbps, 60.0);
  EXPECT_DOUBLE_EQ(multi.nvls.bw_inter_gbps, 48.0);
  // One rank per node reaches its own NIC only: 1 x 48, doubled to 2 x 24.
  const NcclGraphs ppn1 = nccl_graphs(h100(), 16, 1, 8);
  EXPECT_EQ(ppn1.ring.channels, 2);
  EXPECT_DOUBLE_EQ(ppn1.ring.bw_inter_gbps, 24.0);
  // 200 Gb/s NICs (25 GB/s): the largest inter speed at or below is 24.
  node::NcclView slow = h100();
  slow.nic_gbps = 25.0;
  EXPECT_DOUBLE_EQ(nccl_graphs(slow, 4, 8, 8).ring.bw_inter_gbps, 24.0);
}

// Rows: sizes 1 KiB x 4^k up to 4 GiB; columns: 1, 2, 4, ..., 128 nodes. R/T = ring/tree;
// LL, 128 = LL128, S = Simple. Copied from tables.txt (NVLS off, CollNet off).
const char* const kAllReduce[12][8] = {
    {"R/LL", "T/LL", "T/LL", "T/LL", "T/LL", "T/LL", "T/LL", "T/LL"},
    {"R/LL", "T/LL", "T/LL", "T/LL", "T/LL", "T/LL", "T/LL", "T/LL"},
    {"R/LL", "T/LL", "T/LL", "T/LL", "T/LL", "T/LL", "T/LL", "T/LL"},
    {"R/LL", "T/LL", "T/LL", "T/LL", "T/LL", "T/LL", "T/LL", "T/LL"},
    {"R/LL", "T/128", "T/128", "T/128", "T/128", "T/128", "T/128", "T/LL"},
    {"R/LL", "T/128", "T/128", "T/128", "T/128", "T/128", "T/128", "T/128"},
    {"R/128", "T/128", "T/128", "T/128", "T/128", "T/128", "T/128", "T/128"},
    {"R/128", "T/128", "T/128", "T/128", "T/128", "T/128", "T/128", "T/128"},
    {"R/S", "R/128", "R/128", "T/128", "T/128", "T/128", "T/128", "T/128"},
    {"R/S", "R/S", "R/S", "R/128", "T/S", "T/S", "T/S", "T/S"},
    {"R/S", "R/S", "R/S", "R/S", "R/S", "T/S", "T/S", "T/S"},
    {"R/S", "R/S", "R/S", "R/S", "R/S", "R/S", "R/S", "T/S"}};
// All-gather and reduce-scatter give the same table.
const char* const kAllGather[12][8] = {
    {"R/LL", "R/LL", "R/LL", "R/LL", "R/LL", "R/LL", "R/LL", "R/LL"},
    {"R/LL", "R/LL", "R/LL", "R/LL", "R/LL", "R/LL", "R/LL", "R/LL"},
    {"R/LL", "R/LL", "R/LL", "R/LL", "R/LL", "R/LL", "R/LL", "R/LL"},
    {"R/LL", "R/LL", "R/LL", "R/LL", "R/LL", "R/LL", "R/LL", "R/LL"},
    {"R/LL", "R/LL", "R/LL", "R/LL", "R/LL", "R/LL", "R/LL", "R/LL"},
    {"R/LL", "R/128", "R/128", "R/LL", "R/LL", "R/LL", "R/LL", "R/LL"},
    {"R/LL", "R/128", "R/128", "R/128", "R/128", "R/LL", "R/LL", "R/LL"},
    {"R/128", "R/128", "R/128", "R/128", "R/128", "R/128", "R/128", "R/LL"},
    {"R/S", "R/S", "R/128", "R/128", "R/128", "R/128", "R/128", "R/128"},
    {"R/S", "R/S", "R/S", "R/S", "R/128", "R/128", "R/128", "R/128"},
    {"R/S", "R/S", "R/S", "R/S", "R/S", "R/S", "R/128", "R/128"},
    {"R/S", "R/S", "R/S", "R/S", "R/S", "R/S", "R/S", "R/S"}};

// All-reduce with NVLS on (H100's default, NCCL_NVLS_ENABLE=2), CollNet off. NV = NVLS (one
// node), NVT = NVLS-tree.
const char* const kAllReduceNvls[12][8] = {
    {"R/LL", "T/LL", "T/LL", "T/LL", "T/LL", "T/LL", "T/LL", "T/LL"},
    {"R/LL", "T/LL", "T/LL", "T/LL", "T/LL", "T/LL", "T/LL", "T/LL"},
    {"R/LL", "T/LL", "T/LL", "T/LL", "T/LL", "T/LL", "T/LL", "T/LL"},
    {"R/LL", "T/LL", "T/LL", "T/LL", "T/LL", "T/LL", "T/LL", "T/LL"},
    {"R/LL", "T/128", "T/128", "T/128", "T/128", "T/128", "T/128", "T/LL"},
    {"R/LL", "T/128", "T/128", "T/128", "T/128", "T/128", "T/128", "T/128"},
    {"NV/S", "NVT/S", "T/128", "T/128", "T/128", "T/128", "T/128", "T/128"},
    {"NV/S", "NVT/S", "NVT/S", "NVT/S", "T/128", "T/128", "T/128", "T/128"},
    {"NV/S", "NVT/S", "NVT/S", "NVT/S", "NVT/S", "NVT/S", "NVT/S", "NVT/S"},
    {"NV/S", "NVT/S", "NVT/S", "NVT/S", "NVT/S", "NVT/S", "NVT/S", "NVT/S"},
    {"NV/S", "NVT/S", "R/S", "NVT/S", "NVT/S", "NVT/S", "NVT/S", "NVT/S"},
    {"NV/S", "NVT/S", "R/S", "R/S", "NVT/S", "NVT/S", "NVT/S", "NVT/S"}};

std::string abbrev(const CollectiveRecord& r) {
  std::string s = r.algorithm == CollAlgorithm::kTree       ? "T/"
                  : r.algorithm == CollAlgorithm::kNvls     ? "NV/"
                  : r.algorithm == CollAlgorithm::kNvlsTree ? "NVT/"
                                                            : "R/";
  s += r.protocol == Protocol::kLL ? "LL" : r.protocol == Protocol::kLL128 ? "128" : "S";
  return s;
}

void expect_table(CollOp op, const char* const (&table)[12][8], bool nvls = false) {
  const uint32_t node_counts[8] = {1, 2, 4, 8, 16, 32, 64, 128};
  for (int col = 0; col < 8; ++col) {
    ModelOnlyMachine machine(node_counts[col], nvls);
    CollectiveEngine engine(machine, CollectiveConfig{});
    CollectiveSpec spec;
    spec.op = op;
    for (uint32_t g = 0; g < machine.gpus(); ++g) spec.ranks.push_back(g);
    for (int row = 0; row < 12; ++row) {
      spec.size_bytes = int64_t{1024} << (2 * row);
      EXPECT_EQ(abbrev(engine.resolve(spec)), table[row][col])
          << name(op) << " " << spec.size_bytes << " B on " << node_counts[col] << " nodes";
    }
  }
}

TEST(NcclSelection, AllReduceAutoIsNcclsChoiceFrom1To128Nodes) {
  expect_table(CollOp::kAllReduce, kAllReduce);
}

TEST(NcclSelection, AllGatherAndReduceScatterAutoAreNcclsChoice) {
  expect_table(CollOp::kAllGather, kAllGather);
  expect_table(CollOp::kReduceScatter, kAllGather);
  // NVLS changes nothing for them (ring wins on one node; across nodes they need CollNet).
  expect_table(CollOp::kAllGather, kAllGather, true);
}

TEST(NcclSelection, AllReduceWithNvlsIsNcclsChoice) {
  expect_table(CollOp::kAllReduce, kAllReduceNvls, true);
  // collective.nvls: false (NCCL_NVLS_ENABLE=0) gives the NVLS-off table back.
  const uint32_t gpus = 16 * 8;
  ModelOnlyMachine machine(16, true);
  CollectiveConfig off;
  off.nvls_enabled = false;
  CollectiveEngine engine(machine, off);
  CollectiveSpec spec;
  for (uint32_t g = 0; g < gpus; ++g) spec.ranks.push_back(g);
  spec.size_bytes = int64_t{256} << 20;
  EXPECT_EQ(abbrev(engine.resolve(spec)), "T/S");
}

TEST(NcclSelection, NvlsRunsNvlsChannelsAndRefusesWhatNcclWouldNot) {
  ModelOnlyMachine machine(1, true);
  CollectiveEngine engine(machine, CollectiveConfig{});
  CollectiveSpec spec;
  for (uint32_t g = 0; g < 8; ++g) spec.ranks.push_back(g);
  spec.size_bytes = int64_t{1} << 30;
  const CollectiveRecord r = engine.resolve(spec);
  EXPECT_EQ(r.algorithm, CollAlgorithm::kNvls);
  EXPECT_EQ(r.channels, 16);  // NVLS_NCHANNELS_SM90
  spec.algorithm = CollAlgorithm::kNvlsTree;
  EXPECT_THROW(engine.resolve(spec), InputError);  // one node
  spec.algorithm = CollAlgorithm::kNvls;
  spec.op = CollOp::kAllGather;
  EXPECT_THROW(engine.resolve(spec), InputError);
  spec.op = CollOp::kAllReduce;
  spec.protocol = Protocol::kLL;
  EXPECT_THROW(engine.resolve(spec), InputError);
  ModelOnlyMachine plain(1, false);
  CollectiveEngine no_nvls(plain, CollectiveConfig{});
  spec.protocol = Protocol::kAuto;
  EXPECT_THROW(no_nvls.resolve(spec), InputError);
}

}  // namespace nccl_selection_test
}  // namespace fabricsim::workload
