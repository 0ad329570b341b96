// report.html: one self-contained HTML file with Vega charts of a result directory (issue 13;
// docs/report.md). Three kinds of directory, told apart by their files:
//   sweep    sweep.csv, sweep_aggregate.csv or sweep.json (`fabricsim sweep`)
//   compare  compare.csv and one run directory per run, DIR/<name>/ (`fabricsim compare`)
//   run      result.json (`fabricsim run`), with flows.csv, links.csv, timeseries_*.csv,
//            trace.json, nccl-tests.csv when the run wrote them
// Every chart reads its own file; one whose file is absent is a one-line note, never an empty
// chart. The page needs nothing but itself: Vega is inlined (output/report/vega_bundle.h).
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>

namespace fabricsim::output {

// A directory report cannot read: what() is the one-line reason, naming the directory.
class ReportError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The report of `dir`. Throws ReportError when `dir` is not a directory, holds none of the
// files above, or the build has no Vega (libjs-vega absent at configure time); std::runtime_error
// when a file exists but cannot be read or parsed.
std::string report_html(const std::filesystem::path& dir);

// Writes dir/report.html (report_html). Throws as report_html, and std::runtime_error when the
// file cannot be written.
void write_report(const std::filesystem::path& dir);

}  // namespace fabricsim::output
