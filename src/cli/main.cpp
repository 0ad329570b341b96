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

int dispatch(int argc, char** argv) {
  CLI::App app{"fabricsim: packet-level simulator of AI-training network fabrics", "fabricsim"};
  app.require_subcommand(1);

  fabricsim::cli::RunArgs run_args;
  CLI::App* run = app.add_subcommand(
      "run", "Simulate a scenario: summary on stdout, result files in --out or outputs.dir");
  run->add_option("file", run_args.file, "Scenario YAML file")->required();
  add_set_option(run, run_args.sets);
  run->add_option("--out", run_args.out_dir,
                  "Directory for result.json, flows.csv and run.json (default: outputs.dir)");

  std::string validate_file;
  std::vector<std::string> validate_sets;
  CLI::App* validate =
      app.add_subcommand("validate", "Check a scenario without simulating; errors exit with 2");
  validate->add_option("file", validate_file, "Scenario YAML file")->required();
  add_set_option(validate, validate_sets);

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
  if (validate->parsed()) return fabricsim::cli::validate_command(validate_file, validate_sets);
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
