// core/id_window.h and core/id_list.h: ids stay what they were given as, records released from
// the oldest free their pages, positions in a list survive the oldest being dropped.
#include "core/id_window.h"

#include <gtest/gtest.h>

#include <cstdint>

#include "core/id_list.h"

namespace fabricsim {
namespace {

TEST(IdWindow, IdsAreDenseAndRecordsStayAddressableUntilReleased) {
  IdWindow<int64_t, 4> w;  // pages of 16
  for (int64_t i = 0; i < 100; ++i) EXPECT_EQ(w.push_back(i * 10), static_cast<uint32_t>(i));
  EXPECT_EQ(w.end_id(), 100u);
  EXPECT_EQ(w.live(), 100u);
  for (int i = 0; i < 37; ++i) w.pop_front();
  EXPECT_EQ(w.front_id(), 37u);
  for (uint32_t id = 37; id < 100; ++id) EXPECT_EQ(w[id], static_cast<int64_t>(id) * 10);
  EXPECT_EQ(w.push_back(-1), 100u) << "ids are never reused";
}

TEST(IdWindow, MemoryFollowsTheLiveRecordsNotEveryIdEverGiven) {
  IdWindow<int64_t, 4> w;  // 16 records of 8 bytes a page: 128 bytes
  // A sliding window of 20 live records over 10,000 ids: at most ceil(20 / 16) + 1 pages live,
  // plus one spare kept for reuse, plus the page table (8 bytes a page number ever used).
  for (int64_t i = 0; i < 10'000; ++i) {
    w.push_back(i);
    if (w.live() > 20) w.pop_front();
  }
  const size_t page_table = ((10'000 + 15) / 16) * sizeof(void*);
  EXPECT_LE(w.bytes(), (3 + 1) * 128 + 2 * page_table) << "pages of released records are freed";
  while (!w.empty()) w.pop_front();
  EXPECT_LE(w.bytes(), 2 * 128 + 2 * page_table);
}

TEST(IdList, PositionsSurviveDroppingTheOldest) {
  IdList l;
  for (uint32_t i = 0; i < 1000; ++i) l.push_back(5000 + i);
  for (int i = 0; i < 700; ++i) l.pop_front();  // compacts at least once
  EXPECT_EQ(l.first(), 700u);
  EXPECT_EQ(l.size(), 1000u);
  EXPECT_EQ(l[700], 5700u);
  EXPECT_EQ(l[999], 5999u);
  EXPECT_EQ(l.front(), 5700u);
  EXPECT_EQ(*l.begin(), 5700u);
  EXPECT_EQ(l.end() - l.begin(), 300);
  l.push_back(1);
  EXPECT_EQ(l[1000], 1u);
}

// The newest positions are read from the list's own copy, older ones from its storage: every
// position reads what was appended there, across the boundary and after compaction.
TEST(IdList, EveryPositionReadsItsIdOldOrRecent) {
  IdList l;
  for (uint32_t i = 0; i < 200; ++i) {
    l.push_back(7000 + i);
    if (i % 3 == 0) l.pop_front();
    for (uint32_t p = l.first(); p < l.size(); ++p) {
      ASSERT_EQ(l[p], 7000 + p) << "position " << p << " after " << i + 1 << " appends";
    }
  }
}

}  // namespace
}  // namespace fabricsim
