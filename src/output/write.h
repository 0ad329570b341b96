// Writes a run's result files into a directory.
#pragma once

#include <string>

#include "scenario/result.h"

namespace fabricsim::output {

// Creates `dir` (and parents) and writes result.json, flows.csv and run.json into it, and
// trace.pcap (output/pcap_trace.h: Ethernet for RoCE, ERF InfiniBand records for InfiniBand) when
// the run captured frames, plus credits.csv when the capture holds InfiniBand flow-control
// packets (which trace.pcap leaves out: output/pcap_trace.h). Called only after a successful
// run, so bad input never leaves a half-filled directory behind.
// Throws std::runtime_error naming the file when a write fails, and before writing anything when
// a captured frame cannot be synthesized exactly as the simulator sent it.
void write_run_outputs(const std::string& dir, const scenario::RunResult& result);

}  // namespace fabricsim::output
