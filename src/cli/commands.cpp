#include "cli/commands.h"

#include <algorithm>
#include <array>
#include <iostream>
#include <stdexcept>
#include <utility>

#include "cli/fabric_scope.h"
#include "core/error.h"
#include "core/rss.h"
#include "output/compare.h"
#include "output/progress.h"
#include "output/summary.h"
#include "output/write.h"
#include "scenario/infiniband.h"
#include "scenario/knobs.h"
#include "scenario/load.h"
#include "scenario/run.h"

namespace fabricsim::cli {
namespace {

// Fills `loaded`, or prints the loader's one-line error and returns false.
bool load(const std::string& file, const std::vector<std::string>& sets,
          const std::vector<std::string>& unsets, scenario::LoadedScenario& loaded) {
  try {
    loaded = scenario::load_scenario(file, sets, unsets);
    return true;
  } catch (const scenario::LoadError& e) {
    std::cerr << e.what() << "\n";
    return false;
  }
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

std::string trim(const std::string& text) {
  const size_t begin = text.find_first_not_of(" \t");
  if (begin == std::string::npos) return "";
  return text.substr(begin, text.find_last_not_of(" \t") - begin + 1);
}

// The fabrics named by --fabrics, in the order given; on a bad list prints the one-line error
// and returns an empty list.
std::vector<std::string> parse_fabrics(const std::string& list) {
  const std::vector<std::string>& known = compare_fabrics();
  const std::string allowed = "; allowed: " + join(known);
  std::vector<std::string> fabrics;
  size_t start = 0;
  for (;;) {
    const size_t comma = list.find(',', start);
    const std::string name = trim(list.substr(start, comma - start));
    std::string error;
    if (name.empty()) {
      error = "empty fabric name in '" + list + "'" + allowed + " (comma-separated, e.g. ib,roce)";
    } else if (std::find(known.begin(), known.end(), name) == known.end()) {
      error = "unknown fabric '" + name + "'" + allowed;
    } else if (std::find(fabrics.begin(), fabrics.end(), name) != fabrics.end()) {
      error = "'" + name + "' is listed twice" + allowed;
    }
    if (!error.empty()) {
      std::cerr << "fabricsim: --fabrics: " << error << "\n";
      return {};
    }
    fabrics.push_back(name);
    if (comma == std::string::npos) return fabrics;
    start = comma + 1;
  }
}

// The keys each run left out, one aligned row per key under one note line:
//   note: keys of another fabric, left out of a run (it uses its own fabric's settings):
//     ib run    fabric.switch.latency     line 14   ib uses fabric.ib.switch_latency
std::string skipped_note(const std::vector<std::pair<std::string, std::vector<SkippedKey>>>& runs) {
  std::vector<std::array<std::string, 4>> rows;
  for (const auto& [fabric, skipped] : runs) {
    for (const SkippedKey& k : skipped) {
      rows.push_back(
          {fabric + " run", k.key_path,
           k.where.file == "--set" ? k.where.str() : "line " + std::to_string(k.where.line),
           k.counterpart.empty() ? "" : fabric + " uses " + k.counterpart});
    }
  }
  if (rows.empty()) return "";
  std::array<size_t, 4> width{};
  for (const auto& row : rows) {
    for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  }
  std::string out =
      "  note: keys of another fabric, left out of a run (it uses its own fabric's settings):\n";
  for (const auto& row : rows) {
    std::string line = "   ";
    for (size_t i = 0; i < row.size(); ++i) {
      line += " " + row[i] + std::string(width[i] - row[i].size() + 2, ' ');
    }
    while (line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out + "\n";
}

}  // namespace

int run_command(const RunArgs& args) {
  scenario::LoadedScenario loaded;
  if (!load(args.file, args.sets, args.unsets, loaded)) return kExitBadInput;
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
              << (result.captured.empty() ? "" : ", trace.pcap")
              << (result.sm_routes.empty() ? "" : ", routes.csv")
              << (result.captured.empty() || !result.infiniband ? "" : ", credits.csv") << ")\n";
  }
  return kExitOk;
}

int compare_command(const CompareArgs& args) {
  const std::vector<std::string> fabrics = parse_fabrics(args.fabrics);
  if (fabrics.empty()) return kExitBadInput;

  // Load and check every fabric's scenario before simulating any.
  struct Prepared {
    std::string fabric;
    scenario::LoadedScenario loaded;
    std::vector<SkippedKey> skipped;
    std::string error;  // one line; "" = good
  };
  std::vector<Prepared> runs;
  try {
    const ScenarioSource source(args.file);
    for (const std::string& fabric : fabrics) {
      Prepared p{fabric, {}, {}, ""};
      try {
        p.loaded = source.load_for(fabric, args.sets, p.skipped, args.unsets);
        scenario::check_scenario(p.loaded.scenario);
        scenario::Scenario resolved = p.loaded.scenario;
        scenario::apply_infiniband(resolved);  // refuses what an ib fabric cannot model
      } catch (const scenario::LoadError& e) {
        p.error = e.what();
      } catch (const InputError& e) {
        p.error = scenario::format_input_error(p.loaded, e);
      }
      runs.push_back(std::move(p));
    }
  } catch (const scenario::LoadError& e) {
    std::cerr << e.what() << "\n";
    return kExitBadInput;
  }
  for (const Prepared& p : runs) {
    if (p.error.empty()) continue;
    // An error every fabric shares is the file's; one that only some runs meet says which.
    const bool shared = std::all_of(runs.begin(), runs.end(),
                                    [&](const Prepared& q) { return q.error == p.error; });
    std::cerr << p.error << (shared ? "" : " (in the " + p.fabric + " run)") << "\n";
    return kExitBadInput;
  }

  std::vector<std::pair<std::string, std::vector<SkippedKey>>> skipped;
  for (const Prepared& p : runs) skipped.emplace_back(p.fabric, p.skipped);
  std::cout << skipped_note(skipped) << std::flush;

  output::FabricRuns results;
  {
    output::ProgressBar bar;
    for (size_t i = 0; i < runs.size(); ++i) {
      scenario::RunOptions options;
      const double done = static_cast<double>(i), total = static_cast<double>(runs.size());
      options.progress = [&bar, done, total](double f) { bar.update((done + f) / total); };
      try {
        results.emplace_back(runs[i].fabric,
                             scenario::run_scenario(runs[i].loaded.scenario, options));
      } catch (const InputError& e) {
        bar.finish();
        std::cerr << scenario::format_input_error(runs[i].loaded, e) << " (in the "
                  << runs[i].fabric << " run)\n";
        return kExitBadInput;
      }
      scenario::RunResult& r = results.back().second;
      // Peak RSS is the process's: a later run's figure includes the earlier runs' peak.
      if (r.run.peak_rss_bytes == 0) r.run.peak_rss_bytes = peak_rss_bytes();
    }
  }

  std::cout << output::format_compare_table(results);
  const std::string out_dir =
      args.out_dir.empty() ? runs.front().loaded.scenario.output_dir : args.out_dir;
  if (!out_dir.empty()) {
    try {
      output::write_compare_outputs(out_dir, results);
    } catch (const std::runtime_error& e) {
      std::cerr << "fabricsim: " << e.what() << "\n";
      return kExitInternal;
    }
    std::string dirs;
    for (const std::string& fabric : fabrics) dirs += ", " + fabric + "/";
    std::cout << "  results in " << out_dir << "/ (compare.csv" << dirs << ")\n";
  }
  return kExitOk;
}

int validate_command(const std::string& file, const std::vector<std::string>& sets,
                     const std::vector<std::string>& unsets) {
  scenario::LoadedScenario loaded;
  if (!load(file, sets, unsets, loaded)) return kExitBadInput;
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
