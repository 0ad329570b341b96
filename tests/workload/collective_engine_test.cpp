// The engine's resolution of `auto` (NCCL's choice by lowest predicted time, P2P's LL
// threshold), its refusal of impossible specs with the key at fault, and several collectives
// running at once.
#include <gtest/gtest.h>

#include <string>

#include "collective_fake.h"
#include "core/error.h"

namespace fabricsim::workload {
namespace collective_engine_test {

using test::Bench;
using test::FakeParams;
using test::first_ranks;
using test::make_spec;

constexpr int64_t kMiB = 1 << 20;

TEST(CollectiveAuto, PicksNcclsLowestPredictedTime) {
  Bench one(FakeParams{.nodes = 1, .gpus_per_node = 8});
  // 8 GPUs, tiny: ring LL 15.0 us < tree LL 15.2 us < LL128 / Simple (nccl.md §2.3).
  auto r = one.engine.resolve(
      make_spec(CollOp::kAllReduce, CollAlgorithm::kAuto, Protocol::kAuto, 64, first_ranks(8), 0));
  EXPECT_EQ(r.algorithm, CollAlgorithm::kRing);
  EXPECT_EQ(r.protocol, Protocol::kLL);
  // NCCL's small-message rule: ring LL drops channels while 64 B < nc x 512 x 8 x 8 ranks.
  EXPECT_EQ(r.channels, 1);
  // 1 GiB: Simple's full bandwidth beats LL's 1/2 and LL128's 0.92.
  r = one.engine.resolve(make_spec(CollOp::kAllReduce, CollAlgorithm::kAuto, Protocol::kAuto,
                                   1024 * kMiB, first_ranks(8), 0));
  EXPECT_EQ(r.algorithm, CollAlgorithm::kRing);
  EXPECT_EQ(r.protocol, Protocol::kSimple);
  EXPECT_EQ(r.channels, 16);  // CollectiveConfig::channels
  // Simple ring: nc x 512 threads x 64 B = 32 KiB per channel; 256 KiB keeps 8 channels.
  r = one.engine.resolve(make_spec(CollOp::kAllReduce, CollAlgorithm::kRing, Protocol::kSimple,
                                   256 * 1024, first_ranks(8), 0));
  EXPECT_EQ(r.channels, 8);
  // An explicit channel count is kept.
  r = one.engine.resolve(make_spec(CollOp::kAllReduce, CollAlgorithm::kRing, Protocol::kSimple,
                                   256 * 1024, first_ranks(8), 12));
  EXPECT_EQ(r.channels, 12);
  // 16 nodes x 8: tree LL (6.8 + 2 x (7 x 0.6 + 4 x 5.0) = 55.2 us) beats ring LL
  // (6.6 + 224 x 1.0 + 30 x 2.7 = 311.6 us) for small messages.
  Bench big(FakeParams{.nodes = 16, .gpus_per_node = 8});
  r = big.engine.resolve(make_spec(CollOp::kAllReduce, CollAlgorithm::kAuto, Protocol::kAuto,
                                   64 * 1024, first_ranks(128), 0));
  EXPECT_EQ(r.algorithm, CollAlgorithm::kTree);
  EXPECT_EQ(r.protocol, Protocol::kLL);
  // Tree is all-reduce only.
  r = big.engine.resolve(make_spec(CollOp::kAllGather, CollAlgorithm::kAuto, Protocol::kAuto,
                                   64 * 1024, first_ranks(128), 0));
  EXPECT_EQ(r.algorithm, CollAlgorithm::kRing);
  // LL128 disabled: never chosen.
  CollectiveConfig cfg;
  cfg.ll128_enabled = false;
  Bench no128(FakeParams{.nodes = 1, .gpus_per_node = 8}, cfg);
  for (int64_t size = 64; size <= 1024 * kMiB; size *= 4) {
    EXPECT_NE(no128.engine
                  .resolve(make_spec(CollOp::kAllReduce, CollAlgorithm::kAuto, Protocol::kAuto,
                                     size, first_ranks(8), 0))
                  .protocol,
              Protocol::kLL128);
  }
}

TEST(CollectiveAuto, PointToPointUsesLLUpTo16KiBPerChannel) {
  Bench b(FakeParams{.nodes = 2, .gpus_per_node = 8});
  auto send = [&](int64_t size) {
    return b.engine.resolve(
        make_spec(CollOp::kSend, CollAlgorithm::kAuto, Protocol::kAuto, size, {0, 8}, 0));
  };
  EXPECT_EQ(send(16384).protocol, Protocol::kLL);
  EXPECT_EQ(send(16385).protocol, Protocol::kSimple);
  EXPECT_EQ(send(16385).algorithm, CollAlgorithm::kDirect);
  EXPECT_EQ(send(1 * kMiB).channels, 1);
}

void expect_refused(const CollectiveSpec& spec, const std::string& key, uint32_t gpus = 8) {
  Bench b(FakeParams{.nodes = gpus / 8, .gpus_per_node = 8});
  try {
    b.engine.start(spec, [](uint32_t) {});
    ADD_FAILURE() << "accepted: " << name(spec.op) << " " << name(spec.algorithm);
  } catch (const InputError& e) {
    EXPECT_EQ(e.key_path(), key) << e.what();
    EXPECT_FALSE(std::string(e.what()).empty());
  }
}

TEST(CollectiveErrors, ImpossibleSpecsAreRefusedWithTheirKey) {
  const auto AR = CollOp::kAllReduce;
  const auto A = CollAlgorithm::kAuto;
  const auto P = Protocol::kAuto;
  // Fewer bytes than ranks is fine (NCCL and nccl-tests run a 2-element all-reduce on 16 GPUs:
  // some ranks' pieces are empty); nothing at all is not.
  expect_refused(make_spec(AR, A, P, 0, first_ranks(8)), "workload.size");
  expect_refused(make_spec(AR, A, P, 1024, {3}), "workload.ranks");
  expect_refused(make_spec(AR, A, P, 1024, {1, 1}), "workload.ranks");
  expect_refused(make_spec(AR, A, P, 1024, {0, 8}), "workload.ranks");  // GPU 8 of 8
  auto bcast = make_spec(CollOp::kBroadcast, A, P, 1024, first_ranks(4));
  bcast.root = 4;
  expect_refused(bcast, "workload.root");
  expect_refused(make_spec(AR, A, P, 1024, first_ranks(4), 65), "workload.channels");
  expect_refused(make_spec(AR, CollAlgorithm::kHalvingDoubling, P, 1024, first_ranks(6)),
                 "workload.algorithm");
  expect_refused(make_spec(AR, CollAlgorithm::kHierarchical, P, 1024, {0, 1, 2, 8}, 1),
                 "workload.algorithm", 16);
  expect_refused(make_spec(CollOp::kAllGather, CollAlgorithm::kTree, P, 1024, first_ranks(4)),
                 "workload.algorithm");
  expect_refused(make_spec(AR, CollAlgorithm::kDirect, P, 1024, first_ranks(4)),
                 "workload.algorithm");
  expect_refused(make_spec(CollOp::kAllToAll, CollAlgorithm::kRing, P, 1024, first_ranks(4)),
                 "workload.algorithm");
  expect_refused(make_spec(CollOp::kSend, A, Protocol::kLL128, 1024, {0, 1}), "workload.protocol");
}

TEST(CollectiveEngineTest, SeveralCollectivesAtOnce) {
  // Two all-reduces on disjoint halves of a node take as long as one alone; two on the same
  // GPUs share every port and take twice as long (bandwidth regime).
  const FakeParams p{.nodes = 1, .gpus_per_node = 8};
  const int64_t S = 64 * kMiB;
  Bench alone(p);
  const auto a = alone.run(
      make_spec(CollOp::kAllReduce, CollAlgorithm::kRing, Protocol::kSimple, S, {0, 1, 2, 3}, 4));
  const double t_alone = static_cast<double>(a.end_ps - a.start_ps);

  Bench disjoint(p);
  int done = 0;
  const uint32_t x = disjoint.engine.start(
      make_spec(CollOp::kAllReduce, CollAlgorithm::kRing, Protocol::kSimple, S, {0, 1, 2, 3}, 4),
      [&](uint32_t) { ++done; });
  const uint32_t y = disjoint.engine.start(
      make_spec(CollOp::kAllReduce, CollAlgorithm::kRing, Protocol::kSimple, S, {4, 5, 6, 7}, 4),
      [&](uint32_t) { ++done; });
  disjoint.machine.run();
  EXPECT_EQ(done, 2);
  EXPECT_NE(x, y);
  for (uint32_t id : {x, y}) {
    const auto& r = disjoint.engine.record(id);
    EXPECT_NEAR(static_cast<double>(r.end_ps - r.start_ps), t_alone, 0.01 * t_alone);
  }

  Bench shared(p);
  const uint32_t u = shared.engine.start(
      make_spec(CollOp::kAllReduce, CollAlgorithm::kRing, Protocol::kSimple, S, {0, 1, 2, 3}, 4),
      nullptr);
  const uint32_t v = shared.engine.start(
      make_spec(CollOp::kAllReduce, CollAlgorithm::kRing, Protocol::kSimple, S, {3, 2, 1, 0}, 4),
      nullptr);
  shared.machine.run();
  const double last =
      static_cast<double>(std::max(shared.engine.record(u).end_ps, shared.engine.record(v).end_ps));
  EXPECT_NEAR(last, 2 * t_alone, 0.05 * 2 * t_alone);
  // The records say what ran.
  const auto& r = shared.engine.record(u);
  EXPECT_EQ(r.ranks, 4);
  EXPECT_EQ(r.channels, 4);
  EXPECT_EQ(r.size_bytes, S);
  EXPECT_EQ(r.wire_bytes, 4 * 2 * 3 * (S / 4));  // n ranks x 2(n-1) blocks of S/n
  EXPECT_GT(r.messages, 0);
}

}  // namespace collective_engine_test
}  // namespace fabricsim::workload

namespace fabricsim::workload {
namespace collective_engine_test {

// nccl-tests starts its sweeps at 8 B (2 floats) whatever the rank count: every op must finish
// with pieces of zero bytes, and no rank may receive more than the op requires.
TEST(CollectiveEngineTest, SizesBelowOneBytePerRankComplete) {
  for (CollOp op : {CollOp::kAllReduce, CollOp::kAllGather, CollOp::kReduceScatter,
                    CollOp::kAllToAll, CollOp::kBroadcast, CollOp::kReduce}) {
    Bench b(FakeParams{.nodes = 2, .gpus_per_node = 8});
    const CollectiveRecord r =
        b.run(make_spec(op, CollAlgorithm::kAuto, Protocol::kAuto, 8, first_ranks(16), 0));
    EXPECT_GE(r.end_ps, r.start_ps) << name(op);
    EXPECT_LE(r.wire_bytes, 8 * 16 * 2 * 2) << name(op) << ": at most twice the buffer per rank, "
                                               "LL doubling it";
  }
}

}  // namespace collective_engine_test
}  // namespace fabricsim::workload
