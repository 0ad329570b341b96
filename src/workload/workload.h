// Traffic the scenario asks for, driven into the transport.
//
// Patterns (permutation, incast, all-to-all, Poisson) are lists of planned flows posted at their
// start times (one pending event: the next start). The ring all-reduce is event-driven: a slice
// moves to the next ring step as soon as it has been delivered.
#pragma once

#include <cstdint>
#include <vector>

#include <memory>

#include "core/rng.h"
#include "core/scheduler.h"
#include "transport/transport.h"
#include "workload/ping_pong.h"
#include "workload/workload_spec.h"

namespace fabricsim::workload {

struct PlannedFlow {
  int64_t start_ps = 0;
  uint32_t src = 0;
  uint32_t dst = 0;
  int64_t size_bytes = 0;
  int sl = -1;  // InfiniBand service level; -1 = the fabric's
};

// The mean flow size in bytes of the spec's size distribution: flow_size, or the mean of the
// piecewise-linear size_cdf as the Poisson pattern draws from it. The Poisson arrival rate, the
// input ranges (resolve/ranges.h) and the memory estimate (preflight/resources.h) all use it.
double mean_size(const WorkloadSpec& spec);

// Throws InputError naming the workload.* key when the spec cannot run on `num_nics` NICs;
// `gpu_ranks`: the scenario has GPUs (node.gpus_per_node > 0), so collectives and training run
// on the GPU layer rather than on the NICs.
void check(const WorkloadSpec& spec, int num_nics, bool gpu_ranks = false);

// The flows of a traffic pattern (not the collective), sorted by start time. Deterministic for
// a given seed.
std::vector<PlannedFlow> plan_pattern(const WorkloadSpec& spec, int num_nics, int64_t nic_rate_bps,
                                      uint64_t seed);

class Workload {
 public:
  Workload(const WorkloadSpec& spec, int num_nics, int64_t nic_rate_bps, uint64_t seed,
           transport::Transport& transport, Scheduler& sched);

  void start();
  void on_flow_start();
  void on_delivered(uint32_t msg);

  // Every message the workload will ever post has been posted.
  bool all_posted() const {
    if (ping_pong_) return ping_pong_->done();  // each round trip posts the next
    return is_collective() ? ring_remaining_ == 0 : next_planned_ == planned_.size();
  }
  // Messages the whole workload posts (for progress reporting).
  uint64_t total_messages() const;
  // Their payload summed for a flow pattern (0 for a collective or ping-pong, whose messages are
  // all alike): a progress line counts bytes, so one large flow weighs as much as it takes.
  int64_t total_pattern_bytes() const;
  bool is_collective() const { return spec_.kind == WorkloadKind::kCollective; }
  bool collective_done() const { return ring_remaining_ == 0; }
  int64_t collective_end_ps() const { return ring_end_ps_; }
  int ranks() const { return num_nics_; }
  // pattern: ping_pong (nullptr otherwise).
  const PingPong* ping_pong() const { return ping_pong_.get(); }

 private:
  void post_ring_slice(uint32_t rank, uint32_t step, uint32_t slice);

  WorkloadSpec spec_;
  int num_nics_;
  transport::Transport& transport_;
  Scheduler& sched_;
  std::vector<PlannedFlow> planned_;
  size_t next_planned_ = 0;
  // ring all-reduce
  uint32_t ring_steps_ = 0;   // 2(n-1)
  uint32_t ring_slices_ = 0;  // slices per chunk
  uint64_t ring_remaining_ = 0;
  int64_t ring_end_ps_ = -1;
  std::unique_ptr<PingPong> ping_pong_;  // pattern: ping_pong
};

}  // namespace fabricsim::workload
