// A barrier for a partitioned run's windows (core/partition_run.h): the last thread to arrive
// runs the completion (the serial phase), then releases the others. Windows are short (the
// lookahead of a PFC fabric is one cable's propagation, 15 ns for 3 m: a few hundred events),
// so the barrier has to cost far less than a window's work: a waiter first spins on the
// generation word, which the releasing store updates in one cache-line transfer (std::barrier's
// futex wake-up took several microseconds per window here, as long as the window's work). If
// the others are slow to come (compare's simulations side by side, each split in partitions,
// or another process) it stops spinning, which would hold a core another thread needs, and
// sleeps in the kernel; with more threads than cores (the tests run 8 on 2) it sleeps at once.
// The releaser wakes sleepers only when there are any.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <thread>

namespace fabricsim {

class SpinBarrier {
 public:
  // `competing`: the threads of this machine that want a core at once (more than this barrier's
  // when several processes run partitions side by side: core/rank_run.h).
  explicit SpinBarrier(uint32_t threads, uint32_t competing = 0)
      : threads_(threads),
        spins_(std::max(threads, competing) > std::max(1u, std::thread::hardware_concurrency())
                   ? 0
                   : kSpins) {}
  SpinBarrier(const SpinBarrier&) = delete;
  SpinBarrier& operator=(const SpinBarrier&) = delete;

  template <class Completion>
  void arrive_and_wait(Completion&& completion) {
    const uint32_t gen = generation_.load(std::memory_order_acquire);
    if (arrived_.fetch_add(1, std::memory_order_acq_rel) + 1 == threads_) {
      completion();
      arrived_.store(0, std::memory_order_relaxed);
      generation_.store(gen + 1, std::memory_order_seq_cst);
      if (sleepers_.load(std::memory_order_seq_cst) != 0) generation_.notify_all();
      return;
    }
    for (uint32_t spins = 0; spins < spins_; ++spins) {
      if (generation_.load(std::memory_order_acquire) != gen) return;
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    }
    // Dekker's order: either the releaser's store is seen here, or this count is seen there.
    sleepers_.fetch_add(1, std::memory_order_seq_cst);
    while (generation_.load(std::memory_order_seq_cst) == gen) generation_.wait(gen);
    sleepers_.fetch_sub(1, std::memory_order_relaxed);
  }

 private:
  // ~20-60 us of pause instructions: longer than a window's imbalance on this machine (3 us at
  // k=24), far shorter than a scheduler time slice.
  static constexpr uint32_t kSpins = 1000;
  const uint32_t threads_;
  const uint32_t spins_;  // 0 with more threads than cores: sleep at once
  alignas(64) std::atomic<uint32_t> arrived_{0};
  alignas(64) std::atomic<uint32_t> generation_{0};
  alignas(64) std::atomic<uint32_t> sleepers_{0};
};

}  // namespace fabricsim
