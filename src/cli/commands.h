// The subcommands of `fabricsim`, one function each, so main.cpp only wires up argument parsing.
//
// Exit codes: 0 success, 2 bad input (the scenario, an override or the command line; exactly one
// line on stderr), 1 anything else (a bug or an environment failure such as an unwritable
// directory).
#pragma once

#include <string>
#include <vector>

namespace fabricsim::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitInternal = 1;
inline constexpr int kExitBadInput = 2;

struct RunArgs {
  std::string file;
  std::vector<std::string> sets;    // key.path=value, in command-line order
  std::vector<std::string> unsets;  // key paths, applied before `sets`
  std::string out_dir;              // "" = the scenario's outputs.dir
};

// Simulates, prints the summary, and only then writes result.json, flows.csv and run.json.
int run_command(const RunArgs& args);

struct CompareArgs {
  std::string file;
  std::string fabrics = "ib,roce";  // comma-separated fabric.technology values, table order
  std::vector<std::string> sets;    // key.path=value, scoped per fabric like the file's keys
  std::vector<std::string> unsets;  // key paths removed before `sets` apply
  std::string out_dir;              // "" = the scenario's outputs.dir
};

// Runs the scenario once per fabric (cli/fabric_scope.h: each run takes the keys common to all
// fabrics plus its own, and a note on stdout lists the keys of another fabric a run left out),
// prints the comparison table (output/compare.h), and only then writes DIR/<fabric>/ (as `run`
// does) and DIR/compare.csv. Every fabric's scenario is loaded and checked before the first run,
// so bad input costs no simulation and writes nothing.
int compare_command(const CompareArgs& args);

// Loads and checks (scenario::check_scenario) without simulating; prints "FILE: ok".
int validate_command(const std::string& file, const std::vector<std::string>& sets,
                     const std::vector<std::string>& unsets = {});
// Prints the markdown reference of every scenario key.
int keys_command();

}  // namespace fabricsim::cli
