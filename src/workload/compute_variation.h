// Stragglers and per-op compute variation of a training job (training.straggler_*,
// training.compute_jitter; docs/training.md "Stragglers and compute variation"): what turns a
// DAG compute op's nominal duration into the time it occupies its rank's compute stream.
//
// - Stragglers: the named job-local ranks compute `straggler_slowdown` times slower (a GPU at a
//   lower clock, a thermally throttled or a degraded part), for ops that start at or after
//   `straggler_from_ps` (0: the whole run), so throttling that sets in at a time is the same
//   knob with a start. An op that started before the time keeps its nominal duration.
// - Jitter: each compute op's duration is multiplied by a lognormal factor exp(sigma Z -
//   sigma^2 / 2), Z standard normal, whose mean is 1: the step's expected compute is unchanged
//   and only its spread, and with it the waiting at every synchronisation, grows. Drawn from
//   (seed, op index) alone, so a run is identical whatever order the ops run in.
//
// Per op (once per compute op start), never per packet.
#pragma once

#include <cstdint>
#include <vector>

namespace fabricsim::workload {

struct ComputeVariation {
  std::vector<int> straggler_ranks;  // job-local ranks
  double straggler_slowdown = 1.0;       // compute-time multiplier on those ranks (> 0)
  int64_t straggler_from_ps = 0;
  double jitter_sigma = 0.0;             // 0: no jitter

  bool any() const {
    return (!straggler_ranks.empty() && straggler_slowdown != 1.0) || jitter_sigma > 0;
  }
};

// The variation of one job, ready to apply: the rank set as a bitmap and the seed.
class ComputeVariationModel {
 public:
  ComputeVariationModel() = default;
  // Throws InputError (training.straggler_ranks) on a rank outside [0, ranks).
  ComputeVariationModel(const ComputeVariation& v, uint32_t ranks, uint64_t seed);

  // The time expanded op `op` of `rank`, nominally `nominal_ps`, takes when it starts at
  // `start_ps`; at least 0, rounded to the picosecond.
  int64_t duration_ps(uint32_t rank, uint64_t op, int64_t nominal_ps, int64_t start_ps) const;

  bool active() const { return active_; }

 private:
  bool active_ = false;
  std::vector<uint8_t> slow_;
  double slowdown_ = 1.0;
  int64_t from_ps_ = 0;
  double sigma_ = 0.0;
  uint64_t seed_ = 0;
};

}  // namespace fabricsim::workload
