// cli/sweep_slurm.h: a sweep as Slurm job arrays, and collecting what the tasks wrote.
#include "cli/sweep_slurm.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/commands.h"
#include "cli/sweep_exec.h"

namespace fabricsim::cli {
namespace {

namespace fs = std::filesystem;
using output::write_atomically;
using sweep_detail::BadInput;

constexpr const char* kPlanFile = "plan.json";
constexpr int kPlanVersion = 1;

// 'text' for a POSIX shell: single quotes, each ' written as '\''.
std::string shell_quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// `name` looked up in $PATH as a shell would (run_children starts a path, not a name); the name
// itself when it is not found, so the error names what is missing.
std::string find_in_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  for (std::string d; std::getline(dirs, d, ':');) {
    const fs::path candidate = fs::path(d.empty() ? "." : d) / name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  return name;
}

nlohmann::json plan_json(const sweep_detail::SweepPlan& plan, bool report) {
  const output::SweepTable& t = plan.table;
  nlohmann::json j;
  j["version"] = kPlanVersion;
  j["file"] = t.file;
  j["keys"] = t.keys;
  j["points"] = t.points;
  j["seeds"] = t.seeds;
  j["report"] = report;
  nlohmann::json runs = nlohmann::json::array();
  for (const output::SweepRun& r : t.runs) {
    runs.push_back({{"point", r.point}, {"seed", r.seed}, {"id", r.id}});
  }
  j["runs"] = std::move(runs);
  return j;
}

// One array job: tasks [first, first + count) of the pending runs, task i the run
// plan.commands[first + i].
std::string sbatch_script(const SweepArgs& args, const sweep_detail::SweepPlan& plan,
                          const fs::path& dir, size_t first, size_t count, size_t part,
                          size_t parts, int throttle) {
  const fs::path abs_dir = fs::absolute(dir);
  const fs::path logs = abs_dir / "logs";
  std::ostringstream s;
  s << "#!/bin/bash\n"
    << "# Written by `fabricsim sweep --slurm` (docs/sweep.md \"On a Slurm cluster\"): part "
    << part + 1 << " of " << parts << ", runs " << first + 1 << "-" << first + count << " of the "
    << plan.commands.size() << " the sweep had left to run, one per array task.\n"
    << "# Submit: sbatch " << (abs_dir / "slurm" / ("sweep-" + std::to_string(part) + ".sbatch")).string()
    << "\n# Then:   fabricsim sweep --collect " << abs_dir.string() << "\n"
    << "#SBATCH --job-name=fabricsim-sweep\n"
    << "#SBATCH --array=0-" << count - 1 << (throttle > 0 ? "%" + std::to_string(throttle) : "")
    << "\n"
    // One simulation is one process on one core (the simulator is single-threaded).
    << "#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n"
    << "#SBATCH --chdir=" << fs::current_path().string() << "\n"
    << "#SBATCH --output=" << (logs / "slurm-%A_%a.out").string() << "\n";
  for (const std::string& a : args.sbatch_args) s << "#SBATCH " << a << "\n";
  s << "set -u\n"
    << "logs=" << shell_quote(logs.string()) << "\n"
    << "case \"${SLURM_ARRAY_TASK_ID:-}\" in\n";
  for (size_t i = 0; i < count; ++i) {
    const ChildCommand& c = plan.commands[first + i];
    const std::string& id = plan.table.runs[plan.command_run[first + i]].id;
    s << "  " << i << ") id=" << shell_quote(id) << "; set --";
    for (const std::string& a : c.argv) s << " " << shell_quote(a);
    s << " ;;\n";
  }
  s << "  *) echo \"fabricsim sweep: no run for array task '${SLURM_ARRAY_TASK_ID:-}'\" >&2; "
       "exit 2 ;;\nesac\n"
    // The exit status is what --collect reads: no .exit = not finished (queued, running,
    // cancelled); written after the run, so a task killed with it never leaves a stale one.
    << "rm -f \"$logs/$id.exit\"\n"
    << "\"$@\" </dev/null >\"$logs/$id.out\" 2>\"$logs/$id.err\"\n"
    << "rc=$?\n"
    << "echo \"$rc\" >\"$logs/$id.exit\"\n"
    << "exit \"$rc\"\n";
  return s.str();
}

}  // namespace

std::vector<std::string> write_slurm_sweep(const SweepArgs& args,
                                           const sweep_detail::SweepPlan& plan, bool report,
                                           const fs::path& dir, int throttle) {
  for (const std::string& a : args.sbatch_args) {
    if (a.empty() || a[0] != '-' || a.find_first_of("\n\r") != std::string::npos) {
      throw BadInput("fabricsim: --sbatch " + a +
                     ": must be one sbatch option starting with '-', e.g. --sbatch=--partition=gpu");
    }
  }
  const fs::path slurm = dir / "slurm";
  std::error_code ec;
  fs::create_directories(slurm, ec);
  if (ec) throw std::runtime_error("cannot create " + slurm.string() + ": " + ec.message());
  // Scripts of an earlier --slurm invocation would run finished runs again: removed.
  for (const fs::directory_entry& e : fs::directory_iterator(slurm, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("sweep-", 0) == 0 && e.path().extension() == ".sbatch") fs::remove(e.path(), ec);
  }
  write_atomically(slurm / kPlanFile, plan_json(plan, report).dump(1) + "\n");
  std::vector<std::string> scripts;
  const size_t pending = plan.commands.size();
  const size_t parts = (pending + kSlurmTasksPerArray - 1) / kSlurmTasksPerArray;
  for (size_t part = 0; part < parts; ++part) {
    const size_t first = part * kSlurmTasksPerArray;
    const size_t count = std::min(kSlurmTasksPerArray, pending - first);
    const fs::path path = slurm / ("sweep-" + std::to_string(part) + ".sbatch");
    write_atomically(path, sbatch_script(args, plan, dir, first, count, part, parts, throttle));
    fs::permissions(path, fs::perms::owner_exec | fs::perms::group_exec, fs::perm_options::add, ec);
    scripts.push_back(path.string());
  }
  return scripts;
}

int submit_slurm_sweep(const std::vector<std::string>& scripts, const fs::path& dir) {
  std::vector<ChildCommand> commands;
  for (size_t i = 0; i < scripts.size(); ++i) {
    ChildCommand c;
    // --parsable: sbatch prints only "jobid[;cluster]".
    c.argv = {find_in_path("sbatch"), "--parsable", scripts[i]};
    c.stdout_path = (dir / "slurm" / ("sweep-" + std::to_string(i) + ".submit.out")).string();
    c.stderr_path = (dir / "slurm" / ("sweep-" + std::to_string(i) + ".submit.err")).string();
    commands.push_back(std::move(c));
  }
  int rc = kExitOk;
  // One at a time, in order: a refused script stops the rest (the site's limits are the same
  // for every part), so no half of a sweep is queued by surprise.
  for (size_t i = 0; i < commands.size() && rc == kExitOk; ++i) {
    const std::vector<ChildOutcome> o =
        run_children({commands[i]}, 1, [](size_t, const ChildOutcome&) {}, [] { return 0; });
    const std::string out = sweep_detail::first_line(commands[i].stdout_path);
    if (!o[0].spawn_error.empty() || o[0].exit_code != 0) {
      const std::string why = !o[0].spawn_error.empty()
                                  ? o[0].spawn_error
                                  : sweep_detail::first_line(commands[i].stderr_path);
      std::cerr << "fabricsim: sbatch " << scripts[i] << ": "
                << (why.empty() ? "exit " + std::to_string(o[0].exit_code) : why)
                << (i > 0 ? " (earlier parts were submitted)" : "") << "\n";
      rc = kExitInternal;
    } else {
      std::cout << "  submitted " << scripts[i] << " as job " << out.substr(0, out.find(';'))
                << "\n";
    }
  }
  return rc;
}

int collect_sweep(const std::string& dir_text) {
  const fs::path dir(dir_text);
  const auto bad = [&](const std::string& why) {
    std::cerr << "fabricsim: --collect " << dir_text << ": " << why << "\n";
    return kExitBadInput;
  };
  if (!sweep_detail::is_sweep_dir(dir)) return bad("not a sweep directory (no .fabricsim-sweep)");
  std::ifstream in(dir / "slurm" / kPlanFile);
  if (!in) return bad("no slurm/plan.json: `fabricsim sweep ... --slurm` writes it");
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  output::SweepTable table;
  bool report = false;
  try {
    if (j.is_discarded() || j.value("version", 0) != kPlanVersion) {
      return bad("slurm/plan.json is not a plan of this fabricsim (version " +
                 std::to_string(kPlanVersion) + ")");
    }
    table.file = j.at("file").get<std::string>();
    table.keys = j.at("keys").get<std::vector<std::string>>();
    table.points = j.at("points").get<std::vector<std::vector<std::string>>>();
    table.seeds = j.at("seeds").get<std::vector<uint64_t>>();
    report = j.at("report").get<bool>();
    for (const nlohmann::json& r : j.at("runs")) {
      output::SweepRun run;
      run.point = r.at("point").get<size_t>();
      run.seed = r.at("seed").get<uint64_t>();
      run.id = r.at("id").get<std::string>();
      if (run.point >= table.points.size() || run.id.empty() ||
          run.id.find('/') != std::string::npos) {
        return bad("slurm/plan.json: run " + run.id + " does not fit the plan");
      }
      table.runs.push_back(std::move(run));
    }
  } catch (const nlohmann::json::exception& e) {
    return bad(std::string("slurm/plan.json: ") + e.what());
  }
  size_t ok = 0, failed = 0, not_run = 0;
  for (output::SweepRun& r : table.runs) {
    const fs::path exit_file = dir / "logs" / (r.id + ".exit");
    const std::string status = sweep_detail::first_line(exit_file);
    if (sweep_detail::read_finished(dir / "points" / r.id, r.metrics)) {
      r.ok = true;
      ++ok;
    } else if (status.empty()) {
      r.not_run = true;
      r.error = "not finished (no logs/" + r.id + ".exit: queued, running or cancelled)";
      ++not_run;
    } else {
      const std::string why = sweep_detail::first_line(dir / "logs" / (r.id + ".err"));
      r.error = status == "0" ? "exit 0 but no complete result.json in points/" + r.id
                              : "exit " + status + (why.empty() ? "" : ": " + why);
      ++failed;
    }
  }
  std::cout << "sweep --collect: " << table.runs.size() << " runs in " << dir_text << "/: " << ok
            << " finished, " << failed << " failed, " << not_run << " not finished\n";
  const std::string counts = "collected " + std::to_string(ok) + ", failed " +
                             std::to_string(failed) +
                             (not_run ? ", not finished " + std::to_string(not_run) : "");
  if (!sweep_detail::write_sweep_results(dir, table, report, counts)) return kExitInternal;
  return failed == 0 && not_run == 0 ? kExitOk : kExitInternal;
}

}  // namespace fabricsim::cli
