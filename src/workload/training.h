// Runs a training step (a workload::Dag) for one job: compute ops on per-rank compute streams,
// collectives on a CollectiveRunner, dependencies released as ops finish (docs/training.md).
//
// Stream semantics: a rank's compute ops run one at a time, in the order they became ready
// (FIFO, as kernels queued on one CUDA stream); collectives run on their own (NCCL's stream) and
// overlap compute. A collective is issued when all its dependencies are done, i.e. when every
// rank of its group reached it, and starts when its communicator is free: the collectives of one
// communicator run one at a time, in the order they were issued, as NCCL kernels queued on the
// communicator's one stream do (PyTorch's ProcessGroupNCCL keeps one NCCL stream per device and
// process group; CUDA runs a stream's kernels in order). Different communicators overlap. Per-op
// work only: nothing here runs per message or per packet.
#pragma once

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "node/rank_transport.h"
#include "workload/collective.h"
#include "workload/compute_variation.h"
#include "workload/dag.h"
#include "workload/step_breakdown.h"

namespace fabricsim::workload {

inline constexpr int kCollOps = static_cast<int>(CollOp::kSend) + 1;

// Replaces kAuto in a DagCollective (the scenario's collective settings); channels 0 = the
// runner's default.
struct CollectiveDefaults {
  CollAlgorithm algorithm = CollAlgorithm::kAuto;
  Protocol protocol = Protocol::kAuto;
  int channels = 0;
};

struct TrainingResult {
  int steps = 0;
  int64_t start_ps = 0;
  int64_t end_ps = 0;
  int64_t total_ps = 0;                  // end - start over all steps
  int64_t step_ps = 0;                   // total / steps (each step = start to its last op's end)
  std::vector<int64_t> step_end_ps;      // when each step's last op ended
  std::vector<int64_t> rank_compute_ps;  // compute-stream busy time per job-local rank
  uint32_t critical_rank = 0;            // the rank with the most compute
  int64_t compute_ps = 0;                // its compute time
  int64_t exposed_comm_ps = 0;           // total - compute: time the critical rank is not computing
  std::array<int64_t, kPhases> compute_by_phase_ps{};  // critical rank
  // Collectives by the phase of their op: summed durations, the part of each collective's
  // interval not overlapped by the critical rank's compute (collectives that overlap each other
  // count once each), count and size_bytes.
  std::array<int64_t, kPhases> comm_ps{};
  std::array<int64_t, kPhases> comm_not_overlapped_ps{};
  std::array<int64_t, kPhases> comm_count{};
  std::array<int64_t, kPhases> comm_bytes{};
  std::array<int64_t, kCollOps> op_count{};
  std::array<int64_t, kCollOps> op_bytes{};
  // Per op of the expanded DAG (steps x Dag::ops, step-major): start and end, -1 = never ran.
  std::vector<int64_t> op_start_ps;
  std::vector<int64_t> op_end_ps;
  // Where the time of the whole run went (workload/step_breakdown.h; StepBreakdown::per_step
  // for one step): for the critical rank, and for the rank of most compute of each pipeline
  // stage (stage 0 first). Empty stages and a zero `critical` when some op never ran.
  StepBreakdown critical;
  std::vector<StepBreakdown> stages;
};

class TrainingEngine {
 public:
  // `placement[r]` = the global GPU of job-local rank r (placement.size() == dag.ranks).
  // Timers use cookies >= kForeignCookie carrying job_id; the owner of `transport` routes a
  // timer cookie for which owns_cookie() is true, and cookie_job() == job_id, to on_timer().
  // steps > 1 repeats the DAG; step k+1's root ops on rank r wait for step k's kUpdate ops on r
  // (all of step k's ops on r when the DAG has no kUpdate op there).
  // Throws InputError (key "training") on an inconsistent DAG or placement.
  TrainingEngine(Dag dag, std::vector<uint32_t> placement, CollectiveRunner& runner,
                 node::RankTransport& transport, uint32_t job_id, CollectiveDefaults defaults = {},
                 int steps = 1);

  // Stragglers and jitter (workload/compute_variation.h); call before start().
  void set_compute_variation(ComputeVariationModel model) { variation_ = std::move(model); }
  // Starts the step(s) now (transport.now_ps()).
  void start();
  void on_timer(uint64_t cookie);

  static bool owns_cookie(uint64_t cookie) { return cookie >= kForeignCookie; }
  static uint32_t cookie_job(uint64_t cookie) {
    return static_cast<uint32_t>((cookie - kForeignCookie) >> 32);
  }

  bool done() const { return finished_ == total_ops(); }
  uint32_t finished_ops() const { return finished_; }
  uint32_t total_ops() const { return static_cast<uint32_t>(kind_.size()); }
  // REQUIRES: done().
  TrainingResult result() const;
  // The runner's id of a collective op of the expanded DAG (its CollectiveRecord), -1 when the
  // op is compute or moved nothing (a one-rank group or zero bytes).
  int64_t runner_id(uint32_t op) const { return runner_id_[op]; }
  // The DAG of one step and the expanded ops' times so far (-1 = not started / not ended), for
  // trace.json's compute spans; valid before done() too.
  const Dag& dag() const { return dag_; }
  int64_t op_start_ps(uint32_t op) const { return start_ps_[op]; }
  int64_t op_end_ps(uint32_t op) const { return end_ps_[op]; }

 private:
  void expand(int steps);
  void make_ready(uint32_t op);
  void try_start_rank(uint32_t rank);
  void start_collective(uint32_t op);
  void launch_collective(uint32_t op);  // its communicator is free: hand it to the runner
  void release_communicator(uint32_t op);
  void complete(uint32_t op);
  void drain();
  // Fills r.critical and r.stages (workload/training_breakdown.cpp). REQUIRES: done().
  void add_breakdowns(TrainingResult& r) const;
  // Calls f(dep) for every dependency of expanded op `idx` (its step's copy of the DAG's, and
  // for a root of step k > 0 the carry ops of step k - 1).
  template <typename F>
  void for_each_dep(uint64_t idx, F&& f) const {
    const uint32_t n = ops_per_step_;
    const uint32_t step = static_cast<uint32_t>(idx / n);
    const uint32_t o = static_cast<uint32_t>(idx % n);
    const DagOp& op = dag_.ops[o];
    const uint32_t base = step * n;
    for (uint32_t d = 0; d < op.num_deps; ++d) f(base + dag_.deps[op.first_dep + d]);
    if (step == 0 || op.num_deps != 0) return;
    const uint32_t prev = base - n;
    if (op.kind == DagOp::Kind::kCompute) {
      for (uint32_t c : carry_[op.rank]) f(prev + c);
    } else {
      for (uint32_t r : dag_.groups[dag_.collectives[op.collective].group]) {
        for (uint32_t c : carry_[r]) f(prev + c);
      }
    }
  }

  Dag dag_;
  std::vector<uint32_t> placement_;
  CollectiveRunner& runner_;
  node::RankTransport& transport_;
  uint32_t job_id_;
  CollectiveDefaults defaults_;
  int steps_;
  uint32_t ops_per_step_;

  // Expanded DAG, flat per-op state (index = step * ops_per_step_ + op).
  std::vector<DagOp::Kind> kind_;
  std::vector<uint32_t> remaining_deps_;
  std::vector<uint32_t> dependents_begin_;  // CSR of dependents
  std::vector<uint32_t> dependents_;
  std::vector<uint32_t> roots_;
  std::vector<int64_t> start_ps_;
  std::vector<int64_t> end_ps_;
  std::vector<int64_t> runner_id_;  // collectives: the runner's id, -1 = none
  // The op issued before on the same stream (kIdle = none): a compute op's rank stream, a
  // collective's communicator; the breakdown's binding predecessor when the stream was busy.
  std::vector<uint32_t> stream_prev_;
  std::vector<uint32_t> last_ran_;                 // per rank: its stream's latest op
  std::vector<std::vector<uint32_t>> carry_;       // per rank: base ops step k+1 waits on

  // A stream's ops waiting their turn, first in first out; emptied in place when drained.
  struct OpFifo {
    std::vector<uint32_t> ops;
    size_t head = 0;
    bool empty() const { return head == ops.size(); }
    void push(uint32_t op) { ops.push_back(op); }
    uint32_t pop() {
      const uint32_t op = ops[head++];
      if (head == ops.size()) ops.clear(), head = 0;
      return op;
    }
  };
  // Per rank compute stream: FIFO of ready ops, the running op (UINT32_MAX = idle).
  std::vector<OpFifo> ready_;
  std::vector<uint32_t> running_;
  // Per communicator (Dag::groups): the collective running on it (kIdle = none), the FIFO of
  // those issued behind it, and the latest issued (stream_prev_ of the next).
  struct CommStream {
    uint32_t running;
    uint32_t last;
    OpFifo queue;
  };
  std::vector<CommStream> comm_;
  ComputeVariationModel variation_;  // inactive: every op its nominal duration

  std::vector<uint32_t> pending_;  // finished ops whose dependents are not released yet
  bool draining_ = false;
  uint32_t finished_ = 0;
  int64_t start_time_ps_ = 0;
};

}  // namespace fabricsim::workload
