// The step breakdown of workload/step_breakdown.h: critical paths through the executed DAG and
// the attribution of each rank's idle time to what its chain was waiting for.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <utility>
#include <vector>

#include "workload/step_breakdown.h"
#include "workload/training.h"

namespace fabricsim::workload {

namespace {

constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

uint32_t find_root(std::vector<uint32_t>& parent, uint32_t x) {
  while (parent[x] != x) {
    parent[x] = parent[parent[x]];
    x = parent[x];
  }
  return x;
}

}  // namespace

const char* name(StepPhase p) {
  switch (p) {
    case StepPhase::kForward: return "forward";
    case StepPhase::kBackward: return "backward";
    case StepPhase::kOptimizer: return "optimizer";
    case StepPhase::kOther: return "other";
  }
  return "?";
}

StepPhase step_phase(Phase p) {
  switch (p) {
    case Phase::kForward: return StepPhase::kForward;
    case Phase::kInputGrad:
    case Phase::kWeightGrad: return StepPhase::kBackward;
    case Phase::kUpdate: return StepPhase::kOptimizer;
    default: return StepPhase::kOther;
  }
}

StepBreakdown StepBreakdown::per_step(int steps) const {
  StepBreakdown s = *this;
  if (steps <= 1) return s;
  s.span_ps = span_ps / steps;
  s.bubble_ps = bubble_ps / steps;
  s.skew_ps = skew_ps / steps;
  int64_t parts = s.bubble_ps + s.skew_ps;
  for (int p = 0; p < kPhases; ++p) {
    for (int q = 0; q < kStepPhases; ++q) {
      s.comm_ps[p][q] = comm_ps[p][q] / steps;
      parts += s.comm_ps[p][q];
    }
  }
  s.compute_ps = s.span_ps - parts;  // compute / steps plus the rounding remainder
  return s;
}

std::vector<uint32_t> pipeline_stages(const Dag& dag) {
  std::vector<uint32_t> parent(dag.ranks);
  std::iota(parent.begin(), parent.end(), 0u);
  std::vector<bool> joins(dag.groups.size(), false);
  for (const DagOp& op : dag.ops) {
    if (op.kind == DagOp::Kind::kCollective && op.phase != Phase::kPipelineParallel) {
      joins[dag.collectives[op.collective].group] = true;
    }
  }
  for (size_t g = 0; g < dag.groups.size(); ++g) {
    if (!joins[g] || dag.groups[g].empty()) continue;
    for (uint32_t r : dag.groups[g]) {
      const uint32_t a = find_root(parent, dag.groups[g].front());
      const uint32_t b = find_root(parent, r);
      // The lower root wins, so each set's root is its lowest rank.
      if (a != b) parent[std::max(a, b)] = std::min(a, b);
    }
  }
  std::vector<uint32_t> stage(dag.ranks, kNone);
  std::vector<uint32_t> of_root(dag.ranks, kNone);
  uint32_t next = 0;
  for (uint32_t r = 0; r < dag.ranks; ++r) {  // ascending: stages numbered by lowest rank
    const uint32_t root = find_root(parent, r);
    if (of_root[root] == kNone) of_root[root] = next++;
    stage[r] = of_root[root];
  }
  return stage;
}

void TrainingEngine::add_breakdowns(TrainingResult& r) const {
  const uint32_t n = ops_per_step_;
  const uint32_t total = total_ops();
  if (total == 0 || dag_.ranks == 0) return;
  for (uint32_t i = 0; i < total; ++i) {
    if (end_ps_[i] < 0) return;  // unfinished: no breakdown
  }
  const std::vector<uint32_t> stage = pipeline_stages(dag_);
  auto base = [&](uint32_t op) -> const DagOp& { return dag_.ops[op % n]; };

  // The binding predecessor (step_breakdown.h): the stream's previous op if it ended at the
  // op's start (the op was queued), else the first dependency ending then.
  auto binding = [&](uint32_t op) {
    const int64_t s = start_ps_[op];
    if (stream_prev_[op] != kNone && end_ps_[stream_prev_[op]] == s) {
      return stream_prev_[op];
    }
    uint32_t found = kNone;
    for_each_dep(op, [&](uint32_t d) {
      if (found == kNone && end_ps_[d] == s) found = d;
    });
    return found;
  };
  // The chain from `last` back to a root, latest first.
  auto chain_from = [&](uint32_t last) {
    std::vector<uint32_t> chain;
    for (uint32_t op = last; op != kNone; op = binding(op)) chain.push_back(op);
    return chain;
  };
  // Per chain entry, the training phase its communication is charged to: the first compute
  // op after it on the chain, else the last one before it.
  auto consumer_phases = [&](const std::vector<uint32_t>& chain) {
    std::vector<StepPhase> phase(chain.size(), StepPhase::kOther);
    size_t first = chain.size();  // the latest compute op of the chain (chain[0] is the latest)
    StepPhase after = StepPhase::kOther;
    for (size_t k = 0; k < chain.size(); ++k) {
      phase[k] = after;
      if (base(chain[k]).kind == DagOp::Kind::kCompute) {
        after = step_phase(base(chain[k]).phase);
        if (first == chain.size()) first = k;
      }
    }
    // Entries later than every compute op of the chain: the one before them.
    const StepPhase prior = first < chain.size() ? step_phase(base(chain[first]).phase)
                                                 : StepPhase::kOther;
    for (size_t k = 0; k < first; ++k) phase[k] = prior;
    return phase;
  };

  // The run's last op to end; on a tie the highest index, which no other tied op depends on
  // (dependencies have lower indices): the optimizer after its zero-time wait, not the
  // collective it waited for.
  uint32_t last_op = 0;
  for (uint32_t i = 1; i < total; ++i) {
    if (end_ps_[i] >= end_ps_[last_op]) last_op = i;
  }
  const std::vector<uint32_t> global = chain_from(last_op);
  const std::vector<StepPhase> global_phase = consumer_phases(global);

  auto breakdown_of = [&](uint32_t rank, int stage_index) {
    StepBreakdown b;
    b.stage = stage_index;
    b.rank = rank;
    b.span_ps = r.end_ps - r.start_ps;
    // R's compute intervals, sorted (disjoint: one op at a time), and its last op.
    std::vector<std::pair<int64_t, int64_t>> busy;
    uint32_t own_last = kNone;
    for (uint32_t i = 0; i < total; ++i) {
      const DagOp& op = base(i);
      if (op.kind != DagOp::Kind::kCompute || op.rank != rank) continue;
      busy.emplace_back(start_ps_[i], end_ps_[i]);
      b.compute_ps += end_ps_[i] - start_ps_[i];
      // The last to end, the highest index on a tie (as for the run's last op below).
      if (own_last == kNone || end_ps_[i] >= end_ps_[own_last]) own_last = i;
    }
    std::sort(busy.begin(), busy.end());
    std::vector<int64_t> before(busy.size() + 1, 0);
    for (size_t k = 0; k < busy.size(); ++k) {
      before[k + 1] = before[k] + busy[k].second - busy[k].first;
    }
    auto covered = [&](int64_t t) {  // R's compute in [run start, t)
      const auto it =
          std::upper_bound(busy.begin(), busy.end(), std::make_pair(t, INT64_MAX));
      const size_t k = static_cast<size_t>(it - busy.begin());
      if (k == 0) return int64_t{0};
      return before[k - 1] + std::min(t, busy[k - 1].second) - busy[k - 1].first;
    };
    // Charges R's idle time within [a, b) to what the chain's op `op` stands for.
    auto charge = [&](uint32_t op, StepPhase phase, int64_t a, int64_t b_end) {
      if (b_end <= a) return;
      const int64_t idle = (b_end - a) - (covered(b_end) - covered(a));
      if (idle == 0) return;
      const DagOp& o = base(op);
      if (o.kind == DagOp::Kind::kCollective) {
        b.comm_ps[static_cast<int>(o.phase)][static_cast<int>(phase)] += idle;
      } else if (stage[o.rank] != stage[rank]) {
        b.bubble_ps += idle;
      } else {
        b.skew_ps += idle;
      }
    };
    int64_t own_end = r.start_ps;
    if (own_last != kNone) {
      own_end = end_ps_[own_last];
      const std::vector<uint32_t> own = chain_from(own_last);
      const std::vector<StepPhase> phase = consumer_phases(own);
      for (size_t k = 0; k < own.size(); ++k) charge(own[k], phase[k], start_ps_[own[k]], end_ps_[own[k]]);
    }
    // After R's last op: the run's own critical path, clipped to [own_end, run end].
    for (size_t k = 0; k < global.size(); ++k) {
      const uint32_t op = global[k];
      charge(op, global_phase[k], std::max(start_ps_[op], own_end), end_ps_[op]);
    }
    return b;
  };

  r.critical = breakdown_of(r.critical_rank, -1);
  const uint32_t stages = stage.empty() ? 0 : *std::max_element(stage.begin(), stage.end()) + 1;
  for (uint32_t s = 0; s < stages; ++s) {
    uint32_t best = kNone;
    for (uint32_t rank = 0; rank < dag_.ranks; ++rank) {
      if (stage[rank] != s) continue;
      if (best == kNone || r.rank_compute_ps[rank] > r.rank_compute_ps[best]) best = rank;
    }
    r.stages.push_back(breakdown_of(best, static_cast<int>(s)));
  }
}

}  // namespace fabricsim::workload
