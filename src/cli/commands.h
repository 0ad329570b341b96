// The subcommands of `fabricsim`, one function each, so main.cpp only wires up argument parsing.
//
// Exit codes: 0 success, 2 bad input (the scenario, an override, the command line or an output
// directory that cannot be used, found before simulating; exactly one line on stderr), 1 anything
// else (a bug or an environment failure such as a disk that fills up while writing). A run
// stopped by SIGINT or SIGTERM writes its files and then ends by that signal (cli/interrupt.h):
// the shell reports 130 or 143.
#pragma once

#include <string>
#include <vector>

namespace fabricsim::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitInternal = 1;
inline constexpr int kExitBadInput = 2;

// --max-memory: a size ("2GiB"); "" = the machine's available memory (MemAvailable). `run`,
// `compare` and `validate` refuse (exit 2) a scenario whose pre-flight estimate
// (preflight/resources.h) exceeds it.
struct MemoryLimitArg {
  std::string max_memory;
};

struct RunArgs : MemoryLimitArg {
  std::string file;
  std::vector<std::string> sets;    // key.path=value, in command-line order
  std::vector<std::string> unsets;  // key paths, applied before `sets`
  std::string out_dir;              // "" = the scenario's outputs.dir
};

// Checks and stages the output directory (cli/staged_dir.h; a bad one is bad input, exit 2,
// before any simulation), simulates, prints the summary, then writes result.json, flows.csv and
// run.json into the staging directory, which replaces the output directory as a whole. SIGINT or
// SIGTERM stops the simulation early (cli/interrupt.h): the files are written marked partial.
int run_command(const RunArgs& args);

struct CompareArgs : MemoryLimitArg {
  std::string file;
  std::string fabrics = "ib,roce";  // comma-separated fabric.technology values, table order
  bool fabrics_given = false;       // --fabrics was on the command line (refused with variants:)
  std::vector<std::string> sets;    // key.path=value, scoped per fabric like the file's keys
  std::vector<std::string> unsets;  // key paths removed before `sets` apply
  std::string out_dir;              // "" = the scenario's outputs.dir
  // --modes: comma-separated `mode` values; "" = the file's mode. Each run then runs once per
  // mode, in columns <name>-<mode> (docs/modes.md).
  std::string modes;
};

// Runs the scenario once per fabric (cli/fabric_scope.h: each run takes the keys common to all
// fabrics plus its own, and a note on stdout lists the keys of another fabric a run left out),
// prints the comparison table (output/compare.h), and only then writes DIR/<fabric>/ (as `run`
// does) and DIR/compare.csv. Every fabric's scenario is loaded and checked before the first run,
// so bad input costs no simulation and writes nothing. The output directory is staged and
// replaced as in run_command; an interrupt stops the current run and skips the remaining ones.
int compare_command(const CompareArgs& args);

// Loads and checks (scenario::resolve) without simulating; prints
// "FILE: ok (estimated peak memory ...)".
int validate_command(const std::string& file, const std::vector<std::string>& sets,
                     const std::vector<std::string>& unsets = {},
                     const MemoryLimitArg& limit = {});
// Builds the scenario's topology (without simulating) and prints it on stdout in the native
// topology-file form (topo::write_native; docs/topologies.md), for topology.kind: file.
int topology_export_command(const std::string& file, const std::vector<std::string>& sets,
                            const std::vector<std::string>& unsets);
// Prints the fabric the scenario builds, its bill of materials (cost, power, confidence) and the
// pre-flight memory estimate, without simulating; one block per variant or per fabric of
// --fabrics (scoped as compare scopes them) and their totals side by side. `fabrics_given`
// false and no variants: the file as it is.
int describe_command(const CompareArgs& args);
// Prints the markdown reference of every scenario key.
int keys_command();

}  // namespace fabricsim::cli
