// What a running simulation reports to its caller and how the caller asks it to stop early:
// the plumbing between Simulation::run (engine/packet/simulation.h), a progress line
// (cli/progress.h) and the CLI's signal handler (cli/interrupt.h).
#pragma once

#include <csignal>
#include <cstdint>
#include <filesystem>
#include <functional>

namespace fabricsim::scenario {

// Where a run stands, for a progress line (cli/progress.h).
struct ProgressSample {
  double fraction = 0;      // of the work done, 0..1, against the work known up front: a GPU
                            // run's DAG ops and collective bytes (GpuWorkload::progress_work),
                            // a flow pattern's bytes delivered, a NIC collective's messages; or
                            // the share of a user-set stop_time elapsed if that is larger
  int64_t sim_time_ps = 0;  // simulated time reached
  int64_t events = 0;       // events processed so far
};
using ProgressFn = std::function<void(const ProgressSample&)>;

// Set to nonzero from a signal handler (cli/interrupt.h) to stop a run early.
using StopFlag = volatile std::sig_atomic_t;

// What the harvest does with the run's per-flow records (issue 24 item 1). The statistics
// (RunResult::flow_summary) are always computed, as each record is read.
struct FlowHarvest {
  // Keep every record in RunResult::flows (a library caller's tests and tools read them; memory:
  // one record per message). The CLI keeps none.
  bool keep_records = true;
  // When set, write flows.csv into a new hidden file in this directory while the records are
  // read (RunResult::flows_csv; output::write_run_files moves it into place). The CLI's
  // staging directory, so that the file is on the outputs' file system and never in memory
  // (a tmpfs /tmp would be).
  std::filesystem::path csv_dir;
};

// How often (in events) run() reports progress and looks at its stop flag: 2^18 events, a few
// tens of milliseconds of wall time at 5-10 M events/s, and no cost per event beyond a mask test.
inline constexpr int64_t kCheckEveryEvents = int64_t{1} << 18;

}  // namespace fabricsim::scenario
