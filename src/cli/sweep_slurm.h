// `fabricsim sweep FILE --param ... --slurm [--submit] [--sbatch ARG]...` and
// `fabricsim sweep --collect DIR` (docs/sweep.md "On a Slurm cluster").
//
// --slurm plans the sweep exactly as a local sweep does (the same checks, run ids and resume:
// finished runs are skipped) and, instead of running the rest here, writes them as Slurm job
// arrays: DIR/slurm/sweep-K.sbatch, one run per array task, each task the same
// `fabricsim run ...` command a local sweep would start (this binary's absolute path, the
// working directory of the sweep as --chdir), its stdout/stderr in DIR/logs/<id>.out/.err and
// its exit status in DIR/logs/<id>.exit. A script holds at most 1,000 tasks (indices 0-999),
// under Slurm's default MaxArraySize of 1001 (slurm.conf(5)). DIR/slurm/plan.json records every
// run of the sweep (point, seed, id) for --collect. --submit hands each script to `sbatch`.
//
// --collect DIR builds sweep.csv, sweep_aggregate.csv, sweep.json (and report.html when the
// scenario asks for one) from what the tasks wrote, as a local sweep does at its end: a run is
// ok when its result.json is complete; failed when its .exit is non-zero or it exited 0 without
// a complete result; not run when it has no .exit yet (queued, running, or cancelled).
// Exit: 0 every run ok; 1 some failed or not finished (listed); 2 DIR is not a --slurm sweep.
#pragma once

#include <string>
#include <vector>

#include "cli/sweep_plan.h"

namespace fabricsim::cli {

// Slurm's default MaxArraySize (1001): array indices 0..1000 are accepted everywhere unless a
// site lowers it; a script holds this many tasks at most.
inline constexpr size_t kSlurmTasksPerArray = 1000;

// Writes DIR/slurm/plan.json and one sbatch script per kSlurmTasksPerArray pending runs
// (earlier scripts removed); returns the scripts' paths. `throttle` > 0 adds %throttle to
// --array (at most that many tasks of the array at once). Throws BadInput on a --sbatch
// argument that cannot be a #SBATCH line, std::runtime_error when a file cannot be written.
std::vector<std::string> write_slurm_sweep(const SweepArgs& args,
                                           const sweep_detail::SweepPlan& plan, bool report,
                                           const std::filesystem::path& dir, int throttle);

// `sbatch --parsable SCRIPT` for each script; prints each job id. Returns kExitOk, or
// kExitInternal (with the reason on stderr) when sbatch cannot start or refuses a script.
int submit_slurm_sweep(const std::vector<std::string>& scripts, const std::filesystem::path& dir);

// `fabricsim sweep --collect DIR`.
int collect_sweep(const std::string& dir);

}  // namespace fabricsim::cli
