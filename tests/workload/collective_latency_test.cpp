// Idle small-message time of every operation and algorithm on the closed-form fake machine
// (collective_fake.h), against the time derived here from the algorithm's step structure:
//   T = baseLatency + sum over the critical path's hops of (per-hop time)
// where the engine charges per hop max(NCCL hwLatency, transport idle time of 8 B) plus the
// serialization of the message's extra bytes (docs/collectives.md "Latency"). The tuning.cc
// constants are restated here as literals from docs/reference/nccl.md §2.3.
//
//   one node:  GPU0 ... GPU7 on an NVSwitch: 360 GB/s, 0.5 us per message
//   two nodes: 2 x (4 GPUs), NICs 50 GB/s, 2 us per message
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "collective_fake.h"

namespace fabricsim::workload {
namespace collective_latency_test {

using test::Bench;
using test::FakeParams;
using test::first_ranks;
using test::make_spec;

constexpr double kUs = 1e6;  // ps per µs
// tuning.cc (nccl.md §2.3), µs: [LL, LL128, Simple].
constexpr double kRingBase[3] = {6.6, 14.0, 8.4};
constexpr double kTreeBase[3] = {6.8, 14.0, 8.4};
constexpr double kRingNvl[3] = {0.6, 1.9, 3.4};
constexpr double kTreeNvl[3] = {0.6, 1.25, 4.0};
constexpr double kRingNet[3] = {2.7, 4.0, 14.0};
constexpr double kTreeNet[3] = {5.0, 8.5, 14.0};
constexpr double kEff[3] = {0.5, 120.0 / 128.0, 1.0};
const Protocol kProto[3] = {Protocol::kLL, Protocol::kLL128, Protocol::kSimple};

// One hop carrying `wire` bytes: the NCCL latency or the link's own idle time, whichever is
// larger, plus serialization beyond the 8 B reference message.
double hop_ps(double hw_us, double lat_ps, double rate, double wire) {
  return std::max(hw_us * kUs, lat_ps + 8e12 / rate) + (wire - 8) * 1e12 / rate;
}

void expect_near_time(const CollectiveRecord& r, double expected_ps, const char* what) {
  const double got = static_cast<double>(r.end_ps - r.start_ps);
  EXPECT_NEAR(got, expected_ps, 0.05 * expected_ps)
      << what << ": simulated " << got / kUs << " us, analytic " << expected_ps / kUs << " us";
}

class OneNode : public ::testing::Test {
 protected:
  FakeParams p{.nodes = 1, .gpus_per_node = 8};
  double rate = p.intra_bytes_per_s;
  double lat = static_cast<double>(p.intra_latency_ps);
  static constexpr int n = 8;
};

TEST_F(OneNode, RingAllReduceMatchesNcclModelPerProtocol) {
  // 2(n-1) = 14 NVLink hops; 512 B = 64 B blocks. NCCL's model: 15.0 / 40.6 / 56.0 us.
  for (int pr = 0; pr < 3; ++pr) {
    Bench b(p);
    const auto r =
        b.run(make_spec(CollOp::kAllReduce, CollAlgorithm::kRing, kProto[pr], 512, first_ranks(n)));
    const double t = kRingBase[pr] * kUs + 14 * hop_ps(kRingNvl[pr], lat, rate, 64 / kEff[pr]);
    expect_near_time(r, t, name(kProto[pr]));
    const double nccl_us[3] = {15.0, 40.6, 56.0};
    EXPECT_NEAR((r.end_ps - r.start_ps) / kUs, nccl_us[pr], 0.05 * nccl_us[pr]) << "NCCL model";
  }
}

TEST_F(OneNode, TreeAllReduceMatchesNcclModelPerProtocol) {
  // One node: the chain of 8 GPUs up (7 hops) then down (7 hops); each tree carries half.
  // NCCL's model: 15.2 / 31.5 / 64.4 us.
  for (int pr = 0; pr < 3; ++pr) {
    Bench b(p);
    const auto r =
        b.run(make_spec(CollOp::kAllReduce, CollAlgorithm::kTree, kProto[pr], 512, first_ranks(n)));
    const double t = kTreeBase[pr] * kUs + 14 * hop_ps(kTreeNvl[pr], lat, rate, 256 / kEff[pr]);
    expect_near_time(r, t, name(kProto[pr]));
  }
}

TEST_F(OneNode, EveryOtherOperationAndAlgorithm) {
  const int LL = 0;
  const double w = 64 / kEff[LL];  // 64 B of data per message
  struct Case {
    CollOp op;
    CollAlgorithm a;
    double expected_ps;
    const char* what;
  };
  const double ring_hop = hop_ps(kRingNvl[LL], lat, rate, w);
  const Case cases[] = {
      // n-1 ring steps.
      {CollOp::kAllGather, CollAlgorithm::kRing, kRingBase[LL] * kUs + 7 * ring_hop, "all_gather"},
      {CollOp::kReduceScatter, CollAlgorithm::kRing, kRingBase[LL] * kUs + 7 * ring_hop,
       "reduce_scatter"},
      // Pipelined chain of n-1 hops carrying the whole 512 B buffer in one chunk.
      {CollOp::kBroadcast, CollAlgorithm::kRing,
       kRingBase[LL] * kUs + 7 * hop_ps(kRingNvl[LL], lat, rate, 512 / kEff[LL]), "broadcast"},
      {CollOp::kReduce, CollAlgorithm::kRing,
       kRingBase[LL] * kUs + 7 * hop_ps(kRingNvl[LL], lat, rate, 512 / kEff[LL]), "reduce"},
      // log2(8) = 3 halving steps of 256, 128, 64 B, then doubling steps of 64, 128, 256 B.
      {CollOp::kAllReduce, CollAlgorithm::kHalvingDoubling,
       kRingBase[LL] * kUs + 2 * (hop_ps(0.6, lat, rate, 512) + hop_ps(0.6, lat, rate, 256) +
                                  hop_ps(0.6, lat, rate, 128)),
       "halving_doubling"},
      // One node: reduce-scatter (7 steps) then all-gather (7 steps), blocks of 64 B.
      {CollOp::kAllReduce, CollAlgorithm::kHierarchical, kRingBase[LL] * kUs + 14 * ring_hop,
       "hierarchical"},
  };
  for (const Case& c : cases) {
    Bench b(p);
    expect_near_time(b.run(make_spec(c.op, c.a, Protocol::kLL, 512, first_ranks(n))), c.expected_ps,
                     c.what);
  }
}

TEST_F(OneNode, PointToPoint) {
  // No baseLatency for P2P; one hop. LL is chosen automatically below 16 KiB per channel.
  {
    Bench b(p);
    const auto r =
        b.run(make_spec(CollOp::kSend, CollAlgorithm::kAuto, Protocol::kAuto, 64, {0, 1}, 0));
    EXPECT_EQ(r.protocol, Protocol::kLL);
    expect_near_time(r, hop_ps(0.6, lat, rate, 128), "send");
  }
  {
    Bench b(p);
    expect_near_time(b.run(make_spec(CollOp::kSendRecv, CollAlgorithm::kDirect, Protocol::kLL, 64,
                                     first_ranks(n))),
                     hop_ps(0.6, lat, rate, 128), "send_recv");
  }
  {
    // 7 peers x 64 B leave each GPU's egress one after another.
    Bench b(p);
    expect_near_time(b.run(make_spec(CollOp::kAllToAll, CollAlgorithm::kDirect, Protocol::kLL, 512,
                                     first_ranks(n))),
                     hop_ps(0.6, lat, rate, 128) + 6 * 128e12 / rate, "all_to_all");
  }
}

TEST(TwoNodes, RingAndTreeAcrossNodes) {
  FakeParams p{.nodes = 2, .gpus_per_node = 4};
  const int n = 8;
  const double ri = p.intra_bytes_per_s, re = p.inter_bytes_per_s;
  const double li = p.intra_latency_ps, le = p.inter_latency_ps;
  for (int pr = 0; pr < 3; ++pr) {
    const double w = 64 / kEff[pr];
    // Ring: node-major order 0 1 2 3 | 4 5 6 7; links 3->4 and 7->0 cross nodes. Intra hops
    // are floored at the net overhead (1 us, x3 Simple). The slowest block's 2(n-1) = 14
    // consecutive hops start right after a crossing and so cross 4 times... unless the window
    // is placed to miss one: take the maximum over the 8 starting links.
    const double intra_hw = std::max(kRingNvl[pr], pr == 2 ? 3.0 : 1.0);
    double worst = 0;
    for (int start = 0; start < n; ++start) {
      double sum = 0;
      for (int k = 0; k < 2 * (n - 1); ++k) {
        const int l = (start + k) % n;
        sum += l % 4 == 3 ? hop_ps(kRingNet[pr], le, re, w) : hop_ps(intra_hw, li, ri, w);
      }
      worst = std::max(worst, sum);
    }
    Bench b(p);
    expect_near_time(
        b.run(make_spec(CollOp::kAllReduce, CollAlgorithm::kRing, kProto[pr], 512, first_ranks(n))),
        kRingBase[pr] * kUs + worst, "ring 2 nodes");
    // Tree over 2 nodes (depth 1) with a 4-GPU chain in each: up 3 intra + 1 inter, down again.
    Bench bt(p);
    const double wt = 256 / kEff[pr];
    expect_near_time(bt.run(make_spec(CollOp::kAllReduce, CollAlgorithm::kTree, kProto[pr], 512,
                                      first_ranks(n))),
                     kTreeBase[pr] * kUs + 2 * (3 * hop_ps(kTreeNvl[pr], li, ri, wt) +
                                                hop_ps(kTreeNet[pr], le, re, wt)),
                     "tree 2 nodes");
  }
}

TEST(TwoNodes, HierarchicalAcrossNodes) {
  // 2 nodes x 4: NVLink reduce-scatter (3 steps), per-rail ring all-reduce over 2 nodes
  // (2 steps), NVLink all-gather (3 steps). Hierarchical rings are single-node or single-rail,
  // so no net-overhead floor.
  FakeParams p{.nodes = 2, .gpus_per_node = 4};
  Bench b(p);
  // 1024 B: intra blocks 256 B (wire 512), rail blocks 256/2 = 128 B (wire 256).
  const double t = kRingBase[0] * kUs +
                   6 * hop_ps(0.6, p.intra_latency_ps, p.intra_bytes_per_s, 512) +
                   2 * hop_ps(2.7, p.inter_latency_ps, p.inter_bytes_per_s, 256);
  expect_near_time(b.run(make_spec(CollOp::kAllReduce, CollAlgorithm::kHierarchical, Protocol::kLL,
                                   1024, first_ranks(8))),
                   t, "hierarchical 2 nodes");
}

TEST(TwoNodes, HierarchicalAllGatherAndReduceScatter) {
  // 2 nodes x 4, LL, 1024 B. All-gather: per-rail ring all-gather over 2 nodes (1 NET step,
  // blocks 1024/4/2 = 128 B, wire 256), then NVLink all-gather (3 steps, blocks 256 B, wire
  // 512). Reduce-scatter: the same two phases in the other order.
  FakeParams p{.nodes = 2, .gpus_per_node = 4};
  const double t = kRingBase[0] * kUs +
                   3 * hop_ps(0.6, p.intra_latency_ps, p.intra_bytes_per_s, 512) +
                   hop_ps(2.7, p.inter_latency_ps, p.inter_bytes_per_s, 256);
  for (CollOp op : {CollOp::kAllGather, CollOp::kReduceScatter}) {
    Bench b(p);
    expect_near_time(
        b.run(make_spec(op, CollAlgorithm::kHierarchical, Protocol::kLL, 1024, first_ranks(8))), t,
        name(op));
  }
}

}  // namespace collective_latency_test
}  // namespace fabricsim::workload
