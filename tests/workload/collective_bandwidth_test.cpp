// Large messages on the idle fake machine (collective_fake.h): every operation and algorithm
// within 5% of the time derived from the bytes its busiest GPU port must move, busbw of the
// ring all-reduce within 2% of link rate x protocol efficiency, bytes received per rank as each
// operation requires, and the ring/tree crossover on 16 nodes.
//
// In the bandwidth regime a port that always has a message queued finishes at
//   T = baseLatency + (its first message's per-hop time) + (its bytes) / rate
// (the per-step latencies of the other steps overlap with the serialization of other slices,
// channels and blocks); a pipelined chain adds the fill before its last sender's first chunk.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "collective_fake.h"

namespace fabricsim::workload {
namespace collective_bandwidth_test {

using test::Bench;
using test::FakeParams;
using test::first_ranks;
using test::make_spec;

constexpr double kUs = 1e6;
constexpr int64_t kMiB = 1 << 20;

double elapsed_ps(const CollectiveRecord& r) { return static_cast<double>(r.end_ps - r.start_ps); }

void expect_time(const CollectiveRecord& r, double expected_ps, const char* what) {
  EXPECT_NEAR(elapsed_ps(r), expected_ps, 0.05 * expected_ps)
      << what << ": simulated " << elapsed_ps(r) / kUs << " us, analytic " << expected_ps / kUs
      << " us";
}

TEST(CollectiveBandwidth, EveryOperationOnOneNode) {
  // 8 GPUs, 360 GB/s NVLink ports, Simple (tuning.cc ring base 8.4 us, NVLink hop 3.4 us;
  // tree base 8.4 us, hop 4.0 us), 256 MiB, 8 channels.
  const FakeParams p{.nodes = 1, .gpus_per_node = 8};
  const double R = p.intra_bytes_per_s;
  const double S = 256.0 * kMiB;
  const double n = 8;
  const double base = 8.4 * kUs, hop = 3.4 * kUs;
  const double chunk = 512 * 1024;  // broadcast/reduce: one 512 KiB Simple step per chunk
  struct Case {
    CollOp op;
    CollAlgorithm a;
    int channels;
    double expected_ps;
    const char* what;
  };
  const Case cases[] = {
      // Each GPU sends 2(n-1)/n S (ring, tree chain, halving-doubling, hierarchical alike).
      {CollOp::kAllReduce, CollAlgorithm::kRing, 8, base + hop + 2 * (n - 1) / n * S / R * 1e12,
       "ring all_reduce"},
      {CollOp::kAllReduce, CollAlgorithm::kTree, 8,
       base + 4.0 * kUs + 2 * (n - 1) / n * S / R * 1e12, "tree all_reduce"},
      {CollOp::kAllReduce, CollAlgorithm::kHalvingDoubling, 8,
       base + hop + 2 * (n - 1) / n * S / R * 1e12, "halving_doubling"},
      {CollOp::kAllReduce, CollAlgorithm::kHierarchical, 8,
       base + hop + 2 * (n - 1) / n * S / R * 1e12, "hierarchical"},
      // (n-1)/n S per GPU.
      {CollOp::kAllGather, CollAlgorithm::kRing, 8, base + hop + (n - 1) / n * S / R * 1e12,
       "all_gather"},
      {CollOp::kReduceScatter, CollAlgorithm::kRing, 8, base + hop + (n - 1) / n * S / R * 1e12,
       "reduce_scatter"},
      // Chain: the last sender's first chunk arrives after n-2 hops, then it sends S. Simple
      // broadcast/reduce hops take the tree's NVLink latency, 4.0 us (tuning.cc).
      {CollOp::kBroadcast, CollAlgorithm::kRing, 8,
       base + (n - 2) * (4.0 * kUs + chunk / R * 1e12) + 4.0 * kUs + S / R * 1e12, "broadcast"},
      {CollOp::kReduce, CollAlgorithm::kRing, 8,
       base + (n - 2) * (4.0 * kUs + chunk / R * 1e12) + 4.0 * kUs + S / R * 1e12, "reduce"},
      // P2P: no base latency; each GPU sends (n-1)/n S (all-to-all) or S.
      {CollOp::kAllToAll, CollAlgorithm::kDirect, 1, hop + (n - 1) / n * S / R * 1e12,
       "all_to_all"},
      {CollOp::kSendRecv, CollAlgorithm::kDirect, 1, hop + S / R * 1e12, "send_recv"},
      {CollOp::kSend, CollAlgorithm::kDirect, 1, hop + S / R * 1e12, "send"},
  };
  for (const Case& c : cases) {
    Bench b(p);
    expect_time(
        b.run(make_spec(c.op, c.a, Protocol::kSimple, 256 * kMiB, first_ranks(8), c.channels)),
        c.expected_ps, c.what);
  }
}

TEST(CollectiveBandwidth, RingBusbwApproachesLinkRateTimesEfficiency) {
  // nccl-tests busbw = 2(n-1)/n S / t; large messages -> NVLink rate x data efficiency.
  const FakeParams p{.nodes = 1, .gpus_per_node = 8};
  const struct {
    Protocol proto;
    double efficiency;
    int64_t size;
  } cases[] = {{Protocol::kSimple, 1.0, 1024 * kMiB},
               {Protocol::kLL128, 120.0 / 128.0, 1024 * kMiB},
               {Protocol::kLL, 0.5, 256 * kMiB}};
  for (const auto& c : cases) {
    Bench b(p);
    const auto r = b.run(
        make_spec(CollOp::kAllReduce, CollAlgorithm::kRing, c.proto, c.size, first_ranks(8), 8));
    const double busbw = c.size / (elapsed_ps(r) / 1e12) * busbw_factor(CollOp::kAllReduce, 8);
    const double expected = p.intra_bytes_per_s * c.efficiency;
    std::printf("ring all_reduce %s %lld MiB: busbw %.1f GB/s, link x efficiency %.1f GB/s\n",
                name(c.proto), static_cast<long long>(c.size / kMiB), busbw / 1e9, expected / 1e9);
    EXPECT_NEAR(busbw, expected, 0.02 * expected) << name(c.proto);
    EXPECT_LE(busbw, expected * 1.0001) << name(c.proto);
  }
}

TEST(CollectiveBandwidth, RingAcrossNodesSpreadsChannelsOverNics) {
  // 2 nodes x 8 GPUs, 50 GB/s NICs. 8 channels, each leaving every node through a different
  // GPU: each NIC carries 1/8 of 2 x 2(n-1)/n S / 8 per channel... i.e. per node the two
  // crossings of every channel ring: NIC load = 2(n-1)/n S / 8, so busbw = 8 NICs x 50 GB/s
  // (NVLink, carrying 7/8 of each GPU's 2(n-1)/n S at 360 GB/s, is not the bottleneck).
  const FakeParams p{.nodes = 2, .gpus_per_node = 8};
  Bench b(p);
  const int64_t size = 1024 * kMiB;
  const auto r = b.run(make_spec(CollOp::kAllReduce, CollAlgorithm::kRing, Protocol::kSimple, size,
                                 first_ranks(16), 8));
  const double busbw = size / (elapsed_ps(r) / 1e12) * busbw_factor(CollOp::kAllReduce, 16);
  const double per_nic = busbw / 8;
  std::printf("2 x 8 ring all_reduce 1 GiB: busbw %.1f GB/s = %.1f GB/s per 50 GB/s NIC\n",
              busbw / 1e9, per_nic / 1e9);
  EXPECT_NEAR(per_nic, p.inter_bytes_per_s, 0.02 * p.inter_bytes_per_s);
  // With one channel a single NIC per node carries everything: busbw = one NIC.
  Bench b1(p);
  const auto r1 = b1.run(make_spec(CollOp::kAllReduce, CollAlgorithm::kRing, Protocol::kSimple,
                                   256 * kMiB, first_ranks(16), 1));
  const double busbw1 =
      256.0 * kMiB / (elapsed_ps(r1) / 1e12) * busbw_factor(CollOp::kAllReduce, 16);
  EXPECT_NEAR(busbw1, p.inter_bytes_per_s, 0.05 * p.inter_bytes_per_s);
}

TEST(CollectiveConservation, BytesReceivedPerRank) {
  const FakeParams p{.nodes = 1, .gpus_per_node = 8};
  const int n = 8;
  const int64_t S = n * 4 * kMiB;  // divides evenly into channels, loops, blocks and slices
  {
    // Ring all-reduce: 2(n-1) blocks of S/n per rank, on the wire / efficiency.
    for (auto [proto, inv_eff] :
         {std::pair{Protocol::kSimple, 1.0}, std::pair{Protocol::kLL, 2.0}}) {
      Bench b(p);
      const auto r =
          b.run(make_spec(CollOp::kAllReduce, CollAlgorithm::kRing, proto, S, first_ranks(n), 2));
      for (int g = 0; g < n; ++g) {
        EXPECT_EQ(b.machine.rx_bytes()[g], static_cast<int64_t>(2 * (n - 1) * (S / n) * inv_eff))
            << name(proto) << " gpu " << g;
      }
      EXPECT_EQ(r.wire_bytes, static_cast<int64_t>(n * 2 * (n - 1) * (S / n) * inv_eff));
    }
  }
  {
    // All-gather / reduce-scatter: (n-1) blocks of S/n.
    for (CollOp op : {CollOp::kAllGather, CollOp::kReduceScatter}) {
      Bench b(p);
      b.run(make_spec(op, CollAlgorithm::kRing, Protocol::kSimple, S, first_ranks(n), 4));
      for (int g = 0; g < n; ++g) EXPECT_EQ(b.machine.rx_bytes()[g], (n - 1) * (S / n));
    }
  }
  {
    // Broadcast: every rank but the root receives S; the root nothing.
    Bench b(p);
    auto spec = make_spec(CollOp::kBroadcast, CollAlgorithm::kRing, Protocol::kSimple, S,
                          first_ranks(n), 2);
    spec.root = 3;
    b.run(spec);
    for (int g = 0; g < n; ++g) EXPECT_EQ(b.machine.rx_bytes()[g], g == 3 ? 0 : S);
  }
  {
    // Reduce: every rank receives S except the one the chain starts at (right after the root).
    Bench b(p);
    auto spec =
        make_spec(CollOp::kReduce, CollAlgorithm::kRing, Protocol::kSimple, S, first_ranks(n), 1);
    spec.root = 5;
    b.run(spec);
    for (int g = 0; g < n; ++g) EXPECT_EQ(b.machine.rx_bytes()[g], g == 6 ? 0 : S);
  }
  {
    // All-to-all: S/n from each of the n-1 peers.
    Bench b(p);
    b.run(make_spec(CollOp::kAllToAll, CollAlgorithm::kDirect, Protocol::kSimple, S, first_ranks(n),
                    1));
    for (int g = 0; g < n; ++g) EXPECT_EQ(b.machine.rx_bytes()[g], (n - 1) * (S / n));
  }
  {
    // Hierarchical on 2 nodes x 4: all-reduce 2(n-1)/n S; all-gather and reduce-scatter
    // (N-1) S/n across nodes + (G-1)/G S inside = (n-1)/n S, as the flat ring.
    const FakeParams p2{.nodes = 2, .gpus_per_node = 4};
    for (auto [op, blocks] :
         {std::pair{CollOp::kAllReduce, 2 * (n - 1)}, std::pair{CollOp::kAllGather, n - 1},
          std::pair{CollOp::kReduceScatter, n - 1}}) {
      Bench b(p2);
      b.run(make_spec(op, CollAlgorithm::kHierarchical, Protocol::kSimple, S, first_ranks(n), 2));
      for (int g = 0; g < n; ++g) EXPECT_EQ(b.machine.rx_bytes()[g], blocks * (S / n)) << name(op);
    }
  }
  {
    // Halving-doubling: S/2 + S/4 + ... + S/n twice = 2(n-1)/n S.
    Bench b(p);
    b.run(make_spec(CollOp::kAllReduce, CollAlgorithm::kHalvingDoubling, Protocol::kSimple, S,
                    first_ranks(n), 1));
    for (int g = 0; g < n; ++g) EXPECT_EQ(b.machine.rx_bytes()[g], 2 * (n - 1) * (S / n));
  }
  {
    // Double binary tree over one node's chain: a rank receives half of S per tree from below
    // unless it is the chain's tail, and half from above unless it is the head.
    Bench b(p);
    b.run(make_spec(CollOp::kAllReduce, CollAlgorithm::kTree, Protocol::kSimple, S, first_ranks(n),
                    1));
    int64_t total = 0;
    for (int g = 0; g < n; ++g) total += b.machine.rx_bytes()[g];
    EXPECT_EQ(total, 2 /*trees*/ * 2 /*up+down*/ * (n - 1) * (S / 2));
  }
}

// Simulated time of one all-reduce on 16 nodes x 1 GPU (50 GB/s NICs, 2 us), Simple, 1 channel.
double allreduce_us(CollAlgorithm a, double size) {
  Bench b(FakeParams{.nodes = 16, .gpus_per_node = 1});
  return elapsed_ps(b.run(make_spec(CollOp::kAllReduce, a, Protocol::kSimple,
                                    static_cast<int64_t>(size), first_ranks(16), 1))) /
         kUs;
}

// Analytic times on that machine, µs. h = 14 us: the NET Simple hop (tuning.cc) covers the
// 2 us wire latency; R = 50 000 B/us.
constexpr double kR = 50e9 / 1e6, kH = 14.0, kBase = 8.4;
constexpr int kN = 16;
// Ring: each of the 2(n-1) steps moves a block b = S/n as ns = ceil(b / 1 MiB) slices. The
// first slice's chain takes 2(n-1)(h + t) (+ the other ns-1 slices at the end); the link needs
// 2(n-1) ns t + one hop. The slower of the two.
double ring_us(double S) {
  const double b = S / kN, ns = std::ceil(b / kMiB), t = b / ns / kR;
  return kBase + std::max(2 * (kN - 1) * (kH + t) + (ns - 1) * t, 2 * (kN - 1) * ns * t + kH);
}
// Double binary tree over 16 nodes: depth log2(16) = 4 up and 4 down, chunks of 512 KiB
// (t = one chunk's serialization); the busiest node (interior in one tree, leaf in the other)
// sends 2S, of which 4 chunks overlap the fill.
double tree_us(double S) {
  const double m = std::ceil(S / 2 / (512 * 1024)), t = S / 2 / m / kR;
  return kBase + 8 * (kH + t) + 2 * S / kR - 4 * t;
}

TEST(CollectiveCrossover, TreeBeatsRingBelowCrossoverOn16Nodes) {
  for (double mib : {1.0, 8.0, 16.0, 20.0, 32.0, 64.0, 128.0}) {
    const double S = mib * kMiB;
    EXPECT_NEAR(allreduce_us(CollAlgorithm::kRing, S), ring_us(S), 0.05 * ring_us(S)) << mib;
    // Below 16 MiB a tree of few chunks also pays for the fan-in/fan-out serialization of two
    // children at each level (up to 6 chunk times at 1 MiB), which the formula leaves out.
    if (mib >= 16) {
      EXPECT_NEAR(allreduce_us(CollAlgorithm::kTree, S), tree_us(S), 0.05 * tree_us(S)) << mib;
    }
  }
  // Crossovers in 1 MiB steps, simulated and analytic.
  auto crossover_mib = [](auto tree, auto ring) {
    int mib = 1;
    while (mib < 1024 && tree(mib * double(kMiB)) < ring(mib * double(kMiB))) ++mib;
    return mib;
  };
  const int simulated =
      crossover_mib([](double s) { return allreduce_us(CollAlgorithm::kTree, s); },
                    [](double s) { return allreduce_us(CollAlgorithm::kRing, s); });
  const int analytic = crossover_mib(tree_us, ring_us);
  std::printf(
      "16 nodes x 1 GPU, 50 GB/s, Simple, 1 channel: tree beats ring up to %d MiB, "
      "ring wins from %d MiB (analytic: from %d MiB)\n",
      simulated - 1, simulated, analytic);
  // Below: tree's 8 hops against the ring's 30; above 16 MiB (one 1 MiB slice per rank) the
  // ring pipelines two slices per step and its 1.875 S beats the tree's 2 S.
  EXPECT_EQ(simulated, analytic);
  EXPECT_LT(allreduce_us(CollAlgorithm::kTree, 4 * kMiB),
            allreduce_us(CollAlgorithm::kRing, 4 * kMiB));
  EXPECT_GT(allreduce_us(CollAlgorithm::kTree, 256 * kMiB),
            allreduce_us(CollAlgorithm::kRing, 256 * kMiB));
}

}  // namespace collective_bandwidth_test
}  // namespace fabricsim::workload

namespace fabricsim::workload {
namespace collective_bandwidth_test {

TEST(CollectiveCrossover, SixteenNodesOfEightGpus) {
  // 16 nodes x 8 GPUs (360 GB/s NVLink, one 50 GB/s NIC per GPU), default channels (16),
  // Simple. Ring latency: 8.4 + 222 intra hops x 3.4 us + 32 NET hops x 14 us ~ 1.2 ms; tree
  // 8.4 + 2 x (7 x 4.0 + 4 x 14) = 176 us. Bisection (docs/collectives.md) puts the crossover
  // at ~138 MiB for Simple and ~21 MiB for LL; check both sides of the Simple one.
  auto t = [](CollAlgorithm a, int64_t size) {
    Bench b(FakeParams{.nodes = 16, .gpus_per_node = 8});
    const auto r =
        b.run(make_spec(CollOp::kAllReduce, a, Protocol::kSimple, size, first_ranks(128), 0));
    return static_cast<double>(r.end_ps - r.start_ps) / kUs;
  };
  const double ring64 = t(CollAlgorithm::kRing, 64 * kMiB),
               tree64 = t(CollAlgorithm::kTree, 64 * kMiB);
  const double ring256 = t(CollAlgorithm::kRing, 256 * kMiB),
               tree256 = t(CollAlgorithm::kTree, 256 * kMiB);
  std::printf(
      "16 x 8 GPUs Simple: 64 MiB ring %.0f us tree %.0f us; 256 MiB ring %.0f us tree "
      "%.0f us\n",
      ring64, tree64, ring256, tree256);
  EXPECT_LT(tree64, ring64);
  EXPECT_GT(tree256, ring256);
}

}  // namespace collective_bandwidth_test
}  // namespace fabricsim::workload
