// The window loop of a partitioned run (core/partitions.h): partitions run their events in
// parallel up to a bound, then one thread runs the serial phase (mailboxes, the serial list's
// events, the end test) and sets the next bound.
//
// The end test. A sequential run stops right after the first event after which nothing is left
// to do (every message acknowledged, nothing in flight): the events after it (pending timers)
// never run, and they can change state (a pause that expires, a rate timer). A partitioned run
// must stop at the same event, though no partition sees the others' state inside a window. So
// once the serial side has nothing more to start, each partition stops ("parks") before its
// first event at which it is quiet itself (Model::quiet: nothing in its ports, nothing it owes).
// When every partition has parked and no mailbox holds anything, the run would have ended at
// T, the latest of their last events: every other partition then runs its own events before
// T (only timers: it is quiet), and if all are still quiet the run ends at T, exactly where the
// sequential run does. Otherwise (some partition did not park, a mailbox is not empty, or a
// timer up to T woke one) nothing ended in what has run, and the partitions go on, parking
// again, until the window's bound.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <limits>
#include <exception>
#include <thread>
#include <vector>

#include "core/partitions.h"
#include "core/spin_barrier.h"

namespace fabricsim {

enum class WindowsEnd {
  kDone,        // the end test held (Model::quiet everywhere, nothing in the mailboxes)
  kDrained,     // no event left anywhere
  kStopped,     // Model::serial returned false (a time limit)
  kInterrupted  // Model::check_in returned false
};
struct WindowsResult {
  WindowsEnd end = WindowsEnd::kDrained;
  int64_t end_ps = 0;  // the time of the last event run
  // Where the wall time went (docs/parallel.md's projection): windows run, and per partition
  // the seconds its thread spent running its events; the serial phases' seconds.
  int64_t windows = 0;
  std::vector<double> busy_seconds;
  double serial_seconds = 0;
};

// Model (duck-typed; each call made as described, never concurrently for one partition):
//   void handle(const Event&)  a partition's event, on the thread running that partition
//   bool serial(const Event&)  a serial event, in the serial phase; false ends the run there
//   size_t join()              serial phase: the model's own cross-partition items (cable
//                              frames) into their partitions; returns how many
//   size_t crossing() const    serial phase: how many such items wait (not yet joined)
//   void settle()              serial phase, first: what the model defers to the barrier
//                              without an effect on the run's course (accounting)
//   bool quiet(uint32_t p)     partition p has nothing in flight and owes nothing
//   bool serial_quiet()        the serial side will start nothing more (the end test may hold)
//   bool check_in()            serial phase, once per window: false stops the run
// `threads` threads (the calling one included) run the partitions, partition p on thread
// p % threads. The first exception a handler threw is rethrown, the lowest partition's first.
template <class Model>
WindowsResult run_windows(Partitions& parts, Scheduler& sched, Model& model, uint32_t threads) {
  const uint32_t n = parts.count();
  threads = std::max<uint32_t>(1, std::min(threads, n));
  enum class Phase { kRun, kExit };
  Phase phase = Phase::kRun;
  bool park_mode = false;
  std::vector<uint8_t> parked(n, 0);
  std::vector<EventKey> last_key(n, EventKey{-1, 0});  // the last event each partition ran
  EventKey last_serial{-1, 0};
  std::atomic<bool> abort{false};
  std::exception_ptr serial_error;
  WindowsResult result;
  bool first = true;
  int64_t ran_before = -1;  // partition events run when the last window was set

  std::vector<double> busy(n, 0.0);
  auto run_part = [&](uint32_t p, bool allow_park, EventKey bound) {
    Partitions::Part& part = parts.part(p);
    set_current_partition(p);
    bool park = false;
    const auto t0 = std::chrono::steady_clock::now();
    try {
      run_below(
          part.queue, part.now_ps, bound, part.events,
          [&](const Event& ev) {
            last_key[p] = key_of(ev);
            model.handle(ev);
          },
          [&] {
            if (abort.load(std::memory_order_relaxed)) return true;
            if (allow_park && model.quiet(p)) {
              park = true;
              return true;
            }
            return false;
          });
    } catch (...) {
      if (!part.error) part.error = std::current_exception();
      abort.store(true);
    }
    parked[p] = park ? 1 : 0;
    busy[p] += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };

  // The time of the last event run anywhere (where an interrupted or drained run ends).
  auto last_time = [&] {
    int64_t t = sched.now_ps;
    for (const EventKey& k : last_key) t = std::max(t, k.time_ps);
    return t;
  };
  // The serial phase: decides what the partitions do next (or that the run ends).
  double serial_seconds = 0;
  int64_t windows = 0;
  auto serial_phase = [&]() noexcept {
    const auto t0 = std::chrono::steady_clock::now();
    struct Timed {  // adds the phase's time however it returns
      double& total;
      std::chrono::steady_clock::time_point t0;
      ~Timed() {
        total += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      }
    } timed{serial_seconds, t0};
    ++windows;
    struct Serial {  // the serial phase's partition index, the thread's own back however it ends
      uint32_t saved = current_partition();
      explicit Serial(uint32_t serial) { set_current_partition(serial); }
      ~Serial() { set_current_partition(saved); }
    } serial_scope{parts.serial()};
    auto finish = [&](WindowsEnd end, int64_t end_ps) {
      result.end = end;
      result.end_ps = end_ps;
      phase = Phase::kExit;
    };
    try {
      if (abort.load()) {
        phase = Phase::kExit;
        return;
      }
      model.settle();
      if (!first && park_mode) {
        const bool any_parked = std::any_of(parked.begin(), parked.end(), [](uint8_t b) { return b; });
        const bool all_parked = std::all_of(parked.begin(), parked.end(), [](uint8_t b) { return b; });
        if (all_parked && parts.mailbox_events() == 0 && model.crossing() == 0) {
          EventKey t = last_serial;
          uint32_t t_part = n;  // whose event t is (n: the serial list's)
          for (uint32_t p = 0; p < n; ++p) {
            if (t < last_key[p]) {
              t = last_key[p];
              t_part = p;
            }
          }
          // Every other partition's events before t. Not t's own: those it pushed at t's
          // instant with smaller keys run after t in the sequential run (EventQueue's late
          // events), and any other would have run before t in its own list.
          bool quiet = true;
          for (uint32_t p = 0; p < n; ++p) {
            if (p != t_part) run_part(p, false, t);
            set_current_partition(parts.serial());
            quiet = quiet && model.quiet(p);
          }
          if (abort.load()) {
            phase = Phase::kExit;
          } else if (quiet && parts.mailbox_events() == 0 && model.crossing() == 0) {
            finish(WindowsEnd::kDone, t.time_ps);
          } else {
            phase = Phase::kRun;  // not over: go on to the bound, parking again
          }
          return;
        }
        if (any_parked) {
          // Some partition never became quiet in this window, or frames are crossing: nothing
          // ends in it. The parked ones go on to the bound (parking would only stop them again).
          park_mode = false;
          phase = Phase::kRun;
          return;
        }
      }
      first = false;
      // The window is complete: every partition reached the bound.
      parts.join_mailboxes();
      model.join();
      if (!model.check_in()) {
        finish(WindowsEnd::kInterrupted, last_time());
        return;
      }
      for (;;) {
        const EventKey s = peek_key(sched.queue);
        // The partitions' earliest key exactly only when a serial event may come before the
        // next window's end: otherwise a lower bound (no scan) starts the window as well.
        // Events before the last bound have all run, so it is a lower bound too; a window in
        // which nothing ran (an idle stretch) takes the exact key, so that idle time is
        // skipped in one step instead of lookahead by lookahead.
        const int64_t ran = parts.events();
        int64_t lb = parts.partition_time_lower_bound();
        if (parts.bound() != kNoEventKey) lb = std::max(lb, parts.bound().time_ps);
        const bool exact = ran == ran_before || s.time_ps <= lb ||
                           s.time_ps - lb <= parts.lookahead_ps() ||
                           lb == std::numeric_limits<int64_t>::max();
        ran_before = ran;
        const EventKey e = exact ? parts.earliest_partition_key() : EventKey{lb, 0};
        if (s == kNoEventKey && e == kNoEventKey) {
          finish(WindowsEnd::kDrained, last_time());
          return;
        }
        if (s < e) {
          const Event ev = sched.queue.pop();
          sched.now_ps = ev.time_ps;
          last_serial = key_of(ev);
          if (!model.serial(ev)) {
            finish(WindowsEnd::kStopped, ev.time_ps);
            return;
          }
          continue;
        }
        parts.set_bound(parts.window_bound(e, s));
        break;
      }
      park_mode = model.serial_quiet();
      phase = Phase::kRun;
    } catch (...) {
      serial_error = std::current_exception();
      abort.store(true);
      phase = Phase::kExit;
    }
  };

  // park_mode is re-read by the workers after each barrier: a window where it was turned off
  // (some partition did not park) runs the parked ones on without parking.
  SpinBarrier sync(threads);
  auto worker = [&](uint32_t w) {
    for (;;) {
      sync.arrive_and_wait(serial_phase);
      if (phase == Phase::kExit) break;
      const bool allow_park = park_mode;
      const EventKey bound = parts.bound();
      for (uint32_t p = w; p < n; p += threads) run_part(p, allow_park, bound);
    }
    set_current_partition(0);
  };
  std::vector<std::thread> pool;
  pool.reserve(threads - 1);
  for (uint32_t w = 1; w < threads; ++w) pool.emplace_back(worker, w);
  worker(0);
  for (std::thread& t : pool) t.join();
  set_current_partition(0);
  result.windows = windows;
  result.busy_seconds = busy;
  result.serial_seconds = serial_seconds;
  if (serial_error) std::rethrow_exception(serial_error);
  for (uint32_t p = 0; p < n; ++p) {
    if (parts.part(p).error) std::rethrow_exception(parts.part(p).error);
  }
  return result;
}

}  // namespace fabricsim
