// Runs a list of commands as child processes, at most `jobs` at once (posix_spawn + waitpid:
// the simulator itself stays single-threaded), each with stdin from /dev/null and stdout and
// stderr into files. Used by `fabricsim sweep` (cli/sweep.h) to run each point as
// `fabricsim run ...` of this same binary.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace fabricsim::cli {

struct ChildCommand {
  std::vector<std::string> argv;  // argv[0] is the program's path
  std::string stdout_path;
  std::string stderr_path;
};

struct ChildOutcome {
  bool started = false;  // false: not started (the sweep was interrupted first)
  int exit_code = -1;    // -1: did not exit normally (killed by `signal`), or could not start
  int signal = 0;
  std::string spawn_error;  // non-empty when the process could not be started
  double wall_seconds = 0;
};

// Runs every command, at most `jobs` (>= 1) at once, in list order as slots free up; calls
// `done(index, outcome)` as each ends (in completion order). Once `stop()` returns a signal
// number (SIGINT, SIGTERM), no further command starts, the running ones are sent that signal
// (a `fabricsim run` then writes its files marked partial and ends) and are waited for.
// Returns the outcomes by index.
std::vector<ChildOutcome> run_children(const std::vector<ChildCommand>& commands, int jobs,
                                       const std::function<void(size_t, const ChildOutcome&)>& done,
                                       const std::function<int()>& stop);

// The path of this process's executable (/proc/self/exe resolved), for spawning itself.
std::string self_executable();

// Processors this process may run on (sched_getaffinity), at least 1.
int available_cores();

}  // namespace fabricsim::cli
