// The closed-form counts the memory pre-flight (preflight/resources.cpp) multiplies by the
// simulator's type sizes: checked arithmetic and what the workload posts (the topology's counts
// are topo::shape_counts). Internal to the scenario layer.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "spec/scenario.h"

namespace fabricsim::scenario::preflight {

// Beyond this the estimate is refused rather than computed: 4 EiB is more than any machine has,
// and keeping every figure below 2^62 lets a sum of a few of them stay inside int64.
constexpr int64_t kMaxBytes = int64_t{1} << 62;

// glibc malloc: every chunk carries an 8-byte size header and is rounded up to 16 bytes
// (malloc/malloc.c, "chunk representations"), so a small heap block costs about 16 bytes more
// than it holds. Counted once per separately allocated vector or ring.
constexpr int64_t kMallocOverheadBytes = 16;

// Bytes of one ring that has been used at all: the first grow() allocates 8 slots (core/ring.h).
template <typename T>
constexpr int64_t kMinRingBytes = 8 * static_cast<int64_t>(sizeof(T)) + kMallocOverheadBytes;

// libstdc++'s unordered_map<uint64_t, uint32_t> (RoceTransport::qp_index_): a node is the next
// pointer plus the pair (std::hash<uint64_t> is not cached) in one malloc chunk, and the bucket
// array holds one pointer per bucket, at least one bucket per element (max_load_factor 1).
constexpr int64_t kHashNodeBytes =
    sizeof(void*) + sizeof(std::pair<const uint64_t, uint32_t>) + kMallocOverheadBytes;
constexpr int64_t kHashBucketBytes = sizeof(void*);

// Arithmetic that refuses, naming `key`, instead of wrapping.
struct Checked {
  std::string key;
  [[noreturn]] void overflow() const {
    throw InputError(key,
                     "the run would need more than 4 EiB of memory (its size does not even "
                     "fit the pre-flight estimate's arithmetic); make it smaller");
  }
  int64_t mul(int64_t a, int64_t b) const {
    int64_t r;
    if (a < 0 || b < 0 || __builtin_mul_overflow(a, b, &r) || r > kMaxBytes) overflow();
    return r;
  }
  int64_t add(int64_t a, int64_t b) const {
    int64_t r;
    if (__builtin_add_overflow(a, b, &r) || r > kMaxBytes) overflow();
    return r;
  }
  int64_t mul(int64_t a, int64_t b, int64_t c) const { return mul(mul(a, b), c); }
  // A double count (Poisson) as int64, refused beyond the bound.
  int64_t of(double x) const {
    if (!(x < static_cast<double>(kMaxBytes))) overflow();
    return static_cast<int64_t>(std::ceil(std::max(0.0, x)));
  }
};

// A vector filled by push_back from empty doubles its capacity (libstdc++), so it holds the next
// power of two; while the last doubling copies, the old buffer (half of that) is still live.
inline int64_t grown_elements(int64_t n) {
  if (n <= 0) return 0;
  const uint64_t cap = std::bit_ceil(static_cast<uint64_t>(n));
  return static_cast<int64_t>(cap + cap / 2);
}

// What the workload posts: messages, their total payload, the planned-flow list a pattern keeps
// and the QPs it opens.
struct Traffic {
  int64_t messages = 0;
  int64_t planned = 0;  // PlannedFlow entries (patterns only)
  bool sorted = false;  // plan_pattern stable_sorts it (flows, Poisson): a buffer of as many
  int64_t explicit_flows = 0;
  int64_t total_bytes = 0;         // payload that can be in the fabric at once (at most all of it)
  int64_t inflight_messages = -1;  // messages that can be outstanding at once (-1: all of them)
  // Messages posted and not yet retired at once, at most (GPU runs: GpuTraffic::live_messages);
  // -1: all of them.
  int64_t live_messages = -1;
  int64_t max_message_bytes = 0;
  int64_t qps = 0;
};

// The elements' worth of memory resident at the peak of a vector grown by push_back to `n`
// elements of at least 128 KiB: at the last doubling the old buffer (cap / 2, all written) and
// the first cap / 2 slots of the new one are resident; the rest of the new buffer is fresh
// mmap'd pages (glibc serves such allocations by mmap: M_MMAP_THRESHOLD, whose dynamic
// adjustment stays below each doubled size), not resident until written, and only n <= cap
// ever are. So cap = bit_ceil(n), not grown_elements' cap + cap / 2 of address space.
inline int64_t resident_grown_elements(int64_t n) {
  if (n <= 0) return 0;
  return static_cast<int64_t>(std::bit_ceil(static_cast<uint64_t>(n)));
}

// `n` = the topology's NICs.
Traffic traffic_of(const Scenario& sc, int64_t n);

// The scenario keys the workload's parts (workload, transport, flow records) grow with, most
// direct first, and those the fabric's parts (topology, routing, events) grow with: what a
// refusal names when the file sets them (ResourceEstimate's MemoryPart::drivers).
std::vector<std::string> workload_drivers(const Scenario& sc);
const std::vector<std::string>& fabric_drivers();

}  // namespace fabricsim::scenario::preflight
