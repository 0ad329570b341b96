// Writes a run's result files into a directory.
#pragma once

#include <filesystem>
#include <string>

#include "results/result.h"

namespace fabricsim::output {

// Writes result.json, flows.csv, run.json and the marker file (output/marker.h) into `dir`
// (created if missing, its parent must exist), and trace.pcap (output/pcap/pcap_trace.h: Ethernet for
// RoCE, ERF InfiniBand records for InfiniBand) when the run captured frames, plus credits.csv when
// the capture holds InfiniBand flow-control packets (which trace.pcap leaves out), and routes.csv
// on InfiniBand. For a staging directory: files already in `dir` with other names are left alone.
// Throws std::runtime_error naming the file when a write fails, and before writing anything when
// a captured frame cannot be synthesized exactly as the simulator sent it.
void write_run_files(const std::filesystem::path& dir, const scenario::RunResult& result);

}  // namespace fabricsim::output
