// Spans for trace.json (docs/trace.md): what each GPU rank did per collective, per step and per
// message stream, what its compute stream ran, and how long each flow of a traffic pattern took.
// The collective engine reports every posted message and every arrival here (per message,
// never per packet); the recorder folds them at once into one span per (sender, receiver, step)
// of a collective, so its memory grows with spans, not messages. output/chrome_trace.h writes
// the spans in the Chrome trace-event format.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "workload/collective.h"

namespace fabricsim::workload {

namespace detail {
struct Plan;
}

// outputs.trace.* (spec/knob_registry_trace.cpp).
struct TraceSpec {
  bool enabled = false;
  // Traffic patterns: per-flow spans for at most this many flows; above it every k-th flow by
  // id, k = ceil(flows / max_flows). 10,000 keeps the file ~2 MB, far below the ~1 M events at
  // which chrome://tracing's viewer stops loading (golang/go#11520, google/trace-viewer#298).
  int64_t max_flows = 10000;
};

enum class TraceCat : uint8_t { kCollective, kStep, kCompute, kSend, kRecv, kFlow };
const char* name(TraceCat c);

inline constexpr uint32_t kNoLabel = UINT32_MAX;

// One complete ("X") event. GPU spans: `host` = node of the GPU, `rank` = the global GPU index,
// `peer` = the other GPU of a send/recv (-1 otherwise). Flow spans: `host` = the source NIC,
// `rank` = the flow id, `peer` = the destination NIC.
struct TraceSpan {
  int64_t start_ps = 0;
  int64_t end_ps = 0;
  int64_t bytes = -1;       // data bytes (send/recv/collective/flow); -1 = none
  uint32_t host = 0;
  uint32_t rank = 0;
  int32_t peer = -1;
  uint32_t name = 0;        // TraceLog::labels index
  uint32_t detail = kNoLabel;  // collective: algorithm; step/send/recv: op; label index
  uint32_t index = 0;       // step/send/recv: the step number; compute: the training step
  uint32_t coll = 0;        // collective/step/send/recv: the engine's collective id
  TraceCat cat = TraceCat::kCollective;
  bool unfinished = false;  // ends at the end of the simulation, not at its own end
};

// Everything trace.json holds; RunResult::trace.
struct TraceLog {
  bool enabled = false;
  std::vector<TraceSpan> spans;
  std::vector<std::string> labels;
  // Traffic patterns: the flow spans are made from RunResult::flows when the file is written
  // (output/chrome_trace.cpp), sampled down to max_flows; unfinished flows end at sim_end_ps.
  int64_t max_flows = 0;
  int64_t sim_end_ps = 0;

  uint32_t label(const std::string& text);

 private:
  std::unordered_map<std::string, uint32_t> label_index_;
};

// Folds the collective engine's messages into spans. One per engine; not copyable (it holds
// interned labels by index).
class TraceRecorder {
 public:
  explicit TraceRecorder(uint32_t gpus_per_node) : gpus_per_node_(gpus_per_node) {}

  // Called by the collective engine: `plan` is built, its edges not yet indexed (finalize).
  void begin(uint32_t id, const CollectiveRecord& rec, const CollectiveSpec& spec,
             const detail::Plan& plan);
  void sent(uint32_t id, const detail::Plan& plan, uint32_t conn, int64_t m, int64_t data_bytes,
            int64_t now_ps);
  void arrived(uint32_t id, const detail::Plan& plan, uint32_t conn, int64_t m, int64_t now_ps);
  // The collective ended (rec.end_ps set): its spans are emitted.
  void finish(uint32_t id, const CollectiveRecord& rec);
  // Collectives still running at the end of the simulation: spans end at `end_ps`, unfinished.
  void close_running(int64_t end_ps);

  TraceLog& log() { return log_; }

 private:
  struct Agg {
    int64_t start_ps = INT64_MAX;
    int64_t end_ps = -1;
    int64_t bytes = 0;
    int64_t pending = 0;  // messages posted, not arrived
  };
  struct Running {
    bool active = false;
    std::vector<uint32_t> ranks;     // the communicator's GPUs
    std::vector<uint32_t> step_base;  // per connection: its first step number
    int64_t start_ps = 0;
    uint32_t op_label = 0;
    uint32_t algo_label = 0;
    int64_t size_bytes = 0;
    std::unordered_map<uint64_t, Agg> aggs;  // key: (src, dst, step)
  };
  uint32_t step_of(const detail::Plan& plan, const Running& run, uint32_t conn, int64_t m) const;
  void emit(uint32_t id, Running& run, int64_t end_ps, bool unfinished);

  uint32_t gpus_per_node_;
  std::vector<Running> running_;  // by collective id
  TraceLog log_;
};

}  // namespace fabricsim::workload
