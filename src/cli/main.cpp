// fabricsim: the command line, a thin layer over fabricsim_lib (SPEC §5).
#include <CLI/CLI.hpp>
#include <exception>
#include <iostream>

#include "cli/commands.h"

namespace {

using fabricsim::cli::kExitBadInput;
using fabricsim::cli::kExitInternal;

// `--set` is repeatable and takes exactly one value per occurrence, so a scenario path after it
// is never swallowed as a second override.
void add_set_option(CLI::App* command, std::vector<std::string>& sets) {
  command
      ->add_option("--set", sets,
                   "Override one scenario key, e.g. --set fabric.link.rate=100Gbps (repeatable; "
                   "see `fabricsim keys`)")
      ->allow_extra_args(false)
      ->type_name("KEY.PATH=VALUE");
}

// --max-memory: refuse (exit 2) before simulating when the pre-flight estimate exceeds it.
void add_max_memory_option(CLI::App* command, std::string& max_memory) {
  command
      ->add_option("--max-memory", max_memory,
                   "Refuse (exit 2) before simulating when the estimated peak memory exceeds "
                   "this size, e.g. 2GiB (default: the machine's available memory, MemAvailable "
                   "in /proc/meminfo)")
      ->type_name("SIZE");
}

// `--unset` removes a key (or a group) the file set, for A/B runs without a copied file.
void add_unset_option(CLI::App* command, std::vector<std::string>& unsets) {
  command
      ->add_option("--unset", unsets,
                   "Remove a key, or a group and everything under it, that the file set, so it "
                   "takes its default (repeatable). Every --unset applies before every --set, "
                   "e.g. --unset fabric.roce.dcqcn_profile --set fabric.roce.cc=none. An unknown "
                   "key is an error; a known key the file does not set is left alone")
      ->allow_extra_args(false)
      ->type_name("KEY.PATH");
}

int dispatch(int argc, char** argv) {
  CLI::App app{"fabricsim: packet-level simulator of AI-training network fabrics", "fabricsim"};
  app.require_subcommand(1);

  fabricsim::cli::RunArgs run_args;
  CLI::App* run = app.add_subcommand(
      "run", "Simulate a scenario: summary on stdout, result files in --out or outputs.dir");
  run->add_option("file", run_args.file, "Scenario YAML file")->required();
  add_set_option(run, run_args.sets);
  add_max_memory_option(run, run_args.max_memory);
  add_unset_option(run, run_args.unsets);
  run->add_option("--out", run_args.out_dir,
                  "Directory for result.json, flows.csv and run.json (default: outputs.dir)");

  fabricsim::cli::CompareArgs compare_args;
  CLI::App* compare = app.add_subcommand(
      "compare",
      "Run one scenario on each fabric and print one table (rows = metrics, columns = fabrics)");
  compare->footer(
      "Each run sets fabric.technology to its fabric and keeps everything else a key of both "
      "fabrics sets. Keys of one fabric apply only to its run: fabric.ib.*, routing.sm.* and "
      "faults.credit_loss.* to ib; fabric.pfc.*, fabric.ecn.*, fabric.roce.* (except "
      "ack_timeout_exponent and retry_count, which IB RC uses too), fabric.switch.latency, "
      "fabric.switch.dt_alpha and routing.ecmp.* to roce. A 'note:' above the table lists the "
      "keys each run left out; none is reinterpreted. A value a fabric cannot model (e.g. "
      "fabric.link.loss_rate on ib) is refused before any run with the usual one-line error. "
      "--set fabric.technology is refused: --fabrics chooses.\n");
  compare->add_option("file", compare_args.file, "Scenario YAML file")->required();
  compare
      ->add_option("--fabrics", compare_args.fabrics,
                   "Comma-separated fabrics to run, in table order; allowed: ib, roce")
      ->type_name("LIST")
      ->capture_default_str();
  add_set_option(compare, compare_args.sets);
  add_max_memory_option(compare, compare_args.max_memory);
  add_unset_option(compare, compare_args.unsets);
  compare->add_option("--out", compare_args.out_dir,
                      "Directory for compare.csv and one result directory per fabric, "
                      "DIR/<fabric>/result.json etc. (default: outputs.dir)");

  std::string validate_file;
  std::vector<std::string> validate_sets;
  std::vector<std::string> validate_unsets;
  CLI::App* validate =
      app.add_subcommand("validate", "Check a scenario without simulating; errors exit with 2");
  validate->add_option("file", validate_file, "Scenario YAML file")->required();
  add_set_option(validate, validate_sets);
  fabricsim::cli::MemoryLimitArg validate_limit;
  add_max_memory_option(validate, validate_limit.max_memory);
  add_unset_option(validate, validate_unsets);

  CLI::App* keys = app.add_subcommand(
      "keys", "Print every scenario key with type, default and range (markdown)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    std::cerr << "fabricsim: " << e.what() << " (see fabricsim --help)\n";
    return kExitBadInput;
  }
  if (run->parsed()) return fabricsim::cli::run_command(run_args);
  if (compare->parsed()) return fabricsim::cli::compare_command(compare_args);
  if (validate->parsed())
    return fabricsim::cli::validate_command(validate_file, validate_sets, validate_unsets,
                                            validate_limit);
  if (keys->parsed()) return fabricsim::cli::keys_command();
  return kExitInternal;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return dispatch(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "fabricsim: internal error: " << e.what() << "\n";
    return kExitInternal;
  }
}
