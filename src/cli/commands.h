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
  std::vector<std::string> sets;  // key.path=value, in command-line order
  std::string out_dir;            // "" = the scenario's outputs.dir
};

// Simulates, prints the summary, and only then writes result.json, flows.csv and run.json.
int run_command(const RunArgs& args);
// Loads and checks (scenario::check_scenario) without simulating; prints "FILE: ok".
int validate_command(const std::string& file, const std::vector<std::string>& sets);
// Prints the markdown reference of every scenario key.
int keys_command();

}  // namespace fabricsim::cli
