#include "cli/commands.h"

#include <iostream>
#include <stdexcept>

#include "core/error.h"
#include "core/rss.h"
#include "output/progress.h"
#include "output/summary.h"
#include "output/write.h"
#include "scenario/knobs.h"
#include "scenario/load.h"
#include "scenario/run.h"

namespace fabricsim::cli {
namespace {

// Fills `loaded`, or prints the loader's one-line error and returns false.
bool load(const std::string& file, const std::vector<std::string>& sets,
          scenario::LoadedScenario& loaded) {
  try {
    loaded = scenario::load_scenario(file, sets);
    return true;
  } catch (const scenario::LoadError& e) {
    std::cerr << e.what() << "\n";
    return false;
  }
}

}  // namespace

int run_command(const RunArgs& args) {
  scenario::LoadedScenario loaded;
  if (!load(args.file, args.sets, loaded)) return kExitBadInput;
  const std::string out_dir = args.out_dir.empty() ? loaded.scenario.output_dir : args.out_dir;

  scenario::RunResult result;
  {
    output::ProgressBar bar;
    scenario::RunOptions options;
    options.progress = bar.callback();
    try {
      result = scenario::run_scenario(loaded.scenario, options);
    } catch (const InputError& e) {
      bar.finish();
      std::cerr << scenario::format_input_error(loaded, e) << "\n";
      return kExitBadInput;
    }
  }
  // The engine may leave memory to the caller: only the process knows its own peak.
  if (result.run.peak_rss_bytes == 0) result.run.peak_rss_bytes = peak_rss_bytes();

  output::print_summary(std::cout, result);
  if (!out_dir.empty()) {
    try {
      output::write_run_outputs(out_dir, result);
    } catch (const std::runtime_error& e) {
      std::cerr << "fabricsim: " << e.what() << "\n";
      return kExitInternal;
    }
    std::cout << "  results in " << out_dir << "/ (result.json, flows.csv, run.json"
              << (result.captured.empty() ? "" : ", trace.pcap") << ")\n";
  }
  return kExitOk;
}

int validate_command(const std::string& file, const std::vector<std::string>& sets) {
  scenario::LoadedScenario loaded;
  if (!load(file, sets, loaded)) return kExitBadInput;
  try {
    scenario::check_scenario(loaded.scenario);
  } catch (const InputError& e) {
    std::cerr << scenario::format_input_error(loaded, e) << "\n";
    return kExitBadInput;
  }
  std::cout << file << ": ok\n";
  return kExitOk;
}

int keys_command() {
  std::cout << scenario::render_keys_markdown();
  return kExitOk;
}

}  // namespace fabricsim::cli
