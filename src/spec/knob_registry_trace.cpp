// Registry entries of trace.json (docs/trace.md, workload/trace_recorder.h): outputs.trace.enabled
// and outputs.trace.max_flows. They restate workload::TraceSpec.
#include <vector>

#include "spec/knob_bind.h"
#include "spec/knob_tables.h"
#include "spec/knobs.h"

namespace fabricsim::scenario {

using knob_bind::bind;

namespace {

const std::vector<Knob> kTraceKnobs = {
    bind(
        {.path = "outputs.trace.enabled",
         .type = KnobType::kBool,
         .description = "Write trace.json in the Chrome trace-event format (opens in Perfetto UI "
                        "and chrome://tracing): per GPU rank its collectives, their steps, sends "
                        "and receives and the compute phases of training steps; per flow of a "
                        "traffic pattern one span from post to last byte delivered",
         .source = "off: spans cost memory (docs/trace.md). Format: Chrome trace event format, "
                   "Google, https://docs.google.com/document/d/"
                   "1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU (JSON object form, ph X "
                   "complete events, ph M process_name/thread_name metadata, ts/dur in "
                   "microseconds)"},
        [](auto& s) -> auto& { return s.trace.enabled; }),
    bind(
        {.path = "outputs.trace.max_flows",
         .type = KnobType::kInt,
         .description = "Traffic patterns: per-flow spans for at most this many flows; above it "
                        "every k-th flow by id (k = ceil(flows / max_flows)), the counts written "
                        "in the file's metadata",
         .source = "10000: ~2 MB of JSON, far below the ~1 M events at which chrome://tracing "
                   "stops loading a file (golang/go#11520, google/trace-viewer#298) and its "
                   "256 MB string limit (google/trace-viewer#627)",
         .min = Bound{1}},
        [](auto& s) -> auto& { return s.trace.max_flows; }),
};

}  // namespace

const std::vector<Knob>& trace_knobs() { return kTraceKnobs; }

}  // namespace fabricsim::scenario
