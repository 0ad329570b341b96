// trace.json in the Chrome trace-event format (docs/trace.md): the JSON object form
// {"traceEvents":[...],"displayTimeUnit":"ns","otherData":{...}} with "X" (complete) events
// and "M" metadata events naming processes (hosts) and threads (tracks). Times are written
// from integer picoseconds as exact decimal microseconds (12.345678), never through a double.
#pragma once

#include <cstdint>
#include <string>

#include "results/result.h"

namespace fabricsim::output {

// Integer picoseconds as microseconds with up to six decimals, exact: 12345678 -> "12.345678",
// 1000000 -> "1", 1500000 -> "1.5". REQUIRES ps >= 0.
std::string ps_to_us_text(int64_t ps);

// The whole file. GPU runs: the spans of result.trace. Traffic patterns: one span per flow of
// result.flows (every k-th flow by id when there are more than trace.max_flows).
// REQUIRES result.trace.enabled.
std::string chrome_trace_json_text(const scenario::RunResult& result);

using scenario::FlowSample;  // results/flow_summary.h
using scenario::flow_sample;

}  // namespace fabricsim::output
