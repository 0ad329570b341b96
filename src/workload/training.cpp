#include "workload/training.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>

#include "core/error.h"

namespace fabricsim::workload {

namespace {

constexpr uint32_t kIdle = std::numeric_limits<uint32_t>::max();
constexpr char kKey[] = "training";

[[noreturn]] void bad(const std::string& message) { throw InputError(kKey, message); }

}  // namespace

TrainingEngine::TrainingEngine(Dag dag, std::vector<uint32_t> placement, CollectiveRunner& runner,
                               node::RankTransport& transport, uint32_t job_id,
                               CollectiveDefaults defaults, int steps)
    : dag_(std::move(dag)),
      placement_(std::move(placement)),
      runner_(runner),
      transport_(transport),
      job_id_(job_id),
      defaults_(defaults),
      steps_(steps),
      ops_per_step_(static_cast<uint32_t>(dag_.ops.size())) {
  if (steps < 1) bad("steps must be >= 1, got " + std::to_string(steps));
  if (job_id >= (1u << 31)) bad("job id too large for a timer cookie");
  if (placement_.size() != dag_.ranks) {
    bad("the placement has " + std::to_string(placement_.size()) + " GPUs for a DAG of " +
        std::to_string(dag_.ranks) + " ranks");
  }
  for (uint32_t gpu : placement_) {
    if (gpu >= transport_.gpus()) {
      bad("placement names GPU " + std::to_string(gpu) + " of a machine with " +
          std::to_string(transport_.gpus()));
    }
  }
  for (const auto& group : dag_.groups) {
    for (uint32_t r : group) {
      if (r >= dag_.ranks) bad("a communicator names rank " + std::to_string(r));
    }
  }
  for (const DagCollective& c : dag_.collectives) {
    if (c.group >= dag_.groups.size()) bad("a collective names a missing communicator");
    if (c.size_bytes < 0) bad("a collective has a negative size");
  }
  for (uint32_t i = 0; i < ops_per_step_; ++i) {
    const DagOp& op = dag_.ops[i];
    if (op.kind == DagOp::Kind::kCompute) {
      if (op.rank >= dag_.ranks) bad("op " + std::to_string(i) + " runs on a missing rank");
      if (op.duration_ps < 0) bad("op " + std::to_string(i) + " has a negative duration");
    } else if (op.collective >= dag_.collectives.size()) {
      bad("op " + std::to_string(i) + " names a missing collective");
    }
    if (static_cast<size_t>(op.first_dep) + op.num_deps > dag_.deps.size()) {
      bad("op " + std::to_string(i) + " has dependencies past the list");
    }
    for (uint32_t d = 0; d < op.num_deps; ++d) {
      if (dag_.deps[op.first_dep + d] >= i) {
        bad("op " + std::to_string(i) + " depends on a later op");
      }
    }
  }
  if (static_cast<uint64_t>(ops_per_step_) * static_cast<uint64_t>(steps) >= kIdle) {
    bad("steps x ops exceeds 2^32");
  }
  expand(steps);
}

// Builds the flat per-op state of `steps` copies of the DAG. Step k+1's roots on rank r depend
// on step k's kUpdate ops on r (or, without any, all of step k's compute ops on r); a root
// collective depends on those of every rank of its group.
void TrainingEngine::expand(int steps) {
  const uint32_t n = ops_per_step_;
  const uint64_t total = static_cast<uint64_t>(n) * static_cast<uint64_t>(steps);
  carry_.assign(dag_.ranks, {});
  {
    std::vector<std::vector<uint32_t>> all(dag_.ranks);
    for (uint32_t i = 0; i < n; ++i) {
      const DagOp& op = dag_.ops[i];
      if (op.kind != DagOp::Kind::kCompute) continue;
      all[op.rank].push_back(i);
      if (op.phase == Phase::kUpdate) carry_[op.rank].push_back(i);
    }
    for (uint32_t r = 0; r < dag_.ranks; ++r) {
      if (carry_[r].empty()) carry_[r] = std::move(all[r]);
    }
  }

  kind_.resize(total);
  remaining_deps_.assign(total, 0);
  dependents_begin_.assign(total + 1, 0);
  for (uint64_t i = 0; i < total; ++i) {
    kind_[i] = dag_.ops[i % n].kind;
    for_each_dep(i, [&](uint32_t dep) {
      ++remaining_deps_[i];
      ++dependents_begin_[dep + 1];
    });
    if (remaining_deps_[i] == 0) roots_.push_back(static_cast<uint32_t>(i));
  }
  for (uint64_t i = 0; i < total; ++i) dependents_begin_[i + 1] += dependents_begin_[i];
  dependents_.resize(dependents_begin_[total]);
  std::vector<uint32_t> fill(dependents_begin_.begin(), dependents_begin_.end() - 1);
  for (uint64_t i = 0; i < total; ++i) {
    for_each_dep(i, [&](uint32_t dep) { dependents_[fill[dep]++] = static_cast<uint32_t>(i); });
  }
  start_ps_.assign(total, -1);
  end_ps_.assign(total, -1);
  runner_id_.assign(total, -1);
  stream_prev_.assign(total, kIdle);
  last_ran_.assign(dag_.ranks, kIdle);
  ready_.assign(dag_.ranks, {});
  running_.assign(dag_.ranks, kIdle);
  comm_.assign(dag_.groups.size(), CommStream{kIdle, kIdle, {}});
}

void TrainingEngine::start() {
  start_time_ps_ = transport_.now_ps();
  draining_ = true;
  for (uint32_t op : roots_) make_ready(op);
  draining_ = false;
  drain();
}

void TrainingEngine::on_timer(uint64_t cookie) {
  complete(static_cast<uint32_t>(cookie & 0xffff'ffffu));
}

void TrainingEngine::make_ready(uint32_t op) {
  const DagOp& base = dag_.ops[op % ops_per_step_];
  if (base.kind == DagOp::Kind::kCompute) {
    ready_[base.rank].push(op);
    try_start_rank(base.rank);
  } else {
    start_collective(op);
  }
}

void TrainingEngine::try_start_rank(uint32_t rank) {
  if (running_[rank] != kIdle) return;
  if (ready_[rank].empty()) return;
  const uint32_t op = ready_[rank].pop();
  running_[rank] = op;
  stream_prev_[op] = last_ran_[rank];
  last_ran_[rank] = op;
  start_ps_[op] = transport_.now_ps();
  const uint64_t cookie = kForeignCookie + (static_cast<uint64_t>(job_id_) << 32) + op;
  transport_.timer(variation_.duration_ps(rank, op, dag_.ops[op % ops_per_step_].duration_ps,
                                          start_ps_[op]),
                   cookie);
}

void TrainingEngine::start_collective(uint32_t op) {
  const DagCollective& c = dag_.collectives[dag_.ops[op % ops_per_step_].collective];
  const std::vector<uint32_t>& group = dag_.groups[c.group];
  if (group.size() < 2 || c.size_bytes == 0) {
    start_ps_[op] = transport_.now_ps();
    complete(op);  // nothing to move: done when reached, no kernel on the stream
    return;
  }
  CommStream& s = comm_[c.group];
  stream_prev_[op] = s.last;
  s.last = op;
  if (s.running != kIdle) {
    s.queue.push(op);  // issued behind the one running: starts when it ends
    return;
  }
  s.running = op;
  launch_collective(op);
}

void TrainingEngine::launch_collective(uint32_t op) {
  start_ps_[op] = transport_.now_ps();
  const DagCollective& c = dag_.collectives[dag_.ops[op % ops_per_step_].collective];
  const std::vector<uint32_t>& group = dag_.groups[c.group];
  CollectiveSpec spec;
  spec.op = c.op;
  spec.algorithm = c.algorithm == CollAlgorithm::kAuto ? defaults_.algorithm : c.algorithm;
  spec.protocol = c.protocol == Protocol::kAuto ? defaults_.protocol : c.protocol;
  spec.channels = defaults_.channels;
  spec.size_bytes = c.size_bytes;
  spec.root = c.root;
  spec.ranks.reserve(group.size());
  for (uint32_t r : group) spec.ranks.push_back(placement_[r]);
  const uint32_t id = runner_.start(spec, [this, op](uint32_t) { complete(op); });
  runner_id_[op] = id;
}

// `op` ended: the next collective issued on its communicator, if any, starts now.
void TrainingEngine::release_communicator(uint32_t op) {
  CommStream& s = comm_[dag_.collectives[dag_.ops[op % ops_per_step_].collective].group];
  if (s.running != op) return;  // moved nothing: never held the stream
  s.running = kIdle;
  if (s.queue.empty()) return;
  const uint32_t next = s.queue.pop();
  s.running = next;
  launch_collective(next);
}

void TrainingEngine::complete(uint32_t op) {
  pending_.push_back(op);
  drain();
}

// Releases finished ops' dependents in completion order; re-entrant calls (a runner finishing
// a collective inside start()) only queue, so the stack stays flat.
void TrainingEngine::drain() {
  if (draining_) return;
  draining_ = true;
  for (size_t i = 0; i < pending_.size(); ++i) {
    const uint32_t op = pending_[i];
    end_ps_[op] = transport_.now_ps();
    ++finished_;
    const DagOp& base = dag_.ops[op % ops_per_step_];
    const bool compute = base.kind == DagOp::Kind::kCompute;
    if (compute) running_[base.rank] = kIdle;
    if (!compute) release_communicator(op);
    for (uint32_t d = dependents_begin_[op]; d < dependents_begin_[op + 1]; ++d) {
      const uint32_t dep = dependents_[d];
      if (--remaining_deps_[dep] == 0) make_ready(dep);
    }
    if (compute) try_start_rank(base.rank);
  }
  pending_.clear();
  draining_ = false;
}

TrainingResult TrainingEngine::result() const {
  TrainingResult r;
  const uint32_t n = ops_per_step_;
  const uint32_t total = total_ops();
  r.steps = steps_;
  r.start_ps = start_time_ps_;
  r.step_end_ps.assign(static_cast<size_t>(steps_), start_time_ps_);
  r.rank_compute_ps.assign(dag_.ranks, 0);
  r.end_ps = start_time_ps_;
  for (uint32_t i = 0; i < total; ++i) {
    const int64_t end = end_ps_[i];
    int64_t& step_end = r.step_end_ps[i / n];
    step_end = std::max(step_end, end);
    r.end_ps = std::max(r.end_ps, end);
    const DagOp& base = dag_.ops[i % n];
    if (base.kind == DagOp::Kind::kCompute && end >= 0) {
      r.rank_compute_ps[base.rank] += end - start_ps_[i];
    }
  }
  r.total_ps = r.end_ps - r.start_ps;
  r.step_ps = r.total_ps / steps_;
  for (uint32_t rank = 0; rank < dag_.ranks; ++rank) {
    if (r.rank_compute_ps[rank] > r.rank_compute_ps[r.critical_rank]) r.critical_rank = rank;
  }
  r.compute_ps = dag_.ranks ? r.rank_compute_ps[r.critical_rank] : 0;
  r.exposed_comm_ps = r.total_ps - r.compute_ps;

  // The critical rank's compute intervals (disjoint: one op at a time) and their running sum,
  // so the compute inside any [a, b) is two binary searches.
  std::vector<std::pair<int64_t, int64_t>> busy;
  for (uint32_t i = 0; i < total; ++i) {
    const DagOp& base = dag_.ops[i % n];
    if (base.kind != DagOp::Kind::kCompute || base.rank != r.critical_rank) continue;
    if (end_ps_[i] < 0) continue;
    busy.emplace_back(start_ps_[i], end_ps_[i]);
    r.compute_by_phase_ps[static_cast<int>(base.phase)] += end_ps_[i] - start_ps_[i];
  }
  std::sort(busy.begin(), busy.end());
  std::vector<int64_t> before(busy.size() + 1, 0);  // compute before interval k
  for (size_t k = 0; k < busy.size(); ++k) {
    before[k + 1] = before[k] + busy[k].second - busy[k].first;
  }
  auto covered = [&](int64_t t) {  // critical-rank compute in [start, t)
    const auto it = std::upper_bound(busy.begin(), busy.end(), std::make_pair(t, INT64_MAX));
    const size_t k = static_cast<size_t>(it - busy.begin());
    if (k == 0) return int64_t{0};
    return before[k - 1] + std::min(t, busy[k - 1].second) - busy[k - 1].first;
  };
  for (uint32_t i = 0; i < total; ++i) {
    const DagOp& base = dag_.ops[i % n];
    if (base.kind != DagOp::Kind::kCollective || end_ps_[i] < 0) continue;
    const DagCollective& c = dag_.collectives[base.collective];
    const int phase = static_cast<int>(base.phase);
    const int64_t duration = end_ps_[i] - start_ps_[i];
    r.comm_ps[phase] += duration;
    r.comm_not_overlapped_ps[phase] += duration - (covered(end_ps_[i]) - covered(start_ps_[i]));
    ++r.comm_count[phase];
    r.comm_bytes[phase] += c.size_bytes;
    ++r.op_count[static_cast<int>(c.op)];
    r.op_bytes[static_cast<int>(c.op)] += c.size_bytes;
  }
  r.op_start_ps = start_ps_;
  r.op_end_ps = end_ps_;
  add_breakdowns(r);
  return r;
}

}  // namespace fabricsim::workload
