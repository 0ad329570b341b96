// Ctrl-C (SIGINT) and SIGTERM during `run` and `compare`: the first one stops the simulation at
// its next check (scenario::kCheckEveryEvents events, tens of milliseconds), the run's files are
// written with "partial": true, and then the process ends by that same signal, so the shell
// reports 130 (SIGINT) or 143 (SIGTERM) and a script's loop stops as for any interrupted command.
// A second one kills at once (the handler resets itself to the default action).
#pragma once

#include "engine/run_control.h"

namespace fabricsim::cli {

// While alive, SIGINT and SIGTERM set a flag instead of killing. A signal that was ignored when
// fabricsim started (a background job of a non-interactive shell, nohup) stays ignored.
// One at a time.
class InterruptGuard {
 public:
  InterruptGuard();
  ~InterruptGuard();  // restores the previous actions
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

  // Nonzero once a signal arrived (it holds the signal number): scenario::RunOptions::stop.
  const scenario::StopFlag* flag() const;
  // `code`, unless a signal arrived: then flushes stdout and stderr and ends the process by that
  // signal with its default action (does not return).
  int exit_code(int code);
};

}  // namespace fabricsim::cli
