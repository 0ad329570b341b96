#include "cli/sweep.h"

#include <algorithm>
#include <cctype>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <stdexcept>

#include "cli/interrupt.h"
#include "cli/sweep_exec.h"
#include "cli/sweep_plan.h"
#include "cli/sweep_slurm.h"
#include "core/error.h"
#include "resolve/resolve.h"
#include "output/report/report.h"
#include "output/sweep_table.h"
#include "spec/load.h"
#include "engine/run.h"

namespace fabricsim::cli {
namespace {

namespace fs = std::filesystem;
using namespace sweep_detail;

// Fills `r` from how its `fabricsim run` ended; `interrupted()` is the sweep's own stop signal
// (0 = none), which makes a run it stopped "not run" rather than failed.
void record_outcome(output::SweepRun& r, const ChildOutcome& o, const ChildCommand& c,
                    const fs::path& dir, const std::function<int()>& interrupted) {
  if (!o.spawn_error.empty()) {
    r.error = o.spawn_error;
  } else if (o.exit_code != 0) {
    const std::string why = first_line(c.stderr_path);
    r.error = (o.signal ? "killed by signal " + std::to_string(o.signal)
                        : "exit " + std::to_string(o.exit_code)) +
              (why.empty() ? "" : ": " + why);
    // Stopped by the sweep's own interrupt: not a failure of the point.
    if (o.signal != 0 && o.signal == interrupted()) {
      r.not_run = true;
      r.error = "interrupted (signal " + std::to_string(o.signal) + ")";
    }
  } else if (!read_finished(dir / "points" / r.id, r.metrics)) {
    r.error = "exit 0 but no complete result.json in points/" + r.id;
    if (interrupted() != 0) r.not_run = true;  // stopped early: partial
  } else {
    r.ok = true;
  }
}

// "  [3/17] <id>  ok (1.23 s)": one line per run as it ends.
void print_run_line(size_t finished, size_t total, const output::SweepRun& r, double wall_seconds) {
  char secs[32];
  std::snprintf(secs, sizeof secs, "%.2f s", wall_seconds);
  std::cout << "  [" << finished << "/" << total << "] " << r.id << "  "
            << (r.ok        ? "ok"
                : r.not_run ? "interrupted"
                            : "FAILED")
            << " (" << secs << ")\n"
            << std::flush;
}

// Runs the plan's commands, `jobs` at once, filling table.runs as each ends (the sweep's
// interrupt stops the rest: they are marked not run). Returns how many started.
size_t run_plan(SweepPlan& plan, int jobs, const fs::path& dir,
                const std::function<int()>& interrupted) {
  size_t finished = 0;
  const std::vector<ChildOutcome> outcomes = run_children(
      plan.commands, jobs,
      [&](size_t i, const ChildOutcome& o) {
        output::SweepRun& r = plan.table.runs[plan.command_run[i]];
        record_outcome(r, o, plan.commands[i], dir, interrupted);
        print_run_line(++finished, plan.commands.size(), r, o.wall_seconds);
      },
      interrupted);
  size_t ran = 0;
  for (size_t i = 0; i < outcomes.size(); ++i) {
    if (outcomes[i].started) {
      ++ran;
    } else {
      plan.table.runs[plan.command_run[i]].not_run = true;
      plan.table.runs[plan.command_run[i]].error = "not run (the sweep was interrupted)";
    }
  }
  return ran;
}

// The command line's shape: --collect alone, or FILE with --param (and --slurm's options only
// with --slurm); throws BadInput.
void check_modes(const SweepArgs& args) {
  if (!args.collect_dir.empty()) {
    if (!args.file.empty() || !args.params.empty() || args.slurm) {
      throw BadInput("fabricsim: sweep --collect DIR takes no FILE, --param or --slurm: the "
                     "sweep's runs are in DIR/slurm/plan.json");
    }
    return;
  }
  if (args.file.empty()) throw BadInput("fabricsim: sweep: a scenario FILE is needed");
  if (!args.slurm && (args.submit || !args.sbatch_args.empty())) {
    throw BadInput(std::string("fabricsim: sweep: ") +
                   (args.submit ? "--submit" : "--sbatch") + " needs --slurm");
  }
}

// --slurm: the pending runs written as job arrays (and submitted with --submit).
int write_slurm(const SweepArgs& args, const SweepPlan& plan, bool report, const fs::path& dir) {
  const std::vector<std::string> scripts =
      write_slurm_sweep(args, plan, report, dir, std::max(args.jobs, 0));
  if (scripts.empty()) {
    std::cout << "  nothing left to run; fabricsim sweep --collect " << dir.string()
              << " writes sweep.csv\n";
    return kExitOk;
  }
  std::cout << "  wrote " << scripts.size() << " Slurm job array" << (scripts.size() == 1 ? "" : "s")
            << " (" << plan.commands.size() << " tasks, one run each) in " << dir.string()
            << "/slurm/\n";
  int rc = kExitOk;
  if (args.submit) {
    rc = submit_slurm_sweep(scripts, dir);
  } else {
    for (const std::string& s : scripts) std::cout << "  submit: sbatch " << s << "\n";
  }
  std::cout << "  when the tasks are done: fabricsim sweep --collect " << dir.string() << "\n";
  return rc;
}

}  // namespace

int sweep_command(const SweepArgs& args) {
  try {
    check_modes(args);
    if (!args.collect_dir.empty()) return collect_sweep(args.collect_dir);
    const std::vector<Param> params = parse_params(args);
    // The file with the common options alone: its seed and outputs.dir.
    scenario::LoadedScenario base;
    try {
      base = scenario::load_scenario(args.file, args.sets, args.unsets);
    } catch (const scenario::LoadError& e) {
      throw BadInput(e.what());
    }
    const std::vector<std::vector<std::string>> points = cartesian(params);
    for (const auto& values : points) check_point(args, params, values);  // before any run

    const std::string out = sweep_out_dir(args, base);
    const fs::path dir(out);
    prepare_dir(dir);

    // `fabricsim sweep ... | head` must not kill the sweep (and orphan its runs) when the pipe
    // closes: writes to a closed stdout fail quietly instead, and the CSVs are still written.
    std::signal(SIGPIPE, SIG_IGN);
    // Ctrl-C / SIGTERM: no further run starts, the running ones get the signal and write their
    // files marked partial (so they run again on resume), the sweep's files are written, and the
    // sweep ends by the signal like `run` (cli/interrupt.h).
    InterruptGuard interrupt;
    SweepPlan plan = plan_sweep(args, params, points, base.scenario.seed, dir);
    const output::SweepTable& table = plan.table;
    const int jobs = args.jobs > 0 ? args.jobs : available_cores();
    const size_t skipped = table.runs.size() - plan.commands.size();
    const bool report = base.scenario.report == scenario::ReportFormat::kHtml;
    std::cout << "sweep: " << points.size() << " point" << (points.size() == 1 ? "" : "s") << " x "
              << args.seeds << " seed" << (args.seeds == 1 ? "" : "s") << " = " << table.runs.size()
              << " runs in " << out << "/; " << skipped << " finished earlier (skipped), "
              << plan.commands.size() << " to run"
              << (args.slurm ? " on Slurm" : ", " + std::to_string(jobs) + " at once") << "\n"
              << std::flush;
    if (args.slurm) return write_slurm(args, plan, report, dir);
    const size_t ran = run_plan(plan, jobs, dir, [&]() -> int { return *interrupt.flag(); });

    size_t failed = 0, not_run = 0;
    for (const output::SweepRun& r : table.runs) {
      if (r.not_run) {
        ++not_run;
      } else if (!r.ok) {
        ++failed;
      }
    }
    const std::string counts = "ran " + std::to_string(ran) + ", skipped " +
                               std::to_string(skipped) + ", failed " + std::to_string(failed) +
                               (not_run ? ", not run " + std::to_string(not_run) : "");
    if (!write_sweep_results(dir, table, report, counts)) {
      return interrupt.exit_code(kExitInternal);
    }
    // Interrupted: ends by the signal (after the files), whatever the runs did.
    return interrupt.exit_code(failed == 0 ? kExitOk : kExitInternal);
  } catch (const BadInput& e) {
    std::cerr << e.what() << "\n";
    return kExitBadInput;
  } catch (const std::runtime_error& e) {  // a --slurm file that cannot be written
    std::cerr << "fabricsim: " << e.what() << "\n";
    return kExitInternal;
  }
}

}  // namespace fabricsim::cli
