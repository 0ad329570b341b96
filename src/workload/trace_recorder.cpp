#include "workload/trace_recorder.h"

#include <algorithm>
#include <map>
#include <utility>

#include "workload/collective_plan.h"

namespace fabricsim::workload {

const char* name(TraceCat c) {
  switch (c) {
    case TraceCat::kCollective: return "collective";
    case TraceCat::kStep: return "step";
    case TraceCat::kCompute: return "compute";
    case TraceCat::kSend: return "send";
    case TraceCat::kRecv: return "recv";
    case TraceCat::kFlow: return "flow";
  }
  return "?";
}

uint32_t TraceLog::label(const std::string& text) {
  // Numbered in order of first use, so the file is deterministic.
  const auto [it, fresh] = label_index_.try_emplace(text, static_cast<uint32_t>(labels.size()));
  if (fresh) labels.push_back(text);
  return it->second;
}

// Step numbers: a connection's level is the longest chain of gates (phases: halving-doubling,
// hierarchical) and of dependencies between chunked connections (tree levels, chain hops) that
// precede it; ring dependencies are cyclic and stay inside one level, where a ring message's
// step is its ring step (0 .. 2(n-1)-1 for all-reduce). Levels are numbered consecutively:
// level L starts after the widest connection of level L-1 (a ring's steps, else 1).
void TraceRecorder::begin(uint32_t id, const CollectiveRecord& rec, const CollectiveSpec& spec,
                          const detail::Plan& plan) {
  if (running_.size() <= id) running_.resize(id + 1);
  Running& run = running_[id];
  run.active = true;
  run.ranks = spec.ranks;
  run.start_ps = rec.start_ps;
  run.op_label = log_.label(name(rec.op));
  run.algo_label = log_.label(name(rec.algorithm));
  run.size_bytes = rec.size_bytes;
  const uint32_t nc = static_cast<uint32_t>(plan.conns.size());
  auto is_ring = [&](uint32_t e) { return plan.streams[plan.conns[e].stream].ring; };
  std::vector<std::vector<uint32_t>> succ(nc);
  std::vector<uint32_t> indegree(nc, 0);
  auto edge = [&](uint32_t p, uint32_t s) {
    succ[p].push_back(s);
    ++indegree[s];
  };
  for (auto [p, s] : plan.gate_edges) edge(p, s);
  for (auto [p, s] : plan.dep_edges) {
    if (!is_ring(p) || !is_ring(s)) edge(p, s);
  }
  std::vector<uint32_t> level(nc, 0), order;
  order.reserve(nc);
  for (uint32_t e = 0; e < nc; ++e) {
    if (indegree[e] == 0) order.push_back(e);
  }
  for (size_t i = 0; i < order.size(); ++i) {
    const uint32_t p = order[i];
    for (uint32_t s : succ[p]) {
      level[s] = std::max(level[s], level[p] + 1);
      if (--indegree[s] == 0) order.push_back(s);
    }
  }
  uint32_t levels = 0;
  for (uint32_t e = 0; e < nc; ++e) levels = std::max(levels, level[e] + 1);
  std::vector<uint32_t> width(levels, 1), base(levels + 1, 0);
  for (uint32_t e = 0; e < nc; ++e) {
    if (is_ring(e)) {
      width[level[e]] = std::max<uint32_t>(width[level[e]],
                                           static_cast<uint32_t>(plan.streams[plan.conns[e].stream].steps));
    }
  }
  for (uint32_t l = 0; l < levels; ++l) base[l + 1] = base[l] + width[l];
  run.step_base.resize(nc);
  for (uint32_t e = 0; e < nc; ++e) run.step_base[e] = base[level[e]];
}

uint32_t TraceRecorder::step_of(const detail::Plan& plan, const Running& run, uint32_t conn,
                                int64_t m) const {
  const detail::Stream& st = plan.streams[plan.conns[conn].stream];
  uint32_t step = run.step_base[conn];
  if (st.ring) {
    auto it = std::upper_bound(st.loops.begin(), st.loops.end(), m,
                               [](int64_t v, const detail::RingLoop& l) { return v < l.first_msg; });
    const detail::RingLoop& l = *(it - 1);
    step += static_cast<uint32_t>((m - l.first_msg) / l.slices);
  }
  return step;
}

namespace {
// (sender, receiver, step) in one 64-bit key: 21 + 21 + 22 bits (2 M GPUs, 4 M steps).
uint64_t agg_key(uint32_t src, uint32_t dst, uint32_t step) {
  return (static_cast<uint64_t>(src) << 43) | (static_cast<uint64_t>(dst & 0x1fffff) << 22) |
         (step & 0x3fffff);
}
}  // namespace

void TraceRecorder::sent(uint32_t id, const detail::Plan& plan, uint32_t conn, int64_t m,
                         int64_t data_bytes, int64_t now_ps) {
  Running& run = running_[id];
  if (!run.active) return;  // closed by close_running
  const detail::Conn& c = plan.conns[conn];
  Agg& a = run.aggs[agg_key(c.src, c.dst, step_of(plan, run, conn, m))];
  a.start_ps = std::min(a.start_ps, now_ps);
  a.bytes += data_bytes;
  ++a.pending;
}

void TraceRecorder::arrived(uint32_t id, const detail::Plan& plan, uint32_t conn, int64_t m,
                            int64_t now_ps) {
  Running& run = running_[id];
  if (!run.active) return;
  const detail::Conn& c = plan.conns[conn];
  Agg& a = run.aggs[agg_key(c.src, c.dst, step_of(plan, run, conn, m))];
  a.end_ps = std::max(a.end_ps, now_ps);
  --a.pending;
}

void TraceRecorder::finish(uint32_t id, const CollectiveRecord& rec) {
  if (running_[id].active) emit(id, running_[id], rec.end_ps, false);
}

void TraceRecorder::close_running(int64_t end_ps) {
  for (uint32_t id = 0; id < running_.size(); ++id) {
    if (running_[id].active) emit(id, running_[id], end_ps, true);
  }
}

void TraceRecorder::emit(uint32_t id, Running& run, int64_t end_ps, bool unfinished) {
  const uint32_t send_label = log_.label("send");
  const uint32_t recv_label = log_.label("recv");
  for (uint32_t gpu : run.ranks) {
    TraceSpan s;
    s.start_ps = run.start_ps;
    s.end_ps = end_ps;
    s.bytes = run.size_bytes;
    s.host = gpu / gpus_per_node_;
    s.rank = gpu;
    s.name = run.op_label;
    s.detail = run.algo_label;
    s.coll = id;
    s.cat = TraceCat::kCollective;
    s.unfinished = unfinished;
    log_.spans.push_back(s);
  }
  // Sorted by key (sender, receiver, step) so the file does not depend on hash order.
  std::vector<std::pair<uint64_t, Agg>> aggs(run.aggs.begin(), run.aggs.end());
  std::sort(aggs.begin(), aggs.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::map<std::pair<uint32_t, uint32_t>, std::pair<int64_t, bool>> steps;  // -> (start, open)
  std::map<std::pair<uint32_t, uint32_t>, int64_t> step_end;
  for (const auto& [key, a] : aggs) {
    const uint32_t src = static_cast<uint32_t>(key >> 43);
    const uint32_t dst = static_cast<uint32_t>((key >> 22) & 0x1fffff);
    const uint32_t step = static_cast<uint32_t>(key & 0x3fffff);
    const bool open = a.pending > 0 || a.end_ps < 0;
    const int64_t end = open ? end_ps : a.end_ps;
    for (int side = 0; side < 2; ++side) {
      TraceSpan s;
      s.start_ps = a.start_ps;
      s.end_ps = end;
      s.bytes = a.bytes;
      s.rank = side == 0 ? src : dst;
      s.host = s.rank / gpus_per_node_;
      s.peer = static_cast<int32_t>(side == 0 ? dst : src);
      s.name = side == 0 ? send_label : recv_label;
      s.detail = run.op_label;
      s.index = step;
      s.coll = id;
      s.cat = side == 0 ? TraceCat::kSend : TraceCat::kRecv;
      s.unfinished = open;
      log_.spans.push_back(s);
      const auto k = std::make_pair(s.rank, step);
      auto [it, fresh] = steps.try_emplace(k, a.start_ps, open);
      if (!fresh) {
        it->second.first = std::min(it->second.first, a.start_ps);
        it->second.second = it->second.second || open;
      }
      int64_t& e = step_end[k];
      e = std::max(e, end);
    }
  }
  // A rank's step: from the first message it sent or that was sent to it in that step to the
  // last arrival of either.
  for (const auto& [k, v] : steps) {
    TraceSpan s;
    s.start_ps = v.first;
    s.end_ps = step_end[k];
    s.rank = k.first;
    s.host = k.first / gpus_per_node_;
    s.name = log_.label("step " + std::to_string(k.second));
    s.detail = run.op_label;
    s.index = k.second;
    s.coll = id;
    s.cat = TraceCat::kStep;
    s.unfinished = v.second;
    log_.spans.push_back(s);
  }
  run = Running{};
}

}  // namespace fabricsim::workload
