// Engine primitives: event ordering, RNG streams, pools and rings.
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "core/event_queue.h"
#include "core/ring.h"
#include "core/rng.h"
#include "core/time.h"

namespace fabricsim {
namespace engine_test {

TEST(EventQueue, OrdersByTimeThenInsertion) {
  EventQueue q;
  q.push(30, 1, 0);
  q.push(10, 1, 1);
  q.push(20, 1, 2);
  q.push(10, 1, 3);  // same time as target 1, inserted later
  q.push(10, 1, 4);
  std::vector<uint32_t> order;
  while (!q.empty()) order.push_back(q.pop().target);
  EXPECT_EQ(order, (std::vector<uint32_t>{1, 3, 4, 2, 0})) << "ties must break by insertion";
}

TEST(EventQueue, ManyRandomEventsPopSorted) {
  EventQueue q;
  Rng rng(1, 2);
  for (uint32_t i = 0; i < 10000; ++i) q.push(static_cast<int64_t>(rng.below(1000)), 0, i);
  int64_t last_time = -1;
  uint64_t last_seq = 0;
  while (!q.empty()) {
    const Event e = q.pop();
    ASSERT_TRUE(e.time_ps > last_time || (e.time_ps == last_time && e.seq > last_seq))
        << "heap order broken at t=" << e.time_ps;
    last_time = e.time_ps;
    last_seq = e.seq;
  }
}

TEST(Rng, StreamsAreReproducibleAndIndependent) {
  Rng a(42, 7), b(42, 7), c(42, 8);
  bool differs = false;
  for (int i = 0; i < 100; ++i) {
    const uint64_t x = a.next_u64();
    EXPECT_EQ(x, b.next_u64()) << "same seed and stream must repeat";
    differs = differs || x != c.next_u64();
  }
  EXPECT_TRUE(differs) << "different streams must differ";
}

TEST(Rng, UniformAndBelowStayInRange) {
  Rng r(3, 3);
  double sum = 0;
  for (int i = 0; i < 100000; ++i) {
    const double u = r.uniform();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    sum += u;
    ASSERT_LT(r.below(7), 7u);
  }
  EXPECT_NEAR(sum / 100000, 0.5, 0.01) << "mean of U[0,1)";
}

TEST(Ring, FifoAcrossGrowthAndWrap) {
  Ring<int> r;
  int next_in = 0, next_out = 0;
  for (int round = 0; round < 50; ++round) {
    for (int i = 0; i < 7; ++i) r.push_back(next_in++);
    for (int i = 0; i < 5; ++i) ASSERT_EQ(r.pop_front(), next_out++) << "FIFO order";
  }
  EXPECT_EQ(r.size(), 100u);
}

TEST(Time, SerializationIsExactAtRoundRates) {
  EXPECT_EQ(serialization_ps(4178, 400'000'000'000), 83'560) << "20 ps per byte at 400G";
  EXPECT_EQ(serialization_ps(64, 100'000'000'000), 5'120) << "80 ps per byte at 100G";
  // EDR lane rate x4 after 64b/66b: 100 Gb/s data; 25.78125 Gb/s per lane signalling.
  EXPECT_EQ(serialization_ps(1, 25'781'250'000), 310) << "rounded to the nearest ps";
}

}  // namespace engine_test
}  // namespace fabricsim
