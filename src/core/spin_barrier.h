// A barrier for a partitioned run's windows (core/partition_run.h): the last thread to arrive
// runs the completion (the serial phase), then releases the others. Windows are short (the
// lookahead of a PFC fabric is one cable's propagation, 15 ns for 3 m: a few hundred events),
// so the barrier has to cost far less than a window's work: the waiters spin on the generation
// word, which the releasing store updates in one cache-line transfer, instead of sleeping in
// the kernel (std::barrier's futex wake-up took several microseconds per window here, as long
// as the window's work). With more threads than cores (the tests run 8 on 2) spinning would
// hold the cores the other threads need: then they wait in the kernel (atomic wait).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <thread>

namespace fabricsim {

class SpinBarrier {
 public:
  explicit SpinBarrier(uint32_t threads)
      : threads_(threads), sleep_(threads > std::max(1u, std::thread::hardware_concurrency())) {}
  SpinBarrier(const SpinBarrier&) = delete;
  SpinBarrier& operator=(const SpinBarrier&) = delete;

  template <class Completion>
  void arrive_and_wait(Completion&& completion) {
    const uint32_t gen = generation_.load(std::memory_order_acquire);
    if (arrived_.fetch_add(1, std::memory_order_acq_rel) + 1 == threads_) {
      completion();
      arrived_.store(0, std::memory_order_relaxed);
      generation_.store(gen + 1, std::memory_order_release);
      if (sleep_) generation_.notify_all();
      return;
    }
    if (sleep_) {  // more threads than cores: a spinning waiter would hold a core the others need
      generation_.wait(gen, std::memory_order_acquire);
      while (generation_.load(std::memory_order_acquire) == gen) {
        generation_.wait(gen, std::memory_order_acquire);
      }
      return;
    }
    for (uint32_t spins = 0; generation_.load(std::memory_order_acquire) == gen; ++spins) {
      if (spins < kSpins) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
      } else {
        std::this_thread::yield();
      }
    }
  }

 private:
  static constexpr uint32_t kSpins = 2000;
  const uint32_t threads_;
  const bool sleep_;  // more threads than cores: wait in the kernel (futex), not spinning
  alignas(64) std::atomic<uint32_t> arrived_{0};
  alignas(64) std::atomic<uint32_t> generation_{0};
};

}  // namespace fabricsim
