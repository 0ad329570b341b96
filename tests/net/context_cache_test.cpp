// The NIC connection-context cache on its own (net/nic_context_cache.h): LRU replacement, what a
// miss costs, the bound on reads in flight, and the index under churn against a reference LRU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <list>

#include "core/rng.h"
#include "net/nic_context_cache.h"

namespace fabricsim::net {
namespace context_cache_test {

constexpr int64_t kMissPs = 500'000;  // 500 ns

NicContextCache make(int64_t entries, int outstanding, uint32_t nics = 1) {
  ContextCacheConfig cfg;
  cfg.enabled = true;
  cfg.entries = entries;
  cfg.outstanding_misses = outstanding;
  return NicContextCache(cfg, kMissPs, nics);
}

TEST(ContextCache, NewConnectionsAreCachedAndTheLeastRecentlyUsedIsEvicted) {
  NicContextCache c = make(3, 4);
  for (uint32_t q = 0; q < 3; ++q) c.add_connection(0, q);
  EXPECT_EQ(c.access(0, 0, 0).ready_ps, 0) << "set-up wrote the context: a hit";
  EXPECT_EQ(c.hits(), 1);
  EXPECT_EQ(c.misses(), 0);
  // Recency now 0, 2, 1 (most to least recent): a fourth connection evicts 1.
  c.add_connection(0, 3);
  EXPECT_FALSE(c.cached(0, 1));
  EXPECT_TRUE(c.cached(0, 0));
  EXPECT_TRUE(c.cached(0, 2));
  EXPECT_TRUE(c.cached(0, 3));
  EXPECT_EQ(c.connections(0), 4);
}

TEST(ContextCache, AMissCostsOnePcieReadAndIsCountedOnce) {
  NicContextCache c = make(1, 4);
  c.add_connection(0, 7);
  c.add_connection(0, 9);  // evicts 7
  const ContextAccess a = c.access(0, 7, 1000);
  EXPECT_FALSE(a.engine_busy);
  EXPECT_EQ(a.ready_ps, 1000 + kMissPs) << "the packet waits one read round trip";
  EXPECT_EQ(c.misses(), 1);
  EXPECT_EQ(c.miss_stall_ps(), kMissPs);
  // Coming back before the read completes: the same completion, nothing counted again.
  EXPECT_EQ(c.access(0, 7, 2000).ready_ps, 1000 + kMissPs);
  // At completion: the access the read was for (not a hit), then real hits.
  EXPECT_EQ(c.access(0, 7, 1000 + kMissPs).ready_ps, 1000 + kMissPs);
  EXPECT_EQ(c.hits(), 0);
  EXPECT_EQ(c.access(0, 7, 1000 + kMissPs + 1).ready_ps, 1000 + kMissPs + 1);
  EXPECT_EQ(c.hits(), 1);
  EXPECT_EQ(c.misses(), 1);
  EXPECT_FALSE(c.cached(0, 9)) << "the fill evicted the other context";
}

TEST(ContextCache, ReadsInFlightAreBounded) {
  NicContextCache c = make(4, 2);
  for (uint32_t q = 0; q < 8; ++q) c.add_connection(0, q);  // 4..7 cached, 0..3 not
  EXPECT_EQ(c.access(0, 0, 0).ready_ps, kMissPs);
  EXPECT_EQ(c.access(0, 1, 0).ready_ps, kMissPs);
  // Both read slots busy: the send scheduler is told when one frees; nothing is issued.
  const ContextAccess busy = c.access(0, 2, 0);
  EXPECT_TRUE(busy.engine_busy);
  EXPECT_EQ(busy.ready_ps, kMissPs);
  EXPECT_EQ(c.misses(), 2);
  EXPECT_FALSE(c.read_slot_free(0, kMissPs - 1));
  EXPECT_TRUE(c.read_slot_free(0, kMissPs));
  // A received packet's read queues behind them: it starts when the first completes.
  EXPECT_EQ(c.access_waiting(0, 3, 0), 2 * kMissPs);
  EXPECT_EQ(c.misses(), 3);
  EXPECT_EQ(c.miss_stall_ps(), kMissPs + kMissPs + 2 * kMissPs);
  // The reads of 0 and 1 have not served their packets: the fill for 3 evicted neither.
  EXPECT_TRUE(c.cached(0, 0));
  EXPECT_TRUE(c.cached(0, 1));
}

TEST(ContextCache, RoundRobinOverConnectionsFitsOrMissesEveryTime) {
  // LRU's textbook cliff: N connections used in turn all hit while N <= capacity, and all miss
  // once N = capacity + 1 (each is evicted just before its next turn).
  for (const int64_t n_conn : {64, 65}) {
    NicContextCache c = make(64, 1);
    for (uint32_t q = 0; q < n_conn; ++q) c.add_connection(0, q);
    int64_t t = 0;
    for (int round = 0; round < 5; ++round) {
      for (uint32_t q = 0; q < n_conn; ++q) {
        const ContextAccess a = c.access(0, q, t);
        ASSERT_FALSE(a.engine_busy);
        if (a.ready_ps > t) {  // its packet goes when the read completes
          t = a.ready_ps;
          ASSERT_EQ(c.access(0, q, t).ready_ps, t);
        }
        t += 1;
      }
    }
    if (n_conn == 64) {
      EXPECT_EQ(c.misses(), 0) << n_conn << " connections fit";
      EXPECT_EQ(c.hits(), 5 * 64);
    } else {
      // Set-up cached the last 64: connection 0 missed first, evicting 1, and so on.
      EXPECT_EQ(c.misses(), 5 * 65) << "every access misses";
      EXPECT_EQ(c.hits(), 0);
    }
  }
}

TEST(ContextCache, IndexMatchesAReferenceLruUnderChurn) {
  constexpr int64_t kEntries = 37;
  constexpr uint32_t kConns = 120;
  NicContextCache c = make(kEntries, 1, 2);
  std::list<uint32_t> ref;  // most recent first
  for (uint32_t q = 0; q < kConns; ++q) {
    c.add_connection(1, q);
    ref.remove(q);
    ref.push_front(q);
    if (static_cast<int64_t>(ref.size()) > kEntries) ref.pop_back();
  }
  uint64_t rng = 42;
  int64_t t = 0, ref_misses = 0;
  for (int i = 0; i < 20000; ++i) {
    // Skewed: half the accesses go to 16 hot connections, so both hits and misses occur.
    const uint64_t r = splitmix64(rng);
    const uint32_t q = (r & 1) ? static_cast<uint32_t>((r >> 8) % 16)
                               : static_cast<uint32_t>((r >> 8) % kConns);
    const auto it = std::find(ref.begin(), ref.end(), q);
    if (it == ref.end()) {
      ++ref_misses;
      if (static_cast<int64_t>(ref.size()) == kEntries) ref.pop_back();
    } else {
      ref.erase(it);
    }
    ref.push_front(q);
    const ContextAccess a = c.access(1, q, t);
    ASSERT_FALSE(a.engine_busy);
    if (a.ready_ps > t) {
      t = a.ready_ps;
      c.access(1, q, t);  // the packet the read was for (not counted again)
    }
    t += 1;
  }
  EXPECT_EQ(c.misses(), ref_misses);
  EXPECT_EQ(c.hits() + c.misses(), 20000);
  for (uint32_t q = 0; q < kConns; ++q) {
    EXPECT_EQ(c.cached(1, q), std::find(ref.begin(), ref.end(), q) != ref.end()) << q;
  }
  EXPECT_EQ(c.nic_misses(0), 0) << "NICs have separate caches";
}

}  // namespace context_cache_test
}  // namespace fabricsim::net
