// core/ring.h RingMemory: the bytes every Ring's buffer holds, their peak, and the limit a run
// sets so that queues outgrowing the memory pre-flight's expectation stop it cleanly
// (cli/commands.cpp RingBudget) instead of exhausting memory.
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>

#include "core/ring.h"

namespace fabricsim {
namespace {

struct LimitReached : std::runtime_error {
  explicit LimitReached(int64_t need) : std::runtime_error("ring limit"), need_bytes(need) {}
  int64_t need_bytes;
};

void throw_limit(int64_t need_bytes) { throw LimitReached(need_bytes); }

TEST(RingMemory, CountsEveryGrowthAndRelease) {
  const int64_t before = RingMemory::live_bytes.load();
  {
    Ring<int64_t> r;
    EXPECT_EQ(RingMemory::live_bytes.load(), before) << "an empty ring holds no buffer";
    r.push_back(1);  // first slots: 8 x 8 bytes
    EXPECT_EQ(RingMemory::live_bytes.load(), before + 64);
    for (int i = 0; i < 8; ++i) r.push_back(i);  // 9 elements: 16 slots
    EXPECT_EQ(RingMemory::live_bytes.load(), before + 128);
    EXPECT_GE(RingMemory::peak_bytes.load(), before + 128);
    Ring<int64_t> moved(std::move(r));  // a move hands the buffer over, no new bytes
    EXPECT_EQ(RingMemory::live_bytes.load(), before + 128);
  }
  EXPECT_EQ(RingMemory::live_bytes.load(), before) << "destroyed rings give their bytes back";
}

TEST(RingMemory, LimitStopsGrowthBeforeItAllocatesAndLeavesTheRingIntact) {
  const int64_t before = RingMemory::live_bytes.load();
  Ring<int64_t> r;
  for (int i = 0; i < 16; ++i) r.push_back(i);  // 16 slots, full
  RingMemory::limit_bytes = before + 128 + 64;  // room for 8 more slots, not for 16
  RingMemory::on_limit = &throw_limit;
  int64_t need = 0;
  try {
    r.push_back(16);  // would double to 32 slots: 128 more bytes
  } catch (const LimitReached& e) {
    need = e.need_bytes;
  }
  RingMemory::limit_bytes = 0;
  RingMemory::on_limit = nullptr;
  EXPECT_EQ(need, before + 256) << "the handler is told the bytes the growth would need";
  ASSERT_EQ(r.size(), 16u) << "the push that hit the limit did not happen";
  EXPECT_EQ(r.capacity(), 16u);
  for (uint32_t i = 0; i < 16; ++i) EXPECT_EQ(r[i], static_cast<int64_t>(i));
  EXPECT_EQ(RingMemory::live_bytes.load(), before + 128);
  r.push_back(16);  // no limit: grows
  EXPECT_EQ(r.capacity(), 32u);
}

}  // namespace
}  // namespace fabricsim
