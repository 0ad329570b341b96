// What a sweep runs, shared by `fabricsim sweep` run here (cli/sweep.cpp) and on a Slurm cluster
// (cli/sweep_slurm.h): the --param list parsed and checked, the points (cartesian product), each
// point checked as `validate` does, the sweep directory prepared, and the plan of runs with the
// ones finished earlier found (DIR/points/<id>/result.json complete and not partial).
// docs/sweep.md describes run ids, resume and the directory.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/sweep.h"
#include "cli/sweep_exec.h"
#include "output/sweep_table.h"
#include "spec/load.h"

namespace fabricsim::cli::sweep_detail {

struct Param {
  std::string key;
  std::vector<std::string> values;
  std::string text;  // as given, for messages
};

// Bad input of a sweep: the message is the whole line (exit 2, nothing run).
class BadInput : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What the sweep runs: every (point, seed) in table.runs, and the `fabricsim run` commands of
// those not finished earlier; command_run[i] is the index in table.runs of commands[i].
struct SweepPlan {
  output::SweepTable table;
  std::vector<ChildCommand> commands;
  std::vector<size_t> command_run;
};

// The --param list with the limits on seeds, jobs and runs checked; throws BadInput.
std::vector<Param> parse_params(const SweepArgs& args);
// Every point's values, one per --param, the first --param varying slowest.
std::vector<std::vector<std::string>> cartesian(const std::vector<Param>& params);
// Loads and checks one point; throws BadInput with the one line.
void check_point(const SweepArgs& args, const std::vector<Param>& params,
                 const std::vector<std::string>& values);
// --out, else the scenario's outputs.dir + "-sweep"; throws BadInput when there is neither.
std::string sweep_out_dir(const SweepArgs& args, const scenario::LoadedScenario& base);
// Creates DIR, DIR/points and DIR/logs, or refuses a DIR that holds files a sweep did not write.
void prepare_dir(const std::filesystem::path& dir);
// A sweep directory: it holds the marker prepare_dir() leaves.
bool is_sweep_dir(const std::filesystem::path& dir);
// A finished run: DIR/result.json exists, parses and is not partial; fills its sweep metrics.
bool read_finished(const std::filesystem::path& dir, std::map<std::string, double>& metrics);
std::string first_line(const std::filesystem::path& file);
// The plan: every (point, seed), the runs finished earlier marked reused, a `fabricsim run`
// command (this binary, DIR/points/<id>, logs in DIR/logs/) for each of the others.
SweepPlan plan_sweep(const SweepArgs& args, const std::vector<Param>& params,
                     const std::vector<std::vector<std::string>>& points, uint64_t first_seed,
                     const std::filesystem::path& dir);

// The sweep's files (sweep.csv, sweep_aggregate.csv, sweep.json, and report.html when `report`)
// written first, then the summary and "  <counts>; results in DIR/ (...)" on stdout: a summary
// cut short by a closed pipe must not cost the files. False (the reason on stderr) when a file
// cannot be written.
bool write_sweep_results(const std::filesystem::path& dir, const output::SweepTable& table,
                         bool report, const std::string& counts);

}  // namespace fabricsim::cli::sweep_detail
