// The workload of a GPU scenario (node.gpus_per_node > 0): one or more jobs, each a collective
// (or an nccl-tests size sweep) or a training step, on its own GPUs, all sharing one collective
// engine over the node layer (node::RankTransport). Runs per collective and per op, never per
// packet.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "node/rank_transport.h"
#include "results/result.h"
#include "spec/scenario.h"
#include "workload/collective_engine.h"
#include "workload/trace_recorder.h"
#include "workload/training.h"

namespace fabricsim::scenario {

// A workload-layer breakdown as result.json reports it (the non-zero comm cells).
StepBreakdownResult breakdown_result(const workload::StepBreakdown& b);

class GpuWorkload {
 public:
  // Builds every job (placement, DAGs); throws InputError naming the key at fault.
  // `leaf_of_node`: the leaf switch (slot) of each node's first NIC, for scattered placement.
  GpuWorkload(const Scenario& sc, node::RankTransport& rt,
              const std::vector<uint32_t>& leaf_of_node);
  GpuWorkload(const GpuWorkload&) = delete;
  GpuWorkload& operator=(const GpuWorkload&) = delete;

  void start();
  // Every job has finished.
  bool done() const { return jobs_done_ == jobs_.size(); }
  // Progress: finished units (collectives of sweeps, ops of training DAGs) out of the total.
  uint64_t total_units() const { return total_units_; }
  uint64_t finished_units() const { return finished_units_; }
  // The share of the run's work done, 0..1, for the progress line: the work of its collectives
  // (CollectiveEngine::progress_units: bytes across the fabric in 4 KiB packets, a fixed weight
  // for one inside a node) plus one unit per training op, done over what is known up front.
  // A step whose DP all-reduce is left has most of its work left, however few ops that is.
  double progress_fraction() const;
  struct Work {
    double done = 0;
    double total = 0;
  };
  Work progress_work() const;
  // Jobs, their collective rows and training results; the first collective also goes to
  // r.collective (so compare and the summary show it as before).
  void fill(RunResult& r) const;
  // outputs.trace: the collectives' spans recorded so far plus every rank's compute spans;
  // anything still running ends at `end_ps`, marked unfinished. Moves the log out (once).
  void take_trace(workload::TraceLog& out, int64_t end_ps);

 private:
  struct Job {
    std::string name;
    std::string placement;
    std::vector<uint32_t> gpus;  // job rank -> GPU
    workload::WorkloadSpec spec;
    std::vector<int64_t> sizes;        // collective: the sweep's sizes
    std::vector<uint32_t> coll_ids;    // collective: engine ids of the sizes started so far
    std::unique_ptr<workload::TrainingEngine> training;
    std::string training_source;
    double training_flops = 0;  // generator: model FLOPs of the step
    double samples = 0;         // generator: global batch (samples per step)
    uint64_t units_counted = 0;  // training ops already counted in finished_units_
    bool finished = false;
    int64_t start_ps = 0;
    int64_t end_ps = -1;
  };
  // The job's collective at one size of its sweep, over its GPUs.
  static workload::CollectiveSpec collective_spec(const Job& job, int64_t size);
  void start_size(uint32_t job, size_t index);
  void on_collective_done(uint32_t job, size_t index);
  void finish_job(uint32_t job);
  void poll_training();  // counts finished training ops, notes training jobs that ended
  // Adds a training DAG's collectives' progress units (x steps) to total_collective_units_.
  void add_dag_units(const workload::Dag& dag, const std::vector<uint32_t>& gpus, uint32_t gpn,
                     int steps);

  node::RankTransport& rt_;
  workload::CollectiveEngine coll_;
  std::vector<Job> jobs_;
  size_t jobs_done_ = 0;
  uint64_t total_units_ = 0;
  uint64_t finished_units_ = 0;
  double total_collective_units_ = 0;  // every collective's progress_units, x steps
  std::unique_ptr<workload::TraceRecorder> trace_;  // outputs.trace.enabled
};

}  // namespace fabricsim::scenario
