// Writes a run's result files into a directory.
#pragma once

#include <string>

#include "scenario/result.h"

namespace fabricsim::output {

// Creates `dir` (and parents) and writes result.json, flows.csv and run.json into it, and
// trace.pcap (output/pcap.h) when the run captured frames. Called only after a successful run,
// so bad input never leaves a half-filled directory behind.
// Throws std::runtime_error naming the file when a write fails.
void write_run_outputs(const std::string& dir, const scenario::RunResult& result);

}  // namespace fabricsim::output
