// nccl-tests' busbw factors, NCCL's analytic model against the worked examples of
// docs/reference/nccl.md §2.3 (computed there by hand from tuning.cc's tables), and the shape of
// NCCL's double binary tree (trees.cc, as described in nccl.md §3).
#include <gtest/gtest.h>

#include <set>

#include "workload/collective.h"
#include "workload/collective_plan.h"
#include "workload/nccl_model.h"

namespace fabricsim::workload {
namespace collective_model_test {

TEST(CollectiveBusbw, FactorsAreNcclTests) {
  // nccl.md §1.1: 2(n-1)/n all-reduce; (n-1)/n all-gather, reduce-scatter, all-to-all; 1 else.
  for (int n : {2, 3, 8, 16, 128}) {
    const double d = n;
    EXPECT_DOUBLE_EQ(busbw_factor(CollOp::kAllReduce, n), 2 * (d - 1) / d) << n;
    EXPECT_DOUBLE_EQ(busbw_factor(CollOp::kAllGather, n), (d - 1) / d) << n;
    EXPECT_DOUBLE_EQ(busbw_factor(CollOp::kReduceScatter, n), (d - 1) / d) << n;
    EXPECT_DOUBLE_EQ(busbw_factor(CollOp::kAllToAll, n), (d - 1) / d) << n;
    EXPECT_DOUBLE_EQ(busbw_factor(CollOp::kBroadcast, n), 1.0);
    EXPECT_DOUBLE_EQ(busbw_factor(CollOp::kReduce, n), 1.0);
    EXPECT_DOUBLE_EQ(busbw_factor(CollOp::kSendRecv, n), 1.0);
    EXPECT_DOUBLE_EQ(busbw_factor(CollOp::kSend, n), 1.0);
  }
  EXPECT_DOUBLE_EQ(busbw_factor(CollOp::kAllReduce, 8), 1.75);
}

TEST(CollectiveNames, Spelled) {
  EXPECT_STREQ(name(CollOp::kAllReduce), "all_reduce");
  EXPECT_STREQ(name(CollAlgorithm::kHalvingDoubling), "halving_doubling");
  EXPECT_STREQ(name(Protocol::kLL128), "ll128");
}

double latency_us(CollAlgorithm a, int proto, int ranks, int nodes) {
  NcclModelInput in;
  in.algorithm = a;
  in.protocol = proto;
  in.ranks = ranks;
  in.nodes = nodes;
  in.channels = 16;
  in.channel_bw_gbps = 20;
  in.size_bytes = 0;
  return nccl_predict(CollectiveConfig{}, in).time_us;
}

TEST(NcclModel, WorkedExamplesOfTheReferenceSheet) {
  const auto R = CollAlgorithm::kRing, T = CollAlgorithm::kTree;
  // Ring all-reduce, 8 GPUs on one node: base + 14 x NVLink hop.
  EXPECT_NEAR(latency_us(R, kProtoLL, 8, 1), 15.0, 1e-6);
  EXPECT_NEAR(latency_us(R, kProtoLL128, 8, 1), 40.6, 1e-6);
  EXPECT_NEAR(latency_us(R, kProtoSimple, 8, 1), 56.0, 1e-6);
  // Tree all-reduce, 8 GPUs on one node: base + 2 x 7 x intra.
  EXPECT_NEAR(latency_us(T, kProtoLL, 8, 1), 15.2, 1e-6);
  EXPECT_NEAR(latency_us(T, kProtoLL128, 8, 1), 31.5, 1e-6);
  EXPECT_NEAR(latency_us(T, kProtoSimple, 8, 1), 64.4, 1e-6);
  // Ring all-reduce, 2 nodes x 8, Intel (net overhead 1 us), latencyInter 0.
  EXPECT_NEAR(latency_us(R, kProtoLL, 16, 2), 40.0, 1e-6);
  EXPECT_NEAR(latency_us(R, kProtoLL128, 16, 2), 75.2, 1e-6);
  EXPECT_NEAR(latency_us(R, kProtoSimple, 16, 2), 131.6, 1e-6);
  // Tree all-reduce, 2 nodes x 8.
  EXPECT_NEAR(latency_us(T, kProtoLL, 16, 2), 25.2, 1e-6);
  EXPECT_NEAR(latency_us(T, kProtoLL128, 16, 2), 48.5, 1e-6);
  EXPECT_NEAR(latency_us(T, kProtoSimple, 16, 2), 92.4, 1e-6);
}

TEST(NcclModel, OneRankPerNodeAndBroadcastRules) {
  // tuning.cc: with ppn = 1 a ring's NET hop takes the tree's NET latency (LL 5.0 us):
  // 4 nodes x 1 GPU ring all-reduce = 6.6 + 6 x 5.0.
  EXPECT_NEAR(latency_us(CollAlgorithm::kRing, kProtoLL, 4, 4), 36.6, 1e-6);
  // Broadcast rings pay nsteps = n hops of the ring's hardware latency, Simple the tree's:
  // 8 GPUs on one node, LL 6.6 + 8 x 0.6, Simple 8.4 + 8 x 4.0.
  NcclModelInput in;
  in.op = CollOp::kBroadcast;
  in.ranks = 8;
  in.channels = 1;
  in.channel_bw_gbps = 20;
  in.protocol = kProtoLL;
  EXPECT_NEAR(nccl_predict(CollectiveConfig{}, in).latency_us, 11.4, 1e-6);
  in.protocol = kProtoSimple;
  EXPECT_NEAR(nccl_predict(CollectiveConfig{}, in).latency_us, 40.4, 1e-6);
}

TEST(NcclModel, BandwidthRules) {
  NcclModelInput in;
  in.ranks = 8;
  in.nodes = 1;
  in.channels = 16;
  in.channel_bw_gbps = 20;  // busbw 320 GB/s before the protocol rules
  in.size_bytes = 1 << 30;
  const CollectiveConfig cfg;
  in.protocol = kProtoSimple;
  NcclPrediction p = nccl_predict(cfg, in);
  EXPECT_DOUBLE_EQ(p.bus_bw_gbps, 320);
  EXPECT_DOUBLE_EQ(p.alg_bw_gbps, 320.0 * 8 / 14);  // x nRanks / nsteps
  EXPECT_NEAR(p.time_us, 56.0 + (1 << 30) / (1000.0 * 320 * 8 / 14), 1e-6);
  in.protocol = kProtoLL;  // min(llMaxBw Hopper 141, 0.5 x 320)
  EXPECT_DOUBLE_EQ(nccl_predict(cfg, in).bus_bw_gbps, 141.0);
  in.protocol = kProtoLL128;  // min(0.92 x 320, 16 x 36.7)
  EXPECT_DOUBLE_EQ(nccl_predict(cfg, in).bus_bw_gbps, 0.92 * 320);
  in.algorithm = CollAlgorithm::kTree;
  in.protocol = kProtoSimple;  // min(0.92 x 320, 16 x 38.7), algbw = busbw / 2
  p = nccl_predict(cfg, in);
  EXPECT_DOUBLE_EQ(p.bus_bw_gbps, 0.92 * 320);
  EXPECT_DOUBLE_EQ(p.alg_bw_gbps, 0.46 * 320);
  // treeCorrectionFactor: 1 GiB is log2(2^30 / 64) = 24, outside the table; 1 MiB is index 14,
  // Simple 0.5.
  EXPECT_NEAR(p.time_us, 64.4 + (1 << 30) / (1000.0 * 0.46 * 320), 1e-6);
  in.size_bytes = 1 << 20;
  EXPECT_NEAR(nccl_predict(cfg, in).time_us, 64.4 + (1 << 20) / (1000.0 * 0.46 * 320 * 0.5), 1e-6);
  in.op = CollOp::kAllGather;  // NCCL's tree is all-reduce only
  EXPECT_FALSE(nccl_predict(cfg, in).supported);
}

TEST(NcclModel, RingPlateauAcrossNodes) {
  NcclModelInput in;
  in.ranks = 16;
  in.nodes = 2;
  in.channels = 1;
  in.channel_bw_gbps = 1e9;  // make the bandwidth term vanish
  in.size_bytes = 16 * 64;   // 64 B per rank per channel: the x1.4 applies
  EXPECT_NEAR(nccl_predict(CollectiveConfig{}, in).latency_us, 131.6 * 1.4, 1e-6);
  in.size_bytes = 16 * 63;
  EXPECT_NEAR(nccl_predict(CollectiveConfig{}, in).latency_us, 131.6, 1e-6);
}

TEST(DoubleBinaryTree, ShapeOfTreesCc) {
  // The in-order tree trees.cc draws for 14 ranks: 0 - 8; 8 - {4, 12}; 4 - {2, 6};
  // 12 - {10, 13}; 2 - {1, 3}; 6 - {5, 7}; 10 - {9, 11}.
  using detail::btree;
  EXPECT_EQ(btree(14, 0).parent, -1);
  EXPECT_EQ(btree(14, 0).child1, 8);
  EXPECT_EQ(btree(14, 8).child0, 4);
  EXPECT_EQ(btree(14, 8).child1, 12);
  EXPECT_EQ(btree(14, 12).child0, 10);
  EXPECT_EQ(btree(14, 12).child1, 13);
  EXPECT_EQ(btree(14, 13).parent, 12);
  EXPECT_EQ(btree(14, 7).parent, 6);
  EXPECT_EQ(btree(14, 1).child0, -1);
  for (int n = 1; n <= 40; ++n) {
    for (int which = 0; which < 2; ++which) {
      int roots = 0;
      for (int r = 0; r < n; ++r) {
        const detail::TreeLinks t = detail::dtree(n, r, which);
        if (t.parent < 0) ++roots;
        if (t.parent >= 0) {  // the parent names r as a child
          const detail::TreeLinks p = detail::dtree(n, t.parent, which);
          EXPECT_TRUE(p.child0 == r || p.child1 == r) << n << " " << r << " " << which;
        }
        for (int c : {t.child0, t.child1}) {
          if (c >= 0) {
            EXPECT_EQ(detail::dtree(n, c, which).parent, r);
          }
        }
      }
      EXPECT_EQ(roots, 1) << n;
    }
    // Even n: no rank is interior (has children) in both trees (Sanders et al. 2009).
    if (n % 2 == 0 && n > 2) {
      for (int r = 0; r < n; ++r) {
        const auto a = detail::dtree(n, r, 0), b = detail::dtree(n, r, 1);
        const bool ia = a.child0 >= 0 || (a.child1 >= 0 && a.parent >= 0);
        const bool ib = b.child0 >= 0 || (b.child1 >= 0 && b.parent >= 0);
        EXPECT_FALSE(ia && ib) << n << " " << r;
      }
    }
  }
  // Depth over 16 nodes: 0 -> 8 -> 12 -> 14 -> 15, i.e. log2(16) inter-node hops.
  int depth = 0;
  for (int r = 15; r != 0; r = detail::btree(16, r).parent) ++depth;
  EXPECT_EQ(depth, 4);
}

}  // namespace collective_model_test
}  // namespace fabricsim::workload
