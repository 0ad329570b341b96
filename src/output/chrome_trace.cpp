#include "output/chrome_trace.h"

#include <algorithm>
#include <numeric>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

namespace fabricsim::output {
namespace {

using workload::TraceCat;
using workload::TraceSpan;

// Perfetto treats pid 0 (and tid 0) as the kernel's swapper; its maintainers ask synthetic
// traces to start at 1 (google/perfetto#394). Host i is pid i + 1, GPU r's main track tid r + 1.
constexpr int64_t kIdOffset = 1;
// Tracks other than a rank's first collective track (steps, sends, receives, compute, and
// extra lanes) get tids from here up, above any GPU index.
constexpr int64_t kExtraTidBase = int64_t{1} << 24;

// A complete event on its track.
struct Placed {
  uint32_t pid = 0;
  int64_t tid = 0;
  size_t item = 0;  // index into the spans or flows
};

// A track (thread) of one host: its tid, name and display order.
struct Track {
  uint32_t pid = 0;
  int64_t tid = 0;
  std::string name;
};

void append_kv(std::string& out, const char* key, int64_t v) {
  out += ",\"";
  out += key;
  out += "\":";
  out += std::to_string(v);
}
void append_kv(std::string& out, const char* key, const std::string& v) {
  out += ",\"";
  out += key;
  out += "\":";
  out += nlohmann::json(v).dump();
}

// Greedy interval partitioning (spans sorted by start): the first lane free at `start`.
size_t take_lane(std::vector<int64_t>& lane_end, int64_t start, int64_t end) {
  for (size_t l = 0; l < lane_end.size(); ++l) {
    if (lane_end[l] <= start) {
      lane_end[l] = end;
      return l;
    }
  }
  lane_end.push_back(end);
  return lane_end.size() - 1;
}

std::string lane_suffix(size_t lane) {
  return lane == 0 ? std::string() : " #" + std::to_string(lane + 1);
}

void append_event_head(std::string& out, const std::string& name, const char* cat, uint32_t pid,
                       int64_t tid, int64_t start_ps, int64_t end_ps) {
  out += "{\"name\":";
  out += nlohmann::json(name).dump();
  out += ",\"cat\":\"";
  out += cat;
  out += "\",\"ph\":\"X\",\"ts\":";
  out += ps_to_us_text(start_ps);
  out += ",\"dur\":";
  out += ps_to_us_text(std::max<int64_t>(0, end_ps - start_ps));
  out += ",\"pid\":";
  out += std::to_string(pid);
  out += ",\"tid\":";
  out += std::to_string(tid);
}

void append_metadata(std::string& out, const char* what, uint32_t pid, int64_t tid,
                     const std::string& key, const std::string& value_json) {
  // No "ts": metadata needs none, and Perfetto rejects negative ones (google/perfetto#2048).
  out += "{\"name\":\"";
  out += what;
  out += "\",\"ph\":\"M\",\"pid\":";
  out += std::to_string(pid);
  out += ",\"tid\":";
  out += std::to_string(tid);
  out += ",\"args\":{\"";
  out += key;
  out += "\":";
  out += value_json;
  out += "}},\n";
}

int cat_order(TraceCat c) {
  switch (c) {
    case TraceCat::kCollective: return 0;
    case TraceCat::kStep: return 1;
    case TraceCat::kSend: return 2;
    case TraceCat::kRecv: return 3;
    case TraceCat::kCompute: return 4;
    case TraceCat::kFlow: return 5;
  }
  return 6;
}

// GPU spans: one track per (rank, category, lane) so no two spans of a track overlap
// (Perfetto and chrome://tracing need the slices of a thread to nest).
void place_gpu(const workload::TraceLog& log, std::vector<Placed>& placed,
               std::vector<Track>& tracks) {
  const std::vector<TraceSpan>& spans = log.spans;
  std::vector<size_t> order(spans.size());
  std::iota(order.begin(), order.end(), 0);
  auto key = [&](size_t i) {
    const TraceSpan& s = spans[i];
    return std::make_tuple(s.host, s.rank, cat_order(s.cat), s.start_ps, s.end_ps, s.coll, s.index,
                           s.peer, i);
  };
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return key(a) < key(b); });
  int64_t next_extra = kExtraTidBase;
  size_t group_begin = 0;
  std::vector<int64_t> lane_end, lane_tid;
  for (size_t k = 0; k < order.size(); ++k) {
    const TraceSpan& s = spans[order[k]];
    const bool new_group = k == 0 || spans[order[group_begin]].rank != s.rank ||
                           spans[order[group_begin]].host != s.host ||
                           spans[order[group_begin]].cat != s.cat;
    if (new_group) {
      group_begin = k;
      lane_end.clear();
      lane_tid.clear();
    }
    const size_t lane = take_lane(lane_end, s.start_ps, s.end_ps);
    const uint32_t pid = static_cast<uint32_t>(s.host + kIdOffset);
    if (lane == lane_tid.size()) {
      const bool main_track = s.cat == TraceCat::kCollective && lane == 0;
      const int64_t tid = main_track ? s.rank + kIdOffset : next_extra++;
      lane_tid.push_back(tid);
      std::string name = "rank" + std::to_string(s.rank);
      if (!main_track) name += std::string(" ") + workload::name(s.cat) + lane_suffix(lane);
      tracks.push_back({pid, tid, std::move(name)});
    }
    placed.push_back({pid, lane_tid[lane], order[k]});
  }
}

// Flows: pid = the source host, one track per (source NIC, lane of overlapping flows).
void place_flows(const std::vector<scenario::FlowRecord>& flows, int64_t stride, int64_t end_ps,
                 uint32_t nics_per_host, std::vector<Placed>& placed,
                 std::vector<Track>& tracks) {
  std::vector<size_t> order;
  for (size_t i = 0; i < flows.size(); ++i) {
    if (flows[i].id % stride == 0) order.push_back(i);
  }
  auto end_of = [&](size_t i) { return flows[i].finish_ps < 0 ? end_ps : flows[i].finish_ps; };
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return std::make_tuple(flows[a].src_nic, flows[a].start_ps, flows[a].id) <
           std::make_tuple(flows[b].src_nic, flows[b].start_ps, flows[b].id);
  });
  std::vector<int64_t> lane_end;
  for (size_t k = 0; k < order.size(); ++k) {
    const scenario::FlowRecord& f = flows[order[k]];
    if (k == 0 || flows[order[k - 1]].src_nic != f.src_nic) lane_end.clear();
    const size_t before = lane_end.size();
    const size_t lane = take_lane(lane_end, f.start_ps, end_of(order[k]));
    const uint32_t pid = static_cast<uint32_t>(f.src_nic / nics_per_host + kIdOffset);
    // Lanes of the host's NICs share the host: tid = local NIC x 2^20 + lane + 1.
    const int64_t tid = static_cast<int64_t>(f.src_nic % nics_per_host) * (int64_t{1} << 20) +
                        static_cast<int64_t>(lane) + kIdOffset;
    if (lane == before) {
      tracks.push_back({pid, tid, "nic" + std::to_string(f.src_nic) + " flows" + lane_suffix(lane)});
    }
    placed.push_back({pid, tid, order[k]});
  }
}

}  // namespace

std::string ps_to_us_text(int64_t ps) {
  std::string out = std::to_string(ps / 1000000);
  int64_t frac = ps % 1000000;
  if (frac == 0) return out;
  std::string digits = std::to_string(frac);
  digits.insert(0, 6 - digits.size(), '0');
  while (digits.back() == '0') digits.pop_back();
  return out + "." + digits;
}

namespace {

// Every flow of the run: the harvest's count, or a hand-built result's records.
int64_t flows_total(const scenario::RunResult& r) {
  return std::max(r.flow_summary.stats.total, static_cast<int64_t>(r.flows.size()));
}

// The metadata events naming each host (process) and track (thread) and fixing their order.
void append_track_metadata(std::string& out, const std::vector<Track>& tracks) {
  std::vector<uint32_t> pids;
  for (const Track& t : tracks) pids.push_back(t.pid);
  std::sort(pids.begin(), pids.end());
  pids.erase(std::unique(pids.begin(), pids.end()), pids.end());
  for (uint32_t pid : pids) {
    append_metadata(out, "process_name", pid, 0, "name",
                    nlohmann::json("host" + std::to_string(pid - kIdOffset)).dump());
    append_metadata(out, "process_sort_index", pid, 0, "sort_index", std::to_string(pid));
  }
  for (size_t i = 0; i < tracks.size(); ++i) {
    const Track& t = tracks[i];
    append_metadata(out, "thread_name", t.pid, t.tid, "name", nlohmann::json(t.name).dump());
    append_metadata(out, "thread_sort_index", t.pid, t.tid, "sort_index", std::to_string(i));
  }
}

// One GPU span (collective, step, send/receive, compute) with the args of its category.
void append_span_event(std::string& out, const workload::TraceLog& log, const Placed& p) {
  const TraceSpan& s = log.spans[p.item];
  append_event_head(out, log.labels[s.name], workload::name(s.cat), p.pid, p.tid, s.start_ps,
                    s.end_ps);
  out += ",\"args\":{\"rank\":";
  out += std::to_string(s.rank);
  switch (s.cat) {
    case TraceCat::kCollective:
      append_kv(out, "op", log.labels[s.name]);
      append_kv(out, "algorithm", log.labels[s.detail]);
      append_kv(out, "bytes", s.bytes);
      append_kv(out, "collective", s.coll);
      break;
    case TraceCat::kStep:
      append_kv(out, "op", log.labels[s.detail]);
      append_kv(out, "step", s.index);
      append_kv(out, "collective", s.coll);
      break;
    case TraceCat::kSend:
    case TraceCat::kRecv:
      append_kv(out, "op", log.labels[s.detail]);
      append_kv(out, "peer", s.peer);
      append_kv(out, "bytes", s.bytes);
      append_kv(out, "step", s.index);
      append_kv(out, "collective", s.coll);
      break;
    case TraceCat::kCompute:
      append_kv(out, "phase", log.labels[s.name]);
      append_kv(out, "training_step", s.index);
      break;
    case TraceCat::kFlow:
      break;
  }
  if (s.unfinished) out += ",\"unfinished\":true";
  out += "}}";
}

// One flow of a run without GPUs; an unfinished one ends at the end of the simulation.
void append_flow_event(std::string& out, const scenario::FlowRecord& f, int64_t sim_end_ps,
                       const Placed& p) {
  const bool unfinished = f.finish_ps < 0;
  append_event_head(out, "flow " + std::to_string(f.id), "flow", p.pid, p.tid, f.start_ps,
                    unfinished ? sim_end_ps : f.finish_ps);
  out += ",\"args\":{\"flow\":";
  out += std::to_string(f.id);
  append_kv(out, "src_nic", static_cast<int64_t>(f.src_nic));
  append_kv(out, "dst_nic", static_cast<int64_t>(f.dst_nic));
  append_kv(out, "peer", static_cast<int64_t>(f.dst_nic));  // an integer, as a GPU's peer
  append_kv(out, "bytes", f.size_bytes);
  append_kv(out, "fct_ps", f.fct_ps());
  if (unfinished) out += ",\"unfinished\":true";
  out += "}}";
}

// The closing otherData: the run, and for flows how they were sampled.
void append_other_data(std::string& out, const scenario::RunResult& r, bool gpu,
                       const FlowSample& sample) {
  const workload::TraceLog& log = r.trace;
  out += "\n],\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"fabricsim\"";
  append_kv(out, "scenario", r.scenario_name);
  append_kv(out, "seed", static_cast<int64_t>(r.seed));
  append_kv(out, "sim_end_ps", log.sim_end_ps);
  if (!gpu) {
    append_kv(out, "flows_total", flows_total(r));
    append_kv(out, "flows_written", sample.kept);
    append_kv(out, "flow_sample_every", sample.stride);
    append_kv(out, "max_flows", log.max_flows);
  }
  out += "}}\n";
}

}  // namespace

std::string chrome_trace_json_text(const scenario::RunResult& r) {
  const workload::TraceLog& log = r.trace;
  const bool gpu = !r.jobs.empty();
  // The records kept (a library caller's), or the harvest's every k-th (RunResult::trace_flows).
  const std::vector<scenario::FlowRecord>& traced = r.flows.empty() ? r.trace_flows : r.flows;
  std::vector<Placed> placed;
  std::vector<Track> tracks;
  FlowSample sample;
  if (gpu) {
    place_gpu(log, placed, tracks);
  } else {
    // Flow ids are 0 .. n-1 (run.cpp numbers them in post order), so "every k-th by id"
    // keeps ids 0, k, 2k, ...: ceil(n / k) flows.
    sample = flow_sample(flows_total(r), log.max_flows);
    if (r.flows.empty() && !r.trace_flows.empty()) {  // the harvest's sample (results/result.h)
      sample.stride = r.trace_flow_stride;
      sample.kept = static_cast<int64_t>(r.trace_flows.size());
    }
    const uint32_t nics_per_host =
        r.topology.hosts > 0 && r.topology.nics % r.topology.hosts == 0 && r.topology.nics > 0
            ? static_cast<uint32_t>(r.topology.nics / r.topology.hosts)
            : 1;
    place_flows(traced, sample.stride, log.sim_end_ps, nics_per_host, placed, tracks);
  }
  std::sort(placed.begin(), placed.end(), [](const Placed& a, const Placed& b) {
    return std::tie(a.pid, a.tid, a.item) < std::tie(b.pid, b.tid, b.item);
  });

  std::string out;
  out.reserve(placed.size() * 200 + tracks.size() * 120 + 512);
  out += "{\"traceEvents\":[\n";
  append_track_metadata(out, tracks);
  bool first = true;
  for (const Placed& p : placed) {
    if (!first) out += ",\n";
    first = false;
    if (gpu) {
      append_span_event(out, log, p);
    } else {
      append_flow_event(out, traced[p.item], log.sim_end_ps, p);
    }
  }
  append_other_data(out, r, gpu, sample);
  return out;
}

}  // namespace fabricsim::output
