// workload/trace_recorder.h on the closed-form machine (collective_fake.h): the spans of a
// halving-doubling all-reduce follow from the algorithm alone (Thakur, Rabenseifner, Gropp
// 2005): 2 log2 N steps per rank; at halving step k rank i exchanges S / 2^(k+1) bytes with
// rank i XOR N/2^(k+1), and the doubling steps mirror them.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "collective_fake.h"
#include "workload/trace_recorder.h"

namespace fabricsim::workload {
namespace trace_recorder_test {

using test::Bench;
using test::FakeParams;
using test::first_ranks;
using test::make_spec;

constexpr int64_t kMiB = 1 << 20;

TEST(TraceRecorder, HalvingDoublingStepsPeersAndBytes) {
  const FakeParams p{.nodes = 2, .gpus_per_node = 4};
  Bench b(p);
  TraceRecorder rec(p.gpus_per_node);
  b.engine.set_trace(&rec);
  const int n = 8, levels = 3;
  const int64_t S = 8 * kMiB;
  const CollectiveRecord r = b.run(make_spec(CollOp::kAllReduce, CollAlgorithm::kHalvingDoubling,
                                             Protocol::kSimple, S, first_ranks(n), 1));
  const TraceLog& log = rec.log();
  std::map<uint32_t, std::set<uint32_t>> steps;
  std::map<uint32_t, int64_t> sent;
  int collectives = 0, sends = 0;
  for (const TraceSpan& s : log.spans) {
    EXPECT_FALSE(s.unfinished);
    EXPECT_LE(s.start_ps, s.end_ps);
    EXPECT_GE(s.start_ps, r.start_ps);
    EXPECT_LE(s.end_ps, r.end_ps);
    EXPECT_EQ(s.host, s.rank / p.gpus_per_node);
    if (s.cat == TraceCat::kCollective) {
      ++collectives;
      EXPECT_EQ(s.start_ps, r.start_ps);
      EXPECT_EQ(s.end_ps, r.end_ps);
      EXPECT_EQ(log.labels[s.name], "all_reduce");
      EXPECT_EQ(log.labels[s.detail], "halving_doubling");
    } else if (s.cat == TraceCat::kStep) {
      steps[s.rank].insert(s.index);
    } else if (s.cat == TraceCat::kSend) {
      ++sends;
      ASSERT_LT(s.index, 2u * levels);
      // Halving step k (= index) or the doubling step mirroring level k = 2 levels - 1 - index.
      const int k = s.index < levels ? static_cast<int>(s.index) : 2 * levels - 1 - s.index;
      EXPECT_EQ(static_cast<uint32_t>(s.peer), s.rank ^ (n >> (k + 1))) << "step " << s.index;
      EXPECT_EQ(s.bytes, S >> (k + 1)) << "rank " << s.rank << " step " << s.index;
      sent[s.rank] += s.bytes;
    }
  }
  EXPECT_EQ(collectives, n);
  EXPECT_EQ(sends, n * 2 * levels);
  for (uint32_t rank = 0; rank < n; ++rank) {
    EXPECT_EQ(steps[rank].size(), 2u * levels);
    EXPECT_EQ(sent[rank], 2 * (n - 1) * S / n);  // the same volume as the ring's
  }
}

TEST(TraceRecorder, OffRecordsNothingAndChangesNothing) {
  const FakeParams p{.nodes = 2, .gpus_per_node = 4};
  const auto spec = make_spec(CollOp::kAllReduce, CollAlgorithm::kRing, Protocol::kSimple,
                              4 * kMiB, first_ranks(8), 2);
  Bench plain(p);
  const CollectiveRecord a = plain.run(spec);
  Bench traced(p);
  TraceRecorder rec(p.gpus_per_node);
  traced.engine.set_trace(&rec);
  const CollectiveRecord b = traced.run(spec);
  EXPECT_EQ(a.end_ps - a.start_ps, b.end_ps - b.start_ps) << "recording does not change timing";
  EXPECT_EQ(a.messages, b.messages);
  EXPECT_FALSE(rec.log().spans.empty());
}

TEST(TraceRecorder, RunningCollectivesCloseUnfinishedAtTheEnd) {
  const FakeParams p{.nodes = 1, .gpus_per_node = 4};
  Bench b(p);
  TraceRecorder rec(p.gpus_per_node);
  b.engine.set_trace(&rec);
  // Started, never driven: the base-latency timer is pending, nothing was sent.
  b.engine.start(make_spec(CollOp::kAllReduce, CollAlgorithm::kRing, Protocol::kSimple, kMiB,
                           first_ranks(4), 1),
                 nullptr);
  rec.close_running(123456);
  ASSERT_EQ(rec.log().spans.size(), 4u);  // one collective span per rank
  for (const TraceSpan& s : rec.log().spans) {
    EXPECT_EQ(s.cat, TraceCat::kCollective);
    EXPECT_TRUE(s.unfinished);
    EXPECT_EQ(s.end_ps, 123456);
  }
  rec.close_running(999);  // closed once: nothing more
  EXPECT_EQ(rec.log().spans.size(), 4u);
}

}  // namespace trace_recorder_test
}  // namespace fabricsim::workload
