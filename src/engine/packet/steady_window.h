// Per-flow goodput over a steady window in which every flow is active: the way multipath
// transport papers report permutation throughput (MPTCP, NSDI 2011 §5; NDP, SIGCOMM 2017 §6),
// rather than tail completion times, which one slow flow dominates.
//
// The window ends when the first flow completes (after that not every flow is active) and
// starts after the last flow started plus a warm-up: half the time from the last start to the
// end, so slow start, the first congestion reactions and path exploration stay outside it.
// Per flow, goodput = payload the receiver kept (MessageRecord::placed_bytes, each byte once)
// during the window / the window's length.
//
// Off the hot path: a sampler event copies every flow's placed_bytes at an interval; at most
// kMaxSnapshots are kept, and when they are full every other one is dropped and the interval
// doubles, so memory is kMaxSnapshots x flows x 8 bytes whatever the run's length and the
// window's start is resolved to within 1/32 of the time sampled. Opt-in
// (outputs.steady_window: true).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/scheduler.h"
#include "results/result.h"
#include "transport/transport.h"

namespace fabricsim::scenario {

class SteadyWindow {
 public:
  static constexpr int kMaxSnapshots = 64;
  // The first sample interval: 1 us resolves windows of tens of microseconds upward.
  static constexpr int64_t kFirstIntervalPs = 1'000'000;

  // `flows`: how many messages the workload posts in all (all must be posted before the window).
  SteadyWindow(const transport::Transport& transport, Scheduler& sched, int64_t line_rate_bps,
               uint64_t flows);
  void start();           // schedules the first sample (call after the workload posted)
  void on_sample();       // a kWindowSample event
  void on_completion();   // a flow completed; the first one closes the window
  SteadyWindowResult result() const;
  static int64_t bytes_per_flow() { return kMaxSnapshots * 8; }

 private:
  struct Snapshot {
    int64_t time_ps;
    std::vector<int64_t> placed;  // per message id, at time_ps
  };
  Snapshot take() const;
  const transport::Transport& transport_;
  Scheduler& sched_;
  int64_t line_rate_bps_;
  uint64_t flows_;
  int64_t interval_ps_ = kFirstIntervalPs;
  std::vector<Snapshot> snaps_;
  bool closed_ = false;
  Snapshot end_;
};

}  // namespace fabricsim::scenario
