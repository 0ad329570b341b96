#include "cli/sweep_exec.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <map>

extern char** environ;

namespace fabricsim::cli {
namespace {

using Clock = std::chrono::steady_clock;

// Starts one command; returns its pid, or -1 with `error` set.
pid_t spawn(const ChildCommand& c, std::string& error) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, c.stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_addopen(&actions, 2, c.stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  // The sweep ignores SIGPIPE (cli/sweep.cpp); a run gets the default back.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
  std::vector<char*> argv;
  for (const std::string& a : c.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, argv[0], &actions, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    error = "cannot start " + c.argv[0] + ": " + std::strerror(rc);
    return -1;
  }
  return pid;
}

}  // namespace

std::vector<ChildOutcome> run_children(const std::vector<ChildCommand>& commands, int jobs,
                                       const std::function<void(size_t, const ChildOutcome&)>& done,
                                       const std::function<int()>& stop) {
  std::vector<ChildOutcome> outcomes(commands.size());
  std::map<pid_t, std::pair<size_t, Clock::time_point>> running;
  size_t next = 0;
  bool forwarded = false;
  for (;;) {
    const int sig = stop();
    if (sig != 0 && !forwarded) {
      for (const auto& [pid, run] : running) kill(pid, sig);
      forwarded = true;
    }
    while (sig == 0 && next < commands.size() &&
           static_cast<int>(running.size()) < std::max(jobs, 1)) {
      const size_t i = next++;
      std::string error;
      const pid_t pid = spawn(commands[i], error);
      outcomes[i].started = true;
      if (pid < 0) {
        outcomes[i].spawn_error = error;
        done(i, outcomes[i]);
        continue;
      }
      running[pid] = {i, Clock::now()};
    }
    if (running.empty()) break;
    // Polled (WNOHANG, every 10 ms) rather than blocking: a signal to the sweep alone is
    // noticed and forwarded at once, whatever SA_RESTART does to a blocking waitpid.
    int status = 0;
    const pid_t pid = waitpid(-1, &status, WNOHANG);
    if (pid == 0 || (pid < 0 && errno == EINTR)) {
      usleep(10'000);
      continue;
    }
    if (pid < 0) break;  // ECHILD: nothing left to wait for (not expected while `running`)
    auto it = running.find(pid);
    if (it == running.end()) continue;  // not one of ours
    const auto [i, start] = it->second;
    running.erase(it);
    ChildOutcome& o = outcomes[i];
    o.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
    if (WIFEXITED(status)) o.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) o.signal = WTERMSIG(status);
    done(i, o);
  }
  return outcomes;
}

std::string self_executable() {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("/proc/self/exe") : exe.string();
}

int available_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(CPU_COUNT(&set), 1);
  const long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<int>(n) : 1;
}

}  // namespace fabricsim::cli
