// Where a training step's time goes, for one rank R: step = compute + pipeline bubble + skew +
// exposed communication (by parallelism and by training phase), exactly, in integer ps
// (docs/training.md "Step breakdown"). Computed by TrainingEngine::result() from the executed
// DAG (workload/training_breakdown.cpp); generic over op kinds: it reads only ops' kinds,
// phases, ranks, communicators and their start/end times.
//
// Definitions (over [run start, run end], every step of the run):
// - The *binding predecessor* of an executed op X is what made it start when it did: for a
//   compute op whose rank's stream was busy when it became ready, the op that ran before it
//   on that stream; otherwise the dependency that finished last (at X's start; the first such
//   in dependency order on a tie). Roots have none. Following binding predecessors from an op
//   back to a root gives a chain of ops whose intervals tile [run start, the op's end] with no
//   gap: the op's critical path.
// - R's chain: the critical path from R's last op, then, after R's last op ends, the critical
//   path from the run's last op (what the run still waits for while R is done).
// - At every instant R computes, the time is *compute* (by the phase of R's op). While R is
//   idle the time goes to the op R's chain is in at that instant:
//     a collective or send   -> exposed communication, under the collective's parallelism
//                               (its op's Phase) and the training phase of the first compute
//                               op after it on the chain (the op that waited for it;
//                               the last one before it when none follows);
//     compute on a rank of another pipeline stage -> pipeline bubble;
//     compute on another rank of R's stage         -> skew (load imbalance between the
//                               stage's ranks; 0 for symmetric ranks on an ideal network).
//   A *stage* is a set of ranks joined by non-pipeline collectives (TP, DP, EP, ...):
//   union-find over the communicators of every collective whose phase is not
//   kPipelineParallel, numbered by lowest rank.
// On a network whose communication takes no time, 1F1B with uniform stages gives the last
// stage bubble (p-1)(f+b) of a (m+p-1)(f+b) step: the (p-1)/(m+p-1) of Narayanan et al.,
// SC'21 §2.2 (tests/workload/step_breakdown_test.cpp).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "workload/dag.h"

namespace fabricsim::workload {

inline constexpr int kPhases = static_cast<int>(Phase::kOther) + 1;

// The training phase a communication wait delays.
enum class StepPhase : uint8_t { kForward, kBackward, kOptimizer, kOther };
inline constexpr int kStepPhases = static_cast<int>(StepPhase::kOther) + 1;
const char* name(StepPhase p);  // "forward", "backward", "optimizer", "other"
// kForward -> forward; kInputGrad, kWeightGrad -> backward; kUpdate -> optimizer; else other.
StepPhase step_phase(Phase compute_phase);

struct StepBreakdown {
  int stage = -1;     // -1: the job's critical rank; else this pipeline stage's rank
  uint32_t rank = 0;  // R, job-local: the rank of most compute (of the job, or of the stage)
  int64_t span_ps = 0;     // = compute + bubble + skew + every comm_ps entry
  int64_t compute_ps = 0;  // R's compute-stream busy time
  int64_t bubble_ps = 0;
  int64_t skew_ps = 0;
  // [parallelism: the collective op's Phase][StepPhase]
  std::array<std::array<int64_t, kStepPhases>, kPhases> comm_ps{};

  int64_t exposed_comm_ps() const {
    int64_t sum = 0;
    for (const auto& row : comm_ps) {
      for (int64_t v : row) sum += v;
    }
    return sum;
  }
  // Every figure divided by `steps` (rounded down), the remainder of span (< the number of
  // figures, in ps) added to compute so that the parts still sum to span / steps exactly.
  StepBreakdown per_step(int steps) const;
};

// Stage of every job-local rank (the union-find above), numbered 0, 1, ... by lowest rank.
std::vector<uint32_t> pipeline_stages(const Dag& dag);

}  // namespace fabricsim::workload
