#include "engine/packet/step_detail.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace fabricsim::scenario {
namespace {

using workload::DagOp;

struct CollectiveSums {
  int64_t count = 0;
  int64_t finished = 0;
  int64_t time_ps = 0;       // over finished ones
  int64_t predicted_ps = 0;  // over finished ones with a prediction
  int64_t predicted = 0;
};

void add_collectives(const workload::TrainingEngine& engine,
                     const workload::CollectiveRunner& runner, TrainingResult& t) {
  const workload::Dag& dag = engine.dag();
  const uint32_t per_step = static_cast<uint32_t>(dag.ops.size());
  // Key: (phase, op, ranks, size): one row per kind of collective, as nccl-tests would run it.
  using Key = std::tuple<int, int, int, int64_t>;
  std::map<Key, CollectiveSums> sums;
  for (uint32_t op = 0; op < engine.total_ops(); ++op) {
    const DagOp& base = dag.ops[op % per_step];
    if (base.kind != DagOp::Kind::kCollective) continue;
    const int64_t id = engine.runner_id(op);
    if (id < 0) continue;  // a one-rank group or zero bytes: nothing moved
    const workload::CollectiveRecord& rec = runner.record(static_cast<uint32_t>(id));
    const Key key{static_cast<int>(base.phase), static_cast<int>(rec.op), rec.ranks,
                  rec.size_bytes};
    CollectiveSums& s = sums[key];
    ++s.count;
    if (rec.end_ps < 0) continue;
    ++s.finished;
    s.time_ps += rec.end_ps - rec.start_ps;
    if (rec.predicted_ps > 0) {
      ++s.predicted;
      s.predicted_ps += rec.predicted_ps;
    }
  }
  std::vector<std::pair<int64_t, StepCollective>> rows;  // (-total time, row)
  for (const auto& [key, s] : sums) {
    if (s.finished == 0) continue;
    const auto [phase, op, ranks, size] = key;
    StepCollective c;
    c.parallelism = workload::name(static_cast<workload::Phase>(phase));
    c.op = workload::name(static_cast<workload::CollOp>(op));
    c.ranks = ranks;
    c.size_bytes = size;
    c.count = s.count;
    c.mean_time_ps = s.time_ps / s.finished;
    const double factor = workload::busbw_factor(static_cast<workload::CollOp>(op), ranks);
    auto busbw = [&](double ps) {
      return ps > 0 ? static_cast<double>(size) / (ps * 1e-12) * 1e-9 * factor : 0.0;
    };
    c.busbw_gbytes_per_s = busbw(static_cast<double>(c.mean_time_ps));
    if (s.predicted > 0) {
      c.expected_busbw_gbytes_per_s =
          busbw(static_cast<double>(s.predicted_ps) / static_cast<double>(s.predicted));
    }
    rows.emplace_back(-s.time_ps, std::move(c));
  }
  // Largest total time first (ties: the map's order, deterministic).
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& [neg, c] : rows) t.collectives.push_back(std::move(c));
}

void add_stage_timeline(const workload::TrainingEngine& engine, int64_t job_start_ps,
                        TrainingResult& t) {
  const workload::Dag& dag = engine.dag();
  const uint32_t per_step = static_cast<uint32_t>(dag.ops.size());
  // Job-local rank -> its stage, for the stages' breakdown ranks.
  std::map<uint32_t, int> stage_of;
  for (const StepBreakdownResult& b : t.stages) {
    stage_of.emplace(static_cast<uint32_t>(b.rank), b.stage);
  }
  if (stage_of.empty()) return;
  // Collective groups that contain a drawn rank: group -> the drawn ranks in it.
  std::vector<std::vector<uint32_t>> drawn_in_group(dag.groups.size());
  for (size_t g = 0; g < dag.groups.size(); ++g) {
    for (uint32_t r : dag.groups[g]) {
      if (stage_of.count(r)) drawn_in_group[g].push_back(r);
    }
  }
  std::map<int, std::vector<StageSpan>> per_stage;
  for (uint32_t op = 0; op < engine.total_ops(); ++op) {
    const int64_t start = engine.op_start_ps(op), end = engine.op_end_ps(op);
    if (start < 0 || end < 0) continue;
    const DagOp& base = dag.ops[op % per_step];
    StageSpan s;
    s.start_ps = start - job_start_ps;
    s.end_ps = end - job_start_ps;
    if (base.kind == DagOp::Kind::kCompute) {
      const auto it = stage_of.find(base.rank);
      if (it == stage_of.end()) continue;
      s.stage = it->second;
      s.rank = static_cast<int>(base.rank);
      s.kind = "compute";
      s.label = workload::name(base.phase);
      per_stage[s.stage].push_back(s);
      continue;
    }
    const workload::DagCollective& c = dag.collectives[base.collective];
    s.kind = workload::name(base.phase);
    s.label = workload::name(c.op);
    for (uint32_t r : drawn_in_group[c.group]) {
      s.stage = stage_of[r];
      s.rank = static_cast<int>(r);
      per_stage[s.stage].push_back(s);
    }
  }
  for (auto& [stage, spans] : per_stage) {
    std::stable_sort(spans.begin(), spans.end(), [](const StageSpan& a, const StageSpan& b) {
      return a.start_ps < b.start_ps;
    });
    if (spans.size() > TrainingResult::kStageTimelineSpans) {
      t.stage_timeline_dropped +=
          static_cast<int64_t>(spans.size() - TrainingResult::kStageTimelineSpans);
      spans.resize(TrainingResult::kStageTimelineSpans);
    }
    t.stage_timeline.insert(t.stage_timeline.end(), spans.begin(), spans.end());
  }
}

}  // namespace

void add_step_detail(const workload::TrainingEngine& engine,
                     const workload::CollectiveRunner& runner, int64_t job_start_ps,
                     TrainingResult& t) {
  add_collectives(engine, runner, t);
  add_stage_timeline(engine, job_start_ps, t);
}

}  // namespace fabricsim::scenario
