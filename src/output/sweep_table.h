// The tables of a sweep (`fabricsim sweep`, docs/sweep.md): the headline metrics read back from
// each run's result.json, DIR/sweep.csv (one row per point and seed), DIR/sweep_aggregate.csv
// (one row per point: mean, sample standard deviation and 95% confidence half-width across its
// seeds, output/sweep_stats.h), DIR/sweep.json (everything a report view needs: the parameters,
// every run and every aggregate), and the summary printed on stdout.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace fabricsim::output {

// One headline metric of result.json.
struct SweepMetric {
  const char* column;       // CSV column, e.g. "fct_p99_us"
  const char* description;  // what it is, for sweep.json and docs/sweep.md
};
// Every metric a sweep reads, in column order.
const std::vector<SweepMetric>& sweep_metrics();

// The metrics `result` (a parsed result.json) has, by column; a metric the run does not have
// (no collective, no training step, no steady window, no completed flow) is absent.
std::map<std::string, double> extract_sweep_metrics(const nlohmann::json& result);

// One run of a sweep: a point (an index into SweepTable::points) with one seed.
struct SweepRun {
  size_t point = 0;
  uint64_t seed = 0;
  std::string id;        // the directory name under DIR/points/
  bool ok = false;       // finished with a complete result.json
  bool reused = false;   // finished by an earlier invocation (resumed: not run again)
  bool not_run = false;  // not run to the end: the sweep was interrupted (resume runs it)
  std::string error;     // failed: "exit N: first line of stderr"
  std::map<std::string, double> metrics;
};

struct SweepTable {
  std::string file;                              // the scenario file
  std::vector<std::string> keys;                 // the --param keys, in command-line order
  std::vector<std::vector<std::string>> points;  // per point its value of each key
  std::vector<uint64_t> seeds;                   // the seeds every point runs with
  std::vector<SweepRun> runs;                    // point-major, then seed order
};

// Writes `text` to `path` through `path`.tmp renamed into place, so a reader never sees half a
// file. Throws std::runtime_error naming the file that failed.
void write_atomically(const std::filesystem::path& path, const std::string& text);

// Writes DIR/sweep.csv, DIR/sweep_aggregate.csv and DIR/sweep.json (each through a temporary
// file renamed into place). Throws std::runtime_error naming the file that failed.
void write_sweep_files(const std::filesystem::path& dir, const SweepTable& table);

// The per-metric summary: for each metric some run has, one line per point with its mean and
// the 95% half-width ("± -" with one seed); metrics zero in every run on one line; failed runs
// listed with their error.
void print_sweep_summary(std::ostream& out, const SweepTable& table);

}  // namespace fabricsim::output
