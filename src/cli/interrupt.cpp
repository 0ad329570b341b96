#include "cli/interrupt.h"

#include <signal.h>

#include <cstdio>
#include <iostream>

namespace fabricsim::cli {
namespace {

constexpr int kSignals[] = {SIGINT, SIGTERM};

scenario::StopFlag g_caught = 0;
struct sigaction g_previous[2];
bool g_installed[2] = {false, false};

// Async-signal-safe: one store to a volatile sig_atomic_t. SA_RESETHAND has already restored the
// default action, so a second signal of the same kind kills.
extern "C" void on_signal(int sig) { g_caught = sig; }

}  // namespace

InterruptGuard::InterruptGuard() {
  g_caught = 0;
  for (int i = 0; i < 2; ++i) {
    g_installed[i] = false;
    if (sigaction(kSignals[i], nullptr, &g_previous[i]) != 0) continue;
    if (g_previous[i].sa_handler == SIG_IGN) continue;  // the caller asked us to ignore it
    struct sigaction action {};
    action.sa_handler = on_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESETHAND | SA_RESTART;
    g_installed[i] = sigaction(kSignals[i], &action, nullptr) == 0;
  }
}

InterruptGuard::~InterruptGuard() {
  for (int i = 0; i < 2; ++i) {
    if (g_installed[i]) sigaction(kSignals[i], &g_previous[i], nullptr);
    g_installed[i] = false;
  }
}

const scenario::StopFlag* InterruptGuard::flag() const { return &g_caught; }

int InterruptGuard::exit_code(int code) {
  const int sig = g_caught;
  if (sig == 0) return code;
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  struct sigaction action {};
  action.sa_handler = SIG_DFL;
  sigemptyset(&action.sa_mask);
  sigaction(sig, &action, nullptr);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  sigprocmask(SIG_UNBLOCK, &set, nullptr);
  raise(sig);
  return 128 + sig;  // not reached unless the signal could not be delivered
}

}  // namespace fabricsim::cli
