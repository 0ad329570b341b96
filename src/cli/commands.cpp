#include "cli/commands.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <utility>

#include "cli/describe.h"
#include "cli/choice_list.h"
#include "cli/fabric_scope.h"
#include "cli/interrupt.h"
#include "cli/memory_check.h"
#include "cli/progress.h"
#include "cli/ring_budget.h"
#include "cli/staged_dir.h"
#include "core/error.h"
#include "core/rank_exchange.h"
#include "core/rss.h"
#include "core/units.h"
#include "resolve/resolve.h"
#include "output/compare.h"
#include "output/report/report.h"
#include "output/summary.h"
#include "output/write.h"
#include "resolve/infiniband.h"
#include "spec/knobs.h"
#include "resolve/cost/bom.h"
#include "spec/load.h"
#include "preflight/resources.h"
#include "spec/scenario_file.h"
#include "engine/run.h"
#include "engine/packet/topology_export.h"

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

// Checks the output directory and creates its staging directory (cli/staged_dir.h) before
// anything is simulated, so a bad one costs no run; "" = none asked for. On failure prints the
// one line (`fabricsim: --out DIR: reason`, or the outputs.dir key's location when the directory
// came from the scenario) and returns false.
bool stage_output(const std::string& dir, bool from_option, const scenario::LoadedScenario& loaded,
                  std::unique_ptr<StagedDir>& staged) {
  if (dir.empty()) return true;
  try {
    staged = std::make_unique<StagedDir>(dir);
    return true;
  } catch (const OutputDirError& e) {
    std::string line = from_option ? "fabricsim: --out " + dir + ": " + e.what()
                                   : scenario::format_error_line(loaded.locate("outputs.dir"),
                                                                 "outputs.dir",
                                                                 "'" + dir + "' " + e.what());
    std::replace(line.begin(), line.end(), '\n', ' ');  // one line, whatever the path holds
    std::cerr << line << "\n";
    return false;
  }
}

// `run` on a file with variants: simulates the file itself (its base scenario), which is what a
// sweep's runs and an A/B with --set need, so it is not refused; but a user who wrote variants
// most likely wanted them, so one line on stderr says what ran and which command runs them all.
// Empty when the file has none.
std::string variants_note(const std::string& file, const scenario::Scenario& sc) {
  if (sc.variants.empty()) return "";
  std::string names;
  for (const scenario::VariantSpec& v : sc.variants) names += (names.empty() ? "" : ", ") + v.name;
  return "fabricsim: note: " + file + " has variants: (" + names +
         "); run simulates the file without them; `fabricsim compare " + file +
         "` runs each variant";
}

}  // namespace

namespace {

// An MPI run's ranks other than 0 (core/rank_exchange.h) say nothing and write nothing: rank 0
// speaks for the run. Their standard streams are muted while `run` works and given back on
// the way out (an internal error then still reaches main's report).
struct MuteOtherRanks {
  std::streambuf* out = nullptr;
  std::streambuf* err = nullptr;
  explicit MuteOtherRanks(const RankExchange* ranks) {
    if (ranks == nullptr || ranks->rank() == 0) return;
    out = std::cout.rdbuf(nullptr);
    err = std::cerr.rdbuf(nullptr);
  }
  ~MuteOtherRanks() {  // clear(): a write to a stream without a buffer set its badbit
    if (out != nullptr) {
      std::cout.rdbuf(out);
      std::cout.clear();
    }
    if (err != nullptr) {
      std::cerr.rdbuf(err);
      std::cerr.clear();
    }
  }
};

}  // namespace

int run_command(const RunArgs& args) {
  RankExchange* ranks = process_ranks();
  if (ranks != nullptr && ranks->size() < 2) ranks = nullptr;  // mpirun -np 1: one process
  const bool writer = ranks == nullptr || ranks->rank() == 0;
  const MuteOtherRanks mute(ranks);
  int64_t limit = 0;
  if (!memory_limit(args, limit) || !parse_fits(args.file, args, limit)) return kExitBadInput;
  scenario::LoadedScenario loaded;
  if (!load(args.file, args.sets, args.unsets, loaded)) return kExitBadInput;
  const std::string out_dir = args.out_dir.empty() ? loaded.scenario.output_dir : args.out_dir;
  const Preflight pre = preflight(loaded, args, limit, 0);
  if (!pre.error.empty()) {
    std::cerr << pre.error << "\n";
    return kExitBadInput;
  }
  const RingBudget ring_budget(pre.estimate, pre.peak_bytes, limit, !args.max_memory.empty());
  InterruptGuard interrupt;  // from here on a signal stops the run and the files are written
  std::unique_ptr<StagedDir> staged;
  if (!stage_output(writer ? out_dir : std::string(), !args.out_dir.empty(), loaded, staged)) {
    return kExitBadInput;
  }
  // After every check that can refuse: bad input stays exactly one line on stderr.
  if (const std::string note = variants_note(args.file, loaded.scenario); !note.empty()) {
    std::cerr << note << "\n";
  }

  scenario::RunResult result;
  {
    ProgressBar bar;
    scenario::RunOptions options;
    if (writer) options.progress = bar.callback();
    options.stop = interrupt.flag();
    options.ranks = ranks;
    // Memory follows what is in flight (issue 24 item 1): no record per flow is kept, and
    // flows.csv is written into the staging directory while the records are read.
    options.flows = {.keep_records = false, .csv_dir = staged ? staged->path() : std::filesystem::path()};
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
  if (!writer) return interrupt.exit_code(kExitOk);  // rank 0 has the run's result

  output::print_summary(std::cout, result);
  if (staged) {
    std::string files_written_line;
    try {
      output::write_run_files(staged->path(), result);
      // outputs.report: html (issue 13): drawn from the files just written.
      if (loaded.scenario.report == scenario::ReportFormat::kHtml) {
        output::write_report(staged->path());
      }
      files_written_line = files_written(staged->path());
      staged->commit();
    } catch (const std::runtime_error& e) {
      std::cerr << "fabricsim: " << e.what() << "\n";
      return interrupt.exit_code(kExitInternal);
    }
    std::cout << "  results in " << out_dir << "/ (" << files_written_line << ")\n";
  }
  return interrupt.exit_code(kExitOk);  // interrupted: ends by the signal, files written
}

namespace {

// One run of compare (or describe): a fabric of --fabrics or a variant of the file.
struct Prepared {
  std::string fabric;  // the column's name: the fabric, or the variant's name
  scenario::LoadedScenario loaded;
  std::vector<SkippedKey> skipped;
  std::string error;  // one line; "" = good
};

// Loads and checks every run of `args` (its variants, else one per fabric of --fabrics) before
// any simulates. Prints the first error (one line) and returns false.
bool prepare_runs(const CompareArgs& args, std::vector<Prepared>& runs) {
  try {
    const ScenarioSource source(args.file);
    // One run per fabric of --fabrics, or per variant of the file (spec/variants.h).
    struct Plan {
      std::string name, fabric;
      std::vector<std::string> sets;
      std::vector<scenario::SourceLocation> set_where;
    };
    std::vector<Plan> plans;
    if (!source.variants().empty()) {
      if (args.fabrics_given) {
        std::cerr << "fabricsim: --fabrics: " << args.file
                  << " has variants:, which choose each run's fabric; drop --fabrics\n";
        return false;
      }
      for (const scenario::VariantSpec& v : source.variants()) {
        Plan plan{v.name, v.fabric, v.sets, {}};
        for (int line : v.set_lines) plan.set_where.push_back({args.file, line});
        plan.sets.insert(plan.sets.end(), args.sets.begin(), args.sets.end());
        plans.push_back(std::move(plan));
      }
    } else {
      const std::vector<std::string> fabrics =
          parse_choice_list("--fabrics", "fabric", args.fabrics, compare_fabrics(), "ib,roce");
      if (fabrics.empty()) return false;
      for (const std::string& f : fabrics) plans.push_back({f, f, args.sets, {}});
    }
    if (!args.modes.empty()) {  // --modes: every run once per engine mode
      const std::vector<std::string> modes =
          parse_choice_list("--modes", "mode", args.modes, {"packet", "flow", "hybrid"}, "packet,flow");
      if (modes.empty()) return false;
      std::vector<Plan> expanded;
      for (const Plan& plan : plans) {
        for (const std::string& m : modes) {
          Plan q = plan;
          q.name += "-" + m;
          q.sets.push_back("mode=" + m);
          expanded.push_back(std::move(q));
        }
      }
      plans = std::move(expanded);
    }
    for (const Plan& plan : plans) {
      Prepared p{plan.name, {}, {}, ""};
      try {
        p.loaded = source.load_for(plan.fabric, plan.sets, p.skipped, args.unsets, plan.set_where);
        (void)scenario::resolve(p.loaded.scenario);
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
    return false;
  }
  for (const Prepared& p : runs) {
    if (p.error.empty()) continue;
    // An error every fabric shares is the file's; one that only some runs meet says which.
    const bool shared = std::all_of(runs.begin(), runs.end(),
                                    [&](const Prepared& q) { return q.error == p.error; });
    std::cerr << p.error << (shared ? "" : " (in the " + p.fabric + " run)") << "\n";
    return false;
  }
  return true;
}

// compare with threads > 1: every fabric's run at once, up to `threads` at a time, one ring
// budget for all of them (their expected rings summed, the projected peak the largest check's,
// which counts the others as held). The progress line follows the first run. A run that meets
// bad input reports it as the sequential loop would, the lowest-numbered first.
bool run_side_by_side(const std::vector<Prepared>& runs, const std::vector<Preflight>& checks,
                      const CompareArgs& args, int64_t limit, int threads,
                      const InterruptGuard& interrupt, const std::unique_ptr<StagedDir>& staged,
                      output::FabricRuns& results) {
  scenario::ResourceEstimate together = checks.front().estimate;
  int64_t peak = 0;
  together.ring_bytes = together.packets_bound_bytes = 0;
  for (const Preflight& c : checks) {
    together.ring_bytes += c.estimate.ring_bytes;
    together.packets_bound_bytes += c.estimate.packets_bound_bytes;
    peak = std::max(peak, c.peak_bytes);
  }
  const RingBudget ring_budget(together, peak, limit, !args.max_memory.empty());
  std::vector<scenario::RunResult> done(runs.size());
  std::vector<std::string> errors(runs.size());
  ProgressBar bar;
  std::string names;
  for (const Prepared& p : runs) names += (names.empty() ? "" : "+") + p.fabric;
  bar.begin_run(names, 1, 1);
  scenario::for_each_run(runs.size(), threads, [&](size_t i) {
    scenario::RunOptions options;
    if (i == 0) options.progress = bar.callback();
    options.stop = interrupt.flag();
    options.flows = {.keep_records = false,
                     .csv_dir = staged ? staged->path() : std::filesystem::path()};
    try {
      done[i] = scenario::run_scenario(runs[i].loaded.scenario, options);
    } catch (const InputError& e) {
      errors[i] = scenario::format_input_error(runs[i].loaded, e) + " (in the " +
                  runs[i].fabric + " run)";
    }
  });
  for (const std::string& e : errors) {
    if (e.empty()) continue;
    bar.finish();
    std::cerr << e << "\n";
    return false;
  }
  for (size_t i = 0; i < runs.size(); ++i) {
    if (done[i].run.peak_rss_bytes == 0) done[i].run.peak_rss_bytes = peak_rss_bytes();
    results.emplace_back(runs[i].fabric, std::move(done[i]));
  }
  return true;
}

}  // namespace

int compare_command(const CompareArgs& args) {
  // Load and check every fabric's scenario before simulating any.
  std::vector<Prepared> runs;
  int64_t limit = 0;
  if (!memory_limit(args, limit) || !parse_fits(args.file, args, limit)) return kExitBadInput;
  if (!prepare_runs(args, runs)) return kExitBadInput;

  // Memory: a later run simulates while every earlier run's result is held.
  int64_t held = 0;
  std::vector<Preflight> checks;
  for (const Prepared& p : runs) {
    const Preflight check = preflight(p.loaded, args, limit, held);
    if (!check.error.empty()) {
      std::cerr << check.error << " (in the " << p.fabric << " run)\n";
      return kExitBadInput;
    }
    const int64_t result = check.estimate.result_bytes;
    held = std::min(held, INT64_MAX - result) + result;  // saturates, never wraps
    checks.push_back(check);
  }
  // threads > 1 (the file's `threads`): the fabrics' runs side by side, each on one core (its
  // own twin then after it), so each run's check counts every other run's peak and result as
  // held at once.
  const int threads =
      static_cast<int>(std::min<size_t>(runs.front().loaded.scenario.threads, runs.size()));
  if (threads > 1) {
    for (Prepared& p : runs) p.loaded.scenario.threads = 1;
    std::vector<int64_t> alone(runs.size());
    int64_t all = 0;
    for (size_t i = 0; i < runs.size(); ++i) {
      const scenario::ResourceEstimate& e = checks[i].estimate;
      alone[i] = std::min(e.peak_bytes(), INT64_MAX / 2) + std::min(e.result_bytes, INT64_MAX / 4);
      all = std::min(all, INT64_MAX - alone[i]) + alone[i];
    }
    for (size_t i = 0; i < runs.size(); ++i) {
      const Preflight check = preflight(runs[i].loaded, args, limit, all - alone[i]);
      if (!check.error.empty()) {
        std::cerr << check.error << " (in the " << runs[i].fabric << " run, beside the others: "
                  << "threads " << threads << ")\n";
        return kExitBadInput;
      }
      checks[i] = check;
    }
  }
  // What only a built fabric can refuse, for every fabric before the first run simulates.
  for (const Prepared& p : runs) {
    try {
      scenario::check_buildable(p.loaded.scenario);
    } catch (const InputError& e) {
      std::cerr << scenario::format_input_error(p.loaded, e) << " (in the " << p.fabric
                << " run)\n";
      return kExitBadInput;
    }
  }
  // Every training compare has the ideal network's row (issue 23; docs/training.md "Ideal
  // network"): each run is followed by the same step on the ideal network.
  for (Prepared& p : runs) {
    const scenario::Scenario& sc = p.loaded.scenario;
    bool training = sc.workload.kind == workload::WorkloadKind::kTraining;
    for (const scenario::JobSpec& job : sc.jobs) {
      training |= job.workload.kind == workload::WorkloadKind::kTraining;
    }
    if (training && sc.node.gpus_per_node > 0) p.loaded.scenario.training.ideal_network = true;
  }
  InterruptGuard interrupt;  // from here on a signal stops the run and the files are written
  const bool out_option = !args.out_dir.empty();
  const std::string out_dir = out_option ? args.out_dir : runs.front().loaded.scenario.output_dir;
  std::unique_ptr<StagedDir> staged;
  if (!stage_output(out_dir, out_option, runs.front().loaded, staged)) return kExitBadInput;

  std::vector<std::pair<std::string, std::vector<SkippedKey>>> skipped;
  for (const Prepared& p : runs) skipped.emplace_back(p.fabric, p.skipped);
  std::cout << skipped_note(skipped) << std::flush;

  output::FabricRuns results;
  if (threads > 1) {
    if (!run_side_by_side(runs, checks, args, limit, threads, interrupt, staged, results)) {
      return kExitBadInput;
    }
  } else {
    ProgressBar bar;
    for (size_t i = 0; i < runs.size(); ++i) {
      scenario::RunOptions options;
      bar.begin_run(runs[i].fabric, static_cast<int>(i + 1), static_cast<int>(runs.size()));
      options.progress = bar.callback();
      options.stop = interrupt.flag();
      options.flows = {.keep_records = false, .csv_dir = staged ? staged->path() : std::filesystem::path()};
      const RingBudget ring_budget(checks[i].estimate, checks[i].peak_bytes, limit,
                                   !args.max_memory.empty());
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
      if (r.partial) break;  // interrupted: the remaining fabrics are not run
    }
  }

  // The first interrupted run (side by side every run may have been; one after another, the
  // last made).
  const auto partial = std::find_if(results.begin(), results.end(),
                                    [](const auto& r) { return r.second.partial; });
  if (partial != results.end()) {
    std::string not_run;
    for (size_t i = results.size(); i < runs.size(); ++i) not_run += " " + runs[i].fabric;
    std::cout << "  PARTIAL: the " << partial->first << " run was interrupted at simulated "
              << "time " << format_time(partial->second.sim_time_ps)
              << (not_run.empty() ? "" : "; not run:" + not_run) << "\n";
  }
  std::cout << output::format_compare_table(results);
  const bool report = std::any_of(runs.begin(), runs.end(), [](const Prepared& p) {
    return p.loaded.scenario.report == scenario::ReportFormat::kHtml;
  });
  if (staged) {
    std::string files_written_line;
    try {
      output::write_compare_files(staged->path(), results);
      // outputs.report: html (issue 13): each run's report, then the comparison's.
      if (report) {
        for (const auto& [fabric, result] : results) output::write_report(staged->path() / fabric);
        output::write_report(staged->path());
      }
      files_written_line = files_written(staged->path());
      staged->commit();
    } catch (const std::runtime_error& e) {
      std::cerr << "fabricsim: " << e.what() << "\n";
      return interrupt.exit_code(kExitInternal);
    }
    std::string dirs;
    for (const auto& [fabric, result] : results) dirs += ", " + fabric + "/";
    std::cout << "  results in " << out_dir << "/ (" << files_written_line << dirs << ")\n";
  }
  return interrupt.exit_code(kExitOk);  // interrupted: ends by the signal, files written
}

int validate_command(const std::string& file, const std::vector<std::string>& sets,
                     const std::vector<std::string>& unsets, const MemoryLimitArg& limit_arg) {
  int64_t limit = 0;
  if (!memory_limit(limit_arg, limit) || !parse_fits(file, limit_arg, limit)) return kExitBadInput;
  scenario::LoadedScenario loaded;
  if (!load(file, sets, unsets, loaded)) return kExitBadInput;
  // `run` would refuse what does not fit, so validate does too.
  const Preflight p = preflight(loaded, limit_arg, limit, 0);
  if (!p.error.empty()) {
    std::cerr << p.error << "\n";
    return kExitBadInput;
  }
  try {
    scenario::check_buildable(loaded.scenario);  // what only a built fabric can refuse
  } catch (const InputError& e) {
    std::cerr << scenario::format_input_error(loaded, e) << "\n";
    return kExitBadInput;
  }
  std::cout << file << ": ok (estimated peak memory " << format_bytes(p.peak_bytes) << ": "
            << scenario::describe_parts(p.estimate) << ")" << worst_case_note(p.estimate) << "\n";
  return kExitOk;
}

int topology_export_command(const std::string& file, const std::vector<std::string>& sets,
                            const std::vector<std::string>& unsets) {
  scenario::LoadedScenario loaded;
  if (!load(file, sets, unsets, loaded)) return kExitBadInput;
  try {
    scenario::export_topology(loaded.scenario, std::cout);
  } catch (const InputError& e) {
    std::cerr << scenario::format_input_error(loaded, e) << "\n";
    return kExitBadInput;
  }
  return kExitOk;
}

int describe_command(const CompareArgs& args) {
  std::vector<Prepared> runs;
  bool several = args.fabrics_given;
  try {
    several = several || !ScenarioSource(args.file).variants().empty();
  } catch (const scenario::LoadError& e) {
    std::cerr << e.what() << "\n";
    return kExitBadInput;
  }
  if (several) {
    if (!prepare_runs(args, runs)) return kExitBadInput;
  } else {
    Prepared p{"", {}, {}, ""};
    if (!load(args.file, args.sets, args.unsets, p.loaded)) return kExitBadInput;
    runs.push_back(std::move(p));
  }
  std::vector<Described> all;
  for (const Prepared& p : runs) {
    try {
      (void)scenario::resolve(p.loaded.scenario);
      all.push_back({p.fabric, scenario::bill_of_materials(p.loaded.scenario),
                     scenario::estimate_resources(p.loaded.scenario),
                     scenario::estimate_runtime(p.loaded.scenario)});
    } catch (const InputError& e) {
      std::cerr << scenario::format_input_error(p.loaded, e)
                << (p.fabric.empty() ? "" : " (in the " + p.fabric + " run)") << "\n";
      return kExitBadInput;
    }
  }
  std::cout << format_describe(all);
  return kExitOk;
}

int keys_command() {
  std::cout << scenario::render_keys_markdown();
  return kExitOk;
}

}  // namespace fabricsim::cli
