// core/flat_map.h against std::map as the reference: the same answers under a long random mix of
// inserts, lookups and erases, including keys that all hash alike (one long probe run, where
// the backward-shift erase must keep every later key reachable).
#include "core/flat_map.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>

#include "core/rng.h"

namespace fabricsim::flat_map_test {

struct Mixed {
  size_t operator()(uint64_t k) const { return static_cast<size_t>(k); }
};
struct Constant {  // every key has the same home slot
  size_t operator()(uint64_t) const { return 42; }
};

template <typename Hash>
void check_against_std_map(uint64_t key_range, int operations) {
  FlatMap<uint64_t, int64_t, Hash> m;
  std::map<uint64_t, int64_t> ref;
  Rng rng(7, 1);
  for (int op = 0; op < operations; ++op) {
    const uint64_t key = rng.next_u64() % key_range;
    if (rng.next_u64() % 3 == 0) {
      m.erase(key);
      ref.erase(key);
    } else {
      const int64_t v = static_cast<int64_t>(rng.next_u64() % 1000);
      m[key] += v;  // value-initialized on first use, as std::map's operator[]
      ref[key] += v;
    }
    ASSERT_EQ(m.size(), ref.size()) << "after operation " << op;
  }
  // Every key the reference holds is found with its value; operator[] on them inserts nothing.
  for (const auto& [key, value] : ref) EXPECT_EQ(m[key], value) << key;
  EXPECT_EQ(m.size(), ref.size());
  // And the rest are absent: looking one up inserts a zero.
  for (uint64_t key = 0; key < key_range; ++key) {
    if (ref.count(key) != 0) continue;
    EXPECT_EQ(m[key], 0) << key;
    m.erase(key);
  }
  EXPECT_EQ(m.size(), ref.size());
}

TEST(FlatMap, MatchesStdMapUnderRandomInsertsAndErases) {
  check_against_std_map<Mixed>(500, 20'000);
}

TEST(FlatMap, EraseKeepsAProbeRunReachableWhenEveryKeyCollides) {
  check_against_std_map<Constant>(40, 5'000);
}

TEST(FlatMap, ErasingEverythingLeavesItEmpty) {
  FlatMap<uint64_t, int, Mixed> m;
  for (uint64_t k = 0; k < 1000; ++k) m[k * 7919] = static_cast<int>(k);
  EXPECT_EQ(m.size(), 1000u);
  for (uint64_t k = 0; k < 1000; ++k) m.erase(k * 7919);
  EXPECT_TRUE(m.empty());
  m.erase(5);  // absent: nothing happens
  EXPECT_TRUE(m.empty());
}

}  // namespace fabricsim::flat_map_test
