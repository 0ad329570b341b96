// report.html's timeline from trace.json (output/report/report_sections.h). The file is read with
// nlohmann's SAX interface, keeping only what the chart needs per event: a collective's
// trace.json of 10^5 events as a JSON tree would take ~10x its size in memory, beside the
// finished run's own.
#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <stdexcept>
#include <unordered_map>

#include "output/report/report_sections.h"
#include "output/report/report_specs.h"

namespace fabricsim::output::report {
namespace {

namespace fs = std::filesystem;

struct Span {
  double ts_us = 0;
  double dur_us = 0;
  long pid = 0;
  long tid = 0;
  uint32_t name = 0;  // index into Trace::names
  uint32_t cat = 0;
};

struct Trace {
  std::vector<Span> spans;  // ph "X" events with a numeric ts
  std::vector<std::string> names;
  std::unordered_map<std::string, uint32_t> index;
  std::map<long, std::string> process;                  // process_name metadata
  std::map<std::pair<long, long>, std::string> thread;  // thread_name metadata
  bool has_events = false;                              // a traceEvents array was found

  uint32_t intern(const std::string& text) {
    const auto [it, added] = index.try_emplace(text, static_cast<uint32_t>(names.size()));
    if (added) names.push_back(text);
    return it->second;
  }
};

// Events are the objects of the root array, or of the root object's "traceEvents" array (the
// two forms of the Chrome trace-event format). Depth: 1 = root, events_depth = their array.
class TraceSax : public nlohmann::json_sax<nlohmann::json> {
 public:
  explicit TraceSax(Trace& trace) : trace_(trace) {}

  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t v) override { return number(static_cast<double>(v)); }
  bool number_unsigned(number_unsigned_t v) override { return number(static_cast<double>(v)); }
  bool number_float(number_float_t v, const string_t&) override { return number(v); }
  bool binary(binary_t&) override { return true; }
  bool string(string_t& v) override {
    if (depth_ == event_depth() && in_event_) {
      if (key_ == "ph") ph_ = v;
      if (key_ == "name") name_ = v;
      if (key_ == "cat") cat_ = v;
    } else if (depth_ == event_depth() + 1 && in_args_ && key_ == "name") {
      args_name_ = v;
    }
    return true;
  }
  bool key(string_t& k) override {
    key_ = k;
    return true;
  }
  bool start_object(std::size_t) override {
    ++depth_;
    if (events_depth_ > 0 && depth_ == event_depth()) {
      in_event_ = true;
      ph_.clear(), name_.clear(), cat_.clear(), args_name_.clear();
      pid_ = tid_ = 0;
      ts_ = dur_ = 0;
      has_ts_ = false;
    } else if (in_event_ && depth_ == event_depth() + 1 && key_ == "args") {
      in_args_ = true;
    }
    return true;
  }
  bool end_object() override {
    if (in_args_ && depth_ == event_depth() + 1) in_args_ = false;
    if (in_event_ && depth_ == event_depth()) {
      in_event_ = false;
      finish_event();
    }
    --depth_;
    return true;
  }
  bool start_array(std::size_t) override {
    ++depth_;
    // The root array, or the root object's traceEvents.
    if (events_depth_ == 0 && (depth_ == 1 || (depth_ == 2 && key_ == "traceEvents"))) {
      events_depth_ = depth_;
      trace_.has_events = true;
    }
    return true;
  }
  bool end_array() override {
    --depth_;
    return true;
  }
  bool parse_error(std::size_t position, const std::string&,
                   const nlohmann::detail::exception& e) override {
    throw std::runtime_error("trace.json is not valid JSON at byte " + std::to_string(position) +
                             ": " + e.what());
  }

 private:
  int event_depth() const { return events_depth_ + 1; }

  bool number(double v) {
    if (!in_event_ || depth_ != event_depth()) return true;
    if (key_ == "ts") ts_ = v, has_ts_ = true;
    if (key_ == "dur") dur_ = v;
    if (key_ == "pid") pid_ = static_cast<long>(v);
    if (key_ == "tid") tid_ = static_cast<long>(v);
    return true;
  }

  void finish_event() {
    if (ph_ == "M" && name_ == "process_name") trace_.process[pid_] = args_name_;
    if (ph_ == "M" && name_ == "thread_name") trace_.thread[{pid_, tid_}] = args_name_;
    if (ph_ != "X" || !has_ts_) return;
    trace_.spans.push_back({ts_, dur_, pid_, tid_, trace_.intern(name_.empty() ? cat_ : name_),
                            trace_.intern(cat_.empty() ? "other" : cat_)});
  }

  Trace& trace_;
  int depth_ = 0;
  int events_depth_ = 0;
  bool in_event_ = false;
  bool in_args_ = false;
  std::string key_, ph_, name_, cat_, args_name_;
  long pid_ = 0, tid_ = 0;
  double ts_ = 0, dur_ = 0;
  bool has_ts_ = false;
};

std::string lane_name(const Trace& t, long pid, long tid) {
  const auto p = t.process.find(pid);
  const auto h = t.thread.find({pid, tid});
  return (p == t.process.end() ? "pid" + std::to_string(pid) : p->second) + "/" +
         (h == t.thread.end() ? "tid" + std::to_string(tid) : h->second);
}

}  // namespace

std::optional<Block> trace_timeline_block(const fs::path& file) {
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) return std::nullopt;
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + file.string());
  Trace trace;
  TraceSax sax(trace);
  nlohmann::json::sax_parse(in, &sax);
  const std::string title = "Timeline";
  if (!trace.has_events) return note_block(title, "trace.json has no traceEvents array");
  std::vector<Span>& spans = trace.spans;
  if (spans.empty()) return note_block(title, "trace.json has no complete (ph X) events");
  // Lanes: the first kMaxTimelineLanes (pid, tid) in numeric order.
  std::set<std::pair<long, long>> lane_ids;
  for (const Span& s : spans) lane_ids.insert({s.pid, s.tid});
  std::set<std::pair<long, long>> kept_lanes;
  for (const auto& id : lane_ids) {
    if (kept_lanes.size() == kMaxTimelineLanes) break;
    kept_lanes.insert(id);
  }
  std::erase_if(spans, [&](const Span& s) { return !kept_lanes.count({s.pid, s.tid}); });
  // Spans: the longest kMaxTimelineEvents (ties: earlier first), drawn in time order.
  const size_t total = spans.size();
  std::stable_sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) {
    return a.dur_us != b.dur_us ? a.dur_us > b.dur_us : a.ts_us < b.ts_us;
  });
  if (spans.size() > kMaxTimelineEvents) spans.resize(kMaxTimelineEvents);
  std::stable_sort(spans.begin(), spans.end(),
                   [](const Span& a, const Span& b) { return a.ts_us < b.ts_us; });
  std::vector<std::string> lanes;
  for (const auto& [pid, tid] : kept_lanes) lanes.push_back(lane_name(trace, pid, tid));
  Json rows = Json::array();
  for (const Span& s : spans) {
    rows.push_back({{"lane", lane_name(trace, s.pid, s.tid)},
                    {"start", s.ts_us},
                    {"end", s.ts_us + s.dur_us},
                    {"kind", trace.names[s.cat]},
                    {"label", trace.names[s.name]}});
  }
  Block b;
  b.title = title;
  b.caption =
      "Spans of trace.json (Chrome trace events, ph X) per host/rank or flow lane, "
      "coloured by category; " +
      std::to_string(rows.size()) + " of " + std::to_string(total) + " spans drawn (the longest " +
      std::to_string(kMaxTimelineEvents) + "), " + std::to_string(lanes.size()) + " of " +
      std::to_string(lane_ids.size()) + " lanes (at most " + std::to_string(kMaxTimelineLanes) +
      "). Open trace.json in Perfetto for all of it.";
  b.spec = gantt_spec(std::move(rows), lanes, {"time (us)", "lane"});
  return b;
}

}  // namespace fabricsim::output::report
