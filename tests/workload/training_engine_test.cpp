// TrainingEngine on hand-built DAGs with a closed-form collective runner (training_fakes.h):
// compute streams serialize a rank's ready ops in FIFO order, collectives start when every
// rank reached them and their communicator is free, gradient buckets overlap the remaining backward so that only the last
// bucket's tail is exposed, and repeated steps chain through the optimizer.
#include <gtest/gtest.h>

#include <vector>

#include "core/error.h"
#include "training_fakes.h"
#include "workload/training.h"

namespace fabricsim::workload {
namespace training_engine_test {

using fakes::FakeRunner;
using fakes::FakeTransport;
using fakes::run_dag;

constexpr int kFwd = static_cast<int>(Phase::kForward);
constexpr int kDp = static_cast<int>(Phase::kDataParallel);

// Rank 0: a chain 10 -> 20 -> 30 ps. Rank 1: two independent roots of 5 and 7 ps, which share
// one compute stream and so run one after the other. Step = the busier rank's sum.
TEST(TrainingEngine, ComputeOnlyStepIsTheBusiestRanksSum) {
  Dag dag;
  dag.ranks = 2;
  const uint32_t a = dag.add_compute(0, 10, Phase::kForward, 0, {});
  const uint32_t b = dag.add_compute(0, 20, Phase::kForward, 1, {a});
  dag.add_compute(0, 30, Phase::kForward, 2, {b});
  const uint32_t x = dag.add_compute(1, 5, Phase::kForward, 0, {});
  const uint32_t y = dag.add_compute(1, 7, Phase::kForward, 0, {});
  const TrainingResult r = run_dag(dag, 0, 0);
  EXPECT_EQ(r.step_ps, 60);
  EXPECT_EQ(r.rank_compute_ps[0], 60);
  EXPECT_EQ(r.rank_compute_ps[1], 12) << "5 + 7 on one stream";
  EXPECT_EQ(r.critical_rank, 0u);
  EXPECT_EQ(r.compute_ps, 60);
  EXPECT_EQ(r.exposed_comm_ps, 0);
  EXPECT_EQ(r.compute_by_phase_ps[kFwd], 60);
  EXPECT_EQ(r.op_start_ps[x], 0);
  EXPECT_EQ(r.op_start_ps[y], 5) << "FIFO: y became ready second, so it waits for x";
  EXPECT_EQ(r.op_end_ps[y], 12);
}

// Data parallelism on 2 ranks: n backward ops of b ps each; after op k on both ranks a bucket
// of S bytes is all-reduced (c = L + S x ps_per_byte < b); the optimizer waits for every
// bucket. Buckets 0..n-2 hide under the next backward op; the last one starts when the
// backward ends. Expected: step = n.b + c, exposed = c, and the DP time not overlapped with the
// critical rank's compute = c.
TEST(TrainingEngine, GradientBucketsOverlapBackwardExceptTheLastTail) {
  constexpr int kOps = 4;
  constexpr int64_t kB = 1'000'000;                       // 1 us per backward op
  constexpr int64_t kBytes = 50'000;                      // per bucket
  constexpr int64_t kLatency = 20'000;                    // 20 ns
  constexpr int64_t kPsPerByte = 10;                      // 100 GB/s
  constexpr int64_t kC = kLatency + kBytes * kPsPerByte;  // 520 ns < 1 us
  Dag dag;
  dag.ranks = 2;
  const uint32_t group = dag.add_group({0, 1});
  std::vector<uint32_t> prev(2, UINT32_MAX);
  std::vector<uint32_t> buckets;
  for (int k = 0; k < kOps; ++k) {
    std::vector<uint32_t> done;
    for (uint32_t rank = 0; rank < 2; ++rank) {
      std::vector<uint32_t> after;
      if (prev[rank] != UINT32_MAX) after.push_back(prev[rank]);
      prev[rank] = dag.add_compute(rank, kB, Phase::kWeightGrad, k, after);
      done.push_back(prev[rank]);
    }
    DagCollective c;
    c.size_bytes = kBytes;
    c.group = group;
    buckets.push_back(dag.add_collective(c, Phase::kDataParallel, k, done));
  }
  for (uint32_t rank = 0; rank < 2; ++rank) {
    std::vector<uint32_t> after = buckets;
    after.push_back(prev[rank]);
    dag.add_compute(rank, 0, Phase::kUpdate, kOps, after);
  }
  const TrainingResult r = run_dag(dag, kLatency, kPsPerByte);
  EXPECT_EQ(r.compute_ps, kOps * kB);
  EXPECT_EQ(r.step_ps, kOps * kB + kC);
  EXPECT_EQ(r.exposed_comm_ps, kC);
  EXPECT_EQ(r.comm_ps[kDp], kOps * kC);
  EXPECT_EQ(r.comm_not_overlapped_ps[kDp], kC) << "only the last bucket runs after compute";
  EXPECT_EQ(r.comm_count[kDp], kOps);
  EXPECT_EQ(r.comm_bytes[kDp], kOps * kBytes);
  EXPECT_EQ(r.op_count[static_cast<int>(CollOp::kAllReduce)], kOps);
  for (int k = 0; k < kOps; ++k) {
    EXPECT_EQ(r.op_start_ps[buckets[k]], (k + 1) * kB)
        << "bucket " << k << " starts when op " << k << " ends on both ranks";
  }

  // Two steps: step 2's roots wait for step 1's optimizer, which waits for the last bucket.
  const TrainingResult two = run_dag(dag, kLatency, kPsPerByte, 2);
  EXPECT_EQ(two.total_ps, 2 * (kOps * kB + kC));
  EXPECT_EQ(two.step_ps, kOps * kB + kC);
  ASSERT_EQ(two.step_end_ps.size(), 2u);
  EXPECT_EQ(two.step_end_ps[0], kOps * kB + kC);
}

// A collective waits for the slowest member: rank 1 reaches it 300 ps after rank 0.
TEST(TrainingEngine, CollectiveStartsWhenItsLastRankArrives) {
  Dag dag;
  dag.ranks = 2;
  const uint32_t g = dag.add_group({1, 0});
  const uint32_t a = dag.add_compute(0, 100, Phase::kForward, 0, {});
  const uint32_t b = dag.add_compute(1, 400, Phase::kForward, 0, {});
  DagCollective c;
  c.size_bytes = 10;
  c.group = g;
  const uint32_t ar = dag.add_collective(c, Phase::kTensorParallel, 0, {a, b});
  dag.add_compute(0, 50, Phase::kForward, 1, {ar});
  const TrainingResult r = run_dag(dag, 7, 1);
  EXPECT_EQ(r.op_start_ps[ar], 400);
  EXPECT_EQ(r.op_end_ps[ar], 417);
  EXPECT_EQ(r.step_ps, 467);
  EXPECT_EQ(r.critical_rank, 1u);
  EXPECT_EQ(r.exposed_comm_ps, 467 - 400);
}

// A communicator runs its collectives one at a time in the order they were issued (NCCL
// kernels on its process group's one stream); different communicators overlap. Ranks 0, 1 share
// communicator A, ranks 2, 3 communicator B; L = 10 ps, 1 ps per byte:
//   a1 (1,000 B) and a2 (500 B) on A, issued at 0:  a1 [0, 1,010], a2 [1,010, 1,520]
//   b (700 B) on B, issued at 0:                     b [0, 710], beside a1
//   a3 (200 B) on A, issued at 1,100 (after rank 0's 1,100 ps of compute), behind a2:
//                                                    a3 [1,520, 1,730]
// The last op, rank 0's update after a3, ends at 1,730 + 5: the breakdown's chain runs from it
// through a3, a2 and a1 (each queued behind the one before), all data-parallel communication
// on the critical rank (rank 0: 1,100 + 5 ps of compute).
TEST(TrainingEngine, ACommunicatorRunsItsCollectivesOneAtATimeInIssueOrder) {
  Dag dag;
  dag.ranks = 4;
  const uint32_t ga = dag.add_group({0, 1});
  const uint32_t gb = dag.add_group({2, 3});
  auto coll = [&](uint32_t group, int64_t bytes, const std::vector<uint32_t>& after) {
    DagCollective c;
    c.size_bytes = bytes;
    c.group = group;
    return dag.add_collective(c, Phase::kDataParallel, 0, after);
  };
  const uint32_t a1 = coll(ga, 1000, {});
  const uint32_t a2 = coll(ga, 500, {});
  const uint32_t b = coll(gb, 700, {});
  const uint32_t work = dag.add_compute(0, 1100, Phase::kWeightGrad, 0, {});
  const uint32_t a3 = coll(ga, 200, {work});
  const uint32_t update = dag.add_compute(0, 5, Phase::kUpdate, 1, {a1, a2, a3});
  const TrainingResult r = run_dag(dag, 10, 1);
  EXPECT_EQ(r.op_start_ps[a1], 0);
  EXPECT_EQ(r.op_end_ps[a1], 1010);
  EXPECT_EQ(r.op_start_ps[a2], 1010) << "issued with a1, behind it on communicator A";
  EXPECT_EQ(r.op_end_ps[a2], 1520);
  EXPECT_EQ(r.op_start_ps[b], 0) << "communicator B is free: overlaps a1";
  EXPECT_EQ(r.op_end_ps[b], 710);
  EXPECT_EQ(r.op_start_ps[a3], 1520) << "issued at 1,100 while a2 ran";
  EXPECT_EQ(r.op_end_ps[a3], 1730);
  EXPECT_EQ(r.op_end_ps[update], 1735);
  EXPECT_EQ(r.step_ps, 1735);
  EXPECT_EQ(r.critical_rank, 0u);
  EXPECT_EQ(r.critical.compute_ps, 1105);
  EXPECT_EQ(r.critical.comm_ps[kDp][static_cast<int>(StepPhase::kOptimizer)], 1735 - 1105)
      << "the chain from the update runs through a3, a2 and a1, each queued behind the last";
  EXPECT_EQ(r.critical.span_ps, 1735);
}

TEST(TrainingEngine, PlacementMapsRanksAndDefaultsReplaceAuto) {
  Dag dag;
  dag.ranks = 2;
  DagCollective c;
  c.size_bytes = 64;
  c.group = dag.add_group({0, 1});
  dag.add_collective(c, Phase::kDataParallel, 0, {});
  FakeTransport transport(16);
  FakeRunner runner(transport, 0, 1);
  CollectiveDefaults defaults{CollAlgorithm::kTree, Protocol::kLL128, 4};
  TrainingEngine engine(dag, {9, 14}, runner, transport, 0, defaults);
  transport.on_timer = [&](uint64_t cookie) {
    if (TrainingEngine::owns_cookie(cookie))
      engine.on_timer(cookie);
    else
      runner.on_timer(cookie);
  };
  engine.start();
  transport.run();
  ASSERT_TRUE(engine.done());
  ASSERT_EQ(runner.specs().size(), 1u);
  EXPECT_EQ(runner.specs()[0].ranks, (std::vector<uint32_t>{9, 14}));
  EXPECT_EQ(runner.specs()[0].algorithm, CollAlgorithm::kTree);
  EXPECT_EQ(runner.specs()[0].protocol, Protocol::kLL128);
  EXPECT_EQ(runner.specs()[0].channels, 4);
  EXPECT_EQ(engine.runner_id(0), 0);
}

TEST(TrainingEngine, RejectsInconsistentDagsAndPlacements) {
  FakeTransport transport(4);
  FakeRunner runner(transport, 0, 0);
  Dag dag;
  dag.ranks = 2;
  dag.add_compute(0, 1, Phase::kForward, 0, {});
  EXPECT_THROW(TrainingEngine(dag, {0}, runner, transport, 0), InputError) << "placement size";
  EXPECT_THROW(TrainingEngine(dag, {0, 4}, runner, transport, 0), InputError) << "GPU 4 of 4";
  EXPECT_THROW(TrainingEngine(dag, {0, 1}, runner, transport, 0, {}, 0), InputError) << "steps";
  Dag forward = dag;
  forward.deps.push_back(1);
  forward.ops[0].num_deps = 1;
  EXPECT_THROW(TrainingEngine(forward, {0, 1}, runner, transport, 0), InputError)
      << "a dependency on a later op";
  Dag bad_rank = dag;
  bad_rank.ops[0].rank = 2;
  EXPECT_THROW(TrainingEngine(bad_rank, {0, 1}, runner, transport, 0), InputError);
}

TEST(TrainingEngine, CookiesCarryTheJob) {
  const uint64_t cookie = kForeignCookie + (uint64_t{77} << 32) + 5;
  EXPECT_TRUE(TrainingEngine::owns_cookie(cookie));
  EXPECT_FALSE(TrainingEngine::owns_cookie(kForeignCookie - 1));
  EXPECT_EQ(TrainingEngine::cookie_job(cookie), 77u);
}

}  // namespace training_engine_test
}  // namespace fabricsim::workload
